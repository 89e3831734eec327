/* sweep_report.c - sweep.json and sweep.html (see sweep_report.h). */
#include "report/sweep_report.h"
#include "core/ids.h"
#include "core/jsonutil.h"
#include "core/util.h"
#include "report/report.h"
#include "report/svg.h"
#include "run/results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The comparison group of point I, or -1 when none finished. */
static long point_group(const struct comparison *c, const struct sweep *sw, size_t i)
{
	char label[KB_ID_MAX + 1];
	sweep_label(sw, i, label, sizeof(label));
	for (size_t g = 0; g < c->ng; g++)
		if (!strcmp(c->g[g].name, label))
			return (long)g;
	return -1;
}

static json_object *point_metrics(const struct comparison *c, size_t g)
{
	json_object *ms = json_object_new_object();
	for (size_t m = 0; m < c->nm; m++) {
		const struct cmp_cell *x = &c->m[m].cell[g];
		char key[256];
		json_object *o;
		if (!x->n)
			continue;
		o = json_object_new_object();
		jset_str(o, "unit", c->m[m].unit);
		jset_int(o, "better", c->m[m].better);
		jset_int(o, "n", (int)x->n);
		json_object_object_add(o, "median", jnum(x->d.median));
		json_object_object_add(o, "center", jnum(x->center));
		json_object_object_add(o, "ci95_lo", jnum(x->center_lo));
		json_object_object_add(o, "ci95_hi", jnum(x->center_hi));
		snprintf(key, sizeof(key), "%s.%s", c->m[m].label, c->m[m].name);
		json_object_object_add(ms, key, o);
	}
	return ms;
}

static json_object *point_locks(const struct comparison *c, size_t g)
{
	json_object *ls = json_object_new_object();
	for (size_t l = 0; l < c->nlocks; l++) {
		char key[256];
		if (!c->locks[l].n[g])
			continue;
		snprintf(key, sizeof(key), "%s.%s", c->locks[l].label, c->locks[l].counter);
		json_object_object_add(ls, key, json_object_new_double(c->locks[l].sum[g] /
									 c->locks[l].n[g]));
	}
	return ls;
}

/* Each cyclictest label's merged histogram: p99, p99.9 and max (us). */
static json_object *point_latency(const struct comparison *c, size_t g)
{
	json_object *ls = json_object_new_object();
	for (size_t l = 0; l < c->nlat; l++) {
		const struct cmp_hist *h = &c->lat[l].h[g];
		json_object *o;
		if (!h->ok)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "p99_us", jnum(h->pct[2]));
		json_object_object_add(o, "p99_9_us", jnum(h->pct[3]));
		json_object_object_add(o, "max_us", jnum(h->max));
		json_object_object_add(ls, c->lat[l].label, o);
	}
	return ls;
}

/* The test subject (docs/results.md): the variant's once at the top (one
 * binary: the same patches and fragments at every point), the lock knobs
 * each point's command line set in the point P. */
static void point_subject(json_object *doc, json_object *p, const struct comparison *c, long g)
{
	json_object *s = g < 0 || !c->g[g].ninputs ? NULL :
		jget(jget(c->in->v[c->g[g].inputs[0]].doc, "variant"), "subject"), *copy = NULL;
	if (!s || json_object_deep_copy(s, &copy, NULL))
		return;
	if (jget(copy, "lock_knobs"))
		json_object_object_add(p, "lock_knobs", json_object_get(jget(copy, "lock_knobs")));
	if (jget(doc, "subject")) {
		json_object_put(copy);
		return;
	}
	json_object_object_del(copy, "lock_knobs");
	json_object_object_add(doc, "subject", copy);
}

json_object *sweep_report_json(const struct comparison *c, const struct sweep *sw)
{
	json_object *doc = json_object_new_object(), *pts = json_object_new_array();
	char label[KB_ID_MAX + 1];
	jset_str(doc, "schema", "kbench-sweep");
	jset_int(doc, "schema_version", 1);
	json_object_object_add(doc, "sweep", sweep_to_json(sw));
	jset_str(doc, "interval", "95% interval of the center (mean; harmonic mean for rates)");
	jset_str(doc, "lock_stats", "mean per workload run");
	for (size_t i = 0; i < sweep_npoints(sw); i++) {
		long g = point_group(c, sw, i);
		json_object *p = json_object_new_object(), *kv = json_object_new_object();
		sweep_label(sw, i, label, sizeof(label));
		jset_str(p, "label", label);
		for (size_t k = 0; k < sw->nknobs; k++)
			json_object_object_add(kv, sw->k[k].name, json_object_new_int64(sweep_value(sw, i, k)));
		json_object_object_add(p, "knobs", kv);
		point_subject(doc, p, c, g);
		jset_int(p, "iterations_ok", g < 0 ? 0 : c->g[g].ok);
		json_object_object_add(p, "metrics", g < 0 ? json_object_new_object() : point_metrics(c, (size_t)g));
		json_object_object_add(p, "lock_stats", g < 0 ? json_object_new_object() : point_locks(c, (size_t)g));
		json_object_object_add(p, "latency", g < 0 ? json_object_new_object() : point_latency(c, (size_t)g));
		json_object_array_add(pts, p);
	}
	json_object_object_add(doc, "points", pts);
	return doc;
}

/* The x position (0..n-1) of knob 0's value V: its rank among the values,
 * so decades are equally spaced (a log axis) and 0 sits at the left. */
static size_t rank_of(const struct sweep_knob *k, long long v)
{
	size_t r = 0;
	for (size_t j = 0; j < k->n; j++)
		r += k->v[j] < v;
	return r;
}

static const char *const colors[] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e" };

/* The chart of metric M: x knob 0 (by rank), one line per setting of the others. */
static void metric_chart(struct strbuf *sb, const struct comparison *c, const struct sweep *sw,
			 size_t m)
{
	const struct sweep_knob *k0 = &sw->k[0];
	size_t np = sweep_npoints(sw), rest = np / k0->n;
	struct svg_frame f = { 620, 300, 70, 20, 36, 56, 0, 1, 1 };
	double lo = INFINITY, hi = -INFINITY, dx;
	const char *title[] = { c->m[m].label, c->m[m].name };
	for (size_t i = 0; i < np; i++) {
		long g = point_group(c, sw, i);
		const struct cmp_cell *x = g < 0 ? NULL : &c->m[m].cell[g];
		if (x && x->n && isfinite(x->center)) {
			lo = fmin(lo, isfinite(x->center_lo) ? x->center_lo : x->center);
			hi = fmax(hi, isfinite(x->center_hi) ? x->center_hi : x->center);
		}
	}
	if (!isfinite(lo))
		return;
	svg_scale(&f, lo, hi > lo ? hi : lo + 1);
	dx = svg_pw(&f) / (double)(k0->n > 1 ? k0->n - 1 : 1);
	svg_open(sb, &f, "");
	report_escape(sb, c->m[m].label);
	sb_adds(sb, " ");
	report_escape(sb, c->m[m].name);
	sb_adds(sb, "\">");
	svg_heading(sb, &f, title, 2, c->m[m].unit, c->m[m].better, 14, 11);
	svg_yticks(sb, &f, 11);
	for (size_t j = 0; j < k0->n; j++) {
		double x = f.L + dx * (double)rank_of(k0, k0->v[j]);
		int dflt = k0->v[j] == 10000 && strstr(k0->name, "spin_max_loops");
		sb_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%lld</text>\n",
			x, f.H - f.B + 16, k0->v[j]);
		if (dflt)
			sb_addf(sb, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#888\" "
				"stroke-dasharray=\"4 3\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" "
				"text-anchor=\"end\" fill=\"#555\">2008 default</text>\n",
				x, x, f.T, f.H - f.B, x - 3, f.T + 10);
	}
	sb_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%s "
		"(values equally spaced: a log axis for decades, 0 at the left)</text>\n",
		f.L + svg_pw(&f) / 2, f.H - 12, k0->name);
	for (size_t s = 0; s < rest; s++) {
		const char *col = colors[s % (sizeof(colors) / sizeof(colors[0]))];
		struct strbuf line = STRBUF_INIT;
		for (size_t j = 0; j < k0->n; j++) {
			size_t i = j * rest + s;
			long g = point_group(c, sw, i);
			const struct cmp_cell *x = g < 0 ? NULL : &c->m[m].cell[g];
			double px = f.L + dx * (double)rank_of(k0, sweep_value(sw, i, 0));
			if (!x || !x->n || !isfinite(x->center))
				continue;
			sb_addf(&line, "%.1f,%.1f ", px, svg_y(&f, x->center));
			if (isfinite(x->center_lo) && isfinite(x->center_hi))
				sb_addf(sb, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
					"stroke-width=\"2\"/>\n", px, px, svg_y(&f, x->center_lo),
					svg_y(&f, x->center_hi), col);
			sb_addf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n", px,
				svg_y(&f, x->center), col);
		}
		sb_addf(sb, "<polyline fill=\"none\" stroke=\"%s\" points=\"%s\"/>\n", col,
			line.len ? line.buf : "");
		sb_release(&line);
	}
	sb_adds(sb, "</svg>\n");
}

/* The series legend: each colour's setting of the knobs after the first. */
static void legend(struct strbuf *sb, const struct sweep *sw)
{
	size_t rest = sweep_npoints(sw) / sw->k[0].n;
	if (sw->nknobs < 2)
		return;
	sb_adds(sb, "<p>");
	for (size_t s = 0; s < rest; s++) {
		sb_addf(sb, "<span style=\"color:%s\">&#9679; ", colors[s % (sizeof(colors) / sizeof(colors[0]))]);
		for (size_t k = 1; k < sw->nknobs; k++)
			sb_addf(sb, "%s=%lld ", sw->k[k].name, sweep_value(sw, s, k));
		sb_adds(sb, "</span> ");
	}
	sb_adds(sb, "</p>\n");
}

/* The counters the report shows (sweep.json keeps every one); NAME is
 * "CLASS.COUNTER" (rtlock.sleeps). */
static int shown_counter(const char *name)
{
	name = strrchr(name, '.') ? strrchr(name, '.') + 1 : name;
	static const char *const shown[] = { "spin_started", "spin_bound", "sleeps", "steal_lateral",
					     "spin_ns" };
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++)
		if (!strcmp(name, shown[i]))
			return 1;
	return 0;
}

/* The lock counters: a row per counter, a column per point. */
static void counters_table(struct strbuf *sb, const struct comparison *c, const struct sweep *sw)
{
	char num[32];
	if (!c->nlocks) {
		sb_adds(sb, "<p>No lock counters in these runs (a kernel without the reference "
			"patch's lock_stats).</p>\n");
		return;
	}
	sb_adds(sb, "<p>Mean per workload run: spins started, spins ended by the bound, "
		"sleeps, lateral steals, time spent spinning (ns). sweep.json has every counter.</p>\n"
		"<table><tr><th>counter</th>");
	for (size_t i = 0; i < sweep_npoints(sw); i++) {
		sb_adds(sb, "<th>");
		for (size_t k = 0; k < sw->nknobs; k++)
			sb_addf(sb, "%s%lld", k ? "<br>" : "", sweep_value(sw, i, k));
		sb_adds(sb, "</th>");
	}
	sb_adds(sb, "</tr>\n");
	for (size_t l = 0; l < c->nlocks; l++) {
		if (!shown_counter(c->locks[l].counter))
			continue;
		sb_adds(sb, "<tr><th style=\"text-align:left\">");
		report_escape(sb, c->locks[l].label);
		sb_adds(sb, " ");
		report_escape(sb, c->locks[l].counter);
		sb_adds(sb, "</th>");
		for (size_t i = 0; i < sweep_npoints(sw); i++) {
			long g = point_group(c, sw, i);
			if (g < 0 || !c->locks[l].n[g])
				snprintf(num, sizeof(num), "-");
			else
				cmp_fmt_num(num, sizeof(num), c->locks[l].sum[g] / c->locks[l].n[g]);
			sb_addf(sb, "<td>%s</td>", num);
		}
		sb_adds(sb, "</tr>\n");
	}
	sb_adds(sb, "</table>\n");
}

/* A cyclictest histogram figure: p99 (pct[2]), p99.9 (pct[3]) or max. */
enum lat_stat { LAT_P99, LAT_P999, LAT_MAX };
static const char *const lat_stat_name[] = { "p99", "p99.9", "max" };

static double lat_value(const struct cmp_hist *h, enum lat_stat st)
{
	return st == LAT_MAX ? h->max : h->pct[st == LAT_P99 ? 2 : 3];
}

/* The throughput-latency trade-off's two sides: hackbench's headline
 * metric (else dbench's) and the first cyclictest under load. */
static void tradeoff_sides(const struct comparison *c, const struct cmp_metric **m,
			   const struct cmp_latency **lat)
{
	*m = NULL;
	*lat = NULL;
	for (int pass = 0; pass < 2 && !*m; pass++)
		for (size_t i = 0; i < c->nm && !*m; i++)
			if (!strcmp(c->m[i].workload, pass ? "dbench" : "hackbench") && c->m[i].primary)
				*m = &c->m[i];
	for (size_t l = 0; l < c->nlat && !*lat; l++)
		if (strstr(c->lat[l].label, "load"))
			*lat = &c->lat[l];
}

/* That metric against the latency figure ST under load, one dot per
 * point (when both ran). */
static void tradeoff_chart(struct strbuf *sb, const struct comparison *c, const struct sweep *sw,
			   enum lat_stat st)
{
	const struct cmp_metric *m;
	const struct cmp_latency *lat;
	struct svg_frame f = { 620, 320, 70, 30, 36, 50, 0, 1, 1 };
	double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
	char label[KB_ID_MAX + 1], num[32], head[64];
	const char *title[] = { head, NULL, NULL };
	tradeoff_sides(c, &m, &lat);
	if (!m || !lat)
		return;
	snprintf(head, sizeof(head), "trade-off: %s under load against", lat_stat_name[st]);
	title[1] = m->label;
	title[2] = m->name;
	for (size_t g = 0; g < c->ng; g++)
		if (m->cell[g].n && lat->h[g].ok) {
			double y = lat_value(&lat->h[g], st);
			xlo = fmin(xlo, m->cell[g].center), xhi = fmax(xhi, m->cell[g].center);
			ylo = fmin(ylo, y), yhi = fmax(yhi, y);
		}
	if (!isfinite(xlo))
		return;
	if (xhi <= xlo)
		xlo -= 0.5, xhi += 0.5;
	svg_scale(&f, ylo, yhi > ylo ? yhi : ylo + 1);
	svg_open(sb, &f, "");
	sb_adds(sb, "throughput against latency\">");
	svg_heading(sb, &f, title, 3, "us", -1, 14, 11);
	svg_yticks(sb, &f, 11);
	sb_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">x: ",
		f.L + svg_pw(&f) / 2, f.H - 10);
	report_escape(sb, m->label);
	sb_adds(sb, " ");
	report_escape(sb, m->name);
	sb_addf(sb, " (%s, ", m->unit);
	cmp_fmt_num(num, sizeof(num), xlo);
	sb_addf(sb, "%s to ", num);
	cmp_fmt_num(num, sizeof(num), xhi);
	sb_addf(sb, "%s); y: ", num);
	report_escape(sb, lat->label);
	sb_addf(sb, " %s (us)</text>\n", lat_stat_name[st]);
	for (size_t i = 0; i < sweep_npoints(sw); i++) {
		long g = point_group(c, sw, i);
		double x, y;
		if (g < 0 || !m->cell[g].n || !lat->h[g].ok)
			continue;
		x = f.L + 10 + (m->cell[g].center - xlo) / (xhi - xlo) * (svg_pw(&f) - 20);
		y = svg_y(&f, lat_value(&lat->h[g], st));
		sb_addf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#1f77b4\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">%zu</text>\n", x, y, x + 5, y - 4,
			i + 1);
	}
	sb_adds(sb, "</svg>\n<p style=\"font-size:12px\">");
	for (size_t i = 0; i < sweep_npoints(sw); i++) {
		sweep_label(sw, i, label, sizeof(label));
		sb_addf(sb, "%s%zu: ", i ? "; " : "", i + 1);
		report_escape(sb, strchr(label, '@') + 1);
	}
	sb_adds(sb, "</p>\n");
}

/* The trade-off as numbers, one row per point: the throughput metric's
 * center and interval, and p99, p99.9 and max under load. */
static void tradeoff_table(struct strbuf *sb, const struct comparison *c, const struct sweep *sw)
{
	const struct cmp_metric *m;
	const struct cmp_latency *lat;
	char label[KB_ID_MAX + 1], num[32];
	tradeoff_sides(c, &m, &lat);
	if (!m || !lat)
		return;
	sb_adds(sb, "<h2>Trade-off per point</h2>\n<table><tr><th>#</th><th>point</th><th>");
	report_escape(sb, m->label);
	sb_adds(sb, " ");
	report_escape(sb, m->name);
	sb_addf(sb, " (%s) [95%%]</th>", m->unit);
	for (int st = LAT_P99; st <= LAT_MAX; st++) {
		sb_adds(sb, "<th>");
		report_escape(sb, lat->label);
		sb_addf(sb, " %s (us)</th>", lat_stat_name[st]);
	}
	sb_adds(sb, "</tr>\n");
	for (size_t i = 0; i < sweep_npoints(sw); i++) {
		long g = point_group(c, sw, i);
		sweep_label(sw, i, label, sizeof(label));
		sb_addf(sb, "<tr><td>%zu</td><td style=\"text-align:left\">", i + 1);
		report_escape(sb, strchr(label, '@') + 1);
		sb_adds(sb, "</td><td>");
		if (g >= 0 && m->cell[g].n) {
			cmp_fmt_num(num, sizeof(num), m->cell[g].center);
			sb_adds(sb, num);
			if (isfinite(m->cell[g].center_lo) && isfinite(m->cell[g].center_hi)) {
				cmp_fmt_num(num, sizeof(num), m->cell[g].center_lo);
				sb_addf(sb, " [%s, ", num);
				cmp_fmt_num(num, sizeof(num), m->cell[g].center_hi);
				sb_addf(sb, "%s]", num);
			}
		} else {
			sb_adds(sb, "&#8211;");
		}
		sb_adds(sb, "</td>");
		for (int st = LAT_P99; st <= LAT_MAX; st++) {
			if (g >= 0 && lat->h[g].ok) {
				cmp_fmt_num(num, sizeof(num), lat_value(&lat->h[g], st));
				sb_addf(sb, "<td>%s</td>", num);
			} else {
				sb_adds(sb, "<td>&#8211;</td>");
			}
		}
		sb_adds(sb, "</tr>\n");
	}
	sb_adds(sb, "</table>\n");
}

static void sweep_html(struct strbuf *sb, const struct comparison *c, const struct sweep *sw)
{
	sb_adds(sb, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>kbench sweep ");
	report_escape(sb, sw->variant);
	sb_adds(sb, "</title><style>body{font-family:sans-serif;margin:1.5em}"
		".row{display:flex;gap:1.5em;align-items:flex-start}.charts{flex:0 0 640px}.side{position:sticky;top:0}"
		"table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;"
		"padding:2px 6px;text-align:right}</style></head><body>\n<h1>kbench sweep: ");
	report_escape(sb, sw->variant);
	sb_adds(sb, "</h1>\n<p>Every point is the variant's binary booted with the knobs set on its "
		"command line. Each chart: the metric's center (mean; harmonic mean for rates) at "
		"every point with its 95% interval; the dashed line marks the 2008 default spin "
		"bound (10000). The lock counters per point, beside, show which mechanism moves "
		"the metric. Full comparison: <a href=\"report.html\">report.html</a>.</p>\n");
	legend(sb, sw);
	sb_adds(sb, "<div class=\"row\"><div class=\"charts\">\n");
	for (size_t m = 0; m < c->nm; m++)
		metric_chart(sb, c, sw, m);
	for (int st = LAT_P99; st <= LAT_MAX; st++)
		tradeoff_chart(sb, c, sw, st);
	sb_adds(sb, "</div><div class=\"side\"><h2>Lock counters per point</h2>\n");
	sb_adds(sb, "<p>Columns: the points (");
	for (size_t k = 0; k < sw->nknobs; k++)
		sb_addf(sb, "%s%s", k ? ", then " : "", sw->k[k].name);
	sb_adds(sb, ").</p>\n");
	counters_table(sb, c, sw);
	tradeoff_table(sb, c, sw);
	sb_adds(sb, "</div></div>\n");
	report_subject(sb, c);
	sb_adds(sb, "</body></html>\n");
}

int sweep_report_write(const struct cmp_inputs *in, const struct cmp_opts *o,
		       const struct sweep *sw, const char *dir)
{
	struct comparison c;
	struct strbuf sb = STRBUF_INIT;
	char path[KB_PATH_MAX + 16];
	json_object *doc;
	int ret = 0;
	if (comparison_build(&c, in, o)) {
		comparison_release(&c);
		return -1;
	}
	doc = sweep_report_json(&c, sw);
	snprintf(path, sizeof(path), "%s/sweep.json", dir);
	if (results_save(doc, path))
		ret = -1;
	json_object_put(doc);
	sweep_html(&sb, &c, sw);
	snprintf(path, sizeof(path), "%s/sweep.html", dir);
	if (sb_write_atomic(path, &sb))
		ret = -1;
	else
		printf("sweep:      %s/sweep.json\n            %s/sweep.html\n", dir, dir);
	comparison_release(&c);
	return ret;
}
