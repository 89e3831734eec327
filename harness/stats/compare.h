/* compare.h - compare kernel variants from stored results.json files:
 * group the runs by variant, describe every metric, test each variant
 * against the baseline, merge cyclictest histograms, and write
 * comparison.json (docs/comparison.md). report.h renders it as HTML,
 * regress.h turns it into CI verdicts. */
#ifndef KBENCH_COMPARE_H
#define KBENCH_COMPARE_H

#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>
#include "stats/stats.h"
#include "core/util.h"

#define COMPARISON_SCHEMA "kbench-comparison"
#define COMPARISON_SCHEMA_VERSION 1
/* The first words of the warning a comparison of TCG guests carries (the
 * report shows it as a box of its own, not in the list) */
#define CMP_TCG_WARNING "guests ran under TCG (no KVM)"
/* ... and of one whose guests' clock was the instruction counter */
#define CMP_ICOUNT_WARNING "guest time is instructions, not wall time"
/* Below this many values a side, a bootstrap cannot show the uncertainty
 * (3 values have 10 distinct resamples), so the headline interval of a
 * change is Fieller's; the bootstrap's is still computed and recorded. */
#define CMP_BOOT_MIN_N 8

/* A per-metric setting: PATTERN is "label.metric" (cyclictest.load.lat_max),
 * "workload.metric" (cyclictest.lat_max) or "metric" (lat_max); the most
 * specific match wins. VALUE is a fraction (0.05 for 5%). */
struct cmp_rule {
	char *pattern;
	double value;
};

struct cmp_rules {
	struct cmp_rule *v;
	size_t n;
};

/* Parse "metric=5%" (or "=0.05") and add it; error printed, -1 if bad. */
int cmp_rules_add(struct cmp_rules *r, const char *opt, const char *arg);
void cmp_rules_release(struct cmp_rules *r);

struct cmp_opts {
	const char *baseline;      /* group (variant) name; NULL: the first */
	uint32_t seed;             /* bootstrap seed */
	int reps;                  /* bootstrap resamples */
	int force;                 /* mixed suites/hosts: warn instead of refusing */
	struct cmp_rules min_effect; /* overrides of the per-class minimum effect */
	struct cmp_rules max_cv;     /* overrides of the per-class noise limit */
	const char *const *order;  /* group names to show first, in this order */
	const char *seed_roles;    /* "MAINLINE,RT,ADAPTIVE" groups of the 2008 table
				    * (stats/seed.h); NULL: SEED_ROLES_DEFAULT */
	size_t norder;
};

void cmp_opts_init(struct cmp_opts *o);
void cmp_opts_release(struct cmp_opts *o);

/* One loaded results.json and the group it is compared in. */
struct cmp_input {
	char *path;
	char *group;        /* variant name, or a role ("baseline", "current") */
	json_object *doc;   /* owned */
};

struct cmp_inputs {
	struct cmp_input *v;
	size_t n;
};

/*
 * Add the results named by ARG: a results.json, a run directory, or a
 * directory of runs (DIR/runs/x/results.json and DIR/x/results.json, in
 * name order). GROUP NULL groups by the variant's name. Every file is
 * validated (results_load); errors name file and reason. 0 or -1.
 */
int cmp_inputs_add(struct cmp_inputs *in, const char *arg, const char *group);
void cmp_inputs_release(struct cmp_inputs *in);
/* host.machine of the first input that recorded one (a run whose every
 * iteration failed on a target has none), or NULL. */
json_object *cmp_inputs_machine(const struct cmp_inputs *in);

enum cmp_verdict {
	CMP_BASELINE,    /* the baseline itself */
	CMP_SAME,        /* no significant difference (or smaller than the minimum effect) */
	CMP_BETTER,
	CMP_WORSE,
	CMP_UNDECIDED,   /* fewer than 2 values on a side: no spread, no test */
	CMP_MISSING,     /* no value at all on this side */
};
const char *cmp_verdict_name(enum cmp_verdict v);

enum cmp_class {
	CMP_CLASS_RATE,     /* unit ".../s": harmonic mean, tested on 1/x */
	CMP_CLASS_TIME,     /* unit "s" */
	CMP_CLASS_LATENCY,  /* lat_min, lat_avg, lat_p50, lat_p90 */
	CMP_CLASS_TAIL,     /* tail latencies, maxima, counts, anything else */
};
const char *cmp_class_name(enum cmp_class c);
/* The class's default minimum effect and noise limit (fractions). */
void cmp_class_defaults(enum cmp_class c, double *min_effect, double *max_cv);

/* One metric of one group. */
struct cmp_cell {
	double *v;            /* per-iteration values (ok workloads, no warm-up);
			       * blocked by device: scaled (see struct comparison) */
	char **src;           /* "run-id#iteration" of each value */
	int *blk;             /* each value's lab device (comparison blocks), or -1 */
	double *brel;         /* blocked: per device, center / the baseline's
			       * center there - 1 (NAN: not both there) */
	size_t n, alloc;
	struct stats_desc d;
	double center, center_lo, center_hi; /* mean, or harmonic mean for rates; 95% */
	/* against the baseline */
	double rel, rel_lo, rel_hi;   /* center / baseline center - 1 and its 95% interval:
				       * the bootstrap's when both sides have
				       * CMP_BOOT_MIN_N values, else Fieller's */
	double boot_lo, boot_hi;      /* expanded percentile bootstrap (seeded) */
	double fieller_lo, fieller_hi; /* Fieller with Welch's df: agrees with the p-value */
	int ci_boot;                  /* rel_lo/hi are the bootstrap's */
	int have_test;
	struct stats_welch welch;     /* on the analysis scale (1/x for rates) */
	struct stats_mwu mwu;
	int have_mwu;
	double mde;                   /* relative minimum detectable effect */
	double q;                     /* Welch p adjusted for the number of metrics
				       * tested (Benjamini-Hochberg); verdicts use it */
	int noisy;                    /* cv above the metric's limit (this group) */
	/* runs with repeats inside one boot (results.json within_boot): the
	 * mean of the per-boot within-boot CVs, over WITHIN_N boots (0: no
	 * repeats; d.cv is then the between-boot CV of the per-boot medians) */
	double within_cv_sum;
	int within_n;
	int within_repeats;           /* the most repeats a boot had */
	enum cmp_verdict verdict;
	char note[160];               /* why undecided / missing, or a caveat */
};

struct cmp_metric {
	char *label, *workload, *name, *unit;
	int better;          /* 1 higher is better, -1 lower */
	enum cmp_class cls;
	double min_effect, max_cv;
	int primary;         /* the workload's headline metric (enters the score) */
	struct cmp_cell *cell; /* [ngroups] */
};

/* A cyclictest histogram merged over iterations and threads. */
struct cmp_hist {
	uint64_t *counts;    /* 1 us buckets */
	size_t nb;
	uint64_t samples;    /* in buckets plus overflows */
	uint64_t overflows;  /* beyond the histogram: counted, never dropped */
	double max;          /* largest latency observed */
	double pct[5];       /* p50, p90, p99, p99.9, p99.99 */
	int ok;              /* at least one histogram merged */
	int histograms;      /* iteration x thread histograms merged */
};

struct cmp_latency {
	char *label;
	struct cmp_hist *h;  /* [ngroups] */
};

/* A lock counter of the reference patch (results.json lock_stats), its
 * mean per workload run (a repeat inside a boot is a run: a workload's
 * sums over its repeats count lock_stats_repeats runs). */
struct cmp_lockstat {
	char *label, *counter;
	double *sum;         /* [ngroups] */
	int *n;              /* [ngroups] workload runs that reported it */
};

struct cmp_failure {
	size_t group;
	char *run_id;
	int iteration;
	char *what;          /* "iteration" or the workload label */
	char *error;
	char *console_tail;  /* may be NULL */
};

struct cmp_group {
	char *name;
	size_t *inputs;      /* indices into the inputs */
	size_t ninputs;
	int ok, failed, warmup; /* iterations */
	int boot_retries;    /* failed boots tried again (results.json boot_retries) */
	char *retry_kinds;   /* the kernel trouble those boots showed, or NULL */
	int sampled, busy;   /* iterations with host_noise, and those flagged busy */
	double busy_max_pct, busy_threshold; /* the most other processes used; threshold */
	char busy_who[256];  /* that iteration's busiest processes (hostnoise_busiest_text) */
	double score;        /* geometric mean of oriented ratios vs baseline (> 1 better) */
	int score_n;         /* metrics in it */
};

struct comparison {
	uint32_t seed;
	int reps;
	const struct cmp_inputs *in;  /* borrowed */
	struct cmp_group *g;
	size_t ng, base;
	struct cmp_metric *m;
	size_t nm;
	struct cmp_latency *lat;
	size_t nlat;
	struct cmp_lockstat *locks;
	size_t nlocks;
	struct cmp_failure *fail;
	size_t nfail;
	struct strvec warnings;
	char *suite;
	char *accel;
	char *timing;                 /* the guests' clock: "wall" or "instructions" */
	int icount_shift;             /* instructions: -icount shift= */
	char created[32];
	json_object *campaign;        /* campaign.json, owned; NULL when none */
	const char *trends_html;      /* borrowed: the nightly trend section (trend.h); NULL: none */
	const char *seed_roles;       /* borrowed from the options (stats/seed.h) */
	/* Lab runs over several devices: the devices are blocks. When the
	 * baseline ran on a device of every variant, each value is scaled by
	 * (the baseline's center over the devices) / (the baseline's center on
	 * its device), per metric, so the devices' own levels are neither in
	 * the spread nor in the differences; values on a device without the
	 * baseline are dropped (counted, warned). */
	struct strvec blocks;         /* the devices seen */
	int blocked;                  /* values scaled as above */
	size_t dropped;               /* values dropped: no baseline on their device */
};

/*
 * Check the inputs belong together (suite and its parameters, host, guest,
 * accelerator) and compute everything. Different suites, hosts or guests
 * are refused (error naming file and reason, -1) unless O->force, which
 * turns them into warnings. Returns 0 or -1.
 */
int comparison_build(struct comparison *c, const struct cmp_inputs *in,
		     const struct cmp_opts *o);
void comparison_release(struct comparison *c);

/* comparison.json as a document (owned by the caller). */
json_object *comparison_to_json(const struct comparison *c);
/* The summary table, for a terminal. */
void comparison_print(const struct comparison *c, FILE *f);

/* Helpers shared with report.c and regress.c. */
/* Has any cell of C (of metric M, with NG groups) within-boot spreads
 * (runs with repeats)? */
int cmp_has_within(const struct comparison *c);
int cmp_metric_within(const struct cmp_metric *m, size_t ng);
/* The mean within-boot CV of CELL (NAN without repeats). */
double cmp_within_cv(const struct cmp_cell *cell);
/* The first metric named NAME of a label running WORKLOAD; NULL if none. */
const struct cmp_metric *cmp_find(const struct comparison *c, const char *workload,
				  const char *name);
/* The histogram of LABEL, NULL if none. */
const struct cmp_latency *cmp_find_latency(const struct comparison *c, const char *label);
/* A number as people read it: 4 significant digits, no exponent below 1e7. */
void cmp_fmt_num(char *buf, size_t len, double v);
/* A smallest detectable effect as "12%", or "-" when it is not defined
 * (a baseline whose mean is 0, such as a count that stayed 0). */
void cmp_fmt_mde(char *buf, size_t len, double mde);
/* A string value of the first input of group G at "obj.key" (NULL if none). */
const char *cmp_group_str(const struct comparison *c, size_t g, const char *obj, const char *key);

#endif
