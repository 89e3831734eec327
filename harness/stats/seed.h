/* seed.h - the 2008 table side by side: each of RT's and adaptive RT's
 * throughput relative to mainline, and the share of the RT-to-mainline
 * gap adaptive spinning recovers, with seeded percentile-bootstrap 95%
 * intervals from the per-iteration samples (docs/comparison.md, "seed"). */
#ifndef KBENCH_SEED_H
#define KBENCH_SEED_H

#include "stats/compare.h"

/* The roles when none are given: the source-built trio of kernels/. */
#define SEED_ROLES_DEFAULT "mainline,rt,rt-adaptive"

/* The groups of C playing mainline, RT and adaptive RT (ROLES: three
 * comma-separated group names; NULL: SEED_ROLES_DEFAULT) into G; 0, or -1
 * when a role has no group (no seed section then). */
int seed_roles(const struct comparison *c, const char *roles, size_t g[3]);

struct seed_ratio {
	const struct cmp_metric *m;
	/* throughput relative to mainline (for a time: mainline's time over
	 * the variant's), [0] RT, [1] adaptive, with 95% intervals */
	double rel[2], rel_lo[2], rel_hi[2];
	/* (adaptive - RT) / (mainline - RT) on the throughput scale; NAN
	 * when RT is not below mainline (no gap to recover) */
	double gap, gap_lo, gap_hi;
	int n[3];          /* samples: mainline, RT, adaptive */
};

/* Row for metric M (a rate or a time) of groups G; REPS resamples from
 * MT19937 seeded with SEED. 0, or -1 when a side has fewer than 2 values
 * or a centre is not positive (row left NAN). */
int seed_compute(const struct cmp_metric *m, const size_t g[3], int reps, uint32_t seed,
	     struct seed_ratio *out);

/* comparison.json's "seed": the rows of dbench throughput and hackbench
 * time and the lock counters of the three groups; NULL without roles. */
json_object *seed_json(const struct comparison *c, const char *roles);

#endif
