/* hostnoise.h - how busy the host is beside kbench: the CPU time of every
 * process but kbench and its descendants (its QEMU, the local backend's
 * agent and workloads) and the kernel's own work (interrupts, kernel
 * threads: counted apart), CPU pressure (/proc/pressure/cpu) and the load
 * average. run.c samples around every iteration's workloads and records
 * the difference in results.json (iterations[].host_noise, docs/results.md);
 * campaigns check the host before each run (--busy-host). */
#ifndef KBENCH_HOSTNOISE_H
#define KBENCH_HOSTNOISE_H

#include <json-c/json.h>
#include <stddef.h>

struct strbuf;

/* A process as one sample saw it: the others (not kbench's tree, not a
 * kernel thread) are kept, and the busiest of them named when the host
 * is busy. */
struct host_proc {
	long pid;
	unsigned long long ticks; /* utime + stime + cutime + cstime */
	char comm[16];            /* its name, printable ASCII only */
	long ppid;
};

/* Named as the busiest: at most this many, each of at least this share. */
#define HOSTNOISE_BUSIEST 3
#define HOSTNOISE_BUSIEST_MIN_PCT 1.0

/* Other processes' share of the host's CPU, in percent of every core,
 * at or above which an iteration is flagged busy (--busy-threshold). A
 * kernel build beside a run uses 50% or more of a 2-core host; an idle
 * one, a few percent. */
#define HOSTNOISE_THRESHOLD_PCT 10.0

/* One look at the host; ok is 0 when /proc/stat could not be read. */
struct host_sample {
	double t;                  /* now_mono() */
	unsigned long long busy;   /* /proc/stat "cpu": all but idle and iowait, ticks */
	unsigned long long total;  /* all of it, ticks */
	unsigned long long irq;    /* /proc/stat irq + softirq, ticks */
	unsigned long long own;    /* this process and its descendants, ticks */
	unsigned long long kthreads; /* kernel threads (pid 2 and its children), ticks */
	unsigned long long psi_us; /* /proc/pressure/cpu "some" total, microseconds */
	int have_psi;
	double load1;
	int ok;
	struct host_proc *procs;   /* the other processes, by pid (hostnoise_release) */
	size_t nprocs;
};

/* Parsers of the /proc texts (0, or -1 when TEXT is not what is expected). */
/* /proc/stat's "cpu" line: busy (all but idle and iowait), irq (irq +
 * softirq, part of busy) and total ticks. */
int hostnoise_parse_stat(const char *text, unsigned long long *busy, unsigned long long *irq,
			 unsigned long long *total);
/* /proc/PID/stat: its pid, ppid and utime+stime+cutime+cstime in ticks. */
int hostnoise_parse_pidstat(const char *text, long *pid, long *ppid, unsigned long long *ticks);
/* /proc/PID/stat's comm into OUT (LEN bytes): what lies between the first
 * '(' and the last ')', any byte that is not printable ASCII as '?' (a
 * process names itself: hostile bytes never reach results or reports). */
int hostnoise_parse_comm(const char *text, char *out, size_t len);
/* /proc/pressure/cpu: the "some" line's avg10 (percent) and total (us). */
int hostnoise_parse_psi(const char *text, double *avg10, unsigned long long *total_us);
int hostnoise_parse_loadavg(const char *text, double *load1);
/* /proc/PID/stat appended to OUT; -1, and nothing printed, when the
 * process is gone (processes exit while the sampler walks /proc) */
int hostnoise_read_pidstat(const char *path, struct strbuf *out);

/* Sample the host now (the process tree rooted at getpid()). */
void hostnoise_sample(struct host_sample *s);
void hostnoise_release(struct host_sample *s);

/* The figures between A and B, "busy" when other processes used
 * THRESHOLD_PCT or more: { seconds, other_cpu_pct, own_cpu_pct,
 * kernel_cpu_pct (interrupts and kernel threads, not in other_cpu_pct),
 * psi_cpu_some_pct (when the host has PSI), load1, threshold_pct, busy,
 * busiest [{pid, comm, cpu_pct}] (the other processes that used the most,
 * HOSTNOISE_BUSIEST at most, each HOSTNOISE_BUSIEST_MIN_PCT or more; absent
 * when none did) }.
 * NULL when either sample failed or no time passed. */
json_object *hostnoise_json(const struct host_sample *a, const struct host_sample *b,
			    double threshold_pct);

/* BUSIEST (hostnoise_json's array) as text, "; busiest: make (pid 812)
 * 41.2%, cc1 (pid 901) 8.0%", into OUT; "" when BUSIEST is NULL or empty. */
void hostnoise_busiest_text(json_object *busiest, char *out, size_t len);

/* What a campaign does when the host is busy before a run. */
enum busy_host { BUSY_FLAG, BUSY_WAIT, BUSY_REFUSE };
int busy_host_parse(const char *arg, enum busy_host *out);
const char *busy_host_name(enum busy_host m);

/* Look at the host for a few seconds; with BUSY_WAIT look again until it
 * is quiet or WAIT_MAX_S seconds have passed (then go on: the run is
 * flagged). 0 to go on, -1 (an error printed) when BUSY_REFUSE finds it
 * busy. */
int hostnoise_gate(enum busy_host mode, double threshold_pct, int wait_max_s);

#endif
