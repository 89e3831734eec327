/* test_regress.c - `kbench regress`: its exit codes (0 nothing regressed,
 * 1 regressed, 2 harness error, 3 too noisy), the JUnit XML checked with
 * xmllint against tests/fixtures/junit/junit.xsd (the Ant/Jenkins format
 * CI systems read), and the Markdown summary. Runs on synthetic results
 * written to a temporary directory. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd_compare.h"
#include "stats/compare.h"
#include "stats/regress.h"
#include "run/results.h"
#include "core/spawn.h"
#include "synth.h"

#ifndef KB_SRCDIR
#error "KB_SRCDIR must name the source tree"
#endif

/* Quiet metrics: 2-5% CV, so verdicts do not hang on luck. */
static const struct synth_metric quiet[] = {
	{ "hackbench", "hackbench", "time", "s", "lower", 2.0, 0.02 },
	{ "dbench", "dbench", "throughput", "MB/s", "higher", 300, 0.02 },
	{ "cyclictest", "cyclictest", "lat_avg", "us", "lower", 12, 0.02 },
	{ "cyclictest", "cyclictest", "lat_max", "us", "lower", 100, 0.05 },
};
#define NQUIET (sizeof(quiet) / sizeof(quiet[0]))

static char dir[64];
static gsl_rng *rng;

static int setup(void **state)
{
	(void)state;
	if (synth_scratch(dir, sizeof(dir), "/tmp/kbench-test-regress.XXXXXX", &rng))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	synth_scratch_release(dir, rng);
	return 0;
}

/* Write a synthetic run NAME/results.json; returns its directory. */
static char *run(const char *name, struct synth_opts o, const struct synth_metric *m, size_t nm)
{
	char *d = xasprintf("%s/%s", dir, name), *p = xasprintf("%s/results.json", d);
	json_object *doc;
	if (!o.variant)
		o.variant = "rt-stock";
	o.run_id = name;
	doc = synth_doc(&o, m, nm, rng);
	mkdir_p(d, 0755);
	if (results_save(doc, p))
		fail_msg("cannot write %s", p);
	json_object_put(doc);
	free(p);
	return d;
}

/* kbench regress ARGS... (NULL-terminated) */
static int regress(const char *first, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;
	argv[argc++] = "regress";
	va_start(ap, first);
	for (const char *a = first; a && argc < 31; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	return cmd_regress(argc, argv);
}

/* xmllint --schema junit.xsd: 0 valid, 1 invalid, -1 no xmllint. */
static int xsd_valid(const char *xml)
{
	char *xsd = xasprintf("%s/tests/fixtures/junit/junit.xsd", KB_SRCDIR), *bin = which("xmllint");
	const char *argv[] = { "xmllint", "--noout", "--schema", xsd, xml, NULL };
	struct strbuf out = STRBUF_INIT;
	int rc = -1;
	if (bin) {
		rc = run_capture(argv, 60, &out) == 0 ? 0 : 1;
		if (rc)
			print_message("xmllint: %s\n", out.buf ? out.buf : "");
	}
	free(bin);
	free(xsd);
	sb_release(&out);
	return rc;
}

static char *slurp(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	if (read_file(path, &sb, 16u << 20))
		fail_msg("cannot read %s", path);
	return sb.buf ? sb.buf : xstrdup("");
}

static void check_junit(const char *xml)
{
	int v = xsd_valid(xml);
	if (v < 0)
		print_message("xmllint missing (apt-get install libxml2-utils): schema not checked\n");
	else
		assert_int_equal(v, 0);
}

static void test_ok(void **state)
{
	char *b = run("base", (struct synth_opts){ .iterations = 6 }, quiet, NQUIET);
	char *c = run("same", (struct synth_opts){ .iterations = 6 }, quiet, NQUIET);
	char *xml = xasprintf("%s/regress.xml", c), *md = xasprintf("%s/regress.md", c), *s;
	(void)state;
	/* the defaults: regress.xml and regress.md beside the current run */
	assert_int_equal(regress("--baseline", b, "--current", c, NULL), 0);
	check_junit(xml);
	s = slurp(xml);
	assert_non_null(strstr(s, "tests=\"4\" failures=\"0\" errors=\"0\""));
	assert_non_null(strstr(s, "classname=\"hackbench\" name=\"time\""));
	free(s);
	s = slurp(md);
	assert_non_null(strstr(s, "nothing regressed (exit 0)"));
	free(s);
	free(xml);
	free(md);
	free(b);
	free(c);
}

static void test_regressed(void **state)
{
	char *b = run("base1", (struct synth_opts){ .iterations = 5 }, quiet, NQUIET);
	char *c = run("slow", (struct synth_opts){ .iterations = 5, .scale = 1.15 }, quiet, NQUIET);
	char *xml = xasprintf("%s/out.xml", dir), *md = xasprintf("%s/out.md", dir), *s;
	(void)state;
	/* everything 15% up: time, latencies worse; throughput better */
	assert_int_equal(regress("--baseline", b, "--current", c, "--junit", xml, "--markdown", md,
				 NULL), 1);
	check_junit(xml);
	s = slurp(xml);
	assert_non_null(strstr(s, "<failure type=\"regression\" message=\"hackbench time regressed: "));
	assert_non_null(strstr(s, "95% CI +"));
	assert_non_null(strstr(s, " s -&gt; "));
	assert_null(strstr(s, "name=\"throughput\" time=\"0\">")); /* improved: passes */
	free(s);
	s = slurp(md);
	assert_non_null(strstr(s, "REGRESSION (exit 1)"));
	assert_non_null(strstr(s, "| **regressed** | hackbench time |"));
	assert_non_null(strstr(s, "beyond the 2% threshold"));
	free(s);
	/* a threshold above the change: not a regression any more */
	assert_int_equal(regress("--baseline", b, "--current", c, "--junit", xml, "--markdown", md,
				 "--threshold", "time=25%", "--threshold", "lat_avg=25%",
				 "--threshold", "cyclictest.lat_max=30%", NULL), 0);
	check_junit(xml);
	/* only the metrics asked for */
	assert_int_equal(regress("--baseline", b, "--current", c, "--junit", xml, "--markdown", md,
				 "--metrics", "dbench.throughput", NULL), 0);
	s = slurp(xml);
	assert_non_null(strstr(s, "tests=\"1\""));
	free(s);
	free(xml);
	free(md);
	free(b);
	free(c);
}

static void test_harness_errors(void **state)
{
	char *b = run("base2", (struct synth_opts){ .iterations = 4 }, quiet, NQUIET);
	char *f = run("failed", (struct synth_opts){ .iterations = 4, .fail_iteration = 2 }, quiet,
		      NQUIET);
	char *m = run("missing", (struct synth_opts){ .iterations = 4, .skip_metric = "lat_max" },
		      quiet, NQUIET);
	char *xml = xasprintf("%s/err.xml", dir), *md = xasprintf("%s/err.md", dir), *s;
	char *bad = xasprintf("%s/corrupt.json", dir);
	(void)state;
	/* a failed boot in the current run */
	assert_int_equal(regress("--baseline", b, "--current", f, "--junit", xml, "--markdown", md,
				 NULL), 2);
	check_junit(xml);
	s = slurp(xml);
	assert_non_null(strstr(s, "<error type=\"harness-error\""));
	assert_non_null(strstr(s, "Kernel panic")); /* the console excerpt */
	free(s);
	/* a metric the baseline has and the current run lacks */
	assert_int_equal(regress("--baseline", b, "--current", m, "--junit", xml, "--markdown", md,
				 NULL), 2);
	check_junit(xml);
	s = slurp(xml);
	assert_non_null(strstr(s, "lat_max: missing from the current run"));
	free(s);
	/* a corrupt file: exit 2, and the JUnit file still says so */
	write_file_atomic(bad, "{\"schema\": \"kbench-res", 21);
	unlink(xml);
	assert_int_equal(regress("--baseline", b, "--current", bad, "--junit", xml, "--markdown", md,
				 NULL), 2);
	check_junit(xml);
	s = slurp(xml);
	assert_non_null(strstr(s, "errors=\"1\""));
	free(s);
	/* bad usage */
	assert_int_equal(regress("--baseline", b, NULL), 2);
	assert_int_equal(regress("--baseline", b, "--current", m, "--threshold", "time", NULL), 2);
	free(bad);
	free(xml);
	free(md);
	free(b);
	free(f);
	free(m);
}

static void test_noisy(void **state)
{
	static struct synth_metric loud[NQUIET];
	char *b = run("base3", (struct synth_opts){ .iterations = 4 }, quiet, NQUIET);
	char *one = run("one", (struct synth_opts){ .iterations = 1 }, quiet, NQUIET);
	char *xml = xasprintf("%s/n.xml", dir), *md = xasprintf("%s/n.md", dir), *l, *s;
	(void)state;
	/* one iteration: no spread, nothing can be decided */
	assert_int_equal(regress("--baseline", b, "--current", one, "--junit", xml, "--markdown", md,
				 NULL), 3);
	check_junit(xml);
	s = slurp(xml);
	assert_non_null(strstr(s, "<skipped type=\"too-noisy\""));
	free(s);
	/* 40% CV: too noisy to call a small regression */
	memcpy(loud, quiet, sizeof(loud));
	for (size_t i = 0; i < NQUIET; i++)
		loud[i].cv = 0.4;
	l = run("loud", (struct synth_opts){ .iterations = 4 }, loud, NQUIET);
	assert_int_equal(regress("--baseline", b, "--current", l, "--junit", xml, "--markdown", md,
				 NULL), 3);
	check_junit(xml);
	s = slurp(md);
	assert_non_null(strstr(s, "too noisy to decide (exit 3)"));
	assert_non_null(strstr(s, "could detect"));
	free(s);
	free(xml);
	free(md);
	free(b);
	free(one);
	free(l);
}

/* A change's interval against the threshold, either way a metric goes. */
static void test_rules_out(void **state)
{
	struct cmp_metric time = { .better = -1, .min_effect = 1.0 };
	struct cmp_metric tput = { .better = 1, .min_effect = 0.2 };
	struct cmp_cell x = { .rel_lo = -0.581, .rel_hi = 0.094 };
	(void)state;
	assert_int_equal(regress_rules_out(&time, &x), 1);
	x.rel_hi = 1.2; /* the interval reaches a doubling */
	assert_int_equal(regress_rules_out(&time, &x), 0);
	x.rel_lo = -0.15; /* throughput: at worst 15% lower */
	assert_int_equal(regress_rules_out(&tput, &x), 1);
	x.rel_lo = -0.25;
	assert_int_equal(regress_rules_out(&tput, &x), 0);
	x.rel_lo = NAN; /* no interval: nothing ruled out */
	assert_int_equal(regress_rules_out(&time, &x), 0);
}

/* The schema itself rejects what CI would choke on (so the checks above
 * mean something). */
static void test_schema_rejects(void **state)
{
	char *x = xasprintf("%s/bad.xml", dir);
	static const char bad[] =
		"<?xml version=\"1.0\"?>\n<testsuites><testsuite name=\"x\" tests=\"1\" failures=\"0\" "
		"errors=\"0\" time=\"0\" timestamp=\"2026-01-01T00:00:00\" hostname=\"h\" package=\"p\" "
		"id=\"0\"><properties/><testcase name=\"t\" classname=\"c\" time=\"0\"><failure "
		"message=\"no type\"/></testcase><system-out/><system-err/></testsuite></testsuites>\n";
	(void)state;
	write_file_atomic(x, bad, strlen(bad));
	if (xsd_valid(x) >= 0)
		assert_int_equal(xsd_valid(x), 1);
	free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ok),
		cmocka_unit_test(test_regressed),
		cmocka_unit_test(test_harness_errors),
		cmocka_unit_test(test_noisy),
		cmocka_unit_test(test_rules_out),
		cmocka_unit_test(test_schema_rejects),
	};
	kb_quiet = 1;
	return cmocka_run_group_tests(tests, setup, teardown);
}
