/* histogram.c - percentiles of latency histograms with 1 us buckets
 * (cyclictest's, and the merged histograms of a comparison). In core
 * because both a workload and the statistics layer read them. */
#include "core/histogram.h"

#include <math.h>

/* Nearest-rank percentile of a 1 us histogram (see histogram.h). */
int hist_percentile(const uint64_t *counts, size_t nbuckets, uint64_t overflows,
			  double max, uint32_t ppm, double *out)
{
	uint64_t n = overflows, rank, seen = 0;

	if (!ppm || ppm > 1000000 || isnan(max))
		return -1;
	for (size_t i = 0; i < nbuckets; i++) {
		if (counts[i] > UINT64_MAX - n)
			return -1;
		n += counts[i];
	}
	if (!n)
		return -1;
	/* ceil(n * ppm / 1e6) without overflowing 64 bits */
	rank = n / 1000000 * ppm + ((n % 1000000) * ppm + 999999) / 1000000;
	for (size_t i = 0; i < nbuckets; i++) {
		seen += counts[i];
		if (seen >= rank) {
			*out = (double)i;
			return 0;
		}
	}
	/* among the overflows: somewhere in [nbuckets, max]; report max */
	*out = max >= (double)nbuckets ? max : (double)nbuckets;
	return 0;
}

static const struct {
	const char *name;
	uint32_t ppm;
} std_percentiles[] = {
	{ "lat_p50", 500000 },
	{ "lat_p90", 900000 },
	{ "lat_p99", 990000 },
	{ "lat_p99_9", 999000 },
	{ "lat_p99_99", 999900 },
};
#define N_PCT (sizeof(std_percentiles) / sizeof(std_percentiles[0]))

/* The five standard percentiles as metrics, all or none. */
int hist_add_percentiles(struct metric_set *ms, const uint64_t *counts,
			       size_t nbuckets, uint64_t overflows, double max)
{
	double v[N_PCT];

	for (size_t i = 0; i < N_PCT; i++)
		if (hist_percentile(counts, nbuckets, overflows, max, std_percentiles[i].ppm,
					  &v[i]))
			return -1;
	for (size_t i = 0; i < N_PCT; i++)
		metric_set_add(ms, std_percentiles[i].name, "us", BETTER_LOWER, v[i]);
	return 0;
}

