/* spawn.h - the one way kbench starts programs (after git's run-command).
 *
 * Every child runs in its own process group with a parent-death signal, so
 * a deadline or a dying kbench takes the whole tree (QEMU included) down.
 * No shell is involved: argv vectors only.
 */
#ifndef KBENCH_SPAWN_H
#define KBENCH_SPAWN_H

#include <sys/types.h>
#include "core/util.h"

struct child {
	struct strvec argv;
	struct strvec env;       /* extra NAME=VALUE entries added to environ */
	const char *cwd;         /* NULL: inherit */
	const char *stdin_path;  /* NULL: /dev/null */
	const char *stdout_path; /* NULL: inherit (or capture, see below) */
	const char *stderr_path; /* NULL: inherit; may equal stdout_path */
	int append;              /* open stdout/stderr files with O_APPEND */
	int capture;             /* collect stdout (and stderr) into `out` */
	struct strbuf out;
	size_t capture_max;      /* 0 = 16 MiB */
	double timeout_s;        /* 0 = no deadline */
	int whole;               /* Ctrl-C (kb_interrupted) waits for it rather than
				  * killing it: a short step that must not be cut in
				  * half (git checking a commit out); the deadline
				  * still applies */
	/* results */
	pid_t pid;
	int timed_out;
	int status; /* exit code, or 128+signal as a shell would say */
	int capfd;  /* read end of the capture pipe while running */
};

#define CHILD_INIT { .pid = -1, .status = -1, .capfd = -1 }

/* Start the child; 0 on success, -1 (with an error printed) otherwise. */
int child_start(struct child *c);
/* child_start with IN_FD as its stdin and OUT_FD as its stdout instead of
 * stdin_path and stdout_path (-1: those as usual), e.g. both ends of a
 * socket pair for an agent speaking over its stdio. The caller keeps (and
 * closes) its descriptors; the child gets them without O_CLOEXEC. */
int child_start_fds(struct child *c, int in_fd, int out_fd);
/* Wait until exit or deadline (kills the process group on deadline).
 * Returns c->status, or -1 if waiting failed. */
int child_finish(struct child *c);
/* start + finish. Returns the exit status (0 = success) or -1. */
int child_run(struct child *c);
/* Kill the child's process group: SIGTERM, then SIGKILL after grace_s. */
void child_kill(struct child *c, double grace_s);
/* Non-blocking: 1 if exited (status filled), 0 if running, -1 on error. */
int child_poll(struct child *c);
void child_release(struct child *c);

/* Convenience: run argv (NULL-terminated) quietly with a deadline,
 * capturing output into OUT if non-NULL. Returns the exit status or -1. */
int run_capture(const char *const *argv, double timeout_s, struct strbuf *out);
/* Run ARGV (NULL-terminated) in CWD (NULL: here) with stdout and stderr
 * appended to LOG: its exit status, or -1 when it could not start or its
 * deadline passed. */
int run_logged(const char *const *argv, const char *cwd, const char *log, double timeout_s);
/* "STAGE step 'STEP': MSG; log: LOG" and the log's last lines on stderr
 * (no log: the message alone). Returns -1. */
int step_failed(const char *stage, const char *step, const char *log, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Interruption: set by SIGINT/SIGTERM handlers installed by kbench. */
extern volatile int kb_interrupted;
void spawn_install_signal_handlers(void);
/* Kill every child still registered (used on exit paths). */
void spawn_kill_all(void);

#endif
