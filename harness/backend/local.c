/* local.c - the local backend: no boot, this machine's running kernel.
 * The agent runs as an ordinary process (its stdio transport, joined to
 * guest.c by a socket pair) in its own process group, with the host's
 * installed tools; dbench works in a directory kbench makes in the
 * user's --scratch DIR. This is the rteval use: "I booted my RT kernel;
 * measure it". */
#include "backend/backend.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

/* The agent process, and the kernel log since it started. */
struct local_guest {
	struct child agent; /* core/spawn: Ctrl-C's spawn_kill_all reaches it */
	int kmsg;        /* /dev/kmsg from the start on, or -1 (not root) */
	char *console;   /* where its records go, for the trouble scan */
};

int local_kmsg_line(const char *rec, size_t len, struct strbuf *out)
{
	unsigned long long ts;
	const char *text = memchr(rec, ';', len), *end;
	int n = 0;
	/* "PRIO,SEQ,USEC,FLAGS[,...];TEXT\n" and " KEY=VALUE" lines */
	if (!text || sscanf(rec, "%*u,%*u,%llu%n", &ts, &n) != 1 || !n || rec + n > text)
		return -1;
	text++;
	end = memchr(text, '\n', len - (size_t)(text - rec));
	if (!end)
		end = rec + len;
	sb_addf(out, "[%5llu.%06llu] %.*s\n", ts / 1000000, ts % 1000000, (int)(end - text), text);
	return 0;
}

/* Append the kernel's records since the start to the console log. */
static void kmsg_drain(struct local_guest *q)
{
	struct strbuf sb = STRBUF_INIT;
	char rec[8192];
	ssize_t n;
	if (q->kmsg < 0)
		return;
	/* one record per read; EPIPE: records overwritten, go on */
	while ((n = read(q->kmsg, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE))
		if (n > 0)
			local_kmsg_line(rec, (size_t)n, &sb);
	if (sb.len && q->console) {
		int fd = open(q->console, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, sb.buf, sb.len) != (ssize_t)sb.len)
			warning("cannot add the kernel log to '%s'", q->console);
		if (fd >= 0)
			close(fd);
	}
	sb_release(&sb);
	close(q->kmsg);
	q->kmsg = -1;
}

static int local_version(char *out, size_t len)
{
	struct utsname u;
	uname(&u);
	snprintf(out, len, "%s %s %s", u.sysname, u.release, u.version);
	return 0;
}

/* Is DIR's entry NAME one kbench may find there? */
static int scratch_entry_ours(const char *name)
{
	return !strcmp(name, ".") || !strcmp(name, "..") || !strcmp(name, BK_SCRATCH_MARK) ||
	       !strcmp(name, BK_SCRATCH_SUBDIR);
}

/* DIR must be an existing directory that is empty or kbench's (its mark
 * and its scratch directory only): nothing of the user's is ever in the
 * way of dbench, nor removed. The mark is left there. */
static int scratch_dir_check(const char *dir)
{
	char mark[4096];
	struct stat st;
	struct dirent *e;
	DIR *d;
	int marked, bad = 0;
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return error("--scratch '%s': %s", dir,
			     errno == ENOENT || !S_ISDIR(st.st_mode) ? "not an existing directory" :
			     strerror(errno));
	if (access(dir, W_OK))
		return error("--scratch '%s' is not writable: %s", dir, strerror(errno));
	snprintf(mark, sizeof(mark), "%s/%s", dir, BK_SCRATCH_MARK);
	marked = path_exists(mark);
	if (!(d = opendir(dir)))
		return error("--scratch '%s': %s", dir, strerror(errno));
	while (!bad && (e = readdir(d)))
		if (!scratch_entry_ours(e->d_name) || (!marked && !strcmp(e->d_name, BK_SCRATCH_SUBDIR)))
			bad = error("--scratch '%s' holds '%s', which kbench did not make: name an "
				    "empty directory (kbench never writes among, nor deletes, "
				    "files of yours)", dir, e->d_name);
	closedir(d);
	if (bad)
		return -1;
	if (!marked && write_file_atomic(mark, "kbench scratch directory\n", 25))
		return error("--scratch '%s': cannot write its mark %s", dir, mark);
	return 0;
}

static int local_check_tools(const struct boot_params *p)
{
	return p->scratch_dir ? scratch_dir_check(p->scratch_dir) : 0;
}

static int local_setup(void *params, const struct boot_params *probe, struct backend_info *info)
{
	(void)params;
	(void)probe;
	snprintf(info->accel, sizeof(info->accel), "none");
	info->time_scale = 1.0;
	info->boot_timeout_s = 30;
	return 0;
}

/* The workloads' directory in --scratch DIR, fresh for each iteration
 * (what a lost iteration left there is kbench's own). */
static int local_prepare(const struct boot_params *p, char *err, size_t errlen)
{
	char sub[4096];
	if (!p->scratch_dir)
		return 0;
	snprintf(sub, sizeof(sub), "%s/%s", p->scratch_dir, BK_SCRATCH_SUBDIR);
	if ((path_exists(sub) && rm_rf(sub)) || mkdir(sub, 0755)) {
		snprintf(err, errlen, "cannot make the scratch directory '%s': %s", sub,
			 strerror(errno));
		return -1;
	}
	return 0;
}

static void local_cleanup(const struct boot_params *p)
{
	char sub[4096];
	if (!p->scratch_dir)
		return;
	snprintf(sub, sizeof(sub), "%s/%s", p->scratch_dir, BK_SCRATCH_SUBDIR);
	if (rm_rf(sub))
		warning("cannot remove the scratch directory '%s'", sub);
}

static int local_start(struct guest *g, const struct boot_params *p)
{
	struct local_guest *q = xcalloc(1, sizeof(*q));
	g->priv = q;
	q->agent = (struct child)CHILD_INIT;
	/* the kernel log from now on: trouble during the run fails it */
	q->kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (q->kmsg >= 0)
		lseek(q->kmsg, 0, SEEK_END);
	q->console = p->console_log ? xstrdup(p->console_log) : NULL;
	if (!p->agent) {
		snprintf(g->err, sizeof(g->err), "no agent program to run");
		return -1;
	}
	/* its own process group (a kill takes the workloads too), killed with
	 * kbench, the socket as stdin and stdout, stderr to the console log */
	strvec_push(&q->agent.argv, p->agent);
	strvec_push(&q->agent.argv, "--transport=stdio");
	q->agent.stderr_path = p->console_log;
	q->agent.append = 1;
	return guest_spawn_agent(g, &q->agent);
}

static int local_alive(struct guest *g)
{
	struct local_guest *q = g->priv;
	if (q && q->agent.pid > 0 && child_poll(&q->agent) == 0)
		return 1;
	snprintf(g->err, sizeof(g->err), "the agent process ended (status %d)",
		 q ? q->agent.status : -1);
	return 0;
}

/* Up to TIMEOUT_S for the agent to end; then its whole process group is
 * killed (SIGTERM, SIGKILL after 2 s). */
static int local_stop(struct guest *g, double timeout_s)
{
	struct local_guest *q = g->priv;
	double end = now_mono() + timeout_s;
	while (now_mono() < end && local_alive(g))
		usleep(10000);
	if (q)
		kmsg_drain(q);
	if (!q || q->agent.pid <= 0)
		return 0;
	child_kill(&q->agent, 2.0);
	return -1;
}

static void local_release(struct guest *g)
{
	struct local_guest *q = g->priv;
	if (q && q->kmsg >= 0)
		close(q->kmsg);
	if (q) {
		child_release(&q->agent);
		free(q->console);
	}
	free(q);
}

const struct backend_ops local_backend = {
	.name = "local",
	.description = "this machine's running kernel, no boot: the agent as a host process "
		       "(needs --scratch DIR for dbench and kbuild)",
	.caps = BK_CAP_SCRATCH_DIR | BK_CAP_RUNNING_KERNEL | BK_CAP_NATIVE,
	.side_log = "",
	.version = local_version,
	.check_tools = local_check_tools,
	.setup = local_setup,
	.prepare = local_prepare,
	.cleanup = local_cleanup,
	.start = local_start,
	.alive = local_alive,
	.stop = local_stop,
	.release = local_release,
};
