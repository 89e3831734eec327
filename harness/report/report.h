/* report.h - the comparison as one self-contained HTML page. */
#ifndef KBENCH_REPORT_H
#define KBENCH_REPORT_H

#include "stats/compare.h"

/* Append S to OUT escaped for HTML and XML text and attributes: & < > " '
 * become entities, control bytes and invalid UTF-8 become '?'. */
void report_escape(struct strbuf *out, const char *s);

/* The "Test subject" section: per variant built from source, its tree and
 * base, config fragments, patches (each patch's text once, collapsed) and
 * lock knobs, from variant.subject; nothing when no variant has one. */
void report_subject(struct strbuf *out, const struct comparison *c);
/* Render C as HTML into OUT (appended). */
void report_html(const struct comparison *c, struct strbuf *out);
/* Render and write PATH atomically; 0 or -1 (error printed). */
int report_write(const struct comparison *c, const char *path);
/* Write DIR/comparison.json and DIR/report.html; 0 or -1. */
int report_write_dir(const struct comparison *c, const char *dir);

#endif
