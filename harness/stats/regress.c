/* regress.c - baseline against current for CI: per-metric test cases, an
 * exit code, JUnit XML and a Markdown summary.
 *
 * Exit codes, most serious first: 2 a harness error (an iteration failed,
 * a metric of the baseline is missing from the current run), 1 a metric
 * is significantly worse by more than its threshold, 3 no regression was
 * found but some metric was too noisy to decide (fewer than 2 values a
 * side, or its coefficient of variation above the metric's limit, so a
 * regression of the threshold's size could hide in it), 0 otherwise. A
 * significant regression wins over noise: it was detected despite it.
 * The JUnit and Markdown writers are in report/regress_out.c.
 */
#include "stats/regress.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *regress_status_name(enum regress_status s)
{
	static const char *const n[] = { "pass", "improved", "regressed", "noisy", "new", "error" };
	return n[s];
}

int regress_wanted(const struct cmp_metric *m, const char *const *only, size_t nonly)
{
	char full[512], wm[512];
	if (!nonly)
		return 1;
	snprintf(full, sizeof(full), "%s.%s", m->label, m->name);
	snprintf(wm, sizeof(wm), "%s.%s", m->workload, m->name);
	for (size_t i = 0; i < nonly; i++)
		if (!strcmp(only[i], full) || !strcmp(only[i], wm) || !strcmp(only[i], m->name) ||
		    !strcmp(only[i], m->label))
			return 1;
	return 0;
}

static void add_case(struct regress *r, long metric, const char *classname, const char *name,
		     enum regress_status st, char *message, const char *detail)
{
	struct regress_case *k;
	r->v = xrealloc(r->v, (r->n + 1) * sizeof(*r->v));
	k = &r->v[r->n++];
	k->classname = xstrdup(classname);
	k->name = xstrdup(name);
	k->status = st;
	k->message = message;
	k->detail = detail ? xstrdup(detail) : NULL;
	k->metric = metric;
}

/* "1.82 s" */
void regress_value_unit(char *buf, size_t len, double v, const char *unit)
{
	char n[32];
	cmp_fmt_num(n, sizeof(n), v);
	snprintf(buf, len, "%s %s", n, unit);
}

/* "95% CI -3.1% .. +8.0%", or unbounded */
static void interval(char *buf, size_t len, const struct cmp_cell *x)
{
	if (isfinite(x->rel_lo) && isfinite(x->rel_hi))
		snprintf(buf, len, "95%% CI %+.1f%% .. %+.1f%%", x->rel_lo * 100, x->rel_hi * 100);
	else
		snprintf(buf, len, "95%% CI unbounded");
}

/* The one-line message of a judged metric. */
static char *case_message(const struct cmp_metric *m, const struct cmp_cell *b,
			  const struct cmp_cell *x, const char *what)
{
	char vb[64], vx[64], ci[80], mde[16];
	regress_value_unit(vb, sizeof(vb), b->center, m->unit);
	regress_value_unit(vx, sizeof(vx), x->center, m->unit);
	if (!x->have_test)
		return xasprintf("%s %s %s: %s -> %s (%s)", m->label, m->name, what, vb, vx,
				 x->note[0] ? x->note : "no test");
	interval(ci, sizeof(ci), x);
	cmp_fmt_mde(mde, sizeof(mde), x->mde);
	return xasprintf("%s %s %s: %s -> %s (%+.1f%%, %s, Welch p=%.3g; threshold %.0f%%, "
			 "smallest detectable %s, CV %.0f%% -> %.0f%%, n %zu -> %zu)",
			 m->label, m->name, what, vb, vx, x->rel * 100, ci, x->welch.p,
			 m->min_effect * 100, mde, b->d.cv * 100, x->d.cv * 100, b->n, x->n);
}

void regress_judge(const struct comparison *c, const char *const *only, size_t nonly,
		   struct regress *r)
{
	size_t cur = c->base == 0 ? 1 : 0;
	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < c->nfail; i++) {
		const struct cmp_failure *f = &c->fail[i];
		char name[600];
		snprintf(name, sizeof(name), "%s %s#%d %s", c->g[f->group].name, f->run_id,
			 f->iteration, f->what);
		add_case(r, -1, "kbench.iterations", name, REG_ERROR,
			 xasprintf("%s run %s iteration %d: %s failed: %s", c->g[f->group].name,
				   f->run_id, f->iteration, f->what, f->error),
			 f->console_tail);
	}
	for (size_t i = 0; i < c->nm; i++) {
		const struct cmp_metric *m = &c->m[i];
		const struct cmp_cell *b = &m->cell[c->base], *x = &m->cell[cur];
		if (!regress_wanted(m, only, nonly))
			continue;
		if (!x->n) {
			add_case(r, (long)i, m->label, m->name, REG_ERROR,
				 xasprintf("%s %s: missing from the current run (%zu baseline values); "
					   "the workload failed or did not run", m->label, m->name, b->n),
				 NULL);
		} else if (!b->n) {
			add_case(r, (long)i, m->label, m->name, REG_NEW,
				 xasprintf("%s %s: only in the current run, nothing to compare with",
					   m->label, m->name), NULL);
		} else if (x->verdict == CMP_WORSE) {
			add_case(r, (long)i, m->label, m->name, REG_REGRESSED, case_message(m, b, x, "regressed"),
				 NULL);
		} else if (x->verdict == CMP_BETTER) {
			add_case(r, (long)i, m->label, m->name, REG_IMPROVED, case_message(m, b, x, "improved"),
				 NULL);
		} else if (x->verdict == CMP_UNDECIDED || b->noisy || x->noisy) {
			char *msg = case_message(m, b, x, "too noisy to decide");
			char *more = x->verdict == CMP_UNDECIDED ? xstrdup(msg) :
				xasprintf("%s; CV limit %.0f%%", msg, m->max_cv * 100);
			free(msg);
			add_case(r, (long)i, m->label, m->name, REG_NOISY, more, NULL);
		} else {
			add_case(r, (long)i, m->label, m->name, REG_PASS, case_message(m, b, x, "unchanged"),
				 NULL);
		}
	}
	for (size_t i = 0; i < r->n; i++) {
		switch (r->v[i].status) {
		case REG_PASS: r->passed++; break;
		case REG_IMPROVED: r->improved++; r->passed++; break;
		case REG_REGRESSED: r->regressed++; break;
		case REG_NOISY: r->noisy++; r->skipped++; break;
		case REG_NEW: r->skipped++; break;
		case REG_ERROR: r->errors++; break;
		}
	}
	r->exit_code = r->errors ? KB_EXIT_USAGE : r->regressed ? KB_EXIT_FAILED :
		       r->noisy ? KB_EXIT_NOISY : KB_EXIT_OK;
}

int regress_rules_out(const struct cmp_metric *m, const struct cmp_cell *x)
{
	if (!isfinite(x->rel_lo) || !isfinite(x->rel_hi))
		return 0;
	return (m->better < 0 ? x->rel_hi : -x->rel_lo) < m->min_effect;
}

void regress_release(struct regress *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].classname);
		free(r->v[i].name);
		free(r->v[i].message);
		free(r->v[i].detail);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}
