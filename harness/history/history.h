/* history.h - every finished run in a SQLite database (docs/nightly.md):
 * who ran what where (host, variant, kernel release, source, patch and
 * config hashes, suite, accelerator), every metric of every iteration,
 * the results.json itself, and the nightly runs ("nights") with their
 * verdicts. The schema is versioned with PRAGMA user_version and migrated
 * forward on open; a database written by a newer kbench is refused.
 * Every write is one transaction: a crash loses at most the run being
 * written, never one already committed. */
#ifndef KBENCH_HISTORY_H
#define KBENCH_HISTORY_H

#include <stdio.h>
#include <json-c/json.h>
#include <sqlite3.h>
#include "core/util.h"

#define HISTORY_SCHEMA_VERSION 3
/* PRAGMA application_id: "kbch", so another program's database is refused */
#define HISTORY_APP_ID 0x6b626368

struct history {
	sqlite3 *db;
	char path[KB_PATH_MAX];
};

/*
 * Where the history lives: $KBENCH_HISTORY, else REPORTS/history.sqlite
 * (REPORTS NULL: <kbench home>/reports). Empty when KBENCH_HISTORY is
 * "off" (nothing is recorded).
 */
void history_default_path(const char *reports, char *out, size_t len);

/* Open PATH (created with its directory when CREATE), migrate it to
 * HISTORY_SCHEMA_VERSION. Refuses a newer schema and a database that is
 * not kbench's. 0 or -1 (error printed, H closed). */
int history_open(struct history *h, const char *path, int create);
void history_close(struct history *h);
/* Bring an open database to schema version TARGET (tests build old
 * databases with it). 0 or -1. */
int history_migrate(struct history *h, int target);
/* PRAGMA integrity_check and foreign_key_check; 0 when both are clean. */
int history_check(struct history *h, FILE *out);

/*
 * Record a results document (and DIR, its run directory, may be NULL) as
 * part of night NIGHT (NULL: not a nightly run). One transaction. Returns
 * 0 recorded, 1 already recorded (same host, run id and start), -1 error.
 * Only finished runs are recorded (status other than "running").
 */
int history_record(struct history *h, json_object *doc, const char *dir, const char *night);
/* history_record under HOST_ID, not the document's own (history_host_id):
 * a night's run on its remote machine whose kernel never booted, so that
 * it has no machine facts to name the machine by (kbench nightly). */
int history_record_as(struct history *h, json_object *doc, const char *dir, const char *night,
		      const char *host_id);
/* Import ARG (results.json, run directory or directory of runs, as
 * kbench compare reads them). Counts into ADDED and DUPS. 0 or -1. */
int history_import(struct history *h, const char *arg, const char *night, int *added, int *dups);
/* Record after `kbench run` or a campaign: open the default history for
 * REPORTS, record DOCS (NULL-terminated with DIRS), close. 0 or -1. */
int history_record_default(const char *reports, json_object *const *docs, const char *const *dirs,
			   size_t n);

struct history_filter {
	const char *variant, *metric, *since, *host, *suite, *night;
	int limit;
};
/* Print runs (newest last) matching F; with F->metric, that metric's
 * median per run. 0 or -1. */
int history_list(struct history *h, const struct history_filter *f, FILE *out);
/* Print the nights. */
int history_list_nights(struct history *h, FILE *out);

/* Host identity of a results document: 16 hex digits over hostname, CPU
 * model and cores (what makes runs comparable). */
void history_host_id(json_object *doc, char out[17]);

/* Nights. */
int history_night_begin(struct history *h, const char *night, const char *host_id,
			const char *suite, const char *config);
int history_night_end(struct history *h, const char *night, int exit_code, const char *summary);
/* Flag NIGHT noisy (a host-noise guard, or --noisy): its verdicts raise
 * no alarm and it never joins a reference level. 0 or -1. */
int history_night_flag_noisy(struct history *h, const char *night, const char *reason);
/* Record an accepted change (verdict.h): from NIGHT on, VARIANT (NULL: all)
 * and METRIC (label.metric; NULL: all) are judged against a level that
 * starts at NIGHT. REASON is required; BY who. 0 or -1. */
int history_accept(struct history *h, const char *night, const char *variant, const char *metric,
		   const char *reason, const char *by);
/* The latest night with a run of VARIANT, into OUT. 0, 1 none, -1 error. */
int history_latest_night(struct history *h, const char *variant, char *out, size_t len);
/* 1 if NIGHT is recorded, 0 if not, -1 on error. */
int history_night_exists(struct history *h, const char *night);
/* The results documents of VARIANT in NIGHT on HOST_ID, as a JSON array
 * (owned by the caller; empty when none). NULL on error. */
json_object *history_night_docs(struct history *h, const char *night, const char *host_id,
				const char *variant);

/* One night of a metric: every iteration's value, their centre (mean)
 * and 95% interval (t; the single value when n = 1). */
struct history_point {
	char *night, *run_id, *started, *source, *patch_hash, *config_hash, *kernel_release;
	double *v;
	size_t n;
	double center, lo, hi;
	long long seq;         /* the night's nights.seq */
};

struct history_series {
	char *variant, *label, *metric, *unit;
	int better;            /* 1 higher is better, -1 lower */
	struct history_point *p;
	size_t n;
};

/* The nightly series of LABEL.METRIC for VARIANT on HOST_ID, SUITE and
 * ACCEL, oldest night first (nights up to and including UNTIL, NULL: all;
 * only the LAST latest of them, 0: all). Nights are in the order they were
 * recorded in (nights.seq), never by their names. */
int history_series(struct history *h, const char *host_id, const char *suite, const char *accel,
		   const char *variant, const char *label, const char *metric, const char *until,
		   int last, struct history_series *out);
void history_series_release(struct history_series *s);

/* For verdict.c and the tools: SQL prepared with its parameters ('s'
 * text, NULL or "" as null; 'i' int; 'd' double); NULL after an error. */
sqlite3_stmt *history_prepare(struct history *h, const char *sql, const char *types, ...);
/* SQL without parameters (BEGIN IMMEDIATE, COMMIT); 0 or -1. */
int history_exec(struct history *h, const char *sql, const char *what);
/* One writing statement; 0, or -1 after an error naming WHAT. */
int history_write(struct history *h, const char *what, const char *sql, const char *types, ...);

#endif
