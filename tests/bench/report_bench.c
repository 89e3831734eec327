/* report_bench.c - `make report-bench`: how long comparison and report
 * take for 4 variants x 4 workloads x 10 iterations, the budget being
 * under 1 second. The results are synthetic (tests/unit/synth.h) but
 * sized like the quick suite's: 21 metrics, cyclictest histograms of
 * 10000 buckets for 2 threads, twice per iteration. Loading (parsing and
 * validating the JSON), the statistics (10000 bootstrap resamples per
 * metric and variant) and rendering are timed separately, in wall and
 * CPU seconds; run it on an idle host.
 *
 * Loading is timed twice: with results.json as results_save() writes it
 * (number arrays such as histogram rows on one line), and with this file's
 * own one-line serializer on the histogram rows, as a cross-check. */
#include <json-c/printbuf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stats/compare.h"
#include "report/report.h"
#include "run/results.h"
#include "../unit/synth.h"

static const char *const variants[] = { "mainline", "rt", "rt-adaptive", "rt-upstream" };

static double cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* An array of integers on one line, whatever the flags. */
static int one_line(json_object *jso, struct printbuf *pb, int level, int flags)
{
	size_t n = json_object_array_length(jso);
	(void)level;
	(void)flags;
	printbuf_strappend(pb, "[");
	for (size_t i = 0; i < n; i++)
		sprintbuf(pb, i ? ", %lld" : "%lld",
			  (long long)json_object_get_int64(json_object_array_get_idx(jso, i)));
	printbuf_strappend(pb, "]");
	return 0;
}

static void compact_histograms(json_object *doc)
{
	json_object *its = json_object_object_get(doc, "iterations");
	for (size_t i = 0; i < json_object_array_length(its); i++) {
		json_object *wl = json_object_object_get(json_object_array_get_idx(its, i), "workloads");
		for (size_t j = 0; j < json_object_array_length(wl); j++) {
			json_object *x = json_object_object_get(json_object_array_get_idx(wl, j), "extra");
			json_object *counts = x ? json_object_object_get(x, "counts") : NULL;
			for (size_t t = 0; counts && t < json_object_array_length(counts); t++)
				json_object_set_serializer(json_object_array_get_idx(counts, t), one_line,
							   NULL, NULL);
		}
	}
}

/* Write the 4 variants' results under DIR/runs; their total size. */
static long write_runs(const char *dir, int compact)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	long total = 0;
	gsl_rng_set(r, 1);
	for (int v = 0; v < 4; v++) {
		struct synth_opts so = { .variant = variants[v], .iterations = 10, .hist_buckets = 10000,
					 .hist_samples = 20000, .hist_median_us = 30,
					 .scale = 1 + 0.05 * v };
		json_object *doc = synth_doc(&so, synth_quick, SYNTH_QUICK_N, r);
		char path[512];
		struct strbuf sb = STRBUF_INIT;
		if (compact)
			compact_histograms(doc);
		snprintf(path, sizeof(path), "%s/runs/%s", dir, variants[v]);
		mkdir_p(path, 0755);
		snprintf(path, sizeof(path), "%s/runs/%s/results.json", dir, variants[v]);
		if (results_save(doc, path))
			exit(2);
		json_object_put(doc);
		read_file(path, &sb, 1u << 30);
		total += (long)sb.len;
		sb_release(&sb);
	}
	gsl_rng_free(r);
	return total;
}

static int bench(const char *dir, const char *what, long bytes)
{
	struct cmp_inputs in = { NULL, 0 };
	struct cmp_opts o;
	struct comparison c;
	double w[4], p[4];
	int ret = 1;

	cmp_opts_init(&o);
	w[0] = now_mono(), p[0] = cpu();
	if (cmp_inputs_add(&in, dir, NULL))
		goto out;
	w[1] = now_mono(), p[1] = cpu();
	if (comparison_build(&c, &in, &o))
		goto out;
	w[2] = now_mono(), p[2] = cpu();
	if (report_write_dir(&c, dir))
		goto out;
	w[3] = now_mono(), p[3] = cpu();
	printf("%s (%.1f MB of results.json)\n", what, (double)bytes / 1e6);
	printf("  load and validate 4 results.json   %6.3f s wall %6.3f s cpu\n", w[1] - w[0], p[1] - p[0]);
	printf("  statistics (%d resamples)       %6.3f s wall %6.3f s cpu\n", c.reps, w[2] - w[1],
	       p[2] - p[1]);
	printf("  comparison.json and report.html    %6.3f s wall %6.3f s cpu\n", w[3] - w[2], p[3] - p[2]);
	printf("  total                              %6.3f s wall %6.3f s cpu (budget 1 s: %s)\n",
	       w[3] - w[0], p[3] - p[0], w[3] - w[0] < 1 ? "ok" : "OVER");
	comparison_release(&c);
	ret = 0;
out:
	cmp_inputs_release(&in);
	cmp_opts_release(&o);
	return ret;
}

int main(void)
{
	char dir[] = "/tmp/kbench-report-bench.XXXXXX";
	int ret;
	double load[3];
	long bytes;

	if (!mkdtemp(dir))
		return 2;
	if (getloadavg(load, 3) == 3)
		printf("report-bench: 4 variants x 4 workloads x 10 iterations, 21 metrics, 2 histograms "
		       "of 10000 buckets x 2 threads per iteration (host load %.1f: times are %s)\n",
		       load[0], load[0] > 1 ? "inflated, run it idle" : "representative");
	bytes = write_runs(dir, 0);
	ret = bench(dir, "results.json as results_save() writes it", bytes);
	rm_rf(dir);
	mkdir_p(dir, 0755);
	bytes = write_runs(dir, 1);
	ret |= bench(dir, "histogram rows on one line", bytes);
	{
		struct strbuf sb = STRBUF_INIT;
		char out[600];
		snprintf(out, sizeof(out), "%s/report.html", dir);
		read_file(out, &sb, 64u << 20);
		printf("report.html: %zu bytes\n", sb.len);
		sb_release(&sb);
	}
	rm_rf(dir);
	return ret;
}
