/* seed.c - the 2008 table side by side (seed.h). */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/jsonutil.h"
#include "stats/seed.h"

int seed_roles(const struct comparison *c, const char *roles, size_t g[3])
{
	char buf[256], *save = NULL, *t;
	int k = 0;
	snprintf(buf, sizeof(buf), "%s", roles ? roles : SEED_ROLES_DEFAULT);
	for (t = strtok_r(buf, ",", &save); t && k < 3; t = strtok_r(NULL, ",", &save), k++) {
		size_t i;
		for (i = 0; i < c->ng && strcmp(c->g[i].name, t); i++)
			;
		if (i == c->ng)
			return -1;
		g[k] = i;
	}
	return k == 3 && !t ? 0 : -1;
}

/* throughput of X relative to M: X/M for a rate, M/X for a time */
static double thr(const struct cmp_metric *m, double main, double x)
{
	return m->better > 0 ? x / main : main / x;
}

static void fill(struct seed_ratio *r, const struct cmp_metric *m, const double ctr[3])
{
	for (int k = 0; k < 2; k++)
		r->rel[k] = thr(m, ctr[0], ctr[k + 1]);
	r->gap = r->rel[0] < 1 ? (r->rel[1] - r->rel[0]) / (1 - r->rel[0]) : NAN;
}

/* the 2.5% and 97.5% points of X[0..n) (sorted here); NAN when more than
 * 2.5% of the REPS resamples had no value (X holds only those that had) */
static void pct95(double *x, size_t n, int reps, double *lo, double *hi)
{
	if (!n || (double)(reps - (int)n) > 0.025 * reps) {
		*lo = *hi = NAN;
		return;
	}
	gsl_sort(x, 1, n);
	*lo = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.025);
	*hi = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.975);
}

int seed_compute(const struct cmp_metric *m, const size_t g[3], int reps, uint32_t seed,
	     struct seed_ratio *out)
{
	enum stats_center how = m->cls == CMP_CLASS_RATE ? STATS_CENTER_HMEAN : STATS_CENTER_MEAN;
	double ctr[3], *bs[3], *draw = NULL;
	size_t nb[3] = { 0, 0, 0 }, nmax = 0;
	gsl_rng *rng;
	memset(out, 0, sizeof(*out));
	out->m = m;
	out->gap = out->gap_lo = out->gap_hi = NAN;
	for (int k = 0; k < 2; k++)
		out->rel[k] = out->rel_lo[k] = out->rel_hi[k] = NAN;
	for (int k = 0; k < 3; k++) {
		const struct cmp_cell *x = &m->cell[g[k]];
		out->n[k] = (int)x->n;
		ctr[k] = x->n ? stats_center(x->v, x->n, how) : NAN;
		if (x->n < 2 || !(ctr[k] > 0))
			return -1;
		nmax = x->n > nmax ? x->n : nmax;
	}
	fill(out, m, ctr);
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, seed);
	draw = xmalloc(nmax * sizeof(*draw));
	for (int k = 0; k < 3; k++)
		bs[k] = xmalloc((size_t)reps * sizeof(double));
	for (int r = 0; r < reps; r++) {
		double c[3];
		struct seed_ratio t;
		for (int k = 0; k < 3; k++) {
			const struct cmp_cell *x = &m->cell[g[k]];
			gsl_ran_sample(rng, draw, x->n, x->v, x->n, sizeof(double));
			c[k] = stats_center(draw, x->n, how);
		}
		fill(&t, m, c);
		for (int k = 0; k < 2; k++)
			if (isfinite(t.rel[k]))
				bs[k][nb[k]++] = t.rel[k];
		if (isfinite(t.gap))
			bs[2][nb[2]++] = t.gap;
	}
	for (int k = 0; k < 2; k++)
		pct95(bs[k], nb[k], reps, &out->rel_lo[k], &out->rel_hi[k]);
	if (isfinite(out->gap))
		pct95(bs[2], nb[2], reps, &out->gap_lo, &out->gap_hi);
	for (int k = 0; k < 3; k++)
		free(bs[k]);
	free(draw);
	gsl_rng_free(rng);
	return 0;
}

static json_object *row_json(const struct seed_ratio *r, const char *a2008, const char *g2008)
{
	json_object *o = json_object_new_object();
	static const char *const who[] = { "rt", "adaptive" };
	jset_str(o, "label", r->m->label);
	jset_str(o, "metric", r->m->name);
	for (int k = 0; k < 2; k++) {
		json_object *x = json_object_new_object();
		jset_num10(x, "relative", r->rel[k]);
		jset_num10(x, "lo", r->rel_lo[k]);
		jset_num10(x, "hi", r->rel_hi[k]);
		jset(o, who[k], x);
	}
	jset_num10(o, "gap_recovered", r->gap);
	jset_num10(o, "gap_recovered_lo", r->gap_lo);
	jset_num10(o, "gap_recovered_hi", r->gap_hi);
	jset_str(o, "article_2008", a2008);
	jset_str(o, "article_2008_gap", g2008);
	return o;
}

json_object *seed_json(const struct comparison *c, const char *roles)
{
	static const char *const rows[][4] = {
		{ "dbench", "throughput", "RT 0.11, adaptive 0.47 of mainline", "0.40" },
		{ "hackbench", "time", "RT 0.21-0.24, adaptive 0.81 of mainline", "0.76" },
	};
	size_t g[3];
	json_object *o, *a, *locks;
	if (seed_roles(c, roles, g))
		return NULL;
	o = json_object_new_object();
	a = json_object_new_array();
	jset_str(o, "roles", roles ? roles : SEED_ROLES_DEFAULT);
	jset_str(o, "interval", "95% percentile bootstrap of the per-iteration samples, each "
		 "group resampled independently (settings.bootstrap_seed, resamples)");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct cmp_metric *m = cmp_find(c, rows[i][0], rows[i][1]);
		struct seed_ratio r;
		if (m && !seed_compute(m, g, c->reps, c->seed, &r))
			json_object_array_add(a, row_json(&r, rows[i][2], rows[i][3]));
	}
	jset(o, "rows", a);
	locks = json_object_new_object();
	for (size_t i = 0; i < c->nlocks; i++) {
		const struct cmp_lockstat *k = &c->locks[i];
		char key[256];
		json_object *x = json_object_new_array();
		snprintf(key, sizeof(key), "%s.%s", k->label, k->counter);
		for (int r = 0; r < 3; r++)
			json_object_array_add(x, k->n[g[r]] ? jnum10(k->sum[g[r]] / k->n[g[r]]) : NULL);
		jset(locks, key, x);
	}
	jset(o, "lock_stats", locks);
	return o;
}
