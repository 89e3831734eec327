/* history.c - the run history in SQLite (history.h, docs/nightly.md).
 *
 * Durability: WAL journal with synchronous=FULL, one BEGIN IMMEDIATE ..
 * COMMIT per run or night update. SQLite's journal makes a transaction
 * all or nothing across a crash of the writer (tests/integration/
 * history.sh kills one mid-write with KBENCH_HISTORY_TEST_CRASH, and
 * with a real SIGKILL in an import slowed by KBENCH_HISTORY_TEST_SLOW_MS).
 */
#include "history/history.h"
#include "stats/compare.h"
#include "core/config.h"
#include "core/jsonutil.h"
#include "run/results.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Each entry brings a database from version i to i + 1. Never edit one
 * that has shipped: add the next. */
static const char *const migrations[] = {
	/* 0 -> 1: runs and their samples */
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id TEXT NOT NULL,"
	"  host_id TEXT NOT NULL, hostname TEXT, cpu_model TEXT, cores INTEGER,"
	"  started TEXT NOT NULL, finished TEXT, status TEXT,"
	"  variant TEXT NOT NULL, kernel_release TEXT, package TEXT,"
	"  source TEXT, patch_hash TEXT, config_hash TEXT,"
	"  suite TEXT NOT NULL, accel TEXT, kbench_commit TEXT,"
	"  path TEXT, recorded TEXT NOT NULL,"
	"  UNIQUE (host_id, run_id, started));"
	"CREATE TABLE samples ("
	"  run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  iteration INTEGER NOT NULL, label TEXT NOT NULL, workload TEXT,"
	"  metric TEXT NOT NULL, unit TEXT, better INTEGER, value REAL NOT NULL);"
	"CREATE INDEX samples_run ON samples(run);"
	"CREATE INDEX runs_variant ON runs(variant, started);",
	/* 1 -> 2: nights, the night of a run, the results documents */
	"ALTER TABLE runs ADD COLUMN night TEXT;"
	"CREATE TABLE nights ("
	"  id TEXT PRIMARY KEY, started TEXT NOT NULL, finished TEXT,"
	"  host_id TEXT, suite TEXT, config TEXT, exit_code INTEGER, summary TEXT);"
	"CREATE TABLE documents ("
	"  run INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
	"  results TEXT NOT NULL);"
	"CREATE INDEX runs_night ON runs(night);"
	"CREATE INDEX samples_metric ON samples(label, metric);",
	/* 2 -> 3: nights in a numeric order (seq: the order they were recorded
	 * in, for the old ones by start then row), a noise flag per night, the
	 * per-metric verdicts with their state, accepted changes, and the
	 * indexes the nightly's reads need (verdict.c) */
	"ALTER TABLE nights ADD COLUMN seq INTEGER;"
	"UPDATE nights SET seq = (SELECT count(*) FROM nights o WHERE o.started < nights.started OR "
	"  (o.started = nights.started AND o.rowid <= nights.rowid));"
	"CREATE UNIQUE INDEX nights_seq ON nights(seq);"
	"ALTER TABLE nights ADD COLUMN noisy TEXT;"
	"CREATE TABLE verdicts ("
	"  night TEXT NOT NULL REFERENCES nights(id) ON DELETE CASCADE, seq INTEGER NOT NULL,"
	"  host_id TEXT NOT NULL, suite TEXT NOT NULL, variant TEXT NOT NULL,"
	"  label TEXT NOT NULL, metric TEXT NOT NULL, better INTEGER NOT NULL,"
	"  n INTEGER NOT NULL, mean REAL, sd REAL, state TEXT NOT NULL, kind TEXT,"
	"  since_night TEXT, since_seq INTEGER, since_kernel TEXT, nights INTEGER,"
	"  ref_nights INTEGER, ref_mean REAL, ref_var REAL, ref_df REAL,"
	"  change REAL, p REAL, anchor_change REAL, anchor_p REAL, message TEXT,"
	"  PRIMARY KEY (host_id, suite, variant, label, metric, seq));"
	"CREATE INDEX verdicts_night ON verdicts(night);"
	"CREATE TABLE accepts ("
	"  id INTEGER PRIMARY KEY, night TEXT NOT NULL REFERENCES nights(id) ON DELETE CASCADE,"
	"  seq INTEGER NOT NULL, variant TEXT, metric TEXT, reason TEXT NOT NULL, by TEXT,"
	"  at TEXT NOT NULL);"
	"CREATE INDEX accepts_seq ON accepts(seq);"
	"CREATE INDEX runs_host ON runs(host_id, suite, variant, night);",
};
#define NMIGRATIONS ((int)(sizeof(migrations) / sizeof(migrations[0])))
_Static_assert(sizeof(migrations) / sizeof(migrations[0]) == HISTORY_SCHEMA_VERSION,
	       "one migration per schema version");

static int db_error(struct history *h, const char *what)
{
	return error("history '%s': %s: %s", h->path, what, h->db ? sqlite3_errmsg(h->db) : "no database");
}

int history_exec(struct history *h, const char *sql, const char *what)
{
	char *msg = NULL;
	if (sqlite3_exec(h->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		error("history '%s': %s: %s", h->path, what, msg ? msg : "?");
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int pragma_int(struct history *h, const char *sql, int *out)
{
	sqlite3_stmt *st;
	int rc;
	if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_error(h, sql);
	rc = sqlite3_step(st);
	*out = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_error(h, sql);
}

void history_default_path(const char *reports, char *out, size_t len)
{
	const char *e = getenv("KBENCH_HISTORY");
	if (e && !strcmp(e, "off"))
		snprintf(out, len, "%s", "");
	else if (e && *e)
		snprintf(out, len, "%s", e);
	else if (reports)
		snprintf(out, len, "%s/history.sqlite", reports);
	else
		snprintf(out, len, "%s/reports/history.sqlite", kb_home());
}

int history_migrate(struct history *h, int target)
{
	int ver, app;
	if (pragma_int(h, "PRAGMA user_version", &ver) || pragma_int(h, "PRAGMA application_id", &app))
		return -1;
	if (ver > HISTORY_SCHEMA_VERSION)
		return error("history '%s' has schema version %d, newer than the %d this kbench knows: "
			     "use the kbench that wrote it (or a newer one), or another KBENCH_HISTORY",
			     h->path, ver, HISTORY_SCHEMA_VERSION);
	if (app != HISTORY_APP_ID) {
		int tables;
		if (pragma_int(h, "SELECT count(*) FROM sqlite_master", &tables))
			return -1;
		if (tables || ver)
			return error("history '%s' is not a kbench history (application_id %#x)", h->path,
				     (unsigned)app);
	}
	int from = ver;
	while (ver < target) {
		char *sql;
		int r;
		if (history_exec(h, "BEGIN IMMEDIATE", "migrate"))
			return -1;
		sql = xasprintf("%s PRAGMA user_version = %d; PRAGMA application_id = %d;",
				migrations[ver], ver + 1, HISTORY_APP_ID);
		r = history_exec(h, sql, "migrate");
		free(sql);
		if (r || history_exec(h, "COMMIT", "migrate")) {
			sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
			return error("history '%s': migration to schema version %d failed", h->path, ver + 1);
		}
		if (from)
			info("kbench: history '%s' migrated to schema version %d", h->path, ver + 1);
		ver++;
	}
	return 0;
}

int history_open(struct history *h, const char *path, int create)
{
	char dir[KB_PATH_MAX];
	int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
	memset(h, 0, sizeof(*h));
	snprintf(h->path, sizeof(h->path), "%s", path);
	if (!*path)
		return error("no history database (KBENCH_HISTORY is off)");
	if (!create && !path_exists(path))
		return error("history '%s' does not exist (a finished run creates it; or set "
			     "KBENCH_HISTORY)", path);
	snprintf(dir, sizeof(dir), "%s", path);
	if (create && mkdir_p(dirname(dir), 0755))
		return -1;
	if (sqlite3_open_v2(path, &h->db, flags, NULL) != SQLITE_OK) {
		db_error(h, "cannot open");
		history_close(h);
		return -1;
	}
	sqlite3_busy_timeout(h->db, 30000);
	sqlite3_extended_result_codes(h->db, 1);
	if (history_exec(h, "PRAGMA foreign_keys = ON", "open") ||
	    history_migrate(h, HISTORY_SCHEMA_VERSION) ||
	    history_exec(h, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL", "open")) {
		history_close(h);
		return -1;
	}
	return 0;
}

void history_close(struct history *h)
{
	if (h->db)
		sqlite3_close(h->db);
	h->db = NULL;
}

int history_check(struct history *h, FILE *out)
{
	sqlite3_stmt *st;
	int bad = 0;
	static const char *const q[] = { "PRAGMA integrity_check", "PRAGMA foreign_key_check" };
	for (int i = 0; i < 2; i++) {
		if (sqlite3_prepare_v2(h->db, q[i], -1, &st, NULL) != SQLITE_OK)
			return db_error(h, q[i]);
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *s = (const char *)sqlite3_column_text(st, 0);
			if (i == 0 && s && !strcmp(s, "ok"))
				continue;
			fprintf(out, "%s: %s\n", q[i], s ? s : "(row)");
			bad = 1;
		}
		sqlite3_finalize(st);
	}
	return bad ? -1 : 0;
}

/* ---- recording ---- */

static const char *jpath(json_object *doc, const char *obj, const char *key)
{
	return jstr(jget(doc, obj), key);
}

void history_host_id(json_object *doc, char out[17])
{
	json_object *h = jget(doc, "host"), *m = jget(h, "machine");
	char full[65];
	/* a remote machine's runs (host.target) are that machine's, whichever
	 * host drove them: its name and what its agent reported. A lab's
	 * (host.lab) are the lab's: its name alone, since its devices are a
	 * pool and a run whose kernel never booted has no facts to add */
	char *s = jstr(h, "target") ?
		xasprintf("target\n%s\n%s\n%d", jstr(h, "target"),
			  jstr(m, "cpu_model") ? jstr(m, "cpu_model") : "",
			  jget(m, "threads") ? json_object_get_int(jget(m, "threads")) : 0) :
		jstr(h, "lab") ? xasprintf("lab\n%s", jstr(h, "lab")) :
		xasprintf("%s\n%s\n%d", jstr(h, "hostname") ? jstr(h, "hostname") : "",
			  jstr(h, "cpu_model") ? jstr(h, "cpu_model") : "",
			  jget(h, "cores") ? json_object_get_int(jget(h, "cores")) : 0);
	/* instructions timing's figures are another clock's (docs/timing.md):
	 * a series of their own, never judged against wall-clock nights;
	 * wall-clock runs (and runs before timing was recorded) keep the id
	 * they always had */
	if (!strcmp(results_timing(doc), "instructions")) {
		char *t = xasprintf("%s\ntiming=instructions", s);
		free(s);
		s = t;
	}
	sha256_hex(s, strlen(s), full);
	free(s);
	memcpy(out, full, 16);
	out[16] = 0;
}

/* The source identity (Debian package and version, or the source tree)
 * and the patches' hash, from variant.package / package_version. */
static void source_identity(json_object *doc, char *src, size_t len, char *patch, size_t plen)
{
	const char *source = jpath(doc, "variant", "source");
	const char *pkg = jpath(doc, "variant", "package");
	const char *ver = jpath(doc, "variant", "package_version");
	const char *p;
	patch[0] = 0;
	if (source && !strcmp(source, "build") && pkg) {
		/* "debian:linux-source-6.12_6.12.117-1+patches:2b0f869e1f989da9" */
		p = strstr(pkg, "+patches:");
		snprintf(src, len, "%.*s", p ? (int)(p - pkg) : (int)strlen(pkg), pkg);
		if (p)
			snprintf(patch, plen, "%s", p + 9);
	} else {
		snprintf(src, len, "%s %s", pkg ? pkg : "?", ver ? ver : "?");
	}
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s && *s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

/* KBENCH_HISTORY_TEST_CRASH=N: the process kills itself (SIGKILL) after
 * writing its Nth sample row, inside the open transaction. For the test
 * that a crash mid-write loses nothing committed. */
static void test_crash_point(void)
{
	static long left = -2;
	if (left == -2) {
		const char *e = getenv("KBENCH_HISTORY_TEST_CRASH");
		left = e && *e ? atol(e) : -1;
	}
	if (left > 0 && --left == 0) {
		fprintf(stderr, "kbench: KBENCH_HISTORY_TEST_CRASH: killing myself mid-write\n");
		raise(SIGKILL);
	}
}

/* KBENCH_HISTORY_TEST_SLOW_MS=N: every run's transaction waits N ms
 * before its COMMIT, so that history.sh's real SIGKILL, sent once the
 * import has committed its first run, lands in the middle of the import
 * (a 150-run import took 0.3 s here: it finished before the kill). */
static void test_slow_point(void)
{
	static long ms = -1;
	if (ms < 0) {
		const char *e = getenv("KBENCH_HISTORY_TEST_SLOW_MS");
		ms = e && *e && atol(e) > 0 ? atol(e) : 0;
	}
	if (ms > 0)
		usleep((useconds_t)(ms > 10000 ? 10000 : ms) * 1000);
}

static int insert_samples(struct history *h, sqlite3_int64 run, json_object *doc)
{
	json_object *its = jget(doc, "iterations");
	sqlite3_stmt *st;
	int ret = 0;
	if (sqlite3_prepare_v2(h->db, "INSERT INTO samples (run, iteration, label, workload, metric, "
			       "unit, better, value) VALUES (?,?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
		return db_error(h, "prepare");
	for (size_t i = 0; its && i < json_object_array_length(its) && !ret; i++) {
		json_object *it = json_object_array_get_idx(its, i), *wls = jget(it, "workloads");
		json_object *w;
		if (json_object_get_boolean(jget(it, "warmup")) || !jstr(it, "status") ||
		    strcmp(jstr(it, "status"), "ok"))
			continue;
		for (size_t k = 0; wls && k < json_object_array_length(wls) && !ret; k++) {
			json_object *mets;
			w = json_object_array_get_idx(wls, k);
			if (!jstr(w, "status") || strcmp(jstr(w, "status"), "ok") ||
			    !(mets = jget(w, "metrics")))
				continue;
			json_object_object_foreach(mets, name, m) {
				json_object *val = jget(m, "value");
				const char *b = jstr(m, "better");
				if (!val || !(json_object_is_type(val, json_type_double) ||
					      json_object_is_type(val, json_type_int)))
					continue;
				sqlite3_reset(st);
				sqlite3_bind_int64(st, 1, run);
				sqlite3_bind_int(st, 2, jget(it, "index") ? json_object_get_int(jget(it, "index")) :
						 (int)i + 1);
				bind_text(st, 3, jstr(w, "label"));
				bind_text(st, 4, jstr(w, "workload"));
				bind_text(st, 5, name);
				bind_text(st, 6, jstr(m, "unit"));
				sqlite3_bind_int(st, 7, b && !strcmp(b, "higher") ? 1 : -1);
				sqlite3_bind_double(st, 8, json_object_get_double(val));
				if (sqlite3_step(st) != SQLITE_DONE) {
					ret = db_error(h, "insert sample");
					break;
				}
				test_crash_point();
			}
		}
	}
	sqlite3_finalize(st);
	return ret;
}

int history_record(struct history *h, json_object *doc, const char *dir, const char *night)
{
	return history_record_as(h, doc, dir, night, NULL);
}

int history_record_as(struct history *h, json_object *doc, const char *dir, const char *night,
		      const char *host_id)
{
	static const char sql[] =
		"INSERT INTO runs (run_id, host_id, hostname, cpu_model, cores, started, finished, status, "
		"variant, kernel_release, package, source, patch_hash, config_hash, suite, accel, "
		"kbench_commit, path, recorded, night) "
		"VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
		"ON CONFLICT (host_id, run_id, started) DO NOTHING";
	sqlite3_stmt *st = NULL;
	char hid[17], src[512], patch[128], now[32], absdir[KB_PATH_MAX], akey[48];
	const char *status = jstr(doc, "status");
	sqlite3_int64 run;
	int ret = -1;

	if (!status || !strcmp(status, "running"))
		return error("history: run '%s' is not finished: not recorded",
			     jstr(doc, "run_id") ? jstr(doc, "run_id") : "?");
	if (host_id)
		snprintf(hid, sizeof(hid), "%s", host_id);
	else
		history_host_id(doc, hid);
	source_identity(doc, src, sizeof(src), patch, sizeof(patch));
	iso8601_now(now, sizeof(now));
	absdir[0] = 0;
	if (dir && !realpath(dir, absdir))
		snprintf(absdir, sizeof(absdir), "%s", dir);
	if (history_exec(h, "BEGIN IMMEDIATE", "record"))
		return -1;
	if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK) {
		db_error(h, "prepare");
		goto out;
	}
	bind_text(st, 1, jstr(doc, "run_id"));
	bind_text(st, 2, hid);
	bind_text(st, 3, jpath(doc, "host", "hostname"));
	bind_text(st, 4, jpath(doc, "host", "cpu_model"));
	sqlite3_bind_int(st, 5, json_object_get_int(jget(jget(doc, "host"), "cores")));
	bind_text(st, 6, jstr(doc, "started"));
	bind_text(st, 7, jstr(doc, "finished"));
	bind_text(st, 8, status);
	bind_text(st, 9, jpath(doc, "variant", "name"));
	bind_text(st, 10, jpath(doc, "variant", "kernel_release"));
	bind_text(st, 11, jpath(doc, "variant", "package"));
	bind_text(st, 12, src);
	bind_text(st, 13, patch);
	bind_text(st, 14, jpath(doc, "variant", "config_hash"));
	bind_text(st, 15, jpath(doc, "suite", "name"));
	bind_text(st, 16, results_accel_key(doc, akey, sizeof(akey)));
	bind_text(st, 17, jpath(doc, "kbench", "commit"));
	bind_text(st, 18, absdir);
	bind_text(st, 19, now);
	bind_text(st, 20, night);
	if (sqlite3_step(st) != SQLITE_DONE) {
		db_error(h, "insert run");
		goto out;
	}
	if (!sqlite3_changes(h->db)) {
		ret = 1; /* recorded before */
		goto out;
	}
	run = sqlite3_last_insert_rowid(h->db);
	sqlite3_finalize(st);
	st = NULL;
	if (insert_samples(h, run, doc))
		goto out;
	if (sqlite3_prepare_v2(h->db, "INSERT INTO documents (run, results) VALUES (?, ?)", -1, &st,
			       NULL) != SQLITE_OK) {
		db_error(h, "prepare");
		goto out;
	}
	sqlite3_bind_int64(st, 1, run);
	bind_text(st, 2, json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
								JSON_C_TO_STRING_NOSLASHESCAPE));
	if (sqlite3_step(st) != SQLITE_DONE) {
		db_error(h, "insert document");
		goto out;
	}
	ret = 0;
	test_slow_point();
out:
	if (st)
		sqlite3_finalize(st);
	if (ret < 0) {
		sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
		return ret;
	}
	if (history_exec(h, ret == 1 ? "ROLLBACK" : "COMMIT", "commit"))
		return -1;
	return ret;
}

int history_import(struct history *h, const char *arg, const char *night, int *added, int *dups)
{
	struct cmp_inputs in = { NULL, 0 };
	int ret = 0;
	if (cmp_inputs_add(&in, arg, NULL)) {
		cmp_inputs_release(&in);
		return -1;
	}
	for (size_t i = 0; i < in.n && !ret; i++) {
		char dir[KB_PATH_MAX];
		int r;
		snprintf(dir, sizeof(dir), "%s", in.v[i].path);
		r = history_record(h, in.v[i].doc, dirname(dir), night);
		if (r < 0)
			ret = -1;
		else if (r == 1)
			(*dups)++;
		else
			(*added)++;
	}
	cmp_inputs_release(&in);
	return ret;
}

int history_record_default(const char *reports, json_object *const *docs, const char *const *dirs,
			   size_t n)
{
	struct history h;
	char path[KB_PATH_MAX];
	int ret = 0;
	history_default_path(reports, path, sizeof(path));
	if (!path[0])
		return 0;
	if (history_open(&h, path, 1))
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char *st = docs[i] ? jstr(docs[i], "status") : NULL;
		/* an interrupted run is recorded once --resume has finished it */
		if (!st || !strcmp(st, "running") || !strcmp(st, "interrupted"))
			continue;
		if (history_record(&h, docs[i], dirs[i], NULL) < 0)
			ret = -1;
	}
	history_close(&h);
	if (!ret)
		info("kbench: recorded in history %s", path);
	return ret;
}

/* ---- queries ---- */

static const char *col(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	return s ? s : "-";
}

int history_list(struct history *h, const struct history_filter *f, FILE *out)
{
	struct strbuf q = STRBUF_INIT;
	sqlite3_stmt *st = NULL;
	int ret = -1, n = 0, b = 1, rc;
	sb_adds(&q, "SELECT r.run_id, r.started, r.hostname, r.variant, r.kernel_release, r.source, "
		"r.suite, r.accel, r.night, r.status, r.config_hash, r.patch_hash");
	if (f->metric)
		sb_adds(&q, ", (SELECT group_concat(printf('%.4g', s.value), ' ') FROM samples s WHERE s.run = r.id AND "
			"(s.metric = ?1 OR s.label || '.' || s.metric = ?1 OR "
			"s.workload || '.' || s.metric = ?1)), "
			"(SELECT s.unit FROM samples s WHERE s.run = r.id AND (s.metric = ?1 OR "
			"s.label || '.' || s.metric = ?1 OR s.workload || '.' || s.metric = ?1))");
	sb_adds(&q, " FROM runs r WHERE 1");
	if (f->variant)
		sb_adds(&q, " AND r.variant = ?2");
	if (f->since)
		sb_adds(&q, " AND r.started >= ?3");
	if (f->host)
		sb_adds(&q, " AND (r.hostname = ?4 OR r.host_id = ?4)");
	if (f->suite)
		sb_adds(&q, " AND r.suite = ?5");
	if (f->night)
		sb_adds(&q, " AND r.night = ?6");
	if (f->metric)
		sb_adds(&q, " AND EXISTS (SELECT 1 FROM samples s WHERE s.run = r.id AND (s.metric = ?1 OR "
			"s.label || '.' || s.metric = ?1 OR s.workload || '.' || s.metric = ?1))");
	sb_adds(&q, " ORDER BY r.started DESC, r.id DESC");
	if (f->limit > 0)
		sb_addf(&q, " LIMIT %d", f->limit);
	if (sqlite3_prepare_v2(h->db, q.buf, -1, &st, NULL) != SQLITE_OK) {
		db_error(h, "query");
		goto out;
	}
	if (f->metric)
		sqlite3_bind_text(st, 1, f->metric, -1, SQLITE_STATIC);
	if (f->variant)
		sqlite3_bind_text(st, 2, f->variant, -1, SQLITE_STATIC);
	if (f->since)
		sqlite3_bind_text(st, 3, f->since, -1, SQLITE_STATIC);
	if (f->host)
		sqlite3_bind_text(st, 4, f->host, -1, SQLITE_STATIC);
	if (f->suite)
		sqlite3_bind_text(st, 5, f->suite, -1, SQLITE_STATIC);
	if (f->night)
		sqlite3_bind_text(st, 6, f->night, -1, SQLITE_STATIC);
	(void)b;
	fprintf(out, "%-20s %-16s %-14s %-24s %-8s %-16s %-16s %s\n", "started", "host", "variant",
		"kernel", "suite", "accel", "night", f->metric ? "values" : "source");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		fprintf(out, "%-20.20s %-16.16s %-14.14s %-24.24s %-8.8s %-16.16s %-16.16s ", col(st, 1),
			col(st, 2), col(st, 3), col(st, 4), col(st, 6), col(st, 7), col(st, 8));
		if (f->metric)
			fprintf(out, "%s %s\n", col(st, 12), col(st, 13));
		else
			fprintf(out, "%s%s%s\n", col(st, 5), sqlite3_column_text(st, 11) ? " patches " : "",
				sqlite3_column_text(st, 11) ? col(st, 11) : "");
		fprintf(out, "  run %s, %s, config %.16s\n", col(st, 0), col(st, 9), col(st, 10));
		n++;
	}
	if (rc != SQLITE_DONE) {
		db_error(h, "query");
		goto out;
	}
	fprintf(out, "%d run%s\n", n, n == 1 ? "" : "s");
	ret = 0;
out:
	if (st)
		sqlite3_finalize(st);
	sb_release(&q);
	return ret;
}

int history_list_nights(struct history *h, FILE *out)
{
	sqlite3_stmt *st;
	int rc, n = 0;
	if (sqlite3_prepare_v2(h->db, "SELECT n.id, n.started, n.finished, n.suite, n.exit_code, "
			       "(SELECT group_concat(variant, ' ') FROM runs r WHERE r.night = n.id), "
			       "n.summary, n.noisy FROM nights n ORDER BY n.seq", -1, &st, NULL) != SQLITE_OK)
		return db_error(h, "query");
	fprintf(out, "%-20s %-20s %-8s %-5s %s\n", "night", "started", "suite", "exit", "variants");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		fprintf(out, "%-20s %-20.20s %-8.8s %-5s %s\n", col(st, 0), col(st, 1), col(st, 3),
			sqlite3_column_type(st, 4) == SQLITE_NULL ? "-" : col(st, 4), col(st, 5));
		if (sqlite3_column_text(st, 6))
			fprintf(out, "  %s\n", col(st, 6));
		if (sqlite3_column_text(st, 7))
			fprintf(out, "  flagged noisy: %s\n", col(st, 7));
		n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(h, "query");
	fprintf(out, "%d night%s\n", n, n == 1 ? "" : "s");
	return 0;
}

/* SQL prepared, its parameters bound from AP as TYPES says ('s' text,
 * NULL or "" as null; 'i' int; 'd' double) in order; NULL after an error. */
static sqlite3_stmt *db_vprepare(struct history *h, const char *sql, const char *types, va_list ap)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK) {
		db_error(h, "prepare");
		return NULL;
	}
	for (int i = 1; types[i - 1]; i++) {
		if (types[i - 1] == 'i')
			sqlite3_bind_int(st, i, va_arg(ap, int));
		else if (types[i - 1] == 'd')
			sqlite3_bind_double(st, i, va_arg(ap, double));
		else
			bind_text(st, i, va_arg(ap, const char *));
	}
	return st;
}

/* db_vprepare with the parameters as arguments. */
sqlite3_stmt *history_prepare(struct history *h, const char *sql, const char *types, ...)
{
	va_list ap;
	sqlite3_stmt *st;
	va_start(ap, types);
	st = db_vprepare(h, sql, types, ap);
	va_end(ap);
	return st;
}

/* Run one writing statement SQL with its parameters (as db_vprepare).
 * 0, or -1 after an error naming WHAT. */
int history_write(struct history *h, const char *what, const char *sql, const char *types, ...)
{
	sqlite3_stmt *st;
	va_list ap;
	int rc;
	va_start(ap, types);
	st = db_vprepare(h, sql, types, ap);
	va_end(ap);
	if (!st)
		return -1;
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_error(h, what);
}

int history_night_begin(struct history *h, const char *night, const char *host_id,
			const char *suite, const char *config)
{
	char now[32];
	iso8601_now(now, sizeof(now));
	return history_write(h, "record night", "INSERT INTO nights (id, started, host_id, suite, config, "
			"seq) VALUES (?,?,?,?,?, (SELECT coalesce(max(seq), 0) + 1 FROM nights))", "sssss",
			night, now, host_id, suite, config);
}

int history_night_end(struct history *h, const char *night, int exit_code, const char *summary)
{
	char now[32];
	iso8601_now(now, sizeof(now));
	return history_write(h, "record night", "UPDATE nights SET finished = ?, exit_code = ?, "
			"summary = ? WHERE id = ?", "siss", now, exit_code, summary, night);
}

int history_night_flag_noisy(struct history *h, const char *night, const char *reason)
{
	if (history_write(h, "flag night", "UPDATE nights SET noisy = ? WHERE id = ?", "ss",
			  reason && *reason ? reason : "flagged", night))
		return -1;
	if (!sqlite3_changes(h->db))
		return error("history '%s': no night '%s' (kbench history nights lists them)", h->path, night);
	return 0;
}

/* 1 when LABEL.METRIC (split at the last '.') was recorded for VARIANT
 * (NULL: any), 0 if not, -1 on error. */
static int metric_known(struct history *h, const char *variant, const char *lm)
{
	const char *dot = strrchr(lm, '.');
	char *label;
	sqlite3_stmt *st;
	int rc;
	if (!dot || dot == lm || !dot[1])
		return 0;
	label = xasprintf("%.*s", (int)(dot - lm), lm);
	st = history_prepare(h, "SELECT 1 FROM samples s JOIN runs r ON r.id = s.run WHERE s.label = ? "
			     "AND s.metric = ? AND (?3 IS NULL OR r.variant = ?3) LIMIT 1", "sss", label,
			     dot + 1, variant);
	free(label);
	if (!st)
		return -1;
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : db_error(h, "query");
}

int history_accept(struct history *h, const char *night, const char *variant, const char *metric,
		   const char *reason, const char *by)
{
	char now[32];
	int r;
	if (!reason || !*reason)
		return error("accepting a change needs a reason (--reason TEXT): it is recorded and shown");
	if ((r = history_night_exists(h, night)) != 1)
		return r < 0 ? -1 : error("history '%s': no night '%s' (kbench history nights lists them)",
					  h->path, night);
	if (metric && (r = metric_known(h, variant, metric)) != 1)
		return r < 0 ? -1 : error("history '%s': no metric '%s'%s%s recorded (expected LABEL.METRIC, "
					  "as hackbench.time)", h->path, metric, variant ? " of variant " : "",
					  variant ? variant : "");
	iso8601_now(now, sizeof(now));
	if (history_exec(h, "BEGIN IMMEDIATE", "accept"))
		return -1;
	if (history_write(h, "accept", "INSERT INTO accepts (night, seq, variant, metric, reason, by, at) "
			  "SELECT id, seq, ?, ?, ?, ?, ? FROM nights WHERE id = ?", "ssssss", variant, metric,
			  reason, by, now, night) ||
	    history_write(h, "accept", "UPDATE nights SET summary = coalesce(summary, '') || '; accepted ' "
			  "|| coalesce(?1, 'all variants') || ' ' || coalesce(?2, 'all metrics') || ' by ' || "
			  "coalesce(?3, '?') || ' ' || ?4 || ': ' || ?5 WHERE id = ?6", "ssssss", variant, metric,
			  by, now, reason, night) ||
	    history_exec(h, "COMMIT", "accept")) {
		sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

int history_latest_night(struct history *h, const char *variant, char *out, size_t len)
{
	sqlite3_stmt *st = history_prepare(h, "SELECT n.id FROM nights n WHERE EXISTS (SELECT 1 FROM runs r "
					   "WHERE r.night = n.id AND r.variant = ?) ORDER BY n.seq DESC LIMIT 1",
					   "s", variant);
	int rc;
	if (!st)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(out, len, "%s", col(st, 0));
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? 1 : db_error(h, "query");
}

int history_night_exists(struct history *h, const char *night)
{
	sqlite3_stmt *st;
	int rc;
	if (!(st = history_prepare(h, "SELECT 1 FROM nights WHERE id = ?", "s", night)))
		return -1;
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_error(h, "query");
	return rc == SQLITE_ROW;
}

json_object *history_night_docs(struct history *h, const char *night, const char *host_id,
				const char *variant)
{
	sqlite3_stmt *st;
	json_object *arr = json_object_new_array();
	int rc;
	st = history_prepare(h, "SELECT d.results, r.run_id FROM runs r JOIN documents d ON "
			"d.run = r.id WHERE r.night = ? AND r.host_id = ? AND r.variant = ? "
			"ORDER BY r.started, r.id", "sss", night, host_id, variant);
	if (!st) {
		json_object_put(arr);
		return NULL;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_object *d = json_tokener_parse(col(st, 0));
		if (!d) {
			error("history '%s': the stored results of run '%s' do not parse", h->path, col(st, 1));
			rc = SQLITE_ERROR;
			break;
		}
		json_object_array_add(arr, d);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		if (rc != SQLITE_ERROR)
			db_error(h, "query");
		json_object_put(arr);
		return NULL;
	}
	return arr;
}

static void point_finish(struct history_point *p)
{
	double m, sd, t;
	if (!p->n) {
		p->center = p->lo = p->hi = NAN;
		return;
	}
	m = gsl_stats_mean(p->v, 1, p->n);
	p->center = p->lo = p->hi = m;
	if (p->n >= 2) {
		sd = gsl_stats_sd_m(p->v, 1, p->n, m);
		t = gsl_cdf_tdist_Pinv(0.975, (double)p->n - 1);
		p->lo = m - t * sd / sqrt((double)p->n);
		p->hi = m + t * sd / sqrt((double)p->n);
	}
}

static char *dup_col(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	return s ? xstrdup(s) : NULL;
}

int history_series(struct history *h, const char *host_id, const char *suite, const char *accel,
		   const char *variant, const char *label, const char *metric, const char *until,
		   int last, struct history_series *out)
{
	sqlite3_stmt *st;
	int rc;
	struct history_point *cur = NULL;
	memset(out, 0, sizeof(*out));
	out->variant = xstrdup(variant);
	out->label = xstrdup(label);
	out->metric = xstrdup(metric);
	out->better = -1;
	/* one point per night: a night's runs of the variant are pooled. CROSS
	 * JOIN and the unary + keep SQLite on the variant's runs (runs_host) and
	 * only their samples, never every sample of the metric in the history */
	if (sqlite3_prepare_v2(h->db,
			       "SELECT r.night, r.run_id, r.started, r.source, r.patch_hash, r.config_hash, "
			       "r.kernel_release, s.value, s.unit, s.better, n.seq FROM runs r "
			       "CROSS JOIN nights n ON n.id = r.night CROSS JOIN samples s ON s.run = r.id "
			       "WHERE r.host_id = ?1 AND r.suite = ?2 AND coalesce(r.accel, '') = ?3 "
			       "AND r.variant = ?4 AND +s.label = ?5 AND +s.metric = ?6 AND "
			       "(?7 IS NULL OR n.seq <= (SELECT seq FROM nights WHERE id = ?7)) AND "
			       "(?8 <= 0 OR n.seq >= (SELECT min(seq) FROM (SELECT DISTINCT n2.seq FROM runs r2 "
			       "JOIN nights n2 ON n2.id = r2.night WHERE r2.host_id = ?1 AND r2.suite = ?2 AND "
			       "r2.variant = ?4 AND (?7 IS NULL OR n2.seq <= (SELECT seq FROM nights WHERE id = ?7)) "
			       "ORDER BY n2.seq DESC LIMIT ?8))) "
			       "ORDER BY n.seq, r.started, r.id, s.iteration", -1, &st, NULL) != SQLITE_OK)
		return db_error(h, "prepare");
	bind_text(st, 1, host_id);
	bind_text(st, 2, suite);
	sqlite3_bind_text(st, 3, accel ? accel : "", -1, SQLITE_TRANSIENT);
	bind_text(st, 4, variant);
	bind_text(st, 5, label);
	bind_text(st, 6, metric);
	bind_text(st, 7, until);
	sqlite3_bind_int(st, 8, last);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *night = col(st, 0);
		if (!cur || strcmp(cur->night, night)) {
			out->p = xrealloc(out->p, (out->n + 1) * sizeof(*out->p));
			cur = &out->p[out->n++];
			memset(cur, 0, sizeof(*cur));
			cur->night = xstrdup(night);
			cur->run_id = dup_col(st, 1);
			cur->started = dup_col(st, 2);
			cur->source = dup_col(st, 3);
			cur->patch_hash = dup_col(st, 4);
			cur->config_hash = dup_col(st, 5);
			cur->kernel_release = dup_col(st, 6);
			cur->seq = sqlite3_column_int64(st, 10);
		}
		cur->v = xrealloc(cur->v, (cur->n + 1) * sizeof(double));
		cur->v[cur->n++] = sqlite3_column_double(st, 7);
		if (!out->unit)
			out->unit = dup_col(st, 8);
		out->better = sqlite3_column_int(st, 9) > 0 ? 1 : -1;
	}
	sqlite3_finalize(st);
	for (size_t i = 0; i < out->n; i++)
		point_finish(&out->p[i]);
	if (rc != SQLITE_DONE)
		return db_error(h, "query");
	return 0;
}

void history_series_release(struct history_series *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct history_point *p = &s->p[i];
		free(p->night);
		free(p->run_id);
		free(p->started);
		free(p->source);
		free(p->patch_hash);
		free(p->config_hash);
		free(p->kernel_release);
		free(p->v);
	}
	free(s->p);
	free(s->variant);
	free(s->label);
	free(s->metric);
	free(s->unit);
	memset(s, 0, sizeof(*s));
}
