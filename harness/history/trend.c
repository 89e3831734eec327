/* trend.c - nightly trends and their change points (trend.h). The charts
 * use report.c's classes (card, grid) and draw their own SVG: a night per
 * step on x, the night's mean as a dot with its 95% interval as a
 * whisker, a dashed red line before each change point. */
#include "history/trend.h"
#include "stats/compare.h"
#include "report/report.h"
#include "report/svg.h"
#include "core/jsonutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int has(const char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return 1;
	return 0;
}

int trends_build(struct history *h, const char *host_id, const char *suite, const char *accel,
		 const char *const *variants, size_t nv, const char *until, int last, struct trends *t)
{
	sqlite3_stmt *st;
	int rc, ret = 0;
	memset(t, 0, sizeof(*t));
	cp_opts_init(&t->opts);
	t->until = until ? xstrdup(until) : NULL;
	if (sqlite3_prepare_v2(h->db, "SELECT DISTINCT r.variant, s.label, s.metric FROM runs r "
			       "JOIN samples s ON s.run = r.id WHERE r.night IS NOT NULL AND "
			       "r.host_id = ?1 AND r.suite = ?2 AND r.id >= (SELECT coalesce(min(id), 0) FROM "
			       "(SELECT id FROM runs WHERE host_id = ?1 AND suite = ?2 AND night IS NOT NULL "
			       "ORDER BY id DESC LIMIT ?3)) ORDER BY r.variant, s.label, s.metric",
			       -1, &st, NULL) != SQLITE_OK)
		return error("history '%s': %s", h->path, sqlite3_errmsg(h->db));
	sqlite3_bind_text(st, 1, host_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, suite, -1, SQLITE_TRANSIENT);
	/* the metrics of the window's runs (a night has a run per variant) */
	sqlite3_bind_int(st, 3, last > 0 ? 16 * last : -1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && !ret) {
		const char *v = (const char *)sqlite3_column_text(st, 0);
		const char *l = (const char *)sqlite3_column_text(st, 1);
		const char *m = (const char *)sqlite3_column_text(st, 2);
		struct trend *tr;
		double *x;
		if (!v || !l || !m || (nv && !has(variants, nv, v)))
			continue;
		t->v = xrealloc(t->v, (t->n + 1) * sizeof(*t->v));
		tr = &t->v[t->n];
		memset(tr, 0, sizeof(*tr));
		if (history_series(h, host_id, suite, accel, v, l, m, until, last, &tr->s)) {
			history_series_release(&tr->s);
			ret = -1;
			break;
		}
		if (!tr->s.n) {
			history_series_release(&tr->s);
			continue;
		}
		t->n++;
		x = xcalloc(tr->s.n, sizeof(double));
		for (size_t i = 0; i < tr->s.n; i++)
			x[i] = tr->s.p[i].center;
		changepoint_edivisive(x, tr->s.n, &t->opts, &tr->cp);
		free(x);
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW && !ret)
		ret = error("history '%s': %s", h->path, sqlite3_errmsg(h->db));
	sqlite3_finalize(st);
	return ret;
}

void trends_release(struct trends *t)
{
	for (size_t i = 0; i < t->n; i++) {
		history_series_release(&t->v[i].s);
		cp_result_release(&t->v[i].cp);
	}
	free(t->v);
	free(t->until);
	memset(t, 0, sizeof(*t));
}

size_t trends_changes(const struct trends *t)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		n += t->v[i].cp.n;
	return n;
}

void trends_method(const struct trends *t, char *buf, size_t len)
{
	snprintf(buf, len, "E-divisive means (Matteson & James 2014, as in MongoDB's CI and Apache "
		 "Otava), energy distance with exponent 1, each split tested with %d permutations "
		 "(seed %u) at alpha %.2g, segments of at least %d nights",
		 t->opts.permutations, (unsigned)t->opts.seed, t->opts.alpha, t->opts.min_size);
}

/* What differs between two points' runs: "source A -> B; config ..." */
static void changed(const struct history_point *a, const struct history_point *b, struct strbuf *out)
{
	static const char *const names[] = { "source", "patches", "config", "kernel" };
	const char *va[4] = { a->source, a->patch_hash, a->config_hash, a->kernel_release };
	const char *vb[4] = { b->source, b->patch_hash, b->config_hash, b->kernel_release };
	size_t before = out->len;
	for (int i = 0; i < 4; i++) {
		const char *x = va[i] ? va[i] : "none", *y = vb[i] ? vb[i] : "none";
		if (!strcmp(x, y))
			continue;
		sb_addf(out, "%s%s %.*s -> %.*s", out->len > before ? "; " : "", names[i],
			i == 1 || i == 2 ? 12 : 80, x, i == 1 || i == 2 ? 12 : 80, y);
	}
	if (out->len == before)
		sb_adds(out, "nothing recorded changed (host, environment or a cause outside the kernel)");
}

static void esc(struct strbuf *sb, const char *s)
{
	report_escape(sb, s ? s : "");
}

static void num(struct strbuf *sb, double v)
{
	char b[32];
	cmp_fmt_num(b, sizeof(b), v);
	sb_adds(sb, b);
}


/* The words A, B and C (C may be NULL) escaped, space-separated. */
static void esc_words(struct strbuf *sb, const char *a, const char *b, const char *c)
{
	esc(sb, a);
	sb_adds(sb, " ");
	esc(sb, b);
	if (c) {
		sb_adds(sb, " ");
		esc(sb, c);
	}
}

/* A change-point table cell: the night, and the run under it. */
static void night_cell(struct strbuf *sb, const struct history_point *p)
{
	sb_adds(sb, "</td><td class=\"l\">");
	esc(sb, p->night);
	sb_adds(sb, "<br><span class=\"small\">run ");
	esc(sb, p->run_id);
	sb_adds(sb, "</span>");
}

/* One series: dots, whiskers, a line through the means, change points. */
static void chart(struct strbuf *sb, const struct trend *tr)
{
	struct svg_frame f = { .W = 300, .H = 170, .L = 46, .R = 10, .T = 24, .B = 30 };
	const double H = f.H, L = f.L, T = f.T;
	const struct history_series *s = &tr->s;
	const char *title[] = { s->label, s->metric };
	double pw = svg_pw(&f), ph = svg_ph(&f), lo = INFINITY, hi = -INFINITY, dx;
	char attrs[96];
	for (size_t i = 0; i < s->n; i++) {
		double c[3] = { s->p[i].center, s->p[i].lo, s->p[i].hi };
		for (int k = 0; k < 3; k++)
			if (isfinite(c[k])) {
				lo = fmin(lo, c[k]);
				hi = fmax(hi, c[k]);
			}
	}
	if (!isfinite(lo)) {
		lo = 0;
		hi = 1;
	}
	if (hi - lo < 1e-9 * fmax(1, fabs(hi))) {
		hi += fmax(fabs(hi) * 0.05, 1e-6);
		lo -= fmax(fabs(lo) * 0.05, 1e-6);
	}
	svg_scale(&f, lo, hi);
	lo = f.lo;
	hi = f.hi;
	dx = s->n > 1 ? pw / (double)(s->n - 1) : 0;
#define X(i) (L + (s->n > 1 ? dx * (double)(i) : pw / 2))
#define Y(v) svg_y(&f, (v))
	snprintf(attrs, sizeof(attrs), "class=\"trend\" data-points=\"%zu\" data-changes=\"%zu\" ",
		 s->n, tr->cp.n);
	svg_open(sb, &f, attrs);
	esc_words(sb, s->variant, s->label, s->metric);
	sb_adds(sb, " over nights\">");
	svg_heading(sb, &f, title, 2, s->unit, s->better, 12, 10);
	svg_yticks(sb, &f, 9.5);
	for (size_t i = 0; i < tr->cp.n; i++) {
		double x = X(tr->cp.v[i].index) - dx / 2;
		sb_addf(sb, "<line class=\"cp\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"#cf222e\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"><title>change point "
			"before night ", x, x, T - 4, T + ph);
		esc(sb, s->p[tr->cp.v[i].index].night);
		sb_addf(sb, " (p %.3g)</title></line>", tr->cp.v[i].p);
	}
	if (s->n > 1) {
		sb_adds(sb, "<path fill=\"none\" stroke=\"#0072B2\" stroke-opacity=\"0.6\" d=\"");
		for (size_t i = 0; i < s->n; i++)
			sb_addf(sb, "%s%.1f %.1f", i ? "L" : "M", X(i), Y(s->p[i].center));
		sb_adds(sb, "\"/>");
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct history_point *p = &s->p[i];
		if (p->n > 1 && isfinite(p->lo) && isfinite(p->hi))
			sb_addf(sb, "<path d=\"M%.1f %.1fV%.1f\" stroke=\"#1f2328\" stroke-width=\"1.2\"/>",
				X(i), Y(fmax(p->lo, lo)), Y(fmin(p->hi, hi)));
		sb_addf(sb, "<circle class=\"night\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.2\" fill=\"#0072B2\" "
			"stroke=\"#fff\" stroke-width=\"0.8\"><title>night ", X(i), Y(p->center));
		esc(sb, p->night);
		sb_adds(sb, ": ");
		num(sb, p->center);
		if (p->n > 1) {
			sb_adds(sb, " (95% ");
			num(sb, p->lo);
			sb_adds(sb, " .. ");
			num(sb, p->hi);
			sb_adds(sb, ")");
		}
		sb_addf(sb, ", n %zu, run ", p->n);
		esc(sb, p->run_id);
		sb_adds(sb, ", ");
		esc(sb, p->source);
		sb_adds(sb, "</title></circle>");
	}
	if (s->n) {
		sb_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9.5\" fill=\"#57606a\">", L, H - 8);
		esc(sb, s->p[0].night);
		sb_adds(sb, "</text>");
		if (s->n > 1) {
			sb_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9.5\" fill=\"#57606a\" "
				"text-anchor=\"end\">", L + pw, H - 8);
			esc(sb, s->p[s->n - 1].night);
			sb_adds(sb, "</text>");
		}
	}
#undef X
#undef Y
	sb_adds(sb, "</svg>");
}

static void card(struct strbuf *sb, const struct trend *tr)
{
	sb_adds(sb, "<div class=\"card\">");
	chart(sb, tr);
	sb_addf(sb, "<div class=\"small\">%zu night%s", tr->s.n, tr->s.n == 1 ? "" : "s");
	if (tr->cp.n)
		sb_addf(sb, ", <b style=\"color:#a40e26\">%zu change point%s</b>", tr->cp.n,
			tr->cp.n == 1 ? "" : "s");
	sb_adds(sb, "</div></div>");
}

void trends_html(const struct trends *t, struct strbuf *sb)
{
	char method[512];
	size_t nchanges = trends_changes(t);
	trends_method(t, method, sizeof(method));
	sb_adds(sb, "<section id=\"trends\"><h2>Trends over nights</h2><p class=\"small\">One dot per "
		"night: the mean of its iterations, with its 95% interval (t) when it had more than "
		"one. Red dashed lines mark change points found by ");
	esc(sb, method);
	sb_adds(sb, ". A change point is where the series before and after differ in distribution "
		"more than a shuffle of the same nights would make them; a slow drift shows as a "
		"change point within it.</p>");
	if (nchanges) {
		sb_adds(sb, "<h3>Change points</h3><table><tr><th class=\"l\">variant</th><th class=\"l\">"
			"metric</th><th class=\"l\">last night before</th><th class=\"l\">first night after"
			"</th><th>before</th><th>after</th><th>change</th><th>p</th><th class=\"l\">what "
			"changed between these runs</th></tr>");
		for (size_t i = 0; i < t->n; i++) {
			const struct trend *tr = &t->v[i];
			for (size_t k = 0; k < tr->cp.n; k++) {
				const struct cp_point *c = &tr->cp.v[k];
				const struct history_point *a = &tr->s.p[c->index - 1], *b = &tr->s.p[c->index];
				double rel = c->after / c->before - 1;
				int worse = (rel > 0) == (tr->s.better < 0);
				struct strbuf what = STRBUF_INIT;
				sb_adds(sb, "<tr><td class=\"l\">");
				esc(sb, tr->s.variant);
				sb_adds(sb, "</td><td class=\"l\">");
				esc_words(sb, tr->s.label, tr->s.metric, NULL);
				night_cell(sb, a);
				night_cell(sb, b);
				sb_adds(sb, "</td><td>");
				num(sb, c->before);
				sb_adds(sb, "</td><td>");
				num(sb, c->after);
				sb_addf(sb, "</td><td class=\"%s\">%+.1f%%</td><td>%.3g</td><td class=\"l\">",
					worse ? "worse" : "better", rel * 100, c->p);
				changed(a, b, &what);
				esc(sb, what.buf);
				sb_release(&what);
				sb_adds(sb, "</td></tr>");
			}
		}
		sb_adds(sb, "</table><h3>Series with a change point</h3><div class=\"grid\">");
		for (size_t i = 0; i < t->n; i++)
			if (t->v[i].cp.n)
				card(sb, &t->v[i]);
		sb_adds(sb, "</div>");
	} else {
		sb_adds(sb, "<p><b>No change point</b> in any series.</p>");
	}
	for (size_t i = 0; i < t->n; i++) {
		const char *v = t->v[i].s.variant;
		if (i && !strcmp(v, t->v[i - 1].s.variant))
			continue;
		sb_adds(sb, "<details");
		sb_adds(sb, nchanges ? ">" : " open>");
		sb_adds(sb, "<summary>");
		esc(sb, v);
		sb_adds(sb, ": every metric</summary><div class=\"grid\">");
		for (size_t k = i; k < t->n && !strcmp(t->v[k].s.variant, v); k++)
			card(sb, &t->v[k]);
		sb_adds(sb, "</div></details>");
	}
	sb_adds(sb, "</section>");
}

json_object *trends_json(const struct trends *t)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array();
	char method[512];
	trends_method(t, method, sizeof(method));
	jset_str(o, "method", method);
	jset_num(o, "alpha", t->opts.alpha);
	jset_int(o, "permutations", t->opts.permutations);
	jset_i64(o, "seed", t->opts.seed);
	jset_int(o, "min_size", t->opts.min_size);
	for (size_t i = 0; i < t->n; i++) {
		const struct trend *tr = &t->v[i];
		json_object *s = json_object_new_object(), *pts = json_object_new_array();
		json_object *cps = json_object_new_array();
		jset_str(s, "variant", tr->s.variant);
		jset_str(s, "label", tr->s.label);
		jset_str(s, "metric", tr->s.metric);
		jset_str(s, "unit", tr->s.unit);
		jset_str(s, "better", tr->s.better > 0 ? "higher" : "lower");
		for (size_t k = 0; k < tr->s.n; k++) {
			const struct history_point *p = &tr->s.p[k];
			json_object *x = json_object_new_object();
			jset_str(x, "night", p->night);
			jset_str(x, "run_id", p->run_id);
			jset_int(x, "n", (int)p->n);
			jset_num(x, "mean", p->center);
			jset_num(x, "lo", p->lo);
			jset_num(x, "hi", p->hi);
			jset_str(x, "source", p->source);
			jset_str(x, "patch_hash", p->patch_hash);
			jset_str(x, "config_hash", p->config_hash);
			json_object_array_add(pts, x);
		}
		for (size_t k = 0; k < tr->cp.n; k++) {
			const struct cp_point *c = &tr->cp.v[k];
			json_object *x = json_object_new_object();
			struct strbuf what = STRBUF_INIT;
			changed(&tr->s.p[c->index - 1], &tr->s.p[c->index], &what);
			jset_int(x, "index", (int)c->index);
			jset_str(x, "last_before", tr->s.p[c->index - 1].night);
			jset_str(x, "first_after", tr->s.p[c->index].night);
			jset_num(x, "before", c->before);
			jset_num(x, "after", c->after);
			jset_num(x, "q", c->q);
			jset_num(x, "p", c->p);
			jset_str(x, "changed", what.buf);
			sb_release(&what);
			json_object_array_add(cps, x);
		}
		jset(s, "points", pts);
		jset(s, "change_points", cps);
		json_object_array_add(arr, s);
	}
	jset(o, "series", arr);
	return o;
}

void trends_print(const struct trends *t, FILE *f)
{
	size_t longest = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].s.n > longest)
			longest = t->v[i].s.n;
	fprintf(f, "trends: %zu series over up to %zu night%s, %zu change point%s\n", t->n, longest,
		longest == 1 ? "" : "s", trends_changes(t), trends_changes(t) == 1 ? "" : "s");
	for (size_t i = 0; i < t->n; i++) {
		const struct trend *tr = &t->v[i];
		for (size_t k = 0; k < tr->cp.n; k++) {
			const struct cp_point *c = &tr->cp.v[k];
			struct strbuf what = STRBUF_INIT;
			changed(&tr->s.p[c->index - 1], &tr->s.p[c->index], &what);
			fprintf(f, "  change point: %s %s %s between nights %s and %s: %.4g -> %.4g %s "
				"(%+.1f%%, p %.3g); %s\n", tr->s.variant, tr->s.label, tr->s.metric,
				tr->s.p[c->index - 1].night, tr->s.p[c->index].night, c->before, c->after,
				tr->s.unit ? tr->s.unit : "", (c->after / c->before - 1) * 100, c->p, what.buf);
			sb_release(&what);
		}
	}
}
