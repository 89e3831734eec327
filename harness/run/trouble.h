/* trouble.h - kernel trouble in a guest's console log: panics, oopses,
 * BUGs, WARNINGs, lockdep reports, scheduling while atomic, hung tasks,
 * RCU stalls and lockups. */
#ifndef KBENCH_TROUBLE_H
#define KBENCH_TROUBLE_H

#include <stddef.h>
#include <json-c/json.h>

/* Findings kept per log, and lines of excerpt per finding. */
#define TROUBLE_MAX 16
#define TROUBLE_EXCERPT_LINES 12

/*
 * Scan a console log (untrusted guest bytes: any content, any length) for
 * kernel trouble. Returns a JSON array of {"kind","line","excerpt"}
 * (first TROUBLE_MAX findings, in order), or NULL when there is none.
 */
json_object *trouble_scan(const char *buf, size_t len);
/* The same for a file; NULL when there is none or the file is unreadable. */
json_object *trouble_scan_file(const char *path);
/* A known cause outside the kernel: each finding of FINDINGS whose own
 * line (its excerpt's first) holds MATCH gains "cause": CAUSE. Returns how many did (0 when
 * MATCH is NULL or empty). */
int trouble_explain(json_object *findings, const char *match, const char *cause);
/* "lockdep, warning" for messages: the distinct kinds of FINDINGS. */
void trouble_kinds(json_object *findings, char *out, size_t outlen);

#endif
