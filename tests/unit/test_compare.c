/* test_compare.c - the comparison engine (harness/stats/compare.c) and the
 * report (harness/report/report.c) on synthetic results (synth.h): A/A trials,
 * a 10% shift, refusal of mixed inputs, corrupt files, histogram merging,
 * comparison.json and the HTML's safety. */
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

#include "stats/compare.h"
#include "report/report.h"
#include "stats/seed.h"
#include "core/config.h"
#include "run/results.h"
#include "synth.h"

/* Add DOC (owned) to IN as if loaded from PATH, grouped by its variant. */
static void add_doc(struct cmp_inputs *in, json_object *doc, const char *path, const char *group)
{
	char err[512] = "";
	if (results_validate(doc, err, sizeof(err)))
		fail_msg("synthetic document invalid: %s", err);
	in->v = xrealloc(in->v, (in->n + 1) * sizeof(*in->v));
	in->v[in->n].path = xstrdup(path);
	in->v[in->n].doc = doc;
	in->v[in->n].group = xstrdup(group ? group : json_object_get_string(
		json_object_object_get(json_object_object_get(doc, "variant"), "name")));
	in->n++;
}

static const struct cmp_metric *find(const struct comparison *c, const char *label,
				     const char *name)
{
	for (size_t i = 0; i < c->nm; i++)
		if (!strcmp(c->m[i].label, label) && !strcmp(c->m[i].name, name))
			return &c->m[i];
	fail_msg("no metric %s %s", label, name);
	return NULL;
}

/* A variant against itself, many times: "no significant difference" in at
 * least 95% of the metrics (the verdict needs p < 0.05 and the minimum
 * effect, so the false-alarm rate is well under Welch's 5%). */
static void test_aa(void **state)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	int trials = 200, metrics = 0, called = 0, sig = 0;
	(void)state;
	gsl_rng_set(r, 2024);
	for (int t = 0; t < trials; t++) {
		struct cmp_inputs in = { NULL, 0 };
		struct cmp_opts o;
		struct comparison c;
		struct synth_opts sa = { .variant = "a", .iterations = 5 };
		struct synth_opts sb = { .variant = "b", .iterations = 5 };
		cmp_opts_init(&o);
		o.reps = 200; /* the verdict does not use the bootstrap: keep it quick */
		add_doc(&in, synth_doc(&sa, synth_quick, SYNTH_QUICK_N, r), "a.json", NULL);
		add_doc(&in, synth_doc(&sb, synth_quick, SYNTH_QUICK_N, r), "b.json", NULL);
		assert_int_equal(comparison_build(&c, &in, &o), 0);
		assert_int_equal(c.ng, 2);
		for (size_t i = 0; i < c.nm; i++) {
			const struct cmp_cell *x = &c.m[i].cell[1];
			metrics++;
			called += x->verdict == CMP_BETTER || x->verdict == CMP_WORSE;
			sig += x->welch.p < 0.05;
			assert_true(x->verdict != CMP_UNDECIDED && x->verdict != CMP_MISSING);
		}
		comparison_release(&c);
		cmp_inputs_release(&in);
		cmp_opts_release(&o);
	}
	print_message("A/A: %d of %d metric comparisons called a difference (%d had p < 0.05)\n",
		      called, metrics, sig);
	assert_true(called * 100 <= metrics * 5);
	/* per comparison of all 42 metrics: without the Benjamini-Hochberg
	 * step within each workload this seed called 153 (1.5 a comparison) */
	assert_true(called <= 30);
	gsl_rng_free(r);
}

/* hackbench 10% slower and dbench 10% lower, with realistic noise (3-4%
 * CV, 5 iterations): both called worse (the first trial, and as often as
 * the power of 5 iterations allows); the rest untouched. */
static void test_shift(void **state)
{
	static struct synth_metric shifted[SYNTH_QUICK_N];
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	int trials = 100, time_worse = 0, tput_worse = 0, false_calls = 0;
	(void)state;
	memcpy(shifted, synth_quick, sizeof(shifted));
	shifted[0].mean *= 1.10; /* hackbench time */
	shifted[1].mean *= 0.90; /* dbench throughput */
	gsl_rng_set(r, 77);
	for (int t = 0; t < trials; t++) {
		struct cmp_inputs in = { NULL, 0 };
		struct cmp_opts o;
		struct comparison c;
		struct synth_opts sa = { .variant = "base", .iterations = 5 };
		struct synth_opts sb = { .variant = "slow", .iterations = 5 };
		cmp_opts_init(&o);
		o.reps = 200;
		add_doc(&in, synth_doc(&sa, synth_quick, SYNTH_QUICK_N, r), "a.json", NULL);
		add_doc(&in, synth_doc(&sb, shifted, SYNTH_QUICK_N, r), "b.json", NULL);
		assert_int_equal(comparison_build(&c, &in, &o), 0);
		time_worse += find(&c, "hackbench", "time")->cell[1].verdict == CMP_WORSE;
		tput_worse += find(&c, "dbench", "throughput")->cell[1].verdict == CMP_WORSE;
		false_calls += find(&c, "cyclictest", "lat_avg")->cell[1].verdict != CMP_SAME;
		if (t == 0) {
			const struct cmp_cell *x = &find(&c, "hackbench", "time")->cell[1];
			assert_int_equal(x->verdict, CMP_WORSE);
			assert_int_equal(find(&c, "dbench", "throughput")->cell[1].verdict, CMP_WORSE);
			assert_true(x->rel > 0.05 && x->rel < 0.15);
			assert_true(x->rel_lo > 0 && x->rel_hi > x->rel);
			/* the change in throughput is measured on harmonic means */
			x = &find(&c, "dbench", "throughput")->cell[1];
			assert_true(x->rel < -0.05 && x->rel > -0.15);
			assert_true(c.g[1].score < 1);
		}
		comparison_release(&c);
		cmp_inputs_release(&in);
		cmp_opts_release(&o);
	}
	print_message("10%% shift: hackbench worse %d/%d, dbench worse %d/%d\n", time_worse, trials,
		      tput_worse, trials);
	/* power: hackbench (CV 3%) shifts by 4.6 standard errors, so nearly
	 * always; dbench (CV 4%) by about 3.9 at 8 df, about 94% of the time
	 * at p < 0.05 alone (92 with this seed), less once the false discovery
	 * rate is controlled over dbench's two metrics (82 with this seed) */
	assert_true(time_worse >= trials * 97 / 100);
	assert_true(tput_worse >= trials * 78 / 100);
	assert_true(false_calls <= trials * 5 / 100);
	gsl_rng_free(r);
}

/* Improvement is "better", not "worse": directions per metric. */
static void test_directions(void **state)
{
	static struct synth_metric faster[SYNTH_QUICK_N];
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct cmp_inputs in = { NULL, 0 };
	struct cmp_opts o;
	struct comparison c;
	struct synth_opts sa = { .variant = "base", .iterations = 8 };
	struct synth_opts sb = { .variant = "fast", .iterations = 8 };
	(void)state;
	memcpy(faster, synth_quick, sizeof(faster));
	faster[0].mean *= 0.8; /* hackbench time down: better */
	faster[1].mean *= 1.2; /* throughput up: better */
	gsl_rng_set(r, 5);
	cmp_opts_init(&o);
	add_doc(&in, synth_doc(&sa, synth_quick, SYNTH_QUICK_N, r), "a.json", NULL);
	add_doc(&in, synth_doc(&sb, faster, SYNTH_QUICK_N, r), "b.json", NULL);
	assert_int_equal(comparison_build(&c, &in, &o), 0);
	assert_int_equal(find(&c, "hackbench", "time")->cell[1].verdict, CMP_BETTER);
	assert_int_equal(find(&c, "dbench", "throughput")->cell[1].verdict, CMP_BETTER);
	assert_int_equal(find(&c, "hackbench", "time")->cell[0].verdict, CMP_BASELINE);
	/* 8 a side: the headline interval is the bootstrap's */
	assert_true(find(&c, "hackbench", "time")->cell[1].ci_boot);
	assert_true(c.g[1].score > 1.05);
	comparison_release(&c);
	/* the baseline can be named; an unknown one is refused */
	o.baseline = "fast";
	assert_int_equal(comparison_build(&c, &in, &o), 0);
	assert_int_equal(c.base, 1);
	assert_int_equal(find(&c, "hackbench", "time")->cell[0].verdict, CMP_WORSE);
	comparison_release(&c);
	o.baseline = "nonesuch";
	assert_int_equal(comparison_build(&c, &in, &o), -1);
	comparison_release(&c);
	cmp_inputs_release(&in);
	cmp_opts_release(&o);
	gsl_rng_free(r);
}

/* Two machines' facts (host.machine): other cores refused, or with
 * force flagged; a file without facts (older results) is not refused. */
static json_object *with_machine(json_object *d, int cores)
{
	json_object *m = json_object_new_object();
	json_object_object_add(m, "cpu_model", json_object_new_string("Synthetic CPU"));
	json_object_object_add(m, "sockets", json_object_new_int(1));
	json_object_object_add(m, "cores", json_object_new_int(cores));
	json_object_object_add(m, "threads", json_object_new_int(cores));
	json_object_object_add(m, "mem_kb", json_object_new_int64(16LL << 20));
	json_object_object_add(json_object_object_get(d, "host"), "machine", m);
	return d;
}

static void test_mixed_machines(void **state)
{
	/* 0: no facts; the fourth: another backend too (an ssh run beside a
	 * QEMU run), the machine still named */
	static const int cores[][2] = { { 2, 2 }, { 2, 4 }, { 2, 0 }, { 2, 4 } };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	(void)state;
	gsl_rng_set(r, 4);
	for (size_t k = 0; k < 4; k++) {
		struct cmp_inputs in = { NULL, 0 };
		struct cmp_opts o;
		struct comparison c;
		/* the fourth under TCG: its report below */
		struct synth_opts sa = { .variant = "a", .iterations = 3, .accel = k == 3 ? "tcg" : NULL };
		struct synth_opts sb = { .variant = "b", .iterations = 3, .accel = sa.accel };
		json_object *b = synth_doc(&sb, synth_quick, SYNTH_QUICK_N, r);
		int found = 0;
		cmp_opts_init(&o);
		add_doc(&in, with_machine(synth_doc(&sa, synth_quick, SYNTH_QUICK_N, r), cores[k][0]),
			"a.json", NULL);
		if (k == 3)
			json_object_object_add(json_object_object_get(b, "host"), "backend",
					       json_object_new_string("ssh"));
		add_doc(&in, cores[k][1] ? with_machine(b, cores[k][1]) : b, "b.json", NULL);
		assert_int_equal(comparison_build(&c, &in, &o), k % 2 ? -1 : 0);
		comparison_release(&c);
		o.force = 1;
		assert_int_equal(comparison_build(&c, &in, &o), 0);
		for (size_t i = 0; i < c.warnings.n; i++)
			found |= strstr(c.warnings.v[i], "mixed inputs") &&
				 strstr(c.warnings.v[i], "machine: 4 vs 2 cores") != NULL &&
				 (k != 3 || strstr(c.warnings.v[i], "backend 'ssh'"));
		assert_int_equal(found, k % 2);
		if (k == 3) {
			/* the report: both machines in its header, and the
			 * mixed-inputs warning listed (the TCG box's filter once
			 * hid it when a lab device's CPU model said "TCG") */
			struct strbuf html = STRBUF_INIT;
			json_object *m = json_object_object_get(json_object_object_get(b, "host"), "machine");
			json_object_object_add(m, "cpu_model", json_object_new_string("QEMU TCG CPU version 2.5+"));
			comparison_release(&c);
			assert_int_equal(comparison_build(&c, &in, &o), 0);
			report_html(&c, &html);
			assert_non_null(strstr(html.buf, "class=\"sub\">machines <b>Synthetic CPU, 1 socket, "
							 "2 cores, 2 threads, 16.0 GiB</b> &#183; <b>QEMU TCG "
							 "CPU version 2.5+, 1 socket, 4 cores, 4 threads, 16.0 GiB</b>"));
			assert_non_null(strstr(html.buf, "<li>mixed inputs (--force): &#39;b.json&#39;"));
			assert_non_null(strstr(html.buf, "<b>TCG emulation.</b>"));
			assert_null(strstr(html.buf, "<li>" CMP_TCG_WARNING));
			sb_release(&html);
		}
		comparison_release(&c);
		cmp_inputs_release(&in);
		cmp_opts_release(&o);
	}
	gsl_rng_free(r);
}

/* The first run has no facts (a campaign's variant whose every iteration
 * failed on the target): the others are still held to one machine, the
 * first that recorded one, and the report names it. */
static void test_machine_first_without(void **state)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct cmp_inputs in = { NULL, 0 };
	struct cmp_opts o;
	struct comparison c;
	struct synth_opts s0 = { .variant = "a", .iterations = 3 };
	struct synth_opts s1 = { .variant = "b", .iterations = 3 };
	struct synth_opts s2 = { .variant = "c", .iterations = 3 };
	(void)state;
	gsl_rng_set(r, 6);
	cmp_opts_init(&o);
	add_doc(&in, synth_doc(&s0, synth_quick, SYNTH_QUICK_N, r), "a.json", NULL);
	add_doc(&in, with_machine(synth_doc(&s1, synth_quick, SYNTH_QUICK_N, r), 2), "b.json", NULL);
	assert_ptr_equal(cmp_inputs_machine(&in), json_object_object_get(
							  json_object_object_get(in.v[1].doc, "host"), "machine"));
	assert_int_equal(comparison_build(&c, &in, &o), 0);
	comparison_release(&c);
	add_doc(&in, with_machine(synth_doc(&s2, synth_quick, SYNTH_QUICK_N, r), 4), "c.json", NULL);
	assert_int_equal(comparison_build(&c, &in, &o), -1);
	comparison_release(&c);
	cmp_inputs_release(&in);
	assert_null(cmp_inputs_machine(&in));
	cmp_opts_release(&o);
	gsl_rng_free(r);
}

/* Runs whose guests ran on another CPU model or TCG threading (host.
 * guest_cpu, host.tcg_thread) are refused, or with force flagged; a run
 * from before they were recorded is not refused for lacking them. */
static void test_mixed_guest_cpu(void **state)
{
	static const struct {
		const char *key, *a, *b; /* b NULL: absent in the second run */
		int refused;
	} cases[] = {
		{ "tcg_thread", "multi", "single", 1 },
		{ "guest_cpu", "qemu64", "max", 1 },
		{ "tcg_thread", "multi", "multi", 0 },
		{ "tcg_thread", "single", NULL, 0 },
	};
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	(void)state;
	gsl_rng_set(r, 5);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct cmp_inputs in = { NULL, 0 };
		struct cmp_opts o;
		struct comparison c;
		struct synth_opts sa = { .variant = "a", .iterations = 3, .accel = "tcg" };
		struct synth_opts sb = { .variant = "b", .iterations = 3, .accel = "tcg" };
		json_object *a = synth_doc(&sa, synth_quick, SYNTH_QUICK_N, r);
		json_object *b = synth_doc(&sb, synth_quick, SYNTH_QUICK_N, r);
		int found = 0;
		json_object_object_add(json_object_object_get(a, "host"), cases[k].key,
				       json_object_new_string(cases[k].a));
		if (cases[k].b)
			json_object_object_add(json_object_object_get(b, "host"), cases[k].key,
					       json_object_new_string(cases[k].b));
		cmp_opts_init(&o);
		add_doc(&in, a, "a.json", NULL);
		add_doc(&in, b, "b.json", NULL);
		assert_int_equal(comparison_build(&c, &in, &o), cases[k].refused ? -1 : 0);
		comparison_release(&c);
		if (cases[k].refused) {
			o.force = 1;
			assert_int_equal(comparison_build(&c, &in, &o), 0);
			for (size_t i = 0; i < c.warnings.n; i++)
				found |= strstr(c.warnings.v[i], "mixed inputs") &&
					 strstr(c.warnings.v[i], cases[k].key) &&
					 strstr(c.warnings.v[i], cases[k].b);
			if (!found)
				fail_msg("no warning naming host %s '%s'", cases[k].key, cases[k].b);
			comparison_release(&c);
		}
		cmp_inputs_release(&in);
		cmp_opts_release(&o);
	}
	gsl_rng_free(r);
}

/* Runs that do not belong together are refused, or with force flagged. */
static void test_mixed_inputs(void **state)
{
	static const struct {
		struct synth_opts other;
		const char *why;
	} cases[] = {
		{ { .variant = "b", .iterations = 3, .suite = "smoke" }, "suite name" },
		{ { .variant = "b", .iterations = 3, .host = "otherhost" }, "host hostname" },
		{ { .variant = "b", .iterations = 3, .accel = "tcg" }, "host accel" },
		{ { .variant = "b", .iterations = 3, .backend = "metal" }, "host backend" },
	};
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	(void)state;
	gsl_rng_set(r, 3);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct cmp_inputs in = { NULL, 0 };
		struct cmp_opts o;
		struct comparison c;
		struct synth_opts sa = { .variant = "a", .iterations = 3 };
		int found = 0;
		cmp_opts_init(&o);
		add_doc(&in, synth_doc(&sa, synth_quick, SYNTH_QUICK_N, r), "a.json", NULL);
		add_doc(&in, synth_doc(&cases[k].other, synth_quick, SYNTH_QUICK_N, r), "b.json", NULL);
		assert_int_equal(comparison_build(&c, &in, &o), -1);
		comparison_release(&c);
		o.force = 1;
		assert_int_equal(comparison_build(&c, &in, &o), 0);
		for (size_t i = 0; i < c.warnings.n; i++)
			found |= strstr(c.warnings.v[i], "mixed inputs") &&
				 strstr(c.warnings.v[i], cases[k].why) && strstr(c.warnings.v[i], "b.json");
		if (!found)
			fail_msg("no warning naming '%s' and the file", cases[k].why);
		comparison_release(&c);
		cmp_inputs_release(&in);
		cmp_opts_release(&o);
	}
	/* same suite name, other parameters: refused, naming the parameter */
	{
		struct cmp_inputs in = { NULL, 0 };
		struct cmp_opts o;
		struct comparison c;
		struct synth_opts sa = { .variant = "a", .iterations = 3 };
		json_object *d = synth_doc(&sa, synth_quick, SYNTH_QUICK_N, r), *w;
		cmp_opts_init(&o);
		add_doc(&in, synth_doc(&sa, synth_quick, SYNTH_QUICK_N, r), "a.json", NULL);
		w = json_object_array_get_idx(json_object_object_get(json_object_object_get(d, "suite"),
								     "workloads"), 1);
		json_object_object_add(json_object_object_get(w, "params"), "duration",
				       json_object_new_int(60));
		add_doc(&in, d, "b.json", "b");
		assert_int_equal(comparison_build(&c, &in, &o), -1);
		comparison_release(&c);
		cmp_inputs_release(&in);
		cmp_opts_release(&o);
	}
	gsl_rng_free(r);
}

static char *tmpdir(void)
{
	char *d = xstrdup("/tmp/kbench-test-compare.XXXXXX");
	if (!mkdtemp(d))
		fail_msg("mkdtemp failed");
	return d;
}

/* Files: corrupt, wrong schema, other version, truncated: refused with
 * the file named; directories of runs are scanned. */
static void test_files(void **state)
{
	char *dir = tmpdir(), path[512];
	struct cmp_inputs in = { NULL, 0 };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct synth_opts sa = { .variant = "a", .iterations = 2 };
	json_object *d;
	(void)state;
	gsl_rng_set(r, 1);
	snprintf(path, sizeof(path), "%s/corrupt.json", dir);
	write_file_atomic(path, "{\"schema\": \"kbench-results\", \"schema_ver", 41);
	assert_int_equal(cmp_inputs_add(&in, path, NULL), -1);
	snprintf(path, sizeof(path), "%s/other.json", dir);
	write_file_atomic(path, "{\"schema\": \"something-else\"}\n", 29);
	assert_int_equal(cmp_inputs_add(&in, path, NULL), -1);
	d = synth_doc(&sa, synth_quick, SYNTH_QUICK_N, r);
	json_object_object_add(d, "schema_version", json_object_new_int(2));
	snprintf(path, sizeof(path), "%s/v2.json", dir);
	results_save(d, path);
	json_object_put(d);
	assert_int_equal(cmp_inputs_add(&in, path, NULL), -1);
	snprintf(path, sizeof(path), "%s/missing.json", dir);
	assert_int_equal(cmp_inputs_add(&in, path, NULL), -1);
	assert_int_equal(in.n, 0);
	/* a directory of runs: DIR/runs/x/results.json, in name order */
	for (int k = 0; k < 2; k++) {
		snprintf(path, sizeof(path), "%s/cmp/runs/r0%d-a", dir, k + 1);
		mkdir_p(path, 0755);
		snprintf(path, sizeof(path), "%s/cmp/runs/r0%d-a/results.json", dir, k + 1);
		d = synth_doc(&sa, synth_quick, SYNTH_QUICK_N, r);
		results_save(d, path);
		json_object_put(d);
	}
	snprintf(path, sizeof(path), "%s/cmp", dir);
	assert_int_equal(cmp_inputs_add(&in, path, NULL), 0);
	assert_int_equal(in.n, 2);
	assert_non_null(strstr(in.v[0].path, "r01-a"));
	/* an empty directory has nothing to compare */
	snprintf(path, sizeof(path), "%s/empty", dir);
	mkdir_p(path, 0755);
	assert_int_equal(cmp_inputs_add(&in, path, NULL), -1);
	cmp_inputs_release(&in);
	gsl_rng_free(r);
	rm_rf(dir);
	free(dir);
}

/* Histograms merge over iterations and threads; overflows are kept. */
static void test_histograms(void **state)
{
	struct cmp_inputs in = { NULL, 0 };
	struct cmp_opts o;
	struct comparison c;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct synth_opts sa = { .variant = "a", .iterations = 3, .hist_buckets = 100,
				 .hist_samples = 500, .hist_median_us = 40 };
	const struct cmp_latency *l;
	uint64_t sum = 0, ovf = 0;
	double mx = 0;
	json_object *doc;
	(void)state;
	gsl_rng_set(r, 11);
	cmp_opts_init(&o);
	doc = synth_doc(&sa, synth_quick, SYNTH_QUICK_N, r);
	add_doc(&in, doc, "a.json", NULL);
	assert_int_equal(comparison_build(&c, &in, &o), 0);
	l = cmp_find_latency(&c, "cyclictest.load");
	assert_non_null(l);
	assert_true(l->h[0].ok);
	assert_int_equal(l->h[0].histograms, 6);
	/* recount from the document itself */
	{
		json_object *its = json_object_object_get(doc, "iterations");
		for (size_t i = 0; i < json_object_array_length(its); i++) {
			json_object *wl = json_object_object_get(json_object_array_get_idx(its, i), "workloads");
			json_object *x = json_object_object_get(json_object_array_get_idx(wl, 3), "extra");
			for (int t = 0; t < 2; t++) {
				json_object *row = json_object_array_get_idx(json_object_object_get(x, "counts"), t);
				for (size_t b = 0; b < json_object_array_length(row); b++)
					sum += (uint64_t)json_object_get_int64(json_object_array_get_idx(row, b));
				ovf += (uint64_t)json_object_get_int64(
					json_object_array_get_idx(json_object_object_get(x, "overflows"), t));
				mx = fmax(mx, json_object_get_double(
					json_object_array_get_idx(json_object_object_get(x, "max"), t)));
			}
		}
	}
	assert_true(ovf > 0); /* median 40 us, 100 buckets: some land beyond */
	assert_int_equal(l->h[0].overflows, ovf);
	assert_int_equal(l->h[0].samples, sum + ovf);
	assert_true(l->h[0].max == mx);
	assert_int_equal(l->h[0].samples, 3 * 2 * 500);
	/* percentiles are ordered; p99.99 falls among the overflows: the max */
	for (int k = 1; k < 5; k++)
		assert_true(l->h[0].pct[k] >= l->h[0].pct[k - 1]);
	assert_true(l->h[0].pct[4] == mx);
	assert_true(l->h[0].pct[0] > 20 && l->h[0].pct[0] < 60);
	comparison_release(&c);
	/* a malformed histogram is skipped with a warning, not trusted */
	{
		json_object *its = json_object_object_get(doc, "iterations");
		json_object *wl = json_object_object_get(json_object_array_get_idx(its, 0), "workloads");
		json_object *x = json_object_object_get(json_object_array_get_idx(wl, 3), "extra");
		json_object_array_put_idx(json_object_object_get(x, "counts"), 1, json_object_new_string("x"));
		assert_int_equal(comparison_build(&c, &in, &o), 0);
		assert_int_equal(cmp_find_latency(&c, "cyclictest.load")->h[0].histograms, 4);
		{
			int warned = 0;
			for (size_t i = 0; i < c.warnings.n; i++)
				warned |= strstr(c.warnings.v[i], "histogram skipped") != NULL;
			assert_true(warned);
		}
		comparison_release(&c);
	}
	cmp_inputs_release(&in);
	cmp_opts_release(&o);
	gsl_rng_free(r);
}

/* One value a side: undecided; missing metrics; failed iterations recorded. */
static void test_small_and_failed(void **state)
{
	struct cmp_inputs in = { NULL, 0 };
	struct cmp_opts o;
	struct comparison c;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct synth_opts sa = { .variant = "a", .iterations = 1 };
	struct synth_opts sb = { .variant = "b", .iterations = 3, .fail_iteration = 2,
				 .skip_metric = "max_latency" };
	(void)state;
	gsl_rng_set(r, 8);
	cmp_opts_init(&o);
	add_doc(&in, synth_doc(&sa, synth_quick, SYNTH_QUICK_N, r), "a.json", NULL);
	add_doc(&in, synth_doc(&sb, synth_quick, SYNTH_QUICK_N, r), "b.json", NULL);
	assert_int_equal(comparison_build(&c, &in, &o), 0);
	assert_int_equal(find(&c, "hackbench", "time")->cell[1].verdict, CMP_UNDECIDED);
	assert_int_equal(find(&c, "hackbench", "time")->cell[1].n, 2);
	assert_int_equal(find(&c, "dbench", "max_latency")->cell[1].verdict, CMP_MISSING);
	assert_int_equal(c.g[1].failed, 1);
	assert_int_equal(c.g[1].ok, 2);
	assert_int_equal(c.nfail, 1);
	assert_non_null(c.fail[0].console_tail);
	assert_non_null(strstr(c.fail[0].error, "boot failed"));
	comparison_release(&c);
	cmp_inputs_release(&in);
	cmp_opts_release(&o);
	gsl_rng_free(r);
}

/* comparison.json: the envelope, every metric, no NaN or Infinity. */
/* A smallest detectable effect that is not defined (a baseline whose mean
 * is 0: a count that stayed 0) reads "-", not "nan%". */
static void test_fmt_mde(void **state)
{
	char b[16];
	(void)state;
	cmp_fmt_mde(b, sizeof(b), 0.123);
	assert_string_equal(b, "12%");
	cmp_fmt_mde(b, sizeof(b), NAN);
	assert_string_equal(b, "-");
	cmp_fmt_mde(b, sizeof(b), INFINITY);
	assert_string_equal(b, "-");
}

static void test_json(void **state)
{
	struct cmp_inputs in = { NULL, 0 };
	struct cmp_opts o;
	struct comparison c;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct synth_opts sa = { .variant = "a", .iterations = 2, .hist_buckets = 50 };
	struct synth_opts sb = { .variant = "b", .iterations = 2, .hist_buckets = 50 };
	json_object *doc, *m, *reparsed;
	const char *s;
	(void)state;
	gsl_rng_set(r, 9);
	cmp_opts_init(&o);
	o.seed = 12345;
	add_doc(&in, synth_doc(&sa, synth_quick, SYNTH_QUICK_N, r), "a.json", NULL);
	add_doc(&in, synth_doc(&sb, synth_quick, SYNTH_QUICK_N, r), "b.json", NULL);
	assert_int_equal(comparison_build(&c, &in, &o), 0);
	doc = comparison_to_json(&c);
	s = json_object_to_json_string(doc);
	assert_null(strstr(s, "NaN"));
	assert_null(strstr(s, "nan"));
	assert_null(strstr(s, "Infinity"));
	reparsed = json_tokener_parse(s);
	assert_non_null(reparsed);
	json_object_put(reparsed);
	assert_string_equal(json_object_get_string(json_object_object_get(doc, "schema")),
			    COMPARISON_SCHEMA);
	assert_int_equal(json_object_get_int(json_object_object_get(doc, "schema_version")), 1);
	assert_string_equal(json_object_get_string(json_object_object_get(doc, "baseline")), "a");
	assert_int_equal(json_object_get_int64(json_object_object_get(
		json_object_object_get(doc, "settings"), "bootstrap_seed")), 12345);
	m = json_object_array_get_idx(json_object_object_get(doc, "metrics"), 0);
	assert_string_equal(json_object_get_string(json_object_object_get(m, "label")), "hackbench");
	assert_non_null(json_object_object_get(json_object_object_get(
		json_object_object_get(json_object_object_get(m, "variants"), "b"), "vs_baseline"),
		"welch"));
	assert_int_equal(json_object_array_length(json_object_object_get(doc, "latency")), 2);
	assert_int_equal(json_object_array_length(json_object_object_get(doc, "inputs")), 2);
	json_object_put(doc);
	comparison_release(&c);
	cmp_inputs_release(&in);
	cmp_opts_release(&o);
	gsl_rng_free(r);
}

/* The page: self-contained, guest strings escaped, every section there. */
static void test_report_html(void **state)
{
	struct cmp_inputs in = { NULL, 0 };
	struct cmp_opts o;
	struct comparison c;
	struct strbuf sb = STRBUF_INIT;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct synth_opts sa = { .variant = "a", .iterations = 3, .hist_buckets = 200,
				 .accel = "tcg" };
	struct synth_opts sb2 = { .variant = "b", .iterations = 3, .hist_buckets = 200,
				  .fail_iteration = 3, .accel = "tcg" };
	json_object *evil;
	(void)state;
	gsl_rng_set(r, 10);
	cmp_opts_init(&o);
	evil = synth_doc(&sa, synth_quick, SYNTH_QUICK_N, r);
	json_object_object_add(json_object_object_get(evil, "variant"), "kernel_release",
			       json_object_new_string("<script>alert(1)</script><img src=\"https://x\">"
						      "\xff\xfe bad utf-8"));
	add_doc(&in, evil, "a.json", NULL);
	{
		/* the reference patch's lock counters, on b's first dbench run */
		json_object *d = synth_doc(&sb2, synth_quick, SYNTH_QUICK_N, r), *w, *ls;
		w = json_object_array_get_idx(json_object_object_get(json_object_array_get_idx(
			json_object_object_get(d, "iterations"), 0), "workloads"), 1);
		ls = json_object_new_object();
		json_object_object_add(ls, "rtlock.spin_started", json_object_new_int64(1234));
		json_object_object_add(ls, "rtlock.lateral_steal", json_object_new_int64(56));
		json_object_object_add(w, "lock_stats", ls);
		add_doc(&in, d, "b.json", NULL);
	}
	assert_int_equal(comparison_build(&c, &in, &o), 0);
	assert_int_equal(c.nlocks, 2);
	assert_true(c.locks[0].n[1] == 1 && c.locks[0].sum[1] == 1234 && c.locks[0].n[0] == 0);
	report_html(&c, &sb);
	assert_non_null(strstr(sb.buf, "Lock counters"));
	assert_non_null(strstr(sb.buf, "rtlock.lateral_steal"));
	assert_null(strstr(sb.buf, "<script"));
	assert_null(strstr(sb.buf, "<img"));
	assert_null(strstr(sb.buf, "\xff"));
	assert_non_null(strstr(sb.buf, "&lt;script&gt;"));
	assert_null(strstr(sb.buf, "src=\"http"));
	assert_null(strstr(sb.buf, "href=\"http"));
	assert_null(strstr(sb.buf, "url("));
	assert_null(strstr(sb.buf, "<link"));
	assert_non_null(strstr(sb.buf, "<svg"));
	assert_non_null(strstr(sb.buf, "The seed table"));
	assert_non_null(strstr(sb.buf, "2008 adaptive RT"));
	assert_non_null(strstr(sb.buf, "not measured")); /* no kbuild workload */
	assert_non_null(strstr(sb.buf, "TCG emulation"));
	assert_non_null(strstr(sb.buf, "Latency histograms"));
	assert_non_null(strstr(sb.buf, "Kernel panic")); /* the console excerpt */
	assert_non_null(strstr(sb.buf, "synthetic &lt;variant&gt; &amp; &quot;co&quot;"));
	sb_release(&sb);
	comparison_release(&c);
	cmp_inputs_release(&in);
	cmp_opts_release(&o);
	gsl_rng_free(r);
}

/* The test subject from a real run of the patched test kernel
 * (tests/fixtures/results/subject-adaptive.json) beside an older run
 * without one (locks-off.json): the section, the patch's subject, hash,
 * diffstat and escaped text in a collapsed <details>, the knobs and
 * fragments; comparison.json carries it; an old run shows "-". */
static void test_report_subject(void **state)
{
	static const char *const files[] = { "subject-adaptive.json", "locks-off.json" };
	struct cmp_inputs in = { NULL, 0 };
	struct cmp_opts o;
	struct comparison c;
	struct strbuf sb = STRBUF_INIT;
	json_object *doc, *v;
	const char *d;
	(void)state;
	cmp_opts_init(&o);
	o.force = 1; /* the two runs' suites differ (tiny, locks) */
	for (int i = 0; i < 2; i++) {
		char path[1024];
		snprintf(path, sizeof(path), "%s/tests/fixtures/results/%s", KB_SRCDIR, files[i]);
		assert_non_null(doc = results_load(path));
		if (!i) { /* a subject of the wrong shape is refused */
			json_object *bad = NULL, *p;
			char err[256] = "";
			assert_int_equal(json_object_deep_copy(doc, &bad, NULL), 0);
			p = json_object_array_get_idx(json_object_object_get(json_object_object_get(
				json_object_object_get(bad, "variant"), "subject"), "patches"), 0);
			json_object_object_add(p, "diffstat", json_object_new_string("3 files"));
			assert_int_equal(results_validate(bad, err, sizeof(err)), -1);
			assert_non_null(strstr(err, "variant subject patch 1: 'diffstat' should be a"));
			json_object_put(bad);
		}
		add_doc(&in, doc, files[i], i ? "old" : NULL);
	}
	assert_int_equal(comparison_build(&c, &in, &o), 0);
	report_html(&c, &sb);
	assert_non_null(strstr(sb.buf, "<h2 id=\"subject\">Test subject</h2>"));
	assert_non_null(strstr(sb.buf, "<a href=\"#subject\">"));
	assert_non_null(strstr(sb.buf, "locking/rtmutex: Make adaptive spinning and lateral steal "
				       "switchable"));
	assert_non_null(strstr(sb.buf, "<code>0e398e91c04fa492&#8230;</code>, 3 files, +260 &#8722;13"));
	assert_non_null(d = strstr(sb.buf, "<details class=\"card\"><summary><code>0001-locking"));
	assert_non_null(strstr(d, " kernel/locking/rtmutex_api.c | +115 &#8722;0\n"));
	assert_non_null(strstr(d, "rtmutex.&lt;name&gt;=&lt;value&gt;"));
	assert_null(strstr(sb.buf, "rtmutex.<name>"));
	assert_null(strstr(d + 1, "<details class=\"card\"><summary><code>0001-locking"));
	assert_non_null(strstr(sb.buf, "<code>rtmutex.spin_max_loops=10000</code>"));
	assert_non_null(strstr(sb.buf, "<b>rt</b>: <code>CONFIG_EXPERT=y</code> <code>CONFIG_PREEMPT_RT=y</code>"));
	assert_non_null(strstr(sb.buf, "<td class=\"l small\">&#8211;</td>"));
	doc = comparison_to_json(&c);
	v = json_object_array_get_idx(json_object_object_get(doc, "variants"), 0);
	assert_string_equal(json_object_get_string(json_object_object_get(json_object_array_get_idx(
		json_object_object_get(json_object_object_get(v, "subject"), "patches"), 0), "sha256")),
		"0e398e91c04fa492d67300eeb248b09f5d315e632fb7acc3ed4c058d4dbcb8b9");
	v = json_object_array_get_idx(json_object_object_get(doc, "variants"), 1);
	assert_null(json_object_object_get(v, "subject"));
	json_object_put(doc);
	sb_release(&sb);
	comparison_release(&c);
	cmp_inputs_release(&in);
	cmp_opts_release(&o);
}

/* The 2008 table's ratios on data computed by hand. dbench MB/s (harmonic
 * means): mainline {100, 300} -> 150, RT {15, 15} -> 15, adaptive
 * {60, 90} -> 72: RT 0.10, adaptive 0.48 of mainline, gap recovered
 * (0.48 - 0.10) / (1 - 0.10) = 0.4222; RT's interval: mainline's
 * resamples give 100, 150 or 300, so 0.05 and 0.15 at 2.5% and 97.5%.
 * hackbench s: 2, 8, 4 without spread: 0.25, 0.5, 1/3, intervals exact.
 * RT faster than mainline: no gap. */
static void test_seed_ratios(void **state)
{
	double db[3][2] = { { 100, 300 }, { 15, 15 }, { 60, 90 } };
	double hb[3][2] = { { 2, 2 }, { 8, 8 }, { 4, 4 } };
	struct cmp_cell dc[3], hc[3];
	struct cmp_metric d = { .label = "dbench", .workload = "dbench", .name = "throughput",
				.unit = "MB/s", .better = 1, .cls = CMP_CLASS_RATE, .cell = dc };
	struct cmp_metric h = { .label = "hackbench", .workload = "hackbench", .name = "time",
				.unit = "s", .better = -1, .cls = CMP_CLASS_TIME, .cell = hc };
	const size_t g[3] = { 0, 1, 2 };
	struct seed_ratio r;
	(void)state;
	memset(dc, 0, sizeof(dc));
	memset(hc, 0, sizeof(hc));
	for (int k = 0; k < 3; k++) {
		dc[k].v = db[k];
		hc[k].v = hb[k];
		dc[k].n = hc[k].n = 2;
	}
	assert_int_equal(seed_compute(&d, g, 2000, 2008, &r), 0);
	assert_true(fabs(r.rel[0] - 0.10) < 1e-12 && fabs(r.rel[1] - 0.48) < 1e-12);
	assert_true(fabs(r.gap - 0.38 / 0.9) < 1e-12);
	assert_true(fabs(r.rel_lo[0] - 0.05) < 1e-12 && fabs(r.rel_hi[0] - 0.15) < 1e-12);
	assert_true(r.rel_lo[1] < 0.48 && r.rel_hi[1] > 0.48);
	assert_true(r.gap_lo < r.gap && r.gap_hi > r.gap);
	assert_int_equal(seed_compute(&h, g, 2000, 2008, &r), 0);
	assert_true(fabs(r.rel[0] - 0.25) < 1e-12 && fabs(r.rel[1] - 0.5) < 1e-12);
	assert_true(fabs(r.gap - 1.0 / 3) < 1e-12);
	assert_true(fabs(r.gap_lo - 1.0 / 3) < 1e-12 && fabs(r.gap_hi - 1.0 / 3) < 1e-12);
	hb[1][0] = hb[1][1] = 1; /* RT faster than mainline */
	assert_int_equal(seed_compute(&h, g, 2000, 2008, &r), 0);
	assert_true(isnan(r.gap) && isnan(r.gap_lo));
	hc[2].n = 1;
	assert_int_equal(seed_compute(&h, g, 2000, 2008, &r), -1);
}

/* The 2008 table's HTML: the three roles' rows, and the dbench setup its
 * row describes, read from the suite the runs recorded. */
static void test_seed_html(void **state)
{
	static const char *const names[] = { "mainline", "rt", "rt-adaptive" };
	struct cmp_inputs in = { NULL, 0 };
	struct cmp_opts o;
	struct comparison c;
	struct strbuf sb = STRBUF_INIT;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	(void)state;
	gsl_rng_set(r, 11);
	cmp_opts_init(&o);
	for (int k = 0; k < 3; k++) {
		struct synth_opts so = { .variant = names[k], .iterations = 3, .hist_buckets = 50,
					 .accel = "tcg" };
		json_object *d = synth_doc(&so, synth_quick, SYNTH_QUICK_N, r), *ws, *p;
		ws = json_object_object_get(json_object_object_get(d, "suite"), "workloads");
		for (size_t i = 0; i < json_object_array_length(ws); i++) {
			json_object *w = json_object_array_get_idx(ws, i);
			if (strcmp(json_object_get_string(json_object_object_get(w, "workload")),
				   "dbench"))
				continue;
			p = json_object_object_get(w, "params");
			json_object_object_add(p, "clients", json_object_new_int(8));
			json_object_object_add(p, "fs", json_object_new_string("tmpfs"));
		}
		add_doc(&in, d, names[k], NULL);
	}
	assert_int_equal(comparison_build(&c, &in, &o), 0);
	report_html(&c, &sb);
	assert_non_null(strstr(sb.buf, "The 2008 table, side by side"));
	assert_non_null(strstr(sb.buf, "dbench here: 8 clients for 10 s on tmpfs, 2 vCPUs."));
	assert_non_null(strstr(sb.buf, "hackbench (1 / time)"));
	sb_release(&sb);
	comparison_release(&c);
	cmp_inputs_release(&in);
	cmp_opts_release(&o);
	gsl_rng_free(r);
}

/* make seed's suite loads, and its three roles compare like with like:
 * one tree, one base config, the same patched binary for rt and
 * rt-adaptive (patches and fragments equal), mainline without RT. */
static void test_seed_suite(void **state)
{
	struct suite su;
	struct variant v[3];
	static const char *const names[] = { "mainline", "rt", "rt-adaptive" };
	(void)state;
	assert_int_equal(suite_load("seed", 2, &su), 0);
	assert_int_equal(su.n, 3);
	suite_release(&su);
	assert_string_equal(SEED_ROLES_DEFAULT, "mainline,rt,rt-adaptive");
	for (int k = 0; k < 3; k++) {
		assert_int_equal(variant_load(names[k], &v[k]), 0);
		assert_int_equal(v[k].source, VSRC_BUILD);
		assert_string_equal(v[k].tree, v[0].tree);
		assert_int_equal(v[k].base, v[0].base);
	}
	assert_string_equal(v[1].patches, v[2].patches);
	assert_string_equal(v[1].configs, v[2].configs);
	assert_null(strstr(v[0].configs, "rt"));
}

/* DOC's iterations on lab devices: iteration I on DEVS[I % N]. */
static json_object *on_devices(json_object *doc, const char *const *devs, size_t n)
{
	json_object *its = json_object_object_get(doc, "iterations");
	for (size_t i = 0; i < json_object_array_length(its); i++) {
		json_object *l = json_object_new_object();
		json_object_object_add(l, "lab", json_object_new_string("lab"));
		json_object_object_add(l, "job_id", json_object_new_int64(1000 + (int64_t)i));
		json_object_object_add(l, "job_url", json_object_new_string("http://127.0.0.1:1/scheduler/job/1"));
		json_object_object_add(l, "device", json_object_new_string(devs[i % n]));
		json_object_object_add(l, "device_type", json_object_new_string("qemu"));
		json_object_object_add(json_object_array_get_idx(its, i), "lava", l);
	}
	return doc;
}

/* The warnings of a comparison of A (iterations on ADEV) and B (BDEV). */
static char *device_warnings(gsl_rng *r, const char *const *adev, size_t an,
			     const char *const *bdev, size_t bn)
{
	struct cmp_inputs in = { NULL, 0 };
	struct cmp_opts o;
	struct comparison c;
	struct synth_opts sa = { .variant = "a", .iterations = 4 };
	struct synth_opts sb = { .variant = "b", .iterations = 4 };
	struct strbuf w = STRBUF_INIT;
	cmp_opts_init(&o);
	o.reps = 200;
	add_doc(&in, on_devices(synth_doc(&sa, synth_quick, SYNTH_QUICK_N, r), adev, an), "a.json", NULL);
	add_doc(&in, on_devices(synth_doc(&sb, synth_quick, SYNTH_QUICK_N, r), bdev, bn), "b.json", NULL);
	assert_int_equal(comparison_build(&c, &in, &o), 0);
	for (size_t i = 0; i < c.warnings.n; i++)
		sb_addf(&w, "%s\n", c.warnings.v[i]);
	comparison_release(&c);
	cmp_inputs_release(&in);
	cmp_opts_release(&o);
	return w.buf ? w.buf : xstrdup("");
}

/* Lab runs: devices the baseline shares with every variant are blocks;
 * variants each on another device are said to differ by it; one device
 * for all says nothing. */
static void test_lab_devices(void **state)
{
	static const char *const two[] = { "qemu-01", "qemu-02" }, *const d1[] = { "qemu-01" },
				 *const d2[] = { "qemu-02" };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	char *w;
	(void)state;
	gsl_rng_set(r, 7);
	/* the baseline on both devices, b on one of them: blocked */
	w = device_warnings(r, two, 2, d1, 1);
	assert_non_null(strstr(w, "lab devices are blocks (2 devices)"));
	assert_null(strstr(w, "pooled here"));
	assert_null(strstr(w, "different lab devices"));
	free(w);
	/* b on both, the baseline on one: b's values on the other dropped */
	w = device_warnings(r, d1, 1, two, 2);
	assert_non_null(strstr(w, "lab devices are blocks (2 devices)"));
	assert_non_null(strstr(w, "values dropped: they ran on a lab device where the baseline has "
				  "fewer than 2 values"));
	free(w);
	w = device_warnings(r, d1, 1, d2, 1);
	assert_non_null(strstr(w, "the variants ran on different lab devices (a on qemu-01, b on "
				  "qemu-02): their differences may be the devices'"));
	free(w);
	w = device_warnings(r, d1, 1, d1, 1);
	assert_null(strstr(w, "lab device"));
	free(w);
	gsl_rng_free(r);
}

/* Devices as blocks: qemu-02 runs everything 3x slower; variant b is
 * X01 times a on qemu-01 and X02 times a on qemu-02. Its hackbench.time
 * cell and the warnings into W. */
static const struct cmp_cell *blocked(gsl_rng *r, struct comparison *c, struct cmp_inputs *in,
				      double x01, double x02, int n, struct strbuf *w)
{
	static const char *const d1[] = { "qemu-01" }, *const d2[] = { "qemu-02" };
	struct cmp_opts o;
	struct synth_opts s[4] = {
		{ .variant = "a", .run_id = "a1", .iterations = n, .scale = 1 },
		{ .variant = "a", .run_id = "a2", .iterations = n, .scale = 3 },
		{ .variant = "b", .run_id = "b1", .iterations = n, .scale = x01 },
		{ .variant = "b", .run_id = "b2", .iterations = n, .scale = 3 * x02 },
	};
	cmp_opts_init(&o);
	o.reps = 200;
	for (int k = 0; k < 4; k++)
		add_doc(in, on_devices(synth_doc(&s[k], synth_quick, SYNTH_QUICK_N, r), k % 2 ? d2 : d1, 1),
			s[k].run_id, NULL);
	assert_int_equal(comparison_build(c, in, &o), 0);
	cmp_opts_release(&o);
	for (size_t i = 0; i < c->warnings.n; i++)
		sb_addf(w, "%s\n", c->warnings.v[i]);
	return &cmp_find(c, "hackbench", "time")->cell[1];
}

/* Pooled over devices, a 30% slowdown would drown in the devices' 3x
 * difference; blocked by device it is found, on each device too; and
 * devices whose differences go opposite ways are warned about. */
static void test_lab_blocks(void **state)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct cmp_inputs in = { NULL, 0 };
	struct strbuf w = STRBUF_INIT;
	struct comparison c;
	const struct cmp_cell *x;
	(void)state;
	gsl_rng_set(r, 11);
	x = blocked(r, &c, &in, 1.3, 1.3, 4, &w);
	assert_true(c.blocked);
	assert_int_equal(c.blocks.n, 2);
	assert_int_equal(c.dropped, 0);
	assert_int_equal(x->verdict, CMP_WORSE);
	assert_true(fabs(x->rel - 0.3) < 0.06);
	assert_true(fabs(x->brel[0] - 0.3) < 0.06 && fabs(x->brel[1] - 0.3) < 0.06);
	assert_false(x->noisy);
	assert_non_null(strstr(w.buf, "lab devices are blocks (2 devices)"));
	assert_null(strstr(w.buf, "pooled here"));
	assert_null(strstr(w.buf, "disagree"));
	{
		json_object *j = comparison_to_json(&c);
		json_object *b = json_object_object_get(j, "blocks");
		assert_non_null(b);
		assert_string_equal(json_object_get_string(json_object_object_get(b, "by")), "lab device");
		json_object_put(j);
	}
	comparison_release(&c);
	cmp_inputs_release(&in);
	sb_reset(&w);
	/* +60% on qemu-01, -15% on qemu-02: the devices disagree, said */
	x = blocked(r, &c, &in, 1.6, 0.85, 4, &w);
	assert_true(x->brel[0] > 0.5 && x->brel[1] < -0.1);
	assert_non_null(strstr(w.buf, "b: hackbench.time: the lab devices disagree (qemu-01 +"));
	comparison_release(&c);
	cmp_inputs_release(&in);
	sb_reset(&w);
	/* one baseline value a device: no level to scale by with a spread of
	 * its own (the scaled baseline would have none): pooled, and said */
	blocked(r, &c, &in, 1.3, 1.3, 1, &w);
	assert_false(c.blocked);
	assert_non_null(strstr(w.buf, "a: its iterations ran on 2 lab devices"));
	assert_non_null(strstr(w.buf, "pooled here"));
	comparison_release(&c);
	cmp_inputs_release(&in);
	sb_release(&w);
	gsl_rng_free(r);
}

static void test_rules(void **state)
{
	struct cmp_rules r = { NULL, 0 };
	(void)state;
	assert_int_equal(cmp_rules_add(&r, "--threshold", "time=5%"), 0);
	assert_int_equal(cmp_rules_add(&r, "--threshold", "cyclictest.load.lat_max=0.25"), 0);
	assert_int_equal(cmp_rules_add(&r, "--threshold", "time=5"), -1);
	assert_int_equal(cmp_rules_add(&r, "--threshold", "time"), -1);
	assert_int_equal(cmp_rules_add(&r, "--threshold", "=5%"), -1);
	assert_int_equal(cmp_rules_add(&r, "--threshold", "time=-1%"), -1);
	assert_int_equal(r.n, 2);
	assert_true(fabs(r.v[0].value - 0.05) < 1e-12);
	assert_string_equal(r.v[1].pattern, "cyclictest.load.lat_max");
	cmp_rules_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_lab_devices),
		cmocka_unit_test(test_lab_blocks),
		cmocka_unit_test(test_aa),
		cmocka_unit_test(test_shift),
		cmocka_unit_test(test_directions),
		cmocka_unit_test(test_mixed_inputs),
		cmocka_unit_test(test_mixed_guest_cpu),
		cmocka_unit_test(test_mixed_machines),
		cmocka_unit_test(test_machine_first_without),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_histograms),
		cmocka_unit_test(test_small_and_failed),
		cmocka_unit_test(test_fmt_mde),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_report_html),
		cmocka_unit_test(test_report_subject),
		cmocka_unit_test(test_seed_ratios),
		cmocka_unit_test(test_seed_html),
		cmocka_unit_test(test_seed_suite),
	};
	kb_quiet = 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
