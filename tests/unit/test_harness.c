/* test_harness.c - harness parsers of untrusted or external text: the
 * reference patch's lock counters (guest data) and apt-cache output; the
 * backend registry, its logs and the initramfs file list. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <netinet/in.h>

#include "backend/backend.h"
#include "backend/hostroot.h"
#include "backend/guest.h"
#include "backend/image.h"
#include "backend/lava_log.h"
#include "agent/proto.h"
#include "kernel/apt.h"
#include "kernel/subject.h"
#include "core/config.h"
#include "core/jsonutil.h"
#include "run/results.h"
#include "run/run.h"
#include "run/trouble.h"
#include "core/util.h"

static char *fixture(const char *rel)
{
	struct strbuf sb = STRBUF_INIT;
	char path[1024];
	snprintf(path, sizeof(path), "%s/tests/fixtures/%s", KB_SRCDIR, rel);
	assert_int_equal(read_file(path, &sb, 1 << 20), 0);
	return sb.buf;
}

/* The test subject of rt-adaptive: the real reference patch, its subject
 * (folded header), sha256 and diffstat (as `git apply --numstat` counts
 * it: 83/13, 115/0, 62/0), the fragments and the lock knobs. */
static void test_subject_real(void **state)
{
	struct variant v;
	json_object *s, *p, *ds, *f;
	char path[1024], h[65];
	static const struct { const char *path; int add, del; } want[] = {
		{ "kernel/locking/rtmutex.c", 83, 13 },
		{ "kernel/locking/rtmutex_api.c", 115, 0 },
		{ "kernel/locking/rtmutex_policy.h", 62, 0 },
	};
	(void)state;
	assert_int_equal(variant_load("rt-adaptive", &v), 0);
	s = subject_json(&v, "quiet rtmutex.spin_max_loops=10000 rtmutex.lateral_steal=1 "
			 "rtmutex.spin_max_loops=5");
	assert_non_null(s);
	assert_string_equal(jstr(s, "base"), "defconfig");
	assert_string_equal(jstr(s, "tree"), "linux-source-6.12");
	p = json_object_array_get_idx(jget(s, "patches"), 0);
	assert_string_equal(jstr(p, "subject"),
			    "locking/rtmutex: Make adaptive spinning and lateral steal switchable");
	snprintf(path, sizeof(path), "%s/kernels/patches/%s", KB_SRCDIR, jstr(p, "file"));
	assert_int_equal(sha256_file_hex(path, h), 0);
	assert_string_equal(jstr(p, "sha256"), h);
	assert_non_null(strstr(jstr(p, "text"), "rtmutex_policy.h"));
	ds = jget(p, "diffstat");
	assert_int_equal(json_object_array_length(ds), 3);
	for (size_t i = 0; i < 3; i++) {
		f = json_object_array_get_idx(ds, i);
		assert_string_equal(jstr(f, "path"), want[i].path);
		assert_int_equal(json_object_get_int(jget(f, "added")), want[i].add);
		assert_int_equal(json_object_get_int(jget(f, "removed")), want[i].del);
	}
	f = json_object_array_get_idx(jget(s, "config_fragments"), 1);
	assert_string_equal(jstr(f, "name"), "rt");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(jget(f, "options"), 1)),
			    "CONFIG_PREEMPT_RT=y");
	assert_string_equal(jstr(jget(s, "lock_knobs"), "rtmutex.spin_max_loops"), "5");
	assert_string_equal(jstr(jget(s, "lock_knobs"), "rtmutex.lateral_steal"), "1");
	assert_int_equal(json_object_object_length(jget(s, "lock_knobs")), 2);
	json_object_put(s);
	assert_int_equal(variant_load("rt-stock", &v), 0);
	assert_null(subject_json(&v, "")); /* not built from source */
}

/* Hunk lengths, not line prefixes: a removed "-- x" and an added "++ y"
 * line are counted, a new file's "--- /dev/null" names the "+++" path;
 * subject without a Subject: header is the first line. */
static void test_subject_diffstat(void **state)
{
	static const char patch[] =
		"fix things\n\n--- a/x.c\n+++ b/x.c\n@@ -1,2 +1,2 @@\n ctx\n--- x\n+++ y\n"
		"@@ -10 +10,2 @@\n-old\n+new\n+more\n"
		"--- /dev/null\n+++ b/n.h\n@@ -0,0 +1 @@\n+only\n";
	json_object *ds = subject_diffstat(patch), *f;
	char subj[64];
	(void)state;
	assert_int_equal(json_object_array_length(ds), 2);
	f = json_object_array_get_idx(ds, 0);
	assert_string_equal(jstr(f, "path"), "x.c");
	assert_int_equal(json_object_get_int(jget(f, "added")), 3);
	assert_int_equal(json_object_get_int(jget(f, "removed")), 2);
	f = json_object_array_get_idx(ds, 1);
	assert_string_equal(jstr(f, "path"), "n.h");
	assert_int_equal(json_object_get_int(jget(f, "added")), 1);
	json_object_put(ds);
	subject_line(patch, subj, sizeof(subj));
	assert_string_equal(subj, "fix things");
	subject_line("Subject: [PATCH v2 1/3] a:\n b\n\nbody\n", subj, 8);
	assert_string_equal(subj, "a: b");
}

/* A real counters file (captured from the patched test kernel). */
static void test_lock_stats_real(void **state)
{
	char *text = fixture("lockstats/hackbench-rt-adaptive-test.txt");
	json_object *o = parse_lock_stats(text), *v;
	(void)state;
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "rtlock.spin_started", &v));
	assert_int_equal(json_object_get_int64(v), 1416);
	assert_true(json_object_object_get_ex(o, "rt_mutex.sleeps", &v));
	assert_true(json_object_object_length(o) >= 18);
	json_object_put(o);
	free(text);
}

/* Garbage, negative numbers, odd names and trailing junk are refused. */
static void test_lock_stats_bad(void **state)
{
	static const char *const bad[] = {
		"rtlock.spin_started -1\n",
		"rtlock.spin_started 12x\n",
		"RTLOCK 1\n",
		"rtlock.spin_started\n",
		"rtlock.spin_started 1 2\n",
		"\x01\x02\n",
		"rtlock.spin_started 99999999999999999999999\n",
	};
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_object *o = parse_lock_stats(bad[i]);
		if (o)
			fail_msg("accepted bad input %zu: '%s'", i, bad[i]);
	}
	{
		/* overlong names: 63 characters fit the parser's buffer, 64 are
		 * refused rather than cut */
		char line[128];
		json_object *o;
		memset(line, 'a', sizeof(line));
		memcpy(line, "rtlock.", 7);
		memcpy(line + 63, " 1\n", 4);
		o = parse_lock_stats(line);
		assert_non_null(o);
		assert_int_equal(json_object_object_length(o), 1);
		json_object_put(o);
		memcpy(line + 63, "a 1\n", 5);
		assert_null(parse_lock_stats(line));
	}
	{
		/* empty (counters absent) is an empty object, not an error */
		json_object *o = parse_lock_stats("");
		assert_non_null(o);
		assert_int_equal(json_object_object_length(o), 0);
		json_object_put(o);
	}
}

/* More than 256 counters: refused (guest data is bounded). */
static void test_lock_stats_bounded(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	for (int i = 0; i < 300; i++)
		sb_addf(&sb, "rtlock.c%c%c %d\n", 'a' + i / 26 % 26, 'a' + i % 26, i);
	assert_null(parse_lock_stats(sb.buf));
	sb_release(&sb);
}

/* apt-cache show of a metapackage names the real image and its version;
 * of a real package, itself. */
static void test_apt_show(void **state)
{
	static const struct {
		const char *fixture, *pkg, *real;
	} t[] = {
		{ "apt/show-linux-image-rt-amd64.txt", "linux-image-rt-amd64",
		  "linux-image-6.12.117+deb13-rt-amd64" },
		{ "apt/show-linux-source-6.12.txt", "linux-source-6.12", "linux-source-6.12" },
	};
	char real[256], ver[128];
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *text = fixture(t[i].fixture);
		assert_int_equal(apt_parse_show(text, t[i].pkg, real, sizeof(real), ver, sizeof(ver)), 0);
		assert_string_equal(real, t[i].real);
		assert_string_equal(ver, "6.12.117-1");
		free(text);
	}
	assert_int_equal(apt_parse_show("garbage\n", "x", real, sizeof(real), ver, sizeof(ver)), -1);
}

static const char *finding(json_object *t, size_t i, const char *key)
{
	return json_object_get_string(json_object_object_get(json_object_array_get_idx(t, i), key));
}

/* tests/fixtures/console/NAME scanned: N findings, the first of KIND at
 * LINE. */
static json_object *scan_console(const char *name, size_t n, const char *kind, int line)
{
	char path[512];
	json_object *t;
	snprintf(path, sizeof(path), "%s/tests/fixtures/console/%s", KB_SRCDIR, name);
	t = trouble_scan_file(path);
	assert_non_null(t);
	assert_int_equal(json_object_array_length(t), n);
	assert_string_equal(finding(t, 0, "kind"), kind);
	assert_int_equal(json_object_get_int(json_object_object_get(json_object_array_get_idx(t, 0), "line")),
			 line);
	return t;
}

/* Kernel trouble on a console: a lockdep report then an RCU stall; a
 * WARNING opened by "cut here", then a panic, then binary junk; a clean
 * boot has none; and hostile input (no newline, NULs, huge) is survived. */
static void test_trouble(void **state)
{
	char path[512], kinds[200];
	json_object *t;
	(void)state;
	t = scan_console("lockdep.log", 2, "lockdep", 6);
	assert_non_null(strstr(finding(t, 0, "excerpt"), "is trying to acquire lock"));
	assert_string_equal(finding(t, 1, "kind"), "rcu-stall");
	trouble_kinds(t, kinds, sizeof(kinds));
	assert_string_equal(kinds, "lockdep, rcu-stall");
	json_object_put(t);

	t = scan_console("panic.log", 2, "warning", 2);
	assert_string_equal(finding(t, 1, "kind"), "panic");
	/* the excerpt is printable: the junk's control bytes became '?' */
	for (const char *c = finding(t, 1, "excerpt"); *c; c++)
		assert_true(*c == '\n' || (unsigned char)*c >= 0x20);
	json_object_put(t);

	snprintf(path, sizeof(path), "%s/tests/fixtures/console/clean.log", KB_SRCDIR);
	assert_null(trouble_scan_file(path));
	assert_null(trouble_scan_file("/nonexistent/console.log"));
	assert_null(trouble_scan("", 0));
	{
		static const char nul[] = "ok\0BUG: unable to handle page fault\0";
		t = trouble_scan(nul, sizeof(nul) - 1);
		assert_non_null(t);
		assert_string_equal(finding(t, 0, "kind"), "bug");
		json_object_put(t);
	}
	{
		/* a flood of reports: bounded */
		struct strbuf sb = STRBUF_INIT;
		for (int i = 0; i < 1000; i++)
			sb_addf(&sb, "[ %d.0] WARNING: CPU: 0 PID: 1 at x.c:1 f+0x0/0x0", i); /* no newline */
		t = trouble_scan(sb.buf, sb.len);
		assert_int_equal(json_object_array_length(t), 1);
		json_object_put(t);
		sb_reset(&sb);
		for (int i = 0; i < 1000; i++)
			sb_addf(&sb, "[ %d.0] BUG: soft lockup - CPU#0 stuck for 22s!\n", i);
		t = trouble_scan(sb.buf, sb.len);
		assert_int_equal(json_object_array_length(t), TROUBLE_MAX);
		assert_string_equal(finding(t, 0, "kind"), "soft-lockup");
		json_object_put(t);
		sb_release(&sb);
	}
}

/* The crash QEMU 7.2's multi-threaded TCG causes (a real console from
 * kbench's boot study, tests/fixtures/console/int3-qemu72.log): its oops
 * gains the known cause, the panic after it does not; other trouble
 * (panic.log) and no match leave the findings as they were. And the
 * QEMU versions that have the race: before 8.1. */
static void test_trouble_cause(void **state)
{
	json_object *t;
	(void)state;
	t = scan_console("int3-qemu72.log", 2, "oops", 6);
	assert_string_equal(finding(t, 1, "kind"), "panic");
	assert_int_equal(trouble_explain(t, "Oops: int3", "QEMU's race"), 1);
	assert_string_equal(finding(t, 0, "cause"), "QEMU's race");
	assert_null(finding(t, 1, "cause"));
	assert_int_equal(trouble_explain(t, "", "x"), 0);
	assert_int_equal(trouble_explain(t, NULL, "x"), 0);
	assert_int_equal(trouble_explain(NULL, "Oops: int3", "x"), 0);
	json_object_put(t);
	t = scan_console("panic.log", 2, "warning", 2);
	assert_int_equal(trouble_explain(t, "Oops: int3", "QEMU's race"), 0);
	assert_null(finding(t, 0, "cause"));
	assert_null(finding(t, 1, "cause"));
	json_object_put(t);

	assert_int_equal(qemu_tcg_smc_race("QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3)"), 1);
	assert_int_equal(qemu_tcg_smc_race("QEMU emulator version 8.0.5"), 1);
	assert_int_equal(qemu_tcg_smc_race("QEMU emulator version 8.1.0"), 0);
	assert_int_equal(qemu_tcg_smc_race("QEMU emulator version 10.0.2 (Debian 1:10.0.2+ds-2+deb13u1~bpo12+1)"), 0);
	assert_int_equal(qemu_tcg_smc_race("QEMU emulator version 9.2"), 0);
	assert_int_equal(qemu_tcg_smc_race("unknown"), -1);
	assert_int_equal(qemu_tcg_smc_race("QEMU emulator version x.y"), -1);
	assert_int_equal(qemu_tcg_smc_race(NULL), -1);
}

/* The registry: qemu is the default, unknown names are refused with the
 * known ones named, and options are set by name through the table. */
/* paths in QEMU's comma-separated options: ',' doubled, control
 * characters refused (was: a comma in --reports or KBENCH_CACHE added
 * QEMU options) */
static void test_qemu_opt_escape(void **state)
{
	static const struct { const char *in, *want; int ok; } cases[] = {
		{ "/a/b", "/a/b", 0 },
		{ "", "", 0 },
		{ "/r,x/c", "/r,,x/c", 0 },
		{ "/r,,id=evil,x", "/r,,,,id=evil,,x", 0 },
		{ ",", ",,", 0 },
		{ "/with space/x", "/with space/x", 0 },
		{ "/new\nline", "/new\nline", -1 },
		{ "/tab\tx", "/tab\tx", -1 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *e = qemu_opt_escape(cases[i].in);
		assert_string_equal(e, cases[i].want);
		free(e);
		assert_int_equal(qemu_path_ok(cases[i].in), cases[i].ok);
	}
}

static void test_backend_registry(void **state)
{
	const struct backend_ops *q = backend_find(NULL);
	char names[256];
	void *p;
	json_object *j;
	(void)state;
	assert_non_null(q);
	assert_ptr_equal(q, backend_find("qemu"));
	assert_ptr_equal(backend_all()[0], q);
	assert_null(backend_find("nosuch"));
	assert_null(backend_lookup("nosuch"));
	backend_names(names, sizeof(names));
	assert_non_null(strstr(names, "qemu"));
	assert_true(q->caps & BK_CAP_SCRATCH_DISK);
	assert_true(q->caps & BK_CAP_HOSTROOT);
	p = backend_params_new(q);
	assert_int_equal(backend_param_set(q, p, "accel", "tcg"), 0);
	assert_int_equal(backend_param_set(q, p, "accel", "xen"), -1);
	assert_int_equal(backend_param_set(q, p, "nosuch", "1"), -1);
	assert_int_equal(backend_param_set(q, p, "tcg_scale", "0"), -1);
	j = backend_params_json(q, p);
	assert_string_equal(json_object_get_string(json_object_object_get(j, "accel")), "tcg");
	json_object_put(j);
	free(p);
}

static void write_text(const char *path, const char *text)
{
	assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
}

/* A failed boot's console and the backend's own log move together; a
 * move that fails is reported, not ignored (it was: rename's result). */
static void test_backend_logs_move(void **state)
{
	char dir[] = "/tmp/kbench-test-logs-XXXXXX", from[256], to[256], x[300];
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(from, sizeof(from), "%s/iter-1.log", dir);
	snprintf(to, sizeof(to), "%s/iter-1.boot-1.log", dir);
	write_text(from, "console\n");
	snprintf(x, sizeof(x), "%s.qemu", from);
	write_text(x, "qemu\n");
	assert_int_equal(backend_logs_move(&qemu_backend, from, to), 0);
	snprintf(x, sizeof(x), "%s.qemu", to);
	assert_true(path_exists(to) && path_exists(x) && !path_exists(from));
	/* the side log's target is a non-empty directory: rename fails */
	write_text(from, "console\n");
	snprintf(x, sizeof(x), "%s.qemu", from);
	write_text(x, "qemu\n");
	snprintf(to, sizeof(to), "%s/iter-1.boot-2.log", dir);
	snprintf(x, sizeof(x), "%s.qemu", to);
	assert_int_equal(mkdir(x, 0755), 0);
	snprintf(x, sizeof(x), "%s.qemu/keep", to);
	write_text(x, "x");
	assert_int_equal(backend_logs_move(&qemu_backend, from, to), -1);
	/* no console at all */
	assert_int_equal(backend_logs_move(&qemu_backend, from, to), -1);
	assert_int_equal(rm_rf(dir), 0);
}

static void mkfile(const char *dir, const char *name, const char *text, unsigned mode)
{
	char path[300];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	write_text(path, text);
	assert_int_equal(chmod(path, mode), 0);
}

/* The guest's /etc (kbuild's toolchain share) is a staged copy of the
 * loader's files, alternatives and openssl.cnf, world-readable ones only
 * (was: the host's whole /etc, shadow and ssh keys included). */
static void test_hostroot_stage_etc(void **state)
{
	char etc[] = "/tmp/kbench-test-etc-XXXXXX", out[300], p[400], link[64];
	struct strbuf sb = STRBUF_INIT;
	static const char *const dirs[] = { "ld.so.conf.d", "alternatives", "ssl", "ssl/private",
					    "ssh", NULL };
	static const char *const absent[] = { "shadow", "gshadow", "ssh/ssh_host_ed25519_key",
					      "ssh/sshd_config", "ssl/private", "sudoers",
					      "ld.so.conf.d/secret.conf", "hostname", NULL };
	static const struct { const char *name, *text; unsigned mode; } files[] = {
		{ "ld.so.cache", "cache", 0644 },
		{ "ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n", 0644 },
		{ "ld.so.conf.d/x86_64-linux-gnu.conf", "/usr/lib/x86_64-linux-gnu\n", 0644 },
		{ "ld.so.conf.d/secret.conf", "root only\n", 0600 },
		{ "ssl/openssl.cnf", "[openssl_init]\n", 0644 },
		{ "ssl/private/key.pem", "KEY", 0644 },
		{ "shadow", "root:$6$hash:::\n", 0640 },
		{ "gshadow", "root:*::\n", 0640 },
		{ "sudoers", "root ALL\n", 0440 },
		{ "hostname", "host\n", 0644 },
		{ "passwd", "root:x:0:0::/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/sh\n", 0644 },
		{ "ssh/ssh_host_ed25519_key", "KEY", 0600 },
		{ "ssh/sshd_config", "Port 22\n", 0644 },
	};
	(void)state;
	assert_non_null(mkdtemp(etc));
	for (int i = 0; dirs[i]; i++) {
		snprintf(p, sizeof(p), "%s/%s", etc, dirs[i]);
		assert_int_equal(mkdir(p, 0755), 0);
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		mkfile(etc, files[i].name, files[i].text, files[i].mode);
	snprintf(p, sizeof(p), "%s/alternatives/cc", etc);
	assert_int_equal(symlink("/usr/bin/gcc", p), 0);
	snprintf(out, sizeof(out), "%s.staged", etc);
	assert_int_equal(hostroot_stage_etc(etc, out), 0);
	snprintf(p, sizeof(p), "%s/ld.so.conf.d/x86_64-linux-gnu.conf", out);
	assert_int_equal(read_file(p, &sb, 4096), 0);
	assert_string_equal(sb.buf, "/usr/lib/x86_64-linux-gnu\n");
	sb_release(&sb);
	snprintf(p, sizeof(p), "%s/alternatives/cc", out);
	assert_int_equal(readlink(p, link, sizeof(link)), 12);
	assert_memory_equal(link, "/usr/bin/gcc", 12);
	for (const char *f = "ld.so.cache\0ld.so.conf\0ssl/openssl.cnf\0group\0"; *f; f += strlen(f) + 1) {
		snprintf(p, sizeof(p), "%s/%s", out, f);
		assert_true(path_exists(p));
	}
	for (int i = 0; absent[i]; i++) {
		snprintf(p, sizeof(p), "%s/%s", out, absent[i]);
		if (path_exists(p))
			fail_msg("staged /etc has %s", absent[i]);
	}
	/* passwd is written, not copied: no host user names */
	snprintf(p, sizeof(p), "%s/passwd", out);
	assert_int_equal(read_file(p, &sb, 4096), 0);
	assert_null(strstr(sb.buf, "alice"));
	assert_non_null(strstr(sb.buf, "root:x:0:0:"));
	sb_release(&sb);
	/* staging again starts from empty */
	assert_int_equal(hostroot_stage_etc(etc, out), 0);
	assert_int_equal(rm_rf(out), 0);
	assert_int_equal(rm_rf(etc), 0);
}

/* Is OPT one of QEMU's options kbench may give (VALUED: it takes a value)?
 * Any other (-net, -nic, -netdev, -virtfs, -hda, -cdrom, -usb, ...) would
 * give the guest more of the host than docs/security.md says. */
static int qemu_opt_known(const char *opt, int *valued)
{
	static const char *const flags[] = { "-nodefaults", "-no-user-config", "-no-reboot", NULL };
	static const char *const withval[] = { "-display", "-machine", "-accel", "-cpu", "-smp", "-m",
					       "-kernel", "-initrd", "-append", "-chardev", "-serial",
					       "-device", "-drive", "-fsdev", NULL };
	for (int i = 0; flags[i]; i++)
		if (!strcmp(opt, flags[i]))
			return *valued = 0, 1;
	for (int i = 0; withval[i]; i++)
		if (!strcmp(opt, withval[i]))
			return *valued = 1, 1;
	return 0;
}

/* What QEMU's arguments give the guest, checked as docs/security.md says
 * it: COUNTS (out) of -drive, -fsdev and -chardev values. */
static void qemu_args_check(const struct boot_params *p, const char *sock, int counts[3])
{
	struct strvec a = STRVEC_INIT;
	char want[600], etc[300];
	int nodefaults = 0, valued = 0;
	counts[0] = counts[1] = counts[2] = 0;
	qemu_args(&a, p, sock);
	hostroot_etc_dir(p->workdir, etc, sizeof(etc));
	for (size_t i = 0; i < a.n; i++) {
		const char *o = a.v[i], *v;
		if (!qemu_opt_known(o, &valued))
			fail_msg("QEMU is given '%s', an option the guest's view of the host "
				 "(docs/security.md) does not list", o);
		nodefaults |= !strcmp(o, "-nodefaults");
		if (!valued)
			continue;
		assert_true(i + 1 < a.n);
		v = a.v[++i];
		/* the cached kbuild image is never given to QEMU, only its layer */
		if (p->build_disk && strstr(v, p->build_disk))
			fail_msg("QEMU is given the cached kbuild image: '%s %s'", o, v);
		if (!strcmp(o, "-display")) {
			assert_string_equal(v, "none");
		} else if (!strcmp(o, "-kernel")) {
			assert_string_equal(v, p->kernel);
		} else if (!strcmp(o, "-initrd")) {
			assert_string_equal(v, p->initrd);
		} else if (!strcmp(o, "-serial")) {
			assert_string_equal(v, "chardev:con");
		} else if (!strcmp(o, "-chardev")) {
			counts[2]++;
			snprintf(want, sizeof(want), "file,id=con,path=%s", p->console_log);
			if (strcmp(v, want)) {
				snprintf(want, sizeof(want), "socket,id=agent,path=%s,server=on,wait=off", sock);
				assert_string_equal(v, want);
			}
		} else if (!strcmp(o, "-device")) {
			if (strncmp(v, "virtio-serial-pci,", 18) && strncmp(v, "virtserialport,", 15) &&
			    strncmp(v, "virtio-blk-pci,", 15) && strncmp(v, "virtio-9p-pci,", 14))
				fail_msg("QEMU is given device '%s'", v);
		} else if (!strcmp(o, "-drive")) {
			/* a disk of the boot's own work directory: the scratch
			 * disk (raw) or the kbuild disk's layer (qcow2) */
			counts[0]++;
			snprintf(want, sizeof(want), "file=%s/scratch.img,if=none,id=scratch,format=raw,",
				 p->workdir);
			if (strncmp(v, want, strlen(want))) {
				snprintf(want, sizeof(want), "file=%s/kbuild.qcow2,if=none,id=%s,format=qcow2,",
					 p->workdir, KB_KBUILD_SERIAL);
				if (strncmp(v, want, strlen(want)))
					fail_msg("QEMU is given a disk that is not the boot's own: '%s'", v);
			}
		} else if (!strcmp(o, "-fsdev")) {
			/* read-only, of the host's top directories or the staged /etc */
			const char *path = strstr(v, ",path="), *end;
			char dir[300];
			static const char *const tops[] = { "/usr", "/bin", "/sbin", "/lib", "/lib32",
							    "/lib64", "/libx32", NULL };
			int top = 0;
			counts[1]++;
			if (!strstr(v, ",readonly=on,") || !strstr(v, ",security_model=none,"))
				fail_msg("a share that is not read-only: '%s'", v);
			assert_non_null(path);
			path += 6;
			end = strchr(path, ',');
			assert_non_null(end);
			snprintf(dir, sizeof(dir), "%.*s", (int)(end - path), path);
			for (int t = 0; tops[t]; t++)
				top |= !strcmp(dir, tops[t]);
			if (!top && strcmp(dir, etc))
				fail_msg("QEMU shares '%s' (not /usr, /bin, /sbin, /lib* or the staged /etc)",
					 dir);
		}
	}
	assert_true(nodefaults); /* and with it QEMU adds no NIC, no disks, no monitor */
	strvec_clear(&a);
}

/* Everything a QEMU guest gets of the host (docs/security.md): its
 * kernel and initramfs, the console file, the agent's socket; a raw
 * scratch disk and the kbuild disk's copy-on-write layer, both in the
 * boot's work directory (the cached kbuild image itself is not given to
 * QEMU); with the toolchain share, the host's top directories that are
 * not links and the staged /etc (never /etc), each read-only; without
 * it, no share at all; -nodefaults (QEMU adds no NIC) and no network
 * option or device. */
/* The value QEMU's arguments for P give option OPT (once). */
static char *qemu_arg(const struct boot_params *p, const char *opt)
{
	struct strvec a = STRVEC_INIT;
	char *v = NULL;
	qemu_args(&a, p, "/c/tmp/run-42/agent.sock");
	for (size_t i = 0; i + 1 < a.n; i++)
		if (!strcmp(a.v[i], opt)) {
			assert_null(v);
			v = xstrdup(a.v[i + 1]);
		}
	strvec_clear(&a);
	assert_non_null(v);
	return v;
}

static void assert_qemu_arg(const struct boot_params *p, const char *opt, const char *want)
{
	char *v = qemu_arg(p, opt);
	assert_string_equal(v, want);
	free(v);
}

/* TCG's threading and CPU model (issue 33's boot oops study): multi and
 * max by default, what the backend's options or KBENCH_QEMU_TCG_THREAD and
 * KBENCH_QEMU_CPU say otherwise; KVM is always -cpu host. A bad value is
 * refused naming the variable and what it expects, and leaves the
 * parameters as they were. */
static void qemu_args_tcg(const struct boot_params *p0)
{
	const struct backend_ops *q = &qemu_backend;
	struct boot_params p = *p0;
	void *qp = backend_params_new(q);
	char err[512];
	static const char *const good[] = { "qemu64", "max,-la57", "qemu64,+ssse3",
					    "Skylake-Client-v4,pmu=off", "EPYC-Rome", "base,lm=on", NULL };
	static const char *const bad[] = { "max -device foo", "max,,x", "max,", ",max", "-max",
					   "max\n", "max,+a=b", "max,a=", "a;b", "max,-", "\033[2J",
					   NULL };
	char longv[200];

	/* defaults (no parameters: the backend's defaults) */
	p.bparams = NULL;
	assert_qemu_arg(&p, "-accel", "tcg,thread=multi");
	assert_qemu_arg(&p, "-cpu", "max");
	p.bparams = qp;
	assert_qemu_arg(&p, "-accel", "tcg,thread=multi");
	assert_qemu_arg(&p, "-cpu", "max");
	/* the options by name */
	assert_int_equal(backend_param_set(q, qp, "tcg_thread", "single"), 0);
	assert_int_equal(backend_param_set(q, qp, "tcg_cpu", "qemu64"), 0);
	assert_int_equal(backend_param_set(q, qp, "tcg_thread", "many"), -1);
	assert_qemu_arg(&p, "-accel", "tcg,thread=single");
	assert_qemu_arg(&p, "-cpu", "qemu64");
	assert_int_equal(backend_param_set(q, qp, "accel", "kvm"), 0);
	assert_qemu_arg(&p, "-accel", "kvm");
	assert_qemu_arg(&p, "-cpu", "host");
	free(qp);

	/* the environment */
	qp = backend_params_new(q);
	p.bparams = qp;
	unsetenv("KBENCH_QEMU_TCG_THREAD");
	unsetenv("KBENCH_QEMU_CPU");
	assert_int_equal(qemu_env_params(qp, err, sizeof(err)), 0);
	assert_qemu_arg(&p, "-accel", "tcg,thread=multi");
	assert_qemu_arg(&p, "-cpu", "max");
	setenv("KBENCH_QEMU_TCG_THREAD", "", 1);
	setenv("KBENCH_QEMU_CPU", "", 1);
	assert_int_equal(qemu_env_params(qp, err, sizeof(err)), 0);
	assert_qemu_arg(&p, "-cpu", "max");
	setenv("KBENCH_QEMU_TCG_THREAD", "single", 1);
	assert_int_equal(qemu_env_params(qp, err, sizeof(err)), 0);
	assert_qemu_arg(&p, "-accel", "tcg,thread=single");
	setenv("KBENCH_QEMU_TCG_THREAD", "multi", 1);
	assert_int_equal(qemu_env_params(qp, err, sizeof(err)), 0);
	assert_qemu_arg(&p, "-accel", "tcg,thread=multi");
	for (int i = 0; good[i]; i++) {
		setenv("KBENCH_QEMU_CPU", good[i], 1);
		assert_int_equal(qemu_env_params(qp, err, sizeof(err)), 0);
		assert_qemu_arg(&p, "-cpu", good[i]);
	}
	setenv("KBENCH_QEMU_CPU", "qemu64", 1);
	assert_int_equal(qemu_env_params(qp, err, sizeof(err)), 0);
	for (int i = 0; bad[i]; i++) {
		setenv("KBENCH_QEMU_CPU", bad[i], 1);
		err[0] = '\0';
		if (qemu_env_params(qp, err, sizeof(err)) != -1)
			fail_msg("KBENCH_QEMU_CPU='%s' taken", bad[i]);
		assert_non_null(strstr(err, "KBENCH_QEMU_CPU expects a QEMU CPU model"));
		assert_null(strchr(err, '\n'));
		assert_null(strchr(err, '\033'));
		assert_qemu_arg(&p, "-cpu", "qemu64"); /* unchanged */
	}
	/* 127 characters taken, 128 refused */
	memset(longv, 'a', 127);
	longv[127] = '\0';
	setenv("KBENCH_QEMU_CPU", longv, 1);
	assert_int_equal(qemu_env_params(qp, err, sizeof(err)), 0);
	longv[127] = 'a';
	longv[128] = '\0';
	setenv("KBENCH_QEMU_CPU", longv, 1);
	assert_int_equal(qemu_env_params(qp, err, sizeof(err)), -1);
	/* host needs KVM; help would print QEMU's list and boot nothing */
	setenv("KBENCH_QEMU_CPU", "host", 1);
	assert_int_equal(qemu_env_params(qp, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "KBENCH_QEMU_CPU"));
	assert_non_null(strstr(err, "host needs KVM"));
	setenv("KBENCH_QEMU_CPU", "help", 1);
	assert_int_equal(qemu_env_params(qp, err, sizeof(err)), -1);
	setenv("KBENCH_QEMU_CPU", "host,-la57", 1);
	assert_int_equal(qemu_env_params(qp, err, sizeof(err)), -1);
	setenv("KBENCH_QEMU_CPU", "hostile", 1); /* a model that only starts like host */
	assert_int_equal(qemu_env_params(qp, err, sizeof(err)), 0);
	unsetenv("KBENCH_QEMU_CPU");
	/* a bad threading value */
	setenv("KBENCH_QEMU_TCG_THREAD", "Multi", 1);
	assert_int_equal(qemu_env_params(qp, err, sizeof(err)), -1);
	assert_string_equal(err, "KBENCH_QEMU_TCG_THREAD expects multi or single (TCG's threading), "
				 "got 'Multi'");
	setenv("KBENCH_QEMU_TCG_THREAD", "single\033[0m", 1);
	assert_int_equal(qemu_env_params(qp, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "got 'single?[0m'"));
	assert_qemu_arg(&p, "-accel", "tcg,thread=multi");
	unsetenv("KBENCH_QEMU_TCG_THREAD");
	free(qp);
}

static void test_qemu_args(void **state)
{
	struct boot_params p = { .kernel = "/c/kernels/vmlinuz-6.12", .initrd = "/c/initramfs/i.cpio",
				 .cmdline = "quiet", .console_log = "/r/runs/x/console/iter-1.log",
				 .workdir = "/c/tmp/run-42", .vcpus = 2, .mem_mb = 2048 };
	struct host_entry e[HOSTROOT_MAX];
	int n = hostroot_layout(e, HOSTROOT_MAX), shared = 0, c[3];
	(void)state;
	for (int i = 0; i < n; i++)
		shared += !e[i].is_link;
	assert_true(shared >= 2); /* /usr and /etc at least */
	/* hackbench: no disk, no share */
	qemu_args_check(&p, "/c/tmp/run-42/agent.sock", c);
	assert_int_equal(c[0], 0);
	assert_int_equal(c[1], 0);
	assert_int_equal(c[2], 2);
	/* dbench and kbuild: the scratch disk, the layer, the shares */
	p.scratch_mb = 64;
	p.build_disk = "/c/kbuild/0123456789abcdef01234567/disk.img";
	p.hostroot = 1;
	qemu_args_check(&p, "/tmp/kbench-sock.AbC123/agent.sock", c);
	assert_int_equal(c[0], 2);
	assert_int_equal(c[1], shared);
	assert_int_equal(c[2], 2);
	qemu_args_tcg(&p);
}

/* Instructions timing (docs/timing.md): QEMU's instruction counter with
 * guest time jumping over idle periods, the RTC on guest time and the
 * vCPUs on one thread whatever tcg_thread says; wall timing has none of
 * it. --timing's spellings, and results.json's host.timing and
 * icount_shift as the validator takes them. */
static void test_qemu_timing(void **state)
{
	const struct backend_ops *q = &qemu_backend;
	struct boot_params p = { .kernel = "/k", .initrd = "/i", .console_log = "/c.log",
				 .workdir = "/w", .vcpus = 2, .mem_mb = 2048 };
	void *qp = backend_params_new(q);
	struct strvec a = STRVEC_INIT;
	char *text = fixture("../../fuzz/corpus/results/rt-stock-smoke"), err[256] = "";
	json_object *doc = json_tokener_parse(text), *host;
	enum timing t = TIMING_DEFAULT;
	int icount = 0;
	(void)state;
	p.bparams = qp;
	qemu_args(&a, &p, "/w/agent.sock");
	for (size_t i = 0; i < a.n; i++)
		icount += !strcmp(a.v[i], "-icount") || !strcmp(a.v[i], "-rtc");
	assert_int_equal(icount, 0);
	strvec_clear(&a);
	assert_int_equal(backend_param_set(q, qp, "tcg_thread", "multi"), 0);
	assert_int_equal(backend_param_set(q, qp, "timing", "instructions"), 0);
	assert_int_equal(backend_param_set(q, qp, "icount_shift", "5"), 0);
	assert_qemu_arg(&p, "-accel", "tcg,thread=single");
	assert_qemu_arg(&p, "-icount", "shift=5,sleep=off");
	assert_qemu_arg(&p, "-rtc", "clock=vm");
	assert_int_equal(backend_param_set(q, qp, "icount_shift", "11"), -1);
	assert_int_equal(backend_param_set(q, qp, "timing", "fast"), -1);
	/* KBENCH_QEMU_ICOUNT_SHIFT (the settings study: docs/timing.md) */
	setenv("KBENCH_QEMU_ICOUNT_SHIFT", "4", 1);
	assert_int_equal(qemu_env_params(qp, err, sizeof(err)), 0);
	assert_qemu_arg(&p, "-icount", "shift=4,sleep=off");
	setenv("KBENCH_QEMU_ICOUNT_SHIFT", "11", 1);
	assert_int_equal(qemu_env_params(qp, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "KBENCH_QEMU_ICOUNT_SHIFT"));
	setenv("KBENCH_QEMU_ICOUNT_SHIFT", "3x", 1);
	assert_int_equal(qemu_env_params(qp, err, sizeof(err)), -1);
	assert_qemu_arg(&p, "-icount", "shift=4,sleep=off");
	unsetenv("KBENCH_QEMU_ICOUNT_SHIFT");
	free(qp);
	assert_int_equal(timing_parse("instructions", &t), 0);
	assert_int_equal(t, TIMING_INSTRUCTIONS);
	assert_int_equal(timing_parse("icount", &t), 0);
	assert_int_equal(t, TIMING_INSTRUCTIONS);
	assert_int_equal(timing_parse("wall", &t), 0);
	assert_int_equal(t, TIMING_WALL);
	assert_int_equal(timing_parse("auto", &t), 0);
	assert_int_equal(t, TIMING_AUTO);
	assert_int_equal(timing_parse("Wall", &t), -1);
	assert_int_equal(t, TIMING_AUTO);
	/* results: absent is wall; instructions needs its shift */
	assert_non_null(doc);
	host = json_object_object_get(doc, "host");
	assert_string_equal(results_timing(doc), "wall");
	json_object_object_add(host, "timing", json_object_new_string("wall"));
	assert_int_equal(results_validate(doc, err, sizeof(err)), 0);
	json_object_object_add(host, "timing", json_object_new_string("instructions"));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "icount_shift"));
	json_object_object_add(host, "icount_shift", json_object_new_int(3));
	assert_int_equal(results_validate(doc, err, sizeof(err)), 0);
	assert_string_equal(results_timing(doc), "instructions");
	{
		char buf[48];
		assert_string_equal(results_accel_key(doc, buf, sizeof(buf)), "tcg+instructions");
	}
	json_object_object_add(host, "icount_shift", json_object_new_int(12));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	json_object_object_add(host, "timing", json_object_new_string("wall"));
	json_object_object_add(host, "icount_shift", json_object_new_int(3));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	json_object_object_del(host, "icount_shift");
	json_object_object_add(host, "timing", json_object_new_string("cycles"));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "timing"));
	json_object_put(doc);
	free(text);
}

/* The agent's socket: in the boot's work directory while the path fits a
 * UNIX socket (107 characters), else in a new private directory under
 * /tmp for each boot (mkdtemp: mode 700, not a predictable name), which
 * qemu_sock_remove removes with the socket. */
static void test_qemu_sock_path(void **state)
{
	char wd[] = "/tmp/kbench-test-sockwd-XXXXXX", longwd[200], sock[300], sock2[300], err[200];
	char dir[300];
	struct sockaddr_un sa;
	struct stat st;
	size_t room = sizeof(sa.sun_path) - 1 - strlen("/agent.sock"); /* 96 */
	(void)state;
	assert_non_null(mkdtemp(wd));
	assert_int_equal(qemu_sock_path(wd, sock, sizeof(sock), err, sizeof(err)), 0);
	snprintf(dir, sizeof(dir), "%s/agent.sock", wd);
	assert_string_equal(sock, dir);
	write_text(sock, "x");
	qemu_sock_remove(sock);
	assert_false(path_exists(sock));
	assert_true(path_exists(wd)); /* the work directory is not the socket's to remove */
	/* the longest work directory that still holds it, and one more */
	snprintf(longwd, sizeof(longwd), "/%0*d", (int)room - 1, 0);
	assert_int_equal(strlen(longwd), room);
	assert_int_equal(qemu_sock_path(longwd, sock, sizeof(sock), err, sizeof(err)), 0);
	assert_int_equal(strncmp(sock, longwd, room), 0);
	assert_int_equal(strlen(sock), sizeof(sa.sun_path) - 1);
	snprintf(longwd, sizeof(longwd), "/%0*d", (int)room, 0);
	assert_int_equal(qemu_sock_path(longwd, sock, sizeof(sock), err, sizeof(err)), 0);
	assert_int_equal(strncmp(sock, "/tmp/kbench-sock.", 17), 0);
	assert_true(strlen(sock) < sizeof(sa.sun_path));
	assert_string_equal(strrchr(sock, '/'), "/agent.sock");
	snprintf(dir, sizeof(dir), "%.*s", (int)(strrchr(sock, '/') - sock), sock);
	assert_int_equal(lstat(dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(st.st_uid, geteuid());
	/* another boot, another directory */
	assert_int_equal(qemu_sock_path(longwd, sock2, sizeof(sock2), err, sizeof(err)), 0);
	assert_string_not_equal(sock, sock2);
	write_text(sock, "x");
	qemu_sock_remove(sock);
	assert_false(path_exists(dir));
	qemu_sock_remove(sock2);
	snprintf(dir, sizeof(dir), "%.*s", (int)(strrchr(sock2, '/') - sock2), sock2);
	assert_false(path_exists(dir));
	assert_int_equal(rm_rf(wd), 0);
}

static int file_has(const char *path, off_t at, const void *bytes, size_t n)
{
	char buf[64];
	FILE *f = fopen(path, "rb");
	int same;
	assert_non_null(f);
	assert_true(n <= sizeof(buf));
	same = fseeko(f, at, SEEK_SET) == 0 && fread(buf, 1, n, f) == n && !memcmp(buf, bytes, n);
	fclose(f);
	return same;
}

/* The qcow2 image PATH's backing file name (its header, big-endian). */
static void qcow2_backing(const char *path, char *out, size_t n)
{
	unsigned char h[4096];
	unsigned long long off = 0;
	unsigned len;
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(h, 1, sizeof(h), f) >= 20, 1);
	fclose(f);
	assert_memory_equal(h, "QFI\xfb", 4);
	for (int i = 8; i < 16; i++)
		off = off << 8 | h[i];
	len = (unsigned)h[16] << 24 | (unsigned)h[17] << 16 | (unsigned)h[18] << 8 | h[19];
	assert_true(off > 0 && off + len <= sizeof(h) && len < n);
	snprintf(out, n, "%.*s", (int)len, (const char *)h + off);
}

/* What each boot's prepare makes for the guest and its cleanup removes
 * (docs/security.md), all in the boot's work directory: a scratch disk
 * made anew for every boot (a fresh ext4: what the last boot wrote is
 * gone), the kbuild disk's qcow2 layer over the cached image, which
 * stays byte for byte as it was, and the staged /etc. */
static void test_qemu_boot_files(void **state)
{
	char wd[] = "/tmp/kbench-test-boot-XXXXXX", img[300], f[300], err[300], back[300];
	char before[65], after[65];
	static const unsigned char ext4_magic[] = { 0x53, 0xef };
	struct boot_params p = { .scratch_mb = 8, .hostroot = 1 };
	struct stat st;
	struct timespec mtime;
	FILE *fp;
	(void)state;
	assert_non_null(mkdtemp(wd));
	p.workdir = wd;
	/* the cached kbuild image (a raw disk) */
	snprintf(img, sizeof(img), "%s.disk.img", wd);
	fp = fopen(img, "wb");
	assert_non_null(fp);
	for (int i = 0; i < 1024; i++)
		fprintf(fp, "%-1023d\n", i);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(sha256_file_hex(img, before), 0);
	assert_int_equal(stat(img, &st), 0);
	mtime = st.st_mtim;
	p.build_disk = img;
	assert_int_equal(qemu_backend.prepare(&p, err, sizeof(err)), 0);
	/* the scratch disk: a fresh ext4 of its size */
	snprintf(f, sizeof(f), "%s/scratch.img", wd);
	assert_int_equal(stat(f, &st), 0);
	assert_int_equal(st.st_size, 8 << 20);
	assert_true(file_has(f, 1024 + 56, ext4_magic, 2));
	/* the guest's writes land in its boot's disk only: the next boot's is
	 * made anew */
	fp = fopen(f, "r+b");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, 4 << 20, SEEK_SET), 0);
	assert_int_equal(fputs("written by boot 1", fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
	assert_true(file_has(f, 4 << 20, "written by boot 1", 17));
	/* the layer over the cached image */
	snprintf(f, sizeof(f), "%s/kbuild.qcow2", wd);
	qcow2_backing(f, back, sizeof(back));
	assert_string_equal(back, img);
	/* the staged /etc: passwd written by kbench */
	snprintf(f, sizeof(f), "%s/hostetc/passwd", wd);
	assert_true(path_exists(f));
	qemu_backend.cleanup(&p);
	for (const char *x = "scratch.img\0kbuild.qcow2\0hostetc\0"; *x; x += strlen(x) + 1) {
		snprintf(f, sizeof(f), "%s/%s", wd, x);
		if (path_exists(f))
			fail_msg("'%s' is left after the boot's cleanup", x);
	}
	/* the next boot: a new scratch disk, without the last boot's writes */
	assert_int_equal(qemu_backend.prepare(&p, err, sizeof(err)), 0);
	snprintf(f, sizeof(f), "%s/scratch.img", wd);
	assert_false(file_has(f, 4 << 20, "written by boot 1", 17));
	assert_true(file_has(f, 1024 + 56, ext4_magic, 2));
	/* made again over a boot that was not cleaned up (killed) too */
	fp = fopen(f, "r+b");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, 4 << 20, SEEK_SET), 0);
	assert_int_equal(fputs("written by boot 2", fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(qemu_backend.prepare(&p, err, sizeof(err)), 0);
	assert_false(file_has(f, 4 << 20, "written by boot 2", 17));
	qemu_backend.cleanup(&p);
	/* the cached image as it was, its time too */
	assert_int_equal(sha256_file_hex(img, after), 0);
	assert_string_equal(before, after);
	assert_int_equal(stat(img, &st), 0);
	assert_true(st.st_mtim.tv_sec == mtime.tv_sec && st.st_mtim.tv_nsec == mtime.tv_nsec);
	assert_int_equal(unlink(img), 0);
	assert_int_equal(rm_rf(wd), 0);
}

/* The initramfs file list: a walk or a write that fails is an error (the
 * results of nftw and fclose were ignored: a short list made an image
 * without the agent's files and a guest that never answered). */
static void test_image_file_list(void **state)
{
	char dir[] = "/tmp/kbench-test-stage-XXXXXX", list[300], f[300];
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(f, sizeof(f), "%s/init", dir);
	write_text(f, "x");
	snprintf(list, sizeof(list), "%s.list", dir);
	assert_int_equal(image_file_list(dir, list), 0);
	assert_int_equal(read_file(list, &sb, 4096), 0);
	assert_string_equal(sb.buf, "./init\n");
	sb_release(&sb);
	unlink(list);
	assert_int_equal(image_file_list("/nonexistent/kbench-stage", list), -1);
	unlink(list);
	if (access("/dev/full", W_OK) == 0)
		assert_int_equal(image_file_list(dir, "/dev/full"), -1);
	assert_int_equal(rm_rf(dir), 0);
}

/* host.backend is any backend name; older runs without it still load. */
static void test_results_backend(void **state)
{
	char *text = fixture("../../fuzz/corpus/results/rt-stock-smoke"), err[256] = "";
	json_object *doc = json_tokener_parse(text), *host;
	(void)state;
	assert_non_null(doc);
	host = json_object_object_get(doc, "host");
	assert_int_equal(results_validate(doc, err, sizeof(err)), 0);
	json_object_object_add(host, "backend", json_object_new_string("metal"));
	json_object_object_add(host, "backend_version", json_object_new_string("Linux 6.12"));
	assert_int_equal(results_validate(doc, err, sizeof(err)), 0);
	json_object_object_add(host, "backend", json_object_new_string("Bad Name"));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "backend"));
	json_object_object_add(host, "backend", json_object_new_string("qemu"));
	json_object_object_add(host, "backend_version", json_object_new_int(7));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	json_object_object_del(host, "backend");
	json_object_object_del(host, "backend_version");
	assert_int_equal(results_validate(doc, err, sizeof(err)), 0);
	/* host.target: a target's name */
	json_object_object_add(host, "target", json_object_new_string("lab-1.rack2"));
	assert_int_equal(results_validate(doc, err, sizeof(err)), 0);
	json_object_object_add(host, "target", json_object_new_string("lab 1;rm"));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "target"));
	json_object_object_add(host, "target", json_object_new_string(""));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	json_object_object_add(host, "target", json_object_new_int(1));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	json_object_object_del(host, "target");
	/* host.lab: a lab's name, as strict */
	json_object_object_add(host, "lab", json_object_new_string("lab.local"));
	assert_int_equal(results_validate(doc, err, sizeof(err)), 0);
	json_object_object_add(host, "lab", json_object_new_string("lab/../x"));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'lab' should be a lab's name"));
	json_object_object_del(host, "lab");
	/* host.guest_cpu and host.tcg_thread: what QEMU gave the guest */
	json_object_object_add(host, "guest_cpu", json_object_new_string("max,-la57"));
	json_object_object_add(host, "tcg_thread", json_object_new_string("single"));
	assert_int_equal(results_validate(doc, err, sizeof(err)), 0);
	json_object_object_add(host, "guest_cpu", json_object_new_string("max -device x"));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'guest_cpu' should be a QEMU CPU model"));
	json_object_object_add(host, "guest_cpu", json_object_new_string(""));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	json_object_object_add(host, "guest_cpu", json_object_new_int(64));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	json_object_object_add(host, "guest_cpu", json_object_new_string("qemu64"));
	json_object_object_add(host, "tcg_thread", json_object_new_string("both"));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'tcg_thread' should be multi or single"));
	json_object_object_add(host, "tcg_thread", json_object_new_boolean(1));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	json_object_object_add(host, "tcg_thread", json_object_new_string("multi"));
	assert_int_equal(results_validate(doc, err, sizeof(err)), 0);
	json_object_put(doc);
	free(text);
}

/* A backend in a few lines: the agent as an ordinary process speaking
 * over its stdio (its stdio transport), joined to guest.c by a socket
 * pair. Boots nothing, so the host side and the agent's protocol run
 * end to end without a VM. */
struct proc_guest {
	struct child agent;
};

static int proc_start(struct guest *g, const struct boot_params *p)
{
	struct proc_guest *q = calloc(1, sizeof(*q));
	(void)p;
	g->priv = q;
	q->agent = (struct child)CHILD_INIT;
	strvec_pushf(&q->agent.argv, "%s/build/kbench-agent", KB_SRCDIR);
	strvec_push(&q->agent.argv, "--transport=stdio");
	return guest_spawn_agent(g, &q->agent);
}

static int proc_alive(struct guest *g)
{
	struct proc_guest *q = g->priv;
	if (q->agent.pid > 0 && child_poll(&q->agent) == 0)
		return 1;
	snprintf(g->err, sizeof(g->err), "the agent process ended (status %d)", q->agent.status);
	return 0;
}

static int proc_stop(struct guest *g, double timeout_s)
{
	struct proc_guest *q = g->priv;
	double end = now_mono() + timeout_s;
	while (now_mono() < end)
		if (!proc_alive(g))
			return 0;
		else
			usleep(10000);
	child_kill(&q->agent, 0);
	return -1;
}

static void proc_release(struct guest *g)
{
	struct proc_guest *q = g->priv;
	child_release(&q->agent);
	free(q);
}

static const struct backend_ops proc_backend = {
	.name = "proc", .start = proc_start, .alive = proc_alive, .stop = proc_stop,
	.release = proc_release,
};

/* /dev/kmsg records (as this machine's kernel writes them, and a
 * WARNING with its dictionary line) become console lines the trouble
 * scan reads: the local backend's kernel log of the run. */
static void test_local_kmsg(void **state)
{
	static const char *const recs[] = {
		"4,2,0,-;[Firmware Bug]: TSC doesn't count with P0 frequency!\n",
		"4,812,5123456789,-;WARNING: CPU: 1 PID: 42 at kernel/locking/rtmutex.c:1234 "
		"rt_mutex_slowlock+0x1/0x2\n SUBSYSTEM=cpu\n DEVICE=+cpu:1\n",
	};
	struct strbuf sb = STRBUF_INIT;
	json_object *t;
	char kinds[64];
	(void)state;
	for (size_t i = 0; i < 2; i++)
		assert_int_equal(local_kmsg_line(recs[i], strlen(recs[i]), &sb), 0);
	assert_string_equal(sb.buf, "[    0.000000] [Firmware Bug]: TSC doesn't count with P0 "
			    "frequency!\n[ 5123.456789] WARNING: CPU: 1 PID: 42 at "
			    "kernel/locking/rtmutex.c:1234 rt_mutex_slowlock+0x1/0x2\n");
	t = trouble_scan(sb.buf, sb.len);
	assert_non_null(t);
	trouble_kinds(t, kinds, sizeof(kinds));
	assert_string_equal(kinds, "warning");
	json_object_put(t);
	assert_int_equal(local_kmsg_line("no record here", 14, &sb), -1);
	assert_int_equal(local_kmsg_line("6,1;", 4, &sb), -1);
	sb_release(&sb);
}

/* Boot the built agent on backend OPS (skipped when it is not built). */
static void agent_boot(struct guest *g, const struct backend_ops *ops)
{
	static char agent[1024];
	struct boot_params bp = { .boot_timeout_s = 20, .agent = agent };
	snprintf(agent, sizeof(agent), "%s/build/kbench-agent", KB_SRCDIR);
	if (!is_executable(agent))
		skip(); /* make all builds it */
	guest_init(g, ops);
	assert_int_equal(guest_boot(g, &bp), 0);
}

static void test_agent_stdio(void **state)
{
	struct guest g;
	json_object *req, *resp = NULL, *v;
	(void)state;
	agent_boot(&g, &proc_backend);
	assert_int_equal(json_object_get_int(json_object_object_get(g.hello, "proto")), 1);
	req = json_tokener_parse("{\"op\":\"exec\",\"argv\":[\"/bin/echo\",\"hi\"],\"timeout_s\":10}");
	assert_int_equal(guest_call(&g, req, 20, &resp), 0);
	assert_true(json_object_object_get_ex(resp, "stdout", &v));
	assert_string_equal(json_object_get_string(v), "hi\n");
	json_object_put(req);
	json_object_put(resp);
	/* poweroff ends an agent that is not PID 1 (no reboot) */
	assert_int_equal(guest_shutdown(&g, 10), 0);
	guest_release(&g);
}

/* The agent over TCP with --journal, as under LAVA: it connects to a
 * listener here, and prints its session as a results block on its
 * standard output (a file here, the job's console there) when it powers
 * off. The block must verify and hold exactly the session the host had. */
struct tcp_guest {
	struct child agent;
	char out[256];
	struct strbuf journal;
};

static int tcpj_start(struct guest *g, const struct boot_params *p)
{
	struct tcp_guest *q = calloc(1, sizeof(*q));
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	(void)p;
	g->priv = q;
	q->agent = (struct child)CHILD_INIT;
	q->journal = (struct strbuf)STRBUF_INIT;
	g->journal = &q->journal;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&sa, &sl))
		return -1;
	snprintf(q->out, sizeof(q->out), "/tmp/kbench-journal-test.%d", (int)getpid());
	strvec_pushf(&q->agent.argv, "%s/build/kbench-agent", KB_SRCDIR);
	strvec_pushf(&q->agent.argv, "--transport=tcp:127.0.0.1:%d", ntohs(sa.sin_port));
	strvec_push(&q->agent.argv, "--journal");
	q->agent.stdout_path = q->out;
	if (child_start(&q->agent))
		return -1;
	g->fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	close(lfd);
	return g->fd < 0 ? -1 : 0;
}

static int tcpj_alive(struct guest *g)
{
	struct tcp_guest *q = g->priv;
	return q->agent.pid > 0 && child_poll(&q->agent) == 0;
}

static int tcpj_stop(struct guest *g, double timeout_s)
{
	struct tcp_guest *q = g->priv;
	double end = now_mono() + timeout_s;
	while (now_mono() < end && tcpj_alive(g))
		usleep(10000);
	if (q->agent.pid > 0)
		child_kill(&q->agent, 0);
	return 0;
}

static struct strbuf journal_seen = STRBUF_INIT, journal_printed = STRBUF_INIT;

static void tcpj_release(struct guest *g)
{
	struct tcp_guest *q = g->priv;
	sb_reset(&journal_seen);
	sb_add(&journal_seen, q->journal.buf ? q->journal.buf : "", q->journal.len);
	sb_reset(&journal_printed);
	read_file(q->out, &journal_printed, 1 << 24);
	unlink(q->out);
	g->journal = NULL;
	sb_release(&q->journal);
	child_release(&q->agent);
	free(q);
}

static const struct backend_ops tcpj_backend = {
	.name = "tcpj", .start = tcpj_start, .alive = tcpj_alive, .stop = tcpj_stop,
	.release = tcpj_release,
};

static void test_agent_journal(void **state)
{
	struct guest g;
	struct strbuf pay = STRBUF_INIT;
	json_object *req, *resp = NULL;
	char err[256];
	(void)state;
	agent_boot(&g, &tcpj_backend);
	/* an output with newlines, quotes and bytes JSON escapes */
	req = json_tokener_parse("{\"op\":\"exec\",\"argv\":[\"/bin/sh\",\"-c\",\"seq 1 3000; "
				 "printf '\\\"x\\\\t\\\\001'\"],\"timeout_s\":10}");
	assert_int_equal(guest_call(&g, req, 20, &resp), 0);
	json_object_put(req);
	json_object_put(resp);
	assert_int_equal(guest_shutdown(&g, 10), 0);
	guest_release(&g);
	assert_non_null(strstr(journal_seen.buf, "> {\"op\":\"hello\"}\n< {\"op\":\"hello\""));
	assert_non_null(strstr(journal_seen.buf, "\\n2999\\n3000\\n"));
	assert_non_null(strstr(journal_seen.buf, "> {\"op\":\"poweroff\"}\n"));
	assert_int_equal(lava_block_extract(journal_printed.buf, journal_printed.len, &pay, err,
					    sizeof(err)), 1);
	assert_int_equal(pay.len, journal_seen.len);
	assert_memory_equal(pay.buf, journal_seen.buf, pay.len);
	/* a data line lost on the console: refused, not half-read */
	{
		char *l = strstr(journal_printed.buf, "KBENCH-DATA 3 ");
		assert_non_null(l);
		l[7] = 'X';
		assert_int_equal(lava_block_extract(journal_printed.buf, journal_printed.len, &pay,
						    err, sizeof(err)), -1);
	}
	sb_release(&pay);
	sb_release(&journal_seen);
	sb_release(&journal_printed);
}

/* The local backend end to end: the agent as a host process, its hello
 * with the machine's facts; its commands' output goes to a private
 * directory (a host's /tmp is shared: two agents wrote one /tmp/kb.out),
 * removed when it powers off. */
static void test_local_backend(void **state)
{
	char dir[256];
	struct guest g;
	json_object *req, *resp = NULL, *v;
	const char *out;
	(void)state;
	agent_boot(&g, &local_backend);
	assert_non_null(json_object_object_get(json_object_object_get(g.hello, "machine_facts"),
					       "threads"));
	req = json_tokener_parse("{\"op\":\"exec\",\"argv\":[\"/bin/readlink\",\"/proc/self/fd/1\"],"
				 "\"timeout_s\":10}");
	assert_int_equal(guest_call(&g, req, 20, &resp), 0);
	assert_true(json_object_object_get_ex(resp, "stdout", &v));
	out = json_object_get_string(v);
	assert_non_null(strstr(out, "/kb.out\n"));
	assert_int_equal(strncmp(out, "/tmp/kbench-agent.", 18), 0);
	snprintf(dir, sizeof(dir), "%.*s", (int)(strstr(out, "/kb.out") - out), out);
	assert_true(path_exists(dir));
	json_object_put(req);
	json_object_put(resp);
	assert_int_equal(guest_shutdown(&g, 10), 0);
	guest_release(&g);
	assert_false(path_exists(dir));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lock_stats_real),   cmocka_unit_test(test_lock_stats_bad),
		cmocka_unit_test(test_lock_stats_bounded), cmocka_unit_test(test_apt_show),
		cmocka_unit_test(test_trouble),           cmocka_unit_test(test_trouble_cause),
		cmocka_unit_test(test_qemu_opt_escape),
		cmocka_unit_test(test_hostroot_stage_etc), cmocka_unit_test(test_qemu_args),
		cmocka_unit_test(test_qemu_timing),
		cmocka_unit_test(test_qemu_sock_path),    cmocka_unit_test(test_qemu_boot_files),
		cmocka_unit_test(test_backend_registry),  cmocka_unit_test(test_backend_logs_move),
		cmocka_unit_test(test_image_file_list),   cmocka_unit_test(test_results_backend),
		cmocka_unit_test(test_agent_stdio),
		cmocka_unit_test(test_agent_journal),
		cmocka_unit_test(test_local_kmsg),
		cmocka_unit_test(test_local_backend),
		cmocka_unit_test(test_subject_real),
		cmocka_unit_test(test_subject_diffstat),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
