/* cmd_bisect.c - `kbench bisect`: git bisect driven step by step, each
 * commit built (content cache, ccache), booted and measured by a normal
 * `kbench run` (KSRC set to the tree), judged against the good end's
 * samples by `kbench regress`'s rules (stats/regress.c).
 *
 * kbench drives `git bisect start/good/bad/skip` itself rather than
 * `git bisect run`: the judge then keeps its state (the good end's
 * samples, the noise loop, state.json) in one process, an interruption
 * is seen here and always ends in `git bisect reset`, and nothing of
 * kbench has to be invoked by git through a shell. Every git call is an
 * argv vector; refs are validated with rev-parse --verify REF^{commit}
 * and only full commit ids reach `git bisect`.
 *
 * A step: regressed beyond the threshold with significance = bad;
 * unchanged or better = good, and so is a step too noisy for regress's
 * CV limit whose 95% interval of the change stays below the threshold
 * (it cannot be as bad as the bad end); too noisy = another batch of iterations
 * up to --max-iterations, then skip; no results (build or boot failed) =
 * skip with the reason. Steps are recorded in
 * REPORTS/bisect/ID/state.json as they finish; --resume ID replays the
 * bisection and reuses every finished measurement.
 */
#include "cli/cmd_bisect.h"

#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/jsonutil.h"
#include "cli/runopts.h"
#include "core/spawn.h"
#include "stats/compare.h"
#include "stats/regress.h"

struct bisect {
	const char *tree, *good, *bad, *variant, *suite, *metric, *threshold, *id, *reports;
	const char *target, *lab; /* where the steps run (NULL: QEMU here) */
	const char *timing;   /* --timing for every step (default auto; NULL in a
			       * bisection resumed from before it was kept: wall) */
	int iterations, max_iterations;
	char good_sha[41], bad_sha[41];
	char dir[KB_PATH_MAX], state_path[KB_PATH_MAX], self[KB_PATH_MAX];
	json_object *state;   /* owned: options, steps, counts */
	char orig[300];        /* HEAD before: a branch (refs/heads/..) or a commit */
	int bisecting;         /* git bisect start ran */
	time_t t0;
	double minutes_before; /* of earlier sessions (resume) */
};

/* A step's judgement. */
struct verdict {
	const char *what;    /* "good", "bad", "skip" */
	double center, rel, lo, hi, p;
	char reason[512];
};

static const char bisect_usage[] =
	"usage: kbench bisect --tree DIR --good REF --bad REF --variant FILE|NAME\n"
	"         --metric WORKLOAD.METRIC [--threshold PCT (5%)] [--suite S (quick)]\n"
	"         [--iterations N (5)] [--max-iterations M (3N)] [--id ID] [--reports DIR]\n"
	"         [--target NAME | --lab FILE]   (where each step runs; default QEMU here)\n"
	"         [--timing wall|instructions|auto]   (the steps' clock; default auto: QEMU's\n"
	"         instruction counter without KVM, whose figures a busy host does not move)\n"
	"       kbench bisect --resume ID [--reports DIR]\n"
	"exit: 0 the first bad commit was named, 1 none could be (or the ends do not\n"
	"differ), 2 bad input or harness error; see docs/bisect.md\n";

/* git -C TREE ARGS... (NULL-terminated, at most 8) into OUT (may be NULL):
 * its exit status, or -1. */
static int git(const struct bisect *b, struct strbuf *out, const char *a0, const char *a1,
	       const char *a2, const char *a3, const char *a4)
{
	const char *argv[] = { "git", "-C", b->tree, a0, a1, a2, a3, a4, NULL };
	struct child c = CHILD_INIT;
	int r;
	for (int i = 0; argv[i]; i++)
		strvec_push(&c.argv, argv[i]);
	c.capture = 1;
	c.timeout_s = 600;
	/* Ctrl-C never cuts git in half: a checkout killed midway leaves the
	 * tree with HEAD moved and files not, which git bisect reset then
	 * refuses to leave (seen in make bisect-test) */
	c.whole = 1;
	r = child_run(&c);
	if (out && c.out.len)
		sb_add(out, c.out.buf, c.out.len);
	child_release(&c);
	return r;
}

/* REF as a full commit id into SHA; error names the ref. */
static int resolve_ref(const struct bisect *b, const char *opt, const char *ref, char sha[41])
{
	struct strbuf out = STRBUF_INIT, spec = STRBUF_INIT;
	int r = -1;
	if (!*ref || ref[0] == '-') {
		error("%s '%s': not a commit", opt, ref);
		goto out;
	}
	sb_addf(&spec, "%s^{commit}", ref);
	if (git(b, &out, "rev-parse", "--verify", "--quiet", spec.buf, "--") != 0 &&
	    git(b, &out, "rev-parse", "--verify", "--quiet", spec.buf, NULL) != 0) {
		error("%s '%s': not a commit in %s", opt, ref, b->tree);
		goto out;
	}
	rtrim(out.buf);
	if (strlen(out.buf) != 40) {
		error("%s '%s': git rev-parse said '%s'", opt, ref, out.buf);
		goto out;
	}
	memcpy(sha, out.buf, 41);
	r = 0;
out:
	sb_release(&out);
	sb_release(&spec);
	return r;
}

/* The tree: a git work tree, clean (tracked files), no bisection running. */
static int check_tree(const struct bisect *b)
{
	struct strbuf out = STRBUF_INIT;
	char p[KB_PATH_MAX];
	int r = -1;
	if (git(b, &out, "rev-parse", "--is-inside-work-tree", NULL, NULL, NULL) != 0 ||
	    strncmp(out.buf, "true", 4)) {
		error("--tree '%s': not a git work tree", b->tree);
		goto out;
	}
	sb_reset(&out);
	if (git(b, &out, "status", "--porcelain", "--untracked-files=no", NULL, NULL) != 0) {
		error("--tree '%s': git status failed", b->tree);
		goto out;
	}
	if (out.len) {
		error("--tree '%s' has uncommitted changes; commit or stash them first "
		      "(git bisect checks commits out):\n%s", b->tree, out.buf);
		goto out;
	}
	sb_reset(&out);
	if (git(b, &out, "rev-parse", "--git-path", "BISECT_START", NULL, NULL) == 0) {
		rtrim(out.buf);
		snprintf(p, sizeof(p), "%s%s%s", out.buf[0] == '/' ? "" : b->tree,
			 out.buf[0] == '/' ? "" : "/", out.buf);
		if (path_exists(p)) {
			error("--tree '%s': a git bisect is already running there (git bisect reset)",
			      b->tree);
			goto out;
		}
	}
	r = 0;
out:
	sb_release(&out);
	return r;
}

/* Remember HEAD (its branch, or its commit) to go back to at the end. */
static int save_head(struct bisect *b)
{
	struct strbuf out = STRBUF_INIT;
	int r = 0;
	if (git(b, &out, "symbolic-ref", "-q", "--short", "HEAD", NULL) != 0 || !out.buf) {
		sb_reset(&out);
		r = git(b, &out, "rev-parse", "HEAD", NULL, NULL, NULL) != 0 || !out.buf;
	}
	if (!r) {
		rtrim(out.buf);
		snprintf(b->orig, sizeof(b->orig), "%s", out.buf);
	}
	sb_release(&out);
	return r ? error("--tree '%s': cannot read HEAD", b->tree) : 0;
}

/* The work tree at SHA (the ends are measured before git bisect starts). */
static int checkout(struct bisect *b, const char *sha)
{
	struct strbuf out = STRBUF_INIT;
	int r = 0;
	if (git(b, &out, "rev-parse", "HEAD", NULL, NULL, NULL) == 0 && out.buf &&
	    !strncmp(out.buf, sha, 40))
		goto out;
	sb_reset(&out);
	if (git(b, &out, "checkout", "-q", "--detach", sha, NULL) != 0)
		r = error("git checkout %s in %s failed: %s", sha, b->tree, or_empty(out.buf));
out:
	sb_release(&out);
	return r;
}

/* The step record of SHA in the state, created when CREATE. */
static json_object *step_of(struct bisect *b, const char *sha, int create)
{
	json_object *steps = jget(b->state, "steps"), *s;
	for (size_t i = 0; i < json_object_array_length(steps); i++) {
		s = json_object_array_get_idx(steps, i);
		if (!strcmp(or_empty(jstr(s, "commit")), sha))
			return s;
	}
	if (!create)
		return NULL;
	s = json_object_new_object();
	jset_str(s, "commit", sha);
	jset(s, "runs", json_object_new_array());
	json_object_array_add(steps, s);
	return s;
}

static int save_state(struct bisect *b)
{
	jset_num(b->state, "minutes", b->minutes_before + difftime(time(NULL), b->t0) / 60);
	return json_save(b->state_path, b->state);
}

static void bump(struct bisect *b, const char *key)
{
	jset_int(b->state, key, json_object_get_int(jget(b->state, key)) + 1);
}

/* One more batch of iterations of SHA: `kbench run` with KSRC=tree, its
 * run directory appended to STEP's runs. 0 measured, 1 no results (build
 * or boot failed: WHY filled), -1 interrupted or could not start. */
static int measure(struct bisect *b, const char *sha, json_object *step, char *why, size_t whylen)
{
	json_object *runs = jget(step, "runs");
	char runid[256], iters[16], log[KB_PATH_MAX], rdir[KB_PATH_MAX], res[KB_PATH_MAX];
	struct child c = CHILD_INIT;
	int st;
	snprintf(runid, sizeof(runid), "bisect-%s-%.12s-%zu", b->id, sha,
		 json_object_array_length(runs) + 1);
	snprintf(iters, sizeof(iters), "%d", b->iterations);
	snprintf(log, sizeof(log), "%s/%s.log", b->dir, runid);
	snprintf(rdir, sizeof(rdir), "%s/runs/%s", b->reports, runid);
	{
		const char *a[] = { b->self, "run", "--kernel", b->variant, "--suite", b->suite,
				    "--iterations", iters, "--reports", b->reports, "--run-id", runid };
		for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++)
			strvec_push(&c.argv, a[i]);
	}
	if (b->target) {
		strvec_push(&c.argv, "--target");
		strvec_push(&c.argv, b->target);
	}
	if (b->lab) {
		strvec_push(&c.argv, "--lab");
		strvec_push(&c.argv, b->lab);
	}
	if (b->timing) {
		strvec_push(&c.argv, "--timing");
		strvec_push(&c.argv, b->timing);
	}
	strvec_pushf(&c.env, "KSRC=%s", b->tree);
	c.stdout_path = c.stderr_path = log;
	info("bisect: %.12s: kbench run %s (log %s)", sha, runid, log);
	bump(b, "runs_started");
	st = child_run(&c);
	child_release(&c);
	if (kb_interrupted)
		return -1;
	snprintf(res, sizeof(res), "%s/results.json", rdir);
	if (!path_exists(res)) {
		char l[400];
		file_last_line(log, l, sizeof(l));
		snprintf(why, whylen, "kbench run exited %d without results (build or boot failed): %s",
			 st, l);
		return 1;
	}
	json_object_array_add(runs, json_object_new_string(rdir));
	return 0;
}

/* Judge the runs CUR against the good end's runs: V filled. */
static int judge(struct bisect *b, json_object *base, json_object *cur, struct verdict *v)
{
	struct cmp_opts o;
	struct cmp_inputs in = { NULL, 0 };
	struct comparison cmp;
	struct regress r;
	char rule[300];
	const char *only[] = { b->metric };
	int bad = 0, ret = -1;
	memset(&r, 0, sizeof(r));
	cmp_opts_init(&o);
	snprintf(rule, sizeof(rule), "%s=%s", b->metric, b->threshold);
	bad |= cmp_rules_add(&o.min_effect, "--threshold", rule) != 0;
	for (size_t i = 0; i < json_object_array_length(base); i++)
		bad |= cmp_inputs_add(&in, json_object_get_string(json_object_array_get_idx(base, i)),
				      "baseline") != 0;
	for (size_t i = 0; i < json_object_array_length(cur); i++)
		bad |= cmp_inputs_add(&in, json_object_get_string(json_object_array_get_idx(cur, i)),
				      "current") != 0;
	o.baseline = "baseline";
	o.force = 1;
	if (bad || comparison_build(&cmp, &in, &o)) {
		snprintf(v->reason, sizeof(v->reason), "the runs could not be compared");
		goto out;
	}
	regress_judge(&cmp, only, 1, &r);
	v->what = "skip";
	snprintf(v->reason, sizeof(v->reason), "metric %s not measured", b->metric);
	for (size_t i = 0; i < r.n; i++) {
		const struct regress_case *k = &r.v[i];
		if (k->metric < 0)
			continue;
		const struct cmp_metric *m = &cmp.m[k->metric];
		const struct cmp_cell *x = &m->cell[cmp.base == 0 ? 1 : 0];
		v->center = x->center;
		v->rel = x->rel, v->lo = x->rel_lo, v->hi = x->rel_hi;
		v->p = x->have_test ? x->welch.p : NAN;
		v->what = k->status == REG_REGRESSED ? "bad" :
			  k->status == REG_PASS || k->status == REG_IMPROVED ? "good" :
			  k->status == REG_NOISY ? "noisy" : "skip";
		snprintf(v->reason, sizeof(v->reason), "%s", k->message);
		/* too noisy for kbench regress's CV limit, but the interval
		 * rules out a change as bad as the threshold: good. (The
		 * other way round a significant change beyond the threshold
		 * is already "regressed", noisy or not.) */
		if (!strcmp(v->what, "noisy") && regress_rules_out(m, x)) {
			v->what = "good";
			snprintf(v->reason, sizeof(v->reason), "%s; its 95%% interval rules out a "
				 "regression of %.0f%%", k->message, m->min_effect * 100);
		}
		break;
	}
	ret = 0;
	regress_release(&r);
	comparison_release(&cmp);
out:
	cmp_inputs_release(&in);
	cmp_opts_release(&o);
	return ret;
}

static void record(json_object *step, const struct verdict *v)
{
	jset_str(step, "verdict", v->what);
	jset_str(step, "reason", v->reason);
	jset(step, "center", isfinite(v->center) ? jnum(v->center) : NULL);
	jset(step, "change", isfinite(v->rel) ? jnum(v->rel) : NULL);
	jset(step, "ci_lo", isfinite(v->lo) ? jnum(v->lo) : NULL);
	jset(step, "ci_hi", isfinite(v->hi) ? jnum(v->hi) : NULL);
	jset(step, "p", isfinite(v->p) ? jnum(v->p) : NULL);
}

/* The verdict on SHA (ROLE "good", "bad" or "step"): from the state when
 * it was reached before, else measured (more batches while too noisy).
 * 0 with V filled, -1 interrupted or harness error. */
static int step(struct bisect *b, const char *sha, const char *role, struct verdict *v)
{
	json_object *s = step_of(b, sha, 1), *base;
	struct strbuf subj = STRBUF_INIT;
	int r;
	memset(v, 0, sizeof(*v));
	v->center = v->rel = v->lo = v->hi = v->p = NAN;
	if (jstr(s, "verdict")) {
		v->what = jstr(s, "verdict");
		info("bisect: %.12s: %s (recorded: %s)", sha, v->what, or_empty(jstr(s, "reason")));
		return 0;
	}
	jset_str(s, "role", role);
	if (git(b, &subj, "show", "-s", "--format=%s", sha, NULL) == 0 && subj.buf) {
		rtrim(subj.buf);
		jset_str(s, "subject", subj.buf);
	}
	sb_release(&subj);
	for (;;) {
		int have = (int)json_object_array_length(jget(s, "runs")) * b->iterations;
		if (have < b->iterations || (!strcmp(or_empty(v->what), "noisy") &&
					     have + b->iterations <= b->max_iterations)) {
			if (checkout(b, sha))
				return -1;
			r = measure(b, sha, s, v->reason, sizeof(v->reason));
			if (r < 0)
				return -1;
			if (r > 0) {
				v->what = "skip";
				break;
			}
		}
		if (!strcmp(role, "good")) {
			v->what = "good";
			snprintf(v->reason, sizeof(v->reason), "the good end: the baseline");
			break;
		}
		base = jget(step_of(b, b->good_sha, 1), "runs");
		if (judge(b, base, jget(s, "runs"), v))
			return -1;
		have = (int)json_object_array_length(jget(s, "runs")) * b->iterations;
		if (strcmp(v->what, "noisy") || have + b->iterations > b->max_iterations)
			break;
		info("bisect: %.12s: too noisy after %d iterations, measuring more", sha, have);
		save_state(b);
	}
	if (!strcmp(v->what, "noisy"))
		v->what = "skip";
	record(s, v);
	info("bisect: %.12s: %s: %s", sha, v->what, v->reason);
	return save_state(b);
}

/* The first bad commit of git bisect's OUT: its details in the state. */
static void record_culprit(struct bisect *b, const char *out)
{
	const char *p = strstr(out, " is the first bad commit"), *q = p;
	struct strbuf subj = STRBUF_INIT, stat = STRBUF_INIT;
	char sha[41];
	while (q > out && q[-1] != '\n')
		q--;
	snprintf(sha, sizeof(sha), "%.*s", (int)(p - q) < 40 ? (int)(p - q) : 40, q);
	json_object *c = json_object_new_object();
	jset_str(c, "commit", sha);
	if (git(b, &subj, "show", "-s", "--format=%s", sha, NULL) == 0 && subj.buf) {
		rtrim(subj.buf);
		jset_str(c, "subject", subj.buf);
	}
	if (git(b, &stat, "show", "--stat", "--format=", sha, NULL) == 0 && stat.buf) {
		rtrim(stat.buf);
		jset_str(c, "diffstat", stat.buf);
	}
	jset(b->state, "first_bad", c);
	sb_release(&subj);
	sb_release(&stat);
}

/* git bisect from the two ends to the end: KB_EXIT_OK culprit named,
 * _FAILED not (the range left in the state), _USAGE error/interrupted. */
static int bisect_loop(struct bisect *b)
{
	struct strbuf out = STRBUF_INIT, head = STRBUF_INIT;
	struct verdict v;
	int ret = KB_EXIT_USAGE, st;
	/* git bisect records the branch to go back to: HEAD as the user left it */
	if (git(b, &out, "checkout", "-q", b->orig, NULL, NULL) != 0) {
		error("git checkout %s in %s failed: %s", b->orig, b->tree, or_empty(out.buf));
		goto out;
	}
	sb_reset(&out);
	b->bisecting = 1;
	st = git(b, &out, "bisect", "start", b->bad_sha, b->good_sha, "--");
	for (;;) {
		if (out.buf && strstr(out.buf, " is the first bad commit")) {
			record_culprit(b, out.buf);
			ret = KB_EXIT_OK;
			break;
		}
		if (out.buf && strstr(out.buf, "only 'skip'ped commits left")) {
			const char *p = strstr(out.buf, "could be any of:");
			jset_str(b->state, "remaining", p ? p + strlen("could be any of:") : out.buf);
			jset_str(b->state, "why_none", "the commits left could not be judged "
				 "(skipped: build or boot failed, or too noisy): see the steps");
			ret = KB_EXIT_FAILED;
			break;
		}
		if (st != 0) {
			error("git bisect failed in %s:\n%s", b->tree, or_empty(out.buf));
			break;
		}
		sb_reset(&head);
		if (git(b, &head, "rev-parse", "HEAD", NULL, NULL, NULL) != 0 || !head.buf) {
			error("git rev-parse HEAD failed in %s", b->tree);
			break;
		}
		rtrim(head.buf);
		if (step(b, head.buf, "step", &v))
			break;
		sb_reset(&out);
		st = git(b, &out, "bisect", v.what, head.buf, NULL, NULL);
	}
out:
	sb_release(&out);
	sb_release(&head);
	return ret;
}

/* The git bisect log into DIR/bisect.log, git bisect reset, and HEAD back
 * where it was: after success, failure, refusal or an interruption. */
static void bisect_finish(struct bisect *b)
{
	struct strbuf out = STRBUF_INIT;
	char p[KB_PATH_MAX];
	int sig = kb_interrupted;
	kb_interrupted = 0; /* the cleanup runs even after Ctrl-C */
	snprintf(p, sizeof(p), "%s/bisect.log", b->dir);
	if (b->bisecting) {
		if (git(b, &out, "bisect", "log", NULL, NULL, NULL) == 0 && out.buf)
			write_file_atomic(p, out.buf, out.len);
		sb_reset(&out);
		if (git(b, &out, "bisect", "reset", NULL, NULL, NULL) != 0)
			warning("git bisect reset in %s failed: %s", b->tree, or_empty(out.buf));
		sb_reset(&out);
	}
	if (b->orig[0] && git(b, &out, "checkout", "-q", b->orig, NULL, NULL) != 0)
		warning("git checkout %s in %s failed: %s", b->orig, b->tree, or_empty(out.buf));
	sb_release(&out);
	kb_interrupted = sig;
}

enum { B_TREE = 1, B_GOOD, B_BAD, B_VARIANT, B_SUITE, B_METRIC, B_THRESHOLD, B_ITER, B_MAXITER,
       B_ID, B_REPORTS, B_RESUME, B_TARGET, B_LAB, B_TIMING, B_HELP };

static int parse_opts(int argc, char **argv, struct bisect *b, const char **resume)
{
	static const struct option longopts[] = {
		{ "tree", required_argument, NULL, B_TREE }, { "good", required_argument, NULL, B_GOOD },
		{ "bad", required_argument, NULL, B_BAD }, { "variant", required_argument, NULL, B_VARIANT },
		{ "suite", required_argument, NULL, B_SUITE }, { "metric", required_argument, NULL, B_METRIC },
		{ "threshold", required_argument, NULL, B_THRESHOLD },
		{ "iterations", required_argument, NULL, B_ITER },
		{ "max-iterations", required_argument, NULL, B_MAXITER },
		{ "id", required_argument, NULL, B_ID }, { "reports", required_argument, NULL, B_REPORTS },
		{ "resume", required_argument, NULL, B_RESUME }, { "help", no_argument, NULL, B_HELP },
		{ "target", required_argument, NULL, B_TARGET }, { "lab", required_argument, NULL, B_LAB },
		{ "timing", required_argument, NULL, B_TIMING },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case B_TREE: b->tree = optarg; break;
		case B_GOOD: b->good = optarg; break;
		case B_BAD: b->bad = optarg; break;
		case B_VARIANT: b->variant = optarg; break;
		case B_SUITE: b->suite = optarg; break;
		case B_METRIC: b->metric = optarg; break;
		case B_THRESHOLD: b->threshold = optarg; break;
		case B_ID: b->id = optarg; break;
		case B_REPORTS: b->reports = optarg; break;
		case B_RESUME: *resume = optarg; break;
		case B_TARGET: b->target = optarg; break;
		case B_LAB: b->lab = optarg; break;
		case B_TIMING: {
			enum timing t;
			if (timing_parse(optarg, &t))
				return -1;
			b->timing = optarg;
			break;
		}
		case B_ITER:
			if (parse_int_opt("--iterations", optarg, 2, 1000, &b->iterations))
				return -1;
			break;
		case B_MAXITER:
			if (parse_int_opt("--max-iterations", optarg, 2, 10000, &b->max_iterations))
				return -1;
			break;
		case B_HELP:
			fputs(bisect_usage, stdout);
			return 1;
		default:
			error("unknown option '%s'", argv[optind - 1]);
			fputs(bisect_usage, stderr);
			return -1;
		}
	}
	if (optind < argc)
		return error("unexpected argument '%s'", argv[optind]);
	return 0;
}

/* An id is a file name: letters, digits, '.', '_', '-'. */
static int valid_id(const char *id)
{
	if (!*id || id[0] == '.' || strlen(id) > 64)
		return 0;
	for (const char *p = id; *p; p++)
		if (!(isalnum((unsigned char)*p) || *p == '.' || *p == '_' || *p == '-'))
			return 0;
	return 1;
}

#define KEEP_STR(key, field)                                                          \
	do {                                                                          \
		if (resume)                                                           \
			b->field = jstr(b->state, key);                               \
		else                                                                  \
			jset_str(b->state, key, b->field);                            \
	} while (0)

/* The state: a new one from the options, or --resume's from its file.
 * 0 or -1 (message printed). */
static int load_state(struct bisect *b, const char *resume)
{
	b->id = resume ? resume : b->id;
	if (!valid_id(b->id))
		return error("bisection id '%s': only letters, digits, '.', '_' and '-'", b->id);
	snprintf(b->dir, sizeof(b->dir), "%s/bisect/%s", b->reports, b->id);
	snprintf(b->state_path, sizeof(b->state_path), "%s/state.json", b->dir);
	if (resume) {
		b->state = json_object_from_file(b->state_path);
		if (!b->state || !jget(b->state, "steps"))
			return error("--resume %s: no bisection state in %s", resume, b->state_path);
		b->iterations = json_object_get_int(jget(b->state, "iterations"));
		b->max_iterations = json_object_get_int(jget(b->state, "max_iterations"));
		b->minutes_before = json_object_get_double(jget(b->state, "minutes"));
	} else {
		if (!b->tree || !b->good || !b->bad || !b->variant || !b->metric) {
			fputs(bisect_usage, stderr);
			return error("--tree, --good, --bad, --variant and --metric are needed");
		}
		if (path_exists(b->state_path))
			return error("bisection '%s' exists (%s): --resume %s, or another --id", b->id,
				     b->state_path, b->id);
		if (mkdir_p(b->dir, 0755))
			return -1;
		b->state = json_object_new_object();
		jset(b->state, "steps", json_object_new_array());
		jset_int(b->state, "iterations", b->iterations);
		jset_int(b->state, "max_iterations", b->max_iterations);
	}
	KEEP_STR("tree", tree);
	KEEP_STR("good", good);
	KEEP_STR("bad", bad);
	KEEP_STR("variant", variant);
	KEEP_STR("suite", suite);
	KEEP_STR("metric", metric);
	KEEP_STR("threshold", threshold);
	KEEP_STR("target", target);
	KEEP_STR("lab", lab);
	KEEP_STR("timing", timing);
	jset_str(b->state, "id", b->id);
	json_object_object_del(b->state, "first_bad");
	json_object_object_del(b->state, "remaining");
	if (!b->tree || !b->good || !b->bad || !b->variant || !b->metric || !b->suite ||
	    !b->threshold || b->iterations < 2)
		return error("%s: incomplete bisection state", b->state_path);
	return 0;
}

/* --target / --lab: one of them, a file that loads (before any build). */
static int check_where(const struct bisect *b)
{
	if (b->target && b->lab)
		return error("--target and --lab: the steps run on one machine or on a lab, not both");
	return runopts_where_loads(b->target, b->lab);
}

/* The answer on the terminal, as bisect.md opens: the first bad commit
 * (or why none), the cost, where the report is. */
static void bisect_print_summary(const struct bisect *b)
{
	json_object *fb = jget(b->state, "first_bad");
	if (fb)
		printf("bisect %s: first bad commit %s %s\n%s\n", b->id, or_empty(jstr(fb, "commit")),
		       or_empty(jstr(fb, "subject")), or_empty(jstr(fb, "diffstat")));
	else if (jstr(b->state, "why_none"))
		printf("bisect %s: no single commit named: %s%s%s\n", b->id,
		       jstr(b->state, "why_none"), jstr(b->state, "remaining") ? "; left:" : "",
		       or_empty(jstr(b->state, "remaining")));
	printf("bisect %s: %d kbench runs, %.1f minutes; report %s/bisect.md\n", b->id,
	       json_object_get_int(jget(b->state, "runs_started")),
	       json_object_get_double(jget(b->state, "minutes")), b->dir);
}

/* Both ends measured; the bad one must be significantly worse beyond the
 * threshold. KB_EXIT_OK to bisect, else the exit code. */
static int check_ends(struct bisect *b)
{
	struct verdict g, v;
	if (step(b, b->good_sha, "good", &g) || step(b, b->bad_sha, "bad", &v))
		return KB_EXIT_USAGE;
	if (strcmp(g.what, "good"))
		return error("the good end %s could not be measured: %s", b->good, g.reason), KB_EXIT_USAGE;
	if (!strcmp(v.what, "bad"))
		return KB_EXIT_OK;
	jset_str(b->state, "why_none", "the ends do not differ significantly beyond the threshold");
	error("refusing to bisect: %s (%.12s) is not significantly worse than %s (%.12s) by more "
	      "than %s in %s: %s", b->bad, b->bad_sha, b->good, b->good_sha, b->threshold, b->metric,
	      v.reason);
	return KB_EXIT_FAILED;
}

int cmd_bisect(int argc, char **argv)
{
	struct bisect b = { .suite = "quick", .timing = "auto", .threshold = "5%", .reports = "reports",
			    .iterations = 5 };
	const char *resume = NULL;
	char idbuf[64];
	int ret = KB_EXIT_USAGE, r;
	time_t now = time(NULL);
	b.t0 = now;
	strftime(idbuf, sizeof(idbuf), "%Y%m%d-%H%M%S", gmtime(&now));
	b.id = idbuf;
	if ((r = parse_opts(argc, argv, &b, &resume)))
		return r > 0 ? KB_EXIT_OK : KB_EXIT_USAGE;
	if (!b.max_iterations)
		b.max_iterations = 3 * b.iterations;
	if (b.max_iterations < b.iterations)
		return error("--max-iterations %d is below --iterations %d", b.max_iterations,
			     b.iterations), KB_EXIT_USAGE;
	/* a new bisection's --target/--lab before its directory, a resumed one's from its state */
	if ((!resume && check_where(&b)) || load_state(&b, resume) || (resume && check_where(&b)))
		goto out;
	ssize_t n = readlink("/proc/self/exe", b.self, sizeof(b.self) - 1);
	if (n <= 0) {
		error("cannot find kbench's own executable (/proc/self/exe)");
		goto out;
	}
	b.self[n] = 0;
	if (check_tree(&b) || save_head(&b) || resolve_ref(&b, "--good", b.good, b.good_sha) ||
	    resolve_ref(&b, "--bad", b.bad, b.bad_sha))
		goto out;
	jset_str(b.state, "good_commit", b.good_sha);
	jset_str(b.state, "bad_commit", b.bad_sha);
	info("bisect %s: %s..%s in %s, %s %s, threshold %s, %d iterations a step (up to %d)", b.id,
	     b.good, b.bad, b.tree, b.variant, b.metric, b.threshold, b.iterations, b.max_iterations);
	ret = check_ends(&b);
	if (ret == KB_EXIT_OK && !kb_interrupted)
		ret = bisect_loop(&b);
	bisect_finish(&b);
	if (kb_interrupted) {
		jset_str(b.state, "why_none", "interrupted: kbench bisect --resume continues it");
		error("interrupted: the finished steps are in %s; kbench bisect --resume %s%s%s",
		      b.state_path, b.id, strcmp(b.reports, "reports") ? " --reports " : "",
		      strcmp(b.reports, "reports") ? b.reports : "");
		ret = KB_EXIT_USAGE;
	}
	jset_int(b.state, "exit", ret);
	if (save_state(&b) || bisect_write_report(b.dir, b.state))
		ret = KB_EXIT_USAGE;
	else
		bisect_print_summary(&b);
out:
	json_object_put(b.state);
	return ret;
}
