/* workload.h - one ops table per workload (after fio's ioengines).
 *
 * A workload runs inside the guest, but all its logic lives on the host:
 *   prepare  - name the host files the guest image must carry
 *   command  - build the guest command for one iteration (the "run" step:
 *              the agent executes it with a deadline and returns the output)
 *   parse    - turn the raw output (untrusted guest data) into metrics
 */
#ifndef KBENCH_WORKLOAD_H
#define KBENCH_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>
#include "core/opt.h"
#include "core/metric.h"
#include "core/util.h"

/* What the guest image must contain for a workload. */
struct image_needs {
	struct strvec programs; /* host executables, copied with their libraries */
	struct strvec files;    /* host data files, copied to the same path */
	/* kbuild: the host's toolchain shared read-only into the guest over
	 * virtio-9p (mounted under KB_HOSTROOT), and a cached ext4 image
	 * holding a kernel tree, attached copy-on-write and mounted at
	 * DISK_MOUNT under that root (the host path it was prepared at) */
	int hostroot;
	char disk[4096];
	char disk_mount[4096];
	int disk_keep;          /* keep the disk's changes across iterations */
	/* set before prepare() is called: the workloads run on a remote
	 * machine (an ssh target) with its own userspace and toolchain, so
	 * nothing goes into an image; kbuild names the source tree the
	 * backend copies there (TREE, once per machine: KB_TARGET_KBUILD_DIR/
	 * TREE_KEY/linux) */
	int target;
	char tree[4096];
	char tree_key[32];
	/* set before prepare() is called: the agent talks to kbench over the
	 * guest's network (BK_CAP_NET_AGENT), so the image carries its driver */
	int net;
};
#define IMAGE_NEEDS_INIT { STRVEC_INIT, STRVEC_INIT, 0, "", "", 0, 0, "", "", 0 }
/* The conditional kernel needs (kernel/needs.h KNEED_COND) NEEDS asks for. */
#define IMAGE_NEEDS_KNEEDS(n) (((n)->hostroot ? 1 : 0) | ((n)->net ? 4 : 0))

/* Where a remote machine keeps the kernel trees kbuild builds there (one
 * directory per tree key: linux/, the tree; obj-*, its prepared object
 * directories; each complete when its mark file is there). */
#define KB_TARGET_KBUILD_DIR "/var/tmp/kbench-kbuild"

/* Where the guest mounts its scratch disk. */
#define KB_SCRATCH_MOUNT "/scratch"

/* One command the agent runs for one iteration. */
struct guest_cmd {
	struct strvec argv;     /* main command; argv[0] absolute guest path */
	struct strvec bg_argv;  /* optional background load, restarted until
				 * the main command ends (rteval style) */
	char cwd[OPT_STR_MAX];  /* working directory in the guest, "" = / */
	int timeout_s;          /* deadline for the main command */
	int needs_scratch;      /* cwd is on the scratch disk */
	/* where the scratch space is: set before command() is called (the
	 * guest's scratch mount, or a directory kbench made in --scratch DIR) */
	char scratch[OPT_STR_MAX];
	/* kbuild: run the main command (and the background load if
	 * bg_in_root) chrooted into the host's toolchain (KB_HOSTROOT) with
	 * ENV as its whole environment */
	int in_root;
	int bg_in_root;
	struct strvec env;
	/* an untimed step before the main command (kbuild's configure), with
	 * its own deadline; its failure fails the workload */
	struct strvec pre_argv;
	int pre_timeout_s;
	/* the agent's wall, user and system times of the main command are
	 * the workload's metrics elapsed, user and sys */
	int report_times;
	/* set before command() is called: the agent runs on this host (the
	 * local backend), so kbench's cache is at its own paths and the
	 * host's toolchain needs no share (kbuild builds in SCRATCH) */
	int native;
	/* set before command() is called: the agent runs on a remote machine
	 * (an ssh target) with its own toolchain; kbuild builds the tree the
	 * backend copied there (image_needs.tree) in SCRATCH */
	int target;
};

void guest_cmd_init(struct guest_cmd *c);
void guest_cmd_release(struct guest_cmd *c);

/* A host program (looked up in PATH) or data file (an absolute path) that
 * a workload's guest image carries or the host side of it runs, and the
 * Debian package providing it: kbench doctor and run's checks name the
 * package; harness/deps.sh must install it (a unit test checks). */
struct host_tool {
	const char *name;    /* "hackbench", or "/usr/share/dbench/client.txt" */
	const char *package; /* "rt-tests" */
	const char *what;    /* a data file's name in kbench doctor ("dbench
			      * load file"); NULL for a program */
};

struct workload_ops {
	const char *name;
	const char *description;
	/* The metric a comparison's score and the report's seed table use
	 * (compare.c); NULL: the workload's first metric. */
	const char *headline;
	/* Why a suite may not set `repeat` above 1 for this workload (the
	 * suite is refused at load with this reason); NULL: it may. */
	const char *no_repeat;
	/* What the host needs for this workload, every option included;
	 * terminated by a NULL name. */
	const struct host_tool *tools;
	const struct opt_def *opts; /* OPT_END-terminated */
	size_t params_size;
	/* Fill defaults; VCPUS is the guest's CPU count. */
	void (*defaults)(void *params, int vcpus);
	/* Cross-field checks after parsing; reason into ERR, return -1. */
	int (*check)(const void *params, char *err, size_t errlen);
	int (*prepare)(const void *params, struct image_needs *needs);
	int (*command)(const void *params, struct guest_cmd *cmd);
	/* Parse stdout of the main command. Return 0, or -1 with ERR set. */
	int (*parse)(const void *params, const char *out, size_t len,
		     struct metric_set *ms, struct parse_error *err);
};

/*
 * Helpers for parsers of untrusted guest output (workloads/registry.c).
 *
 * The output is a byte buffer with a length, not a C string: it may hold NUL
 * bytes, junk or a truncated last line. line_next() hands out one line at a
 * time and rejects control bytes and a last line without its newline, so a
 * parser only ever sees complete printable lines. Numbers are parsed from
 * spans with explicit bounds; nothing is sized from a number in the output.
 */

/* Largest output a parser accepts (the agent caps stdout below this). */
#define WL_OUTPUT_MAX (64u << 20)
/* Bound of numbers read by line_match(): larger values are garbage. */
#define WL_NUM_MAX 1e15

/* One line: not NUL-terminated, without '\n' (and a '\r' before it). */
struct line {
	const char *s;
	size_t len;
	int no; /* 1-based line number */
};

struct line_iter {
	const char *p, *end;
	int no;
	int too_big; /* output over WL_OUTPUT_MAX: the first line_next fails */
};

/* A run of bytes inside a line. */
struct span {
	const char *s;
	size_t len;
};

/* Up to 60 bytes of LN for "%.*s" in messages (lines are printable). */
#define LINE_SHOW(ln) (int)((ln)->len < 60 ? (ln)->len : 60), (ln)->s

void line_iter_init(struct line_iter *it, const char *buf, size_t len);
/*
 * Read the next line into LN. Returns 1 for a line, 0 at the end of the
 * output, or -1 with ERR set: a control byte (binary junk) or a last line
 * without its newline (output cut mid-line).
 */
int line_next(struct line_iter *it, struct line *ln, struct parse_error *err);
/* The number a line read now would get: where missing content belongs. */
int line_iter_next_no(const struct line_iter *it);
int line_is_blank(const struct line *ln);
/* Does LN start with PREFIX? */
int line_starts(const struct line *ln, const char *prefix);
/* Next space/tab-separated token of LN at or after *POS; 0 at line end. */
int line_token(const struct line *ln, size_t *pos, struct span *tok);
int span_eq(struct span t, const char *lit);
/* Decimal digits only, value <= MAX; 0 or -1. */
int span_u64(struct span t, uint64_t max, uint64_t *out);
/* "12", "12.345": no sign, exponent, nan or inf; value <= MAX; 0 or -1. */
int span_decimal(struct span t, double max, double *out);
/*
 * Match LN token by token against PAT, whose tokens are literal words that
 * may hold one conversion with a literal prefix and suffix ("'%s'",
 * "max_latency=%f"): %u -> uint64_t *, %f -> double * (both bounded by
 * WL_NUM_MAX), %s -> struct span *. Runs of spaces and tabs are one
 * separator. Returns 0 on a match, -1 otherwise (outputs undefined).
 */
int line_match(const struct line *ln, const char *pat, ...);

/* The registry (workloads/registry.c). */
const struct workload_ops *workload_find(const char *name);
const struct workload_ops *const *workload_all(void);
/* Verify every registered ops table has its callbacks; 0 or -1. */
int workload_registry_check(void);
/* The headline metric of the workload NAME; NULL for none or no such
 * workload (then a comparison takes its first metric). */
const char *workload_headline(const char *name);
/* Where host tool T is (malloc'd), or NULL when it is missing. */
char *host_tool_find(const struct host_tool *t);
/* The tools of the NULL-terminated workloads WS, each name once, in their
 * order: a NULL-terminated array for the caller to free(). */
const struct host_tool **workload_tools(const struct workload_ops *const *ws);

#endif
