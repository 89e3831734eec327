/* test_cli.c - the command-line layer: ids made and checked in one place
 * (core/ids.c), the shared run options (cli/runopts.c), campaign.json's
 * guest settings (accelerator by name, old numeric files still read),
 * and the defects where a write's failure went unnoticed: campaign.json
 * (--resume depends on it) and the night's JUnit, history record,
 * summary.md and nightly.json must make the command exit 2. Writes fail
 * through rename() and sqlite3_step() replaced here. Also kbench merge
 * refusing a nightly.json whose host name would write outside --out. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef KB_TEST_BEFORE /* the defect tests alone, built on the tree before the fixes */
#include "cli/cmd_compare.h"
#else
#include "cli/cmd_campaign.h"
#include "cli/runopts.h"
#include "core/ids.h"
#include "report/markdown.h"
#endif
#include "cli/cmd_nightly.h"
#include "core/jsonutil.h"
#include "run/results.h"
#include "core/spawn.h"
#include "synth.h"

#ifndef KB_SRCDIR
#error "KB_SRCDIR must name the source tree"
#endif

/* ---- failing writes ---- */

static const char *fail_suffix; /* rename onto a path ending so fails ... */
static int fail_skip;           /* ... after this many succeeded */
static int fail_night_end;      /* history_night_end's UPDATE fails */

int rename(const char *from, const char *to)
{
	size_t l = strlen(to), s = fail_suffix ? strlen(fail_suffix) : 0;
	if (fail_suffix && l >= s && !strcmp(to + l - s, fail_suffix) && fail_skip-- <= 0) {
		errno = EIO;
		return -1;
	}
	return renameat(AT_FDCWD, from, AT_FDCWD, to);
}

int sqlite3_step(sqlite3_stmt *st)
{
	static int (*real)(sqlite3_stmt *);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "sqlite3_step");
	const char *sql = fail_night_end ? sqlite3_sql(st) : NULL;
	if (sql && !strncmp(sql, "UPDATE nights SET finished", 26))
		return SQLITE_IOERR;
	return real(st);
}

static char dir[64];
static gsl_rng *rng;

static int setup(void **state)
{
	(void)state;
	return synth_scratch_home(dir, sizeof(dir), "/tmp/kbench-test-cli.XXXXXX", &rng);
}

static int teardown(void **state)
{
	(void)state;
	synth_scratch_release(dir, rng);
	return 0;
}

static void reset_failures(void)
{
	fail_suffix = NULL;
	fail_skip = 0;
	fail_night_end = 0;
}

/* A synthetic complete run at DIR/SUB/results.json. */
static void synth_run(const char *sub, const char *variant, const char *run_id, const char *host)
{
	char *d = xasprintf("%s/%s", dir, sub), *p = xasprintf("%s/results.json", d);
	struct synth_opts o = { .variant = variant, .run_id = run_id, .host = host, .iterations = 4 };
	json_object *doc = synth_doc(&o, synth_quick, SYNTH_QUICK_N, rng);
	mkdir_p(d, 0755);
	if (results_save(doc, p))
		fail_msg("cannot write %s", p);
	json_object_put(doc);
	free(p);
	free(d);
}

static int call(int (*fn)(int, char **), const char *first, ...)
{
	char *argv[40];
	int argc = 0;
	va_list ap;
	argv[argc++] = "kbench";
	va_start(ap, first);
	for (const char *a = first; a && argc < 39; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	return fn(argc, argv);
}

static char *path(const char *fmt, const char *a)
{
	char *rel = xasprintf(fmt, a), *p = xasprintf("%s/%s", dir, rel);
	free(rel);
	return p;
}

#ifndef KB_TEST_BEFORE
/* ---- ids, run options, campaign guest (the new interfaces) ---- */

static void test_ids(void **state)
{
	char id[KB_ID_MAX + 1], longid[KB_ID_MAX + 2];
	(void)state;
	id_make(id, sizeof(id), "rt-stock", "quick", NULL);
	assert_int_equal(strlen(id), 16 + strlen("-rt-stock-quick"));
	assert_int_equal(id[8], 'T');
	assert_int_equal(id[15], 'Z');
	assert_string_equal(id + 16, "-rt-stock-quick");
	assert_true(id_valid(id));
	id_make(id, sizeof(id), NULL);
	assert_int_equal(strlen(id), 16);
	assert_true(id_valid("n1"));
	assert_true(id_valid("r01-rt-stock_2.x"));
	assert_false(id_valid(""));
	assert_false(id_valid(NULL));
	assert_false(id_valid("."));
	assert_false(id_valid(".."));
	assert_false(id_valid(".hidden"));
	assert_false(id_valid("-rf"));
	assert_false(id_valid("../x"));
	assert_false(id_valid("a/b"));
	assert_false(id_valid("a b"));
	assert_false(id_valid("a\nb"));
	assert_false(id_valid("caf\xc3\xa9"));
	memset(longid, 'a', KB_ID_MAX);
	longid[KB_ID_MAX] = 0;
	assert_true(id_valid(longid));
	longid[KB_ID_MAX] = 'a';
	longid[KB_ID_MAX + 1] = 0;
	assert_false(id_valid(longid));
	assert_int_equal(id_check("--id", "ok"), 0);
	assert_int_equal(id_check("--id", "../x"), -1);
}

static void test_runopts(void **state)
{
	struct run_opts o;
	(void)state;
	memset(&o, 0, sizeof(o));
	assert_int_equal(runopts_parse(RO_BACKEND, "local", &o), 1);
	assert_string_equal(o.backend, "local");
	/* an unknown backend is refused when parsed, before anything runs */
	assert_int_equal(runopts_parse(RO_BACKEND, "fake", &o), -1);
	assert_int_equal(runopts_parse(RO_ACCEL, "tcg", &o), 1);
	assert_int_equal(o.accel, ACCEL_TCG);
	assert_int_equal(runopts_parse(RO_ACCEL, "warp", &o), -1);
	assert_int_equal(runopts_parse(RO_VCPUS, "0", &o), -1);
	assert_int_equal(runopts_parse(RO_BOOT_RETRIES, "0", &o), 1);
	assert_true(o.boot_retries_set);
	assert_int_equal(runopts_parse(RO_RUNID, "my-run", &o), 1);
	assert_int_equal(runopts_parse(RO_RUNID, "../../etc", &o), -1);
	assert_int_equal(runopts_parse(RO_END, "x", &o), 0);
}

static void test_campaign_guest(void **state)
{
	struct run_opts o = { .vcpus = 2, .mem_mb = 512, .accel = ACCEL_TCG, .backend = "fake" }, r;
	json_object *g = campaign_guest_json(&o), *old;
	(void)state;
	assert_string_equal(jstr(g, "accel"), "tcg");
	assert_string_equal(jstr(g, "backend"), "fake");
	assert_null(jget(g, "target"));
	memset(&r, 0, sizeof(r));
	assert_int_equal(campaign_guest_read(g, "c.json", &r), 0);
	assert_int_equal(r.accel, ACCEL_TCG);
	assert_int_equal(r.vcpus, 2);
	assert_string_equal(r.backend, "fake");
	assert_null(r.target);
	assert_int_equal(r.keep, 0);
	json_object_put(g);
	/* a campaign on a remote machine: --resume goes back to it */
	o.backend = "ssh";
	o.target = "lab1";
	o.keep = 1;
	o.scratch = "/srv/s";
	g = campaign_guest_json(&o);
	memset(&r, 0, sizeof(r));
	assert_int_equal(campaign_guest_read(g, "c.json", &r), 0);
	assert_string_equal(r.target, "lab1");
	assert_int_equal(r.keep, 1);
	assert_string_equal(r.scratch, "/srv/s");
	json_object_put(g);
	/* written before accel was a name: its enum number, still read */
	old = json_tokener_parse("{\"vcpus\": 1, \"mem_mb\": 0, \"boot_timeout_s\": 0, \"accel\": 1}");
	memset(&r, 0, sizeof(r));
	assert_int_equal(campaign_guest_read(old, "c.json", &r), 0);
	assert_int_equal(r.accel, ACCEL_KVM);
	assert_null(r.backend);
	json_object_object_add(old, "accel", json_object_new_int(7));
	assert_int_equal(campaign_guest_read(old, "c.json", &r), -1);
	json_object_object_add(old, "accel", json_object_new_string("warp"));
	assert_int_equal(campaign_guest_read(old, "c.json", &r), -1);
	json_object_put(old);
}

/* Untrusted names (a host, a variant from a stored run) in Markdown. */
static void test_markdown(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	md_code(&sb, "h|o`s<t>&\n\x01x");
	assert_string_equal(sb.buf, "`h\\|o s&lt;t&gt;&amp; x`");
	sb_release(&sb);
}
#endif

/* ---- campaign ---- */

/* A new campaign stores the accelerator by name (a run that cannot start
 * stops it after campaign.json is written: no guest boots here). */
static void test_campaign_accel_name(void **state)
{
	char *cj = path("c/compare/%s/campaign.json", "acc"), *reports = path("%s", "c");
	json_object *doc, *g;
	(void)state;
	reset_failures();
	setenv("KBENCH_AGENT", "/nonexistent/kbench-agent", 1);
	assert_int_equal(call(cmd_campaign, "--kernels", "rt-stock", "--suite", "smoke", "--accel", "tcg",
			      "--iterations", "1", "--seed", "3", "--id", "acc", "--reports", reports,
			      NULL), KB_EXIT_USAGE);
	unsetenv("KBENCH_AGENT");
	doc = json_object_from_file(cj);
	assert_non_null(doc);
	g = jget(doc, "guest");
	assert_true(json_object_is_type(jget(g, "accel"), json_type_string));
	assert_string_equal(jstr(g, "accel"), "tcg");
	json_object_put(doc);
	free(cj);
	free(reports);
}

/* A campaign whose runs are all done, as --resume finds it. */
static char *done_campaign(const char *name, json_object *accel)
{
	char *cdir = path("%s", name), *cj = xasprintf("%s/campaign.json", cdir);
	char *suite = xasprintf("%s/configs/suites/quick.ini", KB_SRCDIR), *sub;
	json_object *c = json_object_new_object(), *g = json_object_new_object(), *vs = json_object_new_array();
	const char *variants[] = { "rt-stock", "mainline-stock" };
	json_object_object_add(c, "schema", json_object_new_string("kbench-campaign"));
	json_object_object_add(c, "schema_version", json_object_new_int(1));
	json_object_object_add(c, "id", json_object_new_string(name));
	json_object_object_add(c, "suite", json_object_new_string("quick"));
	json_object_object_add(c, "suite_path", json_object_new_string(suite));
	json_object_object_add(g, "accel", accel);
	json_object_object_add(c, "guest", g);
	json_object_object_add(c, "iterations", json_object_new_int(1));
	json_object_object_add(c, "warmup_rounds", json_object_new_int(0));
	json_object_object_add(c, "seed", json_object_new_int(5));
	for (int i = 0; i < 2; i++) {
		json_object_array_add(vs, json_object_new_string(variants[i]));
		sub = xasprintf("%s/runs/r01-%s", name, variants[i]);
		synth_run(sub, variants[i], sub + strlen(name) + 6, "testhost");
		free(sub);
	}
	json_object_object_add(c, "variants", vs);
	json_object_object_add(c, "order", json_object_new_array());
	json_object_object_add(c, "runs", json_object_new_array());
	if (results_save(c, cj))
		fail_msg("cannot write %s", cj);
	json_object_put(c);
	free(cj);
	free(suite);
	return cdir;
}

static void test_campaign_resume_old_accel(void **state)
{
	char *ok = done_campaign("old-accel", json_object_new_int(2));
	char *bad = done_campaign("bad-accel", json_object_new_int(7));
	(void)state;
	reset_failures();
	assert_int_equal(call(cmd_campaign, "--resume", ok, NULL), KB_EXIT_OK);
	assert_int_equal(call(cmd_campaign, "--resume", bad, NULL), KB_EXIT_USAGE);
	free(ok);
	free(bad);
}

/* campaign.json that cannot be saved after a run: exit 2 (was 0). */
static void test_campaign_save_fails(void **state)
{
	char *cdir = done_campaign("save-fails", json_object_new_string("tcg"));
	(void)state;
	reset_failures();
	fail_suffix = "/campaign.json";
	fail_skip = 1; /* the resumed campaign's first save works */
	assert_int_equal(call(cmd_campaign, "--resume", cdir, NULL), KB_EXIT_USAGE);
	reset_failures();
	free(cdir);
}

/* ---- nightly ---- */

/* kbench nightly --runs on synthetic runs, in a history and reports of
 * its own (so it is always a first night): its exit status. */
static int night(const char *name)
{
	char *ini = path("%s.ini", name), *hist = path("%s.sqlite", name), *reports = path("r-%s", name);
	char *runs = path("in-%s", name), *sub;
	static const char cfg[] = "[nightly]\nsuite = quick\nrefresh = no\nvariants = mainline rt\n";
	int rc;
	write_file_atomic(ini, cfg, strlen(cfg));
	sub = xasprintf("in-%s/ml", name);
	synth_run(sub, "mainline", "ml", "testhost");
	free(sub);
	sub = xasprintf("in-%s/rt", name);
	synth_run(sub, "rt", "rt", "testhost");
	free(sub);
	rc = call(cmd_nightly, "--config", ini, "--history", hist, "--reports", reports, "--night", "n1",
		  "--runs", runs, NULL);
	free(ini);
	free(hist);
	free(reports);
	free(runs);
	return rc;
}

static void test_nightly_writes(void **state)
{
	static const char *const files[] = { "/summary.md", "/nightly.json", "/junit/rt-verdicts.xml" };
	(void)state;
	reset_failures();
	assert_int_equal(night("good"), KB_EXIT_OK);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char name[32];
		snprintf(name, sizeof(name), "fail%zu", i);
		fail_suffix = files[i];
		print_message("%s cannot be written\n", files[i]);
		assert_int_equal(night(name), KB_EXIT_USAGE);
		reset_failures();
	}
	fail_night_end = 1;
	print_message("history_night_end fails\n");
	assert_int_equal(night("nightend"), KB_EXIT_USAGE);
	reset_failures();
}

/* ---- merge ---- */

/* A nightly.json from another machine naming a host "../../..": its JUnit
 * files would be copied outside --out. Refused, nothing written there. */
static void test_merge_untrusted_night(void **state)
{
	char *nd = path("%s", "evil"), *out = path("%s", "m"), *outside = path("%s", "..-n1-x.xml");
	char *nj = xasprintf("%s/nightly.json", nd), *jd = xasprintf("%s/junit", nd);
	char *jx = xasprintf("%s/x.xml", jd);
	static const char doc[] = "{ \"night\": \"n1\", \"hostname\": \"../../..\", \"exit\": 0 }";
	(void)state;
	reset_failures();
	synth_run("evil/runs/r1", "rt-stock", "r1", "testhost");
	mkdir_p(jd, 0755);
	write_file_atomic(nj, doc, strlen(doc));
	write_file_atomic(jx, "<x/>", 4);
	assert_int_equal(call(cmd_merge, nd, "--out", out, NULL), KB_EXIT_USAGE);
	assert_false(path_exists(outside));
	free(nd);
	free(out);
	free(outside);
	free(nj);
	free(jd);
	free(jx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#ifndef KB_TEST_BEFORE
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_runopts),
		cmocka_unit_test(test_campaign_guest),
		cmocka_unit_test(test_markdown),
		cmocka_unit_test(test_campaign_resume_old_accel),
#endif
		cmocka_unit_test(test_campaign_accel_name),
		cmocka_unit_test(test_campaign_save_fails),
		cmocka_unit_test(test_nightly_writes),
		cmocka_unit_test(test_merge_untrusted_night),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
