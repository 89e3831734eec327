/* verdict.c - per-metric nightly verdicts with a persisting state
 * (verdict.h, docs/nightly.md "Verdicts"). */
#include "history/verdict.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void verdict_opts_init(struct verdict_opts *o)
{
	o->window = 10;
	o->alpha = 0.003;
	o->clear_alpha = 0.2;
	o->clear_nights = 3;
}

const char *verdict_state_name(enum verdict_state s)
{
	static const char *const n[] = { "ok", "regressed", "noisy" };
	return n[s];
}

/* One recorded night of the series. */
struct vrow {
	int n;
	double mean, sd;
	int seq;
};

#define KEY_WHERE "host_id = ?1 AND suite = ?2 AND variant = ?3 AND label = ?4 AND metric = ?5"

/* Up to MAX rows of K's series chosen by WHERE_ORDER (after KEY_WHERE;
 * ?6 is tonight's seq, ?7 the accepted night's) into ROWS. Count or -1. */
static int load_rows(struct history *h, const struct verdict_key *k, const char *where_order,
		     int seq, int base, struct vrow *rows, int max)
{
	char *sql = xasprintf("SELECT n, mean, sd, seq FROM verdicts WHERE " KEY_WHERE " AND %s LIMIT %d",
			      where_order, max);
	sqlite3_stmt *st = history_prepare(h, sql, "sssssii", k->host_id, k->suite, k->variant, k->label,
					   k->metric, seq, base);
	int rc, got = 0;
	free(sql);
	if (!st)
		return -1;
	while (got < max && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		rows[got].n = sqlite3_column_int(st, 0);
		rows[got].mean = sqlite3_column_double(st, 1);
		rows[got].sd = sqlite3_column_double(st, 2);
		rows[got].seq = sqlite3_column_int(st, 3);
		got++;
	}
	sqlite3_finalize(st);
	return got;
}

/* The level of ROWS: mean of the nights' means; the variance of one
 * night's mean is the larger of their spread and the iterations' spread
 * over their number, with that estimate's degrees of freedom. */
static struct verdict_level level_of(const struct vrow *rows, int nr)
{
	struct verdict_level l = { NAN, 0, 0, 0 };
	double means[256] = { 0 }, ss = 0, nsum = 0;
	int dfw = 0;
	nr = nr < 256 ? nr : 256;
	l.nights = nr;
	for (int i = 0; i < nr; i++) {
		means[i] = rows[i].mean;
		nsum += rows[i].n;
		if (rows[i].n > 1) {
			ss += (rows[i].n - 1) * rows[i].sd * rows[i].sd;
			dfw += rows[i].n - 1;
		}
	}
	if (!nr)
		return l;
	l.mean = gsl_stats_mean(means, 1, (size_t)nr);
	if (dfw)
		l.var = ss / dfw / (nsum / nr), l.df = dfw;
	if (nr >= 2) {
		double vb = gsl_stats_variance_m(means, 1, (size_t)nr, l.mean);
		if (vb > l.var)
			l.var = vb, l.df = nr - 1;
	}
	return l;
}

/* A (KA nights) against the level R: relative change and the one-sided p
 * of "A is worse" (Welch-like, with the larger night variance). */
static void level_test(const struct verdict_level *a, const struct verdict_level *r, int better,
		       double *change, double *p)
{
	const struct verdict_level *v = a->var > r->var ? a : r;
	double worse = better > 0 ? r->mean - a->mean : a->mean - r->mean;
	double se = sqrt(v->var * (1.0 / a->nights + 1.0 / r->nights));
	*change = a->mean / r->mean - 1;
	if (!isfinite(se) || v->df < 1)
		*p = NAN;
	else if (se <= 0)
		*p = worse > 0 ? 0 : 1;
	else
		*p = gsl_cdf_tdist_Q(worse / se, v->df);
}

/* The previous verdict of the series (any state). */
struct vprev {
	int have, since_seq, nights;
	char state[16], kind[8], since[128], since_kernel[128];
	struct verdict_level ref;
};

static int load_prev(struct history *h, const struct verdict_key *k, int seq, struct vprev *p)
{
	sqlite3_stmt *st = history_prepare(h, "SELECT state, kind, since_night, since_seq, since_kernel, "
					   "nights, ref_nights, ref_mean, ref_var, ref_df FROM verdicts WHERE "
					   KEY_WHERE " AND seq < ?6 ORDER BY seq DESC LIMIT 1", "sssssi",
					   k->host_id, k->suite, k->variant, k->label, k->metric, seq);
	int rc;
	memset(p, 0, sizeof(*p));
	if (!st)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
#define TXT(i) (sqlite3_column_text(st, i) ? (const char *)sqlite3_column_text(st, i) : "")
		p->have = 1;
		snprintf(p->state, sizeof(p->state), "%s", TXT(0));
		snprintf(p->kind, sizeof(p->kind), "%s", TXT(1));
		snprintf(p->since, sizeof(p->since), "%s", TXT(2));
		p->since_seq = sqlite3_column_type(st, 3) == SQLITE_NULL ? 0 : sqlite3_column_int(st, 3);
		snprintf(p->since_kernel, sizeof(p->since_kernel), "%s", TXT(4));
#undef TXT
		p->nights = sqlite3_column_int(st, 5);
		p->ref.nights = sqlite3_column_int(st, 6);
		p->ref.mean = sqlite3_column_double(st, 7);
		p->ref.var = sqlite3_column_double(st, 8);
		p->ref.df = sqlite3_column_double(st, 9);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* The seq of the last accepted change that covers K before tonight (0:
 * none), its description into V->accepted. */
static int load_accept(struct history *h, const struct verdict_key *k, int seq, struct verdict *v)
{
	char *lm = xasprintf("%s.%s", k->label, k->metric);
	sqlite3_stmt *st = history_prepare(h, "SELECT seq, night, coalesce(by, '?'), at, reason, "
					   "coalesce(variant, 'every variant'), coalesce(metric, 'every metric') "
					   "FROM accepts WHERE seq < ?1 AND (variant IS NULL OR variant = ?2) AND "
					   "(metric IS NULL OR metric = ?3) ORDER BY seq DESC, id DESC LIMIT 1",
					   "iss", seq, k->variant, lm);
	int rc, base = 0;
	free(lm);
	v->accepted[0] = 0;
	if (!st)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		base = sqlite3_column_int(st, 0);
		snprintf(v->accepted, sizeof(v->accepted), "night %s accepted (%s, %s) by %s on %.10s: %s",
			 sqlite3_column_text(st, 1), sqlite3_column_text(st, 5), sqlite3_column_text(st, 6),
			 sqlite3_column_text(st, 2), sqlite3_column_text(st, 3), sqlite3_column_text(st, 4));
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? base : -1;
}

/* The earlier nights of K to backfill: their samples, a night at a time. */
struct bnight {
	char *night, *kernel;
	int noisy;
	double *v;
	size_t n;
};

static int backfill_load(struct history *h, const char *night, const struct verdict_key *k,
			 struct bnight **out, size_t *nout)
{
	/* as history_series: the variant's runs (runs_host), their samples only */
	sqlite3_stmt *st = history_prepare(h, "SELECT n.id, n.noisy IS NOT NULL, r.kernel_release, s.value "
					   "FROM runs r CROSS JOIN nights n ON n.id = r.night CROSS JOIN "
					   "samples s ON s.run = r.id WHERE r.host_id = ?1 AND r.suite = ?2 AND "
					   "r.variant = ?3 AND +s.label = ?4 AND +s.metric = ?5 AND n.seq < "
					   "(SELECT seq FROM nights WHERE id = ?6) ORDER BY n.seq, r.id, s.iteration",
					   "ssssss", k->host_id, k->suite, k->variant, k->label, k->metric, night);
	struct bnight *b = NULL;
	size_t n = 0;
	int rc;
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *id = (const char *)sqlite3_column_text(st, 0);
		const char *kr = (const char *)sqlite3_column_text(st, 2);
		if (!n || strcmp(b[n - 1].night, id)) {
			b = xrealloc(b, (n + 1) * sizeof(*b));
			b[n++] = (struct bnight){ xstrdup(id), xstrdup(kr ? kr : ""), sqlite3_column_int(st, 1),
						  NULL, 0 };
		}
		b[n - 1].v = xrealloc(b[n - 1].v, (b[n - 1].n + 1) * sizeof(double));
		b[n - 1].v[b[n - 1].n++] = sqlite3_column_double(st, 3);
	}
	sqlite3_finalize(st);
	*out = b;
	*nout = n;
	return rc == SQLITE_DONE ? 0 : error("history '%s': %s", h->path, sqlite3_errmsg(h->db));
}

int verdict_backfill(struct history *h, const char *night, const struct verdict_key *k,
		     const struct verdict_opts *o, int better, double threshold)
{
	sqlite3_stmt *st = history_prepare(h, "SELECT EXISTS (SELECT 1 FROM verdicts WHERE " KEY_WHERE
					   " AND seq < (SELECT seq FROM nights WHERE id = ?6))", "ssssss",
					   k->host_id, k->suite, k->variant, k->label, k->metric, night);
	struct bnight *b = NULL;
	size_t n = 0;
	int have, ret;
	if (!st)
		return -1;
	have = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
	sqlite3_finalize(st);
	if (have)
		return have < 0 ? error("history '%s': %s", h->path, sqlite3_errmsg(h->db)) : 0;
	ret = backfill_load(h, night, k, &b, &n);
	for (size_t i = 0; i < n; i++) {
		struct verdict v = { .v = b[i].v, .n = b[i].n, .better = better, .threshold = threshold,
				     .noisy = b[i].noisy, .kernel = b[i].kernel };
		if (!ret && (verdict_judge(h, b[i].night, k, o, &v) || verdict_record(h, b[i].night, k, &v)))
			ret = -1;
		free(b[i].night);
		free(b[i].kernel);
		free(b[i].v);
	}
	free(b);
	return ret ? -1 : (int)n;
}

/* Tonight's own numbers as a one-night level. */
static struct verdict_level tonight_level(struct verdict *v)
{
	struct vrow r = { (int)v->n, 0, 0, 0 };
	v->mean = v->n ? gsl_stats_mean(v->v, 1, v->n) : NAN;
	v->sd = v->n > 1 ? gsl_stats_sd_m(v->v, 1, v->n, v->mean) : 0;
	r.mean = v->mean;
	r.sd = v->sd;
	return level_of(&r, 1);
}

#define SIG(p, a) (isfinite(p) && (p) < (a))

/* A regression still open: pooled with the nights before it, is tonight
 * back at the old level? */
static int judge_regressed(struct history *h, const struct verdict_key *k, const struct verdict_opts *o,
			   int seq, const struct vprev *pr, struct verdict *v)
{
	struct vrow rows[64];
	int c = o->clear_nights < 64 ? o->clear_nights : 64, nr;
	double change, p;
	struct verdict_level pool, t = tonight_level(v);
	v->ref = pr->ref;
	snprintf(v->since, sizeof(v->since), "%s", pr->since);
	snprintf(v->since_kernel, sizeof(v->since_kernel), "%s", pr->since_kernel);
	v->since_seq = pr->since_seq;
	v->kind = !strcmp(pr->kind, "drift") ? "drift" : "step";
	level_test(&t, &v->ref, v->better, &v->change, &v->p);
	rows[0] = (struct vrow){ (int)v->n, v->mean, v->sd, seq };
	nr = load_rows(h, k, "seq < ?6 AND seq >= ?7 AND state <> 'noisy' ORDER BY seq DESC", seq,
		       pr->since_seq, rows + 1, c - 1);
	if (nr < 0)
		return -1;
	/* the noise is the old level's: a lucky night among regressed ones
	 * widens the pool's own spread, not the evidence that it is back */
	pool = level_of(rows, nr + 1);
	pool.var = v->ref.var;
	pool.df = v->ref.df;
	level_test(&pool, &v->ref, v->better, &change, &p);
	if (!v->noisy && nr + 1 >= c && !SIG(p, o->clear_alpha)) {
		v->state = VS_OK;
		v->cleared = 1;
		snprintf(v->message, sizeof(v->message), "back at its level: the last %d nights pooled are "
			 "%+.1f%% from it, not worse (p %.2g); it had regressed since night %s (kernel %s) "
			 "for %d nights", nr + 1, change * 100, p, v->since, v->since_kernel, pr->nights);
		v->since[0] = v->since_kernel[0] = 0;
		v->since_seq = 0;
		return 0;
	}
	v->state = VS_REGRESSED;
	v->nights = pr->nights + 1;
	snprintf(v->message, sizeof(v->message), "regressed since night %s (kernel %s), %d nights, not "
		 "accepted: %.4g against the level %.4g before it (%+.1f%% tonight, p %.2g; %s)", v->since,
		 v->since_kernel[0] ? v->since_kernel : "?", v->nights, v->mean, v->ref.mean,
		 v->change * 100, v->p, v->kind);
	return 0;
}

/* Red tonight: a regression begins. */
static void turn_red(struct verdict *v, const char *night, int seq, const char *kind,
		     const struct verdict_level *ref, double change, double p)
{
	v->state = VS_REGRESSED;
	v->fresh = 1;
	v->kind = kind;
	v->ref = *ref;
	v->nights = 1;
	v->since_seq = seq;
	snprintf(v->since, sizeof(v->since), "%s", night);
	snprintf(v->since_kernel, sizeof(v->since_kernel), "%s", v->kernel ? v->kernel : "?");
	snprintf(v->message, sizeof(v->message), "regressed since night %s (kernel %s), 1 night, not "
		 "accepted: %s %+.1f%% against the %s of %d nights (%.4g, p %.2g)", night, v->since_kernel,
		 !strcmp(kind, "step") ? "tonight" : "the recent level", change * 100,
		 !strcmp(kind, "step") ? "level" : "anchor", ref->nights, ref->mean, p);
}

/* No open regression: tonight against the level, the recent level against
 * the anchor. */
static int judge_ok(struct history *h, const struct verdict_key *k, const struct verdict_opts *o,
		    const char *night, int seq, int base, struct verdict *v)
{
	static const char good[] = "seq < ?6 AND seq >= ?7 AND (state = 'ok' OR (seq = ?7 AND state <> 'noisy'))";
	struct vrow ref[257], anc[256];
	int K = o->window < 256 ? o->window : 256, nr, na;
	char *w = xasprintf("%s ORDER BY seq DESC", good), *wa = xasprintf("%s ORDER BY seq ASC", good);
	struct verdict_level t = tonight_level(v);
	double sz;
	nr = load_rows(h, k, w, seq, base, ref + 1, K);
	na = nr > 0 ? load_rows(h, k, wa, seq, base, anc, K) : 0;
	free(w);
	free(wa);
	if (nr < 0 || na < 0)
		return -1;
	v->state = VS_OK;
	if (!nr) {
		snprintf(v->message, sizeof(v->message), "the level starts here (no good night before%s)",
			 base ? " since the accepted change" : "");
		return 0;
	}
	v->ref = level_of(ref + 1, nr);
	level_test(&t, &v->ref, v->better, &v->change, &v->p);
	sz = v->better > 0 ? -v->change : v->change;
	if (sz >= v->threshold && SIG(v->p, o->alpha)) {
		turn_red(v, night, seq, "step", &v->ref, v->change, v->p);
		return 0;
	}
	/* the anchor: the first K good nights, when the recent ones are others */
	if (na == K && nr == K && K >= 2 && ref[K].seq > anc[K - 1].seq) {
		struct verdict_level anchor = level_of(anc, na), recent;
		ref[0] = (struct vrow){ (int)v->n, v->mean, v->sd, seq };
		recent = level_of(ref, K);
		level_test(&recent, &anchor, v->better, &v->anchor_change, &v->anchor_p);
		sz = v->better > 0 ? -v->anchor_change : v->anchor_change;
		if (sz >= v->threshold && SIG(v->anchor_p, o->alpha)) {
			turn_red(v, night, seq, "drift", &anchor, v->anchor_change, v->anchor_p);
			return 0;
		}
	}
	sz = v->better > 0 ? -v->change : v->change;
	v->improved = -sz >= v->threshold && SIG(1 - v->p, o->alpha);
	snprintf(v->message, sizeof(v->message), "%s: %+.1f%% against the level of %d nights (%.4g, p of "
		 "worse %.2g)%s", v->improved ? "improved (reported, not a failure)" : "ok", v->change * 100,
		 nr, v->ref.mean, v->p, isfinite(v->anchor_change) ? "" : "; no anchor yet");
	if (isfinite(v->anchor_change))
		snprintf(v->message + strlen(v->message), sizeof(v->message) - strlen(v->message),
			 "; recent level %+.1f%% from the anchor", v->anchor_change * 100);
	return 0;
}

int verdict_judge(struct history *h, const char *night, const struct verdict_key *k,
		  const struct verdict_opts *o, struct verdict *v)
{
	sqlite3_stmt *st = history_prepare(h, "SELECT seq FROM nights WHERE id = ?", "s", night);
	struct vprev pr;
	int seq = 0, base;
	v->state = VS_OK;
	v->kind = NULL;
	v->fresh = v->cleared = v->improved = 0;
	v->change = v->p = v->anchor_change = v->anchor_p = NAN;
	v->ref = (struct verdict_level){ NAN, 0, 0, 0 };
	v->since[0] = v->since_kernel[0] = v->message[0] = 0;
	v->since_seq = v->nights = 0;
	if (!st)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		seq = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (!seq)
		return error("history '%s': no night '%s' to judge", h->path, night);
	if ((base = load_accept(h, k, seq, v)) < 0 || load_prev(h, k, seq, &pr))
		return -1;
	if (pr.have && pr.since_seq > base && pr.since[0]) {
		if (judge_regressed(h, k, o, seq, &pr, v))
			return -1;
	} else if (judge_ok(h, k, o, night, seq, base, v)) {
		return -1;
	}
	if (v->noisy) {
		/* no alarm, not in a level; an open regression stays open */
		int open = v->state == VS_REGRESSED && !v->fresh;
		v->state = VS_NOISY;
		v->fresh = v->cleared = v->improved = 0;
		if (!open) {
			v->since[0] = v->since_kernel[0] = 0;
			v->since_seq = v->nights = 0;
			v->kind = NULL;
		}
		snprintf(v->message, sizeof(v->message), "too noisy tonight: not judged, not part of any "
			 "level");
		if (open)
			snprintf(v->message + strlen(v->message), sizeof(v->message) - strlen(v->message),
				 "; still regressed since night %s (kernel %s), %d nights, not accepted", v->since,
				 v->since_kernel, v->nights);
	}
	return 0;
}

int verdict_record(struct history *h, const char *night, const struct verdict_key *k,
		   const struct verdict *v)
{
	sqlite3_stmt *st = history_prepare(
		h, "INSERT INTO verdicts (night, seq, host_id, suite, variant, label, metric, better, n, "
		"mean, sd, state, kind, since_night, since_seq, since_kernel, nights, ref_nights, ref_mean, "
		"ref_var, ref_df, change, p, anchor_change, anchor_p, message) SELECT id, seq, ?2, ?3, ?4, "
		"?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, nullif(?14, 0), ?15, ?16, ?17, ?18, ?19, ?20, ?21, "
		"?22, ?23, ?24, ?25 FROM nights WHERE id = ?1",
		"ssssssiiddsssisiiddddddds", night, k->host_id, k->suite, k->variant, k->label, k->metric,
		v->better, (int)v->n, v->mean, v->sd, verdict_state_name(v->state), v->kind, v->since,
		v->since_seq, v->since_kernel, v->nights, v->ref.nights, v->ref.mean, v->ref.var, v->ref.df,
		v->change, v->p, v->anchor_change, v->anchor_p, v->message);
	int rc;
	if (!st)
		return -1;
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return error("history '%s': recording the verdict of %s %s.%s: %s", h->path, k->variant,
			     k->label, k->metric, sqlite3_errmsg(h->db));
	return 0;
}

int verdict_accepted_since(struct history *h, const char *night, const char *variant, const char *label,
			   const char *metric)
{
	char *lm = xasprintf("%s.%s", label, metric);
	sqlite3_stmt *st = history_prepare(h, "SELECT 1 FROM accepts WHERE seq >= (SELECT seq FROM nights "
					   "WHERE id = ?1) AND (variant IS NULL OR variant = ?2) AND "
					   "(metric IS NULL OR metric = ?3) LIMIT 1", "sss", night, variant, lm);
	int rc;
	free(lm);
	if (!st)
		return -1;
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}
