/* changepoint.c - E-divisive means with a permutation test (changepoint.h).
 *
 * For a segment Z of length L split before tau into X (m = tau values) and
 * Y (k = L - tau values), with alpha = 1 in Matteson and James' notation:
 *
 *   e(X, Y) = 2/(m k) sum |x - y| - 2/(m(m-1)) sum_{i<j} |x_i - x_j|
 *                                 - 2/(k(k-1)) sum_{i<j} |y_i - y_j|
 *   Q(tau)  = m k / L * e(X, Y)
 *
 * e is the energy distance of the two halves: zero when they come from one
 * distribution, positive otherwise, and sensitive to any change in
 * distribution, not only the mean. As in MongoDB's and Otava's
 * implementations the split's end (kappa) is the segment's end.
 *
 * Hierarchically: take the split with the largest Q over all current
 * segments; test it by permuting the values within each segment R times
 * and taking the largest Q over all segments each time; p = (1 + #{Q_perm
 * >= Q}) / (R + 1). If p <= alpha keep it and look again, else stop.
 *
 * The sums for every tau of a segment come from prefix sums in O(L^2).
 */
#include "history/changepoint.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"

void cp_opts_init(struct cp_opts *o)
{
	o->alpha = 0.01;
	o->permutations = 499;
	o->min_size = 3;
	o->max_points = 10;
	o->seed = 2014;
}

/*
 * The best split of X[0..n) with both sides at least MIN long: its tau
 * into *TAU, Q returned (-1 when none). W holds 2n doubles of scratch.
 */
static double best_split(const double *x, size_t n, size_t min, size_t *tau, double *w)
{
	double *pre = w, *suf = w + n, best = -1, total;
	if (min < 1)
		min = 1;
	if (n < 2 * min)
		return -1;
	/* pre[t] = sum_{i<j<t} |x_i - x_j|; suf[t] = sum_{t<=i<j<n} */
	pre[0] = 0;
	for (size_t t = 1; t < n; t++) {
		double r = 0;
		for (size_t i = 0; i + 1 < t; i++)
			r += fabs(x[i] - x[t - 1]);
		pre[t] = pre[t - 1] + r;
	}
	{
		double r = 0;
		for (size_t i = 0; i < n - 1; i++)
			r += fabs(x[i] - x[n - 1]);
		total = pre[n - 1] + r;
	}
	suf[n - 1] = 0;
	for (size_t t = n - 1; t-- > 0;) {
		double r = 0;
		for (size_t j = t + 1; j < n; j++)
			r += fabs(x[t] - x[j]);
		suf[t] = suf[t + 1] + r;
	}
	for (size_t t = min; t + min <= n; t++) {
		double m = (double)t, k = (double)(n - t);
		double between = total - pre[t] - suf[t];
		double e = 2 * between / (m * k) - (t > 1 ? 2 * pre[t] / (m * (m - 1)) : 0) -
			   (n - t > 1 ? 2 * suf[t] / (k * (k - 1)) : 0);
		double q = m * k / (double)n * e;
		if (q > best) {
			best = q;
			*tau = t;
		}
	}
	return best;
}

double changepoint_q(const double *x, size_t n, size_t tau)
{
	double between = 0, wx = 0, wy = 0, m = (double)tau, k = (double)(n - tau), e;
	if (tau == 0 || tau >= n)
		return 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			double d = fabs(x[i] - x[j]);
			if (j < tau)
				wx += d;
			else if (i >= tau)
				wy += d;
			else
				between += d;
		}
	e = 2 * between / (m * k) - (tau > 1 ? 2 * wx / (m * (m - 1)) : 0) -
	    (n - tau > 1 ? 2 * wy / (k * (k - 1)) : 0);
	return m * k / (double)n * e;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/* The largest Q over the segments cut at CUTS[0..nc) (0 and n included). */
static double best_over(const double *x, const size_t *cuts, size_t nc, size_t min, double *w,
			size_t *at_seg, size_t *at_tau)
{
	double best = -1;
	for (size_t s = 0; s + 1 < nc; s++) {
		size_t t = 0;
		double q = best_split(x + cuts[s], cuts[s + 1] - cuts[s], min, &t, w);
		if (q > best) {
			best = q;
			if (at_seg)
				*at_seg = s;
			if (at_tau)
				*at_tau = cuts[s] + t;
		}
	}
	return best;
}

static double mean(const double *x, size_t a, size_t b)
{
	double s = 0;
	for (size_t i = a; i < b; i++)
		s += x[i];
	return b > a ? s / (double)(b - a) : NAN;
}

void changepoint_edivisive(const double *x, size_t n, const struct cp_opts *o,
			   struct cp_result *r)
{
	size_t min = o->min_size > 0 ? (size_t)o->min_size : 1;
	size_t *cuts = xcalloc((size_t)o->max_points + 2, sizeof(size_t)), nc = 2;
	double *w = xcalloc(2 * (n ? n : 1), sizeof(double)), *perm = xcalloc(n ? n : 1, sizeof(double));
	double *qs = xcalloc((size_t)o->max_points + 1, sizeof(double));
	double *ps = xcalloc((size_t)o->max_points + 1, sizeof(double));
	size_t *found = xcalloc((size_t)o->max_points + 1, sizeof(size_t)), nfound = 0;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);

	memset(r, 0, sizeof(*r));
	gsl_rng_set(rng, o->seed);
	cuts[0] = 0;
	cuts[1] = n;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			goto out; /* a hole in the series: no answer rather than a wrong one */
	while ((int)nfound < o->max_points) {
		size_t seg = 0, tau = 0;
		double q = best_over(x, cuts, nc, min, w, &seg, &tau), p;
		int above = 0;
		if (q <= 0)
			break;
		for (int k = 0; k < o->permutations; k++) {
			memcpy(perm, x, n * sizeof(double));
			for (size_t s = 0; s + 1 < nc; s++)
				gsl_ran_shuffle(rng, perm + cuts[s], cuts[s + 1] - cuts[s], sizeof(double));
			if (best_over(perm, cuts, nc, min, w, NULL, NULL) >= q * (1 - 1e-12))
				above++;
		}
		p = (1.0 + above) / (o->permutations + 1.0);
		if (p > o->alpha)
			break;
		found[nfound] = tau;
		qs[nfound] = q;
		ps[nfound++] = p;
		cuts[nc++] = tau;
		qsort(cuts, nc, sizeof(size_t), cmp_size);
	}
	r->v = xcalloc(nfound ? nfound : 1, sizeof(*r->v));
	for (size_t i = 0; i < nfound; i++) {
		/* segments either side in the final segmentation */
		size_t k;
		for (k = 0; k < nc && cuts[k] != found[i]; k++)
			;
		r->v[r->n].index = found[i];
		r->v[r->n].q = qs[i];
		r->v[r->n].p = ps[i];
		r->v[r->n].before = mean(x, cuts[k - 1], cuts[k]);
		r->v[r->n].after = mean(x, cuts[k], cuts[k + 1]);
		r->n++;
	}
	/* by index */
	for (size_t i = 1; i < r->n; i++)
		for (size_t j = i; j > 0 && r->v[j - 1].index > r->v[j].index; j--) {
			struct cp_point t = r->v[j];
			r->v[j] = r->v[j - 1];
			r->v[j - 1] = t;
		}
out:
	gsl_rng_free(rng);
	free(cuts);
	free(w);
	free(perm);
	free(qs);
	free(ps);
	free(found);
}

void cp_result_release(struct cp_result *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}
