/* test_changepoint.c - E-divisive means (harness/history/changepoint.c) on
 * synthetic series, and on a seeded history database (harness/history/history.c):
 * a step change is found at the night it was injected, a flat noisy
 * series gives none; plus the history's schema rules (migration from
 * version 1, a newer schema or a foreign database refused, duplicates). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "history/changepoint.h"
#include "history/history.h"
#include "synth.h"

/* Gaussian noise of relative size CV around MEAN, STEP added from AT on. */
static void series(double *x, size_t n, double mean, double cv, size_t at, double step,
		   uint32_t seed)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, seed);
	for (size_t i = 0; i < n; i++)
		x[i] = (mean + (i >= at ? step : 0)) * (1 + gsl_ran_gaussian(r, cv));
	gsl_rng_free(r);
}

/* The O(L^2) prefix-sum search agrees with the direct definition. */
static void test_q_matches_definition(void **state)
{
	double x[12];
	struct cp_opts o;
	struct cp_result r;
	(void)state;
	series(x, 12, 10, 0.02, 6, 3, 1);
	/* a direct evaluation: the true split has the largest Q */
	for (size_t t = 3; t <= 9; t++)
		if (t != 6)
			assert_true(changepoint_q(x, 12, 6) > changepoint_q(x, 12, t));
	/* a hand-checked value: 0 0 | 1 1 -> m = k = 2, between 4, within 0,
	 * e = 2*4/4 = 2, Q = 2*2/4 * 2 = 2 */
	{
		double y[] = { 0, 0, 1, 1 };
		assert_float_equal(changepoint_q(y, 4, 2), 2.0, 1e-12);
	}
	cp_opts_init(&o);
	changepoint_edivisive(x, 12, &o, &r);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.v[0].index, 6);
	assert_float_equal(r.v[0].q, changepoint_q(x, 12, 6), 1e-9);
	cp_result_release(&r);
}

/* A 10% step in 3% noise at night 23 of 40: found there, once. */
static void test_step_found(void **state)
{
	double x[40];
	struct cp_opts o;
	struct cp_result r;
	int exact = 0;
	(void)state;
	cp_opts_init(&o);
	series(x, 40, 100, 0.03, 23, 10, 7);
	changepoint_edivisive(x, 40, &o, &r);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.v[0].index, 23);
	assert_true(r.v[0].p <= o.alpha);
	assert_true(r.v[0].after > r.v[0].before * 1.05);
	cp_result_release(&r);
	/* 20 other noise draws (the step is 3.3 noise SDs): always a change
	 * point within 2 nights of the step, most often exactly there (14 of
	 * 20 when this was written) */
	for (uint32_t s = 100; s < 120; s++) {
		int near = 0;
		series(x, 40, 100, 0.03, 23, 10, s);
		changepoint_edivisive(x, 40, &o, &r);
		for (size_t i = 0; i < r.n; i++) {
			exact += r.v[i].index == 23;
			near |= r.v[i].index >= 21 && r.v[i].index <= 25;
		}
		assert_true(near);
		cp_result_release(&r);
	}
	print_message("step found at the exact night: %d of 20\n", exact);
	assert_true(exact >= 12);
}

/* Two steps (a regression, fixed 20 nights later): both found. A short
 * bump is the hard case for a split that runs to the segment's end: with
 * 15-night segments the first split's p is 0.014 here, above alpha. */
static void test_two_steps(void **state)
{
	double x[60];
	struct cp_opts o;
	struct cp_result r;
	(void)state;
	cp_opts_init(&o);
	series(x, 60, 50, 0.02, 20, 6, 3);
	for (size_t i = 40; i < 60; i++)
		x[i] -= 6;
	changepoint_edivisive(x, 60, &o, &r);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.v[0].index, 20);
	assert_int_equal(r.v[1].index, 40);
	cp_result_release(&r);
}

/* Flat noise: nothing, and the answer does not depend on luck. */
static void test_flat_none(void **state)
{
	double x[40];
	struct cp_opts o;
	struct cp_result r, r2;
	int false_pos = 0;
	(void)state;
	cp_opts_init(&o);
	series(x, 40, 100, 0.05, 40, 0, 11);
	changepoint_edivisive(x, 40, &o, &r);
	assert_int_equal(r.n, 0);
	cp_result_release(&r);
	/* 50 flat series at alpha 0.01: about 0.5 false alarms expected */
	for (uint32_t s = 200; s < 250; s++) {
		series(x, 40, 100, 0.05, 40, 0, s);
		changepoint_edivisive(x, 40, &o, &r);
		false_pos += r.n > 0;
		/* seeded: the same series and seed give the same answer */
		changepoint_edivisive(x, 40, &o, &r2);
		assert_int_equal(r.n, r2.n);
		cp_result_release(&r);
		cp_result_release(&r2);
	}
	print_message("flat series with a change point: %d of 50\n", false_pos);
	assert_true(false_pos <= 3);
	/* too short to split */
	changepoint_edivisive(x, 5, &o, &r);
	assert_int_equal(r.n, 0);
	cp_result_release(&r);
}

/* ---- the same through a history database ---- */

#include "tmpdb.h"

static const struct synth_metric m[] = {
	{ "hackbench", "hackbench", "time", "s", "lower", 2.0, 0.03 },
	{ "dbench", "dbench", "throughput", "MB/s", "higher", 300, 0.03 },
};

/* NIGHTS nights of 3 iterations; hackbench slower by 15% from night STEP. */
static void seed_history(struct history *h, int nights, int step)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 42);
	for (int i = 0; i < nights; i++) {
		char night[32], run[64];
		struct synth_opts o = { .variant = "rt", .iterations = 3, .suite = "smoke" };
		struct synth_metric mm[2] = { m[0], m[1] };
		json_object *doc;
		char hid[17];
		snprintf(night, sizeof(night), "n%02d", i);
		snprintf(run, sizeof(run), "run-%02d", i);
		o.run_id = run;
		if (step >= 0 && i >= step)
			mm[0].mean *= 1.15;
		doc = synth_doc(&o, mm, 2, r);
		history_host_id(doc, hid);
		assert_int_equal(history_night_begin(h, night, hid, "smoke", "test.ini"), 0);
		assert_int_equal(history_record(h, doc, NULL, night), 0);
		assert_int_equal(history_night_end(h, night, 0, NULL), 0);
		/* recording a run twice is a no-op */
		assert_int_equal(history_record(h, doc, NULL, night), 1);
		json_object_put(doc);
	}
	gsl_rng_free(r);
}

static void detect(struct history *h, const char *metric, const char *label, struct cp_result *r,
		   struct history_series *s)
{
	struct synth_opts o = { .variant = "rt", .iterations = 0 };
	json_object *doc = synth_doc(&o, m, 1, NULL);
	char hid[17];
	double *x;
	struct cp_opts co;
	history_host_id(doc, hid);
	json_object_put(doc);
	assert_int_equal(history_series(h, hid, "smoke", "kvm", "rt", label, metric, NULL, 0, s), 0);
	x = calloc(s->n, sizeof(double));
	for (size_t i = 0; i < s->n; i++)
		x[i] = s->p[i].center;
	cp_opts_init(&co);
	changepoint_edivisive(x, s->n, &co, r);
	free(x);
}

static void test_history_step(void **state)
{
	struct history h;
	struct history_series s;
	struct cp_result r;
	(void)state;
	unlink(db);
	assert_int_equal(history_open(&h, db, 1), 0);
	seed_history(&h, 30, 18);
	detect(&h, "time", "hackbench", &r, &s);
	assert_int_equal(s.n, 30);
	assert_int_equal(s.p[0].n, 3);
	assert_true(s.p[0].lo < s.p[0].center && s.p[0].center < s.p[0].hi);
	assert_int_equal(r.n, 1);
	assert_string_equal(s.p[r.v[0].index].night, "n18");
	assert_string_equal(s.p[r.v[0].index].run_id, "run-18");
	cp_result_release(&r);
	history_series_release(&s);
	/* the untouched metric of the same nights is flat */
	detect(&h, "throughput", "dbench", &r, &s);
	assert_int_equal(s.n, 30);
	assert_int_equal(r.n, 0);
	cp_result_release(&r);
	history_series_release(&s);
	assert_int_equal(history_check(&h, stderr), 0);
	history_close(&h);
}

static void test_history_flat(void **state)
{
	struct history h;
	struct history_series s;
	struct cp_result r;
	(void)state;
	unlink(db);
	assert_int_equal(history_open(&h, db, 1), 0);
	seed_history(&h, 30, -1);
	detect(&h, "time", "hackbench", &r, &s);
	assert_int_equal(s.n, 30);
	assert_int_equal(r.n, 0);
	cp_result_release(&r);
	history_series_release(&s);
	history_close(&h);
}

/* A version 1 database is migrated, keeping its rows; a newer one and a
 * database that is not kbench's are refused. */
static void test_history_schema(void **state)
{
	struct history h;
	sqlite3 *raw;
	char other[160];
	(void)state;
	unlink(db);
	assert_int_equal(sqlite3_open(db, &h.db), SQLITE_OK);
	snprintf(h.path, sizeof(h.path), "%s", db);
	assert_int_equal(history_migrate(&h, 1), 0);
	assert_int_equal(sqlite3_exec(h.db, "INSERT INTO runs (run_id, host_id, started, variant, suite, "
				      "recorded) VALUES ('old', 'h', '2025', 'rt', 'quick', 'x')",
				      NULL, NULL, NULL), SQLITE_OK);
	history_close(&h);
	assert_int_equal(history_open(&h, db, 0), 0);
	{
		sqlite3_stmt *st;
		assert_int_equal(sqlite3_prepare_v2(h.db, "SELECT run_id, night FROM runs", -1, &st, NULL),
				 SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_string_equal((const char *)sqlite3_column_text(st, 0), "old");
		assert_int_equal(sqlite3_column_type(st, 1), SQLITE_NULL);
		sqlite3_finalize(st);
	}
	assert_int_equal(history_night_exists(&h, "none"), 0);
	history_close(&h);
	/* from the future */
	assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
	assert_int_equal(sqlite3_exec(raw, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(raw);
	assert_int_equal(history_open(&h, db, 0), -1);
	assert_null(h.db);
	/* someone else's database */
	snprintf(other, sizeof(other), "%s/other.sqlite", dir);
	assert_int_equal(sqlite3_open(other, &raw), SQLITE_OK);
	assert_int_equal(sqlite3_exec(raw, "CREATE TABLE t (x)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(raw);
	assert_int_equal(history_open(&h, other, 0), -1);
	/* absent and not to be created */
	snprintf(other, sizeof(other), "%s/absent.sqlite", dir);
	assert_int_equal(history_open(&h, other, 0), -1);
	assert_false(path_exists(other));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_q_matches_definition),
		cmocka_unit_test(test_step_found),
		cmocka_unit_test(test_two_steps),
		cmocka_unit_test(test_flat_none),
		cmocka_unit_test(test_history_step),
		cmocka_unit_test(test_history_flat),
		cmocka_unit_test(test_history_schema),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
