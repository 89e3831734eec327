/* histogram.h - latency percentiles from 1 us histograms (cyclictest),
 * shared with code that merges histograms across iterations. */
#ifndef KBENCH_HISTOGRAM_H
#define KBENCH_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>
#include "core/metric.h"

/*
 * Latency at quantile PPM (parts per million: 500000 = median, 999900 =
 * p99.99) of a histogram with 1 us buckets: COUNTS[i] samples had a
 * latency of i us (cyclictest truncates to whole us), for i < NBUCKETS;
 * OVERFLOWS samples were at or above NBUCKETS us; MAX is the largest
 * latency observed. Nearest rank: the smallest latency with at least
 * ceil(PPM / 1e6 * total) samples at or below it, computed in integers.
 *
 * Overflows are counted, never dropped: when that rank falls among them,
 * the true value lies somewhere in [NBUCKETS, MAX] and the answer is MAX
 * (conservative: never better than the truth), or NBUCKETS if MAX is
 * smaller. Returns 0 with the value in *OUT, or -1 when there are no
 * samples, PPM is not in 1..1000000, MAX is NaN or the total overflows.
 */
int hist_percentile(const uint64_t *counts, size_t nbuckets, uint64_t overflows,
			  double max, uint32_t ppm, double *out);

/*
 * Add lat_p50, lat_p90, lat_p99, lat_p99_9 and lat_p99_99 (us, lower is
 * better) of a histogram as above to MS. Returns 0, or -1 (nothing added)
 * when hist_percentile fails.
 */
int hist_add_percentiles(struct metric_set *ms, const uint64_t *counts,
			       size_t nbuckets, uint64_t overflows, double max);

#endif
