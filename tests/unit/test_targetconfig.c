/* test_targetconfig.c - a remote machine's running config and loaded
 * modules (kbench target-config, kernel/source.c) are untrusted text:
 * the real head of the lab machine's Debian 12 config (6.1.0-50-amd64,
 * tests/fixtures/targetconfig/) and its /proc/modules pass; binary bytes,
 * a shell line, too few options, another architecture, an oversize text
 * and a malformed module line are refused, naming the line; the
 * machine's answer is split at its marker lines (an empty config too).
 * A variant's base = file goes with base_config (core/config.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "core/config.h"
#include "kernel/source.h"
#include "backend/backend.h"
#include "run/targetcfg.h"

#define FIX KB_SRCDIR "/tests/fixtures/targetconfig/"

static char *slurp(const char *name, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	char path[KB_PATH_MAX];
	snprintf(path, sizeof(path), FIX "%s", name);
	assert_int_equal(read_file(path, &sb, 1 << 20), 0);
	*len = sb.len;
	return sb.buf ? sb.buf : xasprintf("%s", "");
}

static void test_real_config(void **state)
{
	char err[300] = "";
	size_t len;
	char *t = slurp("config-6.1.0-50-amd64.head", &len);
	(void)state;
	assert_int_equal(kconfig_text_check(t, len, err, sizeof(err)), 0);
	free(t);
}

static void test_bad_config(void **state)
{
	char err[300], *t, *bad;
	size_t len;
	(void)state;
	t = slurp("config-6.1.0-50-amd64.head", &len);
	bad = xasprintf("%s\nrm -rf /\n", t); /* a line that is not Kconfig's */
	assert_int_equal(kconfig_text_check(bad, strlen(bad), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "line 422: expected 'CONFIG_X=value'"));
	free(bad);
	bad = xasprintf("%sCONFIG_X=\x01\n", t); /* a control byte */
	assert_int_equal(kconfig_text_check(bad, strlen(bad), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not printable"));
	free(bad);
	bad = xasprintf("%s", t); /* another architecture */
	strstr(bad, "CONFIG_X86_64=y")[14] = 'n';
	assert_int_equal(kconfig_text_check(bad, strlen(bad), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not an x86_64 config"));
	free(bad);
	assert_int_equal(kconfig_text_check("CONFIG_X86_64=y\n", 16, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "only 1 options"));
	assert_int_equal(kconfig_text_check(t, KCONFIG_TEXT_MAX + 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "more than a config has"));
	free(t);
}

static void test_modules(void **state)
{
	char err[300];
	size_t len;
	char *t = slurp("proc-modules", &len);
	(void)state;
	assert_true(kconfig_modules_check(t, len, err, sizeof(err)) >= 10);
	assert_int_equal(kconfig_modules_check("virtio_net 61440 0 - Live 0x0\n$(reboot)\n", 40, err,
					       sizeof(err)), -1);
	assert_non_null(strstr(err, "line 2: expected '/proc/modules' lines"));
	assert_int_equal(kconfig_modules_check("", 0, err, sizeof(err)), 0);
	free(t);
}

/* The machine's answer split at its marker lines (the script's output
 * shape); an empty config is empty, never a read before the marker; a
 * missing marker is refused. */
/* boot = reboot-once's GRUB entry: every word of the command line its own
 * quoted argument (one argument with spaces GRUB would hand on in double
 * quotes, one kernel parameter: the first lab boot of it had no root= and
 * no console), a quote inside a word kept; a control byte refused. */
static void test_grub_entry(void **state)
{
	struct strbuf cfg = STRBUF_INIT;
	(void)state;
	assert_int_equal(ssh_grub_entry("6.12.117+deb13-amd64",
					"root=/dev/vda rw  console=ttyS0 init=/bin/it's quiet", &cfg), 0);
	assert_non_null(cfg.buf);
	assert_int_equal(strncmp(cfg.buf, "# kbench one-time entry\n", 24), 0);
	assert_non_null(strstr(cfg.buf, "menuentry 'kbench-once' --id kbench-once {\n"));
	assert_non_null(strstr(cfg.buf, "\tsearch --no-floppy --file --set=root @DIR@/vmlinuz\n"));
	assert_non_null(strstr(cfg.buf, "\tlinux @DIR@/vmlinuz 'root=/dev/vda' 'rw' 'console=ttyS0' "
					"'init=/bin/it'\\''s' 'quiet'\n"));
	assert_non_null(strstr(cfg.buf, "\tinitrd @DIR@/initrd.img\n}\n"));
	assert_non_null(strstr(cfg.buf, "6.12.117+deb13-amd64"));
	sb_release(&cfg);
	assert_int_equal(ssh_grub_entry("6.12", "root=/dev/vda\n}\nmenuentry x {", &cfg), -1);
	assert_int_equal((int)cfg.len, 0);
	sb_release(&cfg);
}

static void test_split(void **state)
{
	struct strbuf c = STRBUF_INIT, m = STRBUF_INIT;
	char rel[64];
	(void)state;
	assert_int_equal(ssh_running_config_split("6.1.0-50-amd64\n--kbench-config--\nCONFIG_A=y\n"
						  "CONFIG_B=m\n--kbench-modules--\nvirtio_net 61440 0 - "
						  "Live 0x0", rel, sizeof(rel), &c, &m), 0);
	assert_string_equal(rel, "6.1.0-50-amd64");
	assert_string_equal(c.buf, "CONFIG_A=y\nCONFIG_B=m\n");
	assert_string_equal(m.buf, "virtio_net 61440 0 - Live 0x0\n");
	sb_reset(&c);
	sb_reset(&m);
	assert_int_equal(ssh_running_config_split("6.1\n--kbench-config--\n--kbench-modules--\n", rel,
						  sizeof(rel), &c, &m), 0);
	assert_int_equal(c.len, 0);
	assert_string_equal(m.buf, "\n");
	assert_int_equal(ssh_running_config_split("6.1\n--kbench-config--\nCONFIG_A=y\n", rel,
						  sizeof(rel), &c, &m), -1);
	assert_int_equal(ssh_running_config_split("no running config", rel, sizeof(rel), &c, &m), -1);
	sb_release(&c);
	sb_release(&m);
}

/* base = file and base_config go together; a relative path is taken
 * from the variant file's directory */
static void test_variant_base_file(void **state)
{
	char dir[] = "/tmp/kbench-tcfg-XXXXXX", path[KB_PATH_MAX];
	struct variant v;
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/lab.ini", dir);
	const char *good = "[variant]\nname = lab\nsource = build\ntree = linux-source-6.12\n"
			   "base = file\nbase_config = lab.config\nconfigs = rt\n";
	const char *lone = "[variant]\nname = nofile\nsource = build\ntree = linux-source-6.12\n"
			   "base = file\n";
	assert_int_equal(write_file_atomic(path, good, strlen(good)), 0);
	assert_int_equal(variant_load(path, &v), 0);
	assert_int_equal(v.base, VBASE_FILE);
	snprintf(path, sizeof(path), "%s/lab.config", dir);
	assert_string_equal(v.base_config, path);
	snprintf(path, sizeof(path), "%s/nofile.ini", dir);
	assert_int_equal(write_file_atomic(path, lone, strlen(lone)), 0);
	assert_int_equal(variant_load(path, &v), -1);
	assert_int_equal(rm_rf(dir), 0);
}

/* kernel_config = localyes takes QEMU's guest fragment (base) out of a
 * variant's list, and nothing else; a target that does not say so leaves
 * the variant as it is (no ssh: target_variant returns before it). */
static void test_configs_without_base(void **state)
{
	char out[OPT_STR_MAX], dir[] = "/tmp/kbench-tvar-XXXXXX", path[KB_PATH_MAX];
	struct variant v;
	const char *t = "[target]\nhost = 127.0.0.1\nknown_hosts = /k\n";
	(void)state;
	configs_without_base("base rt", out, sizeof(out));
	assert_string_equal(out, "rt");
	configs_without_base("rt base lockdep", out, sizeof(out));
	assert_string_equal(out, "rt lockdep");
	configs_without_base("base", out, sizeof(out));
	assert_string_equal(out, "");
	configs_without_base("basement rt", out, sizeof(out));
	assert_string_equal(out, "basement rt");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/lab.ini", dir);
	assert_int_equal(write_file_atomic(path, t, strlen(t)), 0);
	assert_int_equal(variant_load("rt-adaptive", &v), 0);
	assert_int_equal(target_variant(path, &v), 0);
	assert_int_equal(v.base, VBASE_DEFCONFIG);
	assert_string_equal(v.configs, "base rt");
	assert_int_equal(rm_rf(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_config),
		cmocka_unit_test(test_bad_config),
		cmocka_unit_test(test_modules),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_grub_entry),
		cmocka_unit_test(test_variant_base_file),
		cmocka_unit_test(test_configs_without_base),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
