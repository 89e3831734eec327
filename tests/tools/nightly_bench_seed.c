/* nightly_bench_seed.c - a long synthetic history written straight into
 * SQLite for `make nightly-bench` (tests/check/nightly-bench.sh): HOSTS
 * hosts x the four variants of synth-runs x NIGHTS nights, each night one
 * run per variant with 5 iterations of synth-runs' four metrics and their
 * verdict rows, in one transaction. Results documents are not stored (a
 * night reads them only for a pinned baseline night).
 *
 * With --step DAY:PCT, rt's hackbench time is PCT% higher from night DAY
 * on (every host), and its verdict rows say "regressed" for the 30 nights
 * from DAY, as if someone accepted the change then (tests/integration/
 * nightly_chart.sh draws it).
 *
 *   nightly-bench-seed DB HOSTS NIGHTS [--step DAY:PCT]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history/history.h"
#include "../unit/synth.h"

static const char *const variants[] = { "mainline", "rt", "rt-upstream", "rt-adaptive" };
/* build/synth-runs' metrics */
#define m synth_nightly
#define NM SYNTH_NIGHTLY_N

struct stmts {
	sqlite3_stmt *night, *run, *sample, *verdict;
	int step_day;           /* --step: from this night on (-1: none) */
	double step;            /* rt hackbench.time's factor from then */
};

#define STEP_REGRESSED 30   /* nights the step's verdicts say regressed */

static int step(struct history *h, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return error("%s: %s", h->path, sqlite3_errmsg(h->db));
	return 0;
}

/* One host's night: its row, a run per variant, samples and verdicts. */
static int seed_night(struct history *h, struct stmts *s, gsl_rng *r, int host, int day, int seq,
		      const char *hid)
{
	char night[32], started[32], hn[32];
	snprintf(night, sizeof(night), "h%02d-d%04d", host, day);
	snprintf(hn, sizeof(hn), "host%02d", host);
	snprintf(started, sizeof(started), "2024-%02d-%02dT01:17:%02dZ", 1 + day / 28 % 12, 1 + day % 28,
		 host);
	sqlite3_bind_text(s->night, 1, night, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s->night, 2, started, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s->night, 3, hid, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(s->night, 4, seq);
	if (step(h, s->night))
		return -1;
	for (size_t v = 0; v < 4; v++) {
		char run[64];
		sqlite3_int64 id;
		snprintf(run, sizeof(run), "%s-%s", night, variants[v]);
		sqlite3_bind_text(s->run, 1, run, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(s->run, 2, hid, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(s->run, 3, hn, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(s->run, 4, started, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(s->run, 5, variants[v], -1, SQLITE_STATIC);
		sqlite3_bind_text(s->run, 6, night, -1, SQLITE_TRANSIENT);
		if (step(h, s->run))
			return -1;
		id = sqlite3_last_insert_rowid(h->db);
		for (size_t k = 0; k < NM; k++) {
			double x[5], mean = 0, ss = 0;
			int stepped = s->step_day >= 0 && day >= s->step_day && v == 1 && k == 0;
			for (int i = 0; i < 5; i++) {
				x[i] = synth_draw(r, m[k].mean * (stepped ? s->step : 1), m[k].cv);
				mean += x[i] / 5;
				sqlite3_bind_int64(s->sample, 1, id);
				sqlite3_bind_int(s->sample, 2, i + 1);
				sqlite3_bind_text(s->sample, 3, m[k].label, -1, SQLITE_STATIC);
				sqlite3_bind_text(s->sample, 4, m[k].name, -1, SQLITE_STATIC);
				sqlite3_bind_text(s->sample, 5, m[k].unit, -1, SQLITE_STATIC);
				sqlite3_bind_int(s->sample, 6, strcmp(m[k].better, "higher") ? -1 : 1);
				sqlite3_bind_double(s->sample, 7, x[i]);
				if (step(h, s->sample))
					return -1;
			}
			for (int i = 0; i < 5; i++)
				ss += (x[i] - mean) * (x[i] - mean);
			sqlite3_bind_text(s->verdict, 1, night, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int(s->verdict, 2, seq);
			sqlite3_bind_text(s->verdict, 3, hid, -1, SQLITE_TRANSIENT);
			sqlite3_bind_text(s->verdict, 4, variants[v], -1, SQLITE_STATIC);
			sqlite3_bind_text(s->verdict, 5, m[k].label, -1, SQLITE_STATIC);
			sqlite3_bind_text(s->verdict, 6, m[k].name, -1, SQLITE_STATIC);
			sqlite3_bind_int(s->verdict, 7, strcmp(m[k].better, "higher") ? -1 : 1);
			sqlite3_bind_double(s->verdict, 8, mean);
			sqlite3_bind_double(s->verdict, 9, sqrt(ss / 4));
			sqlite3_bind_text(s->verdict, 10, stepped && day < s->step_day + STEP_REGRESSED ?
					  "regressed" : "ok", -1, SQLITE_STATIC);
			if (step(h, s->verdict))
				return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct history h;
	struct stmts s;
	gsl_rng *r;
	int hosts, nights, seq = 0, ret = 0, pct = 0;
	char (*hid)[17];
	s.step_day = -1;
	if ((argc != 4 && !(argc == 6 && !strcmp(argv[4], "--step") &&
			    sscanf(argv[5], "%d:%d", &s.step_day, &pct) == 2 && s.step_day >= 0)) ||
	    (hosts = atoi(argv[2])) < 1 || (nights = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: nightly-bench-seed DB HOSTS NIGHTS [--step DAY:PCT]\n");
		return 2;
	}
	s.step = 1 + pct / 100.0;
	if (history_open(&h, argv[1], 1) || history_exec(&h, "PRAGMA synchronous = OFF", "seed") ||
	    history_exec(&h, "BEGIN", "seed"))
		return 2;
	hid = calloc((size_t)hosts, sizeof(*hid));
	for (int i = 0; i < hosts; i++) {
		char hn[32];
		struct synth_opts o = { .variant = "rt", .iterations = 0, .host = hn };
		json_object *doc;
		snprintf(hn, sizeof(hn), "host%02d", i);
		doc = synth_doc(&o, m, 1, NULL);
		history_host_id(doc, hid[i]);
		json_object_put(doc);
	}
	s.night = history_prepare(&h, "INSERT INTO nights (id, started, finished, host_id, suite, config, "
				  "exit_code, summary, seq) VALUES (?1, ?2, ?2, ?3, 'quick', 'bench.ini', 0, "
				  "'exit 0', ?4)", "");
	s.run = history_prepare(&h, "INSERT INTO runs (run_id, host_id, hostname, cpu_model, cores, started, "
				"finished, status, variant, kernel_release, suite, accel, recorded, night) VALUES "
				"(?1, ?2, ?3, 'Synthetic CPU', 4, ?4, ?4, 'ok', ?5, '6.12.1', 'quick', 'kvm', ?4, ?6)", "");
	s.sample = history_prepare(&h, "INSERT INTO samples (run, iteration, label, workload, metric, unit, "
				   "better, value) VALUES (?1, ?2, ?3, ?3, ?4, ?5, ?6, ?7)", "");
	s.verdict = history_prepare(&h, "INSERT INTO verdicts (night, seq, host_id, suite, variant, label, "
				    "metric, better, n, mean, sd, state, nights, ref_nights) VALUES "
				    "(?1, ?2, ?3, 'quick', ?4, ?5, ?6, ?7, 5, ?8, ?9, ?10, 0, 0)", "");
	if (!s.night || !s.run || !s.sample || !s.verdict)
		return 2;
	r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 2026);
	for (int d = 0; d < nights && !ret; d++)
		for (int i = 0; i < hosts && !ret; i++)
			ret = seed_night(&h, &s, r, i, d, ++seq, hid[i]);
	sqlite3_finalize(s.night);
	sqlite3_finalize(s.run);
	sqlite3_finalize(s.sample);
	sqlite3_finalize(s.verdict);
	if (ret || history_exec(&h, "COMMIT", "seed"))
		return 2;
	printf("seeded %s: %d hosts x 4 variants x %d nights (%d nights, %d runs)\n", argv[1], hosts, nights,
	       seq, seq * 4);
	history_close(&h);
	gsl_rng_free(r);
	free(hid);
	return 0;
}
