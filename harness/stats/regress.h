/* regress.h - `kbench regress`: one baseline against one current run,
 * turned into an exit code, JUnit XML and a Markdown summary for CI. */
#ifndef KBENCH_REGRESS_H
#define KBENCH_REGRESS_H

#include "stats/compare.h"

enum regress_status {
	REG_PASS,        /* no significant change beyond the threshold, or better */
	REG_IMPROVED,    /* significantly better beyond the threshold */
	REG_REGRESSED,   /* significantly worse beyond the threshold: a <failure> */
	REG_NOISY,       /* too noisy to decide: a <skipped> */
	REG_NEW,         /* only in the current run: a <skipped> */
	REG_ERROR,       /* missing metric, failed iteration: an <error> */
};

struct regress_case {
	char *classname;  /* the workload label */
	char *name;       /* the metric ("iterations" for failed iterations) */
	enum regress_status status;
	char *message;    /* one line: metric, values, change, interval */
	char *detail;     /* more lines (console excerpt), may be NULL */
	long metric;      /* index into the comparison's metrics, -1 for failures */
};

struct regress {
	struct regress_case *v;
	size_t n;
	int regressed, improved, noisy, errors, passed, skipped;
	int exit_code;    /* KB_EXIT_OK, _FAILED, _USAGE or _NOISY */
};

/* Judge current (group 1) against baseline (group 0) of C. Metrics whose
 * "label.metric", "workload.metric" or "metric" is not in ONLY (when
 * NONLY > 0) are left out. */
/* M is among ONLY (metric, label, label.metric or workload.metric; all
 * when NONLY is 0). */
int regress_wanted(const struct cmp_metric *m, const char *const *only, size_t nonly);
void regress_judge(const struct comparison *c, const char *const *only, size_t nonly,
		   struct regress *r);
void regress_release(struct regress *r);
/* 1 when the 95% interval of X's change against the baseline lies wholly
 * on the good side of a worsening by M's minimum effect (time: below
 * +threshold; throughput: above -threshold): whatever the noise, X is
 * not as bad as the threshold. kbench bisect calls such a step good. */
int regress_rules_out(const struct cmp_metric *m, const struct cmp_cell *x);

/* "pass", "improved", "regressed", "noisy", "new" or "error". */
const char *regress_status_name(enum regress_status s);
/* V with its unit ("1.23 s") into BUF, as the messages print values. */
void regress_value_unit(char *buf, size_t len, double v, const char *unit);

#endif
