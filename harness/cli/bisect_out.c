/* bisect_out.c - the report of a bisection: bisect.json for tools,
 * bisect.md (a table of the steps in the order they were measured, the
 * first bad commit with subject and diffstat) and bisect.svg (the metric
 * per tested commit, drawn with report/svg.c's frame). */
#include "cli/cmd_bisect.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/jsonutil.h"
#include "report/svg.h"

static double num_or_nan(json_object *o, const char *k)
{
	json_object *v = jget(o, k);
	return v ? json_object_get_double(v) : NAN;
}

/* One table row per step. */
static void md_steps(struct strbuf *md, json_object *steps)
{
	sb_adds(md, "| # | commit | role | verdict | value | change | 95% CI | p | runs | subject |\n"
		      "|---|---|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < json_object_array_length(steps); i++) {
		json_object *s = json_object_array_get_idx(steps, i);
		double c = num_or_nan(s, "center"), r = num_or_nan(s, "change"),
		       lo = num_or_nan(s, "ci_lo"), hi = num_or_nan(s, "ci_hi"), p = num_or_nan(s, "p");
		sb_addf(md, "| %zu | %.12s | %s | %s | ", i + 1, or_empty(jstr(s, "commit")),
			or_empty(jstr(s, "role")), jstr(s, "verdict") ? jstr(s, "verdict") : "unfinished");
		if (isfinite(c))
			sb_addf(md, "%.4g", c);
		sb_adds(md, " | ");
		if (isfinite(r))
			sb_addf(md, "%+.1f%%", r * 100);
		sb_adds(md, " | ");
		if (isfinite(lo) && isfinite(hi))
			sb_addf(md, "%+.1f%% .. %+.1f%%", lo * 100, hi * 100);
		sb_adds(md, " | ");
		if (isfinite(p))
			sb_addf(md, "%.3g", p);
		sb_addf(md, " | %zu | %s |\n", json_object_array_length(jget(s, "runs")),
			or_empty(jstr(s, "subject")));
	}
	for (size_t i = 0; i < json_object_array_length(steps); i++) {
		json_object *s = json_object_array_get_idx(steps, i);
		if (jstr(s, "reason"))
			sb_addf(md, "\n- %.12s %s: %s", or_empty(jstr(s, "commit")),
				or_empty(jstr(s, "verdict")), jstr(s, "reason"));
	}
	sb_adds(md, "\n");
}

static int write_md(const char *dir, json_object *st)
{
	struct strbuf md = STRBUF_INIT;
	json_object *fb = jget(st, "first_bad");
	char p[KB_PATH_MAX];
	sb_addf(&md, "# kbench bisect %s\n\n%s..%s in %s, variant %s, suite %s, metric %s, "
		"threshold %s\n\n", or_empty(jstr(st, "id")), or_empty(jstr(st, "good")),
		or_empty(jstr(st, "bad")), or_empty(jstr(st, "tree")), or_empty(jstr(st, "variant")),
		or_empty(jstr(st, "suite")), or_empty(jstr(st, "metric")),
		or_empty(jstr(st, "threshold")));
	if (fb)
		sb_addf(&md, "## First bad commit\n\n%s %s\n\n```\n%s\n```\n\n",
			or_empty(jstr(fb, "commit")), or_empty(jstr(fb, "subject")),
			or_empty(jstr(fb, "diffstat")));
	else
		sb_addf(&md, "## No single commit named\n\n%s\n%s%s%s\n", or_empty(jstr(st, "why_none")),
			jstr(st, "remaining") ? "\nThe range left:\n```\n" : "",
			or_empty(jstr(st, "remaining")), jstr(st, "remaining") ? "```\n" : "");
	sb_addf(&md, "## Steps (in the order measured)\n\n");
	md_steps(&md, jget(st, "steps"));
	sb_addf(&md, "\n%d kbench runs (each a build, a content-cache hit when the commit was built "
		"before, and a boot), %.1f minutes; chart: bisect.svg; git bisect log: bisect.log\n",
		json_object_get_int(jget(st, "runs_started")), num_or_nan(st, "minutes"));
	snprintf(p, sizeof(p), "%s/bisect.md", dir);
	return sb_write_atomic(p, &md);
}

/* Points of the metric per tested commit, in step order: bad red, good
 * green, skipped grey on the axis. */
static int write_svg(const char *dir, json_object *st)
{
	json_object *steps = jget(st, "steps");
	size_t n = json_object_array_length(steps);
	struct svg_frame f = { .W = 640, .H = 300, .L = 60, .R = 20, .T = 40, .B = 40 };
	struct strbuf sb = STRBUF_INIT;
	double lo = INFINITY, hi = -INFINITY;
	const char *title[] = { jstr(st, "metric"), "per tested commit" };
	char p[KB_PATH_MAX];
	for (size_t i = 0; i < n; i++) {
		double c = num_or_nan(json_object_array_get_idx(steps, i), "center");
		if (isfinite(c))
			lo = fmin(lo, c), hi = fmax(hi, c);
	}
	if (!isfinite(lo))
		lo = 0, hi = 1;
	if (hi - lo < 1e-9 * fabs(hi) + 1e-12)
		lo -= 0.5 * fabs(lo) + 0.5, hi += 0.5 * fabs(hi) + 0.5;
	svg_scale(&f, lo, hi);
	svg_open(&sb, &f, "");
	sb_adds(&sb, "bisection chart\">\n");
	svg_heading(&sb, &f, title, 2, "", -1, 14, 11);
	svg_yticks(&sb, &f, 11);
	for (size_t i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(steps, i);
		double c = num_or_nan(s, "center"), x = f.L + svg_pw(&f) * (i + 0.5) / (n ? n : 1);
		const char *v = or_empty(jstr(s, "verdict"));
		const char *col = !strcmp(v, "bad") ? "#c0392b" : !strcmp(v, "good") ? "#27ae60" : "#888";
		sb_addf(&sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\"/>\n", x,
			isfinite(c) ? svg_y(&f, c) : f.T + svg_ph(&f), col);
		sb_addf(&sb, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\">"
			"%.7s</text>\n", x, f.H - f.B + 15, or_empty(jstr(s, "commit")));
	}
	sb_adds(&sb, "</svg>\n");
	snprintf(p, sizeof(p), "%s/bisect.svg", dir);
	return sb_write_atomic(p, &sb);
}

int bisect_write_report(const char *dir, json_object *state)
{
	char p[KB_PATH_MAX];
	snprintf(p, sizeof(p), "%s/bisect.json", dir);
	if (json_save(p, state) || write_md(dir, state) || write_svg(dir, state))
		return -1;
	return 0;
}
