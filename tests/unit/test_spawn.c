/* test_spawn.c - the one spawning API: exit codes, capture, deadlines that
 * kill the whole process group, and output floods. Uses /bin/sh only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/spawn.h"

static int sh(const char *script, double timeout, struct child *c)
{
	strvec_push(&c->argv, "/bin/sh");
	strvec_push(&c->argv, "-c");
	strvec_push(&c->argv, script);
	c->timeout_s = timeout;
	return child_run(c);
}

static void test_exit_codes(void **state)
{
	struct child a = CHILD_INIT, b = CHILD_INIT;
	(void)state;
	assert_int_equal(sh("exit 3", 10, &a), 3);
	assert_int_equal(sh("kill -9 $$", 10, &b), 128 + SIGKILL);
	assert_false(a.timed_out);
	child_release(&a);
	child_release(&b);
}

static void test_capture(void **state)
{
	struct child c = CHILD_INIT;
	(void)state;
	c.capture = 1;
	assert_int_equal(sh("echo out; echo err >&2", 10, &c), 0);
	assert_non_null(c.out.buf);
	assert_non_null(strstr(c.out.buf, "out\n"));
	assert_non_null(strstr(c.out.buf, "err\n"));
	child_release(&c);
}

/* Ctrl-C (kb_interrupted) kills a child, but one marked whole is waited
 * for (kbench bisect's git checkouts). */
static void test_interrupt_whole(void **state)
{
	struct child a = CHILD_INIT, b = CHILD_INIT;
	(void)state;
	kb_interrupted = SIGINT;
	assert_int_equal(sh("sleep 0.3; exit 7", 10, &a), 128 + SIGTERM);
	b.whole = 1;
	assert_int_equal(sh("sleep 0.3; exit 7", 10, &b), 7);
	kb_interrupted = 0;
	child_release(&a);
	child_release(&b);
}

/* A hung child and its background grandchild are both killed at the
 * deadline, and the call returns soon after it. */
static void test_deadline_kills_group(void **state)
{
	struct child c = CHILD_INIT;
	double t0 = now_mono();
	char pidfile[] = "/tmp/kbench-spawn-XXXXXX";
	int fd = mkstemp(pidfile);
	char script[256];
	struct strbuf sb = STRBUF_INIT;
	pid_t grandchild;
	(void)state;
	assert_true(fd >= 0);
	close(fd);
	snprintf(script, sizeof(script), "sleep 60 & echo $! > %s; wait", pidfile);
	sh(script, 0.5, &c);
	assert_true(c.timed_out);
	assert_true(now_mono() - t0 < 5.0);
	assert_int_equal(read_file(pidfile, &sb, 64), 0);
	grandchild = (pid_t)atoi(sb.buf);
	assert_true(grandchild > 0);
	usleep(200000);
	{
		/* gone, or a zombie waiting for init to reap it */
		char stat[64];
		struct strbuf st = STRBUF_INIT;
		snprintf(stat, sizeof(stat), "/proc/%d/stat", (int)grandchild);
		if (access(stat, R_OK) == 0 && read_file(stat, &st, 4096) == 0 && st.buf) {
			const char *paren = strrchr(st.buf, ')');
			assert_non_null(paren);
			assert_int_equal(paren[2], 'Z');
		}
		sb_release(&st);
	}
	unlink(pidfile);
	sb_release(&sb);
	child_release(&c);
}

/* A child that floods its output still meets its deadline, and the
 * capture stays within its cap. */
static void test_flood_deadline(void **state)
{
	struct child c = CHILD_INIT;
	double t0 = now_mono();
	(void)state;
	c.capture = 1;
	c.capture_max = 1 << 16;
	sh("while :; do echo flooding flooding flooding; done", 0.5, &c);
	assert_true(c.timed_out);
	assert_true(now_mono() - t0 < 5.0);
	assert_true(c.out.len <= (1u << 16));
	child_release(&c);
}

/* A child speaking over a socket pair (the local and ssh backends' agent):
 * what goes in comes back, and spawn_kill_all (Ctrl-C) reaches it. */
static void test_start_fds(void **state)
{
	struct child c = CHILD_INIT;
	char buf[16] = "";
	int sv[2];
	double end;
	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	strvec_push(&c.argv, "/bin/sh");
	strvec_push(&c.argv, "-c");
	strvec_push(&c.argv, "read l; echo \"got $l\"; exec sleep 30");
	assert_int_equal(child_start_fds(&c, sv[1], sv[1]), 0);
	close(sv[1]);
	assert_int_equal(write(sv[0], "hi\n", 3), 3);
	assert_int_equal(read(sv[0], buf, 7), 7);
	assert_string_equal(buf, "got hi\n");
	spawn_kill_all();
	for (end = now_mono() + 5; child_poll(&c) == 0 && now_mono() < end;)
		usleep(10000);
	assert_int_equal(c.status, 128 + SIGKILL);
	close(sv[0]);
	child_release(&c);
}

static void test_missing_program(void **state)
{
	struct child c = CHILD_INIT;
	(void)state;
	strvec_push(&c.argv, "/nonexistent/kbench-no-such-program");
	c.stderr_path = "/dev/null";
	assert_int_equal(child_run(&c), 127);
	child_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_capture),
		cmocka_unit_test(test_interrupt_whole),
		cmocka_unit_test(test_deadline_kills_group),
		cmocka_unit_test(test_flood_deadline),
		cmocka_unit_test(test_missing_program),
		cmocka_unit_test(test_start_fds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
