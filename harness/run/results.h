/* results.h - the results.json document (docs/results.md). */
#ifndef KBENCH_RESULTS_H
#define KBENCH_RESULTS_H

#include <json-c/json.h>
#include "core/util.h"

#define RESULTS_SCHEMA "kbench-results"
#define RESULTS_SCHEMA_VERSION 1

struct variant;
struct kernel_image;
struct suite;

/* What a new run's document starts with. */
struct results_head {
	const char *run_id;
	json_object *host;      /* host_info() and the backend's fields; taken */
	int vcpus, mem_mb, scratch_mb;
	const struct variant *variant;
	const struct kernel_image *kernel;
	const char *cmdline;    /* the whole extra kernel command line */
	const struct suite *suite;
	int iterations;
};

/* A new run's document: status running, no iterations yet. */
json_object *results_new(const struct results_head *h);
/* A run resumed now: "resumed" gains the time, status is running again. */
void results_resumed(json_object *doc);
/* The variant's identity as the guest of iteration IJ reported it. */
void results_note_guest(json_object *doc, json_object *ij);
/* Finished now: complete, partial (FAILED) or interrupted; summarised. */
void results_finish(json_object *doc, int interrupted, int failed);

/* Write DOC to PATH atomically (temporary name, fsync, rename). */
int results_save(json_object *doc, const char *path);
/* (Re)compute doc["summary"] from the non-warm-up iterations. */
void results_summarize(json_object *doc);
/* doc["host_noise"], the run's host noise: how many non-warm-up
 * iterations were sampled and flagged busy, which, the most other
 * processes used; no key when none was sampled. results_summarize()
 * calls it. */
void results_host_noise(json_object *doc);
/* n, mean, median, min, max, stddev, cv of IN[0..n) into OUT (n >= 1). */
void stats_describe(const double *in, size_t n, json_object *out);
/* A workload's repeats inside one boot (suite key `repeat`, docs/results.md):
 * fold repeat RJ (the entry of one ok run) into WJ, the workload's entry:
 * its metrics onto repeat_metrics, its extra onto repeat_extra, its raw
 * output onto repeat_raw (raw: the first repeat's), wall_s, user_s, sys_s
 * and background_runs summed, its lock counters summed into lock_stats
 * (lock_stats_repeats: how many repeats' counters the sums hold). */
void results_repeat_add(json_object *wj, json_object *rj);
/* After the last repeat: WJ's status ok, repeats N, metrics (per metric
 * the median of the repeats) and within_boot (per metric stats_describe
 * of the repeats: n, mean, median, min, max, stddev, cv). */
void results_repeats_done(json_object *wj);
/* Iteration IJ's failed boot ATTEMPT, set aside before the next try: its
 * boot_retries list gains {attempt, error (IJ's), console (CONSOLE, the
 * failed boot's console log relative to the run directory),
 * kernel_trouble (TROUBLE, taken; NULL for none)} and, when FACTS_KEY is
 * not NULL, IJ's FACTS_KEY object (the backend's facts: lava's job),
 * moved there; IJ's status, error and console_tail go. The new entry
 * (IJ's) is returned. */
json_object *results_boot_retry(json_object *ij, int attempt, const char *console,
				json_object *trouble, const char *facts_key);
/* Check DOC against the schema; reason into ERR. */
int results_validate(json_object *doc, char *err, size_t len);
/* The guest's clock of run DOC: "instructions" (host.timing, docs/timing.md)
 * or "wall" (also a run from before it was recorded). */
const char *results_timing(json_object *doc);
/* The run's accelerator as the history and nightlies key their series
 * (host.accel, "+instructions" appended under instructions timing, so
 * the two clocks' figures never share a series and older histories keep
 * theirs): host.accel itself, or BUF (N bytes), or NULL without one. */
const char *results_accel_key(json_object *doc, char *buf, size_t n);
/* Parse and validate LEN bytes of BUF (untrusted) as a results document;
 * errors name NAME, the line and the reason. NULL when rejected. */
json_object *results_parse(const char *buf, size_t len, const char *name);
/* Read, parse and validate PATH; errors name file, line and reason. */
json_object *results_load(const char *path);

#endif
