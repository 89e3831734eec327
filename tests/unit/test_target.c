/* test_target.c - target files (core/target.c) on fixtures in
 * tests/fixtures/targets: the lab machine's file read whole, each bad file
 * refused naming its line and what was expected; the remote steps'
 * deadline keys and the causes a failed step is reported with (never
 * empty: a step past its deadline names itself, the time and the key);
 * and the single-quote escaper every remote argument of the ssh backend
 * goes through. */
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
	/* the steps' deadlines it sets, the others at their defaults */
	assert_int_equal(t.step_timeout_s[TS_INSTALL], 1800);
	assert_int_equal(t.step_timeout_s[TS_COPY], 60);
	assert_int_equal(t.step_timeout_s[TS_KEXEC], 120);
	assert_int_equal(t.step_timeout_s[TS_CLEANUP], 120);
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
	/* every remote step's deadline at its documented default */
	assert_int_equal(t.step_timeout_s[TS_COPY], 600);
	assert_int_equal(t.step_timeout_s[TS_KBUILD_TREE], 3600);
	assert_int_equal(t.step_timeout_s[TS_INSTALL], 900);
	assert_int_equal(t.step_timeout_s[TS_KEXEC], 120);
	assert_int_equal(t.step_timeout_s[TS_GRUB], 300);
	assert_int_equal(t.step_timeout_s[TS_MKFS], 600);
	assert_int_equal(t.step_timeout_s[TS_CLEANUP], 120);
	for (int i = 0; i < TS_N; i++)
		assert_int_equal(t.step_timeout_s[i], target_steps[i].def_s);
	target_release(&t);
	/* each key sets its own step, 1 s and a day the bounds */
	ini = "[target]\nhost = h\nknown_hosts = /k\ncopy_timeout = 1\nkbuild_tree_timeout = 86400\n"
	      "install_timeout = 2400\nkexec_timeout = 30\ngrub_timeout = 45\nmkfs_timeout = 3000\n"
	      "cleanup_timeout = 600\n";
	assert_int_equal(target_parse(ini, strlen(ini), "/x/y.ini", &t), 0);
	assert_int_equal(t.step_timeout_s[TS_COPY], 1);
	assert_int_equal(t.step_timeout_s[TS_KBUILD_TREE], 86400);
	assert_int_equal(t.step_timeout_s[TS_INSTALL], 2400);
	assert_int_equal(t.step_timeout_s[TS_KEXEC], 30);
	assert_int_equal(t.step_timeout_s[TS_GRUB], 45);
	assert_int_equal(t.step_timeout_s[TS_MKFS], 3000);
	assert_int_equal(t.step_timeout_s[TS_CLEANUP], 600);
	assert_int_equal(t.boot_timeout_s, 300);
	target_release(&t);
	ini = "[target]\nhost = h\nknown_hosts = /k\ninstall_timeout = 86401\n";
	assert_int_equal(target_parse(ini, strlen(ini), "/x/y.ini", &t), -1);
	target_release(&t);
	ini = "[target]\nhost = h\nknown_hosts = /k\ninstall_timeout = -5\n";
	assert_int_equal(target_parse(ini, strlen(ini), "/x/y.ini", &t), -1);
	target_release(&t);
	ini = "[target]\nhost = h\nknown_hosts = /k\ninstall_timeout =\n";
	assert_int_equal(target_parse(ini, strlen(ini), "/x/y.ini", &t), -1);
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
	assert_int_equal(t.step_timeout_s[TS_INSTALL], 900);
	assert_int_equal(t.step_timeout_s[TS_COPY], 600);
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
		{ "bad-install-timeout.ini",
		  "line 4: install_timeout: 'install_timeout' must be in 1..86400, got 0" },
		{ "bad-timeout-unit.ini",
		  "line 5: kexec_timeout: expected an integer for 'kexec_timeout', got '2m'" },
		/* the unknown key's message lists the steps' keys too */
		{ "bad-unknown-key.ini", "kernel_config, copy_timeout, kbuild_tree_timeout, "
		  "install_timeout, kexec_timeout, grub_timeout, mkfs_timeout, cleanup_timeout)" },
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

/* CAUSE for E (the target file /t/lab1.ini). */
static void cause_is(const struct target_step_end *e, const char *want)
{
	struct strbuf sb = STRBUF_INIT;
	target_step_cause(&sb, "/t/lab1.ini", e);
	assert_non_null(sb.buf);
	assert_string_equal(sb.buf, want);
	sb_release(&sb);
}

/* A failed remote step's cause: never empty. Past its deadline: the
 * step, the time, the key and the file (whatever it printed); cut by
 * Ctrl-C; otherwise what it printed, or its exit status when it printed
 * nothing (ssh's 255 apart). */
static void test_step_cause(void **state)
{
	struct target_step_end e = { .step = "making the initrd (mkinitramfs)",
				     .key = "install_timeout", .limit_s = 900, .timed_out = 1,
				     .status = -1, .output = "@ junk the step printed\n" };
	char big[1200];
	(void)state;
	cause_is(&e, "the step 'making the initrd (mkinitramfs)' did not finish within 900 s; give "
		     "it more time with install_timeout = N (seconds) in '/t/lab1.ini'");
	e.timed_out = 0;
	e.interrupted = 1;
	cause_is(&e, "the step 'making the initrd (mkinitramfs)' was interrupted");
	e.interrupted = 0;
	/* the machine's words, as the install script prints a failed
	 * mkinitramfs: its log's tail and the verdict */
	e.status = 4;
	e.output = "\nW: Possible missing firmware /lib/firmware/i915/tgl_dmc.bin for module i915\n"
		   "E: /usr/share/initramfs-tools/hooks/zz-busybox failed with return 1.\n"
		   "mkinitramfs failed\n\n";
	cause_is(&e, "W: Possible missing firmware /lib/firmware/i915/tgl_dmc.bin for module i915\n"
		     "E: /usr/share/initramfs-tools/hooks/zz-busybox failed with return 1.\n"
		     "mkinitramfs failed");
	/* nothing printed (what ended as "cannot install the kernel: ") */
	e.output = "";
	cause_is(&e, "the step 'making the initrd (mkinitramfs)' failed with exit status 4 and no "
		     "output");
	e.output = " \n\t\n";
	cause_is(&e, "the step 'making the initrd (mkinitramfs)' failed with exit status 4 and no "
		     "output");
	e.output = NULL;
	e.status = 255;
	cause_is(&e, "the step 'making the initrd (mkinitramfs)' failed: ssh exited with status 255 "
		     "and said nothing (the connection failed or was cut)");
	e.status = -1;
	cause_is(&e, "the step 'making the initrd (mkinitramfs)' failed: ssh could not be started");
	/* untrusted bytes: control characters shown as '?' */
	e.status = 3;
	e.output = "bad\033[2J\rline\tok\x7f";
	cause_is(&e, "bad?[2J?line\tok?");
	/* a long output: its last 300 bytes, from a line's start */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big + 1000, "\nthe last line", 14);
	e.output = big;
	{
		struct strbuf sb = STRBUF_INIT;
		target_step_cause(&sb, "/t/lab1.ini", &e);
		assert_true(!strncmp(sb.buf, "...the last line", 16));
		assert_true(sb.len <= 303);
		sb_release(&sb);
	}
	memset(big, 'y', sizeof(big) - 1);
	e.output = big;
	{
		struct strbuf sb = STRBUF_INIT;
		target_step_cause(&sb, "/t/lab1.ini", &e);
		assert_int_equal(sb.len, 303);
		assert_true(!strncmp(sb.buf, "...yyy", 6));
		sb_release(&sb);
	}
}

/* TEXT's announced part among install's, the announcements taken out:
 * WANT_NAME and WANT_OUT. */
static void part_is(const char *text, const char *want_name, const char *want_out)
{
	static const struct target_part parts[] = {
		{ "modules", "installing the modules (tar, depmod)" },
		{ "initrd", "making the initrd (mkinitramfs)" },
		{ NULL, NULL },
	};
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, text);
	assert_string_equal(target_step_part(&sb, parts, "installing the kernel"), want_name);
	assert_string_equal(sb.buf, want_out);
	assert_int_equal(sb.len, strlen(want_out));
	sb_release(&sb);
}

/* A step's announcements: the last known one names the part; unknown
 * ids, marks inside a line and look-alikes are the machine's words,
 * never a name. */
static void test_step_part(void **state)
{
	struct strbuf empty = STRBUF_INIT;
	(void)state;
	part_is("", "installing the kernel", "");
	part_is("nothing announced\n", "installing the kernel", "nothing announced");
	part_is(TARGET_PART_MARK "modules\n" TARGET_PART_MARK "initrd\ninitrd made /var/tmp/x\n",
		"making the initrd (mkinitramfs)", "initrd made /var/tmp/x");
	part_is(TARGET_PART_MARK "modules\ncannot install the modules",
		"installing the modules (tar, depmod)", "cannot install the modules");
	/* the last line a mark without its newline */
	part_is("a\n" TARGET_PART_MARK "initrd", "making the initrd (mkinitramfs)", "a");
	/* unknown, longer, shorter and mid-line: not names; unknown marks
	 * are taken out all the same */
	part_is(TARGET_PART_MARK "initrd\n" TARGET_PART_MARK "rm -rf /\n"
		TARGET_PART_MARK "initrdX\n" TARGET_PART_MARK "init\nsay " TARGET_PART_MARK
		"modules\n", "making the initrd (mkinitramfs)", "say " TARGET_PART_MARK "modules");
	part_is("@kbench-stepinitrd\n", "installing the kernel", "@kbench-stepinitrd");
	/* no output at all */
	assert_string_equal(target_step_part(&empty, NULL, "x"), "x");
	assert_null(empty.buf);
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
		cmocka_unit_test(test_step_cause),   cmocka_unit_test(test_step_part),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
