/* stats.h - the statistics behind `kbench compare` and `kbench regress`.
 *
 * Pure functions over arrays of doubles (GSL underneath, no JSON): the
 * description of one sample (mean, median, spread, Student t interval),
 * harmonic and geometric means, Welch's t-test, the Mann-Whitney U test
 * (exact distribution or normal approximation with tie correction), a
 * seeded bootstrap interval for the ratio of two centres, and the minimum
 * detectable effect. Each is checked against scipy in tests/unit/test_stats.c.
 *
 * Functions return 0, or -1 when the input cannot give an answer (too few
 * values, a non-positive value where a harmonic mean is needed); they never
 * print. NAN marks "not defined" in the structures.
 */
#ifndef KBENCH_STATS_H
#define KBENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

#define STATS_LEVEL 0.95          /* confidence level of every interval */
#define STATS_ALPHA 0.05          /* significance level of the verdicts */
#define STATS_POWER 0.80          /* power of the minimum detectable effect */
#define STATS_BOOT_REPS 10000     /* bootstrap resamples */
#define STATS_BOOT_MAX_REPS 1000000
/* The bootstrap's default seed (the year of the adaptive locks article);
 * recorded in comparison.json, so an interval can be reproduced exactly. */
#define STATS_DEFAULT_SEED 2008u

/* One sample described. */
struct stats_desc {
	size_t n;
	double mean, median, sd;    /* sd: sample standard deviation (n - 1) */
	double cv;                  /* sd / |mean|; NAN for n < 2 or mean 0 */
	double min, max;
	double ci_lo, ci_hi;        /* interval of the mean (Student t); NAN for n < 2 */
	double hmean;               /* harmonic mean; NAN unless every value > 0 */
	double hm_lo, hm_hi;        /* its interval: the t interval of 1/x, inverted */
};

/* Describe X[0..n) at confidence LEVEL. -1 when n is 0 or a value is not
 * finite. */
int stats_describe_sample(const double *x, size_t n, double level, struct stats_desc *d);

/* n / sum(1/x): NAN unless n > 0 and every value > 0. The mean of rates
 * measured over equal amounts of work (MB/s over equal megabytes). */
double stats_hmean(const double *x, size_t n);
/* exp(mean(log x)): NAN unless n > 0 and every value > 0. */
double stats_gmean(const double *x, size_t n);
/* Quantile P of Student's t with DF degrees of freedom (GSL). */
double stats_t_quantile(double p, double df);

/* Welch's unequal-variance t-test of B against A. */
struct stats_welch {
	double diff;          /* mean(b) - mean(a) */
	double se;            /* sqrt(var_a/na + var_b/nb) */
	double t;             /* diff / se (scipy.stats.ttest_ind(b, a, equal_var=False)) */
	double df;            /* Welch-Satterthwaite */
	double p;             /* two-sided */
	double diff_lo, diff_hi; /* interval of diff at the given level */
};

/* Needs na, nb >= 2. With no spread on either side, p is 1 when the means
 * are equal and 0 when they differ (a difference with no noise at all). */
int stats_welch(const double *a, size_t na, const double *b, size_t nb, double level,
		struct stats_welch *w);

enum stats_mwu_method {
	STATS_MWU_AUTO,        /* exact without ties and na + nb <= 40, else normal */
	STATS_MWU_EXACT,       /* refused (-1) when there are ties */
	STATS_MWU_ASYMPTOTIC,  /* normal approximation, tie-corrected, continuity 0.5 */
};

/* The Mann-Whitney U test of A against B (two-sided). */
struct stats_mwu {
	double u;       /* U of A: rank sum of A - na(na+1)/2 (midranks for ties) */
	double z;       /* normal approximation only, else NAN */
	double p;
	int exact;      /* 1: exact distribution; 0: normal approximation */
	int ties;       /* some values are tied */
};

/* Needs na, nb >= 1. Matches scipy.stats.mannwhitneyu(a, b, method=...). */
int stats_mwu(const double *a, size_t na, const double *b, size_t nb,
	      enum stats_mwu_method method, struct stats_mwu *r);
/* Smallest two-sided p the exact test can give for NA and NB (no ties):
 * 2 / C(na + nb, na). 3 against 3: 0.1, so it can never reach 0.05. */
double stats_mwu_min_p(size_t na, size_t nb);

enum stats_center {
	STATS_CENTER_MEAN,
	STATS_CENTER_HMEAN,
};

/* The centre of X: mean or harmonic mean (NAN if undefined). */
double stats_center(const double *x, size_t n, enum stats_center c);

/*
 * Bootstrap interval of center(B) / center(A) - 1 at LEVEL: REPS
 * resamples of each side, drawn with replacement independently (the two
 * samples are independent), from GSL's MT19937 seeded with SEED. Same
 * inputs and seed, same interval, on every machine.
 *
 * EXPAND 0: the plain percentile interval. EXPAND 1: the expanded
 * percentile interval (Hesterberg, "What teachers should know about the
 * bootstrap", Am. Stat. 2015), carried to two samples: the percentile
 * interval is too narrow for small samples because resampling sees the
 * plug-in variance (divisor n) and normal tails; so the percentiles taken
 * are Phi(-+z') with z' = t(1 - (1-level)/2, df) * sqrt(unbiased var /
 * plug-in var) of the difference of centres, df by Welch-Satterthwaite
 * (on 1/x for harmonic means). It keeps the bootstrap's asymmetry and
 * tends to the percentile interval as n grows; with 3 values a side it is
 * about as wide as Welch's interval, so interval and p-value agree.
 */
int stats_boot_ratio(const double *a, size_t na, const double *b, size_t nb,
		     enum stats_center c, int reps, uint32_t seed, double level, int expand,
		     double *lo, double *hi);

/*
 * Fieller's interval for mean(B) / mean(A) - 1 at LEVEL with Welch's
 * variances and degrees of freedom: the ratios r for which
 * (mean_b - r mean_a)^2 <= t^2 (var_b/nb + r^2 var_a/na). At r = 1 this is
 * Welch's test, so the interval excludes 0 exactly when Welch's p < 1 -
 * LEVEL: the interval and the verdict cannot disagree. -1 (NAN bounds)
 * when na or nb < 2 or the interval is unbounded (mean(A) not clearly
 * away from 0).
 */
int stats_fieller(const double *a, size_t na, const double *b, size_t nb, double level,
		  double *lo, double *hi);

/*
 * Minimum detectable difference of means for Welch's test at two-sided
 * ALPHA and POWER, from the observed spreads: (t(1 - alpha/2, df) +
 * t(power, df)) * se, df by Welch-Satterthwaite. Absolute units (divide by
 * the baseline's centre for a relative effect). NAN unless na, nb >= 2.
 */
double stats_mde(double sd_a, size_t na, double sd_b, size_t nb, double alpha, double power);

/* A 32-bit seed derived from SEED and KEY (FNV-1a then a SplitMix64
 * finaliser): each metric gets its own stream from one recorded seed. */
uint32_t stats_seed_mix(uint32_t seed, const char *key);

#endif
