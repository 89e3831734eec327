/* hostnoise.c - how busy the host is beside kbench (hostnoise.h).
 *
 * Other processes' CPU time is the host's busy time (/proc/stat) less
 * the time of kbench's own process tree: every live descendant of this
 * process by parent pid (QEMU and its threads, the local backend's agent
 * and the workloads it started), each with utime + stime and its reaped
 * children's cutime + cstime, plus this process's own. A child reaped
 * between two samples moves from the walk into its parent's cutime, so
 * the tree's total only grows. Both counts are in clock ticks.
 *
 * The kernel's own work is not another process's: interrupts and softirqs
 * (/proc/stat's irq and softirq) and kernel threads (kthreadd, pid 2, and
 * its children: kworkers doing QEMU's writeback, kswapd, kdamond reclaiming
 * for QEMU's memory) are counted apart as kernel_cpu_pct and left out of
 * other_cpu_pct. Measured on a 2-core host in a full make test: with
 * kbench's QEMU the only process running, 13.7-15.1% of the CPU was such
 * kernel work, which the guard called "busy" before it was set apart. */
#include "core/hostnoise.h"
#include "core/jsonutil.h"
#include "core/spawn.h"
#include "core/util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int hostnoise_parse_stat(const char *text, unsigned long long *busy, unsigned long long *irq,
			 unsigned long long *total)
{
	unsigned long long f[10] = { 0 };
	int n = 0;
	const char *p = text;
	char *end;
	if (strncmp(p, "cpu ", 4))
		return -1;
	p += 4;
	while (n < 10) {
		while (*p == ' ')
			p++;
		if (!isdigit((unsigned char)*p))
			break;
		f[n++] = strtoull(p, &end, 10);
		p = end;
	}
	/* user nice system idle iowait irq softirq [steal [guest [guest_nice]]]:
	 * guest time is already in user and nice */
	if (n < 7 || (*p != '\n' && *p != '\0'))
		return -1;
	*busy = f[0] + f[1] + f[2] + f[5] + f[6] + f[7];
	*irq = f[5] + f[6];
	*total = *busy + f[3] + f[4];
	return 0;
}

int hostnoise_parse_pidstat(const char *text, long *pid, long *ppid, unsigned long long *ticks)
{
	/* "pid (comm) state ppid ...": comm may hold spaces and parentheses */
	const char *p = strrchr(text, ')');
	unsigned long long t[4];
	char *end;
	int field = 3;
	if (!p || sscanf(text, "%ld", pid) != 1)
		return -1;
	p++;
	while (field <= 17) {
		while (*p == ' ')
			p++;
		if (!*p || *p == '\n')
			return -1;
		if (field == 4)
			*ppid = strtol(p, &end, 10);
		else if (field >= 14)
			t[field - 14] = strtoull(p, &end, 10);
		else
			end = (char *)p + strcspn(p, " \n");
		if (end == p)
			return -1;
		p = end;
		field++;
	}
	*ticks = t[0] + t[1] + t[2] + t[3];
	return 0;
}

int hostnoise_parse_psi(const char *text, double *avg10, unsigned long long *total_us)
{
	const char *p = strstr(text, "some ");
	if (!p || (p != text && p[-1] != '\n') ||
	    sscanf(p, "some avg10=%lf avg60=%*f avg300=%*f total=%llu", avg10, total_us) != 2 ||
	    !(*avg10 >= 0 && *avg10 <= 100))
		return -1;
	return 0;
}

int hostnoise_parse_loadavg(const char *text, double *load1)
{
	if (sscanf(text, "%lf", load1) != 1 || !(*load1 >= 0 && *load1 < 1e6))
		return -1;
	return 0;
}

int hostnoise_parse_comm(const char *text, char *out, size_t len)
{
	const char *a = strchr(text, '('), *b = strrchr(text, ')');
	size_t n = 0;
	if (!a || !b || b < a || !len)
		return -1;
	for (const char *p = a + 1; p < b && n + 1 < len; p++)
		out[n++] = *p >= 0x20 && *p < 0x7f ? *p : '?';
	out[n] = '\0';
	return 0;
}

/* kthreadd and the kernel threads it starts (their ppid is 2) */
#define KTHREADD_PID 2L

static int is_kthread(const struct host_proc *e)
{
	return e->pid == KTHREADD_PID || e->ppid == KTHREADD_PID;
}

/* /proc/PID/stat of a process that may exit at any moment: a vanished
 * process is no error to report (read_file would print one), just
 * nothing to count. 0 read, -1 gone or unreadable. */
int hostnoise_read_pidstat(const char *path, struct strbuf *out)
{
	char buf[4096];
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	do
		r = read(fd, buf, sizeof(buf) - 1);
	while (r < 0 && errno == EINTR);
	close(fd);
	if (r <= 0)
		return -1;
	sb_add(out, buf, (size_t)r);
	return 0;
}

/* Every process's pid, ppid, ticks and name, by pid; their number into *N. */
static struct host_proc *proc_list(size_t *n)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	struct host_proc *v = NULL;
	size_t alloc = 0;
	struct strbuf sb = STRBUF_INIT;
	*n = 0;
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		char path[300];
		struct host_proc e;
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		sb_reset(&sb);
		/* gone since readdir, or unreadable: not ours to count */
		if (hostnoise_read_pidstat(path, &sb) ||
		    hostnoise_parse_pidstat(sb.buf, &e.pid, &e.ppid, &e.ticks) ||
		    hostnoise_parse_comm(sb.buf, e.comm, sizeof(e.comm)))
			continue;
		if (*n == alloc) {
			alloc = alloc ? alloc * 2 : 256;
			v = xrealloc(v, alloc * sizeof(*v));
		}
		v[(*n)++] = e;
	}
	closedir(d);
	sb_release(&sb);
	return v;
}

/* Which of V[0..N) are ROOT or a descendant of it: an array of N flags. */
static char *tree_mark(const struct host_proc *v, size_t n, long root)
{
	char *in = xcalloc(n ? n : 1, 1);
	int grew = 1;
	for (size_t i = 0; i < n; i++)
		in[i] = v[i].pid == root;
	while (grew) {
		grew = 0;
		for (size_t i = 0; i < n; i++) {
			if (in[i])
				continue;
			for (size_t j = 0; j < n; j++)
				if (in[j] && v[j].pid == v[i].ppid) {
					in[i] = grew = 1;
					break;
				}
		}
	}
	return in;
}

static int proc_by_pid(const void *a, const void *b)
{
	long x = ((const struct host_proc *)a)->pid, y = ((const struct host_proc *)b)->pid;
	return (x > y) - (x < y);
}

void hostnoise_sample(struct host_sample *s)
{
	struct strbuf sb = STRBUF_INIT;
	struct host_proc *v;
	size_t n;
	char *own;
	double avg10;
	memset(s, 0, sizeof(*s));
	s->t = now_mono();
	v = proc_list(&n);
	own = tree_mark(v, n, (long)getpid());
	/* the others stay in V, moved to its front */
	for (size_t i = 0; i < n; i++) {
		if (own[i])
			s->own += v[i].ticks;
		else if (is_kthread(&v[i]))
			s->kthreads += v[i].ticks;
		else
			v[s->nprocs++] = v[i];
	}
	if (s->nprocs)
		qsort(v, s->nprocs, sizeof(*v), proc_by_pid);
	s->procs = v;
	free(own);
	if (!read_file("/proc/stat", &sb, 1 << 20))
		s->ok = !hostnoise_parse_stat(sb.buf, &s->busy, &s->irq, &s->total);
	sb_reset(&sb);
	if (!read_file("/proc/pressure/cpu", &sb, 4096))
		s->have_psi = !hostnoise_parse_psi(sb.buf, &avg10, &s->psi_us);
	sb_reset(&sb);
	s->load1 = NAN;
	if (!read_file("/proc/loadavg", &sb, 4096) && hostnoise_parse_loadavg(sb.buf, &s->load1))
		s->load1 = NAN;
	sb_release(&sb);
}

void hostnoise_release(struct host_sample *s)
{
	free(s->procs);
	s->procs = NULL;
	s->nprocs = 0;
}

static double round2(double x)
{
	return round(x * 100) / 100;
}

/* B - A of a count that should only grow; 0 when it did not */
static double tick_delta(unsigned long long a, unsigned long long b)
{
	return b > a ? (double)(b - a) : 0;
}

struct busy_proc {
	const struct host_proc *p;
	double ticks;
};

static int by_ticks_desc(const void *a, const void *b)
{
	double x = ((const struct busy_proc *)a)->ticks, y = ((const struct busy_proc *)b)->ticks;
	return (x < y) - (x > y);
}

/* The other processes that used the most between A and B, as JSON; NULL
 * when none used HOSTNOISE_BUSIEST_MIN_PCT of TOTAL ticks. A process not
 * in A (started since), or whose count fell (its pid reused by another),
 * is charged its whole count in B. */
static json_object *busiest(const struct host_sample *a, const struct host_sample *b, double total)
{
	struct busy_proc *v = xcalloc(b->nprocs ? b->nprocs : 1, sizeof(*v));
	json_object *arr = NULL;
	size_t n = 0;
	for (size_t i = 0; i < b->nprocs; i++) {
		const struct host_proc *q = &b->procs[i];
		const struct host_proc *p = a->nprocs ? bsearch(q, a->procs, a->nprocs, sizeof(*q),
							    proc_by_pid) : NULL;
		double d = p && !strcmp(p->comm, q->comm) && q->ticks >= p->ticks ?
			   (double)(q->ticks - p->ticks) : (double)q->ticks;
		if (100 * d / total >= HOSTNOISE_BUSIEST_MIN_PCT)
			v[n++] = (struct busy_proc){ q, d };
	}
	qsort(v, n, sizeof(*v), by_ticks_desc);
	for (size_t i = 0; i < n && i < HOSTNOISE_BUSIEST; i++) {
		json_object *o = json_object_new_object();
		if (!arr)
			arr = json_object_new_array();
		jset_int(o, "pid", (int)v[i].p->pid);
		jset_str(o, "comm", v[i].p->comm);
		jset_num(o, "cpu_pct", round2(fmin(100, 100 * v[i].ticks / total)));
		json_object_array_add(arr, o);
	}
	free(v);
	return arr;
}

json_object *hostnoise_json(const struct host_sample *a, const struct host_sample *b,
			    double threshold_pct)
{
	json_object *top;
	json_object *o;
	double total, other, own, kernel, secs = b->t - a->t;
	if (!a->ok || !b->ok || b->total <= a->total || secs <= 0)
		return NULL;
	total = (double)(b->total - a->total);
	own = tick_delta(a->own, b->own);
	/* kernel threads come and go (their ticks leave the sum with them) */
	kernel = tick_delta(a->irq, b->irq) + tick_delta(a->kthreads, b->kthreads);
	other = tick_delta(a->busy, b->busy) - own - kernel;
	if (other < 0) /* ticks counted on either side at slightly different moments */
		other = 0;
	o = json_object_new_object();
	jset_num(o, "seconds", round2(secs));
	jset_num(o, "other_cpu_pct", round2(100 * other / total));
	jset_num(o, "own_cpu_pct", round2(fmin(100, 100 * own / total)));
	jset_num(o, "kernel_cpu_pct", round2(fmin(100, 100 * kernel / total)));
	if (a->have_psi && b->have_psi && b->psi_us >= a->psi_us)
		jset_num(o, "psi_cpu_some_pct",
			 round2(fmin(100, (double)(b->psi_us - a->psi_us) / (secs * 1e4))));
	if (!isnan(b->load1))
		jset_num(o, "load1", b->load1);
	jset_num(o, "threshold_pct", threshold_pct);
	jset_bool(o, "busy", 100 * other / total >= threshold_pct);
	if ((top = busiest(a, b, total)))
		jset(o, "busiest", top);
	return o;
}

void hostnoise_busiest_text(json_object *busiest, char *out, size_t len)
{
	size_t n = json_object_is_type(busiest, json_type_array) ? json_object_array_length(busiest) : 0;
	size_t at = 0;
	if (len)
		out[0] = '\0';
	for (size_t i = 0; i < n && at < len; i++) {
		json_object *p = json_object_array_get_idx(busiest, i);
		int w = snprintf(out + at, len - at, "%s%s (pid %d) %.1f%%", i ? ", " : "; busiest: ",
				 json_object_get_string(jget(p, "comm")),
				 json_object_get_int(jget(p, "pid")),
				 json_object_get_double(jget(p, "cpu_pct")));
		if (w < 0)
			break;
		at += (size_t)w;
	}
}

static const char *const busy_names[] = { "flag", "wait", "refuse" };

int busy_host_parse(const char *arg, enum busy_host *out)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(arg, busy_names[i])) {
			*out = (enum busy_host)i;
			return 0;
		}
	return error("--busy-host: '%s' is not flag, wait or refuse", arg);
}

const char *busy_host_name(enum busy_host m)
{
	return busy_names[m];
}

/* Other processes' share of the host over the next SECS seconds, the
 * busiest of them into WHO (hostnoise_busiest_text); -1 when /proc/stat
 * cannot be read. */
static double other_pct(double secs, double threshold, char *who, size_t len)
{
	struct host_sample a, b;
	struct timespec ts = { (time_t)secs, 0 };
	json_object *o;
	double pct = -1;
	who[0] = '\0';
	hostnoise_sample(&a);
	nanosleep(&ts, NULL);
	hostnoise_sample(&b);
	if ((o = hostnoise_json(&a, &b, threshold))) {
		pct = json_object_get_double(jget(o, "other_cpu_pct"));
		hostnoise_busiest_text(jget(o, "busiest"), who, len);
		json_object_put(o);
	}
	hostnoise_release(&a);
	hostnoise_release(&b);
	return pct;
}

int hostnoise_gate(enum busy_host mode, double threshold_pct, int wait_max_s)
{
	char who[256];
	double t0 = now_mono(), pct = other_pct(3, threshold_pct, who, sizeof(who));
	if (pct < threshold_pct)
		return 0;
	if (mode == BUSY_REFUSE)
		return error("the host is busy: other processes use %.0f%% of its CPU (threshold "
			     "%.0f%%, --busy-threshold%s); --busy-host refuse stops here", pct,
			     threshold_pct, who);
	if (mode == BUSY_FLAG) {
		warning("the host is busy: other processes use %.0f%% of its CPU (threshold %.0f%%%s): "
			"the run goes on and its iterations are flagged (--busy-host wait|refuse)",
			pct, threshold_pct, who);
		return 0;
	}
	info("kbench: the host is busy (other processes use %.0f%% of its CPU, threshold %.0f%%%s): "
	     "waiting up to %d s for it to quieten (--busy-host wait)", pct, threshold_pct, who,
	     wait_max_s);
	while (pct >= threshold_pct && !kb_interrupted && now_mono() - t0 < wait_max_s)
		pct = other_pct(10, threshold_pct, who, sizeof(who));
	if (pct >= threshold_pct && !kb_interrupted)
		warning("the host is still busy after %.0f s (other processes: %.0f%%%s): going on; "
			"the run's iterations are flagged", now_mono() - t0, pct, who);
	else if (!kb_interrupted)
		info("kbench: the host is quiet now (other processes: %.0f%%)", pct);
	return 0;
}
