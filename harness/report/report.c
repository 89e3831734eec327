/* report.c - the comparison as one HTML page that needs nothing else:
 * inline CSS, no script, no fetch from anywhere, so it reads the same
 * attached to a mail, opened from a CI artefact, or with JavaScript off.
 *
 * The charts are SVG that kbench draws itself. No well-kept C charting
 * library emits standalone SVG (the C options draw to raster or need a
 * toolkit: cairo/pango would be a heavy dependency for a few rectangles),
 * and a JavaScript library would break the "no script, no fetch" rule.
 * Bars, whiskers, dots and a log-count histogram are a few hundred lines.
 *
 * Every string that came from a results file (and so from a guest or a
 * config) goes through report_escape().
 */
#include "report/report.h"
#include "core/jsonutil.h"
#include "report/svg.h"
#include "stats/seed.h"
#include "core/machine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Okabe-Ito: distinguishable with the common colour-vision deficiencies. */
static const char *const palette[] = { "#0072B2", "#D55E00", "#009E73", "#CC79A7",
				       "#E69F00", "#56B4E9", "#8C6D1F", "#000000" };
#define NPAL (sizeof(palette) / sizeof(palette[0]))

static const char *color(size_t g)
{
	return palette[g % NPAL];
}

/* Length of a valid UTF-8 sequence at S (1..4), or 0 if invalid. */
static int utf8_len(const unsigned char *s)
{
	int n;
	unsigned cp;
	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		n = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void report_escape(struct strbuf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		int n;
		switch (*p) {
		case '&': sb_adds(out, "&amp;"); p++; continue;
		case '<': sb_adds(out, "&lt;"); p++; continue;
		case '>': sb_adds(out, "&gt;"); p++; continue;
		case '"': sb_adds(out, "&quot;"); p++; continue;
		case '\'': sb_adds(out, "&#39;"); p++; continue;
		case '\n': case '\t': sb_add(out, p, 1); p++; continue;
		}
		if (*p < 0x20 || *p == 0x7f) {
			sb_adds(out, "?");
			p++;
			continue;
		}
		n = utf8_len(p);
		if (!n) {
			sb_adds(out, "?");
			p++;
			continue;
		}
		sb_add(out, p, (size_t)n);
		p += n;
	}
}

static void esc(struct strbuf *sb, const char *s)
{
	report_escape(sb, s);
}

static void num(struct strbuf *sb, double v)
{
	char b[32];
	cmp_fmt_num(b, sizeof(b), v);
	sb_adds(sb, b);
}

static void pct(struct strbuf *sb, double v)
{
	if (isfinite(v))
		sb_addf(sb, "%+.1f%%", v * 100);
	else
		sb_adds(sb, "&#8211;");
}

static const char css[] =
	"*{box-sizing:border-box}"
	"body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
	"color:#1f2328;background:#f6f7f9;margin:0}"
	"main{max-width:1240px;margin:0 auto;padding:24px 28px 60px}"
	"h1{font-size:26px;margin:0 0 4px}h2{font-size:20px;margin:36px 0 10px;padding-bottom:4px;"
	"border-bottom:2px solid #d0d7de}h3{font-size:16px;margin:22px 0 8px}"
	".sub{color:#57606a;margin:0 0 14px}"
	".chips span{display:inline-block;margin:0 14px 6px 0;font-weight:600}"
	".chips i{display:inline-block;width:12px;height:12px;border-radius:3px;margin-right:6px;"
	"vertical-align:-1px}"
	".card{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:14px 16px;margin:12px 0}"
	".warn{background:#fff8c5;border:1px solid #d4a72c;border-radius:8px;padding:10px 14px;margin:8px 0}"
	".warn.tcg{background:#ffebe9;border-color:#ff8182}"
	".warn ul{margin:4px 0 0 18px;padding:0}"
	"table{border-collapse:collapse;background:#fff;width:100%;font-variant-numeric:tabular-nums}"
	"th,td{border:1px solid #d0d7de;padding:5px 8px;text-align:right;vertical-align:top}"
	"th{background:#eef1f4;font-weight:600}"
	"td.l,th.l{text-align:left}"
	"tr.grp td{background:#eef1f4;font-weight:600;text-align:left}"
	"td.hist{color:#57606a;background:#fafbfc;font-style:italic}"
	"th.hist{background:#f3f4f6;color:#57606a}"
	".small{font-size:12px;color:#57606a}"
	".v{display:inline-block;border-radius:10px;padding:0 7px;font-size:12px;font-weight:600;"
	"margin-left:4px}"
	".better{background:#dafbe1;color:#116329}.worse{background:#ffebe9;color:#a40e26}"
	".same{background:#eaeef2;color:#424a53}.undecided{background:#fff8c5;color:#7d4e00}"
	".missing{background:#fff8c5;color:#7d4e00}.baseline{background:#ddf4ff;color:#0a3069}"
	"td.better{background:#f0fdf3}td.worse{background:#fff5f4}"
	".noisy{color:#9a6700;font-size:12px;font-weight:600}"
	".grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(290px,1fr));gap:12px}"
	".grid>*{min-width:0}.env{grid-template-columns:1fr}"
	"dl.kv.wide{grid-template-columns:max-content 1fr max-content 1fr}"
	".grid .card{margin:0;padding:8px 10px}"
	"svg{display:block;max-width:100%;height:auto}"
	"svg text{font-family:system-ui,'DejaVu Sans',sans-serif}"
	"pre{background:#0d1117;color:#e6edf3;padding:10px;border-radius:6px;overflow:auto;"
	"font-size:12px;max-height:420px}"
	"details summary{cursor:pointer;font-weight:600}"
	"nav a{margin-right:14px}a{color:#0969da}"
	"dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0}"
	"dl.kv dt{color:#57606a}dl.kv dd{margin:0;min-width:0;overflow-wrap:anywhere}"
	"code{overflow-wrap:anywhere}";

static void verdict_tag(struct strbuf *sb, enum cmp_verdict v)
{
	sb_addf(sb, "<span class=\"v %s\">%s</span>", cmp_verdict_name(v),
		v == CMP_SAME ? "no significant difference" : cmp_verdict_name(v));
}

/* ---- charts ---- */

/* Deterministic jitter in [-1, 1] for dot I. */
static double jitter(size_t i)
{
	static const double j[] = { 0, -0.6, 0.6, -0.3, 0.3, -0.9, 0.9, -0.45, 0.45, -0.75, 0.75,
				    -0.15, 0.15 };
	return j[i % (sizeof(j) / sizeof(j[0]))];
}

/*
 * One metric: a bar per variant at its centre (mean, harmonic mean for
 * rates) with the 95% interval as a whisker, and the iterations as dots
 * beside it; the verdict against the baseline above each bar.
 */
static void bar_chart(struct strbuf *sb, const struct comparison *c, const struct cmp_metric *m)
{
	struct svg_frame f = { .W = 300, .H = 200, .L = 46, .R = 8, .T = 26, .B = 38 };
	const double H = f.H, L = f.L, T = f.T, B = f.B;
	double pw = svg_pw(&f), hi = 0, lo = 0, slot;
	const char *title[] = { m->name };
	size_t ng = c->ng;

	/* an interval of a positive quantity reaching below 0 (t intervals
	 * of 3 values do) is cut at 0, its end left open */
	for (size_t g = 0; g < ng; g++) {
		const struct cmp_cell *x = &m->cell[g];
		double cand[3] = { x->center, x->center_hi, x->center_lo };
		for (int k = 0; k < 3; k++)
			if (isfinite(cand[k])) {
				hi = fmax(hi, cand[k]);
				if (k < 2)
					lo = fmin(lo, cand[k]);
			}
		for (size_t i = 0; i < x->n; i++) {
			hi = fmax(hi, x->v[i]);
			lo = fmin(lo, x->v[i]);
		}
	}
	if (hi <= lo)
		hi = lo + 1;
	svg_scale(&f, lo, hi);
	lo = f.lo;
	hi = f.hi;
#define Y(v) svg_y(&f, (v))
	svg_open(sb, &f, "");
	esc(sb, m->label);
	sb_adds(sb, " ");
	esc(sb, m->name);
	sb_adds(sb, "\">");
	svg_heading(sb, &f, title, 1, m->unit, m->better, 12.5, 10.5);
	svg_yticks(sb, &f, 10);
	sb_addf(sb, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#8c959f\"/>", L,
		L + pw, Y(fmax(lo, 0)), Y(fmax(lo, 0)));
	slot = pw / (double)ng;
	for (size_t g = 0; g < ng; g++) {
		const struct cmp_cell *x = &m->cell[g];
		double cx = L + slot * ((double)g + 0.5), bw = fmin(slot * 0.42, 46);
		double bx = cx - bw * 0.75, dx = cx + bw * 0.55, base = Y(fmax(lo, 0));
		char name[40];
		snprintf(name, sizeof(name), "%.16s%s", c->g[g].name, strlen(c->g[g].name) > 16 ? "." : "");
		if (isfinite(x->center)) {
			double y = Y(x->center);
			sb_addf(sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
				"fill-opacity=\"0.78\"><title>", bx, fmin(y, base), bw, fabs(base - y),
				color(g));
			esc(sb, c->g[g].name);
			sb_adds(sb, ": ");
			num(sb, x->center);
			sb_adds(sb, " ");
			esc(sb, m->unit);
			sb_adds(sb, "</title></rect>");
			if (isfinite(x->center_lo) && isfinite(x->center_hi)) {
				double wx = bx + bw / 2, y1 = Y(fmin(x->center_hi, hi));
				int cut = x->center_lo < lo;
				double y0 = Y(cut ? lo : x->center_lo);
				sb_addf(sb, "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fh%.1f\" stroke=\"#1f2328\" "
					"stroke-width=\"1.4\" fill=\"none\"/>", wx, y0, y1, wx - 5, y1, 10.0);
				if (!cut)
					sb_addf(sb, "<path d=\"M%.1f %.1fh%.1f\" stroke=\"#1f2328\" "
						"stroke-width=\"1.4\"/>", wx - 5, y0, 10.0);
			}
		}
		for (size_t i = 0; i < x->n; i++) {
			sb_addf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\" stroke=\"#fff\" "
				"stroke-width=\"0.8\"><title>", dx + jitter(i) * 5, Y(x->v[i]), color(g));
			esc(sb, x->src[i]);
			sb_adds(sb, ": ");
			num(sb, x->v[i]);
			sb_adds(sb, "</title></circle>");
		}
		if (g != c->base && (x->verdict == CMP_BETTER || x->verdict == CMP_WORSE))
			sb_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" font-weight=\"700\" "
				"text-anchor=\"middle\" fill=\"%s\">%s</text>", cx, T - 2.0,
				x->verdict == CMP_BETTER ? "#116329" : "#a40e26",
				x->verdict == CMP_BETTER ? "better" : "worse");
		sb_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10.5\" text-anchor=\"middle\" "
			"fill=\"#1f2328\">", cx, H - B + 15);
		esc(sb, name);
		sb_adds(sb, "</text>");
		if (x->n)
			sb_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9.5\" text-anchor=\"middle\" "
				"fill=\"#57606a\">n=%zu%s</text>", cx, H - B + 28, x->n,
				x->noisy ? ", noisy" : "");
	}
#undef Y
	sb_adds(sb, "</svg>");
}

/*
 * A cyclictest histogram in the OSADL manner: 1 us bins, counts on a log
 * axis, one line per variant, each variant's worst case marked. Samples
 * beyond the histogram are drawn as one bar in an "overflow" zone at the
 * right: counted, never dropped.
 */
static void histogram_chart(struct strbuf *sb, const struct comparison *c,
			    const struct cmp_latency *l)
{
	const double W = 1100, H = 340, L = 58, R = 16, T = 18, B = 44, OZ = 70;
	double pw = W - L - R - OZ, ph = H - T - B, ymax = 1, xmax = 1;
	uint64_t maxcount = 1;
	int any_ovf = 0;
	size_t cols;

	for (size_t g = 0; g < c->ng; g++) {
		const struct cmp_hist *h = &l->h[g];
		if (!h->ok)
			continue;
		for (size_t i = 0; i < h->nb; i++)
			if (h->counts[i]) {
				if ((double)i + 1 > xmax)
					xmax = (double)i + 1;
				if (h->counts[i] > maxcount)
					maxcount = h->counts[i];
			}
		if (h->overflows) {
			any_ovf = 1;
			if (h->overflows > maxcount)
				maxcount = h->overflows;
		}
		if (h->max + 1 > xmax && h->max < (double)h->nb)
			xmax = h->max + 1;
	}
	if (!any_ovf)
		pw += OZ;
	{
		double step = svg_nice_step(xmax, 8);
		xmax = ceil(xmax / step) * step;
	}
	ymax = ceil(log10((double)maxcount) + 0.15); /* headroom above the tallest bin */
	if (ymax < 1)
		ymax = 1;
#define X(v) (L + (v) / xmax * pw)
#define YL(cnt) (T + ph - log10(cnt) / ymax * ph)
	sb_addf(sb, "<svg viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\" "
		"aria-label=\"latency histogram\">", W, H, W, H);
	for (int e = 0; e <= (int)ymax; e++) {
		double y = YL(pow(10, e));
		sb_addf(sb, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e8eb\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#57606a\" text-anchor=\"end\">"
			"10<tspan dy=\"-5\" font-size=\"8\">%d</tspan></text>", L, W - R, y, y, L - 6,
			y + 4, e);
	}
	{
		double step = svg_nice_step(xmax, 8);
		for (double t = 0; t <= xmax + step / 2; t += step)
			sb_addf(sb, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eef0f2\"/>"
				"<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#57606a\" "
				"text-anchor=\"middle\">%.0f</text>", X(t), X(t), T, T + ph, X(t), T + ph + 15, t);
	}
	sb_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"#1f2328\" "
		"text-anchor=\"middle\">latency (us, 1 us bins)</text>", L + pw / 2, H - 6);
	sb_addf(sb, "<text transform=\"translate(14 %.1f) rotate(-90)\" font-size=\"12\" "
		"fill=\"#1f2328\" text-anchor=\"middle\">samples per bin (log)</text>", T + ph / 2);
	if (any_ovf) {
		double ox = L + pw + 8;
		sb_addf(sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f6f8fa\" "
			"stroke=\"#d0d7de\" stroke-dasharray=\"3 3\"/><text x=\"%.1f\" y=\"%.1f\" "
			"font-size=\"10.5\" fill=\"#57606a\" text-anchor=\"middle\">overflow</text>",
			ox, T, OZ - 12, ph, ox + (OZ - 12) / 2, T + ph + 28);
	}
	cols = (size_t)fmin(xmax, pw);
	for (size_t g = 0; g < c->ng; g++) {
		const struct cmp_hist *h = &l->h[g];
		int first = 1;
		if (!h->ok)
			continue;
		sb_addf(sb, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.4\" stroke-opacity=\"0.9\" d=\"",
			color(g));
		for (size_t k = 0; k < cols; k++) {
			size_t b0 = (size_t)((double)k * xmax / (double)cols);
			size_t b1 = (size_t)((double)(k + 1) * xmax / (double)cols);
			uint64_t mx = 0;
			double y;
			if (b1 <= b0)
				b1 = b0 + 1;
			for (size_t b = b0; b < b1 && b < h->nb; b++)
				if (h->counts[b] > mx)
					mx = h->counts[b];
			y = mx ? YL((double)mx) : T + ph;
			sb_addf(sb, "%s%.1f %.1fH%.1f", first ? "M" : "L", X((double)b0), y, X((double)b1));
			first = 0;
		}
		sb_adds(sb, "\"/>");
		if (h->overflows) {
			double ox = L + pw + 8, bw = (OZ - 12) / (double)c->ng;
			double y = YL((double)h->overflows);
			sb_addf(sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
				"fill-opacity=\"0.8\"><title>", ox + bw * (double)g + 1, y, bw - 2, T + ph - y,
				color(g));
			esc(sb, c->g[g].name);
			sb_addf(sb, ": %llu samples at or above %zu us</title></rect>",
				(unsigned long long)h->overflows, h->nb);
		}
		/* the worst case: a dashed line, and its value in the corner */
		{
			int in = h->max < (double)h->nb;
			double mx = in ? X(h->max) : L + pw + 8 + (OZ - 12) / (double)c->ng * ((double)g + 0.5);
			sb_addf(sb, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
				"stroke-width=\"1.6\" stroke-dasharray=\"5 3\"/>", mx, mx, T, T + ph, color(g));
			sb_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11.5\" font-weight=\"600\" "
				"fill=\"%s\" text-anchor=\"end\">", L + pw - 6, T + 16 + 15.0 * (double)g, color(g));
			esc(sb, c->g[g].name);
			sb_adds(sb, ": max ");
			num(sb, h->max);
			sb_addf(sb, " us%s</text>", in ? "" : " (beyond the histogram)");
		}
	}
#undef X
#undef YL
	sb_adds(sb, "</svg>");
}

/* ---- sections ---- */

static void chips(struct strbuf *sb, const struct comparison *c)
{
	sb_adds(sb, "<div class=\"chips\">");
	for (size_t g = 0; g < c->ng; g++) {
		sb_addf(sb, "<span><i style=\"background:%s\"></i>", color(g));
		esc(sb, c->g[g].name);
		if (g == c->base)
			sb_adds(sb, " <span class=\"v baseline\">baseline</span>");
		sb_adds(sb, "</span>");
	}
	sb_adds(sb, "</div>");
}

/* The inputs' machines (host.machine), each distinct one once, into OUT
 * (none when no input has facts): more than one only in a comparison
 * forced over machines (--force), which says so. */
static void machine_lines(const struct cmp_inputs *in, struct strvec *out)
{
	for (size_t i = 0; i < in->n; i++) {
		char l[256];
		size_t k = 0;
		machine_line(jget(jget(in->v[i].doc, "host"), "machine"), l, sizeof(l));
		while (k < out->n && strcmp(out->v[k], l))
			k++;
		if (*l && k == out->n)
			strvec_push(out, l);
	}
}

static void warnings(struct strbuf *sb, const struct comparison *c)
{
	int tcg = c->accel && !strcmp(c->accel, "tcg");
	int icount = c->timing && !strcmp(c->timing, "instructions");
	size_t shown = 0;
	if (icount)
		sb_addf(sb, "<div class=\"warn tcg\"><b>Instruction-counted time, not wall time.</b> "
			"The guests' clock was QEMU's instruction counter (-icount shift=%d: each "
			"instruction the guest ran is %d ns of its time, the vCPUs taking turns on one "
			"host thread). Every figure here is the kernel's path length and the order in "
			"which the vCPUs ran, repeatable from boot to boot whatever else the host ran; "
			"there are no caches, no truly parallel lock contention and no real latency in "
			"it. Read differences as more or less work done, never as hardware times "
			"(docs/timing.md).</div>", c->icount_shift, 1 << c->icount_shift);
	if (tcg)
		sb_adds(sb, "<div class=\"warn tcg\"><b>TCG emulation.</b> The guests ran without KVM "
			"(QEMU's TCG emulator): hackbench is about 3x and compiles about 20x slower than "
			"native, and timer latencies are those of an emulator. These figures compare the "
			"variants with each other on this host; they are not hardware figures.</div>");
	/* every warning but the TCG one (its box above): only that one, by
	 * its words; a lab device's CPU model may say "TCG" too, in a
	 * mixed-inputs warning that must show */
	for (size_t i = 0; i < c->warnings.n; i++) {
		if (tcg && !strncmp(c->warnings.v[i], CMP_TCG_WARNING, strlen(CMP_TCG_WARNING)))
			continue;
		if (icount && !strncmp(c->warnings.v[i], CMP_ICOUNT_WARNING, strlen(CMP_ICOUNT_WARNING)))
			continue;
		if (!shown++)
			sb_adds(sb, "<div class=\"warn\"><b>Warnings</b><ul>");
		sb_adds(sb, "<li>");
		esc(sb, c->warnings.v[i]);
		sb_adds(sb, "</li>");
	}
	if (shown)
		sb_adds(sb, "</ul></div>");
}

/* A variant's cell: value +- half interval, and its change vs the baseline. */
static void value_cell(struct strbuf *sb, const struct comparison *c, const struct cmp_metric *m,
		       size_t g, int ratio)
{
	const struct cmp_cell *x = &m->cell[g];
	const char *cls = g != c->base && x->verdict == CMP_BETTER ? " better" :
			  g != c->base && x->verdict == CMP_WORSE ? " worse" : "";
	sb_addf(sb, "<td class=\"%s\">", cls);
	if (!x->n) {
		sb_adds(sb, "&#8211;</td>");
		return;
	}
	sb_adds(sb, "<b>");
	num(sb, x->center);
	sb_adds(sb, "</b>");
	if (isfinite(x->center_lo) && isfinite(x->center_hi)) {
		sb_adds(sb, " <span class=\"small\">&#177;");
		num(sb, (x->center_hi - x->center_lo) / 2);
		sb_adds(sb, "</span>");
	}
	if (x->noisy)
		sb_adds(sb, " <span class=\"noisy\" title=\"CV above the limit\">noisy</span>");
	if (g != c->base) {
		sb_adds(sb, "<br>");
		pct(sb, x->rel);
		if (ratio && isfinite(x->rel))
			sb_addf(sb, " <span class=\"small\">(&#215;%.2f)</span>", x->rel + 1);
		if (isfinite(x->rel_lo)) {
			sb_adds(sb, " <span class=\"small\">[");
			pct(sb, x->rel_lo);
			sb_adds(sb, ", ");
			pct(sb, x->rel_hi);
			sb_adds(sb, "]</span>");
		}
		verdict_tag(sb, x->verdict);
	}
	sb_adds(sb, "</td>");
}

/* One merged-histogram figure as a seed-table cell. */
static void hist_cell(struct strbuf *sb, const struct comparison *c, const struct cmp_latency *l,
		      size_t g, int which /* 0 max, 1 p99.99 */, const struct cmp_metric *per_boot)
{
	const struct cmp_hist *h = &l->h[g], *b = &l->h[c->base];
	double v = which ? h->pct[4] : h->max, bv = which ? b->pct[4] : b->max;
	const struct cmp_cell *x = per_boot ? &per_boot->cell[g] : NULL;
	const char *cls = x && g != c->base && x->verdict == CMP_BETTER ? " better" :
			  x && g != c->base && x->verdict == CMP_WORSE ? " worse" : "";
	sb_addf(sb, "<td class=\"%s\">", cls);
	if (!h->ok) {
		sb_adds(sb, "&#8211;</td>");
		return;
	}
	sb_adds(sb, "<b>");
	num(sb, v);
	sb_adds(sb, "</b>");
	if (g != c->base && b->ok && bv > 0) {
		sb_adds(sb, "<br>");
		pct(sb, v / bv - 1);
		sb_addf(sb, " <span class=\"small\">(&#215;%.2f)</span>", v / bv);
		if (x && x->verdict != CMP_MISSING)
			verdict_tag(sb, x->verdict);
	}
	sb_adds(sb, "</td>");
}

static void history_cells(struct strbuf *sb, const char *a, const char *b, const char *d)
{
	sb_addf(sb, "<td class=\"hist\">%s</td><td class=\"hist\">%s</td><td class=\"hist\">%s</td>",
		a, b, d);
}

/* One row of the seed table: TITLE (and M's label when it is not its
 * workload's name and SUBLABEL asks for it), a cell per variant, then the
 * 2008 figures. */
static void seed_row(struct strbuf *sb, const struct comparison *c, const char *title,
		     const struct cmp_metric *m, int sublabel, const char *h2008_main,
		     const char *h2008_rt, const char *h2008_adaptive)
{
	sb_adds(sb, "<tr><td class=\"l\">");
	sb_adds(sb, title);
	if (sublabel && m && strcmp(m->label, m->workload)) {
		sb_adds(sb, " <span class=\"small\">");
		esc(sb, m->label);
		sb_adds(sb, "</span>");
	}
	sb_adds(sb, "</td>");
	for (size_t g = 0; g < c->ng; g++) {
		if (m)
			value_cell(sb, c, m, g, 1);
		else
			sb_adds(sb, "<td class=\"small\">not measured</td>");
	}
	history_cells(sb, h2008_main, h2008_rt, h2008_adaptive);
	sb_adds(sb, "</tr>");
}

/*
 * The table the project started from: dbench, hackbench, kernel build and
 * cyclictest per variant, with the 2008 "realtime adaptive locks" figures
 * beside it (LWN.net, 2008; other hardware and test sizes: compare the
 * ratios, not the values).
 */
static void seed_table(struct strbuf *sb, const struct comparison *c)
{
	const struct cmp_metric *db = cmp_find(c, "dbench", "throughput");
	const struct cmp_metric *hb = cmp_find(c, "hackbench", "time");
	const struct cmp_metric *kb = cmp_find(c, "kbuild", "elapsed");
	sb_adds(sb, "<h2 id=\"seed\">The seed table</h2><p class=\"sub\">Each cell: mean (harmonic "
		"mean for MB/s) &#177; its 95% interval half-width; below, the change against the "
		"baseline with its 95% interval and the verdict. Cyclictest figures come "
		"from the histograms merged over every iteration and thread.</p>");
	sb_adds(sb, "<table><tr><th class=\"l\">metric</th>");
	for (size_t g = 0; g < c->ng; g++) {
		sb_addf(sb, "<th><i style=\"display:inline-block;width:10px;height:10px;border-radius:2px;"
			"background:%s\"></i> ", color(g));
		esc(sb, c->g[g].name);
		sb_adds(sb, "</th>");
	}
	sb_adds(sb, "<th class=\"hist\">2008 mainline</th><th class=\"hist\">2008 RT</th>"
		"<th class=\"hist\">2008 adaptive RT</th></tr>");

	seed_row(sb, c, "dbench throughput (MB/s)", db, 0, "1500",
		 "~170 <span class=\"small\">(&#215;0.11)</span>",
		 "~700 <span class=\"small\">(&#215;0.47)</span>");
	seed_row(sb, c, "hackbench time (s)", hb, 1,
		 "3.9 <span class=\"small\">(hackbench 50, 4-way)</span>",
		 "16.3&#8211;18.6 <span class=\"small\">(&#215;4.2&#8211;4.8)</span>",
		 "4.8 <span class=\"small\">(&#215;1.23)</span>");
	seed_row(sb, c, "kernel build elapsed (s)", kb, 1, "&#8211;", "&#8211;", "&#8211;");
	for (size_t l = 0; l < c->nlat; l++) {
		for (int which = 0; which < 2; which++) {
			const struct cmp_metric *per = NULL;
			for (size_t i = 0; i < c->nm; i++)
				if (!strcmp(c->m[i].label, c->lat[l].label) &&
				    !strcmp(c->m[i].name, which ? "lat_p99_99" : "lat_max"))
					per = &c->m[i];
			sb_adds(sb, "<tr><td class=\"l\">cyclictest ");
			sb_adds(sb, which ? "p99.99" : "max");
			sb_adds(sb, " (us)");
			if (strcmp(c->lat[l].label, "cyclictest")) {
				sb_adds(sb, " <span class=\"small\">");
				esc(sb, c->lat[l].label);
				sb_adds(sb, "</span>");
			}
			sb_adds(sb, "</td>");
			for (size_t g = 0; g < c->ng; g++)
				hist_cell(sb, c, &c->lat[l], g, which, per);
			history_cells(sb, "&#8211;", "&#8211;", "&#8211;");
			sb_adds(sb, "</tr>");
		}
	}
	sb_adds(sb, "</table><p class=\"small\">History: the 2008 \"realtime adaptive locks\" "
		"figures (LWN.net, 2008) on the hardware of the day: dbench on mainline, "
		"PREEMPT_RT and RT with adaptive locks; hackbench 50 on a 4-way machine, vanilla, RT "
		"and RT with all the adaptive patches. Other machines and test sizes: compare the "
		"ratios to mainline, not the values.</p>");
}

/* a ratio with its interval: "0.47 [0.41, 0.52]" (a share as a percentage) */
static void ratio_cell(struct strbuf *sb, double v, double lo, double hi, int share)
{
	double f = share ? 100 : 1;
	const char *u = share ? "%" : "";
	sb_adds(sb, "<td>");
	if (!isfinite(v))
		sb_adds(sb, share ? "no gap" : "&#8211;");
	else if (isfinite(lo) && isfinite(hi))
		sb_addf(sb, "<b>%.*f%s</b> <span class=\"small\">[%.*f, %.*f]</span>", share ? 0 : 2,
			v * f, u, share ? 0 : 2, lo * f, share ? 0 : 2, hi * f);
	else
		sb_addf(sb, "<b>%.*f%s</b>", share ? 0 : 2, v * f, u);
	sb_adds(sb, "</td>");
}

/* How the seed table's dbench ran (the first input's suite; compare
 * refuses inputs whose suites differ): the setup its row describes. */
static void dbench_setup(struct strbuf *sb, const struct comparison *c)
{
	json_object *ws = c->in && c->in->n ? jget(jget(c->in->v[0].doc, "suite"), "workloads") : NULL;
	size_t n = ws && json_object_is_type(ws, json_type_array) ? json_object_array_length(ws) : 0;
	for (size_t i = 0; i < n; i++) {
		json_object *w = json_object_array_get_idx(ws, i), *p = jget(w, "params");
		const char *fs = jstr(p, "fs");
		if (strcmp(or_empty(jstr(w, "workload")), "dbench") || !jget(p, "clients"))
			continue;
		sb_addf(sb, "</table><p class=\"small\">dbench here: %d clients for %d s on %s, "
			"%d vCPUs.</p>", json_object_get_int(jget(p, "clients")),
			json_object_get_int(jget(p, "duration")),
			fs && !strcmp(fs, "tmpfs") ? "tmpfs" : "ext4 on the scratch disk",
			json_object_get_int(jget(jget(c->in->v[0].doc, "guest"), "vcpus")));
		return;
	}
	sb_adds(sb, "</table>");
}

/* The 2008 table side by side (stats/seed.h): only when the comparison
 * has the three roles (mainline, rt, rt-adaptive, or --seed-roles). */
static void seed_2008(struct strbuf *sb, const struct comparison *c)
{
	static const char *const rows[][6] = {
		{ "dbench", "throughput", "dbench throughput", "0.11", "0.47", "40%" },
		{ "hackbench", "time", "hackbench (1 / time)", "0.21&#8211;0.24", "0.81", "76%" },
	};
	size_t g[3];
	if (seed_roles(c, c->seed_roles, g))
		return;
	sb_adds(sb, "<h2 id=\"seed2008\">The 2008 table, side by side</h2><p class=\"sub\">"
		"Throughput relative to mainline (<b>");
	esc(sb, c->g[g[0]].name);
	sb_adds(sb, "</b>) of RT (<b>");
	esc(sb, c->g[g[1]].name);
	sb_adds(sb, "</b>) and adaptive RT (<b>");
	esc(sb, c->g[g[2]].name);
	sb_adds(sb, "</b>), and the share of the RT-to-mainline gap adaptive spinning recovers, "
		"(adaptive &#8722; RT) / (mainline &#8722; RT), beside the 2008 article's. Brackets: "
		"95% percentile bootstrap intervals from the per-iteration samples (each variant "
		"resampled independently; centres are means, harmonic means for MB/s).</p>"
		"<table><tr><th class=\"l\">metric</th><th>RT / mainline</th><th>adaptive / "
		"mainline</th><th>gap recovered</th><th class=\"hist\">2008 RT</th><th class=\"hist\">"
		"2008 adaptive</th><th class=\"hist\">2008 gap recovered</th></tr>");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct cmp_metric *m = cmp_find(c, rows[i][0], rows[i][1]);
		struct seed_ratio r;
		sb_addf(sb, "<tr><td class=\"l\">%s</td>", rows[i][2]);
		if (!m || seed_compute(m, g, c->reps, c->seed, &r)) {
			sb_adds(sb, "<td colspan=\"3\" class=\"small\">not measured (fewer than 2 "
				"values a variant)</td>");
		} else {
			for (int k = 0; k < 2; k++)
				ratio_cell(sb, r.rel[k], r.rel_lo[k], r.rel_hi[k], 0);
			ratio_cell(sb, r.gap, r.gap_lo, r.gap_hi, 1);
		}
		history_cells(sb, rows[i][3], rows[i][4], rows[i][5]);
		sb_adds(sb, "</tr>");
	}
	dbench_setup(sb, c);
	sb_adds(sb, "<p class=\"small\">2008: dbench 1500, ~170 and ~700 MB/s; hackbench "
		"50 on a 4-way machine 3.9 s, 16.3&#8211;18.6 s and 4.8 s (LWN.net, 2008). dbench: "
		"the dbench study (docs/comparison.md) found dbench's lock contention under TCG only "
		"with more clients than vCPUs on tmpfs (make seed runs 8 clients on tmpfs on 2 vCPUs: "
		"RT 0.30, adaptive 0.80 of mainline there); with one client per vCPU, or on the "
		"emulated disk, RT stays within about 10% of mainline and this row says little about "
		"adaptive spinning: see how its dbench ran, above. The lock "
		"counters of the three variants are in <a href=\"#locks\">lock counters</a>.</p>");
}

static void score_line(struct strbuf *sb, const struct comparison *c)
{
	sb_addf(sb, "<div class=\"card\"><b>Overall score</b> <span class=\"small\">(geometric "
		"mean over the workloads of each headline metric's ratio to the baseline, oriented "
		"so that above 1 is better)</span><br>");
	for (size_t g = 0; g < c->ng; g++) {
		if (g == c->base)
			continue;
		sb_addf(sb, "<span style=\"color:%s;font-weight:700\">", color(g));
		esc(sb, c->g[g].name);
		sb_adds(sb, "</span> ");
		if (isfinite(c->g[g].score))
			sb_addf(sb, "<b>%.3f</b> <span class=\"small\">(%+.1f%%, %d metric%s)</span>&#160;&#160; ",
				c->g[g].score, (c->g[g].score - 1) * 100, c->g[g].score_n,
				c->g[g].score_n == 1 ? "" : "s");
		else
			sb_adds(sb, "&#8211;&#160;&#160; ");
	}
	sb_adds(sb, "</div>");
}

/* A table header cell per variant. */
static void th_variants(struct strbuf *sb, const struct comparison *c)
{
	for (size_t g = 0; g < c->ng; g++) {
		sb_adds(sb, "<th>");
		esc(sb, c->g[g].name);
		sb_adds(sb, "</th>");
	}
}

static void metrics_table(struct strbuf *sb, const struct comparison *c)
{
	const char *label = NULL;
	sb_adds(sb, "<h2 id=\"metrics\">Every metric</h2><p class=\"sub\">Welch's t-test "
		"decides (its p adjusted over the workload's metrics by Benjamini-Hochberg, q &lt; "
		"0.05) together with the metric's minimum effect; \"mde\" is the "
		"smallest change this run could have detected (power 0.8). Mann-Whitney U is shown as "
		"a check.</p><table><tr><th class=\"l\">metric</th><th class=\"l\">unit</th>");
	th_variants(sb, c);
	sb_adds(sb, "<th>p (Welch)</th><th>p (U)</th><th>mde</th><th>min effect</th></tr>");
	for (size_t i = 0; i < c->nm; i++) {
		const struct cmp_metric *m = &c->m[i];
		const struct cmp_cell *x = NULL;
		if (!label || strcmp(label, m->label)) {
			label = m->label;
			sb_addf(sb, "<tr class=\"grp\"><td colspan=\"%zu\">", c->ng + 6);
			esc(sb, m->label);
			if (strcmp(m->label, m->workload)) {
				sb_adds(sb, " <span class=\"small\">(");
				esc(sb, m->workload);
				sb_adds(sb, ")</span>");
			}
			sb_adds(sb, "</td></tr>");
		}
		sb_adds(sb, "<tr><td class=\"l\">");
		esc(sb, m->name);
		if (m->primary)
			sb_adds(sb, " <span class=\"small\">&#9733;</span>");
		sb_adds(sb, "</td><td class=\"l\">");
		esc(sb, m->unit);
		sb_adds(sb, "</td>");
		for (size_t g = 0; g < c->ng; g++) {
			value_cell(sb, c, m, g, 0);
			if (g != c->base && !x)
				x = &m->cell[g];
		}
		/* the test columns speak of the first non-baseline variant when
		 * there are two; with more, each cell carries its own verdict */
		char mde[16];
		if (x && x->have_test && c->ng == 2) {
			sb_addf(sb, "<td>%.3g</td>", x->welch.p);
			if (x->have_mwu)
				sb_addf(sb, "<td>%.3g</td>", x->mwu.p);
			else
				sb_adds(sb, "<td>&#8211;</td>");
			cmp_fmt_mde(mde, sizeof(mde), x->mde);
			sb_addf(sb, "<td>%s</td>", mde);
		} else if (x && x->have_test) {
			sb_adds(sb, "<td class=\"small\">");
			for (size_t g = 0; g < c->ng; g++)
				if (g != c->base && m->cell[g].have_test)
					sb_addf(sb, "%.2g ", m->cell[g].welch.p);
			sb_adds(sb, "</td><td class=\"small\">");
			for (size_t g = 0; g < c->ng; g++)
				if (g != c->base && m->cell[g].have_mwu)
					sb_addf(sb, "%.2g ", m->cell[g].mwu.p);
			sb_adds(sb, "</td><td class=\"small\">");
			for (size_t g = 0; g < c->ng; g++)
				if (g != c->base && m->cell[g].have_test) {
					cmp_fmt_mde(mde, sizeof(mde), m->cell[g].mde);
					sb_addf(sb, "%s ", mde);
				}
			sb_adds(sb, "</td>");
		} else {
			sb_adds(sb, "<td class=\"small\" colspan=\"3\">");
			if (x && x->note[0])
				esc(sb, x->note);
			else
				sb_adds(sb, "&#8211;");
			sb_adds(sb, "</td>");
		}
		sb_addf(sb, "<td>%.0f%%</td></tr>", m->min_effect * 100);
	}
	sb_adds(sb, "</table><p class=\"small\">&#9733; headline metric (enters the score). "
		"\"noisy\": the coefficient of variation is above the metric's limit, so a small "
		"difference could hide in the spread.</p>");
}

static void charts(struct strbuf *sb, const struct comparison *c)
{
	const char *label = NULL;
	sb_adds(sb, "<h2 id=\"charts\">Charts</h2><p class=\"sub\">Bars: mean (harmonic mean for "
		"rates) with its 95% interval; dots: the iterations (hover for the run and "
		"iteration).</p>");
	for (size_t i = 0; i < c->nm; i++) {
		const struct cmp_metric *m = &c->m[i];
		if (!label || strcmp(label, m->label)) {
			if (label)
				sb_adds(sb, "</div>");
			label = m->label;
			sb_adds(sb, "<h3>");
			esc(sb, m->label);
			sb_adds(sb, "</h3><div class=\"grid\">");
		}
		sb_adds(sb, "<div class=\"card\">");
		bar_chart(sb, c, m);
		sb_adds(sb, "</div>");
	}
	if (label)
		sb_adds(sb, "</div>");
}

static void latency(struct strbuf *sb, const struct comparison *c)
{
	static const char *const pn[5] = { "p50", "p90", "p99", "p99.9", "p99.99" };
	if (!c->nlat)
		return;
	sb_adds(sb, "<h2 id=\"latency\">Latency histograms</h2><p class=\"sub\">cyclictest, every "
		"iteration and thread merged: 1 us bins, samples on a log axis, each variant's worst "
		"case dashed (OSADL style). Samples beyond the histogram are counted in the overflow "
		"zone, never dropped; a percentile that falls among them is reported as the maximum."
		"</p>");
	for (size_t l = 0; l < c->nlat; l++) {
		const struct cmp_latency *lt = &c->lat[l];
		sb_adds(sb, "<h3>");
		esc(sb, lt->label);
		sb_adds(sb, "</h3><div class=\"card\">");
		chips(sb, c);
		histogram_chart(sb, c, lt);
		sb_adds(sb, "<table><tr><th class=\"l\">variant</th>");
		for (int k = 0; k < 5; k++)
			sb_addf(sb, "<th>%s</th>", pn[k]);
		sb_adds(sb, "<th>max</th><th>samples</th><th>overflows</th><th>histograms</th></tr>");
		for (size_t g = 0; g < c->ng; g++) {
			const struct cmp_hist *h = &lt->h[g];
			sb_adds(sb, "<tr><td class=\"l\">");
			esc(sb, c->g[g].name);
			sb_adds(sb, "</td>");
			if (!h->ok) {
				sb_adds(sb, "<td colspan=\"9\" class=\"small\">no histogram</td></tr>");
				continue;
			}
			for (int k = 0; k < 5; k++) {
				sb_adds(sb, "<td>");
				num(sb, h->pct[k]);
				sb_adds(sb, "</td>");
			}
			sb_adds(sb, "<td><b>");
			num(sb, h->max);
			sb_addf(sb, "</b></td><td>%llu</td><td>%llu</td><td>%d</td></tr>",
				(unsigned long long)h->samples, (unsigned long long)h->overflows, h->histograms);
		}
		sb_adds(sb, "</table></div>");
	}
}

static void locks(struct strbuf *sb, const struct comparison *c)
{
	const char *label = NULL;
	if (!c->nlocks)
		return;
	sb_adds(sb, "<h2 id=\"locks\">Lock counters</h2><p class=\"sub\">The reference patch's "
		"counters, mean per workload run (reset before the workload, read after); absent "
		"where the kernel has no counters.</p><table><tr><th class=\"l\">counter</th>");
	th_variants(sb, c);
	sb_adds(sb, "</tr>");
	for (size_t i = 0; i < c->nlocks; i++) {
		const struct cmp_lockstat *k = &c->locks[i];
		if (!label || strcmp(label, k->label)) {
			label = k->label;
			sb_addf(sb, "<tr class=\"grp\"><td colspan=\"%zu\">", c->ng + 1);
			esc(sb, k->label);
			sb_adds(sb, "</td></tr>");
		}
		sb_adds(sb, "<tr><td class=\"l\">");
		esc(sb, k->counter);
		sb_adds(sb, "</td>");
		for (size_t g = 0; g < c->ng; g++) {
			sb_adds(sb, "<td>");
			if (k->n[g])
				num(sb, k->sum[g] / k->n[g]);
			else
				sb_adds(sb, "&#8211;");
			sb_adds(sb, "</td>");
		}
		sb_adds(sb, "</tr>");
	}
	sb_adds(sb, "</table>");
}

/* A CV in a cell: "4.2%", or a dash when it is not defined. */
static void cv_text(struct strbuf *sb, double cv)
{
	if (isfinite(cv))
		sb_addf(sb, "%.1f%%", cv * 100);
	else
		sb_adds(sb, "&#8211;");
}

/* Runs with repeats inside a boot: the spread between boots beside the
 * spread within them, per metric and variant. */
static void spread(struct strbuf *sb, const struct comparison *c)
{
	if (!cmp_has_within(c))
		return;
	sb_adds(sb, "<h2 id=\"spread\">Spread between and within boots</h2><p class=\"sub\">"
		"Each cell: the coefficient of variation between boots (of the per-boot medians of "
		"the repeats: the values every test above uses) / within a boot (each boot's "
		"repeats, averaged over the boots). Between much above within: the noise comes "
		"with the boot (placement, caches, the host), and more boots, not more repeats, "
		"buy power.</p><table><tr><th class=\"l\">metric</th>");
	th_variants(sb, c);
	sb_adds(sb, "</tr>");
	for (size_t i = 0; i < c->nm; i++) {
		const struct cmp_metric *m = &c->m[i];
		if (!cmp_metric_within(m, c->ng))
			continue;
		sb_adds(sb, "<tr><td class=\"l\">");
		esc(sb, m->label);
		sb_adds(sb, " ");
		esc(sb, m->name);
		sb_adds(sb, "</td>");
		for (size_t g = 0; g < c->ng; g++) {
			const struct cmp_cell *x = &m->cell[g];
			sb_adds(sb, "<td>");
			cv_text(sb, x->n > 1 ? x->d.cv : NAN);
			sb_adds(sb, " / ");
			cv_text(sb, cmp_within_cv(x));
			sb_addf(sb, " <span class=\"small\">(%d repeats, %zu boots)</span></td>",
				x->within_repeats ? x->within_repeats : 1, x->n);
		}
		sb_adds(sb, "</tr>");
	}
	sb_adds(sb, "</table>");
}

static void failures(struct strbuf *sb, const struct comparison *c)
{
	if (!c->nfail)
		return;
	sb_addf(sb, "<h2 id=\"failures\">Failures</h2><p class=\"sub\">%zu failed iteration%s or "
		"workload%s; their values are not in the statistics.</p>", c->nfail,
		c->nfail == 1 ? "" : "s", c->nfail == 1 ? "" : "s");
	for (size_t i = 0; i < c->nfail; i++) {
		const struct cmp_failure *f = &c->fail[i];
		sb_adds(sb, "<div class=\"card\"><b>");
		esc(sb, c->g[f->group].name);
		sb_adds(sb, "</b> run <code>");
		esc(sb, f->run_id);
		sb_addf(sb, "</code> iteration %d, ", f->iteration);
		esc(sb, f->what);
		sb_adds(sb, ": ");
		esc(sb, f->error);
		if (f->console_tail) {
			sb_adds(sb, "<details open><summary>console (last lines)</summary><pre>");
			esc(sb, f->console_tail);
			sb_adds(sb, "</pre></details>");
		}
		sb_adds(sb, "</div>");
	}
}

static void kv(struct strbuf *sb, const char *k, const char *v)
{
	sb_adds(sb, "<dt>");
	esc(sb, k);
	sb_adds(sb, "</dt><dd>");
	esc(sb, v && *v ? v : "-");
	sb_adds(sb, "</dd>");
}

static json_object *jobj(json_object *o, const char *k)
{
	json_object *v;
	return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

static const char *jtext(json_object *o, const char *k, char *buf, size_t len)
{
	json_object *v = jobj(o, k);
	if (!v)
		return NULL;
	if (json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	snprintf(buf, len, "%s", json_object_to_json_string_ext(v, JSON_C_TO_STRING_NOSLASHESCAPE));
	return buf;
}

/* Rows for the speed-relevant kernel options (variant.config_speed)
 * whose values differ between the variants. */
static void config_diff(struct strbuf *sb, const struct comparison *c)
{
	json_object *first = NULL;
	for (size_t g = 0; g < c->ng && !first; g++)
		first = jobj(jobj(c->in->v[c->g[g].inputs[0]].doc, "variant"), "config_speed");
	if (!first || !json_object_is_type(first, json_type_object))
		return;
	json_object_object_foreach(first, opt, v0) {
		int differ = 0;
		(void)v0;
		for (size_t g = 0; g < c->ng; g++) {
			json_object *cs = jobj(jobj(c->in->v[c->g[g].inputs[0]].doc, "variant"), "config_speed");
			json_object *v = cs ? jobj(cs, opt) : NULL;
			const char *a = v0 && json_object_is_type(v0, json_type_string) ? json_object_get_string(v0) : "?";
			const char *b = v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "?";
			differ |= strcmp(a, b) != 0;
		}
		if (!differ)
			continue;
		sb_adds(sb, "<tr><td class=\"l\">config <code>");
		esc(sb, opt);
		sb_adds(sb, "</code></td>");
		for (size_t g = 0; g < c->ng; g++) {
			json_object *cs = jobj(jobj(c->in->v[c->g[g].inputs[0]].doc, "variant"), "config_speed");
			json_object *v = cs ? jobj(cs, opt) : NULL;
			sb_adds(sb, "<td class=\"l\"><code>");
			esc(sb, v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "?");
			sb_adds(sb, "</code></td>");
		}
		sb_adds(sb, "</tr>");
	}
}

/* ---- the test subject (variant.subject of source-built variants) ---- */

static json_object *group_subject(const struct comparison *c, size_t g)
{
	json_object *s;
	if (!c->g[g].ninputs)
		return NULL;
	s = jobj(jobj(c->in->v[c->g[g].inputs[0]].doc, "variant"), "subject");
	return s && json_object_is_type(s, json_type_object) ? s : NULL;
}

static size_t jlen(json_object *a)
{
	return a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

/* "N files, +A -R" of a patch's diffstat */
static void diffstat_total(struct strbuf *sb, json_object *ds)
{
	long add = 0, del = 0;
	for (size_t i = 0; i < jlen(ds); i++) {
		add += json_object_get_int(jobj(json_object_array_get_idx(ds, i), "added"));
		del += json_object_get_int(jobj(json_object_array_get_idx(ds, i), "removed"));
	}
	sb_addf(sb, "%zu file%s, +%ld &#8722;%ld", jlen(ds), jlen(ds) == 1 ? "" : "s", add, del);
}

/* one cell of the subject table: ROW 0 tree and base, 1 fragments,
 * 2 patches, 3 lock knobs */
static void subject_cell(struct strbuf *sb, json_object *s, int row)
{
	char buf[64];
	json_object *a;
	sb_adds(sb, "<td class=\"l small\">");
	if (!s) {
		sb_adds(sb, "&#8211;</td>");
		return;
	}
	if (row == 0) {
		esc(sb, jtext(s, "tree", buf, sizeof(buf)));
		sb_adds(sb, ", base <code>");
		esc(sb, jtext(s, "base", buf, sizeof(buf)));
		sb_adds(sb, "</code>");
	}
	for (size_t i = 0; row == 1 && i < jlen(a = jobj(s, "config_fragments")); i++) {
		json_object *f = json_object_array_get_idx(a, i), *o = jobj(f, "options");
		sb_adds(sb, "<b>");
		esc(sb, jtext(f, "name", buf, sizeof(buf)));
		sb_adds(sb, "</b>:");
		for (size_t k = 0; k < jlen(o); k++) {
			sb_adds(sb, " <code>");
			esc(sb, json_object_get_string(json_object_array_get_idx(o, k)));
			sb_adds(sb, "</code>");
		}
		sb_adds(sb, "<br>");
	}
	for (size_t i = 0; row == 2 && i < jlen(a = jobj(s, "patches")); i++) {
		json_object *p = json_object_array_get_idx(a, i);
		const char *h = jtext(p, "sha256", buf, sizeof(buf));
		sb_adds(sb, "<code>");
		esc(sb, jtext(p, "file", buf, sizeof(buf)));
		sb_adds(sb, "</code><br><b>");
		esc(sb, jtext(p, "subject", buf, sizeof(buf)));
		sb_addf(sb, "</b><br>sha256 <code>%.16s&#8230;</code>, ", h && strlen(h) >= 16 ? h : "?");
		diffstat_total(sb, jobj(p, "diffstat"));
		sb_adds(sb, "<br>");
	}
	a = jobj(s, "lock_knobs");
	if (row == 3 && a && json_object_is_type(a, json_type_object)) {
		json_object_object_foreach(a, k, v) {
			sb_adds(sb, "<code>");
			esc(sb, k);
			sb_adds(sb, "=");
			esc(sb, json_object_get_string(v));
			sb_adds(sb, "</code> ");
		}
		if (!json_object_object_length(a))
			sb_adds(sb, "none (the kernel's defaults)");
	}
	sb_adds(sb, "</td>");
}

/* a patch's text once, collapsed, with its diffstat */
static void patch_details(struct strbuf *sb, json_object *p)
{
	char buf[64];
	json_object *ds = jobj(p, "diffstat");
	sb_adds(sb, "<details class=\"card\"><summary><code>");
	esc(sb, jtext(p, "file", buf, sizeof(buf)));
	sb_adds(sb, "</code>: ");
	esc(sb, jtext(p, "subject", buf, sizeof(buf)));
	sb_adds(sb, " <span class=\"small\">(");
	diffstat_total(sb, ds);
	sb_adds(sb, "; sha256 <code>");
	esc(sb, jtext(p, "sha256", buf, sizeof(buf)));
	sb_adds(sb, "</code>)</span></summary><pre>");
	for (size_t i = 0; i < jlen(ds); i++) {
		json_object *f = json_object_array_get_idx(ds, i);
		sb_adds(sb, " ");
		esc(sb, jtext(f, "path", buf, sizeof(buf)));
		sb_addf(sb, " | +%d &#8722;%d\n", json_object_get_int(jobj(f, "added")),
			json_object_get_int(jobj(f, "removed")));
	}
	sb_adds(sb, "\n");
	esc(sb, jtext(p, "text", buf, sizeof(buf)));
	sb_adds(sb, "</pre></details>");
}

/* Has an earlier group (or patch of G) the patch with P's sha256? */
static int patch_seen(const struct comparison *c, size_t g, size_t i, json_object *p)
{
	const char *h = jstr(p, "sha256");
	for (size_t e = 0; e <= g; e++) {
		json_object *a = jobj(group_subject(c, e), "patches");
		for (size_t k = 0; k < jlen(a) && (e < g || k < i); k++)
			if (h && jstr(json_object_array_get_idx(a, k), "sha256") &&
			    !strcmp(h, jstr(json_object_array_get_idx(a, k), "sha256")))
				return 1;
	}
	return 0;
}

static int has_subject(const struct comparison *c)
{
	int any = 0;
	for (size_t g = 0; g < c->ng; g++)
		any |= group_subject(c, g) != NULL;
	return any;
}

void report_subject(struct strbuf *sb, const struct comparison *c)
{
	static const char *const rows[] = { "source", "config fragments over the base",
					    "patches", "lock knobs (command line)" };
	if (!has_subject(c))
		return;
	sb_adds(sb, "<h2 id=\"subject\">Test subject</h2><p class=\"sub\">What each variant "
		"built from source is: its tree and base config, the config fragments applied over "
		"the base (the options that differ from it), the patches applied (the full text of "
		"each below) and the lock knobs its command line sets, as recorded at run time. "
		"&#8211;: not built from source.</p><table><tr><th class=\"l\">kernel</th>");
	for (size_t g = 0; g < c->ng; g++) {
		sb_addf(sb, "<th class=\"l\" style=\"color:%s\">", color(g));
		esc(sb, c->g[g].name);
		sb_adds(sb, "</th>");
	}
	sb_adds(sb, "</tr>");
	for (int r = 0; r < 4; r++) {
		sb_adds(sb, "<tr><td class=\"l\">");
		esc(sb, rows[r]);
		sb_adds(sb, "</td>");
		for (size_t g = 0; g < c->ng; g++)
			subject_cell(sb, group_subject(c, g), r);
		sb_adds(sb, "</tr>");
	}
	sb_adds(sb, "</table>");
	for (size_t g = 0; g < c->ng; g++) {
		json_object *a = jobj(group_subject(c, g), "patches");
		for (size_t i = 0; i < jlen(a); i++)
			if (!patch_seen(c, g, i, json_object_array_get_idx(a, i)))
				patch_details(sb, json_object_array_get_idx(a, i));
	}
}

static void environment(struct strbuf *sb, const struct comparison *c)
{
	static const char *const hkeys[][2] = {
		{ "hostname", "host" }, { "cpu_model", "CPU" }, { "cores", "cores" },
		{ "mem_mb", "memory (MiB)" }, { "kernel", "host kernel" }, { "qemu", "QEMU" },
		{ "accel", "accelerator" }, { "backend", "backend" },
	};
	static const char *const vkeys[][2] = {
		{ "description", "description" }, { "source", "source" }, { "package", "package" },
		{ "package_version", "version" }, { "kernel_release", "kernel (guest uname -r)" },
		{ "realtime", "/sys/kernel/realtime" }, { "config_hash", "config sha256" },
		{ "extra_cmdline", "extra command line" }, { "rtmutex_params", "rtmutex parameters" },
	};
	static const char *const mkeys[][2] = {
		{ "sockets", "sockets" }, { "threads", "threads" }, { "smt", "SMT" },
		{ "numa_nodes", "NUMA nodes" }, { "governor", "CPU frequency governor" },
		{ "boost", "boost" }, { "isolated", "isolated CPUs" }, { "nohz_full", "nohz_full CPUs" },
		{ "cmdline", "kernel command line" }, { "dmi_vendor", "vendor" },
		{ "dmi_product", "product" },
	};
	json_object *first = c->in->v[0].doc, *m = cmp_inputs_machine(c->in);
	char buf[1024];
	sb_adds(sb, "<h2 id=\"env\">Environment</h2><div class=\"grid env\"><div class=\"card\">"
		"<h3 style=\"margin-top:0\">Host</h3><dl class=\"kv wide\">");
	for (size_t i = 0; i < sizeof(hkeys) / sizeof(hkeys[0]); i++)
		kv(sb, hkeys[i][1], jtext(jobj(first, "host"), hkeys[i][0], buf, sizeof(buf)));
	/* the machine's facts, when the runs recorded them */
	for (size_t i = 0; m && i < sizeof(mkeys) / sizeof(mkeys[0]); i++)
		kv(sb, mkeys[i][1], jtext(m, mkeys[i][0], buf, sizeof(buf)));
	kv(sb, "guest vCPUs", jtext(jobj(first, "guest"), "vcpus", buf, sizeof(buf)));
	kv(sb, "guest memory (MiB)", jtext(jobj(first, "guest"), "mem_mb", buf, sizeof(buf)));
	kv(sb, "kbench", jtext(jobj(first, "kbench"), "version", buf, sizeof(buf)));
	kv(sb, "kbench commit", jtext(jobj(first, "kbench"), "commit", buf, sizeof(buf)));
	sb_adds(sb, "</dl></div></div><table><tr><th class=\"l\">kernel</th>");
	for (size_t g = 0; g < c->ng; g++) {
		sb_addf(sb, "<th class=\"l\" style=\"color:%s\">", color(g));
		esc(sb, c->g[g].name);
		sb_adds(sb, "</th>");
	}
	sb_adds(sb, "</tr>");
	for (size_t i = 0; i < sizeof(vkeys) / sizeof(vkeys[0]); i++) {
		int any = 0;
		for (size_t g = 0; g < c->ng; g++)
			any |= jobj(jobj(c->in->v[c->g[g].inputs[0]].doc, "variant"), vkeys[i][0]) != NULL;
		if (!any)
			continue;
		sb_adds(sb, "<tr><td class=\"l\">");
		esc(sb, vkeys[i][1]);
		sb_adds(sb, "</td>");
		for (size_t g = 0; g < c->ng; g++) {
			json_object *v = jobj(c->in->v[c->g[g].inputs[0]].doc, "variant");
			const char *t = jtext(v, vkeys[i][0], buf, sizeof(buf));
			sb_adds(sb, "<td class=\"l\"><code>");
			if (t && !strcmp(vkeys[i][0], "config_hash") && strlen(t) > 16) {
				char h[20];
				snprintf(h, sizeof(h), "%.16s", t);
				sb_adds(sb, "<span title=\"");
				esc(sb, t);
				sb_adds(sb, "\">");
				esc(sb, h);
				sb_adds(sb, "&#8230;</span>");
			} else {
				esc(sb, t && *t ? t : "-");
			}
			sb_adds(sb, "</code></td>");
		}
		sb_adds(sb, "</tr>");
	}
	config_diff(sb, c);
	sb_adds(sb, "<tr><td class=\"l\">iterations</td>");
	for (size_t g = 0; g < c->ng; g++)
		sb_addf(sb, "<td class=\"l\">%d ok, %d failed, %d warm-up</td>", c->g[g].ok,
			c->g[g].failed, c->g[g].warmup);
	sb_adds(sb, "</tr><tr><td class=\"l\">runs</td>");
	for (size_t g = 0; g < c->ng; g++) {
		sb_adds(sb, "<td class=\"l small\">");
		for (size_t k = 0; k < c->g[g].ninputs; k++) {
			const struct cmp_input *x = &c->in->v[c->g[g].inputs[k]];
			json_object *rid = jobj(x->doc, "run_id");
			if (k)
				sb_adds(sb, ", ");
			esc(sb, rid ? json_object_get_string(rid) : x->path);
		}
		sb_adds(sb, "</td>");
	}
	sb_adds(sb, "</tr></table>");
	sb_adds(sb, "<details class=\"card\"><summary>Suite: ");
	esc(sb, c->suite);
	sb_adds(sb, " (every parameter)</summary><pre>");
	esc(sb, json_object_to_json_string_ext(jobj(first, "suite"), JSON_C_TO_STRING_PRETTY |
					       JSON_C_TO_STRING_NOSLASHESCAPE));
	sb_adds(sb, "</pre></details>");
	if (c->campaign) {
		json_object *order = jobj(c->campaign, "order");
		sb_adds(sb, "<details class=\"card\"><summary>Campaign: interleaved order (seed ");
		esc(sb, jtext(c->campaign, "seed", buf, sizeof(buf)));
		sb_adds(sb, ")</summary><p class=\"small\">Iteration i of every variant ran before "
			"iteration i+1 of any, in an order shuffled per round; warm-up rounds first "
			"and discarded.</p><table><tr><th class=\"l\">round</th><th class=\"l\">order</th></tr>");
		for (size_t r = 0; order && json_object_is_type(order, json_type_array) &&
				   r < json_object_array_length(order); r++) {
			json_object *ro = json_object_array_get_idx(order, r);
			int wr = json_object_get_int(jobj(c->campaign, "warmup_rounds"));
			if ((int)r < wr)
				sb_addf(sb, "<tr><td class=\"l\">warm-up %zu</td><td class=\"l\">", r + 1);
			else
				sb_addf(sb, "<tr><td class=\"l\">%zu</td><td class=\"l\">", r + 1 - (size_t)wr);
			for (size_t k = 0; json_object_is_type(ro, json_type_array) &&
					   k < json_object_array_length(ro); k++) {
				if (k)
					sb_adds(sb, " &#8594; ");
				esc(sb, json_object_get_string(json_object_array_get_idx(ro, k)));
			}
			sb_adds(sb, "</td></tr>");
		}
		sb_adds(sb, "</table></details>");
	}
}

static void method(struct strbuf *sb, const struct comparison *c)
{
	sb_addf(sb, "<h2 id=\"method\">How to read this</h2><div class=\"card small\" "
		"style=\"font-size:13.5px;color:#1f2328\"><p>Every iteration boots a fresh guest, so "
		"iterations are independent samples. For each metric and variant: n, mean, median, "
		"standard deviation, coefficient of variation (CV), min, max and the 95%% Student t "
		"interval of the mean. Rates (MB/s) are summarised by the harmonic mean (the rate "
		"over equal amounts of work) and tested on 1/x.</p><p><b>Verdict.</b> Welch's t-test "
		"(unequal variances) gives the p-value; a variant is <span class=\"v better\">better"
		"</span> or <span class=\"v worse\">worse</span> only when q &lt; 0.05 <i>and</i> the "
		"change is at least the metric's minimum effect (2%% throughput and time, 5%% central "
		"latencies, 10%% tails); q is the p-value adjusted for the number of metrics of the "
		"workload (Benjamini-Hochberg false discovery rate), so that a dozen cyclictest "
		"percentiles do not call a change by chance. Mann-Whitney U is reported beside it, not used: with 3 "
		"iterations a side its smallest possible p is 0.1. The change's interval is "
		"Fieller's interval for the ratio of means with Welch's degrees of freedom (it "
		"excludes 0 exactly when Welch's p &lt; 0.05) until both sides have %d iterations, "
		"and from then on a seeded bootstrap of the ratio of means (expanded percentile, "
		"%d resamples, seed %u); comparison.json records both. \"mde\" is the "
		"smallest change the run could detect at alpha 0.05 and power 0.8; more iterations "
		"shrink it. The overall score is the geometric mean of the headline metrics' ratios "
		"to the baseline.</p><p>comparison.json beside this page holds every number shown "
		"here (docs/comparison.md).</p></div>", CMP_BOOT_MIN_N, c->reps, (unsigned)c->seed);
}

void report_html(const struct comparison *c, struct strbuf *sb)
{
	char created[32];
	struct strvec ml = STRVEC_INIT;
	snprintf(created, sizeof(created), "%.16s UTC", c->created);
	if (created[10] == 'T')
		created[10] = ' ';
	sb_adds(sb, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
		"<meta name=\"generator\" content=\"kbench\"><title>kbench: ");
	for (size_t g = 0; g < c->ng; g++) {
		if (g)
			sb_adds(sb, " vs ");
		esc(sb, c->g[g].name);
	}
	sb_adds(sb, " (");
	esc(sb, c->suite);
	sb_addf(sb, ")</title><style>%s</style></head><body><main>", css);
	sb_adds(sb, "<h1>kbench: ");
	for (size_t g = 0; g < c->ng; g++) {
		if (g)
			sb_adds(sb, " <span style=\"color:#8c959f\">vs</span> ");
		sb_addf(sb, "<span style=\"color:%s\">", color(g));
		esc(sb, c->g[g].name);
		sb_adds(sb, "</span>");
	}
	sb_adds(sb, "</h1><p class=\"sub\">suite <b>");
	esc(sb, c->suite);
	sb_adds(sb, "</b> &#183; baseline <b>");
	esc(sb, c->g[c->base].name);
	sb_adds(sb, "</b> &#183; accelerator <b>");
	esc(sb, c->accel);
	if (c->timing && !strcmp(c->timing, "instructions"))
		sb_addf(sb, "</b> &#183; timing <b>instructions (icount shift=%d)", c->icount_shift);
	sb_addf(sb, "</b> &#183; %s</p>", created);
	machine_lines(c->in, &ml);
	for (size_t i = 0; i < ml.n; i++) {
		if (!i)
			sb_addf(sb, "<p class=\"sub\">machine%s <b>", ml.n > 1 ? "s" : "");
		else
			sb_adds(sb, "</b> &#183; <b>");
		esc(sb, ml.v[i]);
	}
	if (ml.n)
		sb_adds(sb, "</b></p>");
	strvec_clear(&ml);
	chips(sb, c);
	sb_adds(sb, "<nav class=\"small\">");
	if (!seed_roles(c, c->seed_roles, (size_t[3]){ 0 }))
		sb_adds(sb, "<a href=\"#seed2008\">2008 table</a>");
	sb_adds(sb, "<a href=\"#seed\">seed table</a><a href=\"#metrics\">every "
		"metric</a><a href=\"#charts\">charts</a>");
	if (c->nlat)
		sb_adds(sb, "<a href=\"#latency\">latency</a>");
	if (cmp_has_within(c))
		sb_adds(sb, "<a href=\"#spread\">spread</a>");
	if (c->nlocks)
		sb_adds(sb, "<a href=\"#locks\">lock counters</a>");
	if (c->nfail)
		sb_adds(sb, "<a href=\"#failures\">failures</a>");
	if (c->trends_html)
		sb_adds(sb, "<a href=\"#trends\">trends</a>");
	if (has_subject(c))
		sb_adds(sb, "<a href=\"#subject\">test subject</a>");
	sb_adds(sb, "<a href=\"#env\">environment</a><a href=\"#method\">method</a></nav>");
	warnings(sb, c);
	seed_2008(sb, c);
	seed_table(sb, c);
	if (c->ng > 1)
		score_line(sb, c);
	metrics_table(sb, c);
	spread(sb, c);
	charts(sb, c);
	latency(sb, c);
	locks(sb, c);
	failures(sb, c);
	if (c->trends_html)
		sb_adds(sb, c->trends_html);
	report_subject(sb, c);
	environment(sb, c);
	method(sb, c);
	sb_adds(sb, "</main></body></html>\n");
}

int report_write(const struct comparison *c, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	report_html(c, &sb);
	return sb_write_atomic(path, &sb);
}

int report_write_dir(const struct comparison *c, const char *dir)
{
	char path[KB_PATH_MAX];
	json_object *doc = comparison_to_json(c);
	int ret;
	snprintf(path, sizeof(path), "%s/comparison.json", dir);
	ret = json_save(path, doc);
	json_object_put(doc);
	snprintf(path, sizeof(path), "%s/report.html", dir);
	if (!ret)
		ret = report_write(c, path);
	return ret;
}
