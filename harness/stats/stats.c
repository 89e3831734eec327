/* stats.c - sample statistics and two-sample tests for comparisons
 * (see stats.h; checked against scipy in tests/unit/test_stats.c). */
#include "stats/stats.h"
#include "core/util.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int all_finite(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return 0;
	return 1;
}

double stats_t_quantile(double p, double df)
{
	return gsl_cdf_tdist_Pinv(p, df);
}

/* The means of ratios are defined for finite positive values only. */
static int positive_finite(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(x[i] > 0) || !isfinite(x[i]))
			return 0;
	return n > 0;
}

double stats_hmean(const double *x, size_t n)
{
	double s = 0;
	if (!positive_finite(x, n))
		return NAN;
	for (size_t i = 0; i < n; i++)
		s += 1.0 / x[i];
	return (double)n / s;
}

double stats_gmean(const double *x, size_t n)
{
	double s = 0;
	if (!positive_finite(x, n))
		return NAN;
	for (size_t i = 0; i < n; i++)
		s += log(x[i]);
	return exp(s / (double)n);
}

double stats_center(const double *x, size_t n, enum stats_center c)
{
	if (!n)
		return NAN;
	return c == STATS_CENTER_HMEAN ? stats_hmean(x, n) : gsl_stats_mean(x, 1, n);
}

/* Student t interval of the mean of X at LEVEL. */
static void t_interval(const double *x, size_t n, double level, double *lo, double *hi)
{
	double m = gsl_stats_mean(x, 1, n), sd, h;
	if (n < 2) {
		*lo = *hi = NAN;
		return;
	}
	sd = gsl_stats_sd_m(x, 1, n, m);
	h = stats_t_quantile(0.5 + level / 2, (double)(n - 1)) * sd / sqrt((double)n);
	*lo = m - h;
	*hi = m + h;
}

int stats_describe_sample(const double *x, size_t n, double level, struct stats_desc *d)
{
	double *v;
	memset(d, 0, sizeof(*d));
	if (!n || !all_finite(x, n))
		return -1;
	v = xmalloc(n * sizeof(*v));
	memcpy(v, x, n * sizeof(*v));
	gsl_sort(v, 1, n);
	d->n = n;
	d->mean = gsl_stats_mean(v, 1, n);
	d->median = gsl_stats_median_from_sorted_data(v, 1, n);
	d->min = v[0];
	d->max = v[n - 1];
	d->sd = n > 1 ? gsl_stats_sd_m(v, 1, n, d->mean) : NAN;
	d->cv = n > 1 && d->mean != 0 ? d->sd / fabs(d->mean) : NAN;
	t_interval(x, n, level, &d->ci_lo, &d->ci_hi);
	d->hmean = stats_hmean(x, n);
	d->hm_lo = d->hm_hi = NAN;
	if (!isnan(d->hmean) && n > 1) {
		double lo, hi;
		for (size_t i = 0; i < n; i++)
			v[i] = 1.0 / x[i];
		t_interval(v, n, level, &lo, &hi);
		d->hm_lo = 1.0 / hi;
		d->hm_hi = lo > 0 ? 1.0 / lo : INFINITY;
	}
	free(v);
	return 0;
}

int stats_welch(const double *a, size_t na, const double *b, size_t nb, double level,
		struct stats_welch *w)
{
	double ma, mb, va, vb, qa, qb, h;
	memset(w, 0, sizeof(*w));
	if (na < 2 || nb < 2 || !all_finite(a, na) || !all_finite(b, nb))
		return -1;
	ma = gsl_stats_mean(a, 1, na);
	mb = gsl_stats_mean(b, 1, nb);
	va = gsl_stats_variance_m(a, 1, na, ma);
	vb = gsl_stats_variance_m(b, 1, nb, mb);
	qa = va / (double)na;
	qb = vb / (double)nb;
	w->diff = mb - ma;
	w->se = sqrt(qa + qb);
	if (w->se == 0) {
		/* no spread anywhere: equal means are the same, others differ surely */
		w->t = w->diff == 0 ? 0 : copysign(INFINITY, w->diff);
		w->df = (double)(na + nb - 2);
		w->p = w->diff == 0 ? 1 : 0;
		w->diff_lo = w->diff_hi = w->diff;
		return 0;
	}
	w->t = w->diff / w->se;
	w->df = (qa + qb) * (qa + qb) /
		(qa * qa / (double)(na - 1) + qb * qb / (double)(nb - 1));
	w->p = 2 * gsl_cdf_tdist_Q(fabs(w->t), w->df);
	if (w->p > 1)
		w->p = 1;
	h = stats_t_quantile(0.5 + level / 2, w->df) * w->se;
	w->diff_lo = w->diff - h;
	w->diff_hi = w->diff + h;
	return 0;
}

double stats_mde(double sd_a, size_t na, double sd_b, size_t nb, double alpha, double power)
{
	double qa, qb, se, df;
	if (na < 2 || nb < 2 || isnan(sd_a) || isnan(sd_b))
		return NAN;
	qa = sd_a * sd_a / (double)na;
	qb = sd_b * sd_b / (double)nb;
	se = sqrt(qa + qb);
	if (se == 0)
		return 0;
	df = (qa + qb) * (qa + qb) / (qa * qa / (double)(na - 1) + qb * qb / (double)(nb - 1));
	return (stats_t_quantile(1 - alpha / 2, df) + stats_t_quantile(power, df)) * se;
}

int stats_fieller(const double *a, size_t na, const double *b, size_t nb, double level,
		  double *lo, double *hi)
{
	struct stats_welch w;
	double ma, mb, qa, qb, t, A, B, C, disc;
	*lo = *hi = NAN;
	if (stats_welch(a, na, b, nb, level, &w))
		return -1;
	ma = gsl_stats_mean(a, 1, na);
	mb = gsl_stats_mean(b, 1, nb);
	qa = gsl_stats_variance_m(a, 1, na, ma) / (double)na;
	qb = gsl_stats_variance_m(b, 1, nb, mb) / (double)nb;
	t = w.se > 0 ? stats_t_quantile(0.5 + level / 2, w.df) : 0;
	/* A r^2 - 2 B r + C <= 0 */
	A = ma * ma - t * t * qa;
	B = ma * mb;
	C = mb * mb - t * t * qb;
	disc = B * B - A * C;
	if (!(A > 0) || disc < 0)
		return -1;
	*lo = (B - sqrt(disc)) / A - 1;
	*hi = (B + sqrt(disc)) / A - 1;
	return 0;
}

/* ---- Mann-Whitney U ---- */

struct ranked {
	double v;
	int from_a;
};

static int cmp_ranked(const void *x, const void *y)
{
	double a = ((const struct ranked *)x)->v, b = ((const struct ranked *)y)->v;
	return a < b ? -1 : a > b;
}

/*
 * Counts of arrangements of na a's and nb b's by U of a, for u in
 * 0..na*nb, by the recurrence on the largest element: an a there beats
 * every b (N(m-1, n, u-n)), a b there beats nothing (N(m, n-1, u)).
 * Doubles hold the counts exactly up to 2^53, far beyond C(40, 20).
 * Returns NULL when the table would be too large.
 */
static double *mwu_counts(size_t na, size_t nb)
{
	size_t w = na * nb + 1, cells = (nb + 1) * w;
	double *prev, *cur, *out;
	if (na > 1000 || nb > 1000 || cells > (size_t)4 << 20)
		return NULL;
	prev = xcalloc(cells, sizeof(double));
	cur = xcalloc(cells, sizeof(double));
	/* m = 0: one arrangement, u = 0, for every n */
	for (size_t n = 0; n <= nb; n++)
		prev[n * w] = 1;
	for (size_t m = 1; m <= na; m++) {
		memset(cur, 0, cells * sizeof(double));
		cur[0] = 1; /* n = 0 */
		for (size_t n = 1; n <= nb; n++)
			for (size_t u = 0; u <= m * n; u++)
				cur[n * w + u] = (u >= n ? prev[n * w + u - n] : 0) +
						 cur[(n - 1) * w + u];
		memcpy(prev, cur, cells * sizeof(double));
	}
	out = xmalloc(w * sizeof(double));
	memcpy(out, prev + nb * w, w * sizeof(double));
	free(prev);
	free(cur);
	return out;
}

double stats_mwu_min_p(size_t na, size_t nb)
{
	double c = 1;
	if (!na || !nb)
		return 1;
	for (size_t i = 1; i <= na; i++)
		c = c * (double)(nb + i) / (double)i;
	return 2 / c > 1 ? 1 : 2 / c;
}

int stats_mwu(const double *a, size_t na, const double *b, size_t nb,
	      enum stats_mwu_method method, struct stats_mwu *r)
{
	size_t n = na + nb;
	struct ranked *all;
	double ra = 0, tie_term = 0, u1, u2, umax;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	r->z = NAN;
	if (!na || !nb || !all_finite(a, na) || !all_finite(b, nb))
		return -1;
	all = xmalloc(n * sizeof(*all));
	for (size_t i = 0; i < na; i++)
		all[i] = (struct ranked){ a[i], 1 };
	for (size_t i = 0; i < nb; i++)
		all[na + i] = (struct ranked){ b[i], 0 };
	qsort(all, n, sizeof(*all), cmp_ranked);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		double rank, t;
		while (j + 1 < n && all[j + 1].v == all[i].v)
			j++;
		rank = (double)(i + j) / 2 + 1; /* midrank of positions i..j */
		t = (double)(j - i + 1);
		tie_term += t * t * t - t;
		for (size_t k = i; k <= j; k++)
			if (all[k].from_a)
				ra += rank;
		i = j + 1;
	}
	r->ties = tie_term > 0;
	u1 = ra - (double)na * (double)(na + 1) / 2;
	u2 = (double)na * (double)nb - u1;
	umax = u1 > u2 ? u1 : u2;
	r->u = u1;
	if (method == STATS_MWU_EXACT && r->ties)
		goto out;
	if (method == STATS_MWU_EXACT || (method == STATS_MWU_AUTO && !r->ties && n <= 40)) {
		double *cnt = mwu_counts(na, nb), total = 0, tail = 0;
		size_t k = (size_t)llround(umax);
		if (!cnt) {
			if (method == STATS_MWU_EXACT)
				goto out;
		} else {
			for (size_t u = 0; u <= na * nb; u++) {
				total += cnt[u];
				if (u >= k)
					tail += cnt[u];
			}
			free(cnt);
			r->exact = 1;
			r->p = 2 * tail / total;
			if (r->p > 1)
				r->p = 1;
			ret = 0;
			goto out;
		}
	}
	{
		double mu = (double)na * (double)nb / 2, dn = (double)n;
		double s = sqrt((double)na * (double)nb / 12 *
				((dn + 1) - tie_term / (dn * (dn - 1))));
		if (s > 0 && isfinite(s)) {
			r->z = (umax - mu - 0.5) / s;
			r->p = 2 * gsl_cdf_ugaussian_Q(r->z);
		} else {
			r->z = 0;
			r->p = 1; /* every value tied */
		}
		if (r->p > 1)
			r->p = 1;
		if (r->p < 0)
			r->p = 0;
	}
	ret = 0;
out:
	free(all);
	return ret;
}

/* ---- bootstrap ---- */

uint32_t stats_seed_mix(uint32_t seed, const char *key)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (const unsigned char *p = (const unsigned char *)key; *p; p++) {
		h ^= *p;
		h *= 1099511628211ull;
	}
	h ^= (uint64_t)seed * 0x9e3779b97f4a7c15ull;
	/* SplitMix64 finaliser */
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
	h ^= h >> 31;
	return (uint32_t)(h ^ (h >> 32));
}

/* The centre of N values drawn with replacement from X (or, for harmonic
 * means, from INV = 1/X). Indices by multiply-shift of a 32-bit draw: the
 * bias is below n / 2^32, and it is twice as fast as gsl_rng_uniform_int,
 * which matters at 10000 resamples per metric and variant. */
static double resampled_center(gsl_rng *rng, const double *x, const double *inv, size_t n,
			       enum stats_center c)
{
	const double *src = c == STATS_CENTER_HMEAN ? inv : x;
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += src[((uint64_t)gsl_rng_get(rng) * n) >> 32];
	if (c == STATS_CENTER_HMEAN)
		return s > 0 ? (double)n / s : NAN;
	return s / (double)n;
}

/* The tail probability the expanded percentile interval uses (stats.h). */
static double expanded_tail(const double *a, size_t na, const double *b, size_t nb,
			    enum stats_center c, double level)
{
	double va = 0, vb = 0, qa, qb, plug, df, z;
	double *ya = xmalloc(na * sizeof(double)), *yb = xmalloc(nb * sizeof(double));
	for (size_t i = 0; i < na; i++)
		ya[i] = c == STATS_CENTER_HMEAN ? 1.0 / a[i] : a[i];
	for (size_t i = 0; i < nb; i++)
		yb[i] = c == STATS_CENTER_HMEAN ? 1.0 / b[i] : b[i];
	if (na > 1)
		va = gsl_stats_variance(ya, 1, na);
	if (nb > 1)
		vb = gsl_stats_variance(yb, 1, nb);
	free(ya);
	free(yb);
	qa = va / (double)na;
	qb = vb / (double)nb;
	plug = qa * (double)(na - 1) / (double)na + qb * (double)(nb - 1) / (double)nb;
	if (na < 2 || nb < 2 || !(plug > 0))
		return (1 - level) / 2;
	df = (qa + qb) * (qa + qb) /
	     ((na > 1 ? qa * qa / (double)(na - 1) : 0) + (nb > 1 ? qb * qb / (double)(nb - 1) : 0));
	z = stats_t_quantile(0.5 + level / 2, df) * sqrt((qa + qb) / plug);
	return gsl_cdf_ugaussian_Q(z);
}

int stats_boot_ratio(const double *a, size_t na, const double *b, size_t nb,
		     enum stats_center c, int reps, uint32_t seed, double level, int expand,
		     double *lo, double *hi)
{
	gsl_rng *rng;
	double *ratio, *ia, *ib, tail;
	size_t k = 0;
	int ret = -1;

	*lo = *hi = NAN;
	if (!na || !nb || reps < 10 || reps > STATS_BOOT_MAX_REPS || !all_finite(a, na) ||
	    !all_finite(b, nb) || !(level > 0 && level < 1) || na > UINT32_MAX || nb > UINT32_MAX)
		return -1;
	if (c == STATS_CENTER_HMEAN)
		for (size_t i = 0; i < na; i++)
			if (!(a[i] > 0))
				return -1;
	if (c == STATS_CENTER_HMEAN)
		for (size_t i = 0; i < nb; i++)
			if (!(b[i] > 0))
				return -1;
	tail = expand ? expanded_tail(a, na, b, nb, c, level) : (1 - level) / 2;
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, seed);
	ratio = xmalloc((size_t)reps * sizeof(double));
	ia = xmalloc(na * sizeof(double));
	ib = xmalloc(nb * sizeof(double));
	for (size_t i = 0; i < na; i++)
		ia[i] = 1.0 / a[i];
	for (size_t i = 0; i < nb; i++)
		ib[i] = 1.0 / b[i];
	for (int i = 0; i < reps; i++) {
		double ca = resampled_center(rng, a, ia, na, c);
		double cb = resampled_center(rng, b, ib, nb, c);
		if (isfinite(ca) && isfinite(cb) && ca != 0)
			ratio[k++] = cb / ca - 1;
	}
	/* a centre of 0 in most resamples leaves no ratio to speak of */
	if (k >= (size_t)reps / 2) {
		gsl_sort(ratio, 1, k);
		*lo = gsl_stats_quantile_from_sorted_data(ratio, 1, k, tail);
		*hi = gsl_stats_quantile_from_sorted_data(ratio, 1, k, 1 - tail);
		ret = 0;
	}
	free(ia);
	free(ib);
	free(ratio);
	gsl_rng_free(rng);
	return ret;
}
