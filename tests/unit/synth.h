/* synth.h - synthetic results.json documents for the comparison tests and
 * `make report-bench` (header only: every tests/unit/test_*.c is its own
 * binary). Values are lognormal around a mean with a given coefficient of
 * variation, the way boot-to-boot benchmark noise looks (positive, skewed
 * right); cyclictest histograms are drawn the same way per sample. */
#ifndef KBENCH_TEST_SYNTH_H
#define KBENCH_TEST_SYNTH_H

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/util.h"

struct synth_metric {
	const char *label, *workload, *name, *unit, *better;
	double mean, cv;
};

struct synth_opts {
	const char *variant;
	const char *suite;       /* default "quick" */
	const char *host;        /* default "testhost" */
	const char *accel;       /* default "kvm" */
	const char *backend;     /* default "qemu" */
	const char *run_id;      /* default "<variant>-run" */
	int iterations;
	int hist_buckets;        /* cyclictest histograms of this size; 0: none */
	int hist_samples;        /* per thread */
	double hist_median_us;   /* latency distribution of the histogram */
	int fail_iteration;      /* 1-based; that iteration failed to boot; 0: none */
	const char *skip_metric; /* leave this metric out of every iteration */
	double scale;            /* multiply every mean (a shift); 0 means 1 */
};

/* The metrics of the quick suite's four workload labels (hackbench,
 * dbench, cyclictest idle and under load), with realistic noise: a few
 * percent for throughput and times, more the further into the tail. */
#define SYNTH_CT(label, scale)                                                        \
	{ label, "cyclictest", "lat_min", "us", "lower", 3 * (scale), 0.05 },          \
	{ label, "cyclictest", "lat_avg", "us", "lower", 12 * (scale), 0.05 },         \
	{ label, "cyclictest", "lat_max", "us", "lower", 150 * (scale), 0.25 },        \
	{ label, "cyclictest", "lat_p50", "us", "lower", 10 * (scale), 0.05 },         \
	{ label, "cyclictest", "lat_p90", "us", "lower", 20 * (scale), 0.08 },         \
	{ label, "cyclictest", "lat_p99", "us", "lower", 40 * (scale), 0.12 },         \
	{ label, "cyclictest", "lat_p99_9", "us", "lower", 70 * (scale), 0.18 },       \
	{ label, "cyclictest", "lat_p99_99", "us", "lower", 110 * (scale), 0.22 },     \
	{ label, "cyclictest", "overflows", "count", "lower", 3, 0.5 }

static const struct synth_metric synth_quick[] = {
	{ "hackbench", "hackbench", "time", "s", "lower", 2.0, 0.03 },
	{ "dbench", "dbench", "throughput", "MB/s", "higher", 300, 0.04 },
	{ "dbench", "dbench", "max_latency", "ms", "lower", 40, 0.20 },
	SYNTH_CT("cyclictest", 1),
	SYNTH_CT("cyclictest.load", 3),
};
#define SYNTH_QUICK_N (sizeof(synth_quick) / sizeof(synth_quick[0]))

/* The four quiet metrics (2-5% CV) of build/synth-runs and make
 * nightly-bench's history, so that a verdict does not hang on luck. */
#define SYNTH_NIGHTLY_N 4
static const struct synth_metric synth_nightly[SYNTH_NIGHTLY_N] = {
	{ "hackbench", "hackbench", "time", "s", "lower", 2.0, 0.02 },
	{ "dbench", "dbench", "throughput", "MB/s", "higher", 300, 0.02 },
	{ "cyclictest", "cyclictest", "lat_avg", "us", "lower", 12, 0.02 },
	{ "cyclictest", "cyclictest", "lat_max", "us", "lower", 100, 0.05 },
};

/* Lognormal with mean MEAN and coefficient of variation CV. */
static inline double synth_draw(gsl_rng *r, double mean, double cv)
{
	double s2 = log(1 + cv * cv);
	return mean * exp(gsl_ran_gaussian(r, sqrt(s2)) - s2 / 2);
}

static inline json_object *synth_hist(gsl_rng *r, const struct synth_opts *o)
{
	json_object *x = json_object_new_object(), *counts = json_object_new_array();
	json_object *ovf = json_object_new_array(), *mx = json_object_new_array();
	int nb = o->hist_buckets, n = o->hist_samples ? o->hist_samples : 2000;
	uint64_t *c = calloc((size_t)nb, sizeof(uint64_t));
	for (int t = 0; t < 2; t++) {
		json_object *row = json_object_new_array_ext(nb);
		uint64_t over = 0;
		double worst = 0;
		memset(c, 0, (size_t)nb * sizeof(uint64_t));
		for (int i = 0; i < n; i++) {
			double v = floor(synth_draw(r, o->hist_median_us > 0 ? o->hist_median_us : 20, 0.6));
			if (v > worst)
				worst = v;
			if (v >= nb)
				over++;
			else
				c[(int)v]++;
		}
		for (int i = 0; i < nb; i++)
			json_object_array_add(row, json_object_new_int64((int64_t)c[i]));
		json_object_array_add(counts, row);
		json_object_array_add(ovf, json_object_new_int64((int64_t)over));
		json_object_array_add(mx, json_object_new_int64((int64_t)worst));
	}
	free(c);
	json_object_object_add(x, "bucket_us", json_object_new_int(1));
	json_object_object_add(x, "buckets", json_object_new_int(nb));
	json_object_object_add(x, "threads", json_object_new_int(2));
	json_object_object_add(x, "counts", counts);
	json_object_object_add(x, "overflows", ovf);
	json_object_object_add(x, "max", mx);
	return x;
}

/* A complete, valid results.json document. */
static inline json_object *synth_doc(const struct synth_opts *o, const struct synth_metric *m,
				     size_t nm, gsl_rng *r)
{
	json_object *d = json_object_new_object(), *x, *its, *wls;
	const char *labels[32];
	const char *workloads[32];
	size_t nl = 0;
	char run_id[256];
	double scale = o->scale > 0 ? o->scale : 1;

	for (size_t i = 0; i < nm; i++) {
		size_t k;
		for (k = 0; k < nl && strcmp(labels[k], m[i].label); k++)
			;
		if (k == nl && nl < 32) {
			labels[nl] = m[i].label;
			workloads[nl++] = m[i].workload;
		}
	}
	snprintf(run_id, sizeof(run_id), "%s", o->run_id ? o->run_id : o->variant);
	json_object_object_add(d, "schema", json_object_new_string("kbench-results"));
	json_object_object_add(d, "schema_version", json_object_new_int(1));
	json_object_object_add(d, "run_id", json_object_new_string(run_id));
	json_object_object_add(d, "started", json_object_new_string("2026-12-03T08:00:00Z"));
	json_object_object_add(d, "finished", json_object_new_string("2026-12-03T08:10:00Z"));
	json_object_object_add(d, "status", json_object_new_string(o->fail_iteration ? "partial" : "complete"));
	x = json_object_new_object();
	json_object_object_add(x, "version", json_object_new_string("0.1.0"));
	json_object_object_add(x, "commit", json_object_new_string("synthetic"));
	json_object_object_add(d, "kbench", x);
	x = json_object_new_object();
	json_object_object_add(x, "hostname", json_object_new_string(o->host ? o->host : "testhost"));
	json_object_object_add(x, "cpu_model", json_object_new_string("Synthetic CPU"));
	json_object_object_add(x, "cores", json_object_new_int(4));
	json_object_object_add(x, "mem_mb", json_object_new_int(8192));
	json_object_object_add(x, "kernel", json_object_new_string("6.1.0"));
	json_object_object_add(x, "qemu", json_object_new_string("QEMU emulator version 7.2.0"));
	json_object_object_add(x, "accel", json_object_new_string(o->accel ? o->accel : "kvm"));
	json_object_object_add(x, "backend", json_object_new_string(o->backend ? o->backend : "qemu"));
	json_object_object_add(d, "host", x);
	x = json_object_new_object();
	json_object_object_add(x, "vcpus", json_object_new_int(2));
	json_object_object_add(x, "mem_mb", json_object_new_int(2048));
	json_object_object_add(x, "scratch_mb", json_object_new_int(4096));
	json_object_object_add(d, "guest", x);
	x = json_object_new_object();
	json_object_object_add(x, "name", json_object_new_string(o->variant));
	json_object_object_add(x, "description", json_object_new_string("synthetic <variant> & \"co\""));
	json_object_object_add(x, "source", json_object_new_string("debian-image"));
	json_object_object_add(x, "package", json_object_new_string("linux-image-synthetic"));
	json_object_object_add(x, "package_version", json_object_new_string("6.12.1-1"));
	json_object_object_add(x, "config_hash", NULL);
	json_object_object_add(x, "kernel_release", json_object_new_string("6.12.1"));
	json_object_object_add(x, "realtime", NULL);
	json_object_object_add(x, "cmdline", json_object_new_string("console=ttyS0"));
	json_object_object_add(d, "variant", x);
	x = json_object_new_object();
	json_object_object_add(x, "name", json_object_new_string(o->suite ? o->suite : "quick"));
	json_object_object_add(x, "iterations", json_object_new_int(o->iterations));
	json_object_object_add(x, "warmup", json_object_new_int(0));
	wls = json_object_new_array();
	for (size_t k = 0; k < nl; k++) {
		json_object *w = json_object_new_object(), *p = json_object_new_object();
		json_object_object_add(w, "label", json_object_new_string(labels[k]));
		json_object_object_add(w, "workload", json_object_new_string(workloads[k]));
		json_object_object_add(p, "duration", json_object_new_int(10));
		json_object_object_add(w, "params", p);
		json_object_array_add(wls, w);
	}
	json_object_object_add(x, "workloads", wls);
	json_object_object_add(d, "suite", x);
	its = json_object_new_array();
	for (int it = 1; it <= o->iterations; it++) {
		json_object *ij = json_object_new_object(), *wl = json_object_new_array();
		int failed = it == o->fail_iteration;
		json_object_object_add(ij, "index", json_object_new_int(it));
		json_object_object_add(ij, "warmup", json_object_new_boolean(0));
		json_object_object_add(ij, "status", json_object_new_string(failed ? "failed" : "ok"));
		if (failed) {
			json_object_object_add(ij, "error", json_object_new_string(
				"boot failed: no hello from the agent within 180 s <&>"));
			json_object_object_add(ij, "console_tail", json_object_new_string(
				"[    1.234] Kernel panic - not syncing: <synthetic> & \"quoted\"\n"));
		} else {
			json_object_object_add(ij, "boot_s", json_object_new_double(1.5));
		}
		json_object_object_add(ij, "workloads", wl);
		for (size_t k = 0; k < nl && !failed; k++) {
			json_object *w = json_object_new_object(), *mets = json_object_new_object();
			json_object_object_add(w, "label", json_object_new_string(labels[k]));
			json_object_object_add(w, "workload", json_object_new_string(workloads[k]));
			json_object_object_add(w, "status", json_object_new_string("ok"));
			for (size_t i = 0; i < nm; i++) {
				json_object *mo;
				if (strcmp(m[i].label, labels[k]) ||
				    (o->skip_metric && !strcmp(o->skip_metric, m[i].name)))
					continue;
				mo = json_object_new_object();
				json_object_object_add(mo, "value", json_object_new_double(
					synth_draw(r, m[i].mean * scale, m[i].cv)));
				json_object_object_add(mo, "unit", json_object_new_string(m[i].unit));
				json_object_object_add(mo, "better", json_object_new_string(m[i].better));
				json_object_object_add(mets, m[i].name, mo);
			}
			json_object_object_add(w, "metrics", mets);
			if (o->hist_buckets && !strcmp(workloads[k], "cyclictest"))
				json_object_object_add(w, "extra", synth_hist(r, o));
			json_object_array_add(wl, w);
		}
		json_object_array_add(its, ij);
	}
	json_object_object_add(d, "iterations", its);
	return d;
}

/* A test's scratch directory (a mkdtemp of TEMPLATE into DIR) and its
 * seeded generator, for the cmocka group setup of tests that write runs;
 * synth_scratch_release undoes both. 0, or -1. */
static inline int synth_scratch(char *dir, size_t len, const char *tmpl, gsl_rng **rng)
{
	snprintf(dir, len, "%s", tmpl);
	if (!mkdtemp(dir))
		return -1;
	*rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(*rng, 4242);
	return 0;
}

/* synth_scratch, with kbench's home the source tree (its kernels/ and
 * configs/) and no history: the setup of tests that call commands. */
static inline int synth_scratch_home(char *dir, size_t len, const char *tmpl, gsl_rng **rng)
{
	if (synth_scratch(dir, len, tmpl, rng))
		return -1;
	setenv("KBENCH_HOME", KB_SRCDIR, 1);
	setenv("KBENCH_HISTORY", "off", 1);
	return 0;
}

static inline void synth_scratch_release(const char *dir, gsl_rng *rng)
{
	rm_rf(dir);
	gsl_rng_free(rng);
}

#endif
