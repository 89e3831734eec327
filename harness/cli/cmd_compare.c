/* cmd_compare.c - the commands that compare variants: compare, report,
 * regress and campaign (registered in kbench.c's commands[]). */
#include "cli/cmd_compare.h"
#include "core/jsonutil.h"
#include "stats/compare.h"
#include "core/config.h"
#include "history/history.h"
#include "kernel/kernel.h"
#include "stats/regress.h"
#include "report/report.h"
#include "run/results.h"
#include "run/run.h"
#include "core/spawn.h"

#include <errno.h>
#include <getopt.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { C_BASELINE = 2000, C_OUT, C_SEED, C_RESAMPLES, C_MIN_EFFECT, C_MAX_CV, C_FORCE,
       C_CURRENT, C_THRESHOLD, C_METRICS, C_JUNIT, C_MARKDOWN, C_KERNELS, C_SUITE, C_ITER,
       C_WARMUP, C_REPORTS, C_ID, C_VCPUS, C_MEM, C_ACCEL, C_BOOT_TIMEOUT, C_HELP, C_RESUME,
       C_BOOT_RETRIES };

/* Options shared by compare, report and regress; 1 if OPT was one. */
static int common_opt(int c, const char *arg, struct cmp_opts *o, int *bad)
{
	switch (c) {
	case C_SEED:
		*bad |= parse_u32_opt("--seed", arg, &o->seed) != 0;
		return 1;
	case C_RESAMPLES:
		*bad |= parse_int_opt("--resamples", arg, 100, STATS_BOOT_MAX_REPS, &o->reps) != 0;
		return 1;
	case C_MIN_EFFECT:
	case C_THRESHOLD:
		*bad |= cmp_rules_add(&o->min_effect, c == C_MIN_EFFECT ? "--min-effect" :
				      "--threshold", arg) != 0;
		return 1;
	case C_MAX_CV:
		*bad |= cmp_rules_add(&o->max_cv, "--max-cv", arg) != 0;
		return 1;
	case C_FORCE:
		o->force = 1;
		return 1;
	}
	return 0;
}

#define COMMON_LONGOPTS                                                    \
	{ "seed", required_argument, NULL, C_SEED },                       \
	{ "resamples", required_argument, NULL, C_RESAMPLES },             \
	{ "min-effect", required_argument, NULL, C_MIN_EFFECT },           \
	{ "max-cv", required_argument, NULL, C_MAX_CV },                   \
	{ "force", no_argument, NULL, C_FORCE },                           \
	{ "help", no_argument, NULL, C_HELP }

static const char compare_usage[] =
	"usage: kbench compare RESULTS... [--baseline VARIANT] [--out DIR]\n"
	"         [--seed N] [--resamples N] [--min-effect METRIC=PCT]... [--max-cv METRIC=PCT]...\n"
	"         [--force]\n"
	"  RESULTS: results.json files, run directories or directories of runs\n"
	"  --out DIR writes DIR/comparison.json and DIR/report.html\n";

/* Build, print, and (with DIR) write comparison.json and report.html. */
static int compare_and_write(const struct cmp_inputs *in, const struct cmp_opts *o,
			     const char *dir, json_object *campaign)
{
	struct comparison c;
	int ret = KB_EXIT_OK;
	if (comparison_build(&c, in, o)) {
		json_object_put(campaign);
		comparison_release(&c);
		return KB_EXIT_USAGE;
	}
	c.campaign = campaign;
	comparison_print(&c, stdout);
	if (dir) {
		if (mkdir_p(dir, 0755) || report_write_dir(&c, dir))
			ret = KB_EXIT_USAGE;
		else
			printf("comparison: %s/comparison.json\nreport:     %s/report.html\n", dir, dir);
	}
	comparison_release(&c);
	return ret;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "baseline", required_argument, NULL, C_BASELINE },
		{ "out", required_argument, NULL, C_OUT },
		COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct cmp_opts o;
	struct cmp_inputs in = { NULL, 0 };
	const char *out = NULL;
	int c, bad = 0, ret = KB_EXIT_USAGE;

	cmp_opts_init(&o);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (common_opt(c, optarg, &o, &bad))
			continue;
		switch (c) {
		case C_BASELINE:
			o.baseline = optarg;
			break;
		case C_OUT:
			out = optarg;
			break;
		case C_HELP:
			fputs(compare_usage, stdout);
			ret = KB_EXIT_OK;
			goto out;
		default:
			error("unknown option '%s'", argv[optind - 1]);
			fputs(compare_usage, stderr);
			goto out;
		}
	}
	if (bad)
		goto out;
	if (optind >= argc) {
		fputs(compare_usage, stderr);
		goto out;
	}
	for (int i = optind; i < argc; i++)
		bad |= cmp_inputs_add(&in, argv[i], NULL) != 0;
	if (bad)
		goto out;
	ret = compare_and_write(&in, &o, out, NULL);
out:
	cmp_inputs_release(&in);
	cmp_opts_release(&o);
	return ret;
}

/* A directory's campaign.json (NULL when absent); -1 if unreadable. */
static int load_campaign(const char *dir, json_object **out)
{
	char path[KB_PATH_MAX];
	*out = NULL;
	snprintf(path, sizeof(path), "%s/campaign.json", dir);
	if (!path_exists(path))
		return 0;
	*out = json_object_from_file(path);
	if (!*out || !json_object_is_type(*out, json_type_object)) {
		json_object_put(*out);
		*out = NULL;
		return error("'%s': not a JSON object", path);
	}
	return 0;
}

/* The campaign's variant order as an array of borrowed strings. */
static const char **campaign_order(json_object *camp, size_t *n)
{
	json_object *v = camp ? json_object_object_get(camp, "variants") : NULL;
	const char **order;
	*n = 0;
	if (!v || !json_object_is_type(v, json_type_array))
		return NULL;
	order = xcalloc(json_object_array_length(v) + 1, sizeof(*order));
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		json_object *s = json_object_array_get_idx(v, i);
		if (json_object_is_type(s, json_type_string))
			order[(*n)++] = json_object_get_string(s);
	}
	return order;
}

static const char report_usage[] =
	"usage: kbench report DIR [--baseline VARIANT] [--seed N] [--resamples N]\n"
	"         [--min-effect METRIC=PCT]... [--max-cv METRIC=PCT]... [--force]\n"
	"  DIR holds the variants' results (DIR/runs/*/results.json or DIR/*/results.json);\n"
	"  writes DIR/comparison.json and DIR/report.html\n";

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "baseline", required_argument, NULL, C_BASELINE },
		COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct cmp_opts o;
	struct cmp_inputs in = { NULL, 0 };
	json_object *camp = NULL, *old = NULL;
	const char **order = NULL;
	char path[KB_PATH_MAX];
	int c, bad = 0, ret = KB_EXIT_USAGE;

	cmp_opts_init(&o);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (common_opt(c, optarg, &o, &bad))
			continue;
		switch (c) {
		case C_BASELINE:
			o.baseline = optarg;
			break;
		case C_HELP:
			fputs(report_usage, stdout);
			ret = KB_EXIT_OK;
			goto out;
		default:
			error("unknown option '%s'", argv[optind - 1]);
			fputs(report_usage, stderr);
			goto out;
		}
	}
	if (bad)
		goto out;
	if (optind != argc - 1) {
		fputs(report_usage, stderr);
		goto out;
	}
	if (load_campaign(argv[optind], &camp))
		goto out;
	order = campaign_order(camp, &o.norder);
	o.order = order;
	if (!o.baseline && o.norder)
		o.baseline = order[0];
	/* keep the baseline and seed an earlier comparison used */
	snprintf(path, sizeof(path), "%s/comparison.json", argv[optind]);
	if (!o.baseline && path_exists(path) && (old = json_object_from_file(path))) {
		json_object *b = json_object_object_get(old, "baseline");
		if (b && json_object_is_type(b, json_type_string))
			o.baseline = json_object_get_string(b);
	}
	if (cmp_inputs_add(&in, argv[optind], NULL))
		goto out;
	ret = compare_and_write(&in, &o, argv[optind], camp);
	camp = NULL;
out:
	json_object_put(camp);
	json_object_put(old);
	free(order);
	cmp_inputs_release(&in);
	cmp_opts_release(&o);
	return ret;
}

static const char regress_usage[] =
	"usage: kbench regress --baseline RESULTS --current RESULTS\n"
	"         [--threshold METRIC=PCT]... [--max-cv METRIC=PCT]... [--metrics LIST]\n"
	"         [--junit FILE] [--markdown FILE] [--seed N] [--force]\n"
	"  RESULTS: a results.json or run directory (repeat the option to pool runs)\n"
	"  --threshold: the smallest change that counts (default 2% throughput/time,\n"
	"    5% central latencies, 10% latency tails); METRIC is label.metric,\n"
	"    workload.metric or metric\n"
	"  --metrics LIST: judge only these (comma-separated, same forms)\n"
	"  JUnit XML and Markdown go next to the first current run by default\n"
	"    (regress.xml, regress.md)\n"
	"exit status: 0 nothing regressed, 1 a metric regressed beyond its threshold,\n"
	"  2 harness error (failed boot, missing metric, corrupt file), 3 too noisy to decide\n";

/* Where regress.xml goes by default: beside the current run's results. */
static void default_out(const char *current, const char *name, char *out, size_t len)
{
	char tmp[KB_PATH_MAX];
	size_t l = strlen(current);
	if (l > 5 && !strcmp(current + l - 5, ".json")) {
		snprintf(tmp, sizeof(tmp), "%s", current);
		snprintf(out, len, "%s/%s", dirname(tmp), name);
	} else {
		snprintf(out, len, "%s/%s", current, name);
	}
}

/* A JUnit file saying the comparison could not be made (exit 2). */
static void junit_harness_error(const char *path)
{
	static const char xml[] =
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuites name=\"kbench regress\" tests=\"1\" failures=\"0\" errors=\"1\">\n"
		"  <testsuite name=\"kbench regress\" package=\"kbench\" id=\"0\" tests=\"1\" failures=\"0\" "
		"errors=\"1\" skipped=\"0\" time=\"0\" timestamp=\"%s\" hostname=\"localhost\">\n"
		"    <properties/>\n"
		"    <testcase classname=\"kbench\" name=\"load\" time=\"0\">\n"
		"      <error type=\"harness-error\" message=\"the results could not be loaded or "
		"compared: see kbench's error messages in the job log\"/>\n"
		"    </testcase>\n"
		"    <system-out/>\n"
		"    <system-err/>\n"
		"  </testsuite>\n"
		"</testsuites>\n";
	char ts[32], *s;
	iso8601_now(ts, sizeof(ts));
	ts[19] = 0; /* the Ant schema's timestamp has no zone */
	s = xasprintf(xml, ts);
	if (write_file_atomic(path, s, strlen(s)) == 0)
		fprintf(stderr, "kbench: harness error recorded in %s\n", path);
	free(s);
}

int cmd_regress(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "baseline", required_argument, NULL, C_BASELINE },
		{ "current", required_argument, NULL, C_CURRENT },
		{ "threshold", required_argument, NULL, C_THRESHOLD },
		{ "metrics", required_argument, NULL, C_METRICS },
		{ "junit", required_argument, NULL, C_JUNIT },
		{ "markdown", required_argument, NULL, C_MARKDOWN },
		COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct cmp_opts o;
	struct cmp_inputs in = { NULL, 0 };
	struct strvec base = STRVEC_INIT, cur = STRVEC_INIT, only = STRVEC_INIT;
	struct comparison cmp;
	struct regress r;
	struct strbuf xml = STRBUF_INIT, md = STRBUF_INIT;
	const char *junit = NULL, *markdown = NULL;
	char junit_def[KB_PATH_MAX], md_def[KB_PATH_MAX];
	int c, bad = 0, ret = KB_EXIT_USAGE, built = 0;

	memset(&r, 0, sizeof(r));
	memset(&cmp, 0, sizeof(cmp));
	cmp_opts_init(&o);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (common_opt(c, optarg, &o, &bad))
			continue;
		switch (c) {
		case C_BASELINE:
			strvec_push(&base, optarg);
			break;
		case C_CURRENT:
			strvec_push(&cur, optarg);
			break;
		case C_METRICS: {
			char *list = xstrdup(optarg), *save = NULL;
			for (char *t = strtok_r(list, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
				strvec_push(&only, t);
			free(list);
			break;
		}
		case C_JUNIT:
			junit = optarg;
			break;
		case C_MARKDOWN:
			markdown = optarg;
			break;
		case C_HELP:
			fputs(regress_usage, stdout);
			ret = KB_EXIT_OK;
			goto out;
		default:
			error("unknown option '%s'", argv[optind - 1]);
			fputs(regress_usage, stderr);
			goto out;
		}
	}
	if (bad)
		goto out;
	if (!base.n || !cur.n || optind < argc) {
		if (optind < argc)
			error("unexpected argument '%s'", argv[optind]);
		fputs(regress_usage, stderr);
		goto out;
	}
	default_out(cur.v[0], "regress.xml", junit_def, sizeof(junit_def));
	default_out(cur.v[0], "regress.md", md_def, sizeof(md_def));
	if (!junit)
		junit = junit_def;
	if (!markdown)
		markdown = md_def;
	for (size_t i = 0; i < base.n; i++)
		bad |= cmp_inputs_add(&in, base.v[i], "baseline") != 0;
	for (size_t i = 0; i < cur.n; i++)
		bad |= cmp_inputs_add(&in, cur.v[i], "current") != 0;
	if (!bad) {
		o.baseline = "baseline";
		bad = comparison_build(&cmp, &in, &o) != 0;
		built = 1;
	}
	if (bad || cmp.ng != 2) {
		junit_harness_error(junit);
		goto out;
	}
	regress_judge(&cmp, (const char *const *)only.v, only.n, &r);
	regress_junit(&cmp, &r, &xml);
	regress_markdown(&cmp, &r, &md);
	fputs(md.buf, stdout);
	if (write_file_atomic(junit, xml.buf, xml.len) || write_file_atomic(markdown, md.buf, md.len))
		goto out;
	printf("\njunit: %s\nmarkdown: %s\n", junit, markdown);
	ret = r.exit_code;
out:
	if (built)
		comparison_release(&cmp);
	regress_release(&r);
	sb_release(&xml);
	sb_release(&md);
	strvec_clear(&base);
	strvec_clear(&cur);
	strvec_clear(&only);
	cmp_inputs_release(&in);
	cmp_opts_release(&o);
	return ret;
}

/* ---- campaign ---- */

static const char campaign_usage[] =
	"usage: kbench campaign [--kernels \"A B ...\"] [--suite SUITE] [--iterations N]\n"
	"         [--warmup N] [--seed N] [--baseline VARIANT] [--id ID] [--reports DIR]\n"
	"         [--vcpus N] [--memory MiB] [--accel auto|kvm|tcg] [--boot-timeout S] [--boot-retries N]\n"
	"       kbench campaign --resume ID|DIR   finish an interrupted campaign\n"
	"  runs every variant interleaved: iteration i of every variant before\n"
	"  iteration i+1 of any, in an order shuffled per round (seeded, recorded);\n"
	"  --warmup N discarded rounds first. Writes REPORTS/compare/ID/ with each\n"
	"  run's results, campaign.json, comparison.json and report.html.\n"
	"  default --kernels: every variant whose kernel can be had (prebuilt\n"
	"  packages, and source-built variants already built); default suite quick\n";

/* Variants that can be had without a long build: Debian images (fetched
 * on demand) and source-built variants already in the build cache. */
static void default_kernels(struct strvec *out)
{
	char *names = variant_names(), *save = NULL;
	for (char *n = strtok_r(names, " ", &save); n; n = strtok_r(NULL, " ", &save)) {
		struct variant v;
		struct kernel_image k;
		if (variant_load(n, &v) || v.test_only)
			continue;
		if (v.source == VSRC_DEBIAN_IMAGE || kernel_cached(&v, &k) == 0)
			strvec_push(out, v.name);
	}
	free(names);
}

struct campaign {
	json_object *doc;   /* campaign.json */
	char dir[KB_PATH_MAX];
	char path[KB_PATH_MAX];
	int resume;         /* finish runs already there, skip complete ones */
};

static int campaign_save(struct campaign *cp)
{
	return results_save(cp->doc, cp->path);
}

/* A JSON file we wrote ourselves (campaign.json); NULL after an error. */
static json_object *load_json_file(const char *path)
{
	json_object *o = json_object_from_file(path);
	if (!o)
		error("'%s': not readable JSON (%s)", path, json_util_get_last_err());
	return o;
}

/* One (variant, round) run: iterations = 1, results in DIR/runs/RUN_ID. */
static int campaign_run(struct campaign *cp, const struct run_opts *base, const char *variant,
			int round, int rounds, int warm, int pos, int npos)
{
	struct run_opts o = *base;
	struct run_result r;
	char id[256], reports[KB_PATH_MAX];
	json_object *e = json_object_new_object();
	int rc;
	snprintf(id, sizeof(id), "%s%02d-%s", warm ? "w" : "r", round, variant);
	snprintf(reports, sizeof(reports), "%s%s", cp->dir, warm ? "/warmup" : "");
	o.kernel = variant;
	o.iterations = 1;
	o.run_id = id;
	o.reports = reports;
	o.no_latest = 1;
	o.quiet_summary = 1;
	if (cp->resume) {
		/* the same (round, variant) run as before: done, finish it, or
		 * (never started) run it */
		char dir[KB_PATH_MAX + 300], res[KB_PATH_MAX + 320];
		json_object *runs = json_object_object_get(cp->doc, "runs"), *old;
		snprintf(dir, sizeof(dir), "%s/runs/%s", reports, id);
		snprintf(res, sizeof(res), "%s/results.json", dir);
		for (size_t i = 0; i < json_object_array_length(runs); i++)
			if (!strcmp(or_empty(jstr(json_object_array_get_idx(runs, i), "run_id")), id)) {
				json_object_array_del_idx(runs, i, 1);
				break;
			}
		if (path_exists(res)) {
			old = results_load(res);
			if (old && !strcmp(or_empty(jstr(old, "status")), "complete")) {
				printf("kbench campaign: %s %d/%d: %s done\n", warm ? "warm-up round" : "round",
				       round, rounds, variant);
				rc = KB_EXIT_OK;
				json_object_put(old);
				goto record;
			}
			json_object_put(old);
			o.resume = dir;
		} else if (path_exists(dir)) {
			/* killed before its first save: start it afresh */
			rm_rf(dir);
		}
	}
	printf("kbench campaign: %s %d/%d, run %d/%d: %s\n", warm ? "warm-up round" : "round", round,
	       rounds, pos, npos, variant);
	rc = run_bench(&o, &r);
	run_result_release(&r);
record:
	json_object_object_add(e, "round", json_object_new_int(round));
	json_object_object_add(e, "warmup", json_object_new_boolean(warm));
	json_object_object_add(e, "position", json_object_new_int(pos));
	json_object_object_add(e, "variant", json_object_new_string(variant));
	json_object_object_add(e, "run_id", json_object_new_string(id));
	json_object_object_add(e, "exit", json_object_new_int(rc));
	json_object_array_add(json_object_object_get(cp->doc, "runs"), e);
	campaign_save(cp);
	return rc;
}

int cmd_campaign(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "kernels", required_argument, NULL, C_KERNELS },
		{ "suite", required_argument, NULL, C_SUITE },
		{ "iterations", required_argument, NULL, C_ITER },
		{ "warmup", required_argument, NULL, C_WARMUP },
		{ "seed", required_argument, NULL, C_SEED },
		{ "baseline", required_argument, NULL, C_BASELINE },
		{ "id", required_argument, NULL, C_ID },
		{ "reports", required_argument, NULL, C_REPORTS },
		{ "vcpus", required_argument, NULL, C_VCPUS },
		{ "memory", required_argument, NULL, C_MEM },
		{ "accel", required_argument, NULL, C_ACCEL },
		{ "boot-timeout", required_argument, NULL, C_BOOT_TIMEOUT },
		{ "boot-retries", required_argument, NULL, C_BOOT_RETRIES },
		{ "resume", required_argument, NULL, C_RESUME },
		{ "help", no_argument, NULL, C_HELP },
		{ NULL, 0, NULL, 0 },
	};
	struct run_opts ro = { .suite = "quick" };
	const char *resume = NULL;
	struct strvec kernels = STRVEC_INIT;
	struct campaign cp = { NULL, "", "", 0 };
	struct cmp_opts co;
	struct cmp_inputs in = { NULL, 0 };
	struct suite s;
	gsl_rng *rng = NULL;
	uint32_t seed = (uint32_t)time(NULL) ^ (uint32_t)getpid();
	const char *reports = NULL, *id = NULL, *baseline = NULL;
	char idbuf[128], ts[32];
	int c, iterations = 0, warmup = 0, ret = KB_EXIT_USAGE, failed = 0, stop = 0;
	size_t *order = NULL;
	json_object *ord, *camp_copy;

	memset(&s, 0, sizeof(s));
	cmp_opts_init(&co);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		int bad = 0;
		switch (c) {
		case C_KERNELS: {
			char *list = xstrdup(optarg), *save = NULL;
			for (char *t = strtok_r(list, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
				strvec_push(&kernels, t);
			free(list);
			break;
		}
		case C_SUITE:
			ro.suite = optarg;
			break;
		case C_ITER:
			bad = parse_int_opt("--iterations", optarg, 1, 1000, &iterations);
			break;
		case C_WARMUP:
			bad = parse_int_opt("--warmup", optarg, 0, 100, &warmup);
			break;
		case C_SEED:
			bad = parse_u32_opt("--seed", optarg, &seed);
			break;
		case C_BASELINE:
			baseline = optarg;
			break;
		case C_ID:
			id = optarg;
			break;
		case C_REPORTS:
			reports = optarg;
			break;
		case C_VCPUS:
			bad = parse_int_opt("--vcpus", optarg, 1, 256, &ro.vcpus);
			break;
		case C_MEM:
			bad = parse_int_opt("--memory", optarg, 256, 1 << 20, &ro.mem_mb);
			break;
		case C_BOOT_TIMEOUT:
			bad = parse_int_opt("--boot-timeout", optarg, 1, 3600, &ro.boot_timeout_s);
			break;
		case C_BOOT_RETRIES:
			bad = parse_int_opt("--boot-retries", optarg, 0, 10, &ro.boot_retries);
			ro.boot_retries_set = 1;
			break;
		case C_ACCEL:
			bad = accel_parse(optarg, &ro.accel);
			break;
		case C_RESUME:
			resume = optarg;
			break;
		case C_HELP:
			fputs(campaign_usage, stdout);
			ret = KB_EXIT_OK;
			goto out;
		default:
			error("unknown option '%s'", argv[optind - 1]);
			fputs(campaign_usage, stderr);
			goto out;
		}
		if (bad)
			goto out;
	}
	if (optind < argc) {
		error("unexpected argument '%s' (the variants go in --kernels)", argv[optind]);
		goto out;
	}
	if (resume) {
		/* everything as the campaign recorded it: variants, suite, rounds,
		 * seed (so the shuffled order comes out the same) and guest */
		json_object *vs, *g;
		if (kernels.n || id || baseline) {
			error("--resume takes the campaign's own variants, id and baseline");
			goto out;
		}
		if (strchr(resume, '/'))
			snprintf(cp.dir, sizeof(cp.dir), "%s", resume);
		else if (reports)
			snprintf(cp.dir, sizeof(cp.dir), "%s/compare/%s", reports, resume);
		else
			snprintf(cp.dir, sizeof(cp.dir), "%s/reports/compare/%s", kb_home(), resume);
		snprintf(cp.path, sizeof(cp.path), "%s/campaign.json", cp.dir);
		if (!path_exists(cp.path)) {
			error("--resume: '%s' has no campaign.json", cp.dir);
			goto out;
		}
		cp.doc = load_json_file(cp.path);
		if (!cp.doc || strcmp(or_empty(jstr(cp.doc, "schema")), "kbench-campaign") ||
		    !json_object_is_type(vs = jget(cp.doc, "variants"), json_type_array) ||
		    !jstr(cp.doc, "suite_path")) {
			error("--resume: '%s' is not a campaign this kbench can resume (no variants or "
			      "suite_path)", cp.path);
			goto out;
		}
		for (size_t i = 0; i < json_object_array_length(vs); i++)
			strvec_push(&kernels, json_object_get_string(json_object_array_get_idx(vs, i)));
		ro.suite = jstr(cp.doc, "suite_path");
		iterations = json_object_get_int(jget(cp.doc, "iterations"));
		warmup = json_object_get_int(jget(cp.doc, "warmup_rounds"));
		seed = (uint32_t)json_object_get_int64(jget(cp.doc, "seed"));
		id = jstr(cp.doc, "id");
		if ((g = jget(cp.doc, "guest"))) {
			ro.vcpus = json_object_get_int(jget(g, "vcpus"));
			ro.mem_mb = json_object_get_int(jget(g, "mem_mb"));
			ro.boot_timeout_s = json_object_get_int(jget(g, "boot_timeout_s"));
			ro.accel = (enum accel)json_object_get_int(jget(g, "accel"));
			if (jget(g, "boot_retries")) {
				ro.boot_retries = json_object_get_int(jget(g, "boot_retries"));
				ro.boot_retries_set = 1;
			}
		}
		cp.resume = 1;
	}
	if (!kernels.n)
		default_kernels(&kernels);
	if (!kernels.n) {
		error("no kernel variant can be had (see kbench kernels)");
		goto out;
	}
	/* check every name before booting anything */
	for (size_t i = 0; i < kernels.n; i++) {
		struct variant v;
		if (variant_load(kernels.v[i], &v))
			goto out;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(kernels.v[j], kernels.v[i])) {
				error("variant '%s' named twice in --kernels", kernels.v[i]);
				goto out;
			}
	}
	if (baseline) {
		size_t i;
		for (i = 0; i < kernels.n && strcmp(kernels.v[i], baseline); i++)
			;
		if (i == kernels.n) {
			error("baseline '%s' is not in --kernels", baseline);
			goto out;
		}
	}
	if (suite_load(ro.suite, ro.vcpus > 0 ? ro.vcpus : 1, &s))
		goto out;
	if (!iterations)
		iterations = s.iterations;
	if (s.warmup)
		warning("suite '%s' has warmup = %d: run_bench repeats it before every round's "
			"iteration (use --warmup for one discarded round instead)", s.name, s.warmup);
	if (!id) {
		time_t t = time(NULL);
		struct tm tm;
		gmtime_r(&t, &tm);
		strftime(ts, sizeof(ts), "%Y%m%dT%H%M%SZ", &tm);
		snprintf(idbuf, sizeof(idbuf), "%s-%s", ts, s.name);
		id = idbuf;
	}
	if (!*id || strchr(id, '/') || !strcmp(id, ".") || !strcmp(id, "..")) {
		error("--id '%s' must be a plain directory name", id);
		goto out;
	}
	if (cp.resume)
		goto resumed;
	if (reports)
		snprintf(cp.dir, sizeof(cp.dir), "%s/compare/%s", reports, id);
	else
		snprintf(cp.dir, sizeof(cp.dir), "%s/reports/compare/%s", kb_home(), id);
	if (path_exists(cp.dir)) {
		error("campaign directory '%s' already exists", cp.dir);
		goto out;
	}
	if (mkdir_p(cp.dir, 0755))
		goto out;
	snprintf(cp.path, sizeof(cp.path), "%s/campaign.json", cp.dir);
	/* baseline first: the comparison's order follows the campaign's */
	if (baseline)
		for (size_t i = 1; i < kernels.n; i++)
			if (!strcmp(kernels.v[i], baseline)) {
				char *t = kernels.v[i];
				memmove(&kernels.v[1], &kernels.v[0], i * sizeof(char *));
				kernels.v[0] = t;
			}
	iso8601_now(ts, sizeof(ts));
	cp.doc = json_object_new_object();
	json_object_object_add(cp.doc, "schema", json_object_new_string("kbench-campaign"));
	json_object_object_add(cp.doc, "schema_version", json_object_new_int(1));
	json_object_object_add(cp.doc, "id", json_object_new_string(id));
	json_object_object_add(cp.doc, "started", json_object_new_string(ts));
	json_object_object_add(cp.doc, "finished", NULL);
	json_object_object_add(cp.doc, "suite", json_object_new_string(s.name));
	json_object_object_add(cp.doc, "suite_path", json_object_new_string(s.path));
	{
		json_object *g = json_object_new_object();
		json_object_object_add(g, "vcpus", json_object_new_int(ro.vcpus));
		json_object_object_add(g, "mem_mb", json_object_new_int(ro.mem_mb));
		json_object_object_add(g, "boot_timeout_s", json_object_new_int(ro.boot_timeout_s));
		json_object_object_add(g, "accel", json_object_new_int((int)ro.accel));
		if (ro.boot_retries_set)
			json_object_object_add(g, "boot_retries", json_object_new_int(ro.boot_retries));
		json_object_object_add(cp.doc, "guest", g);
	}
	json_object_object_add(cp.doc, "iterations", json_object_new_int(iterations));
	json_object_object_add(cp.doc, "warmup_rounds", json_object_new_int(warmup));
	json_object_object_add(cp.doc, "seed", json_object_new_int64(seed));
	json_object_object_add(cp.doc, "shuffle", json_object_new_string(
		"gsl_ran_shuffle, gsl mt19937 seeded with seed, one shuffle per round (warm-up first)"));
	ord = json_object_new_array();
	for (size_t i = 0; i < kernels.n; i++)
		json_object_array_add(ord, json_object_new_string(kernels.v[i]));
	json_object_object_add(cp.doc, "variants", ord);
	json_object_object_add(cp.doc, "order", json_object_new_array());
	json_object_object_add(cp.doc, "runs", json_object_new_array());
	if (campaign_save(&cp))
		goto out;
resumed:
	if (cp.resume) {
		json_object *rs = jget(cp.doc, "resumed");
		if (!rs) {
			rs = json_object_new_array();
			json_object_object_add(cp.doc, "resumed", rs);
		}
		iso8601_now(ts, sizeof(ts));
		json_object_array_add(rs, json_object_new_string(ts));
		/* the order is drawn again from the seed, the same as before */
		json_object_object_add(cp.doc, "order", json_object_new_array());
		json_object_object_add(cp.doc, "status", json_object_new_string("running"));
		if (campaign_save(&cp))
			goto out;
	}
	printf("kbench campaign %s: %zu variants, suite %s, %d round%s%s, seed %u\n", id, kernels.n,
	       s.name, iterations, iterations == 1 ? "" : "s",
	       warmup ? " after warm-up" : "", (unsigned)seed);

	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, seed);
	order = xcalloc(kernels.n, sizeof(size_t));
	ret = KB_EXIT_OK;
	for (int round = 1 - warmup; round <= iterations && !stop && !kb_interrupted; round++) {
		int warm = round <= 0;
		json_object *ro_json = json_object_new_array();
		for (size_t i = 0; i < kernels.n; i++)
			order[i] = i;
		gsl_ran_shuffle(rng, order, kernels.n, sizeof(size_t));
		for (size_t i = 0; i < kernels.n; i++)
			json_object_array_add(ro_json, json_object_new_string(kernels.v[order[i]]));
		json_object_array_add(json_object_object_get(cp.doc, "order"), ro_json);
		for (size_t i = 0; i < kernels.n && !kb_interrupted; i++) {
			int rc = campaign_run(&cp, &ro, kernels.v[order[i]], warm ? round + warmup : round,
					      warm ? warmup : iterations, warm, (int)i + 1, (int)kernels.n);
			if (rc == KB_EXIT_USAGE && !kb_interrupted) {
				error("campaign stopped: %s could not run (see above)", kernels.v[order[i]]);
				stop = 1;
				ret = KB_EXIT_USAGE;
				break;
			}
			if (rc)
				failed = 1;
		}
	}
	iso8601_now(ts, sizeof(ts));
	json_object_object_add(cp.doc, "finished", json_object_new_string(ts));
	json_object_object_add(cp.doc, "status", json_object_new_string(
		kb_interrupted ? "interrupted" : stop ? "stopped" : "complete"));
	campaign_save(&cp);
	{
		char runs[KB_PATH_MAX];
		snprintf(runs, sizeof(runs), "%s/runs", cp.dir);
		if (!path_exists(runs)) {
			error("no run finished: nothing to compare");
			ret = KB_EXIT_USAGE;
			goto out;
		}
	}
	if (cmp_inputs_add(&in, cp.dir, NULL)) {
		ret = KB_EXIT_USAGE;
		goto out;
	}
	/* the finished runs go into the history (docs/nightly.md) */
	{
		json_object **docs = xcalloc(in.n + 1, sizeof(*docs));
		char **dirs = xcalloc(in.n + 1, sizeof(*dirs));
		for (size_t i = 0; i < in.n; i++) {
			docs[i] = in.v[i].doc;
			dirs[i] = xstrdup(in.v[i].path);
			dirname(dirs[i]);
		}
		if (history_record_default(reports, docs, (const char *const *)dirs, in.n))
			ret = KB_EXIT_USAGE;
		for (size_t i = 0; i < in.n; i++)
			free(dirs[i]);
		free(dirs);
		free(docs);
	}
	co.order = (const char *const *)kernels.v;
	co.norder = kernels.n;
	co.baseline = kernels.v[0];
	camp_copy = json_object_get(cp.doc);
	{
		int r = compare_and_write(&in, &co, cp.dir, camp_copy);
		if (r)
			ret = r;
	}
	if (ret == KB_EXIT_OK && (failed || kb_interrupted))
		ret = KB_EXIT_FAILED;
out:
	if (rng)
		gsl_rng_free(rng);
	free(order);
	json_object_put(cp.doc);
	suite_release(&s);
	strvec_clear(&kernels);
	cmp_inputs_release(&in);
	cmp_opts_release(&co);
	return ret;
}
