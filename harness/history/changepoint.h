/* changepoint.h - change points in a noisy benchmark series: E-divisive
 * means (Matteson & James, "A Nonparametric Approach for Multiple Change
 * Point Analysis of Multivariate Data", JASA 2014), the method MongoDB's
 * performance CI and Apache Otava (Hunter) use, with its permutation
 * significance test, seeded so a series always gives the same answer. */
#ifndef KBENCH_CHANGEPOINT_H
#define KBENCH_CHANGEPOINT_H

#include <stddef.h>
#include <stdint.h>

struct cp_opts {
	double alpha;       /* significance level of each split (default 0.01) */
	int permutations;   /* permutation test size (default 499) */
	int min_size;       /* fewest points a segment keeps (default 3) */
	int max_points;     /* stop after this many change points (default 10) */
	uint32_t seed;      /* permutation seed (default 2014) */
};

void cp_opts_init(struct cp_opts *o);

struct cp_point {
	size_t index;       /* the first point after the change */
	double q;           /* the divergence statistic Q of the split */
	double p;           /* permutation p-value */
	double before, after; /* means of the segments either side */
};

struct cp_result {
	struct cp_point *v; /* by index */
	size_t n;
};

/* Find the change points of X[0..n). Always succeeds (none when n is
 * below 2 * min_size). */
void changepoint_edivisive(const double *x, size_t n, const struct cp_opts *o,
			   struct cp_result *r);
void cp_result_release(struct cp_result *r);

/* The statistic Q(tau) of splitting X[0..n) before index tau (exposed for
 * the tests): tau (n - tau) / n times the energy distance of the halves. */
double changepoint_q(const double *x, size_t n, size_t tau);

#endif
