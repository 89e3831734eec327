/* svg.c - the chart frame shared by the report and the trends (svg.h). */
#include "report/svg.h"
#include "report/report.h"

#include <math.h>
#include <stdio.h>

double svg_nice_step(double span, int n)
{
	double raw = span / n, p = pow(10, floor(log10(raw))), f = raw / p;
	return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

void svg_tick_label(char *buf, size_t len, double v, double step)
{
	int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
	if (fabs(v) < step / 1e6)
		v = 0;
	if (fabs(v) >= 1e6)
		snprintf(buf, len, "%.3g", v);
	else
		snprintf(buf, len, "%.*f", dec > 6 ? 6 : dec, v);
}

void svg_scale(struct svg_frame *f, double lo, double hi)
{
	f->step = svg_nice_step(hi - lo, 4);
	f->lo = floor(lo / f->step) * f->step;
	f->hi = ceil(hi / f->step) * f->step;
}

void svg_open(struct strbuf *sb, const struct svg_frame *f, const char *attrs)
{
	sb_addf(sb, "<svg %sviewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\" "
		"aria-label=\"", attrs, f->W, f->H, f->W, f->H);
}

void svg_heading(struct strbuf *sb, const struct svg_frame *f, const char *const *title,
		 size_t n, const char *unit, int better, double title_size, double hint_size)
{
	sb_addf(sb, "<text x=\"2\" y=\"14\" font-size=\"%g\" font-weight=\"600\" fill=\"#1f2328\">",
		title_size);
	for (size_t i = 0; i < n; i++) {
		if (i)
			sb_adds(sb, " ");
		report_escape(sb, title[i] ? title[i] : "");
	}
	sb_adds(sb, " (");
	report_escape(sb, unit ? unit : "");
	sb_addf(sb, ")</text><text x=\"%.0f\" y=\"14\" font-size=\"%g\" fill=\"#57606a\" "
		"text-anchor=\"end\">%s is better</text>", f->W - 2, hint_size,
		better > 0 ? "higher" : "lower");
}

void svg_yticks(struct strbuf *sb, const struct svg_frame *f, double font_size)
{
	for (double v = f->lo; v <= f->hi + f->step / 2; v += f->step) {
		char b[32];
		double y = svg_y(f, v);
		svg_tick_label(b, sizeof(b), v, f->step);
		sb_addf(sb, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e8eb\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"%g\" fill=\"#57606a\" "
			"text-anchor=\"end\">%s</text>", f->L, f->L + svg_pw(f), y, y, f->L - 4, y + 3.5,
			font_size, b);
	}
}
