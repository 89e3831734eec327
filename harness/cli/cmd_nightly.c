/* cmd_nightly.c - `kbench nightly`: fetch or build the variants named in
 * configs/nightly.ini, run the suite, record the runs in the history as
 * one night, judge each variant against the last good night and against
 * the pinned baseline night with kbench regress's rules, and write the
 * night's report (with trends and change points), JUnit XML, a Markdown
 * summary and nightly.json. Exit status: regress's, the worst over every
 * judgement (2 error, then 1 regression, then 3 too noisy, then 0).
 * Layout and method: docs/nightly.md. */
#include "cli/cmd_nightly.h"
#include "cli/runopts.h"
#include "core/ids.h"
#include "report/junit.h"
#include "report/markdown.h"
#include "stats/compare.h"
#include "core/config.h"
#include "history/history.h"
#include "core/jsonutil.h"
#include "kernel/kernel.h"
#include "run/results.h"
#include "report/regress_out.h"
#include "report/report.h"
#include "run/targetcfg.h"
#include "run/results.h"
#include "run/run.h"
#include "core/spawn.h"
#include "history/trend.h"
#include "history/verdict.h"
#include "stats/regress.h"

#include <errno.h>
#include <getopt.h>
#include <ini.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int nightly_worst(int a, int b)
{
	static const int rank[] = { 0, 2, 3, 1 }; /* by exit code 0..3 */
	int ra = a >= 0 && a <= 3 ? rank[a] : 3, rb = b >= 0 && b <= 3 ? rank[b] : 3;
	return ra >= rb ? (a >= 0 && a <= 3 ? a : 2) : (b >= 0 && b <= 3 ? b : 2);
}

/* ---- configs/nightly.ini ---- */

struct nightly_cfg {
	char path[KB_PATH_MAX];
	char suite[OPT_STR_MAX];
	int iterations;            /* 0: the suite's */
	int refresh;               /* look for newer Debian images first */
	struct strvec variants;
	char baseline[128];        /* pinned night id; "" none */
	char reports[KB_PATH_MAX]; /* "" default */
	char lab[KB_PATH_MAX];     /* where the night runs: a lab (configs/labs) ... */
	char target[KB_PATH_MAX];  /* ... or a machine (configs/targets); "" QEMU here */
	struct cmp_opts co;        /* thresholds, noise limits */
	struct strvec metrics;     /* judge only these */
	struct verdict_opts vo;    /* levels, anchors and how a regression ends */
	int trend_nights;          /* trends and change points over the latest N nights */
	int seen;
	char err[300];
};

static void split_words(struct strvec *out, const char *s)
{
	char *list = xstrdup(s), *save = NULL;
	for (char *t = strtok_r(list, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save))
		strvec_push(out, t);
	free(list);
}

/* The numeric keys of the verdicts: 1 when NAME is one (C->err set when
 * VALUE is out of range), 0 when it is not. */
static int cfg_number(struct nightly_cfg *c, const char *name, const char *value)
{
	static const struct {
		const char *name;
		double lo, hi;
		int integer;
	} keys[] = {
		{ "window", 2, 100, 1 }, { "alpha", 1e-9, 0.5, 0 }, { "clear_alpha", 1e-6, 0.9, 0 },
		{ "clear_nights", 1, 30, 1 }, { "trend_nights", 0, 100000, 1 },
	};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char *end;
		double v;
		if (strcmp(name, keys[i].name))
			continue;
		v = strtod(value, &end);
		if (!*value || *end || !(v >= keys[i].lo && v <= keys[i].hi) ||
		    (keys[i].integer && v != (int)v)) {
			snprintf(c->err, sizeof(c->err), "%s expects %s %g..%g, got '%s'", name,
				 keys[i].integer ? "a whole number" : "a number", keys[i].lo, keys[i].hi, value);
			return 1;
		}
		switch (i) {
		case 0: c->vo.window = (int)v; break;
		case 1: c->vo.alpha = v; break;
		case 2: c->vo.clear_alpha = v; break;
		case 3: c->vo.clear_nights = (int)v; break;
		default: c->trend_nights = (int)v; break;
		}
		return 1;
	}
	return 0;
}

static int cfg_handler(void *user, const char *section, const char *name, const char *value)
{
	struct nightly_cfg *c = user;
	if (strcmp(section, "nightly")) {
		snprintf(c->err, sizeof(c->err), "unknown section [%s] (expected [nightly])", section);
		return 0;
	}
	c->seen = 1;
	if (!strcmp(name, "suite")) {
		snprintf(c->suite, sizeof(c->suite), "%s", value);
	} else if (!strcmp(name, "iterations")) {
		char *end;
		long v = strtol(value, &end, 10);
		if (!*value || *end || v < 0 || v > 1000) {
			snprintf(c->err, sizeof(c->err), "iterations expects 0..1000 (0: the suite's), got '%s'",
				 value);
			return 0;
		}
		c->iterations = (int)v;
	} else if (!strcmp(name, "refresh")) {
		if (!strcmp(value, "yes") || !strcmp(value, "true") || !strcmp(value, "1"))
			c->refresh = 1;
		else if (!strcmp(value, "no") || !strcmp(value, "false") || !strcmp(value, "0"))
			c->refresh = 0;
		else {
			snprintf(c->err, sizeof(c->err), "refresh expects yes or no, got '%s'", value);
			return 0;
		}
	} else if (!strcmp(name, "variants")) {
		strvec_clear(&c->variants);
		split_words(&c->variants, value);
	} else if (!strcmp(name, "baseline")) {
		if (*value && !id_valid(value)) {
			snprintf(c->err, sizeof(c->err), "baseline '%s' is not a night id (see kbench history "
				 "nights)", value);
			return 0;
		}
		snprintf(c->baseline, sizeof(c->baseline), "%s", value);
	} else if (!strcmp(name, "reports")) {
		snprintf(c->reports, sizeof(c->reports), "%s", value);
	} else if (!strcmp(name, "lab")) {
		snprintf(c->lab, sizeof(c->lab), "%s", value);
	} else if (!strcmp(name, "target")) {
		snprintf(c->target, sizeof(c->target), "%s", value);
	} else if (!strcmp(name, "threshold") || !strcmp(name, "max_cv")) {
		if (cmp_rules_add(!strcmp(name, "threshold") ? &c->co.min_effect : &c->co.max_cv, name,
				  value)) {
			snprintf(c->err, sizeof(c->err), "bad %s '%s' (expected METRIC=PCT)", name, value);
			return 0;
		}
	} else if (!strcmp(name, "metrics")) {
		split_words(&c->metrics, value);
	} else if (cfg_number(c, name, value)) {
		return !c->err[0];
	} else {
		snprintf(c->err, sizeof(c->err), "unknown key '%s' (known: suite, iterations, refresh, "
			 "variants, baseline, reports, lab, target, threshold, max_cv, metrics, window, alpha, "
			 "clear_alpha, clear_nights, trend_nights)", name);
		return 0;
	}
	return 1;
}

static int cfg_load(const char *path, struct nightly_cfg *c)
{
	FILE *f;
	int line;
	snprintf(c->path, sizeof(c->path), "%s", path);
	snprintf(c->suite, sizeof(c->suite), "quick");
	c->refresh = 1;
	verdict_opts_init(&c->vo);
	c->trend_nights = 200;
	f = fopen(path, "r");
	if (!f)
		return error("nightly config '%s': cannot open: %s", path, strerror(errno));
	line = ini_parse_file(f, cfg_handler, c);
	fclose(f);
	if (line > 0)
		return error("nightly config '%s' line %d: %s", path, line,
			     c->err[0] ? c->err : "expected '[section]' or 'key = value'");
	if (line < 0)
		return error("nightly config '%s': cannot read", path);
	if (!c->seen)
		return error("nightly config '%s': no [nightly] section", path);
	if (!c->variants.n)
		return error("nightly config '%s': no variants (variants = A B ...)", path);
	if (c->lab[0] && c->target[0])
		return error("nightly config '%s': lab = %s and target = %s: a night runs on a lab or "
			     "on one machine, not both", path, c->lab, c->target);
	return 0;
}

static void cfg_release(struct nightly_cfg *c)
{
	strvec_clear(&c->variants);
	strvec_clear(&c->metrics);
	cmp_opts_release(&c->co);
}

/* ---- the night ---- */

struct night {
	char id[KB_ID_MAX + 1];
	char dir[KB_PATH_MAX];
	char host_id[17];
	const char *suite;
	const char *accel;
	char accel_key[48];         /* accel as the history keys it (results_accel_key) */
	struct history h;
	struct cmp_inputs in;       /* tonight's runs */
	json_object *doc;           /* nightly.json */
	struct strbuf md;           /* summary.md */
	int exit;
	int hopen, began;           /* the history is open; the night is in it */
	const char *noisy;          /* why the night is flagged noisy (--noisy, the host-noise guard) */
	char *noisy_own;            /* the guard's reason, owned */
	struct strvec regressed;    /* "variant label metric" for the one-line summary */
};

static void input_push(struct cmp_inputs *in, const char *path, const char *group, json_object *doc)
{
	in->v = xrealloc(in->v, (in->n + 1) * sizeof(*in->v));
	in->v[in->n].path = xstrdup(path);
	in->v[in->n].group = xstrdup(group);
	in->v[in->n].doc = doc;
	in->n++;
}

static const char *doc_variant(json_object *doc)
{
	const char *v = jstr(jget(doc, "variant"), "name");
	return v ? v : "?";
}

/* Judge VARIANT's runs tonight against its runs in night REF. */
static void judge(struct night *n, const struct nightly_cfg *c, const char *variant,
		  const char *role, const char *ref)
{
	struct cmp_inputs in = { NULL, 0 };
	struct comparison cmp;
	struct regress r;
	struct strbuf xml = STRBUF_INIT, md = STRBUF_INIT;
	struct cmp_opts o = c->co;
	json_object *docs, *e = json_object_new_object(), *regs = json_object_new_array();
	char junit[KB_PATH_MAX], mdpath[KB_PATH_MAX];
	int built = 0, ex = KB_EXIT_USAGE;

	memset(&r, 0, sizeof(r));
	json_object_object_add(e, "variant", json_object_new_string(variant));
	json_object_object_add(e, "against", json_object_new_string(role));
	json_object_object_add(e, "night", json_object_new_string(ref));
	snprintf(junit, sizeof(junit), "%s/junit/%s-vs-%s.xml", n->dir, variant, role);
	snprintf(mdpath, sizeof(mdpath), "%s/regress-%s-vs-%s.md", n->dir, variant, role);
	docs = history_night_docs(&n->h, ref, n->host_id, variant);
	if (!docs)
		goto out;
	if (!json_object_array_length(docs)) {
		printf("kbench nightly: %s has no run in night %s (%s): not judged against it\n", variant,
		       ref, role);
		sb_addf(&n->md, "- `%s` has no run in the %s night `%s`: not judged against it\n\n",
			variant, role, ref);
		json_object_object_add(e, "note", json_object_new_string("no run of this variant in that night"));
		ex = -1;
		goto out;
	}
	for (size_t i = 0; i < json_object_array_length(docs); i++) {
		json_object *d = json_object_get(json_object_array_get_idx(docs, i));
		char path[512], err[512];
		snprintf(path, sizeof(path), "history:%s/%s", ref, jstr(d, "run_id") ? jstr(d, "run_id") : "?");
		if (results_validate(d, err, sizeof(err))) {
			error("'%s': stored results are not valid: %s", path, err);
			json_object_put(d);
			goto out;
		}
		input_push(&in, path, "baseline", d);
	}
	for (size_t i = 0; i < n->in.n; i++)
		if (!strcmp(doc_variant(n->in.v[i].doc), variant))
			input_push(&in, n->in.v[i].path, "current", json_object_get(n->in.v[i].doc));
	o.baseline = "baseline";
	o.order = NULL;
	o.norder = 0;
	built = 1;
	if (comparison_build(&cmp, &in, &o) || cmp.ng != 2) {
		error("nightly: %s cannot be compared with night %s (see above)", variant, ref);
		goto out;
	}
	regress_judge(&cmp, (const char *const *)c->metrics.v, c->metrics.n, &r);
	regress_junit(&cmp, &r, &xml);
	regress_markdown(&cmp, &r, &md);
	if (write_file_atomic(junit, xml.buf, xml.len) || write_file_atomic(mdpath, md.buf, md.len))
		goto out;
	for (size_t i = 0; i < r.n; i++)
		if (r.v[i].status == REG_REGRESSED || r.v[i].status == REG_ERROR) {
			json_object_array_add(regs, json_object_new_string(r.v[i].message));
			if (r.v[i].status == REG_REGRESSED)
				strvec_pushf(&n->regressed, "%s %s %s (vs %s)", variant, r.v[i].classname,
					     r.v[i].name, role);
		}
	sb_addf(&n->md, "#### `%s` against the %s night `%s`\n\n", variant, role, ref);
	sb_add(&n->md, md.buf, md.len);
	sb_adds(&n->md, "\n");
	json_object_object_add(e, "junit", json_object_new_string(junit));
	json_object_object_add(e, "markdown", json_object_new_string(mdpath));
	ex = r.exit_code;
	printf("kbench nightly: %s against the %s night %s: exit %d (%d regressed, %d improved, "
	       "%d too noisy, %d errors)\n", variant, role, ref, ex, r.regressed, r.improved, r.noisy,
	       r.errors);
out:
	if (ex >= 0)
		n->exit = nightly_worst(n->exit, ex);
	if (ex == KB_EXIT_USAGE && !r.n)
		sb_addf(&n->md, "#### `%s` against the %s night `%s`: **harness error** (see the job log)\n\n",
			variant, role, ref);
	json_object_object_add(e, "exit", ex >= 0 ? json_object_new_int(ex) : NULL);
	json_object_object_add(e, "failures", regs);
	json_object_array_add(json_object_object_get(n->doc, "comparisons"), e);
	if (built)
		comparison_release(&cmp);
	regress_release(&r);
	sb_release(&xml);
	sb_release(&md);
	json_object_put(docs);
	cmp_inputs_release(&in);
}

/* The latest change point of each trend, when it is in the worse direction
 * by at least the metric's threshold and not accepted since: a failure in
 * junit/changepoints.xml (exit 1; on a night flagged noisy, reported
 * only). Better-direction ones are in the summary only. 0 or -1. */
static int nightly_changepoints(struct night *n, const struct trends *t, const struct comparison *cmp)
{
	struct junit_case *cases = xcalloc(t->n + 1, sizeof(*cases));
	struct strvec msgs = STRVEC_INIT;
	char path[KB_PATH_MAX + 20];
	size_t nc = 0;
	int ret = 0;
	for (size_t i = 0; i < t->n && !ret; i++) {
		const struct trend *tr = &t->v[i];
		const struct cp_point *p = tr->cp.n ? &tr->cp.v[tr->cp.n - 1] : NULL;
		double ch = p ? p->after / p->before - 1 : 0;
		const struct cmp_metric *m = NULL;
		int acc;
		for (size_t k = 0; p && k < cmp->nm && !m; k++)
			if (!strcmp(cmp->m[k].label, tr->s.label) && !strcmp(cmp->m[k].name, tr->s.metric))
				m = &cmp->m[k];
		if (!m || (tr->s.better > 0 ? -ch : ch) < m->min_effect)
			continue;
		acc = verdict_accepted_since(&n->h, tr->s.p[p->index].night, tr->s.variant, tr->s.label,
					     tr->s.metric);
		if (acc < 0)
			ret = -1;
		if (acc)
			continue;
		strvec_pushf(&msgs, "%s %s %s: change point between nights %s and %s, %.4g -> %.4g %s (%+.1f%%, "
			     "p %.3g), worse by more than its threshold (%.0f%%), not accepted", tr->s.variant,
			     tr->s.label, tr->s.metric, tr->s.p[p->index - 1].night, tr->s.p[p->index].night,
			     p->before, p->after, tr->s.unit ? tr->s.unit : "", ch * 100, p->p, m->min_effect * 100);
		cases[nc++] = (struct junit_case){ tr->s.label, tr->s.metric, n->noisy ? "skipped" : "failure",
						   n->noisy ? "too-noisy" : "change-point", msgs.v[msgs.n - 1], NULL };
		sb_addf(&n->md, "- **change point** %s%s\n", msgs.v[msgs.n - 1],
			n->noisy ? " (tonight is flagged noisy: reported only)" : "");
		if (!n->noisy) {
			n->exit = nightly_worst(n->exit, KB_EXIT_FAILED);
			strvec_pushf(&n->regressed, "%s %s %s (change point at %s)", tr->s.variant, tr->s.label,
				     tr->s.metric, tr->s.p[p->index].night);
		}
	}
	if (!nc)
		cases[nc++] = (struct junit_case){ "kbench.changepoints", "worse-and-not-accepted", NULL, NULL,
						   NULL, NULL };
	snprintf(path, sizeof(path), "%s/junit/changepoints.xml", n->dir);
	if (!ret && junit_write(&(struct junit){ .name = "kbench nightly", .suite = "kbench nightly change points",
						 .timestamp = jstr(n->doc, "started"), .cases = cases, .ncases = nc },
				path))
		ret = -1;
	free(cases);
	strvec_clear(&msgs);
	return ret;
}

/* The night's own report: tonight's variants side by side, plus trends. */
static int night_report(struct night *n, const struct nightly_cfg *c, const struct strvec *order)
{
	struct comparison cmp;
	struct cmp_opts o = c->co;
	struct trends t;
	struct strbuf html = STRBUF_INIT;
	int ret = -1;
	if (trends_build(&n->h, n->host_id, n->suite, n->accel, (const char *const *)order->v, order->n,
			 n->id, c->trend_nights, &t))
		goto out_t;
	trends_print(&t, stdout);
	trends_html(&t, &html);
	json_object_object_add(n->doc, "trends", trends_json(&t));
	o.baseline = order->n ? order->v[0] : NULL;
	o.order = (const char *const *)order->v;
	o.norder = order->n;
	if (comparison_build(&cmp, &n->in, &o)) {
		comparison_release(&cmp);
		goto out_t;
	}
	cmp.trends_html = html.buf;
	ret = report_write_dir(&cmp, n->dir);
	if (nightly_changepoints(n, &t, &cmp))
		ret = -1;
	comparison_release(&cmp);
	if (trends_changes(&t)) {
		sb_adds(&n->md, "#### Change points in the trends\n\n");
		for (size_t i = 0; i < t.n; i++)
			for (size_t k = 0; k < t.v[i].cp.n; k++) {
				const struct trend *tr = &t.v[i];
				const struct cp_point *p = &tr->cp.v[k];
				sb_addf(&n->md, "- `%s` %s %s: %.4g -> %.4g %s (%+.1f%%) between nights `%s` and "
					"`%s` (p %.3g)\n", tr->s.variant, tr->s.label, tr->s.metric, p->before,
					p->after, tr->s.unit ? tr->s.unit : "", (p->after / p->before - 1) * 100,
					tr->s.p[p->index - 1].night, tr->s.p[p->index].night, p->p);
			}
		sb_adds(&n->md, "\n");
	}
out_t:
	trends_release(&t);
	sb_release(&html);
	return ret;
}

static const char nightly_usage[] =
	"usage: kbench nightly [--config FILE] [--variant V]... [--iterations N] [--night ID]\n"
	"         [--reports DIR] [--history FILE] [--baseline NIGHT] [--runs DIR]...\n"
	"         [--vcpus N] [--memory MiB] [--accel auto|kvm|tcg] [--timing wall|instructions|auto]\n"
	"         [--boot-timeout S]\n"
	"         [--boot-retries N] [--backend NAME] [--target NAME [--keep] | --lab NAME] [--scratch DIR]\n"
	"         [--noisy REASON]\n"
	"  runs the variants of FILE (default configs/nightly.ini) as one night, records it in\n"
	"  the history, judges every metric of each variant against its level (the last good\n"
	"  nights since the last accepted change) and its anchor, and the pinned baseline\n"
	"  night; writes REPORTS/nightly/ID/ (report.html with trends, junit/*.xml,\n"
	"  summary.md, nightly.json). A regression stays red until fixed or accepted\n"
	"  (kbench history accept).\n"
	"  --runs DIR: judge these stored runs as tonight's instead of running anything\n"
	"  --noisy REASON: a host-noise guard flagged tonight: no alarm, not in any level\n"
	"  --timing: default auto: without KVM the guest's clock is QEMU's instruction\n"
	"  counter, whose figures a busy host does not move (docs/timing.md)\n"
	"exit status (kbench regress's): 0 nothing regressed, 1 a regression, 2 bad input or\n"
	"  harness error, 3 too noisy to decide\n";

enum { N_CONFIG = RO_END, N_VARIANT, N_NIGHT, N_HISTORY, N_BASELINE, N_RUNS, N_NOISY, N_HELP };

/* The command line. */
struct nightly_args {
	const char *config, *night, *history, *baseline, *noisy;
	struct strvec only, runs;
	struct run_opts ro;         /* every run's guest; iterations and reports override the config's */
};

/* Parse: 0 to go on, -1 after --help, else the exit status. */
static int nightly_parse(int argc, char **argv, struct nightly_args *a)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, N_CONFIG },
		{ "variant", required_argument, NULL, N_VARIANT },
		{ "night", required_argument, NULL, N_NIGHT },
		{ "history", required_argument, NULL, N_HISTORY },
		{ "baseline", required_argument, NULL, N_BASELINE },
		{ "runs", required_argument, NULL, N_RUNS },
		{ "noisy", required_argument, NULL, N_NOISY },
		RUNOPTS_WHERE,
		RUNOPTS_GUEST,
		{ "help", no_argument, NULL, N_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int opt, r;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if ((r = runopts_parse(opt, optarg, &a->ro)) != 0) {
			if (r < 0)
				return KB_EXIT_USAGE;
			continue;
		}
		switch (opt) {
		case N_CONFIG: a->config = optarg; break;
		case N_VARIANT: split_words(&a->only, optarg); break;
		case N_NIGHT: a->night = optarg; break;
		case N_HISTORY: a->history = optarg; break;
		case N_BASELINE: a->baseline = optarg; break;
		case N_RUNS: strvec_push(&a->runs, optarg); break;
		case N_NOISY: a->noisy = optarg; break;
		case N_HELP:
			fputs(nightly_usage, stdout);
			return -1;
		default:
			runopts_unknown(argv, "");
			fputs(nightly_usage, stderr);
			return KB_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return error("unexpected argument '%s' (see kbench nightly --help)", argv[optind]),
		       KB_EXIT_USAGE;
	/* nightlies judge small changes night after night: without KVM the
	 * guest's clock is the instruction counter unless told otherwise */
	if (a->ro.timing == TIMING_DEFAULT)
		a->ro.timing = TIMING_AUTO;
	return 0;
}

/* The config with the command line over it; the variants (ORDER) and the
 * suite checked before anything boots. */
static int nightly_config(const struct nightly_args *a, struct nightly_cfg *c, struct strvec *order,
			  struct suite *s)
{
	char cfgpath[KB_PATH_MAX];
	if (a->config)
		snprintf(cfgpath, sizeof(cfgpath), "%s", a->config);
	else
		snprintf(cfgpath, sizeof(cfgpath), "%s/configs/nightly.ini", kb_home());
	if (cfg_load(cfgpath, c))
		return -1;
	if (a->ro.reports)
		snprintf(c->reports, sizeof(c->reports), "%s", a->ro.reports);
	if (a->baseline)
		snprintf(c->baseline, sizeof(c->baseline), "%s", a->baseline);
	if (a->ro.iterations > 0)
		c->iterations = a->ro.iterations;
	/* --lab or --target on the command line: the night runs there */
	if (a->ro.lab || a->ro.target)
		c->lab[0] = c->target[0] = '\0';
	if (runopts_where_loads(c->target, c->lab)) /* before anything boots */
		return -1;
	if (a->only.n) {
		strvec_clear(&c->variants);
		for (size_t i = 0; i < a->only.n; i++)
			strvec_push(&c->variants, a->only.v[i]);
	}
	for (size_t i = 0; i < c->variants.n; i++) {
		struct variant v;
		if (variant_load(c->variants.v[i], &v))
			return -1;
		strvec_push(order, v.name);
	}
	return suite_load(c->suite, a->ro.vcpus > 0 ? a->ro.vcpus : 1, s);
}

/* The history open, the night's id, directory and nightly.json begun. */
static int nightly_open(const struct nightly_args *a, const struct nightly_cfg *c, struct night *n,
			char *hpath, size_t hlen)
{
	char reports[KB_PATH_MAX], j[KB_PATH_MAX + 8], ts[32];
	if (c->reports[0])
		snprintf(reports, sizeof(reports), "%s", c->reports);
	else
		snprintf(reports, sizeof(reports), "%s/reports", kb_home());
	if (a->history)
		snprintf(hpath, hlen, "%s", a->history);
	else
		history_default_path(reports, hpath, hlen);
	if (!hpath[0])
		return error("nightly runs need the history: KBENCH_HISTORY must not be 'off'");
	if (history_open(&n->h, hpath, 1))
		return -1;
	n->hopen = 1;
	if (a->night && id_check("--night", a->night))
		return -1;
	if (a->night)
		snprintf(n->id, sizeof(n->id), "%s", a->night);
	else
		id_make(n->id, sizeof(n->id), NULL);
	if (history_night_exists(&n->h, n->id) != 0)
		return error("night '%s' is already in the history '%s'", n->id, hpath);
	if (c->baseline[0] && history_night_exists(&n->h, c->baseline) != 1)
		return error("nightly config '%s': pinned baseline night '%s' is not in the history '%s' "
			     "(kbench history nights lists them; leave baseline empty until one is chosen)",
			     c->path, c->baseline, hpath);
	snprintf(n->dir, sizeof(n->dir), "%s/nightly/%s", reports, n->id);
	if (path_exists(n->dir))
		return error("night directory '%s' already exists", n->dir);
	snprintf(j, sizeof(j), "%s/junit", n->dir);
	if (mkdir_p(j, 0755))
		return -1;
	iso8601_now(ts, sizeof(ts));
	n->doc = json_object_new_object();
	json_object_object_add(n->doc, "schema", json_object_new_string("kbench-nightly"));
	json_object_object_add(n->doc, "schema_version", json_object_new_int(2));
	json_object_object_add(n->doc, "night", json_object_new_string(n->id));
	json_object_object_add(n->doc, "config", json_object_new_string(c->path));
	json_object_object_add(n->doc, "history", json_object_new_string(hpath));
	json_object_object_add(n->doc, "suite", json_object_new_string(n->suite));
	json_object_object_add(n->doc, "started", json_object_new_string(ts));
	json_object_object_add(n->doc, "runs", json_object_new_array());
	json_object_object_add(n->doc, "comparisons", json_object_new_array());
	if (history_night_begin(&n->h, n->id, NULL, n->suite, c->path))
		return -1;
	n->began = 1;
	if (a->noisy && history_night_flag_noisy(&n->h, n->id, a->noisy))
		return -1;
	n->noisy = a->noisy;
	json_object_object_add(n->doc, "noisy", a->noisy ? json_object_new_string(a->noisy) : NULL);
	if (a->noisy)
		n->exit = KB_EXIT_NOISY;
	return 0;
}

/* --runs: tonight's runs are stored ones. The night directory keeps a copy
 * of each results.json (not the raw outputs), so that it is whole when a
 * CI job uploads it. The run ids are untrusted: each names a directory. */
static int nightly_take_runs(struct night *n, const struct strvec *runs)
{
	for (size_t i = 0; i < runs->n; i++)
		if (cmp_inputs_add(&n->in, runs->v[i], NULL))
			return -1;
	for (size_t i = 0; i < n->in.n; i++) {
		const char *id = jstr(n->in.v[i].doc, "run_id");
		char dst[KB_PATH_MAX];
		if (!id_valid(id))
			return error("'%s': run id '%s' is not a plain name", n->in.v[i].path, or_empty(id));
		snprintf(dst, sizeof(dst), "%s/runs/%s", n->dir, id);
		if (path_exists(dst))
			return error("'%s': two runs with the id '%s'", n->in.v[i].path, id);
		if (mkdir_p(dst, 0755))
			return -1;
		snprintf(dst, sizeof(dst), "%s/runs/%s/results.json", n->dir, id);
		if (copy_file(n->in.v[i].path, dst, 0644))
			return -1;
		free(n->in.v[i].path);
		n->in.v[i].path = xstrdup(dst);
	}
	return 0;
}

/* One variant tonight: fetch (the newest Debian image with refresh) or
 * build its kernel (a hit costs nothing), then run the suite. */
static void nightly_run_one(struct night *n, const struct nightly_cfg *c, const struct run_opts *ro,
			    const char *variant, const struct suite *s)
{
	struct variant v;
	struct kernel_image k;
	struct run_result r;
	struct run_opts o = *ro;
	json_object *e = json_object_new_object();
	int rc, its = c->iterations ? c->iterations : s->iterations;
	if (c->lab[0])
		o.lab = c->lab;
	if (c->target[0])
		o.target = c->target;
	json_object_object_add(e, "variant", json_object_new_string(variant));
	json_object_array_add(json_object_object_get(n->doc, "runs"), e);
	/* on a target, the kernel the run builds for it (kernel_config) */
	if (variant_load(variant, &v) || (o.target && target_variant(o.target, &v) < 0) ||
	    kernel_get(&v, c->refresh && v.source == VSRC_DEBIAN_IMAGE, &k)) {
		error("nightly: %s: no kernel (see above)", variant);
		json_object_object_add(e, "exit", json_object_new_int(KB_EXIT_USAGE));
		n->exit = KB_EXIT_USAGE;
		return;
	}
	o.kernel = variant;
	o.suite = s->path;
	o.iterations = c->iterations;
	o.reports = n->dir;
	o.run_id = variant;
	o.resume = NULL;
	o.no_latest = 1;
	printf("kbench nightly: %s (%s %s), %d iteration%s\n", v.name, k.package, k.version, its,
	       its == 1 ? "" : "s");
	rc = run_bench(&o, &r);
	json_object_object_add(e, "exit", json_object_new_int(rc));
	if (rc == KB_EXIT_USAGE || !r.doc) {
		error("nightly: %s could not run (see above)", variant);
		n->exit = KB_EXIT_USAGE;
	} else {
		json_object_object_add(e, "run_id", json_object_new_string(jstr(r.doc, "run_id")));
		json_object_object_add(e, "dir", json_object_new_string(r.dir));
		input_push(&n->in, r.results, variant, json_object_get(r.doc));
	}
	run_result_release(&r);
}

/* Is DOC a run on target TARGET whose kernel never booted there (no
 * machine facts: its history identity would not be the machine's)? */
static int target_unbooted(json_object *doc, const char *target)
{
	json_object *h = jget(doc, "host");
	return target && jstr(h, "target") && !strcmp(jstr(h, "target"), target) &&
	       !jget(h, "machine");
}

/* Tonight's runs into the history as the night's: one host, one suite. On
 * a target the host is named by the first run that booted there; a run
 * whose kernel never booted on it is the same machine's. */
static int nightly_record(struct night *n, int stored)
{
	json_object *host0 = jget(n->in.v[0].doc, "host");
	const char *target = jstr(host0, "target");
	size_t first = 0;
	for (size_t i = 0; target && i < n->in.n; i++)
		if (!target_unbooted(n->in.v[i].doc, target)) {
			first = i;
			break;
		}
	history_host_id(n->in.v[first].doc, n->host_id);
	n->accel = results_accel_key(n->in.v[first].doc, n->accel_key, sizeof(n->accel_key));
	for (size_t i = 1; i < n->in.n; i++)
		if (strcmp(results_timing(n->in.v[i].doc), results_timing(n->in.v[0].doc)))
			return error("'%s': %s timing, '%s': %s timing: a night's runs share one clock "
				     "(--timing; docs/timing.md)", n->in.v[i].path,
				     results_timing(n->in.v[i].doc), n->in.v[0].path,
				     results_timing(n->in.v[0].doc));
	json_object_object_add(n->doc, "host_id", json_object_new_string(n->host_id));
	json_object_object_add(n->doc, "hostname", json_object_new_string(
		jstr(host0, "hostname") ? jstr(host0, "hostname") : "?"));
	for (size_t i = 0; i < n->in.n; i++) {
		char hid[17], dir[KB_PATH_MAX];
		const char *suite = jstr(jget(n->in.v[i].doc, "suite"), "name");
		int r;
		history_host_id(n->in.v[i].doc, hid);
		if (strcmp(hid, n->host_id) && !target_unbooted(n->in.v[i].doc, target))
			return error("'%s': ran on another host than '%s': a night is one host's (kbench "
				     "merge combines hosts)", n->in.v[i].path, n->in.v[first].path);
		if (!suite || strcmp(suite, n->suite))
			return error("'%s': suite '%s', the night's is '%s'", n->in.v[i].path,
				     suite ? suite : "?", n->suite);
		snprintf(dir, sizeof(dir), "%s", n->in.v[i].path);
		r = history_record_as(&n->h, n->in.v[i].doc, dirname(dir), n->id, n->host_id);
		if (r < 0)
			return -1;
		if (r == 1)
			warning("'%s' was already in the history: it stays with the night it was recorded in",
				n->in.v[i].path);
		if (stored) {
			json_object *e = json_object_new_object();
			json_object_object_add(e, "variant", json_object_new_string(doc_variant(n->in.v[i].doc)));
			json_object_object_add(e, "run_id", json_object_new_string(jstr(n->in.v[i].doc, "run_id")));
			json_object_object_add(e, "dir", json_object_new_string(dir));
			json_object_array_add(json_object_object_get(n->doc, "runs"), e);
		}
	}
	return 0;
}

/* The host-noise guard (core/hostnoise.c): tonight's iterations that ran
 * beside other busy processes (iterations[].host_noise.busy) flag the
 * night noisy, as --noisy does: no alarm, not in any level, exit 3. */
static int nightly_host_noise(struct night *n)
{
	struct strbuf why = STRBUF_INIT;
	int ret = 0;
	for (size_t i = 0; i < n->in.n; i++) {
		json_object *its = jget(n->in.v[i].doc, "iterations");
		int busy = 0;
		double most = 0;
		for (size_t k = 0; its && k < json_object_array_length(its); k++) {
			json_object *it = json_object_array_get_idx(its, k), *hn = jget(it, "host_noise");
			if (!hn || json_object_get_boolean(jget(it, "warmup")) ||
			    !json_object_get_boolean(jget(hn, "busy")))
				continue;
			busy++;
			if (json_object_get_double(jget(hn, "other_cpu_pct")) > most)
				most = json_object_get_double(jget(hn, "other_cpu_pct"));
		}
		if (busy)
			sb_addf(&why, "%s%s %d busy iteration%s (other processes up to %.0f%% CPU)",
				why.len ? "; " : "host-noise guard: ", doc_variant(n->in.v[i].doc), busy,
				busy == 1 ? "" : "s", most);
	}
	if (why.len && !n->noisy) {
		n->noisy_own = xstrdup(why.buf);
		n->noisy = n->noisy_own;
		json_object_object_add(n->doc, "noisy", json_object_new_string(n->noisy));
		n->exit = nightly_worst(n->exit, KB_EXIT_NOISY);
		printf("kbench nightly: %s: the night is flagged noisy\n", n->noisy);
		ret = history_night_flag_noisy(&n->h, n->id, n->noisy);
	}
	sb_release(&why);
	return ret;
}

/* With --runs, the order is the config's, then whatever else came;
 * variants of the config that did not come are left out. */
static void nightly_order(const struct night *n, struct strvec *order)
{
	for (size_t i = 0; i < n->in.n; i++) {
		size_t k;
		for (k = 0; k < order->n && strcmp(order->v[k], doc_variant(n->in.v[i].doc)); k++)
			;
		if (k == order->n)
			strvec_push(order, doc_variant(n->in.v[i].doc));
	}
	for (size_t k = 0; k < order->n;) {
		size_t i;
		for (i = 0; i < n->in.n && strcmp(order->v[k], doc_variant(n->in.v[i].doc)); i++)
			;
		if (i == n->in.n) {
			free(order->v[k]);
			memmove(&order->v[k], &order->v[k + 1], (order->n - k) * sizeof(char *));
			order->n--;
		} else {
			k++;
		}
	}
}

/* One metric's verdict into the variant's JUnit cases, nightly.json and
 * summary; its exit status (0, 1 regressed, 3 too noisy). */
static int verdict_out(struct night *n, const char *variant, const struct cmp_metric *m,
		       const struct verdict *v, struct strvec *msgs, struct junit_case *k, struct strbuf *md,
		       json_object *arr)
{
	static const char *const tag[] = { "ok", "**regressed**", "too noisy" };
	int open = v->since[0] != 0;
	json_object *e = json_object_new_object();
	strvec_pushf(msgs, "%s %s: %s", m->label, m->name, v->message);
	*k = (struct junit_case){ m->label, m->name, NULL, NULL, NULL, NULL };
	if (open)
		*k = (struct junit_case){ m->label, m->name, "failure", "regression", msgs->v[msgs->n - 1], NULL };
	else if (v->state == VS_NOISY)
		*k = (struct junit_case){ m->label, m->name, "skipped", "too-noisy", msgs->v[msgs->n - 1], NULL };
	jset_str(e, "variant", variant);
	jset_str(e, "label", m->label);
	jset_str(e, "metric", m->name);
	jset_str(e, "state", verdict_state_name(v->state));
	json_object_object_add(e, "kind", v->kind ? json_object_new_string(v->kind) : NULL);
	json_object_object_add(e, "since_night", open ? json_object_new_string(v->since) : NULL);
	json_object_object_add(e, "since_kernel", open ? json_object_new_string(v->since_kernel) : NULL);
	json_object_object_add(e, "nights", json_object_new_int(v->nights));
	json_object_object_add(e, "accepted", v->accepted[0] ? json_object_new_string(v->accepted) : NULL);
	jset_bool(e, "improved", v->improved);
	jset_bool(e, "cleared", v->cleared);
	jset_num(e, "mean", v->mean);
	jset_num(e, "level", v->ref.mean);
	jset_num(e, "level_nights", v->ref.nights);
	jset_num(e, "change", v->change);
	jset_num(e, "p", v->p);
	jset_num(e, "anchor_change", v->anchor_change);
	jset_str(e, "message", v->message);
	json_object_array_add(arr, e);
	if (v->state != VS_OK || v->improved || v->cleared || open)
		sb_addf(md, "- %s `%s %s`: %s\n", v->improved ? "improved" : v->cleared ? "back" :
			open && v->state == VS_NOISY ? "**regressed**, too noisy tonight," : tag[v->state],
			m->label, m->name, v->message);
	if (open)
		strvec_pushf(&n->regressed, "%s %s %s since %s (%d nights)", variant, m->label, m->name,
			     v->since, v->nights);
	/* too noisy to decide: flagged, or a level there was to judge against
	 * (a first night decides nothing and exits 0) */
	return open ? KB_EXIT_FAILED : v->state == VS_NOISY && (n->noisy || v->ref.nights) ?
		KB_EXIT_NOISY : KB_EXIT_OK;
}

/* Every metric of variant G tonight against its level (verdict.h),
 * recorded in the history; junit/<variant>-verdicts.xml. Exit status. */
static int variant_verdicts(struct night *n, const struct nightly_cfg *c, const struct comparison *cmp,
			    size_t g, json_object *arr)
{
	const char *variant = cmp->g[g].name;
	json_object *doc0 = n->in.v[cmp->g[g].inputs[0]].doc;
	struct junit_case *cases = xcalloc(cmp->nm + cmp->nfail + 1, sizeof(*cases));
	struct strvec msgs = STRVEC_INIT, acc = STRVEC_INIT;
	struct strbuf md = STRBUF_INIT;
	size_t nc = 0;
	int ex = KB_EXIT_OK, judged = 0, backfilled = 0, bf;
	char path[KB_PATH_MAX + 40], *suite = xasprintf("kbench nightly %s %s verdicts", n->id, variant);
	for (size_t i = 0; i < cmp->nfail; i++)
		if (cmp->fail[i].group == g) {
			strvec_pushf(&msgs, "%s iteration %d: %s failed: %s", cmp->fail[i].run_id,
				     cmp->fail[i].iteration, cmp->fail[i].what, cmp->fail[i].error);
			/* in the summary too: the night's failure says why */
			sb_addf(&md, "- **failed**: %s\n", msgs.v[msgs.n - 1]);
			cases[nc++] = (struct junit_case){ "kbench.iterations", cmp->fail[i].what, "error",
							   "harness-error", msgs.v[msgs.n - 1], NULL };
			ex = KB_EXIT_USAGE;
		}
	for (size_t i = 0; i < cmp->nm && ex != -1; i++) {
		const struct cmp_metric *m = &cmp->m[i];
		const struct cmp_cell *x = &m->cell[g];
		struct verdict_key k = { n->host_id, n->suite, variant, m->label, m->name };
		struct verdict v = { .v = x->v, .n = x->n, .better = m->better, .threshold = m->min_effect,
				     .noisy = n->noisy || x->noisy,
				     .kernel = jstr(jget(doc0, "variant"), "kernel_release") };
		if (!x->n || !regress_wanted(m, (const char *const *)c->metrics.v, c->metrics.n))
			continue;
		/* nights from before history schema 3 (or imported) have no verdicts: judged first */
		if ((bf = verdict_backfill(&n->h, n->id, &k, &c->vo, m->better, m->min_effect)) > backfilled)
			backfilled = bf;
		if (bf < 0 || verdict_judge(&n->h, n->id, &k, &c->vo, &v) || verdict_record(&n->h, n->id, &k, &v)) {
			ex = -1;
			break;
		}
		judged++;
		ex = nightly_worst(ex, verdict_out(n, variant, m, &v, &msgs, &cases[nc++], &md, arr));
		if (v.accepted[0] && (!acc.n || strcmp(acc.v[acc.n - 1], v.accepted)))
			strvec_push(&acc, v.accepted);
	}
	snprintf(path, sizeof(path), "%s/junit/%s-verdicts.xml", n->dir, variant);
	if (ex != -1 && junit_write(&(struct junit){ .name = "kbench nightly", .suite = suite,
						     .timestamp = jstr(n->doc, "started"), .cases = cases,
						     .ncases = nc }, path))
		ex = -1;
	sb_addf(&n->md, "#### `%s`: every metric against its level (up to %d good nights since the "
		"last accepted change)\n\n", variant, c->vo.window);
	if (backfilled) {
		sb_addf(&n->md, "- judged first: %d earlier night%s without verdicts (recorded before history "
			"schema 3, or imported), in order, so the level, the anchor and any regression "
			"cover them\n",
			backfilled, backfilled == 1 ? "" : "s");
		printf("kbench nightly: %s: %d earlier night%s had no verdicts (recorded before history "
		       "schema 3, or imported): judged first, in order\n", variant, backfilled, backfilled == 1 ? "" : "s");
	}
	sb_add(&n->md, md.buf ? md.buf : "", md.len);
	for (size_t i = 0; i < acc.n; i++)
		sb_addf(&n->md, "- accepted: %s\n", acc.v[i]);
	sb_addf(&n->md, "- %d metric%s judged, exit %d\n\n", judged, judged == 1 ? "" : "s", ex < 0 ? 2 : ex);
	printf("kbench nightly: %s against its level: exit %d (%d metrics)\n", variant, ex < 0 ? 2 : ex,
	       judged);
	free(cases);
	free(suite);
	strvec_clear(&msgs);
	strvec_clear(&acc);
	sb_release(&md);
	return ex;
}

/* Every variant's verdicts in one transaction, then the pinned night. */
static int nightly_judge(struct night *n, const struct nightly_cfg *c, const struct strvec *order)
{
	struct comparison cmp;
	struct cmp_opts o = c->co;
	json_object *arr = json_object_new_array();
	int ret = -1;
	json_object_object_add(n->doc, "verdicts", arr);
	json_object_object_add(n->doc, "pinned_baseline", c->baseline[0] ?
			       json_object_new_string(c->baseline) : NULL);
	o.baseline = order->v[0];
	o.order = (const char *const *)order->v;
	o.norder = order->n;
	if (comparison_build(&cmp, &n->in, &o))
		goto out;
	if (history_exec(&n->h, "BEGIN IMMEDIATE", "verdicts"))
		goto out;
	for (size_t g = 0; g < cmp.ng; g++) {
		int ex = variant_verdicts(n, c, &cmp, g, arr);
		if (ex < 0) {
			sqlite3_exec(n->h.db, "ROLLBACK", NULL, NULL, NULL);
			goto out;
		}
		n->exit = nightly_worst(n->exit, ex);
	}
	if (history_exec(&n->h, "COMMIT", "verdicts"))
		goto out;
	for (size_t i = 0; c->baseline[0] && i < order->n; i++)
		judge(n, c, order->v[i], "pinned", c->baseline);
	ret = 0;
out:
	comparison_release(&cmp);
	return ret;
}

/* A JUnit file even when nothing was judged, so CI always has one. */
static int nightly_junit_none(const struct night *n, const char *ts)
{
	char path[KB_PATH_MAX + 20], *suite = xasprintf("kbench nightly %s", n->id);
	const struct junit_case k = n->exit == KB_EXIT_USAGE ?
		(struct junit_case){ "kbench.nightly", "judged", "error", "harness-error",
				     "the night did not run or could not be judged: see the job log", NULL } :
		(struct junit_case){ "kbench.nightly", "judged", "skipped", "first-night",
				     "no earlier good night to compare with", NULL };
	int ret;
	snprintf(path, sizeof(path), "%s/junit/nightly.xml", n->dir);
	ret = junit_write(&(struct junit){ .name = "kbench nightly", .suite = suite, .timestamp = ts,
					   .cases = &k, .ncases = 1 }, path);
	free(suite);
	return ret;
}

/* summary.md: the verdict, the night's facts, then every judgement. */
static void nightly_summary(const struct night *n, const struct strvec *order, struct strbuf *md)
{
	static const char *const head[] = { "nothing regressed", "REGRESSION", "harness error",
					    "too noisy to decide" };
	sb_addf(md, "### kbench nightly `%s`: %s (exit %d)\n\n", n->id, head[n->exit & 3], n->exit);
	sb_adds(md, "suite ");
	md_code(md, n->suite);
	sb_adds(md, " · host ");
	md_code(md, jstr(n->doc, "hostname") ? jstr(n->doc, "hostname") : "?");
	sb_adds(md, " · variants");
	for (size_t i = 0; i < order->n; i++) {
		sb_adds(md, " ");
		md_code(md, order->v[i]);
	}
	sb_adds(md, " · report `report.html`\n\n");
	sb_add(md, n->md.buf ? n->md.buf : "", n->md.len);
}

/* The night's end: JUnit (when nothing was judged), the history's record
 * of the night, summary.md and nightly.json. Any of them that cannot be
 * written makes the night a harness error (exit 2). */
static void nightly_finish(struct night *n, const struct strvec *order)
{
	struct strbuf md = STRBUF_INIT, one = STRBUF_INIT;
	char path[KB_PATH_MAX + 20], ts[32];
	const char *s_json;
	int have_dir = n->dir[0] && path_exists(n->dir);
	iso8601_now(ts, sizeof(ts));
	if (have_dir && !json_object_array_length(json_object_object_get(n->doc, "comparisons")) &&
	    !(json_object_object_get(n->doc, "verdicts") &&
	      json_object_array_length(json_object_object_get(n->doc, "verdicts"))) &&
	    nightly_junit_none(n, ts))
		n->exit = KB_EXIT_USAGE;
	sb_addf(&one, "exit %d", n->exit);
	for (size_t i = 0; i < n->regressed.n; i++)
		sb_addf(&one, "%s%s", i ? "; " : ": regressed ", n->regressed.v[i]);
	if (n->began && history_night_end(&n->h, n->id, n->exit, one.buf))
		n->exit = KB_EXIT_USAGE;
	nightly_summary(n, order, &md);
	if (have_dir) {
		snprintf(path, sizeof(path), "%s/summary.md", n->dir);
		if (write_file_atomic(path, md.buf, md.len))
			n->exit = KB_EXIT_USAGE;
		json_object_object_add(n->doc, "finished", json_object_new_string(ts));
		json_object_object_add(n->doc, "exit", json_object_new_int(n->exit));
		s_json = json_object_to_json_string_ext(n->doc, JSON_C_TO_STRING_PRETTY |
							JSON_C_TO_STRING_SPACED |
							JSON_C_TO_STRING_NOSLASHESCAPE);
		snprintf(path, sizeof(path), "%s/nightly.json", n->dir);
		if (write_file_atomic(path, s_json, strlen(s_json)))
			n->exit = KB_EXIT_USAGE;
		fputs("\n", stdout);
		fputs(md.buf, stdout);
		printf("\nnight:   %s\nreport:  %s/report.html\nsummary: %s/summary.md\njunit:   %s/junit/\n",
		       n->dir, n->dir, n->dir, n->dir);
	}
	sb_release(&md);
	sb_release(&one);
}

/* Tonight's runs (stored or run now), recorded, judged and reported. */
static void nightly_night(struct night *n, const struct nightly_cfg *c, const struct nightly_args *a,
			  struct strvec *order, const struct suite *s)
{
	printf("kbench nightly %s: suite %s, %s", n->id, s->name, a->runs.n ? "stored runs" : "variants");
	for (size_t i = 0; !a->runs.n && i < order->n; i++)
		printf(" %s", order->v[i]);
	printf(", history %s\n", jstr(n->doc, "history"));
	if (a->runs.n && nightly_take_runs(n, &a->runs)) {
		n->exit = KB_EXIT_USAGE;
		return;
	}
	for (size_t i = 0; !a->runs.n && i < order->n && !kb_interrupted; i++)
		nightly_run_one(n, c, &a->ro, order->v[i], s);
	if (!n->in.n) {
		error("nightly: no run to judge");
		n->exit = KB_EXIT_USAGE;
		return;
	}
	if (nightly_record(n, a->runs.n > 0) || nightly_host_noise(n)) {
		n->exit = KB_EXIT_USAGE;
		return;
	}
	if (a->runs.n)
		nightly_order(n, order);
	if (nightly_judge(n, c, order) || night_report(n, c, order))
		n->exit = KB_EXIT_USAGE;
}

int cmd_nightly(int argc, char **argv)
{
	struct nightly_args a;
	struct nightly_cfg c;
	struct night n;
	struct strvec order = STRVEC_INIT;
	struct suite s;
	char hpath[KB_PATH_MAX] = "";
	int ret;

	memset(&a, 0, sizeof(a));
	memset(&c, 0, sizeof(c));
	memset(&n, 0, sizeof(n));
	memset(&s, 0, sizeof(s));
	a.only = (struct strvec)STRVEC_INIT;
	a.runs = (struct strvec)STRVEC_INIT;
	cmp_opts_init(&c.co);
	n.md = (struct strbuf)STRBUF_INIT;
	n.regressed = (struct strvec)STRVEC_INIT;
	ret = nightly_parse(argc, argv, &a);
	if (ret) {
		ret = ret < 0 ? KB_EXIT_OK : ret;
		goto out;
	}
	ret = KB_EXIT_USAGE;
	if (nightly_config(&a, &c, &order, &s))
		goto out;
	n.suite = s.name;
	if (nightly_open(&a, &c, &n, hpath, sizeof(hpath)))
		goto out;
	nightly_night(&n, &c, &a, &order, &s);
	nightly_finish(&n, &order);
	ret = n.exit;
out:
	if (n.hopen)
		history_close(&n.h);
	json_object_put(n.doc);
	cmp_inputs_release(&n.in);
	free(n.noisy_own);
	sb_release(&n.md);
	strvec_clear(&n.regressed);
	strvec_clear(&a.only);
	strvec_clear(&a.runs);
	strvec_clear(&order);
	suite_release(&s);
	cfg_release(&c);
	return ret;
}
