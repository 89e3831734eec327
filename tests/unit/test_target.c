/* test_target.c - target files (core/target.c) on fixtures in
 * tests/fixtures/targets: the lab machine's file read whole, each bad file
 * refused naming its line and what was expected; and the single-quote
 * escaper every remote argument of the ssh backend goes through. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/spawn.h"
#include "core/target.h"

#define FIX KB_SRCDIR "/tests/fixtures/targets/"

static void test_lab_target(void **state)
{
	struct target t;
	(void)state;
	assert_int_equal(target_load(FIX "lab.ini", &t), 0);
	assert_string_equal(t.name, "lab");
	assert_string_equal(t.host, "127.0.0.1");
	assert_int_equal(t.port, 2222);
	assert_string_equal(t.user, "root");
	/* relative paths are the target file's */
	assert_string_equal(t.identity, FIX "id");
	assert_string_equal(t.known_hosts, FIX "known_hosts");
	assert_int_equal(t.host_key, TK_STRICT);
	assert_int_equal(t.boot, TB_KEXEC);
	assert_int_equal(t.power_cycle.n, 4);
	assert_string_equal(t.power_cycle.v[3], "monitor.sock");
	assert_null(t.power_cycle.v[4]);
	assert_int_equal(t.console.n, 5);
	assert_string_equal(t.console.v[0], "tail");
	assert_string_equal(t.scratch, "/srv/kbench-scratch");
	assert_int_equal(t.boot_timeout_s, 240);
	assert_int_equal(t.ssh_timeout_s, 20);
	target_release(&t);
}

static void test_defaults(void **state)
{
	struct target t;
	const char *ini = "[target]\nhost = lab.example\nknown_hosts = /etc/kh\n";
	(void)state;
	assert_int_equal(target_parse(ini, strlen(ini), "/x/y.ini", &t), 0);
	assert_int_equal(t.port, 22);
	assert_string_equal(t.user, "root");
	assert_string_equal(t.identity, "");
	assert_string_equal(t.known_hosts, "/etc/kh");
	assert_int_equal(t.boot, TB_KEXEC);
	assert_int_equal(t.boot_timeout_s, 300);
	assert_int_equal(t.power_cycle.n, 0);
	assert_int_equal(t.initrd_cache, 2);
	target_release(&t);
	ini = "[target]\nhost = h\nknown_hosts = /k\ninitrd_cache = 0\n";
	assert_int_equal(target_parse(ini, strlen(ini), "/x/y.ini", &t), 0);
	assert_int_equal(t.initrd_cache, 0);
	target_release(&t);
	assert_int_equal(t.scratch_mkfs, TM_NO);
	ini = "[target]\nhost = h\nknown_hosts = /k\nscratch = /dev/vdb\nscratch_mkfs = xfs\n"
	      "boot = reboot-once\n";
	assert_int_equal(target_parse(ini, strlen(ini), "/x/y.ini", &t), 0);
	assert_int_equal(t.scratch_mkfs, TM_XFS);
	assert_int_equal(t.boot, TB_REBOOT_ONCE);
	target_release(&t);
	assert_int_equal(t.kernel_config, TKC_VARIANT);
	ini = "[target]\nhost = h\nknown_hosts = /k\nkernel_config = localyes\n";
	assert_int_equal(target_parse(ini, strlen(ini), "/x/y.ini", &t), 0);
	assert_int_equal(t.kernel_config, TKC_LOCALYES);
	target_release(&t);
	ini = "[target]\nhost = h\nknown_hosts = /k\nkernel_config = localmod\n";
	assert_int_equal(target_parse(ini, strlen(ini), "/x/y.ini", &t), -1);
	target_release(&t);
	ini = "[target]\nhost = h\nknown_hosts = /k\nscratch_mkfs = btrfs\n";
	assert_int_equal(target_parse(ini, strlen(ini), "/x/y.ini", &t), -1);
	target_release(&t);
	ini = "[target]\nhost = h\nknown_hosts = /k\ninitrd_cache = 65\n";
	assert_int_equal(target_parse(ini, strlen(ini), "/x/y.ini", &t), -1);
	target_release(&t);
	assert_int_equal(target_parse("", 0, "/x/empty.ini", &t), -1);
	target_release(&t);
}

/* Each bad fixture: refused, and stderr names the file, the line and the
 * key (or what is missing). */
/* The example the repository ships (configs/targets/example.ini): every
 * key it sets is read as its comments say. */
static void test_example_target(void **state)
{
	struct target t;
	(void)state;
	assert_int_equal(target_load(KB_SRCDIR "/configs/targets/example.ini", &t), 0);
	assert_string_equal(t.name, "example");
	assert_string_equal(t.host, "lab1.example.net");
	assert_string_equal(t.known_hosts, KB_SRCDIR "/configs/targets/lab1.known_hosts");
	assert_int_equal(t.boot, TB_KEXEC);
	assert_int_equal(t.power_cycle.n, 0);
	assert_string_equal(t.scratch, "/srv/kbench-scratch");
	assert_int_equal(t.kernel_config, TKC_LOCALYES);
	target_release(&t);
}

static void test_bad_targets(void **state)
{
	static const struct { const char *file, *want; } bad[] = {
		{ "bad-unknown-key.ini", "line 4: unknown key 'bogus'" },
		{ "bad-host.ini", "line 2: host: bad host '-oProxyCommand=x'" },
		{ "bad-port.ini", "line 3: port:" },
		{ "bad-no-known-hosts.ini", "needs known_hosts" },
		{ "bad-boot.ini", "line 4: boot:" },
		{ "bad-scratch.ini", "line 4: scratch: expected an absolute path" },
		{ "bad-section.ini", "line 2: unknown section [machine]" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char path[1024], log[] = "/tmp/test_target.XXXXXX", buf[2048] = "";
		struct target t;
		int fd = mkstemp(log), saved = dup(2);
		FILE *f;
		snprintf(path, sizeof(path), FIX "%s", bad[i].file);
		dup2(fd, 2);
		assert_int_equal(target_load(path, &t), -1);
		target_release(&t);
		dup2(saved, 2);
		close(saved);
		f = fdopen(fd, "r");
		rewind(f);
		buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
		fclose(f);
		unlink(log);
		if (!strstr(buf, bad[i].want) || !strstr(buf, bad[i].file))
			fail_msg("%s: wanted '%s' in: %s", bad[i].file, bad[i].want, buf);
	}
}

static void test_sh_quote(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "", "''" },
		{ "plain", "'plain'" },
		{ "a b", "'a b'" },
		{ "it's", "'it'\\''s'" },
		{ "$(rm -rf /);`x` \"q\" \\n", "'$(rm -rf /);`x` \"q\" \\n'" },
		{ "''", "''\\'''\\'''" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf sb = STRBUF_INIT;
		sh_quote(&sb, cases[i].in);
		assert_string_equal(sb.buf, cases[i].out);
		sb_release(&sb);
	}
}

/* What sh_quote makes, a real shell reads back as the same word. */
static void test_sh_quote_roundtrip(void **state)
{
	const char *in = "x'y \"$HOME\" `id` \\ ;|&\n*?[a]";
	struct strbuf cmd = STRBUF_INIT;
	const char *argv[4] = { "/bin/sh", "-c", NULL, NULL };
	struct strbuf out = STRBUF_INIT;
	(void)state;
	sb_addf(&cmd, "printf %%s ");
	sh_quote(&cmd, in);
	argv[2] = cmd.buf;
	assert_int_equal(run_capture(argv, 5, &out), 0);
	assert_string_equal(out.buf, in);
	sb_release(&cmd);
	sb_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lab_target),   cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_bad_targets),  cmocka_unit_test(test_sh_quote),
		cmocka_unit_test(test_sh_quote_roundtrip),
		cmocka_unit_test(test_example_target),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
