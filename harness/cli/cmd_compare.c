/* cmd_compare.c - the commands that compare variants: compare, report,
 * and regress (registered in kbench.c's commands[]). */
#include "cli/cmd_compare.h"
#include "core/jsonutil.h"
#include "stats/compare.h"
#include "core/config.h"
#include "history/history.h"
#include "report/regress_out.h"
#include "report/junit.h"
#include "report/report.h"
#include "run/results.h"
#include "core/spawn.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { C_BASELINE = 2000, C_OUT, C_SEED, C_RESAMPLES, C_MIN_EFFECT, C_MAX_CV, C_FORCE,
       C_CURRENT, C_THRESHOLD, C_METRICS, C_JUNIT, C_MARKDOWN, C_SEED_ROLES, C_HELP };

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
	case C_SEED_ROLES:
		o->seed_roles = arg;
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
	{ "seed-roles", required_argument, NULL, C_SEED_ROLES },           \
	{ "help", no_argument, NULL, C_HELP }

static const char compare_usage[] =
	"usage: kbench compare RESULTS... [--baseline VARIANT] [--out DIR]\n"
	"         [--seed N] [--resamples N] [--min-effect METRIC=PCT]... [--max-cv METRIC=PCT]...\n"
	"         [--force] [--seed-roles MAINLINE,RT,ADAPTIVE]\n"
	"  RESULTS: results.json files, run directories or directories of runs\n"
	"  --seed-roles: the variants of the 2008 table (default mainline,rt,rt-adaptive)\n"
	"  --out DIR writes DIR/comparison.json and DIR/report.html\n";

/* Build, print, and (with DIR) write comparison.json and report.html. */
int compare_and_write(const struct cmp_inputs *in, const struct cmp_opts *o,
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

/* The option loop of compare and report: the common options into O,
 * --baseline into O->baseline and --out into *OUT. Returns -1 to go on,
 * or the exit status (after --help, or a bad option with USAGE shown). */
static int parse_cmp_args(int argc, char **argv, const struct option *longopts,
			  const char *usage, struct cmp_opts *o, const char **out)
{
	int c, bad = 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (common_opt(c, optarg, o, &bad))
			continue;
		switch (c) {
		case C_BASELINE:
			o->baseline = optarg;
			break;
		case C_OUT:
			*out = optarg;
			break;
		case C_HELP:
			fputs(usage, stdout);
			return KB_EXIT_OK;
		default:
			error("unknown option '%s'", argv[optind - 1]);
			fputs(usage, stderr);
			return KB_EXIT_USAGE;
		}
	}
	return bad ? KB_EXIT_USAGE : -1;
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
	int bad = 0, ret;

	cmp_opts_init(&o);
	if ((ret = parse_cmp_args(argc, argv, longopts, compare_usage, &o, &out)) >= 0)
		goto out;
	ret = KB_EXIT_USAGE;
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
	"         [--seed-roles MAINLINE,RT,ADAPTIVE]\n"
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
	const char *no_out = NULL;
	int ret;

	cmp_opts_init(&o);
	if ((ret = parse_cmp_args(argc, argv, longopts, report_usage, &o, &no_out)) >= 0)
		goto out;
	ret = KB_EXIT_USAGE;
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
	const struct junit_case k = {
		"kbench", "load", "error", "harness-error",
		"the results could not be loaded or compared: see kbench's error messages in the job log",
		NULL
	};
	char ts[32];
	iso8601_now(ts, sizeof(ts));
	if (junit_write(&(struct junit){ .name = "kbench regress", .suite = "kbench regress",
					 .timestamp = ts, .cases = &k, .ncases = 1 }, path) == 0)
		fprintf(stderr, "kbench: harness error recorded in %s\n", path);
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
