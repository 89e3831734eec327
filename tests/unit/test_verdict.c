/* test_verdict.c - the nightly's per-metric verdicts (harness/history/
 * verdict.c) on long synthetic histories: a step that persists (red every
 * night until accepted), a step fixed later (green again without an
 * accept), a slow drift (red once its total passes the threshold, and it
 * stays red), an improvement (reported, never red), a night flagged noisy
 * (no alarm, not in the level), the same for a higher-is-better metric,
 * and the false-alarm rate of unshifted nights with 3.5% noise between
 * boots (at most 1 night in 100 per variant). Each case prints its
 * detection delay, share of red nights while regressed and false alarms.
 * Also: schema 2 -> 3 keeps every night and orders them; nights within
 * one second keep their order (n9 before n10). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <unistd.h>

#include "history/history.h"
#include "history/verdict.h"
#include "synth.h"

#include "tmpdb.h"

/* A scenario: NIGHTS nights of ITER values around 100 with noise CV; the
 * metric's mean is multiplied by factor(i) (worse or better as BETTER
 * says); SHIFTED(i) marks the nights that are really regressed. */
struct scen {
	const char *name;
	int better, nights, accept_at, noisy_at;
	double cv, threshold;
	double (*factor)(int i, int better);
	int (*regressed)(int i);
	int (*grey)(int i);   /* neither regressed nor unshifted (NULL: none) */
};

static double worse(int better, double by)
{
	return better > 0 ? 1 / (1 + by) : 1 + by;
}

static double f_flat(int i, int b) { (void)i; (void)b; return 1; }
static int r_none(int i) { (void)i; return 0; }
/* night 180 is a lucky one: back at the old level by chance */
static double f_step(int i, int b) { return i >= 100 && i != 180 ? worse(b, 0.08) : 1; }
static int r_step(int i) { return i >= 100; }
static double f_fixed(int i, int b) { return i >= 100 && i < 150 ? worse(b, 0.08) : 1; }
static int r_fixed(int i) { return i >= 100 && i < 150; }
/* 10% over 200 nights from night 50; "regressed" once past the 3% threshold */
static double f_drift(int i, int b) { return i < 50 ? 1 : worse(b, 0.10 * (i - 50 < 200 ? i - 50 : 200) / 200); }
static int r_drift(int i) { return i >= 50 + 60; }
/* the drift's first 60 nights: real, but below the threshold */
static int g_drift(int i) { return i >= 50 && i < 110; }
/* the nights after a fix until clear_nights of them pool clean */
static int g_fixed(int i) { return i >= 150 && i < 155; }
static double f_better(int i, int b) { return i >= 100 ? 1 / worse(b, 0.08) : 1; }

struct figures {
	int first_red, red_in, regressed_nights, false_red, unshifted, improved, red_after_accept, grey_red;
};

static void run(const struct scen *sc, struct figures *fg)
{
	struct history h;
	struct verdict_opts o;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	const struct verdict_key k = { "host", "quick", "rt", sc->better > 0 ? "dbench" : "hackbench",
				       sc->better > 0 ? "throughput" : "time" };
	unlink(db);
	assert_int_equal(history_open(&h, db, 1), 0);
	assert_int_equal(history_exec(&h, "PRAGMA synchronous = OFF", "test"), 0);
	verdict_opts_init(&o);
	gsl_rng_set(r, 7);
	memset(fg, 0, sizeof(*fg));
	fg->first_red = -1;
	for (int i = 0; i < sc->nights; i++) {
		char night[32];
		double x[5];
		struct verdict v = { .v = x, .n = 5, .better = sc->better, .threshold = sc->threshold,
				     .kernel = "6.12.1" };
		int red;
		snprintf(night, sizeof(night), "n%d", i);
		assert_int_equal(history_night_begin(&h, night, "host", "quick", "t.ini"), 0);
		for (int j = 0; j < 5; j++)
			x[j] = synth_draw(r, 100 * sc->factor(i, sc->better) * (i == sc->noisy_at ? 1.5 : 1), sc->cv);
		v.noisy = i == sc->noisy_at;
		assert_int_equal(verdict_judge(&h, night, &k, &o, &v), 0);
		assert_int_equal(verdict_record(&h, night, &k, &v), 0);
		red = v.since[0] != 0;
		if (i == sc->noisy_at)
			assert_int_equal(v.state, VS_NOISY);
		fg->improved += v.improved;
		if (red && fg->first_red < 0 && sc->regressed(i))
			fg->first_red = i;
		if (sc->grey && sc->grey(i)) {
			fg->grey_red += red;
		} else if (sc->regressed(i)) {
			fg->regressed_nights++;
			fg->red_in += red;
		} else if (sc->accept_at >= 0 && i > sc->accept_at) {
			fg->red_after_accept += red;
		} else {
			fg->unshifted++;
			fg->false_red += red;
		}
		if (i == sc->accept_at)
			assert_int_equal(history_accept(&h, night, "rt", NULL, "the new scheduler is slower on "
							"purpose", "tester"), 0);
	}
	gsl_rng_free(r);
	history_close(&h);
}

static int first_shifted(const struct scen *sc)
{
	for (int i = 0; i < sc->nights; i++)
		if (sc->regressed(i))
			return i;
	return -1;
}

static void report(const struct scen *sc, const struct figures *fg)
{
	int s = first_shifted(sc);
	printf("verdicts: %-36s delay %3d nights, red %3d of %3d regressed nights (%.0f%% from "
	       "detection), false alarms %d of %d unshifted nights, %d improved nights, %d red in the "
	       "grey zone\n", sc->name,
	       s >= 0 && fg->first_red >= 0 ? fg->first_red - s : -1, fg->red_in, fg->regressed_nights,
	       fg->first_red >= 0 ? 100.0 * fg->red_in / (fg->regressed_nights - (fg->first_red - s)) : 0,
	       fg->false_red, fg->unshifted, fg->improved, fg->grey_red);
}

/* Red from detection to the end of the regression, every night. */
static void assert_persists(const struct scen *sc, const struct figures *fg, int max_delay)
{
	int s = first_shifted(sc);
	assert_true(fg->first_red >= s && fg->first_red - s <= max_delay);
	assert_int_equal(fg->red_in, fg->regressed_nights - (fg->first_red - s));
	assert_true(fg->false_red * 100 <= fg->unshifted);
}

static void test_step_persists(void **state)
{
	for (int b = -1; b <= 1; b += 2) {
		struct scen sc = { b < 0 ? "step +8% persists (lower better)" : "step -8% persists (higher better)",
				   b, 300, -1, -1, 0.035, 0.03, f_step, r_step, NULL };
		struct figures fg;
		(void)state;
		run(&sc, &fg);
		report(&sc, &fg);
		assert_persists(&sc, &fg, 3);
	}
}

/* Regressed from night 100; accepted on night 200 (a deliberate change):
 * green from there without the level going back. */
static int r_until_accept(int i) { return i >= 100 && i <= 200; }
static void test_step_accepted(void **state)
{
	struct scen sc = { "step +8%, accepted at night 200", -1, 300, 200, -1, 0.035, 0.03, f_step,
			   r_until_accept, NULL };
	struct figures fg;
	(void)state;
	run(&sc, &fg);
	report(&sc, &fg);
	assert_persists(&sc, &fg, 3);
	printf("verdicts: after the accept: %d red of 99 nights\n", fg.red_after_accept);
	assert_true(fg.red_after_accept <= 1);
}

static void test_step_fixed(void **state)
{
	for (int b = -1; b <= 1; b += 2) {
		struct scen sc = { b < 0 ? "step fixed 50 nights later (lower)" : "step fixed 50 nights later (higher)",
				   b, 300, -1, -1, 0.035, 0.03, f_fixed, r_fixed, g_fixed };
		struct figures fg;
		(void)state;
		run(&sc, &fg);
		report(&sc, &fg);
		/* green again within 5 nights of the fix, without an accept */
		assert_persists(&sc, &fg, 3);
	}
}

static void test_drift(void **state)
{
	for (int b = -1; b <= 1; b += 2) {
		struct scen sc = { b < 0 ? "drift 10% over 200 nights (lower)" : "drift 10% over 200 nights (higher)",
				   b, 300, -1, -1, 0.035, 0.03, f_drift, r_drift, g_drift };
		struct figures fg;
		int first;
		(void)state;
		run(&sc, &fg);
		first = fg.first_red >= 0 ? fg.first_red : 1000;
		report(&sc, &fg);
		/* red at the latest 30 nights after the total passes 3% (night
		 * 110), never green again, never red before the drift began */
		assert_true(first < 110 + 30);
		assert_int_equal(fg.false_red, 0);
		assert_int_equal(fg.red_in, fg.regressed_nights - (first > 110 ? first - 110 : 0));
	}
}

static void test_improvement(void **state)
{
	for (int b = -1; b <= 1; b += 2) {
		struct scen sc = { b < 0 ? "improvement 8% (lower better)" : "improvement 8% (higher better)",
				   b, 300, -1, -1, 0.035, 0.03, f_better, r_none, NULL };
		struct figures fg;
		(void)state;
		run(&sc, &fg);
		report(&sc, &fg);
		assert_int_equal(fg.false_red, 0);
		assert_true(fg.improved >= 1);
	}
}

/* A night 50% slower but flagged noisy: no alarm, and not in the level
 * (the next nights stay green against the old one). */
static void test_noisy_night(void **state)
{
	for (int b = -1; b <= 1; b += 2) {
		struct scen sc = { b < 0 ? "flat, night 150 noisy (lower)" : "flat, night 150 noisy (higher)",
				   b, 300, -1, 150, 0.035, 0.03, f_flat, r_none, NULL };
		struct figures fg;
		(void)state;
		run(&sc, &fg);
		report(&sc, &fg);
		assert_true(fg.false_red * 100 <= fg.unshifted);
		/* in the level, the 50% night would make the next ones look better */
		assert_int_equal(fg.improved, 0);
	}
}

/* The false-alarm rate of a variant: four metrics of 3.5% noise, 1000
 * nights; a night is a false alarm when any metric is red. */
static void test_false_alarms(void **state)
{
	int red[1000] = { 0 }, nights = 0;
	(void)state;
	for (int m = 0; m < 4; m++) {
		struct scen sc = { "flat", m % 2 ? 1 : -1, 1000, -1, -1, 0.035, 0.03, f_flat, r_none, NULL };
		struct figures fg;
		run(&sc, &fg);
		(void)fg;
		/* run() counts per metric; redo the per-night union from the database */
		{
			struct history h;
			sqlite3_stmt *st;
			assert_int_equal(history_open(&h, db, 0), 0);
			st = history_prepare(&h, "SELECT seq FROM verdicts WHERE since_night IS NOT NULL", "");
			while (sqlite3_step(st) == SQLITE_ROW)
				red[sqlite3_column_int(st, 0) - 1] = 1;
			sqlite3_finalize(st);
			history_close(&h);
		}
	}
	for (int i = 0; i < 1000; i++)
		nights += red[i];
	printf("verdicts: false alarms of a variant (4 metrics, 3.5%% noise, threshold 3%%): %d of 1000 nights\n",
	       nights);
	assert_true(nights <= 10);
}

/* A version 2 history (the current release's) opens as version 3: every
 * night kept, numbered in the order it was recorded (start, then row), so
 * two nights in one second keep their order; new nights come after. */
static void test_migrate_v2(void **state)
{
	struct history h;
	sqlite3_stmt *st;
	(void)state;
	unlink(db);
	assert_int_equal(sqlite3_open(db, &h.db), SQLITE_OK);
	snprintf(h.path, sizeof(h.path), "%s", db);
	assert_int_equal(history_migrate(&h, 2), 0);
	assert_int_equal(history_exec(&h, "INSERT INTO nights (id, started, exit_code) VALUES "
				      "('n9', '2026-01-01T00:00:00Z', 0), ('n10', '2026-01-01T00:00:00Z', 1), "
				      "('n1', '2025-12-31T00:00:00Z', 0)", "test"), 0);
	history_close(&h);
	assert_int_equal(history_open(&h, db, 0), 0);
	assert_int_equal(history_night_begin(&h, "n11", "host", "quick", "t.ini"), 0);
	st = history_prepare(&h, "SELECT group_concat(id, ' ') FROM (SELECT id FROM nights ORDER BY seq)", "");
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "n1 n9 n10 n11");
	sqlite3_finalize(st);
	assert_int_equal(history_check(&h, stderr), 0);
	history_close(&h);
}

/* A version 2 history (nights and their runs, no verdicts) with an 8%
 * hackbench step from night m12 on, migrated: the first night judged
 * after it judges the 20 old nights first (verdict_backfill), so tonight
 * is red "since" the step's night, against a level of the old nights.
 * Without the backfill the level would start tonight and exit 0. */
static void test_migrated_nights(void **state)
{
	struct history h;
	struct verdict_opts o;
	struct verdict v = { .n = 5, .better = -1, .threshold = 0.03, .kernel = "6.12.1" };
	static const struct synth_metric base = { "hackbench", "hackbench", "time", "s", "lower", 2.0, 0.02 };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	char hid[17];
	struct verdict_key k = { hid, "quick", "rt", "hackbench", "time" };
	double x[5];
	(void)state;
	gsl_rng_set(r, 11);
	unlink(db);
	assert_int_equal(sqlite3_open(db, &h.db), SQLITE_OK);
	snprintf(h.path, sizeof(h.path), "%s", db);
	assert_int_equal(history_migrate(&h, 2), 0);
	for (int i = 1; i <= 20; i++) {
		char night[16], run[16], *sql;
		struct synth_metric m = base;
		struct synth_opts so = { .variant = "rt", .iterations = 5, .suite = "quick", .run_id = run };
		json_object *doc;
		m.mean *= i >= 12 ? 1.1 : 1;
		snprintf(night, sizeof(night), "m%d", i);
		snprintf(run, sizeof(run), "r%d", i);
		sql = xasprintf("INSERT INTO nights (id, started, exit_code) VALUES ('%s', "
				"'2026-01-%02dT01:00:00Z', 0)", night, i);
		assert_int_equal(history_exec(&h, sql, "test"), 0);
		free(sql);
		doc = synth_doc(&so, &m, 1, r);
		history_host_id(doc, hid);
		assert_int_equal(history_record(&h, doc, NULL, night), 0);
		json_object_put(doc);
	}
	history_close(&h);
	assert_int_equal(history_open(&h, db, 0), 0);   /* migrated to 3 */
	assert_int_equal(history_night_begin(&h, "tonight", hid, "quick", "t.ini"), 0);
	for (int j = 0; j < 5; j++)
		x[j] = synth_draw(r, 2.0 * 1.1, 0.02);
	v.v = x;
	verdict_opts_init(&o);
	assert_int_equal(verdict_backfill(&h, "tonight", &k, &o, -1, 0.03), 20);
	assert_int_equal(verdict_judge(&h, "tonight", &k, &o, &v), 0);
	assert_int_equal(verdict_record(&h, "tonight", &k, &v), 0);
	printf("migrated: tonight %s, %s\n", verdict_state_name(v.state), v.message);
	assert_int_equal(v.state, VS_REGRESSED);
	assert_true(!strcmp(v.since, "m12") || !strcmp(v.since, "m13") || !strcmp(v.since, "m14"));
	assert_true(v.nights >= 8);
	assert_int_equal(v.ref.nights, 10);
	/* a second call finds verdicts there: one lookup, nothing judged */
	assert_int_equal(verdict_backfill(&h, "tonight", &k, &o, -1, 0.03), 0);
	gsl_rng_free(r);
	history_close(&h);
}

/* A run on a remote machine (host.target) has that machine's identity in
 * the history: its name and its agent's CPU facts, not the driving host's
 * (whose name may change); a run without one keeps the old identity. */
static void test_host_id_target(void **state)
{
	static const struct synth_metric m[] = { { "hackbench", "hackbench", "time", "s", "lower", 2.0, 0.03 } };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct synth_opts o = { .variant = "rt", .iterations = 2, .suite = "quick", .run_id = "r" };
	json_object *doc = synth_doc(&o, m, 1, r), *host = json_object_object_get(doc, "host");
	json_object *mach = json_object_new_object();
	char plain[17], lab1[17], lab1b[17], lab2[17];
	(void)state;
	history_host_id(doc, plain);
	json_object_object_add(mach, "cpu_model", json_object_new_string("Xeon Gold 6338"));
	json_object_object_add(mach, "threads", json_object_new_int(128));
	json_object_object_add(host, "machine", mach);
	json_object_object_add(host, "target", json_object_new_string("lab1"));
	history_host_id(doc, lab1);
	assert_string_not_equal(plain, lab1);
	json_object_object_add(host, "hostname", json_object_new_string("another-ci-runner"));
	history_host_id(doc, lab1b);
	assert_string_equal(lab1, lab1b);
	json_object_object_add(host, "target", json_object_new_string("lab2"));
	history_host_id(doc, lab2);
	assert_string_not_equal(lab1, lab2);
	/* a LAVA lab's (host.lab): the lab's, not a target's of that name,
	 * whichever runner drove it and whether a device reported facts */
	json_object_object_del(host, "target");
	json_object_object_add(host, "lab", json_object_new_string("lab1"));
	history_host_id(doc, lab1b);
	assert_string_not_equal(lab1b, lab1);
	assert_string_not_equal(lab1b, plain);
	json_object_object_add(host, "hostname", json_object_new_string("ci-runner-3"));
	json_object_object_del(host, "machine");
	history_host_id(doc, lab2);
	assert_string_equal(lab1b, lab2);
	json_object_put(doc);
	gsl_rng_free(r);
}

/* Nights in one second: the series keeps their recorded order (the old
 * query ordered them by name, n10 before n9). */
static void test_series_order(void **state)
{
	struct history h;
	struct history_series s;
	static const struct synth_metric m[] = { { "hackbench", "hackbench", "time", "s", "lower", 2.0, 0.03 } };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	char hid[17];
	(void)state;
	unlink(db);
	assert_int_equal(history_open(&h, db, 1), 0);
	for (int i = 8; i <= 11; i++) {
		char night[16], run[16];
		struct synth_opts o = { .variant = "rt", .iterations = 2, .suite = "quick", .run_id = run };
		json_object *doc;
		snprintf(night, sizeof(night), "n%d", i);
		snprintf(run, sizeof(run), "r%d", i);
		doc = synth_doc(&o, m, 1, r);
		history_host_id(doc, hid);
		assert_int_equal(history_night_begin(&h, night, hid, "quick", "t.ini"), 0);
		assert_int_equal(history_record(&h, doc, NULL, night), 0);
		json_object_put(doc);
	}
	assert_int_equal(history_exec(&h, "UPDATE nights SET started = '2026-01-01T00:00:00Z'", "t"), 0);
	assert_int_equal(history_series(&h, hid, "quick", "kvm", "rt", "hackbench", "time", NULL, 0, &s), 0);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.p[0].night, "n8");
	assert_string_equal(s.p[1].night, "n9");
	assert_string_equal(s.p[2].night, "n10");
	assert_string_equal(s.p[3].night, "n11");
	history_series_release(&s);
	/* the latest 2 only */
	assert_int_equal(history_series(&h, hid, "quick", "kvm", "rt", "hackbench", "time", NULL, 2, &s), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.p[0].night, "n10");
	history_series_release(&s);
	gsl_rng_free(r);
	history_close(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step_persists),
		cmocka_unit_test(test_step_accepted),
		cmocka_unit_test(test_step_fixed),
		cmocka_unit_test(test_drift),
		cmocka_unit_test(test_improvement),
		cmocka_unit_test(test_noisy_night),
		cmocka_unit_test(test_false_alarms),
		cmocka_unit_test(test_migrate_v2),
		cmocka_unit_test(test_host_id_target),
		cmocka_unit_test(test_series_order),
		cmocka_unit_test(test_migrated_nights),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
