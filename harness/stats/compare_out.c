/* compare_out.c - a comparison written out: comparison.json (the format
 * is docs/comparison.md) and the summary table for a terminal. */
#include "stats/compare.h"
#include "stats/seed.h"
#include "core/jsonutil.h"

#include <math.h>
#include <string.h>



/* comparison.json writes numbers with jnum10 (10 significant digits):
 * core/jsonutil.h says why. */
static json_object *jinterval(double lo, double hi)
{
	json_object *a;
	if (!isfinite(lo) && !isfinite(hi))
		return NULL;
	a = json_object_new_array();
	json_object_array_add(a, jnum10(lo));
	json_object_array_add(a, jnum10(hi));
	return a;
}

static json_object *cell_json(const struct comparison *c, const struct cmp_metric *m, size_t g)
{
	const struct cmp_cell *x = &m->cell[g];
	json_object *o = json_object_new_object(), *vals = json_object_new_array(), *src;
	src = json_object_new_array();
	for (size_t i = 0; i < x->n; i++) {
		json_object_array_add(vals, jnum10(x->v[i]));
		json_object_array_add(src, json_object_new_string(x->src[i]));
	}
	jset(o, "values", vals);
	jset(o, "sources", src);
	jset_int(o, "n", (int)x->n);
	if (x->n) {
		jset_num10(o, "mean", x->d.mean);
		jset_num10(o, "median", x->d.median);
		jset_num10(o, "stddev", x->d.sd);
		jset_num10(o, "cv", x->d.cv);
		jset_num10(o, "min", x->d.min);
		jset_num10(o, "max", x->d.max);
		jset(o, "mean_ci95", jinterval(x->d.ci_lo, x->d.ci_hi));
		if (m->cls == CMP_CLASS_RATE) {
			jset_num10(o, "hmean", x->d.hmean);
			jset(o, "hmean_ci95", jinterval(x->d.hm_lo, x->d.hm_hi));
		}
		jset_num10(o, "center", x->center);
		jset(o, "center_ci95", jinterval(x->center_lo, x->center_hi));
		jset_bool(o, "noisy", x->noisy);
		if (x->brel && g != c->base) { /* lab devices as blocks: each device's own */
			json_object *bd = json_object_new_object();
			for (size_t b = 0; b < c->blocks.n; b++)
				jset(bd, c->blocks.v[b], isfinite(x->brel[b]) ? jnum10(x->brel[b]) : NULL);
			jset(o, "by_device", bd);
		}
		if (x->within_n) { /* runs with repeats inside a boot only */
			jset_num10(o, "within_boot_cv", cmp_within_cv(x));
			jset_int(o, "within_boot_n", x->within_n);
			jset_int(o, "repeats", x->within_repeats);
		}
	}
	if (g != c->base) {
		json_object *vs = json_object_new_object();
		jset_str(vs, "verdict", cmp_verdict_name(x->verdict));
		jset_num10(vs, "relative", x->rel);
		jset(vs, "relative_ci95", jinterval(x->rel_lo, x->rel_hi));
		if (x->have_test) {
			jset_str(vs, "relative_ci95_method", x->ci_boot ? "bootstrap" : "fieller");
			jset(vs, "relative_ci95_bootstrap", jinterval(x->boot_lo, x->boot_hi));
			jset(vs, "relative_ci95_fieller", jinterval(x->fieller_lo, x->fieller_hi));
		}
		if (x->have_test) {
			json_object *w = json_object_new_object();
			jset_num10(w, "t", x->welch.t);
			jset_num10(w, "df", x->welch.df);
			jset_num10(w, "p", x->welch.p);
			jset(vs, "welch", w);
			jset_num10(vs, "p", x->welch.p);
			jset_num10(vs, "q_bh", x->q);
			jset_num10(vs, "mde", x->mde);
		}
		if (x->have_mwu) {
			json_object *u = json_object_new_object();
			jset_num10(u, "u", x->mwu.u);
			jset_num10(u, "p", x->mwu.p);
			jset_str(u, "method", x->mwu.exact ? "exact" : "normal, tie-corrected");
			jset(vs, "mann_whitney", u);
		}
		jset(vs, "note", x->note[0] ? json_object_new_string(x->note) : NULL);
		jset(o, "vs_baseline", vs);
	}
	return o;
}

static json_object *hist_json(const struct cmp_hist *h)
{
	static const char *const names[5] = { "p50", "p90", "p99", "p99_9", "p99_99" };
	json_object *o = json_object_new_object(), *counts;
	size_t last = 0;
	jset_int(o, "histograms", h->histograms);
	jset_int(o, "bucket_us", 1);
	jset_i64(o, "buckets", (int64_t)h->nb);
	jset_i64(o, "samples", (int64_t)h->samples);
	jset_i64(o, "overflows", (int64_t)h->overflows);
	jset_num10(o, "max", h->max);
	for (int k = 0; k < 5; k++)
		jset_num10(o, names[k], h->pct[k]);
	for (size_t i = 0; i < h->nb; i++)
		if (h->counts[i])
			last = i + 1;
	counts = json_object_new_array_ext((int)last);
	for (size_t i = 0; i < last; i++)
		json_object_array_add(counts, json_object_new_int64((int64_t)h->counts[i]));
	jset(o, "counts", counts);
	return o;
}

static json_object *settings_json(const struct comparison *c)
{
	json_object *o, *a;
	o = json_object_new_object();
	jset_num10(o, "confidence", STATS_LEVEL);
	jset_num10(o, "alpha", STATS_ALPHA);
	jset_num10(o, "power", STATS_POWER);
	jset_str(o, "test", "welch");
	jset_str(o, "interval", "bootstrap (expanded percentile, Hesterberg 2015) of the ratio of "
		 "means (harmonic means for rates) when both sides have bootstrap_min_n values, "
		 "else Fieller's interval with Welch's df");
	jset_int(o, "bootstrap_min_n", CMP_BOOT_MIN_N);
	jset_i64(o, "bootstrap_seed", c->seed);
	jset_int(o, "bootstrap_resamples", c->reps);
	jset_str(o, "rng", "gsl mt19937");
	a = json_object_new_object();
	for (int k = 0; k <= CMP_CLASS_TAIL; k++) {
		json_object *d = json_object_new_object();
		double me, cv;
		cmp_class_defaults(k, &me, &cv);
		jset_num10(d, "min_effect", me);
		jset_num10(d, "max_cv", cv);
		jset(a, cmp_class_name(k), d);
	}
	jset(o, "class_defaults", a);
	return o;
}

static json_object *inputs_json(const struct comparison *c)
{
	json_object *o, *a = json_object_new_array();
	for (size_t i = 0; i < c->in->n; i++) {
		const struct cmp_input *x = &c->in->v[i];
		json_object *h = jget(x->doc, "host");
		o = json_object_new_object();
		jset_str(o, "path", x->path);
		jset_str(o, "group", x->group);
		jset_str(o, "run_id", or_empty(jstr(x->doc, "run_id")));
		jset_str(o, "status", or_empty(jstr(x->doc, "status")));
		jset_str(o, "started", or_empty(jstr(x->doc, "started")));
		jset(o, "host", json_object_get(h));
		jset(o, "guest", json_object_get(jget(x->doc, "guest")));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *variants_json(const struct comparison *c)
{
	json_object *o, *a = json_object_new_array();
	static const char *const vkeys[] = { "description", "package", "package_version",
					     "image_release", "kernel_release", "realtime",
					     "config_hash", "extra_cmdline", NULL };
	for (size_t g = 0; g < c->ng; g++) {
		json_object *runs = json_object_new_array(), *subj, *copy = NULL;
		o = json_object_new_object();
		jset_str(o, "name", c->g[g].name);
		for (int k = 0; vkeys[k]; k++) {
			const char *s = cmp_group_str(c, g, "variant", vkeys[k]);
			jset_str(o, vkeys[k], s);
		}
		/* the test subject of a source-built variant (docs/results.md) */
		subj = c->g[g].ninputs ? jget(jget(c->in->v[c->g[g].inputs[0]].doc, "variant"),
					      "subject") : NULL;
		if (subj && !json_object_deep_copy(subj, &copy, NULL))
			jset(o, "subject", copy);
		for (size_t k = 0; k < c->g[g].ninputs; k++)
			json_object_array_add(runs, json_object_new_string(
				or_empty(jstr(c->in->v[c->g[g].inputs[k]].doc, "run_id"))));
		jset(o, "runs", runs);
		jset_int(o, "iterations_ok", c->g[g].ok);
		jset_int(o, "iterations_failed", c->g[g].failed);
		jset_int(o, "iterations_warmup", c->g[g].warmup);
		if (c->g[g].sampled) { /* results without host noise: no keys */
			jset_int(o, "iterations_host_sampled", c->g[g].sampled);
			jset_int(o, "iterations_host_busy", c->g[g].busy);
		}
		jset_num10(o, "score", c->g[g].score);
		jset_int(o, "score_metrics", c->g[g].score_n);
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *metrics_json(const struct comparison *c)
{
	json_object *o, *a = json_object_new_array();
	for (size_t i = 0; i < c->nm; i++) {
		const struct cmp_metric *m = &c->m[i];
		json_object *per = json_object_new_object();
		o = json_object_new_object();
		jset_str(o, "label", m->label);
		jset_str(o, "workload", m->workload);
		jset_str(o, "metric", m->name);
		jset_str(o, "unit", m->unit);
		jset_str(o, "better", m->better > 0 ? "higher" : "lower");
		jset_str(o, "class", cmp_class_name(m->cls));
		jset_str(o, "center", m->cls == CMP_CLASS_RATE ? "hmean" : "mean");
		jset_bool(o, "primary", m->primary);
		jset_num10(o, "min_effect", m->min_effect);
		jset_num10(o, "max_cv", m->max_cv);
		for (size_t g = 0; g < c->ng; g++)
			jset(per, c->g[g].name, cell_json(c, m, g));
		jset(o, "variants", per);
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *latency_json(const struct comparison *c)
{
	json_object *o, *a = json_object_new_array();
	for (size_t l = 0; l < c->nlat; l++) {
		json_object *per = json_object_new_object();
		o = json_object_new_object();
		jset_str(o, "label", c->lat[l].label);
		for (size_t g = 0; g < c->ng; g++)
			jset(per, c->g[g].name, c->lat[l].h[g].ok ? hist_json(&c->lat[l].h[g]) : NULL);
		jset(o, "variants", per);
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *locks_json(const struct comparison *c)
{
	json_object *o, *a = json_object_new_array();
	for (size_t i = 0; i < c->nlocks; i++) {
		const struct cmp_lockstat *k = &c->locks[i];
		json_object *per = json_object_new_object();
		o = json_object_new_object();
		jset_str(o, "label", k->label);
		jset_str(o, "counter", k->counter);
		for (size_t g = 0; g < c->ng; g++)
			jset(per, c->g[g].name, k->n[g] ? jnum10(k->sum[g] / k->n[g]) : NULL);
		jset(o, "mean_per_run", per);
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *failures_json(const struct comparison *c)
{
	json_object *o, *a = json_object_new_array();
	for (size_t i = 0; i < c->nfail; i++) {
		const struct cmp_failure *f = &c->fail[i];
		o = json_object_new_object();
		jset_str(o, "variant", c->g[f->group].name);
		jset_str(o, "run_id", f->run_id);
		jset_int(o, "iteration", f->iteration);
		jset_str(o, "what", f->what);
		jset_str(o, "error", f->error);
		jset_str(o, "console_tail", f->console_tail);
		json_object_array_add(a, o);
	}
	return a;
}

json_object *comparison_to_json(const struct comparison *c)
{
	json_object *doc = json_object_new_object(), *o, *a;
	jset_str(doc, "schema", COMPARISON_SCHEMA);
	jset_int(doc, "schema_version", COMPARISON_SCHEMA_VERSION);
	jset_str(doc, "created", c->created);
	o = json_object_new_object();
	jset_str(o, "version", KB_VERSION);
	jset_str(o, "commit", KB_GIT_COMMIT);
	jset(doc, "kbench", o);
	jset_str(doc, "suite", c->suite);
	jset_str(doc, "accel", c->accel);
	jset_str(doc, "timing", c->timing);
	if (!strcmp(c->timing, "instructions"))
		jset_int(doc, "icount_shift", c->icount_shift);
	jset_str(doc, "baseline", c->g[c->base].name);
	jset(doc, "settings", settings_json(c));
	jset(doc, "campaign", c->campaign ? json_object_get(c->campaign) : NULL);
	if (c->blocked) {
		json_object *b = json_object_new_object(), *d = json_object_new_array();
		for (size_t i = 0; i < c->blocks.n; i++)
			json_object_array_add(d, json_object_new_string(c->blocks.v[i]));
		jset_str(b, "by", "lab device");
		jset(b, "devices", d);
		jset_str(b, "method", "each value times the baseline's center over the devices "
			 "divided by the baseline's center on its device, per metric");
		jset_i64(b, "dropped", (int64_t)c->dropped);
		jset(doc, "blocks", b);
	}
	jset(doc, "inputs", inputs_json(c));
	jset(doc, "variants", variants_json(c));
	jset(doc, "metrics", metrics_json(c));
	jset(doc, "latency", latency_json(c));
	jset(doc, "lock_stats", locks_json(c));
	jset(doc, "failures", failures_json(c));
	if ((o = seed_json(c, c->seed_roles))) /* the 2008 table: only with its three roles */
		jset(doc, "seed", o);
	a = json_object_new_array();
	for (size_t i = 0; i < c->warnings.n; i++)
		json_object_array_add(a, json_object_new_string(c->warnings.v[i]));
	jset(doc, "warnings", a);
	return doc;
}

/* ---- the summary table ---- */

/* "+12.3%" */
static void fmt_pct(char *buf, size_t len, double v)
{
	if (!isfinite(v))
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%+.1f%%", v * 100);
}

/* "1.255 +-0.408~": centre, half-width of its interval, ~ when noisy. */
static void fmt_value(char *buf, size_t len, const struct cmp_cell *x)
{
	char a[32], b[32];
	if (!x->n) {
		snprintf(buf, len, "-");
		return;
	}
	cmp_fmt_num(a, sizeof(a), x->center);
	if (isfinite(x->center_hi) && isfinite(x->center_lo)) {
		cmp_fmt_num(b, sizeof(b), (x->center_hi - x->center_lo) / 2);
		snprintf(buf, len, "%s +-%s%s", a, b, x->noisy ? " ~" : "");
	} else {
		snprintf(buf, len, "%s%s", a, x->noisy ? " ~" : "");
	}
}

/* A CV as "4.2%", or "-" when it is not defined. */
static void fmt_cv(char *buf, size_t len, double cv)
{
	if (isfinite(cv))
		snprintf(buf, len, "%.1f%%", cv * 100);
	else
		snprintf(buf, len, "-");
}

/* A variant column as wide as its name (a sweep's points are long:
 * rt-adaptive@spin_max_loops=10000,lateral_steal=0), never less than MIN,
 * so that no two rows read alike. */
static int name_width(const char *name, int min)
{
	int n = (int)strlen(name);
	return n < min ? min : n > 80 ? 80 : n;
}

static int names_width(const struct comparison *c, int min)
{
	int w = min;
	for (size_t g = 0; g < c->ng; g++)
		if (name_width(c->g[g].name, min) > w)
			w = name_width(c->g[g].name, min);
	return w;
}

/* Runs with repeats inside a boot: per metric and variant, the spread
 * between boots beside the spread within them. */
static void print_within(const struct comparison *c, FILE *f)
{
	char a[32], b[32];
	int w = names_width(c, 22);
	fprintf(f, "\nspread (CV): between boots, of the per-boot medians (what the table tests); "
		"within a boot, the mean over the boots of their repeats' CV\n");
	fprintf(f, "%-27s %-*s %8s %8s %7s %5s\n", "metric", w, "variant", "between", "within",
		"repeats", "boots");
	for (size_t i = 0; i < c->nm; i++) {
		const struct cmp_metric *m = &c->m[i];
		char name[128];
		snprintf(name, sizeof(name), "%s %s", m->label, m->name);
		for (size_t g = 0; g < c->ng; g++) {
			const struct cmp_cell *x = &m->cell[g];
			if (!x->n || !cmp_metric_within(m, c->ng))
				continue;
			fmt_cv(a, sizeof(a), x->n > 1 ? x->d.cv : NAN);
			fmt_cv(b, sizeof(b), cmp_within_cv(x));
			fprintf(f, "%-27.27s %-*.*s %8s %8s %7d %5zu\n", name, w, w, c->g[g].name, a, b,
				x->within_repeats ? x->within_repeats : 1, x->n);
		}
	}
}

void comparison_print(const struct comparison *c, FILE *f)
{
	char v[64], a[32], b[32], d[32], ci[80];
	fprintf(f, "\nkbench compare: suite %s, accel %s, timing %s;", c->suite, c->accel, c->timing);
	for (size_t g = 0; g < c->ng; g++)
		fprintf(f, "%s %s%s (%d iteration%s)", g ? "," : "", c->g[g].name,
			g == c->base ? " [baseline]" : "", c->g[g].ok + c->g[g].failed,
			c->g[g].ok + c->g[g].failed == 1 ? "" : "s");
	fprintf(f, "\nvalue: mean (harmonic mean for rates) +- 95%% CI half-width, ~ too noisy (CV "
		"above the limit); change vs baseline with 95%% CI; p: Welch (verdicts use it\nadjusted over each workload's metrics, Benjamini-Hochberg); mde: the smallest "
		"change this run could detect (alpha 0.05, power 0.8)\n\n");
	int bw = name_width(c->g[c->base].name, 19);
	fprintf(f, "%-27s %-5s %-*s", "metric", "unit", bw, c->g[c->base].name);
	for (size_t g = 0; g < c->ng; g++)
		if (g != c->base)
			fprintf(f, " | %-*.*s %-8s %-19s %-6s %-9s %s", name_width(c->g[g].name, 19),
				name_width(c->g[g].name, 19), c->g[g].name, "change", "95% CI",
				"p", "verdict", "mde");
	fputc('\n', f);
	for (size_t i = 0; i < c->nm; i++) {
		const struct cmp_metric *m = &c->m[i];
		char name[128];
		snprintf(name, sizeof(name), "%s %s", m->label, m->name);
		fmt_value(v, sizeof(v), &m->cell[c->base]);
		fprintf(f, "%-27.27s %-5.5s %-*.*s", name, m->unit, bw, bw, v);
		for (size_t g = 0; g < c->ng; g++) {
			const struct cmp_cell *x = &m->cell[g];
			const char *verdict = x->verdict == CMP_WORSE ? "WORSE" :
					      x->verdict == CMP_BETTER ? "BETTER" :
					      cmp_verdict_name(x->verdict);
			if (g == c->base)
				continue;
			fmt_value(v, sizeof(v), x);
			fmt_pct(a, sizeof(a), x->rel);
			if (isfinite(x->rel_lo) && isfinite(x->rel_hi)) {
				fmt_pct(b, sizeof(b), x->rel_lo);
				fmt_pct(d, sizeof(d), x->rel_hi);
				snprintf(ci, sizeof(ci), "[%s, %s]", b, d);
			} else {
				snprintf(ci, sizeof(ci), "%s", x->have_test ? "unbounded" : "-");
			}
			if (x->have_test) {
				snprintf(b, sizeof(b), "%.2g", x->welch.p);
				cmp_fmt_mde(d, sizeof(d), x->mde);
			} else {
				snprintf(b, sizeof(b), "-");
				snprintf(d, sizeof(d), "-");
			}
			fprintf(f, " | %-*.*s %-8s %-19s %-6s %-9s %s", name_width(c->g[g].name, 19),
				name_width(c->g[g].name, 19), v, a, ci, b, verdict, d);
		}
		fputc('\n', f);
	}
	if (cmp_has_within(c))
		print_within(c, f);
	for (size_t l = 0; l < c->nlat; l++) {
		fprintf(f, "\n%s: histogram merged over every iteration and thread (us)\n", c->lat[l].label);
		int w = names_width(c, 22);
		fprintf(f, "  %-*s %8s %8s %8s %8s %8s %8s %10s %10s\n", w, "variant", "p50", "p90", "p99",
			"p99.9", "p99.99", "max", "samples", "overflows");
		for (size_t g = 0; g < c->ng; g++) {
			const struct cmp_hist *h = &c->lat[l].h[g];
			if (!h->ok)
				continue;
			fprintf(f, "  %-*.*s %8.0f %8.0f %8.0f %8.0f %8.0f %8.0f %10llu %10llu\n",
				w, w, c->g[g].name, h->pct[0], h->pct[1], h->pct[2], h->pct[3], h->pct[4], h->max,
				(unsigned long long)h->samples, (unsigned long long)h->overflows);
		}
	}
	if (c->ng > 1) {
		fprintf(f, "\noverall score (geometric mean of the headline metrics' ratios to %s, "
			"> 1 better):", c->g[c->base].name);
		for (size_t g = 0; g < c->ng; g++)
			if (g != c->base)
				fprintf(f, " %s %.3f (%d metrics)", c->g[g].name, c->g[g].score,
					c->g[g].score_n);
		fputc('\n', f);
	}
	for (size_t i = 0; i < c->warnings.n; i++)
		fprintf(f, "warning: %s\n", c->warnings.v[i]);
	if (c->nfail)
		fprintf(f, "%zu failure%s recorded (report.html and comparison.json show them)\n",
			c->nfail, c->nfail == 1 ? "" : "s");
}
