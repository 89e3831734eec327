/* compare_out.c - a comparison written out: comparison.json (the format
 * is docs/comparison.md) and the summary table for a terminal. */
#include "stats/compare.h"
#include "core/jsonutil.h"

#include <math.h>
#include <string.h>



/* A double for comparison.json: 10 significant digits, null if not finite. */
static json_object *jnum(double v)
{
	char buf[40];
	if (!isfinite(v))
		return NULL;
	snprintf(buf, sizeof(buf), "%.10g", v);
	return json_object_new_double_s(v, buf);
}

static json_object *jinterval(double lo, double hi)
{
	json_object *a;
	if (!isfinite(lo) && !isfinite(hi))
		return NULL;
	a = json_object_new_array();
	json_object_array_add(a, jnum(lo));
	json_object_array_add(a, jnum(hi));
	return a;
}

static json_object *cell_json(const struct comparison *c, const struct cmp_metric *m, size_t g)
{
	const struct cmp_cell *x = &m->cell[g];
	json_object *o = json_object_new_object(), *vals = json_object_new_array(), *src;
	src = json_object_new_array();
	for (size_t i = 0; i < x->n; i++) {
		json_object_array_add(vals, jnum(x->v[i]));
		json_object_array_add(src, json_object_new_string(x->src[i]));
	}
	json_object_object_add(o, "values", vals);
	json_object_object_add(o, "sources", src);
	json_object_object_add(o, "n", json_object_new_int((int)x->n));
	if (x->n) {
		json_object_object_add(o, "mean", jnum(x->d.mean));
		json_object_object_add(o, "median", jnum(x->d.median));
		json_object_object_add(o, "stddev", jnum(x->d.sd));
		json_object_object_add(o, "cv", jnum(x->d.cv));
		json_object_object_add(o, "min", jnum(x->d.min));
		json_object_object_add(o, "max", jnum(x->d.max));
		json_object_object_add(o, "mean_ci95", jinterval(x->d.ci_lo, x->d.ci_hi));
		if (m->cls == CMP_CLASS_RATE) {
			json_object_object_add(o, "hmean", jnum(x->d.hmean));
			json_object_object_add(o, "hmean_ci95", jinterval(x->d.hm_lo, x->d.hm_hi));
		}
		json_object_object_add(o, "center", jnum(x->center));
		json_object_object_add(o, "center_ci95", jinterval(x->center_lo, x->center_hi));
		json_object_object_add(o, "noisy", json_object_new_boolean(x->noisy));
	}
	if (g != c->base) {
		json_object *vs = json_object_new_object();
		json_object_object_add(vs, "verdict", json_object_new_string(cmp_verdict_name(x->verdict)));
		json_object_object_add(vs, "relative", jnum(x->rel));
		json_object_object_add(vs, "relative_ci95", jinterval(x->rel_lo, x->rel_hi));
		if (x->have_test) {
			json_object_object_add(vs, "relative_ci95_method", json_object_new_string(
				x->ci_boot ? "bootstrap" : "fieller"));
			json_object_object_add(vs, "relative_ci95_bootstrap",
					       jinterval(x->boot_lo, x->boot_hi));
			json_object_object_add(vs, "relative_ci95_fieller",
					       jinterval(x->fieller_lo, x->fieller_hi));
		}
		if (x->have_test) {
			json_object *w = json_object_new_object();
			json_object_object_add(w, "t", jnum(x->welch.t));
			json_object_object_add(w, "df", jnum(x->welch.df));
			json_object_object_add(w, "p", jnum(x->welch.p));
			json_object_object_add(vs, "welch", w);
			json_object_object_add(vs, "p", jnum(x->welch.p));
			json_object_object_add(vs, "q_bh", jnum(x->q));
			json_object_object_add(vs, "mde", jnum(x->mde));
		}
		if (x->have_mwu) {
			json_object *u = json_object_new_object();
			json_object_object_add(u, "u", jnum(x->mwu.u));
			json_object_object_add(u, "p", jnum(x->mwu.p));
			json_object_object_add(u, "method", json_object_new_string(
				x->mwu.exact ? "exact" : "normal, tie-corrected"));
			json_object_object_add(vs, "mann_whitney", u);
		}
		json_object_object_add(vs, "note", x->note[0] ? json_object_new_string(x->note) : NULL);
		json_object_object_add(o, "vs_baseline", vs);
	}
	return o;
}

static json_object *hist_json(const struct cmp_hist *h)
{
	static const char *const names[5] = { "p50", "p90", "p99", "p99_9", "p99_99" };
	json_object *o = json_object_new_object(), *counts;
	size_t last = 0;
	json_object_object_add(o, "histograms", json_object_new_int(h->histograms));
	json_object_object_add(o, "bucket_us", json_object_new_int(1));
	json_object_object_add(o, "buckets", json_object_new_int64((int64_t)h->nb));
	json_object_object_add(o, "samples", json_object_new_int64((int64_t)h->samples));
	json_object_object_add(o, "overflows", json_object_new_int64((int64_t)h->overflows));
	json_object_object_add(o, "max", jnum(h->max));
	for (int k = 0; k < 5; k++)
		json_object_object_add(o, names[k], jnum(h->pct[k]));
	for (size_t i = 0; i < h->nb; i++)
		if (h->counts[i])
			last = i + 1;
	counts = json_object_new_array_ext((int)last);
	for (size_t i = 0; i < last; i++)
		json_object_array_add(counts, json_object_new_int64((int64_t)h->counts[i]));
	json_object_object_add(o, "counts", counts);
	return o;
}

json_object *comparison_to_json(const struct comparison *c)
{
	json_object *doc = json_object_new_object(), *o, *a;
	static const char *const vkeys[] = { "description", "package", "package_version",
					     "image_release", "kernel_release", "realtime",
					     "config_hash", "extra_cmdline", NULL };

	json_object_object_add(doc, "schema", json_object_new_string(COMPARISON_SCHEMA));
	json_object_object_add(doc, "schema_version", json_object_new_int(COMPARISON_SCHEMA_VERSION));
	json_object_object_add(doc, "created", json_object_new_string(c->created));
	o = json_object_new_object();
	json_object_object_add(o, "version", json_object_new_string(KB_VERSION));
	json_object_object_add(o, "commit", json_object_new_string(KB_GIT_COMMIT));
	json_object_object_add(doc, "kbench", o);
	json_object_object_add(doc, "suite", json_object_new_string(c->suite));
	json_object_object_add(doc, "accel", json_object_new_string(c->accel));
	json_object_object_add(doc, "baseline", json_object_new_string(c->g[c->base].name));

	o = json_object_new_object();
	json_object_object_add(o, "confidence", jnum(STATS_LEVEL));
	json_object_object_add(o, "alpha", jnum(STATS_ALPHA));
	json_object_object_add(o, "power", jnum(STATS_POWER));
	json_object_object_add(o, "test", json_object_new_string("welch"));
	json_object_object_add(o, "interval", json_object_new_string(
		"bootstrap (expanded percentile, Hesterberg 2015) of the ratio of means (harmonic "
		"means for rates) when both sides have bootstrap_min_n values, else Fieller's "
		"interval with Welch's df"));
	json_object_object_add(o, "bootstrap_min_n", json_object_new_int(CMP_BOOT_MIN_N));
	json_object_object_add(o, "bootstrap_seed", json_object_new_int64(c->seed));
	json_object_object_add(o, "bootstrap_resamples", json_object_new_int(c->reps));
	json_object_object_add(o, "rng", json_object_new_string("gsl mt19937"));
	a = json_object_new_object();
	for (int k = 0; k <= CMP_CLASS_TAIL; k++) {
		json_object *d = json_object_new_object();
		double me, cv;
		cmp_class_defaults(k, &me, &cv);
		json_object_object_add(d, "min_effect", jnum(me));
		json_object_object_add(d, "max_cv", jnum(cv));
		json_object_object_add(a, cmp_class_name(k), d);
	}
	json_object_object_add(o, "class_defaults", a);
	json_object_object_add(doc, "settings", o);
	json_object_object_add(doc, "campaign", c->campaign ? json_object_get(c->campaign) : NULL);

	a = json_object_new_array();
	for (size_t i = 0; i < c->in->n; i++) {
		const struct cmp_input *x = &c->in->v[i];
		json_object *h = jget(x->doc, "host");
		o = json_object_new_object();
		json_object_object_add(o, "path", json_object_new_string(x->path));
		json_object_object_add(o, "group", json_object_new_string(x->group));
		json_object_object_add(o, "run_id", json_object_new_string(or_empty(jstr(x->doc, "run_id"))));
		json_object_object_add(o, "status", json_object_new_string(or_empty(jstr(x->doc, "status"))));
		json_object_object_add(o, "started", json_object_new_string(or_empty(jstr(x->doc, "started"))));
		json_object_object_add(o, "host", json_object_get(h));
		json_object_object_add(o, "guest", json_object_get(jget(x->doc, "guest")));
		json_object_array_add(a, o);
	}
	json_object_object_add(doc, "inputs", a);

	a = json_object_new_array();
	for (size_t g = 0; g < c->ng; g++) {
		json_object *runs = json_object_new_array();
		o = json_object_new_object();
		json_object_object_add(o, "name", json_object_new_string(c->g[g].name));
		for (int k = 0; vkeys[k]; k++) {
			const char *s = cmp_group_str(c, g, "variant", vkeys[k]);
			json_object_object_add(o, vkeys[k], s ? json_object_new_string(s) : NULL);
		}
		for (size_t k = 0; k < c->g[g].ninputs; k++)
			json_object_array_add(runs, json_object_new_string(
				or_empty(jstr(c->in->v[c->g[g].inputs[k]].doc, "run_id"))));
		json_object_object_add(o, "runs", runs);
		json_object_object_add(o, "iterations_ok", json_object_new_int(c->g[g].ok));
		json_object_object_add(o, "iterations_failed", json_object_new_int(c->g[g].failed));
		json_object_object_add(o, "iterations_warmup", json_object_new_int(c->g[g].warmup));
		json_object_object_add(o, "score", jnum(c->g[g].score));
		json_object_object_add(o, "score_metrics", json_object_new_int(c->g[g].score_n));
		json_object_array_add(a, o);
	}
	json_object_object_add(doc, "variants", a);

	a = json_object_new_array();
	for (size_t i = 0; i < c->nm; i++) {
		const struct cmp_metric *m = &c->m[i];
		json_object *per = json_object_new_object();
		o = json_object_new_object();
		json_object_object_add(o, "label", json_object_new_string(m->label));
		json_object_object_add(o, "workload", json_object_new_string(m->workload));
		json_object_object_add(o, "metric", json_object_new_string(m->name));
		json_object_object_add(o, "unit", json_object_new_string(m->unit));
		json_object_object_add(o, "better", json_object_new_string(m->better > 0 ? "higher" : "lower"));
		json_object_object_add(o, "class", json_object_new_string(cmp_class_name(m->cls)));
		json_object_object_add(o, "center", json_object_new_string(
			m->cls == CMP_CLASS_RATE ? "hmean" : "mean"));
		json_object_object_add(o, "primary", json_object_new_boolean(m->primary));
		json_object_object_add(o, "min_effect", jnum(m->min_effect));
		json_object_object_add(o, "max_cv", jnum(m->max_cv));
		for (size_t g = 0; g < c->ng; g++)
			json_object_object_add(per, c->g[g].name, cell_json(c, m, g));
		json_object_object_add(o, "variants", per);
		json_object_array_add(a, o);
	}
	json_object_object_add(doc, "metrics", a);

	a = json_object_new_array();
	for (size_t l = 0; l < c->nlat; l++) {
		json_object *per = json_object_new_object();
		o = json_object_new_object();
		json_object_object_add(o, "label", json_object_new_string(c->lat[l].label));
		for (size_t g = 0; g < c->ng; g++)
			json_object_object_add(per, c->g[g].name,
					       c->lat[l].h[g].ok ? hist_json(&c->lat[l].h[g]) : NULL);
		json_object_object_add(o, "variants", per);
		json_object_array_add(a, o);
	}
	json_object_object_add(doc, "latency", a);

	a = json_object_new_array();
	for (size_t i = 0; i < c->nlocks; i++) {
		const struct cmp_lockstat *k = &c->locks[i];
		json_object *per = json_object_new_object();
		o = json_object_new_object();
		json_object_object_add(o, "label", json_object_new_string(k->label));
		json_object_object_add(o, "counter", json_object_new_string(k->counter));
		for (size_t g = 0; g < c->ng; g++)
			json_object_object_add(per, c->g[g].name, k->n[g] ? jnum(k->sum[g] / k->n[g]) : NULL);
		json_object_object_add(o, "mean_per_run", per);
		json_object_array_add(a, o);
	}
	json_object_object_add(doc, "lock_stats", a);

	a = json_object_new_array();
	for (size_t i = 0; i < c->nfail; i++) {
		const struct cmp_failure *f = &c->fail[i];
		o = json_object_new_object();
		json_object_object_add(o, "variant", json_object_new_string(c->g[f->group].name));
		json_object_object_add(o, "run_id", json_object_new_string(f->run_id));
		json_object_object_add(o, "iteration", json_object_new_int(f->iteration));
		json_object_object_add(o, "what", json_object_new_string(f->what));
		json_object_object_add(o, "error", json_object_new_string(f->error));
		json_object_object_add(o, "console_tail",
				       f->console_tail ? json_object_new_string(f->console_tail) : NULL);
		json_object_array_add(a, o);
	}
	json_object_object_add(doc, "failures", a);

	a = json_object_new_array();
	for (size_t i = 0; i < c->warnings.n; i++)
		json_object_array_add(a, json_object_new_string(c->warnings.v[i]));
	json_object_object_add(doc, "warnings", a);
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

void comparison_print(const struct comparison *c, FILE *f)
{
	char v[64], a[32], b[32], d[32], ci[80];
	fprintf(f, "\nkbench compare: suite %s, accel %s;", c->suite, c->accel);
	for (size_t g = 0; g < c->ng; g++)
		fprintf(f, "%s %s%s (%d iteration%s)", g ? "," : "", c->g[g].name,
			g == c->base ? " [baseline]" : "", c->g[g].ok + c->g[g].failed,
			c->g[g].ok + c->g[g].failed == 1 ? "" : "s");
	fprintf(f, "\nvalue: mean (harmonic mean for rates) +- 95%% CI half-width, ~ too noisy (CV "
		"above the limit); change vs baseline with 95%% CI; p: Welch (verdicts use it\nadjusted over each workload's metrics, Benjamini-Hochberg); mde: the smallest "
		"change this run could detect (alpha 0.05, power 0.8)\n\n");
	fprintf(f, "%-27s %-5s %-19s", "metric", "unit", c->g[c->base].name);
	for (size_t g = 0; g < c->ng; g++)
		if (g != c->base)
			fprintf(f, " | %-19.19s %-8s %-19s %-6s %-9s %s", c->g[g].name, "change", "95% CI",
				"p", "verdict", "mde");
	fputc('\n', f);
	for (size_t i = 0; i < c->nm; i++) {
		const struct cmp_metric *m = &c->m[i];
		char name[128];
		snprintf(name, sizeof(name), "%s %s", m->label, m->name);
		fmt_value(v, sizeof(v), &m->cell[c->base]);
		fprintf(f, "%-27.27s %-5.5s %-19.19s", name, m->unit, v);
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
				snprintf(d, sizeof(d), "%.0f%%", x->mde * 100);
			} else {
				snprintf(b, sizeof(b), "-");
				snprintf(d, sizeof(d), "-");
			}
			fprintf(f, " | %-19.19s %-8s %-19s %-6s %-9s %s", v, a, ci, b, verdict, d);
		}
		fputc('\n', f);
	}
	for (size_t l = 0; l < c->nlat; l++) {
		fprintf(f, "\n%s: histogram merged over every iteration and thread (us)\n", c->lat[l].label);
		fprintf(f, "  %-22s %8s %8s %8s %8s %8s %8s %10s %10s\n", "variant", "p50", "p90", "p99",
			"p99.9", "p99.99", "max", "samples", "overflows");
		for (size_t g = 0; g < c->ng; g++) {
			const struct cmp_hist *h = &c->lat[l].h[g];
			if (!h->ok)
				continue;
			fprintf(f, "  %-22.22s %8.0f %8.0f %8.0f %8.0f %8.0f %8.0f %10llu %10llu\n",
				c->g[g].name, h->pct[0], h->pct[1], h->pct[2], h->pct[3], h->pct[4], h->max,
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
