/* trend.h - nightly trends from the history: per variant and metric the
 * series of nights (each with its 95% interval), the change points that
 * E-divisive means finds in it, and what changed between the runs either
 * side of each (source, patches, config, kernel release). Rendered as a
 * section of report.html (inline SVG), as JSON and for a terminal. */
#ifndef KBENCH_TREND_H
#define KBENCH_TREND_H

#include <stdio.h>
#include <json-c/json.h>
#include "history/changepoint.h"
#include "history/history.h"

/* An accepted change on a trend: the first point it applies to, and who
 * accepted what, when and why (one line, for the chart's <title>). */
struct trend_mark {
	size_t index;
	char *text;
};

struct trend {
	struct history_series s;   /* every night of the history (the charts' overview) */
	size_t from;               /* change points over s.p[from..]: the LAST latest nights */
	struct cp_result cp;       /* indices into s.p */
	char *state;               /* per point: 'r' regressed, 'n' noisy (verdicts), 0 */
	struct trend_mark *acc;    /* accepted changes of this variant and metric */
	size_t nacc;
};

struct trends {
	struct trend *v;
	size_t n;
	struct cp_opts opts;
	char *until;        /* the night the trends end at */
	const char *host;   /* set by the caller when a page shows several hosts: the
			     * section is headed and identified by it */
	int detail;         /* the charts' detail: the latest DETAIL nights (default 90) */
};

/* Every label.metric the VARIANTS recorded in nights on HOST_ID with SUITE
 * and ACCEL, up to night UNTIL (NULL: all): each series over the whole
 * history, with change points over its LAST latest nights (0: all), its
 * nights' verdict states and the accepted changes. 0 or -1. */
int trends_build(struct history *h, const char *host_id, const char *suite, const char *accel,
		 const char *const *variants, size_t nv, const char *until, int last, struct trends *t);
void trends_release(struct trends *t);
/* Change points over all trends. */
size_t trends_changes(const struct trends *t);

/* The report section (<section id="trends">), appended to OUT. */
void trends_html(const struct trends *t, struct strbuf *out);
/* {method, series: [...]} for nightly.json. */
json_object *trends_json(const struct trends *t);
/* One line per change point, for the job log. */
void trends_print(const struct trends *t, FILE *f);

/* The method's name and settings in one sentence (report, docs, JSON). */
void trends_method(const struct trends *t, char *buf, size_t len);

#endif
