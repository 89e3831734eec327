/* test_repeat.c - repeats inside one boot (suite key `repeat`): the key
 * and its refusals (file and line), the median and within-boot summary of
 * a real run's repeats (tests/fixtures/results/repeat-tiny.json), the
 * validation of malformed repeats, and both spreads in a comparison. */
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

#include "core/config.h"
#include "core/jsonutil.h"
#include "run/results.h"
#include "stats/compare.h"
#include "report/report.h"

#define FIXTURE KB_SRCDIR "/tests/fixtures/results/repeat-tiny.json"

/* suite_load of TEXT (written to a temporary file); stderr into ERR. */
static int load_suite(const char *text, struct suite *s, char *err, size_t errlen)
{
	char path[] = "/tmp/test_repeat.XXXXXX", log[] = "/tmp/test_repeat_err.XXXXXX";
	int fd = mkstemp(path), lfd = mkstemp(log), saved = dup(2), ret;
	FILE *f;
	assert_true(fd >= 0 && lfd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	dup2(lfd, 2);
	ret = suite_load(path, 2, s);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	f = fdopen(lfd, "r");
	rewind(f);
	err[fread(err, 1, errlen - 1, f)] = '\0';
	fclose(f);
	unlink(log);
	unlink(path);
	return ret;
}

/* repeat = N: 1 by default, 1..100; bad values, and repeats of cyclictest
 * (a histogram per run) and kbuild (a second build is incremental), are
 * refused with the file's line and the reason. */
static void test_suite_key(void **state)
{
	static const struct { const char *text, *want; } bad[] = {
		{ "[suite]\nname = t\n[hackbench]\nrepeat = 0\n", "line 4: 'repeat' must be in 1..100, got 0" },
		{ "[suite]\nname = t\n[hackbench]\nrepeat = 101\n", "line 4: 'repeat' must be in 1..100" },
		{ "[suite]\nname = t\n[dbench]\nrepeat = five\n", "line 4: expected an integer for 'repeat'" },
		{ "[suite]\nname = t\n[hackbench]\n[cyclictest.load]\nload = hackbench\nrepeat = 3\n",
		  "line 6: [cyclictest.load]: repeat = 3 refused: its latency histogram" },
		{ "[suite]\nname = t\n[kbuild]\nrepeat = 2\n", "line 4: [kbuild]: repeat = 2 refused: a second build" },
		{ "[suite]\nname = t\n[hackbench]\nrepeats = 2\n", "line 4: unknown key 'repeats' in [hackbench] (known: groups" },
	};
	struct suite s;
	char err[2048];
	(void)state;
	assert_int_equal(load_suite("[suite]\nname = t\n[hackbench]\nrepeat = 5\n[dbench]\nclients = 2\n"
				    "[cyclictest]\nrepeat = 1\n", &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.w[0].repeat, 5);
	assert_int_equal(s.w[1].repeat, 1);
	assert_int_equal(s.w[2].repeat, 1);
	suite_release(&s);
	assert_int_equal(suite_load("power", 2, &s), 0);
	assert_int_equal(s.w[0].repeat, 5);
	assert_int_equal(s.w[1].repeat, 5);
	suite_release(&s);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(load_suite(bad[i].text, &s, err, sizeof(err)), -1);
		if (!strstr(err, bad[i].want) || !strstr(err, "/tmp/test_repeat."))
			fail_msg("case %zu: wanted '%s' in: %s", i, bad[i].want, err);
	}
}

static json_object *fixture(void)
{
	json_object *doc = results_load(FIXTURE);
	assert_non_null(doc);
	return doc;
}

/* Workload J of iteration I of DOC. */
static json_object *entry(json_object *doc, size_t i, size_t j)
{
	return json_object_array_get_idx(jget(json_object_array_get_idx(jget(doc, "iterations"), i),
					      "workloads"), j);
}

static double val(json_object *metrics, const char *name)
{
	return json_object_get_double(jget(jget(metrics, name), "value"));
}

/* The real run's entries rebuilt from their repeats' metrics give the
 * same medians and within-boot figures; times, raw names and lock
 * counters are summed; with an even count the median is the mean of the
 * middle two. */
static void test_summarize(void **state)
{
	json_object *doc = fixture();
	(void)state;
	for (size_t i = 0; i < 2; i++)
		for (size_t j = 0; j < 2; j++) {
			json_object *w = entry(doc, i, j), *rm = jget(w, "repeat_metrics");
			json_object *re = jget(w, "repeat_raw"), *nw = json_object_new_object();
			assert_int_equal(json_object_get_int(jget(w, "repeats")), 3);
			for (size_t r = 0; r < 3; r++) {
				json_object *rj = json_object_new_object(), *ls = json_object_new_object();
				jset(rj, "metrics", json_object_get(json_object_array_get_idx(rm, r)));
				jset(rj, "raw", json_object_get(json_object_array_get_idx(re, r)));
				jset_num(rj, "wall_s", 1.5);
				jset_i64(ls, "rtlock.sleeps", 10 * (int64_t)(r + 1));
				jset(rj, "lock_stats", ls);
				results_repeat_add(nw, rj);
				json_object_put(rj);
			}
			results_repeats_done(nw);
			assert_true(json_object_equal(jget(nw, "metrics"), jget(w, "metrics")));
			assert_true(json_object_equal(jget(nw, "within_boot"), jget(w, "within_boot")));
			assert_string_equal(jstr(nw, "status"), "ok");
			assert_string_equal(jstr(nw, "raw"), json_object_get_string(
				json_object_array_get_idx(re, 0)));
			assert_true(fabs(json_object_get_double(jget(nw, "wall_s")) - 4.5) < 1e-12);
			assert_int_equal(json_object_get_int64(jget(jget(nw, "lock_stats"), "rtlock.sleeps")), 60);
			assert_int_equal(json_object_get_int(jget(nw, "lock_stats_repeats")), 3);
			json_object_put(nw);
		}
	/* iteration 1's dbench throughputs by hand: 52.1714 51.8626 62.1681 */
	{
		json_object *w = entry(doc, 0, 1), *wb = jget(jget(w, "within_boot"), "throughput");
		assert_true(val(jget(w, "metrics"), "throughput") == 52.1714);
		assert_true(fabs(json_object_get_double(jget(wb, "mean")) - 55.4007) < 1e-9);
		assert_true(json_object_get_double(jget(wb, "min")) == 51.8626);
		assert_true(json_object_get_double(jget(wb, "max")) == 62.1681);
		/* sample sd 5.862773782946 / mean */
		assert_true(fabs(json_object_get_double(jget(wb, "cv")) - 5.862773782946 / 55.4007) < 1e-9);
	}
	{
		static const double v[4] = { 4, 1, 3, 2 };
		json_object *nw = json_object_new_object();
		for (int r = 0; r < 4; r++) {
			json_object *rj = json_object_new_object(), *m = json_object_new_object();
			json_object *t = json_object_new_object();
			jset_num(t, "value", v[r]);
			jset_str(t, "unit", "s");
			jset_str(t, "better", "lower");
			jset(m, "time", t);
			jset(rj, "metrics", m);
			results_repeat_add(nw, rj);
			json_object_put(rj);
		}
		results_repeats_done(nw);
		assert_true(val(jget(nw, "metrics"), "time") == 2.5);
		assert_null(jget(nw, "lock_stats"));
		assert_null(jget(nw, "lock_stats_repeats"));
		json_object_put(nw);
	}
	json_object_put(doc);
}

/* One way to break the fixture: PATH's last key set to V (NULL deletes). */
struct breakage {
	const char *what;
	size_t workload;
	const char *obj, *key; /* obj: NULL (the entry), or a key of it */
	const char *json;      /* the new value as JSON text; NULL: delete */
	const char *want;
};

static void test_validate(void **state)
{
	static const struct breakage cases[] = {
		{ "one repeat", 0, NULL, "repeats", "1", "'repeats' should be in 2..100, is 1" },
		{ "count", 1, NULL, "repeats", "4", "'repeat_metrics' has 3 entries, not 'repeats' (4)" },
		{ "no repeats", 0, NULL, "repeats", NULL, "missing 'repeats'" },
		{ "no within", 0, NULL, "within_boot", NULL, "missing 'within_boot'" },
		{ "within a list", 0, NULL, "within_boot", "[]", "'within_boot' should be a object" },
		{ "metric missing", 1, "within_boot", "throughput", NULL,
		  "within_boot 'throughput': missing" },
		{ "not a metric", 0, "within_boot", "speed",
		  "{\"n\": 3, \"mean\": 1, \"min\": 1, \"max\": 1, \"cv\": 0}",
		  "within_boot has 'speed', which is not a metric" },
		{ "n", 0, "within_boot", "time", "{\"n\": 4, \"mean\": 1, \"min\": 1, \"max\": 1, \"cv\": 0}",
		  "'n' should be in 1..3 (the repeats), is 4" },
		{ "cv", 0, "within_boot", "time", "{\"n\": 3, \"mean\": 1, \"min\": 1, \"max\": 1, \"cv\": -1}",
		  "'cv' should be a number >= 0 or null" },
		{ "min max", 0, "within_boot", "time", "{\"n\": 3, \"mean\": 1, \"min\": 2, \"max\": 1, \"cv\": 0}",
		  "'min' is above 'max'" },
		{ "no mean", 0, "within_boot", "time", "{\"n\": 3, \"min\": 1, \"max\": 1, \"cv\": 0}",
		  "within_boot 'time': missing 'mean'" },
		{ "repeat entry", 0, NULL, "repeat_metrics", "[{}, {}, 7]", "repeat 3: not an object" },
		{ "repeat metric", 1, NULL, "repeat_metrics",
		  "[{}, {}, {\"throughput\": {\"value\": 1, \"unit\": \"MB/s\", \"better\": \"up\"}}]",
		  "repeat 3 metric 'throughput': 'better' must be higher or lower" },
		{ "lock runs", 0, NULL, "lock_stats_repeats", "0", "'lock_stats_repeats' should be an integer in 1..3" },
	};
	(void)state;
	{
		json_object *doc = fixture();
		char err[512] = "";
		assert_int_equal(results_validate(doc, err, sizeof(err)), 0);
		json_object_put(doc);
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct breakage *b = &cases[i];
		json_object *doc = fixture(), *w = entry(doc, 1, b->workload);
		json_object *o = b->obj ? jget(w, b->obj) : w;
		char err[512] = "";
		if (b->json)
			jset(o, b->key, json_tokener_parse(b->json));
		else
			json_object_object_del(o, b->key);
		if (results_validate(doc, err, sizeof(err)) != -1 || !strstr(err, b->want) ||
		    !strstr(err, "iteration 2 workload"))
			fail_msg("%s: wanted '%s', got '%s'", b->what, b->want, err);
		json_object_put(doc);
	}
	{ /* the suite's own key */
		json_object *doc = fixture();
		char err[512] = "";
		jset_int(json_object_array_get_idx(jget(jget(doc, "suite"), "workloads"), 0), "repeat", 0);
		assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "suite workload 1: 'repeat' should be an integer in 1..100"));
		json_object_put(doc);
	}
}

static void add_input(struct cmp_inputs *in, json_object *doc, const char *group)
{
	in->v = xrealloc(in->v, (in->n + 1) * sizeof(*in->v));
	in->v[in->n].path = xstrdup(group);
	in->v[in->n].group = xstrdup(group);
	in->v[in->n].doc = doc;
	in->n++;
}

/* The fixture twice (A/A): the between-boot CV of the per-boot medians
 * and the within-boot CV (the mean of the two boots' CVs) per cell, in
 * comparison.json, the text and the report; lock counters summed over 3
 * repeats count as 3 runs; a run without repeats is another suite. */
static void test_compare_spreads(void **state)
{
	struct cmp_inputs in = { NULL, 0 };
	struct cmp_opts o;
	struct comparison c;
	struct strbuf sb = STRBUF_INIT;
	json_object *a = fixture(), *b = fixture(), *out, *cell;
	const struct cmp_metric *m;
	double cv0, cv1;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	(void)state;
	cmp_opts_init(&o);
	for (size_t i = 0; i < 2; i++) { /* rt-style counters in b: 30 over 3 repeats */
		json_object *ls = json_object_new_object();
		jset_i64(ls, "rtlock.sleeps", 30);
		jset(entry(b, i, 0), "lock_stats", ls);
		jset_int(entry(b, i, 0), "lock_stats_repeats", 3);
	}
	add_input(&in, a, "a");
	/* a sweep point's long name: the text tables print it whole */
	add_input(&in, b, "rt-adaptive@spin_max_loops=10000,lateral_steal=1");
	assert_int_equal(comparison_build(&c, &in, &o), 0);
	assert_true(cmp_has_within(&c));
	m = cmp_find(&c, "hackbench", "time");
	assert_non_null(m);
	cv0 = json_object_get_double(jget(jget(jget(entry(a, 0, 0), "within_boot"), "time"), "cv"));
	cv1 = json_object_get_double(jget(jget(jget(entry(a, 1, 0), "within_boot"), "time"), "cv"));
	assert_int_equal(m->cell[0].within_n, 2);
	assert_int_equal(m->cell[0].within_repeats, 3);
	assert_true(fabs(cmp_within_cv(&m->cell[0]) - (cv0 + cv1) / 2) < 1e-12);
	assert_int_equal(m->cell[0].n, 2); /* one value per boot: the median */
	assert_true(m->cell[0].v[0] == val(jget(entry(a, 0, 0), "metrics"), "time"));
	assert_int_equal(c.nlocks, 1);
	assert_int_equal(c.locks[0].n[1], 6);
	assert_true(c.locks[0].sum[1] / c.locks[0].n[1] == 10);
	out = comparison_to_json(&c);
	cell = jget(jget(json_object_array_get_idx(jget(out, "metrics"), 0), "variants"), "a");
	assert_true(fabs(json_object_get_double(jget(cell, "within_boot_cv")) - (cv0 + cv1) / 2) < 1e-9);
	assert_int_equal(json_object_get_int(jget(cell, "within_boot_n")), 2);
	assert_int_equal(json_object_get_int(jget(cell, "repeats")), 3);
	json_object_put(out);
	f = open_memstream(&text, &len);
	comparison_print(&c, f);
	fclose(f);
	assert_non_null(strstr(text, "spread (CV): between boots"));
	assert_non_null(strstr(text, "hackbench time              a "));
	assert_non_null(strstr(text, "\nhackbench time              "
				     "rt-adaptive@spin_max_loops=10000,lateral_steal=1 "));
	assert_non_null(strstr(text, " | rt-adaptive@spin_max_loops=10000,lateral_steal=1 change"));
	free(text);
	report_html(&c, &sb);
	assert_non_null(strstr(sb.buf, "<h2 id=\"spread\">Spread between and within boots</h2>"));
	assert_non_null(strstr(sb.buf, "(3 repeats, 2 boots)"));
	sb_release(&sb);
	comparison_release(&c);
	/* the same suite run once per boot is not comparable */
	json_object_object_del(json_object_array_get_idx(jget(jget(b, "suite"), "workloads"), 0),
			       "repeat");
	assert_int_equal(comparison_build(&c, &in, &o), -1);
	comparison_release(&c);
	cmp_inputs_release(&in);
	cmp_opts_release(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suite_key),
		cmocka_unit_test(test_summarize),
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_compare_spreads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
