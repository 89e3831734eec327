/* sweep_report.h - a knob sweep's sweep.json and sweep.html: per metric
 * the value against the knob with its 95% interval, the lock counters per
 * point beside it, and throughput against latency. */
#ifndef KBENCH_SWEEP_REPORT_H
#define KBENCH_SWEEP_REPORT_H

#include <json-c/json.h>
#include "run/sweep.h"
#include "stats/compare.h"

/* sweep.json's document from a comparison whose groups are SW's point
 * labels (points without a finished run are left out). */
json_object *sweep_report_json(const struct comparison *c, const struct sweep *sw);
/* Compare IN (grouped by point label) with O, then DIR/sweep.json and
 * DIR/sweep.html. 0 or -1. */
int sweep_report_write(const struct cmp_inputs *in, const struct cmp_opts *o,
		       const struct sweep *sw, const char *dir);

#endif
