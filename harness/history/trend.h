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

struct trend {
	struct history_series s;
	struct cp_result cp;
};

struct trends {
	struct trend *v;
	size_t n;
	struct cp_opts opts;
	char *until;        /* the night the trends end at */
};

/* Every label.metric the VARIANTS recorded in nights on HOST_ID with SUITE
 * and ACCEL, up to night UNTIL (NULL: all), the LAST latest nights of each
 * (0: all). 0 or -1. */
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
