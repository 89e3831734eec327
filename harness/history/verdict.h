/* verdict.h - the nightly's per-metric verdicts (docs/nightly.md, "Verdicts"):
 * for each host, suite, variant and label.metric, tonight is judged
 * against a LEVEL (the pooled nights of the last K good nights since the
 * last accepted change), and the level of recent nights against an ANCHOR
 * (the first K good nights since that change), so a slow drift turns red
 * once its total passes the threshold. A regression is a state kept in the
 * history (table verdicts): it stays red night after night until the last
 * few nights pooled are not significantly worse than the level from before
 * it at all, or a person accepts it (table accepts). A night flagged noisy,
 * or a metric above its noise limit tonight, raises no alarm and never
 * joins a level. Every read is bounded by K (indexed), so a night costs
 * the same after years of history. */
#ifndef KBENCH_VERDICT_H
#define KBENCH_VERDICT_H

#include <stddef.h>
#include "history/history.h"

struct verdict_opts {
	int window;          /* K: good nights in the level (and in the anchor) */
	double alpha;        /* one-sided level of the tests that turn a metric red */
	double clear_alpha;  /* regressed until the pooled last clear_nights nights are
			      * not worse than the old level even at this level */
	int clear_nights;
};
void verdict_opts_init(struct verdict_opts *o);

/* Which series. */
struct verdict_key {
	const char *host_id, *suite, *variant, *label, *metric;
};

enum verdict_state { VS_OK, VS_REGRESSED, VS_NOISY };

/* A level: the pooled nights' mean, the variance of one night's mean
 * (the larger of the spread between nights and the iterations' spread
 * over their number), its degrees of freedom and its nights. */
struct verdict_level {
	double mean, var, df;
	int nights;
};

struct verdict {
	/* in: tonight's values of the metric, its direction and threshold */
	const double *v;
	size_t n;
	int better;           /* 1 higher is better, -1 lower */
	double threshold;     /* minimum relative effect, 0.03 = 3% */
	int noisy;            /* the night is flagged, or the metric is above its noise limit */
	const char *kernel;   /* tonight's kernel release (recorded with a regression) */
	/* out */
	enum verdict_state state;
	const char *kind;     /* a regression's: "step" (tonight vs the level) or "drift" (vs the anchor) */
	int fresh;            /* turned red tonight */
	int cleared;          /* back at the old level tonight */
	int improved;         /* significantly better than the level beyond the threshold */
	double mean, sd;
	struct verdict_level ref;   /* the level judged against (frozen while regressed) */
	double change, p;           /* tonight vs ref: relative change, one-sided p of worse */
	double anchor_change, anchor_p; /* the recent level vs the anchor (NAN: not tested) */
	char since[128], since_kernel[128];
	int since_seq, nights;      /* a regression's first night, and how many nights */
	char accepted[400];         /* the last accept that applies, "" none */
	char message[600];
};

/* Judge tonight (NIGHT, in the history already) for key K: fills V's out
 * part from the history. 0 or -1. */
int verdict_judge(struct history *h, const char *night, const struct verdict_key *k,
		  const struct verdict_opts *o, struct verdict *v);
/* Nights of K before NIGHT without any verdict of K before NIGHT (nights
 * recorded before history schema 3, which had no verdicts): judged in
 * order from their samples, as a nightly would have (with BETTER,
 * THRESHOLD and the nights' noisy flags; the per-metric noise limit needs
 * the comparison and is not applied), and recorded, so tonight's level,
 * anchor and "regressed since" cover them. One indexed lookup when K has
 * verdicts already. The caller holds the transaction. Nights judged, or -1. */
int verdict_backfill(struct history *h, const char *night, const struct verdict_key *k,
		     const struct verdict_opts *o, int better, double threshold);
/* Record V as NIGHT's verdict for K (the caller holds the transaction). */
int verdict_record(struct history *h, const char *night, const struct verdict_key *k,
		   const struct verdict *v);
/* 1 when a change of VARIANT's LABEL.METRIC was accepted at NIGHT or
 * later (a change point there is known), 0 if not, -1 on error. */
int verdict_accepted_since(struct history *h, const char *night, const char *variant, const char *label,
			   const char *metric);
/* "ok", "regressed" or "noisy". */
const char *verdict_state_name(enum verdict_state s);

#endif
