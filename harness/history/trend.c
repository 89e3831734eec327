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

static void trend_release(struct trend *tr)
{
	history_series_release(&tr->s);
	cp_result_release(&tr->cp);
	free(tr->state);
	for (size_t i = 0; i < tr->nacc; i++)
		free(tr->acc[i].text);
	free(tr->acc);
}

/* The nights' verdict states of TR (regressed spans, noisy nights): one
 * range of the verdicts primary key. */
static int load_states(struct history *h, const char *host_id, const char *suite, struct trend *tr)
{
	const struct history_series *s = &tr->s;
	sqlite3_stmt *st = history_prepare(h, "SELECT seq, state FROM verdicts WHERE host_id = ?1 AND "
					   "suite = ?2 AND variant = ?3 AND label = ?4 AND metric = ?5 AND "
					   "seq >= ?6 AND seq <= ?7 ORDER BY seq", "sssssii", host_id, suite,
					   s->variant, s->label, s->metric, (int)s->p[0].seq,
					   (int)s->p[s->n - 1].seq);
	size_t j = 0;
	int rc;
	if (!st)
		return -1;
	tr->state = xcalloc(s->n, 1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		long long seq = sqlite3_column_int64(st, 0);
		const char *state = (const char *)sqlite3_column_text(st, 1);
		while (j < s->n && s->p[j].seq < seq)
			j++;
		if (j < s->n && s->p[j].seq == seq && state)
			tr->state[j] = !strcmp(state, "regressed") ? 'r' : !strcmp(state, "noisy") ? 'n' : 0;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : error("history '%s': %s", h->path, sqlite3_errmsg(h->db));
}

/* The accepted changes that apply to TR, at the first point they cover. */
static int load_accepts(struct history *h, struct trend *tr)
{
	const struct history_series *s = &tr->s;
	char *lm = xasprintf("%s.%s", s->label, s->metric);
	sqlite3_stmt *st = history_prepare(h, "SELECT seq, night, variant, metric, reason, by, at FROM "
					   "accepts WHERE (variant IS NULL OR variant = ?1) AND (metric IS "
					   "NULL OR metric = ?2) AND seq <= ?3 ORDER BY seq, id", "ssi",
					   s->variant, lm, (int)s->p[s->n - 1].seq);
	size_t j = 0;
	int rc;
	free(lm);
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *c[6];
		struct trend_mark *m;
		for (int k = 0; k < 6; k++)
			c[k] = (const char *)sqlite3_column_text(st, k + 1);
		while (j < s->n && s->p[j].seq < sqlite3_column_int64(st, 0))
			j++;
		if (j == s->n)
			break;
		tr->acc = xrealloc(tr->acc, (tr->nacc + 1) * sizeof(*tr->acc));
		m = &tr->acc[tr->nacc++];
		m->index = j;
		m->text = xasprintf("accepted at night %s by %s on %.10s (%s, %s): %s", c[0] ? c[0] : "?",
				    c[4] ? c[4] : "someone", c[5] ? c[5] : "?",
				    c[1] ? c[1] : "every variant", c[2] ? c[2] : "every metric",
				    c[3] ? c[3] : "");
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 :
		error("history '%s': %s", h->path, sqlite3_errmsg(h->db));
}

/* TR's series over the whole history, its change points over the LAST
 * latest nights, its states and accepts. 0, 1 no night, -1 error. */
static int trend_load(struct history *h, const char *host_id, const char *suite, const char *accel,
		      const char *const vlm[3], const char *until, int last, const struct cp_opts *opts,
		      struct trend *tr)
{
	struct history_series *s = &tr->s;
	double *x;
	if (history_series(h, host_id, suite, accel, vlm[0], vlm[1], vlm[2], until, 0, s))
		return -1;
	if (!s->n)
		return 1;
	tr->from = last > 0 && s->n > (size_t)last ? s->n - (size_t)last : 0;
	x = xcalloc(s->n, sizeof(double));
	for (size_t i = 0; i < s->n; i++)
		x[i] = s->p[i].center;
	changepoint_edivisive(x + tr->from, s->n - tr->from, opts, &tr->cp);
	for (size_t i = 0; i < tr->cp.n; i++)
		tr->cp.v[i].index += tr->from;
	free(x);
	return load_states(h, host_id, suite, tr) || load_accepts(h, tr) ? -1 : 0;
}

int trends_build(struct history *h, const char *host_id, const char *suite, const char *accel,
		 const char *const *variants, size_t nv, const char *until, int last, struct trends *t)
{
	sqlite3_stmt *st;
	int rc, ret = 0;
	memset(t, 0, sizeof(*t));
	cp_opts_init(&t->opts);
	t->detail = 90;
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
		const char *vlm[3];
		struct trend *tr;
		int r;
		for (int k = 0; k < 3; k++)
			vlm[k] = (const char *)sqlite3_column_text(st, k);
		if (!vlm[0] || !vlm[1] || !vlm[2] || (nv && !has(variants, nv, vlm[0])))
			continue;
		t->v = xrealloc(t->v, (t->n + 1) * sizeof(*t->v));
		tr = &t->v[t->n++];
		memset(tr, 0, sizeof(*tr));
		if ((r = trend_load(h, host_id, suite, accel, vlm, until, last, &t->opts, tr)))
			trend_release(tr), t->n--, ret = r < 0 ? -1 : 0;
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW && !ret)
		ret = error("history '%s': %s", h->path, sqlite3_errmsg(h->db));
	sqlite3_finalize(st);
	return ret;
}

void trends_release(struct trends *t)
{
	for (size_t i = 0; i < t->n; i++)
		trend_release(&t->v[i]);
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

/* A band of a chart: points [A, B) of a series across the plot width,
 * values LO..HI into the rows TOP..TOP+PH. */
struct band {
	double L, pw, top, ph, lo, hi;
	size_t a, b;
};

static double bx(const struct band *v, size_t i)
{
	size_t n = v->b - v->a;
	return v->L + (n > 1 ? v->pw * (double)(i - v->a) / (double)(n - 1) : v->pw / 2);
}

static double bdx(const struct band *v)
{
	return v->b - v->a > 1 ? v->pw / (double)(v->b - v->a - 1) : v->pw;
}

static double by(const struct band *v, double x)
{
	return v->top + v->ph - (x - v->lo) / (v->hi - v->lo) * v->ph;
}

/* The band's value range: the points' means (and intervals, WHISKERS). */
static void band_range(struct band *v, const struct history_series *s, int whiskers)
{
	v->lo = INFINITY;
	v->hi = -INFINITY;
	for (size_t i = v->a; i < v->b; i++) {
		double c[3] = { s->p[i].center, s->p[i].lo, s->p[i].hi };
		for (int k = 0; k < (whiskers ? 3 : 1); k++)
			if (isfinite(c[k])) {
				v->lo = fmin(v->lo, c[k]);
				v->hi = fmax(v->hi, c[k]);
			}
	}
	if (!isfinite(v->lo)) {
		v->lo = 0;
		v->hi = 1;
	}
	if (v->hi - v->lo < 1e-9 * fmax(1, fabs(v->hi))) {
		v->hi += fmax(fabs(v->hi) * 0.05, 1e-6);
		v->lo -= fmax(fabs(v->lo) * 0.05, 1e-6);
	}
}

/* Regressed spans shaded, change points dashed red, accepted changes
 * green, each with its <title> (the nights, the change, who and why). */
static void band_marks(struct strbuf *sb, const struct trend *tr, const struct band *v)
{
	const struct history_series *s = &tr->s;
	double dx = bdx(v), y0 = v->top - 3, y1 = v->top + v->ph;
	for (size_t i = v->a; i < v->b; i++) {
		size_t k = i;
		if (!tr->state || tr->state[i] != 'r' || (i > v->a && tr->state[i - 1] == 'r'))
			continue;
		while (k + 1 < v->b && tr->state[k + 1] == 'r')
			k++;
		sb_addf(sb, "<rect class=\"regressed\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			"fill=\"#cf222e\" fill-opacity=\"0.13\"><title>regressed from night ",
			fmax(v->L, bx(v, i) - dx / 2), y0, fmin(v->L + v->pw, bx(v, k) + dx / 2) -
			fmax(v->L, bx(v, i) - dx / 2), y1 - y0);
		esc(sb, s->p[i].night);
		sb_adds(sb, " to ");
		esc(sb, s->p[k].night);
		sb_addf(sb, " (%zu night%s in view)</title></rect>", k - i + 1, k > i ? "s" : "");
	}
	for (size_t i = 0; i < tr->cp.n; i++) {
		const struct cp_point *c = &tr->cp.v[i];
		double x = bx(v, c->index) - dx / 2;
		if (c->index <= v->a || c->index >= v->b)
			continue;
		sb_addf(sb, "<line class=\"cp\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"#cf222e\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"><title>change point "
			"before night ", x, x, y0, y1);
		esc(sb, s->p[c->index].night);
		sb_adds(sb, ": ");
		num(sb, c->before);
		sb_adds(sb, " -> ");
		num(sb, c->after);
		sb_addf(sb, " (%+.1f%%, p %.3g)</title></line>", (c->after / c->before - 1) * 100, c->p);
	}
	for (size_t i = 0; i < tr->nacc; i++) {
		double x = bx(v, tr->acc[i].index) - (tr->acc[i].index > v->a ? dx / 2 : 0);
		if (tr->acc[i].index < v->a || tr->acc[i].index >= v->b)
			continue;
		sb_addf(sb, "<g class=\"accept\"><title>");
		esc(sb, tr->acc[i].text);
		sb_addf(sb, "</title><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#1a7f37\" "
			"stroke-width=\"2\"/><path d=\"M%.1f %.1fl5 -7h-10z\" fill=\"#1a7f37\"/></g>", x, x,
			y0, y1, x, y0);
	}
}

/* The line through the band's means. */
static void band_line(struct strbuf *sb, const struct history_series *s, const struct band *v,
		      double width)
{
	if (v->b - v->a < 2)
		return;
	sb_addf(sb, "<path fill=\"none\" stroke=\"#0072B2\" stroke-width=\"%g\" stroke-linejoin=\"round\" "
		"d=\"", width);
	for (size_t i = v->a; i < v->b; i++)
		sb_addf(sb, "%s%.1f %.1f", i > v->a ? "L" : "M", bx(v, i), by(v, s->p[i].center));
	sb_adds(sb, "\"/>");
}

static void label(struct strbuf *sb, double x, double y, const char *anchor, const char *text)
{
	sb_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#57606a\" text-anchor=\"%s\">",
		x, y, anchor);
	esc(sb, text);
	sb_adds(sb, "</text>");
}

/* The overview: every night of the history, the detail window framed. */
static void overview(struct strbuf *sb, const struct trend *tr, struct band *v, size_t d0)
{
	const struct history_series *s = &tr->s;
	char b[96];
	band_range(v, s, 0);
	sb_addf(sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f6f8fa\" "
		"stroke=\"#d0d7de\"/>", v->L, v->top, v->pw, v->ph);
	if (d0 > 0)
		sb_addf(sb, "<rect class=\"window\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			"fill=\"#ddf4ff\" stroke=\"#54aeff\"><title>the latest %zu nights, in detail "
			"below</title></rect>", bx(v, d0), v->top, v->L + v->pw - bx(v, d0), v->ph,
			s->n - d0);
	band_marks(sb, tr, v);
	band_line(sb, s, v, 1);
	snprintf(b, sizeof(b), "whole history: %zu night%s", s->n, s->n == 1 ? "" : "s");
	label(sb, v->L - 4, v->top + 10, "end", "all");
	label(sb, v->L, v->top + v->ph + 12, "start", s->p[0].night);
	label(sb, v->L + v->pw / 2, v->top + v->ph + 12, "middle", b);
	label(sb, v->L + v->pw, v->top + v->ph + 12, "end", s->p[s->n - 1].night);
}

/* One night in the detail: whisker, dot (hollow when noisy), <title>. */
static void detail_point(struct strbuf *sb, const struct trend *tr, const struct band *v, size_t i,
			 double r)
{
	const struct history_point *p = &tr->s.p[i];
	int noisy = tr->state && tr->state[i] == 'n';
	if (p->n > 1 && isfinite(p->lo) && isfinite(p->hi))
		sb_addf(sb, "<path d=\"M%.1f %.1fV%.1f\" stroke=\"#1f2328\" stroke-opacity=\"0.7\"/>",
			bx(v, i), by(v, fmax(p->lo, v->lo)), by(v, fmin(p->hi, v->hi)));
	sb_addf(sb, "<circle class=\"night\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" "
		"stroke=\"%s\" stroke-width=\"0.8\"><title>night ", bx(v, i), by(v, p->center), r,
		noisy ? "#fff" : "#0072B2", noisy ? "#6e7781" : "#fff");
	esc(sb, p->night);
	sb_adds(sb, noisy ? " (noisy): " : ": ");
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

/* One series, as wide as the page: the whole history as an overview, the
 * latest DETAIL nights below it with every night's mean and interval. */
static void chart(struct strbuf *sb, const struct trend *tr, int detail)
{
	struct svg_frame f = { .W = 1200, .H = 270, .L = 60, .R = 14, .T = 112, .B = 34 };
	const struct history_series *s = &tr->s;
	const char *title[] = { s->variant, s->label, s->metric };
	size_t d0 = detail > 0 && s->n > (size_t)detail ? s->n - (size_t)detail : 0, step;
	struct band ov = { f.L, svg_pw(&f), 28, 44, 0, 1, 0, s->n };
	struct band dv = { f.L, svg_pw(&f), f.T, svg_ph(&f), 0, 1, d0, s->n };
	char attrs[160];
	snprintf(attrs, sizeof(attrs), "class=\"trend\" data-points=\"%zu\" data-changes=\"%zu\" "
		 "style=\"width:100%%;height:auto\" ", s->n, tr->cp.n);
	svg_open(sb, &f, attrs);
	esc_words(sb, s->variant, s->label, s->metric);
	sb_adds(sb, " over nights\">");
	svg_heading(sb, &f, title, 3, s->unit, s->better, 13, 11);
	overview(sb, tr, &ov, d0);
	band_range(&dv, s, 1);
	svg_scale(&f, dv.lo, dv.hi);
	dv.lo = f.lo;
	dv.hi = f.hi;
	svg_yticks(sb, &f, 10);
	band_marks(sb, tr, &dv);
	band_line(sb, s, &dv, 1.2);
	for (size_t i = d0; i < s->n; i++)
		detail_point(sb, tr, &dv, i, s->n - d0 > 120 ? 2.2 : 3.2);
	step = (s->n - d0 + 7) / 8 ? (s->n - d0 + 7) / 8 : 1;
	for (size_t i = d0; i == d0 || i + step / 2 < s->n - 1; i += step)
		label(sb, bx(&dv, i), f.H - 16, i == d0 ? "start" : "middle", s->p[i].night);
	if (s->n - d0 > 1)
		label(sb, bx(&dv, s->n - 1), f.H - 16, "end", s->p[s->n - 1].night);
	snprintf(attrs, sizeof(attrs), "the latest %zu night%s", s->n - d0, s->n - d0 == 1 ? "" : "s");
	label(sb, f.L + svg_pw(&f) / 2, f.H - 3, "middle", attrs);
	sb_adds(sb, "</svg>");
}

static void card(struct strbuf *sb, const struct trend *tr, int detail)
{
	size_t win = tr->s.n - tr->from;
	sb_adds(sb, "<div class=\"card trendcard\">");
	chart(sb, tr, detail);
	sb_addf(sb, "<div class=\"small\">%zu night%s; change points over the latest %zu", tr->s.n,
		tr->s.n == 1 ? "" : "s", win);
	if (tr->cp.n)
		sb_addf(sb, ": <b style=\"color:#a40e26\">%zu change point%s</b>", tr->cp.n,
			tr->cp.n == 1 ? "" : "s");
	if (tr->nacc)
		sb_addf(sb, "; %zu accepted change%s", tr->nacc, tr->nacc == 1 ? "" : "s");
	sb_adds(sb, "</div></div>");
}

void trends_html(const struct trends *t, struct strbuf *sb)
{
	char method[512];
	size_t nchanges = trends_changes(t);
	trends_method(t, method, sizeof(method));
	sb_adds(sb, "<section");
	if (t->host) {
		sb_adds(sb, " id=\"trends-");
		esc(sb, t->host);
		sb_adds(sb, "\"><h2>Trends over nights: host ");
		esc(sb, t->host);
		sb_adds(sb, "</h2>");
	} else {
		sb_adds(sb, " id=\"trends\"><h2>Trends over nights</h2>");
	}
	sb_addf(sb, "<style>.trendcard svg{display:block;max-width:100%%}</style><p class=\"small\">"
		"Each chart spans the whole history (the strip on top: one point per night, the latest "
		"%d framed in blue) and shows the latest %d nights below it: one dot per night, the mean "
		"of its iterations, with its 95%% interval (t) when it had more than one; a hollow dot "
		"is a night flagged noisy. Red shading marks nights a verdict held regressed, green "
		"lines accepted changes (who and why on hover). Red dashed lines mark change points "
		"found by ", t->detail, t->detail);
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
		sb_adds(sb, "</table><h3>Series with a change point</h3>");
		for (size_t i = 0; i < t->n; i++)
			if (t->v[i].cp.n)
				card(sb, &t->v[i], t->detail);
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
		sb_adds(sb, ": every metric</summary>");
		for (size_t k = i; k < t->n && !strcmp(t->v[k].s.variant, v); k++)
			card(sb, &t->v[k], t->detail);
		sb_adds(sb, "</details>");
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
		for (size_t k = tr->from; k < tr->s.n; k++) {
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
			jset_int(x, "index", (int)(c->index - tr->from));
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
		if (t->v[i].s.n - t->v[i].from > longest)
			longest = t->v[i].s.n - t->v[i].from;
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
