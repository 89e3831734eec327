/* svg.h - the frame every kbench chart shares: the <svg> element, the
 * heading with "higher/lower is better", a linear value axis with its
 * grid lines and tick labels. One writer, used by the comparison report
 * (report.c) and the trends over nights (history/trend.c). */
#ifndef KBENCH_SVG_H
#define KBENCH_SVG_H

#include "core/util.h"

/* A chart's box: W x H, plot area inset by L, R, T, B; the value axis
 * LO..HI with ticks every STEP (svg_scale). */
struct svg_frame {
	double W, H, L, R, T, B;
	double lo, hi, step;
};

/* Chart axes: a "nice" tick step (1, 2 or 5 times a power of ten) for
 * about N ticks over SPAN, and a tick label with the decimals STEP needs. */
double svg_nice_step(double span, int n);
void svg_tick_label(char *buf, size_t len, double v, double step);

static inline double svg_pw(const struct svg_frame *f) { return f->W - f->L - f->R; }
static inline double svg_ph(const struct svg_frame *f) { return f->H - f->T - f->B; }
/* The y coordinate of value V. */
static inline double svg_y(const struct svg_frame *f, double v)
{
	return f->T + svg_ph(f) - (v - f->lo) / (f->hi - f->lo) * svg_ph(f);
}
/* The value axis over LO..HI: widened to whole steps of about 4 ticks. */
void svg_scale(struct svg_frame *f, double lo, double hi);

/* "<svg ATTRS viewBox=... width=... height=... role="img" aria-label="":
 * the caller writes the (escaped) label and closes it with "\">". ATTRS
 * ("" or attributes each followed by a space) go first. */
void svg_open(struct strbuf *sb, const struct svg_frame *f, const char *attrs);
/* The heading: TITLE's N parts (NULL: empty) joined by spaces, then " (UNIT)", in
 * TITLE_SIZE, and "higher/lower is better" (BETTER > 0: higher) at the
 * right in HINT_SIZE. */
void svg_heading(struct strbuf *sb, const struct svg_frame *f, const char *const *title,
		 size_t n, const char *unit, int better, double title_size, double hint_size);
/* Grid lines across the plot and tick labels left of it, LO..HI. */
void svg_yticks(struct strbuf *sb, const struct svg_frame *f, double font_size);

#endif
