/* test_stats.c - harness/stats/stats.c against values computed independently.
 *
 * Reference values come from SciPy 1.10.1 (Debian 12 python3-scipy) and
 * NumPy, computed once and copied here; each is preceded by the call that
 * produced it. Inputs:
 *   A = [1.82, 1.95, 1.77, 2.10, 1.88]        (hackbench-like seconds)
 *   B = [2.01, 2.15, 1.98, 2.30, 2.07, 2.22]
 *   C = [30.0, 33.5, 29.1, 36.2]              D = [41.0, 38.2, 45.9, 39.7, 52.3, 40.1, 44.4]
 *   E = [3, 4, 4, 5, 6, 6, 6, 8]              F = [5, 6, 7, 7, 8, 9, 9, 10, 11]   (ties)
 *   G, H: 25 and 22 values (below)            T = [30.0082, 41.2, 35.5, 28.9]
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

#include "stats/stats.h"
#include "core/util.h"

static const double A[] = { 1.82, 1.95, 1.77, 2.10, 1.88 };
static const double B[] = { 2.01, 2.15, 1.98, 2.30, 2.07, 2.22 };
static const double C[] = { 30.0, 33.5, 29.1, 36.2 };
static const double D[] = { 41.0, 38.2, 45.9, 39.7, 52.3, 40.1, 44.4 };
static const double E[] = { 3, 4, 4, 5, 6, 6, 6, 8 };
static const double F[] = { 5, 6, 7, 7, 8, 9, 9, 10, 11 };
static const double G[] = { 10.0, 13.358, 14.395, 12.923, 11.063, 11.29, 14.162, 17.804, 19.635,
			    18.736, 16.701, 16.167, 18.39, 22.094, 24.638, 24.451, 22.47, 21.282,
			    22.747, 26.283, 29.406, 30.01, 28.307, 26.628, 27.283 };
static const double H[] = { 15.0, 14.621, 12.752, 12.03, 14.039, 17.851, 20.881, 21.262, 19.563,
			    18.267, 19.483, 23.013, 26.532, 27.722, 26.41, 24.721, 25.127, 28.175,
			    31.981, 33.966, 33.224, 31.357 };
static const double T[] = { 30.0082, 41.2, 35.5, 28.9 };
#define N(x) (sizeof(x) / sizeof((x)[0]))

/* A equals B within a relative tolerance; the failure names both. */
#define near(a, b, rel) near_at((a), (b), (rel), #a, __LINE__)
static void near_at(double a, double b, double rel, const char *what, int line)
{
	if (!(fabs(a - b) <= rel * fmax(fabs(b), 1e-300)))
		fail_msg("line %d: %s = %.17g, expected %.17g (rel %g)", line, what, a, b, rel);
}

static void test_describe(void **state)
{
	struct stats_desc d;
	(void)state;
	assert_int_equal(stats_describe_sample(A, N(A), 0.95, &d), 0);
	assert_int_equal(d.n, 5);
	/* numpy: a.mean() = 1.904, np.median(a) = 1.88, a.std(ddof=1) = 0.12856904759700138 */
	near(d.mean, 1.904, 1e-12);
	near(d.median, 1.88, 1e-12);
	near(d.sd, 0.12856904759700138, 1e-10);
	near(d.cv, 0.12856904759700138 / 1.904, 1e-10);
	assert_true(d.min == 1.77 && d.max == 2.10);
	/* scipy.stats.t.interval(0.95, 4, loc=a.mean(), scale=scipy.stats.sem(a))
	 *   = (1.7443604423154568, 2.063639557684543) */
	near(d.ci_lo, 1.7443604423154568, 1e-9);
	near(d.ci_hi, 2.063639557684543, 1e-9);
	/* one value: no spread, no interval */
	assert_int_equal(stats_describe_sample(A, 1, 0.95, &d), 0);
	assert_true(isnan(d.sd) && isnan(d.cv) && isnan(d.ci_lo));
	assert_int_equal(stats_describe_sample(A, 0, 0.95, &d), -1);
	{
		double bad[2] = { 1, NAN };
		assert_int_equal(stats_describe_sample(bad, 2, 0.95, &d), -1);
	}
}

static void test_t_quantile(void **state)
{
	(void)state;
	/* scipy.stats.t.ppf(0.975, 4) = 2.7764451051977987 */
	near(stats_t_quantile(0.975, 4), 2.7764451051977987, 1e-9);
	/* scipy.stats.t.ppf(0.8, 7.3) = 0.8936713571801147 (fractional df, as Welch gives) */
	near(stats_t_quantile(0.8, 7.3), 0.8936713571801147, 1e-8);
	/* scipy.stats.t.ppf(0.995, 2.5) = 7.16372813402124 */
	near(stats_t_quantile(0.995, 2.5), 7.16372813402124, 1e-8);
}

static void test_means(void **state)
{
	double z[] = { 1, 0, 2 };
	(void)state;
	/* scipy.stats.hmean(T) = 33.23165566021543; scipy.stats.gmean(T) = 33.55952763966225 */
	near(stats_hmean(T, N(T)), 33.23165566021543, 1e-12);
	near(stats_gmean(T, N(T)), 33.55952763966225, 1e-12);
	assert_true(isnan(stats_hmean(z, 3)) && isnan(stats_gmean(z, 3)));
	assert_true(isnan(stats_hmean(T, 0)));
	near(stats_center(T, N(T), STATS_CENTER_MEAN), (30.0082 + 41.2 + 35.5 + 28.9) / 4, 1e-12);
	near(stats_center(T, N(T), STATS_CENTER_HMEAN), 33.23165566021543, 1e-12);
}

static void test_welch(void **state)
{
	struct stats_welch w;
	(void)state;
	assert_int_equal(stats_welch(A, N(A), B, N(B), 0.95, &w), 0);
	/* scipy.stats.ttest_ind(B, A, equal_var=False)
	 *   -> statistic 2.8364775045908135, pvalue 0.02057370658938095 */
	near(w.t, 2.8364775045908135, 1e-9);
	near(w.p, 0.02057370658938095, 1e-7);
	/* Welch-Satterthwaite from numpy variances: 8.527533716192861 */
	near(w.df, 8.527533716192861, 1e-9);
	/* diff -+ scipy.stats.t.ppf(0.975, df) * se = (0.04259516803166549, 0.3927381653016687) */
	near(w.diff_lo, 0.04259516803166549, 1e-7);
	near(w.diff_hi, 0.3927381653016687, 1e-8);
	/* scipy.stats.ttest_ind(D, C, equal_var=False)
	 *   -> statistic 4.412334058897485, pvalue 0.001907721926419887 */
	assert_int_equal(stats_welch(C, N(C), D, N(D), 0.95, &w), 0);
	near(w.t, 4.412334058897485, 1e-9);
	near(w.p, 0.001907721926419887, 1e-6);
}

static void test_welch_degenerate(void **state)
{
	double same[] = { 5, 5, 5 }, other[] = { 6, 6, 6 };
	struct stats_welch w;
	(void)state;
	assert_int_equal(stats_welch(same, 3, same, 3, 0.95, &w), 0);
	assert_true(w.p == 1 && w.diff == 0);
	assert_int_equal(stats_welch(same, 3, other, 3, 0.95, &w), 0);
	assert_true(w.p == 0 && w.diff == 1);
	assert_int_equal(stats_welch(same, 1, other, 3, 0.95, &w), -1);
	/* one side constant: df is the other side's n - 1 */
	assert_int_equal(stats_welch(same, 3, A, N(A), 0.95, &w), 0);
	near(w.df, 4, 1e-12);
}

static void test_mwu_exact(void **state)
{
	static const double x[] = { 1, 2, 3 }, y[] = { 4, 5, 6 };
	static const double p4[] = { 3.1, 1.2, 5.5, 4.4 }, q5[] = { 2.2, 6.6, 7.7, 8.8, 9.9 };
	struct stats_mwu r;
	(void)state;
	/* scipy.stats.mannwhitneyu(A, B, method='exact') -> U 3.0, p 0.030303030303030304 */
	assert_int_equal(stats_mwu(A, N(A), B, N(B), STATS_MWU_EXACT, &r), 0);
	assert_true(r.exact && !r.ties);
	near(r.u, 3.0, 1e-12);
	near(r.p, 0.030303030303030304, 1e-12);
	/* mannwhitneyu([1,2,3], [4,5,6], method='exact') -> U 0.0, p 0.1: the best
	 * 3 against 3 can do, so U alone could never call a quick suite */
	assert_int_equal(stats_mwu(x, 3, y, 3, STATS_MWU_AUTO, &r), 0);
	assert_true(r.exact);
	near(r.u, 0, 1e-12);
	near(r.p, 0.1, 1e-12);
	/* mannwhitneyu([3.1,1.2,5.5,4.4], [2.2,6.6,7.7,8.8,9.9], method='exact')
	 *   -> U 3.0, p 0.1111111111111111 */
	assert_int_equal(stats_mwu(p4, 4, q5, 5, STATS_MWU_EXACT, &r), 0);
	near(r.u, 3.0, 1e-12);
	near(r.p, 0.1111111111111111, 1e-12);
	/* mannwhitneyu(G, H, method='exact') -> U 216.0, p 0.2145032920212563 */
	assert_int_equal(stats_mwu(G, N(G), H, N(H), STATS_MWU_EXACT, &r), 0);
	near(r.u, 216.0, 1e-12);
	near(r.p, 0.2145032920212563, 1e-9);
	/* exact is refused with ties */
	assert_int_equal(stats_mwu(E, N(E), F, N(F), STATS_MWU_EXACT, &r), -1);
	/* the smallest exact p: 2 / C(n1 + n2, n1) */
	near(stats_mwu_min_p(3, 3), 0.1, 1e-12);
	near(stats_mwu_min_p(4, 4), 2.0 / 70, 1e-12);
	near(stats_mwu_min_p(5, 5), 2.0 / 252, 1e-12);
}

static void test_mwu_asymptotic(void **state)
{
	struct stats_mwu r;
	(void)state;
	/* scipy.stats.mannwhitneyu(E, F, method='asymptotic') (tie correction,
	 * continuity) -> U 9.5, p 0.011564296387462049; 'auto' gives the same */
	assert_int_equal(stats_mwu(E, N(E), F, N(F), STATS_MWU_ASYMPTOTIC, &r), 0);
	assert_true(!r.exact && r.ties);
	near(r.u, 9.5, 1e-12);
	near(r.p, 0.011564296387462049, 1e-9);
	assert_int_equal(stats_mwu(E, N(E), F, N(F), STATS_MWU_AUTO, &r), 0);
	near(r.p, 0.011564296387462049, 1e-9);
	/* mannwhitneyu(G, H, method='asymptotic') -> U 216.0, p 0.21231530529726128 */
	assert_int_equal(stats_mwu(G, N(G), H, N(H), STATS_MWU_ASYMPTOTIC, &r), 0);
	near(r.p, 0.21231530529726128, 1e-9);
	/* 47 values: AUTO takes the normal approximation */
	assert_int_equal(stats_mwu(G, N(G), H, N(H), STATS_MWU_AUTO, &r), 0);
	assert_false(r.exact);
	/* everything tied: no evidence at all */
	{
		double k[] = { 2, 2, 2 };
		assert_int_equal(stats_mwu(k, 3, k, 3, STATS_MWU_AUTO, &r), 0);
		near(r.p, 1, 1e-12);
	}
}

static void test_mde(void **state)
{
	struct stats_desc a, b;
	(void)state;
	stats_describe_sample(A, N(A), 0.95, &a);
	stats_describe_sample(B, N(B), 0.95, &b);
	/* (scipy.stats.t.ppf(0.975, df) + scipy.stats.t.ppf(0.8, df)) * se with the
	 * Welch df of A and B = 0.24304849881271262 */
	near(stats_mde(a.sd, a.n, b.sd, b.n, 0.05, 0.8), 0.24304849881271262, 1e-8);
	assert_true(isnan(stats_mde(a.sd, 1, b.sd, b.n, 0.05, 0.8)));
	/* more iterations, smaller detectable effect */
	assert_true(stats_mde(0.1, 10, 0.1, 10, 0.05, 0.8) < stats_mde(0.1, 3, 0.1, 3, 0.05, 0.8));
}

static void test_fieller(void **state)
{
	double lo, hi;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	(void)state;
	/* the quadratic (mean_d - q mean_c)^2 = t^2 (var_d/nd + q^2 var_c/nc) solved
	 * in numpy with t = scipy.stats.t.ppf(0.975, Welch df):
	 *   mean(D)/mean(C) - 1 in (0.1512892681652671, 0.5612655276043819) */
	assert_int_equal(stats_fieller(C, N(C), D, N(D), 0.95, &lo, &hi), 0);
	near(lo, 0.1512892681652671, 1e-8);
	near(hi, 0.5612655276043819, 1e-8);
	/* the interval holds 0 exactly when Welch's p >= 0.05 */
	gsl_rng_set(r, 42);
	for (int trial = 0; trial < 500; trial++) {
		double a[6], b[6];
		struct stats_welch w;
		for (int i = 0; i < 6; i++) {
			a[i] = 100 + gsl_ran_gaussian(r, 5);
			b[i] = 100 * (1 + 0.02 * (trial % 7)) + gsl_ran_gaussian(r, 5);
		}
		assert_int_equal(stats_welch(a, 3 + trial % 4, b, 3 + trial % 3, 0.95, &w), 0);
		assert_int_equal(stats_fieller(a, 3 + trial % 4, b, 3 + trial % 3, 0.95, &lo, &hi), 0);
		if (fabs(w.p - 0.05) > 1e-9)
			assert_int_equal(lo <= 0 && 0 <= hi, w.p >= 0.05);
	}
	gsl_rng_free(r);
	/* a baseline mean not clearly away from 0: unbounded */
	{
		double z[] = { -1, 1, 0.5 }, y[] = { 1, 2, 3 };
		assert_int_equal(stats_fieller(z, 3, y, 3, 0.95, &lo, &hi), -1);
		assert_true(isnan(lo) && isnan(hi));
	}
}

static void test_bootstrap(void **state)
{
	double lo, hi, lo2, hi2;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	int covered = 0, trials = 200;
	(void)state;
	/* reproducible from the seed, and the seed matters */
	assert_int_equal(stats_boot_ratio(A, N(A), B, N(B), STATS_CENTER_MEAN, 2000, 7, 0.95, 0,
					  &lo, &hi), 0);
	assert_int_equal(stats_boot_ratio(A, N(A), B, N(B), STATS_CENTER_MEAN, 2000, 7, 0.95, 0,
					  &lo2, &hi2), 0);
	assert_true(lo == lo2 && hi == hi2);
	assert_int_equal(stats_boot_ratio(A, N(A), B, N(B), STATS_CENTER_MEAN, 2000, 8, 0.95, 0,
					  &lo2, &hi2), 0);
	assert_true(lo != lo2 || hi != hi2);
	/* it holds the point estimate; the expanded interval is wider */
	{
		double est = (2.01 + 2.15 + 1.98 + 2.30 + 2.07 + 2.22) / 6 / 1.904 - 1;
		assert_true(lo < est && est < hi);
		assert_int_equal(stats_boot_ratio(A, N(A), B, N(B), STATS_CENTER_MEAN, 2000, 7, 0.95, 1,
						  &lo2, &hi2), 0);
		assert_true(lo2 < lo && hi2 > hi);
	}
	/* harmonic means of rates */
	assert_int_equal(stats_boot_ratio(T, N(T), T, N(T), STATS_CENTER_HMEAN, 1000, 1, 0.95, 1,
					  &lo, &hi), 0);
	assert_true(lo < 0 && hi > 0);
	/* coverage: the expanded interval holds the true ratio about 95% of the
	 * time with 10 lognormal values a side (true ratio of means 1.10) */
	gsl_rng_set(r, 1234);
	for (int t = 0; t < trials; t++) {
		double a[10], b[10];
		for (int i = 0; i < 10; i++) {
			a[i] = 100 * exp(gsl_ran_gaussian(r, 0.05) - 0.00125);
			b[i] = 110 * exp(gsl_ran_gaussian(r, 0.05) - 0.00125);
		}
		stats_boot_ratio(a, 10, b, 10, STATS_CENTER_MEAN, 1000, (uint32_t)t, 0.95, 1, &lo, &hi);
		covered += lo <= 0.10 && 0.10 <= hi;
	}
	assert_in_range(covered, trials * 88 / 100, trials);
	gsl_rng_free(r);
	assert_int_equal(stats_boot_ratio(A, 0, B, N(B), STATS_CENTER_MEAN, 1000, 1, 0.95, 1,
					  &lo, &hi), -1);
}

static void test_seed_mix(void **state)
{
	(void)state;
	assert_int_equal(stats_seed_mix(2008, "hackbench/time/rt"),
			 stats_seed_mix(2008, "hackbench/time/rt"));
	assert_int_not_equal(stats_seed_mix(2008, "hackbench/time/rt"),
			     stats_seed_mix(2008, "dbench/throughput/rt"));
	assert_int_not_equal(stats_seed_mix(2008, "x"), stats_seed_mix(2009, "x"));
}

/* Welch's p-value is calibrated: under the null about 5% fall below 0.05. */
static void test_welch_calibration(void **state)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	int below = 0, trials = 4000;
	(void)state;
	gsl_rng_set(r, 99);
	for (int t = 0; t < trials; t++) {
		double a[5], b[7];
		struct stats_welch w;
		for (int i = 0; i < 5; i++)
			a[i] = gsl_ran_gaussian(r, 1);
		for (int i = 0; i < 7; i++)
			b[i] = gsl_ran_gaussian(r, 3);
		stats_welch(a, 5, b, 7, 0.95, &w);
		below += w.p < 0.05;
	}
	/* binomial(4000, 0.05): mean 200, sd 14; Welch is close to exact here */
	assert_in_range(below, 150, 260);
	gsl_rng_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_t_quantile),
		cmocka_unit_test(test_means),
		cmocka_unit_test(test_welch),
		cmocka_unit_test(test_welch_degenerate),
		cmocka_unit_test(test_mwu_exact),
		cmocka_unit_test(test_mwu_asymptotic),
		cmocka_unit_test(test_mde),
		cmocka_unit_test(test_fieller),
		cmocka_unit_test(test_bootstrap),
		cmocka_unit_test(test_seed_mix),
		cmocka_unit_test(test_welch_calibration),
	};
	kb_quiet = 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
