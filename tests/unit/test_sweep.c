/* test_sweep.c - kbench sweep: the points (parsing and refusals, the
 * cartesian product, labels, the command line with the variant's own
 * setting of a knob replaced), the order of the runs (every round a
 * permutation of the points, drawn from the seed) and --resume (finished
 * points are not run again; an unfinished one is). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd_campaign.h"
#include "core/jsonutil.h"
#include "run/results.h"
#include "run/sweep.h"
#include "synth.h"

#ifndef KB_SRCDIR
#error "KB_SRCDIR must name the source tree"
#endif

static char dir[64];
static gsl_rng *rng;

static int setup(void **state)
{
	(void)state;
	return synth_scratch_home(dir, sizeof(dir), "/tmp/kbench-test-sweep.XXXXXX", &rng);
}

static int teardown(void **state)
{
	(void)state;
	synth_scratch_release(dir, rng);
	return 0;
}

static void two_knobs(struct sweep *s)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->variant, sizeof(s->variant), "rt-adaptive");
	assert_int_equal(sweep_param_parse(s, "rtmutex.spin_max_loops=0,10,10000"), 0);
	assert_int_equal(sweep_param_parse(s, "rtmutex.lateral_steal=0,1"), 0);
}

static void test_parse(void **state)
{
	static const char *const bad[] = {
		"rtmutex.spin_max_loops", "spin_max_loops=1", "rtmutex.spin_max_loops=",
		"rtmutex.spin_max_loops=1,,x", "rtmutex.spin_max_loops=-1", "rtmutex.spin_max_loops=1e3",
		"rt mutex.x=1", "rtmutex..x=1", ".x=1", "rtmutex.=1", "a.b.c=1", "1rt.x=1",
		"rtmutex.spin_max_loops=99999999999999999999", "rtmutex.x=1;reboot",
	};
	struct sweep s;
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&s, 0, sizeof(s));
		print_message("refused: %s\n", bad[i]);
		assert_int_equal(sweep_param_parse(&s, bad[i]), -1);
		assert_int_equal(s.nknobs, 0);
	}
	two_knobs(&s);
	assert_int_equal(sweep_param_parse(&s, "rtmutex.lateral_steal=1"), -1); /* twice */
	assert_int_equal(s.nknobs, 2);
}

static void test_points(void **state)
{
	struct sweep s;
	char label[128], line[512];
	long long want[][2] = { { 0, 0 }, { 0, 1 }, { 10, 0 }, { 10, 1 }, { 10000, 0 }, { 10000, 1 } };
	(void)state;
	two_knobs(&s);
	assert_int_equal(sweep_npoints(&s), 6);
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(sweep_value(&s, i, 0), want[i][0]);
		assert_int_equal(sweep_value(&s, i, 1), want[i][1]);
	}
	sweep_label(&s, 3, label, sizeof(label));
	assert_string_equal(label, "rt-adaptive@spin_max_loops=10,lateral_steal=1");
	/* kernels/rt-adaptive.ini's own line: its settings of the knobs replaced */
	assert_int_equal(sweep_cmdline(&s, 2, "rtmutex.adaptive_rtlock=1 rtmutex.adaptive_mutex=1 "
				       "rtmutex.spin_max_loops=10000 rtmutex.lateral_steal=1", line,
				       sizeof(line)), 0);
	assert_string_equal(line, "rtmutex.adaptive_rtlock=1 rtmutex.adaptive_mutex=1 "
			    "rtmutex.spin_max_loops=10 rtmutex.lateral_steal=0");
	/* '-' for '_' as the kernel reads it; a longer name is another knob */
	assert_int_equal(sweep_cmdline(&s, 5, "quiet rtmutex.spin-max-loops=5 rtmutex.lateral_steal "
				       "rtmutex.spin_max_loops_x=3", line, sizeof(line)), 0);
	assert_string_equal(line, "quiet rtmutex.spin_max_loops_x=3 rtmutex.spin_max_loops=10000 "
			    "rtmutex.lateral_steal=1");
	assert_int_equal(sweep_cmdline(&s, 0, NULL, line, sizeof(line)), 0);
	assert_string_equal(line, "rtmutex.spin_max_loops=0 rtmutex.lateral_steal=0");
	assert_int_equal(sweep_cmdline(&s, 0, "x", line, 20), -1); /* too long */
}

static void test_json_round_trip(void **state)
{
	struct sweep s, t;
	json_object *j;
	(void)state;
	two_knobs(&s);
	j = sweep_to_json(&s);
	assert_int_equal(sweep_from_json(j, "test", &t), 0);
	assert_memory_equal(&s, &t, sizeof(s));
	json_object_object_add(json_object_array_get_idx(jget(j, "knobs"), 0), "name",
			       json_object_new_string("spin_max_loops"));
	assert_int_equal(sweep_from_json(j, "test", &t), -1);
	json_object_put(j);
}

/* Interleaved: every round runs every point once; seeded: the same seed
 * draws the same order, another seed another. */
static void test_order(void **state)
{
	size_t n = 6, rounds = 4, *a = campaign_order(7, n, (int)rounds), *b = campaign_order(7, n, (int)rounds);
	size_t *c = campaign_order(8, n, (int)rounds);
	int same_as_identity = 1;
	(void)state;
	assert_memory_equal(a, b, n * rounds * sizeof(size_t));
	assert_memory_not_equal(a, c, n * rounds * sizeof(size_t));
	for (size_t r = 0; r < rounds; r++) {
		int seen[6] = { 0 };
		for (size_t i = 0; i < n; i++) {
			assert_true(a[r * n + i] < n);
			seen[a[r * n + i]]++;
			same_as_identity &= a[r * n + i] == i;
		}
		for (size_t i = 0; i < n; i++)
			assert_int_equal(seen[i], 1);
	}
	assert_false(same_as_identity); /* shuffled, not in the given order */
	free(a);
	free(b);
	free(c);
}

/* A sweep's campaign.json whose runs all finished (synthetic), on a
 * backend that does not exist: a point run again fails the resume. */
static char *done_sweep(const char *name, struct sweep *s)
{
	char *cdir = xasprintf("%s/%s", dir, name), *cj = xasprintf("%s/campaign.json", cdir);
	char *suite = xasprintf("%s/configs/suites/quick.ini", KB_SRCDIR);
	json_object *c = json_object_new_object(), *g = json_object_new_object(), *vs = json_object_new_array();
	memset(s, 0, sizeof(*s));
	snprintf(s->variant, sizeof(s->variant), "rt-adaptive-test");
	assert_int_equal(sweep_param_parse(s, "rtmutex.spin_max_loops=0,100"), 0);
	jset_str(c, "schema", "kbench-campaign");
	jset_int(c, "schema_version", 1);
	jset_str(c, "id", name);
	jset_str(c, "suite", "quick");
	jset_str(c, "suite_path", suite);
	jset_str(g, "accel", "kvm");
	jset_str(g, "backend", "no-such-backend");
	json_object_object_add(c, "guest", g);
	jset_int(c, "iterations", 1);
	jset_int(c, "warmup_rounds", 0);
	jset_int(c, "seed", 5);
	for (size_t i = 0; i < sweep_npoints(s); i++) {
		char label[128], *rd, *p;
		struct synth_opts o = { .variant = "rt-adaptive-test", .iterations = 3 };
		json_object *doc;
		sweep_label(s, i, label, sizeof(label));
		json_object_array_add(vs, json_object_new_string(label));
		rd = xasprintf("%s/runs/r01-rt-adaptive-test_spin_max_loops_%lld", cdir, sweep_value(s, i, 0));
		p = xasprintf("%s/results.json", rd);
		o.run_id = strrchr(rd, '/') + 1;
		doc = synth_doc(&o, synth_quick, SYNTH_QUICK_N, rng);
		mkdir_p(rd, 0755);
		assert_int_equal(results_save(doc, p), 0);
		json_object_put(doc);
		free(p);
		free(rd);
	}
	json_object_object_add(c, "variants", vs);
	json_object_object_add(c, "sweep", sweep_to_json(s));
	json_object_object_add(c, "order", json_object_new_array());
	json_object_object_add(c, "runs", json_object_new_array());
	assert_int_equal(results_save(c, cj), 0);
	json_object_put(c);
	free(cj);
	free(suite);
	return cdir;
}

static int sweep_resume(const char *cdir)
{
	char *argv[] = { "kbench", "--resume", (char *)cdir, NULL };
	return cmd_sweep(3, argv);
}

static void test_resume(void **state)
{
	struct sweep s;
	char *cdir = done_sweep("done", &s), *p;
	json_object *doc, *pts;
	(void)state;
	/* finished points are not run again: the reports come out */
	assert_int_equal(sweep_resume(cdir), KB_EXIT_OK);
	p = xasprintf("%s/sweep.json", cdir);
	doc = json_object_from_file(p);
	assert_non_null(doc);
	pts = jget(doc, "points");
	assert_int_equal(json_object_array_length(pts), 2);
	for (size_t i = 0; i < 2; i++) {
		json_object *pt = json_object_array_get_idx(pts, i);
		assert_int_equal(json_object_get_int(jget(pt, "iterations_ok")), 3);
		assert_non_null(jget(jget(pt, "metrics"), "hackbench.time"));
	}
	json_object_put(doc);
	free(p);
	/* an unfinished point is run (and here fails: no such backend) */
	p = xasprintf("%s/runs/r01-rt-adaptive-test_spin_max_loops_100", cdir);
	rm_rf(p);
	assert_int_equal(sweep_resume(cdir), KB_EXIT_USAGE);
	free(p);
	free(cdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_points),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_resume),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
