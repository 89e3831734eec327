/* run.h - one benchmark run: a variant, a suite, N iterations, each in a
 * freshly booted guest, written to reports/runs/<run-id>/. */
#ifndef KBENCH_RUN_H
#define KBENCH_RUN_H

#include <stdio.h>
#include <json-c/json.h>
#include "core/config.h"
#include "backend/guest.h"

struct run_opts {
	const char *kernel;     /* variant name or path */
	const char *suite;      /* suite name or path */
	int iterations;         /* 0 = the suite's */
	int vcpus;              /* 0 = all host cores */
	int mem_mb;             /* 0 = 2048 */
	enum accel accel;
	enum timing timing;     /* --timing; TIMING_DEFAULT = the backend's (wall) */
	const char *reports;    /* NULL = <kbench home>/reports */
	const char *run_id;     /* NULL = generated */
	const char *cmdline;    /* added to the variant's kernel command line */
	int cmdline_whole;      /* ... or, when set, in place of it (kbench sweep) */
	int boot_timeout_s;     /* 0 = derived from the accelerator */
	int boot_retries;       /* boots again after a failed boot, when */
	int boot_retries_set;   /* ... set; else KB_BOOT_RETRIES */
	int no_latest;          /* don't move reports/latest */
	int quiet_summary;
	int kernel_given;       /* --kernel was on the command line */
	const char *resume;     /* run id or directory to finish (missing and
				 * interrupted iterations only) */
	const char *backend;    /* backend name (--backend); NULL = "qemu" */
	const char *kernel_image;   /* --kernel-image: a bzImage the user built */
	const char *kernel_modules; /* --kernel-modules: its modules */
	const char *kernel_config;  /* --kernel-config: its .config */
	const char *target;     /* --target NAME|PATH: the ssh backend's machine
				 * (configs/targets/); implies --backend ssh */
	int keep;               /* --keep: leave the variant booted and kbench's
				 * files on the target */
	const char *lab;        /* --lab NAME|PATH: the lava backend's lab
				 * (configs/labs/); implies --backend lava */
	const char *lab_device; /* --lab-device NAME: every job on that device */
	const char *scratch;    /* --scratch DIR: the local backend's scratch
				 * directory (a backend with BK_CAP_SCRATCH_DIR) */
	double busy_threshold;  /* --busy-threshold: other processes' share of
				 * the host's CPU (%) that flags an iteration
				 * busy; 0 = HOSTNOISE_THRESHOLD_PCT */
};

/* A boot that fails before the agent answers (a panic, an oops, a hang)
 * is tried once more by default: multi-threaded TCG now and then crashes
 * a guest while the kernel patches its own code at boot (twice in three make test runs here: an
 * "Oops: int3" in sched_clock_cpu as the sched_clock static key flips).
 * The failed boot stays in results.json (boot_retries) and the
 * comparison warns about it; a kernel that fails every time still fails. */
#define KB_BOOT_RETRIES 1

struct run_result {
	char dir[KB_PATH_MAX];   /* the run directory */
	char results[KB_PATH_MAX];
	char reports[KB_PATH_MAX]; /* the reports directory holding it (history, latest) */
	int iterations_ok;
	int iterations_failed;
	json_object *doc;        /* results.json document, owned */
};

/* Run; returns KB_EXIT_OK, KB_EXIT_FAILED (some iteration failed) or
 * KB_EXIT_USAGE (bad input / harness error before any result). */
int run_bench(const struct run_opts *o, struct run_result *res);
void run_result_release(struct run_result *r);

/* The static guest agent binary ($KBENCH_AGENT or build/kbench-agent). */
const char *agent_path(void);

/* Check the host tools a run needs; -1 (errors printed) if any is missing. */
int check_tools(const struct suite *s);
/* The host programs the harness itself needs (kbench doctor lists them,
 * then the workloads' tools); NULL-name-terminated. */
extern const struct host_tool run_host_tools[];

/* Parse the reference patch's lock counters; NULL if malformed. */
json_object *parse_lock_stats(const char *text);

/* Print the summary table of a results document. */
void print_summary(json_object *doc, FILE *out);

/* Host description for results (CPU, cores, memory, kernel, QEMU). */
json_object *host_info(void);

#endif
