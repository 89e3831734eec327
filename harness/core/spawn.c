/* spawn.c - start children with argv vectors, deadlines and group kills. */
#include "core/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

volatile int kb_interrupted;

/* Registry of live children so that signals and exits kill them all. */
#define MAX_LIVE 64
static pid_t live[MAX_LIVE];

static void live_add(pid_t pid)
{
	for (int i = 0; i < MAX_LIVE; i++)
		if (!live[i]) {
			live[i] = pid;
			return;
		}
}

static void live_del(pid_t pid)
{
	for (int i = 0; i < MAX_LIVE; i++)
		if (live[i] == pid)
			live[i] = 0;
}

void spawn_kill_all(void)
{
	for (int i = 0; i < MAX_LIVE; i++)
		if (live[i] > 0) {
			kill(-live[i], SIGKILL);
			kill(live[i], SIGKILL);
		}
}

static void on_signal(int sig)
{
	kb_interrupted = sig;
}

void spawn_install_signal_handlers(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static int open_redirect(const char *path, int flags, int target)
{
	int fd = open(path, flags | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (dup2(fd, target) < 0)
		return -1;
	close(fd);
	return 0;
}

/* In the child after fork: set up and exec; never returns. IN_FD and
 * OUT_FD (-1: none) are its stdin and stdout instead of the paths. */
static void child_exec(struct child *c, int capfd, int in_fd, int out_fd)
{
	int wflags = O_WRONLY | O_CREAT | (c->append ? O_APPEND : O_TRUNC);
	sigset_t none;

	setpgid(0, 0);
	/* Die with kbench, even after SIGKILL of kbench. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(127);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);

	if (c->cwd && chdir(c->cwd)) {
		dprintf(2, "error: cannot chdir to '%s': %s\n", c->cwd, strerror(errno));
		_exit(127);
	}
	if (in_fd >= 0 ? dup2(in_fd, 0) < 0 :
			 open_redirect(c->stdin_path ? c->stdin_path : "/dev/null", O_RDONLY, 0))
		goto fail_redirect;
	if (out_fd >= 0) {
		if (dup2(out_fd, 1) < 0)
			goto fail_redirect;
	} else if (capfd >= 0) {
		dup2(capfd, 1);
		if (!c->stderr_path)
			dup2(capfd, 2);
		close(capfd);
	} else if (c->stdout_path && open_redirect(c->stdout_path, wflags, 1)) {
		goto fail_redirect;
	}
	if (c->stderr_path) {
		if (c->stdout_path && !strcmp(c->stderr_path, c->stdout_path)) {
			dup2(1, 2);
		} else if (open_redirect(c->stderr_path, wflags, 2)) {
			goto fail_redirect;
		}
	}
	for (size_t i = 0; i < c->env.n; i++)
		putenv(c->env.v[i]);
	execvp(c->argv.v[0], c->argv.v);
	dprintf(2, "error: cannot run '%s': %s\n", c->argv.v[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
fail_redirect:
	dprintf(2, "error: cannot redirect for '%s': %s\n", c->argv.v[0], strerror(errno));
	_exit(127);
}

static int child_start_impl(struct child *c, int in_fd, int out_fd)
{
	int pipefd[2] = { -1, -1 };
	pid_t pid;
	int tries = 0;

	if (!c->argv.n)
		return error("internal: empty argv");
	if (c->capture && pipe2(pipefd, O_CLOEXEC))
		return error("pipe: %s", strerror(errno));
	fflush(NULL);
	do {
		pid = fork();
	} while (pid < 0 && errno == EAGAIN && ++tries < 5 && usleep(100000) == 0);
	if (pid < 0) {
		error("cannot fork for '%s': %s", c->argv.v[0], strerror(errno));
		if (pipefd[0] >= 0) {
			close(pipefd[0]);
			close(pipefd[1]);
		}
		return -1;
	}
	if (pid == 0) {
		if (pipefd[0] >= 0)
			close(pipefd[0]);
		child_exec(c, pipefd[1], in_fd, out_fd);
	}
	setpgid(pid, pid); /* also in the parent, to avoid the race */
	live_add(pid);
	c->pid = pid;
	c->timed_out = 0;
	c->status = -1;
	if (c->capture) {
		close(pipefd[1]);
		c->capfd = pipefd[0];
	}
	return 0;
}

int child_start(struct child *c)
{
	return child_start_impl(c, -1, -1);
}

int child_start_fds(struct child *c, int in_fd, int out_fd)
{
	if (c->capture && out_fd >= 0)
		return error("internal: capture and a stdout descriptor for '%s'",
			     c->argv.n ? c->argv.v[0] : "?");
	return child_start_impl(c, in_fd, out_fd);
}

static int decode_status(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 255;
}

int child_poll(struct child *c)
{
	int st;
	pid_t r;
	if (c->pid <= 0)
		return 1;
	r = waitpid(c->pid, &st, WNOHANG);
	if (r == 0)
		return 0;
	if (r < 0)
		return errno == EINTR ? 0 : -1;
	c->status = decode_status(st);
	live_del(c->pid);
	/* reap the rest of the group, if any lingers */
	kill(-c->pid, SIGKILL);
	c->pid = 0;
	return 1;
}

void child_kill(struct child *c, double grace_s)
{
	double end;
	if (c->pid <= 0)
		return;
	kill(-c->pid, SIGTERM);
	kill(c->pid, SIGTERM);
	end = now_mono() + grace_s;
	while (now_mono() < end) {
		if (child_poll(c) != 0)
			return;
		usleep(20000);
	}
	kill(-c->pid, SIGKILL);
	kill(c->pid, SIGKILL);
	while (child_poll(c) == 0)
		usleep(10000);
}

int child_finish(struct child *c)
{
	double deadline = c->timeout_s > 0 ? now_mono() + c->timeout_s : 0;
	int capfd = c->capfd;
	size_t max = c->capture_max ? c->capture_max : 16u << 20;

	for (;;) {
		int r;
		if (capfd >= 0) {
			struct pollfd pfd = { capfd, POLLIN, 0 };
			int pr = poll(&pfd, 1, 50);
			if (pr > 0) {
				char buf[8192];
				ssize_t n = read(capfd, buf, sizeof(buf));
				if (n > 0) {
					/* output beyond the cap is read and dropped */
					if (c->out.len + (size_t)n <= max)
						sb_add(&c->out, buf, (size_t)n);
				} else if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
					close(capfd);
					capfd = -1;
				}
			}
		} else {
			usleep(20000);
		}
		r = child_poll(c);
		if (r < 0)
			return error("waitpid: %s", strerror(errno));
		if (r == 1 && capfd < 0)
			break;
		if (r == 1 && capfd >= 0) {
			/* drain the pipe; a descendant that escaped the group may
			 * hold it open, so the deadline still applies */
			if (deadline && now_mono() > deadline)
				break;
			continue;
		}
		if (deadline && now_mono() > deadline) {
			c->timed_out = 1;
			child_kill(c, 2.0);
			break;
		}
		if (kb_interrupted && !c->whole) {
			child_kill(c, 2.0);
			break;
		}
	}
	if (capfd >= 0)
		close(capfd);
	c->capfd = -1;
	return c->status;
}

int child_run(struct child *c)
{
	if (child_start(c))
		return -1;
	return child_finish(c);
}

void child_release(struct child *c)
{
	if (c->pid > 0)
		child_kill(c, 0.5);
	strvec_clear(&c->argv);
	strvec_clear(&c->env);
	sb_release(&c->out);
}

int run_capture(const char *const *argv, double timeout_s, struct strbuf *out)
{
	struct child c = CHILD_INIT;
	int ret;
	for (int i = 0; argv[i]; i++)
		strvec_push(&c.argv, argv[i]);
	c.capture = out != NULL;
	if (!out)
		c.stdout_path = c.stderr_path = "/dev/null";
	c.timeout_s = timeout_s;
	ret = child_run(&c);
	if (out && c.out.len)
		sb_add(out, c.out.buf, c.out.len);
	child_release(&c);
	return ret;
}

int run_logged(const char *const *argv, const char *cwd, const char *log, double timeout_s)
{
	struct child c = CHILD_INIT;
	int r;
	for (int i = 0; argv[i]; i++)
		strvec_push(&c.argv, argv[i]);
	c.cwd = cwd;
	c.stdout_path = log;
	c.stderr_path = log;
	c.append = 1;
	c.timeout_s = timeout_s;
	r = child_run(&c);
	if (c.timed_out)
		r = -1;
	child_release(&c);
	return r;
}

int step_failed(const char *stage, const char *step, const char *log, const char *fmt, ...)
{
	va_list ap;
	char msg[1024];
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (log && *log) {
		char *tail = file_tail(log, 15);
		error("%s step '%s': %s; log: %s", stage, step, msg, log);
		if (*tail)
			fprintf(stderr, "--- last lines of %s ---\n%s--- end ---\n", log, tail);
		free(tail);
	} else {
		error("%s step '%s': %s", stage, step, msg);
	}
	return -1;
}
