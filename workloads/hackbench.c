/* hackbench.c - scheduler and IPC stress from rt-tests: groups of senders
 * and receivers pass messages over sockets or pipes; the metric is the
 * wall time hackbench reports ("Time: N"). */
#include "workloads/workloads.h"

#include <stdio.h>
#include <string.h>

#define HACKBENCH_PATH "/usr/bin/hackbench"
/* groups * fds: hackbench runs 2 * groups * fds tasks. */
#define HB_MAX_PAIRS 10000
/* Messages per second the timeout assumes (see hackbench_timeout). */
#define HB_MIN_RATE 5000
#define HB_MAX_TIMEOUT 86400
#define HB_MAX_TIME 1e7

enum hb_transport { HB_SOCKET, HB_PIPE };
enum hb_mode { HB_PROCESS, HB_THREAD };

struct hackbench_params {
	int groups;
	int loops;
	int fds;
	int datasize;
	int transport; /* enum hb_transport */
	int mode;      /* enum hb_mode */
};

static const char *const transports[] = { "socket", "pipe", NULL };
static const char *const modes[] = { "process", "thread", NULL };

#define P(f) offsetof(struct hackbench_params, f)
static const struct opt_def hackbench_opts[] = {
	{ "groups", OPT_INT, P(groups), 1, 1000, NULL,
	  "groups of senders and receivers (hackbench -g)" },
	{ "loops", OPT_INT, P(loops), 1, 1000000, NULL,
	  "messages each sender sends to each receiver (-l)" },
	{ "fds", OPT_INT, P(fds), 1, 1000, NULL,
	  "senders and receivers per group (-f)" },
	{ "datasize", OPT_INT, P(datasize), 1, 65536, NULL,
	  "bytes per message (-s)" },
	{ "transport", OPT_ENUM, P(transport), 0, 0, transports,
	  "socket (UNIX socketpair, hackbench's default) or pipe (-p)" },
	{ "mode", OPT_ENUM, P(mode), 0, 0, modes,
	  "tasks are processes (fork) or threads (-T)" },
	OPT_END
};
#undef P

/* Defaults sized for TCG: 2.2-3.6 s on a 2-vCPU guest (hackbench's own
 * default of 10 groups takes 2.5x longer). */
static void hackbench_defaults(void *params, int vcpus)
{
	struct hackbench_params *p = params;
	(void)vcpus;
	p->groups = 4;
	p->loops = 200;
	p->fds = 20;
	p->datasize = 100;
	p->transport = HB_SOCKET;
	p->mode = HB_PROCESS;
}

/* Keep the task count within what a small guest can fork. */
static int hackbench_check(const void *params, char *err, size_t errlen)
{
	const struct hackbench_params *p = params;
	if ((long)p->groups * p->fds > HB_MAX_PAIRS) {
		snprintf(err, errlen, "groups * fds must be at most %d (%d tasks), got %ld",
			 HB_MAX_PAIRS, 2 * HB_MAX_PAIRS, (long)p->groups * p->fds);
		return -1;
	}
	return 0;
}

/* The guest needs only the hackbench binary. */
static int hackbench_prepare(const void *params, struct image_needs *needs)
{
	(void)params;
	strvec_push(&needs->programs, HACKBENCH_PATH);
	return 0;
}

/*
 * Deadline: every sender sends LOOPS messages to each of the FDS receivers
 * of its group, so a run moves groups * fds * fds * loops messages. Allow
 * 60 s of start-up plus HB_MIN_RATE messages per second, about 20x below
 * the slowest rate measured under TCG (defaults: 320000 messages in 3.6 s;
 * 23 s beside a host kernel build): 60 + ceil(messages / 5000), at most a
 * day. The defaults get 124 s.
 */
static int hackbench_timeout(const struct hackbench_params *p)
{
	unsigned long long msgs = (unsigned long long)p->groups * (unsigned long long)p->fds *
				  (unsigned long long)p->fds * (unsigned long long)p->loops;
	unsigned long long t = 60 + (msgs + HB_MIN_RATE - 1) / HB_MIN_RATE;
	return t > HB_MAX_TIMEOUT ? HB_MAX_TIMEOUT : (int)t;
}

/* hackbench -g G -l L -f F -s S [-p] [-T] */
static int hackbench_command(const void *params, struct guest_cmd *cmd)
{
	const struct hackbench_params *p = params;

	strvec_push(&cmd->argv, HACKBENCH_PATH);
	strvec_push(&cmd->argv, "-g");
	strvec_pushf(&cmd->argv, "%d", p->groups);
	strvec_push(&cmd->argv, "-l");
	strvec_pushf(&cmd->argv, "%d", p->loops);
	strvec_push(&cmd->argv, "-f");
	strvec_pushf(&cmd->argv, "%d", p->fds);
	strvec_push(&cmd->argv, "-s");
	strvec_pushf(&cmd->argv, "%d", p->datasize);
	if (p->transport == HB_PIPE)
		strvec_push(&cmd->argv, "-p");
	if (p->mode == HB_THREAD)
		strvec_push(&cmd->argv, "-T");
	cmd->timeout_s = hackbench_timeout(p);
	return 0;
}

/* "Running in process mode with 4 groups using 40 file descriptors each
 * (== 160 tasks)": must describe the run we asked for. */
static int check_running(const struct hackbench_params *p, const struct line *ln,
			 struct parse_error *err)
{
	struct span mode;
	uint64_t groups, fds, tasks;
	const char *want = p->mode == HB_THREAD ? "threaded" : "process";

	if (line_match(ln, "Running in %s mode with %u groups using %u file descriptors each (== %u tasks)",
		       &mode, &groups, &fds, &tasks))
		return parse_fail(err, ln->no, "malformed line '%.*s'", LINE_SHOW(ln));
	if (!span_eq(mode, want))
		return parse_fail(err, ln->no, "hackbench ran in %.*s mode, expected %s",
				  (int)(mode.len < 20 ? mode.len : 20), mode.s, want);
	if (groups != (uint64_t)p->groups || fds != 2 * (uint64_t)p->fds ||
	    tasks != 2 * (uint64_t)p->groups * (uint64_t)p->fds)
		return parse_fail(err, ln->no,
				  "hackbench ran %llu groups of %llu fds (%llu tasks), expected %d of %d",
				  (unsigned long long)groups, (unsigned long long)fds,
				  (unsigned long long)tasks, p->groups, 2 * p->fds);
	return 0;
}

/* "Each sender will pass 200 messages of 100 bytes" */
static int check_each(const struct hackbench_params *p, const struct line *ln,
		      struct parse_error *err)
{
	uint64_t loops, size;

	if (line_match(ln, "Each sender will pass %u messages of %u bytes", &loops, &size))
		return parse_fail(err, ln->no, "malformed line '%.*s'", LINE_SHOW(ln));
	if (loops != (uint64_t)p->loops || size != (uint64_t)p->datasize)
		return parse_fail(err, ln->no,
				  "hackbench passed %llu messages of %llu bytes, expected %d of %d",
				  (unsigned long long)loops, (unsigned long long)size,
				  p->loops, p->datasize);
	return 0;
}

/*
 * Three lines in this order, blank lines aside: "Running in ...", "Each
 * sender ...", "Time: N". Anything else, a repeat, or a missing Time line
 * (hackbench died before the end) rejects the output.
 */
static int hackbench_parse(const void *params, const char *out, size_t len,
			   struct metric_set *ms, struct parse_error *err)
{
	const struct hackbench_params *p = params;
	struct line_iter it;
	struct line ln;
	int r, stage = 0; /* lines seen: 1 Running, 2 Each, 3 Time */
	double t = 0;

	line_iter_init(&it, out, len);
	while ((r = line_next(&it, &ln, err)) > 0) {
		if (line_is_blank(&ln))
			continue;
		if (line_starts(&ln, "Running in ")) {
			if (stage != 0)
				return parse_fail(err, ln.no, "unexpected second 'Running in' line");
			if (check_running(p, &ln, err))
				return -1;
			stage = 1;
		} else if (line_starts(&ln, "Each sender ")) {
			if (stage != 1)
				return parse_fail(err, ln.no, "'Each sender' line out of place");
			if (check_each(p, &ln, err))
				return -1;
			stage = 2;
		} else if (line_starts(&ln, "Time:")) {
			if (stage == 3)
				return parse_fail(err, ln.no, "second 'Time:' line");
			if (stage != 2)
				return parse_fail(err, ln.no, "'Time:' line before the run description");
			if (line_match(&ln, "Time: %f", &t) || t > HB_MAX_TIME)
				return parse_fail(err, ln.no, "bad time in '%.*s'", LINE_SHOW(&ln));
			if (t <= 0)
				return parse_fail(err, ln.no, "time must be positive, got %.*s",
						  LINE_SHOW(&ln));
			stage = 3;
		} else {
			return parse_fail(err, ln.no, "unexpected line '%.*s'", LINE_SHOW(&ln));
		}
	}
	if (r < 0)
		return -1;
	if (stage < 3)
		return parse_fail(err, line_iter_next_no(&it),
				  stage ? "no 'Time:' line (hackbench ended early)"
					: "no hackbench output");
	metric_set_add(ms, "time", "s", BETTER_LOWER, t);
	return 0;
}

static const struct host_tool hackbench_tools[] = {
	{ "hackbench", "rt-tests", NULL },
	{ NULL, NULL, NULL },
};

const struct workload_ops hackbench_ops = {
	.name = "hackbench",
	.description = "scheduler/IPC stress: message passing between task groups (rt-tests)",
	.headline = "time",
	.tools = hackbench_tools,
	.opts = hackbench_opts,
	.params_size = sizeof(struct hackbench_params),
	.defaults = hackbench_defaults,
	.check = hackbench_check,
	.prepare = hackbench_prepare,
	.command = hackbench_command,
	.parse = hackbench_parse,
};
