/* cyclictest.c - timer wake-up latency (rt-tests cyclictest), optionally
 * under a hackbench background load as rteval runs it. The run keeps a
 * 1 us histogram per thread; parse turns it into min/avg/max, percentiles
 * and an overflow count, and keeps the whole histogram in results.json. */
#include "workloads/workloads.h"
#include "core/histogram.h"
#include "agent/proto.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CYCLICTEST_PATH "/usr/bin/cyclictest"
#define HACKBENCH_PATH "/usr/bin/hackbench"
#define CT_MAX_THREADS 1024
#define CT_MAX_BUCKETS 100000
/*
 * threads * histogram buckets. Bounds what parse allocates (2 MiB of
 * counts) and the guest's stdout: a histogram line is 7 bytes plus 7 per
 * thread, and each thread lists up to `histogram` overflow cycle numbers
 * (at most 12 bytes each), which must fit the agent's capture.
 */
#define CT_MAX_CELLS (1u << 18)
_Static_assert(7ull * CT_MAX_CELLS + 7ull * CT_MAX_BUCKETS + 12ull * CT_MAX_CELLS + 65536 <
	       KB_PROTO_MAX_OUTPUT, "cyclictest output may exceed the agent's capture");
/* Latencies above this (us, about 11.6 days) are garbage, not data. */
#define CT_MAX_LAT 1e12

enum ct_policy { CT_FIFO, CT_RR };
enum ct_load { CT_LOAD_NONE, CT_LOAD_HACKBENCH, CT_LOAD_KBUILD };

struct cyclictest_params {
	int threads;
	int priority;
	int interval;  /* us */
	int duration;  /* s */
	int histogram; /* buckets of 1 us */
	int policy;    /* enum ct_policy */
	int mlockall;
	int load;      /* enum ct_load */
	int load_groups;
	int load_loops;
	char load_target[OPT_STR_MAX];
};

static const char *const policies[] = { "fifo", "rr", NULL };
static const char *const loads[] = { "none", "hackbench", "kbuild", NULL };

#define P(f) offsetof(struct cyclictest_params, f)
static const struct opt_def cyclictest_opts[] = {
	{ "threads", OPT_INT, P(threads), 1, CT_MAX_THREADS, NULL,
	  "measuring threads (default: one per vCPU)" },
	{ "priority", OPT_INT, P(priority), 1, 99, NULL,
	  "real-time priority of the measuring threads (-p)" },
	{ "interval", OPT_INT, P(interval), 10, 1000000, NULL,
	  "wake-up interval in us (-i); 1000 suits TCG guests" },
	{ "duration", OPT_INT, P(duration), 1, 86400, NULL,
	  "run time in seconds (-D)" },
	{ "histogram", OPT_INT, P(histogram), 1, CT_MAX_BUCKETS, NULL,
	  "histogram buckets of 1 us (-h); slower wake-ups count as overflows" },
	{ "policy", OPT_ENUM, P(policy), 0, 0, policies,
	  "scheduling policy of the measuring threads (--policy)" },
	{ "mlockall", OPT_BOOL, P(mlockall), 0, 0, NULL,
	  "lock memory to avoid page faults (-m)" },
	{ "load", OPT_ENUM, P(load), 0, 0, loads,
	  "background load, restarted until cyclictest ends (rteval style)" },
	{ "load_groups", OPT_INT, P(load_groups), 1, 100, NULL,
	  "hackbench groups of the background load" },
	{ "load_loops", OPT_INT, P(load_loops), 1, 1000000, NULL,
	  "hackbench loops of one background load run" },
	{ "load_target", OPT_STRING, P(load_target), 0, 0, NULL,
	  "kbuild load: what make builds (defconfig, one job per vCPU), over and over" },
	OPT_END
};
#undef P

/* One thread per vCPU at priority 95 (rteval's), 10 s at 1 ms, no load. */
static void cyclictest_defaults(void *params, int vcpus)
{
	struct cyclictest_params *p = params;
	p->threads = vcpus < 1 ? 1 : vcpus > CT_MAX_THREADS ? CT_MAX_THREADS : vcpus;
	p->priority = 95;
	p->interval = 1000;
	p->duration = 10;
	p->histogram = 10000;
	p->policy = CT_FIFO;
	p->mlockall = 1;
	p->load = CT_LOAD_NONE;
	p->load_groups = 2;
	p->load_loops = 100;
	snprintf(p->load_target, sizeof(p->load_target), "kernel/");
}

/* The histogram must stay within CT_MAX_CELLS. */
static int cyclictest_check(const void *params, char *err, size_t errlen)
{
	const struct cyclictest_params *p = params;
	if ((unsigned long long)p->threads * (unsigned long long)p->histogram > CT_MAX_CELLS) {
		snprintf(err, errlen, "threads * histogram must be at most %u, got %d * %d",
			 CT_MAX_CELLS, p->threads, p->histogram);
		return -1;
	}
	if (p->load == CT_LOAD_KBUILD) {
		char e[200];
		if (kbuild_targets_check(p->load_target, e, sizeof(e))) {
			snprintf(err, errlen, "'load_%s", e + 1); /* "'target' ..." -> "'load_target' ..." */
			return -1;
		}
		if (strstr(p->load_target, "vmlinux")) {
			snprintf(err, errlen, "'load_target' must list directories or objects "
				 "(vmlinux would link, not compile, after the first round)");
			return -1;
		}
	}
	return 0;
}

/* cyclictest, plus hackbench for the background load. */
static int cyclictest_prepare(const void *params, struct image_needs *needs)
{
	const struct cyclictest_params *p = params;
	strvec_push(&needs->programs, CYCLICTEST_PATH);
	if (p->load == CT_LOAD_HACKBENCH)
		strvec_push(&needs->programs, HACKBENCH_PATH);
	if (p->load == CT_LOAD_KBUILD && needs->target) {
		char tree[4096];
		return kbuild_target_tree(needs, tree, sizeof(tree));
	}
	if (p->load == CT_LOAD_KBUILD) {
		char src[4096], obj[4096];
		return kbuild_disk("defconfig", KB_PREP_HOST, needs, src, sizeof(src), obj, sizeof(obj));
	}
	return 0;
}

/*
 * cyclictest -q -t N -p P --policy=X -i I -D Ds -h H [-m]: quiet, so the
 * histogram and its summary come once, at the end. The deadline is the
 * run plus 60 s for start-up and the histogram dump.
 */
static int cyclictest_command(const void *params, struct guest_cmd *cmd)
{
	const struct cyclictest_params *p = params;

	strvec_push(&cmd->argv, CYCLICTEST_PATH);
	strvec_push(&cmd->argv, "-q");
	strvec_push(&cmd->argv, "-t");
	strvec_pushf(&cmd->argv, "%d", p->threads);
	strvec_push(&cmd->argv, "-p");
	strvec_pushf(&cmd->argv, "%d", p->priority);
	strvec_pushf(&cmd->argv, "--policy=%s", policies[p->policy]);
	strvec_push(&cmd->argv, "-i");
	strvec_pushf(&cmd->argv, "%d", p->interval);
	strvec_push(&cmd->argv, "-D");
	strvec_pushf(&cmd->argv, "%ds", p->duration);
	strvec_push(&cmd->argv, "-h");
	strvec_pushf(&cmd->argv, "%d", p->histogram);
	if (p->mlockall)
		strvec_push(&cmd->argv, "-m");
	if (p->load == CT_LOAD_HACKBENCH) {
		strvec_push(&cmd->bg_argv, HACKBENCH_PATH);
		strvec_push(&cmd->bg_argv, "-g");
		strvec_pushf(&cmd->bg_argv, "%d", p->load_groups);
		strvec_push(&cmd->bg_argv, "-l");
		strvec_pushf(&cmd->bg_argv, "%d", p->load_loops);
	}
	if (p->load == CT_LOAD_KBUILD) {
		/* rteval's kcompile: compile, delete the objects, and again (the
		 * agent restarts the load until cyclictest ends); in the chroot
		 * of the host's toolchain, on the kbuild disk */
		struct image_needs n = IMAGE_NEEDS_INIT;
		char src[4096], obj[4096], goals[OPT_STR_MAX], *save = NULL;
		int r;
		if (cmd->target) {
			/* a remote machine: its toolchain, the tree kbench copied
			 * there, prepared before the run into the scratch
			 * directory (kbuild_target_tree) */
			r = kbuild_target_tree(&n, src, sizeof(src));
			snprintf(obj, sizeof(obj), "%s/kcompile-obj", cmd->scratch);
			if (!r)
				kbuild_target_pre(src, "defconfig", 0, p->threads, obj, &cmd->pre_argv);
			cmd->pre_timeout_s = 1200;
			cmd->needs_scratch = 1;
		} else {
			r = kbuild_disk("defconfig", KB_PREP_HOST, &n, src, sizeof(src), obj, sizeof(obj));
			cmd->bg_in_root = 1;
		}
		strvec_clear(&n.programs);
		strvec_clear(&n.files);
		if (r)
			return -1;
		/* a fixed script; the cache paths and the goals (checked by
		 * kbuild_targets_check) are its arguments, never spliced into
		 * it: it runs as root */
		strvec_push(&cmd->bg_argv, "/bin/sh");
		strvec_push(&cmd->bg_argv, "-c");
		strvec_push(&cmd->bg_argv,
			    "src=$1 obj=$2 jobs=$3; shift 3; make -C \"$src\" O=\"$obj\" -j\"$jobs\" "
			    "\"$@\" >/dev/null 2>&1; cd \"$obj\" && find \"$@\" -name '*.o' -delete "
			    "2>/dev/null; exit 0");
		strvec_push(&cmd->bg_argv, "kcompile");
		strvec_push(&cmd->bg_argv, src);
		strvec_push(&cmd->bg_argv, obj);
		strvec_pushf(&cmd->bg_argv, "%d", p->threads);
		snprintf(goals, sizeof(goals), "%s", p->load_target);
		for (char *t = strtok_r(goals, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
			strvec_push(&cmd->bg_argv, t);
		kbuild_env(&cmd->env);
	}
	cmd->timeout_s = p->duration + 60;
	return 0;
}

/* What parse collects; arrays sized from the params, never the output. */
struct ct_hist {
	int nthreads;
	size_t nbuckets;
	uint64_t max_cycles;  /* most samples a thread can take in the run */
	uint64_t *counts;     /* [thread * nbuckets + bucket] */
	uint64_t *first, *last; /* lowest / highest non-empty bucket */
	uint64_t *total, *min, *avg, *max, *ovf;
};

/* Allocate for the run PARAMS describe. */
static void ct_hist_init(struct ct_hist *h, const struct cyclictest_params *p)
{
	size_t n = (size_t)p->threads;
	h->nthreads = p->threads;
	h->nbuckets = (size_t)p->histogram;
	/*
	 * cyclictest skips missed periods, so a thread takes at most one
	 * sample per interval; allow twice that (and 1000 more) for timer
	 * slack before calling a count garbage.
	 */
	h->max_cycles = 2ull * (unsigned long long)p->duration * 1000000ull /
			(unsigned long long)p->interval + 1000;
	h->counts = xcalloc(n * h->nbuckets, sizeof(uint64_t));
	h->first = xcalloc(n, sizeof(uint64_t));
	h->last = xcalloc(n, sizeof(uint64_t));
	h->total = xcalloc(n, sizeof(uint64_t));
	h->min = xcalloc(n, sizeof(uint64_t));
	h->avg = xcalloc(n, sizeof(uint64_t));
	h->max = xcalloc(n, sizeof(uint64_t));
	h->ovf = xcalloc(n, sizeof(uint64_t));
	for (size_t t = 0; t < n; t++)
		h->first[t] = UINT64_MAX;
}

/* Free what ct_hist_init allocated. */
static void ct_hist_release(struct ct_hist *h)
{
	free(h->counts);
	free(h->first);
	free(h->last);
	free(h->total);
	free(h->min);
	free(h->avg);
	free(h->max);
	free(h->ovf);
}

/* "000123 000004\t000000": bucket index, then one count per thread.
 * cyclictest prints every bucket, empty or not, in order. */
static int parse_bucket(struct ct_hist *h, const struct line *ln, uint64_t *next_idx,
			struct parse_error *err)
{
	size_t pos = 0;
	struct span tok;
	uint64_t idx, c;
	int t = 0;

	if (!line_token(ln, &pos, &tok) || span_u64(tok, UINT64_MAX, &idx))
		return parse_fail(err, ln->no, "bad histogram bucket '%.*s'", LINE_SHOW(ln));
	if (idx >= h->nbuckets)
		return parse_fail(err, ln->no, "histogram bucket %llu beyond the %zu requested",
				  (unsigned long long)idx, h->nbuckets);
	if (idx != *next_idx)
		return parse_fail(err, ln->no, "histogram bucket %llu out of order (expected %llu)",
				  (unsigned long long)idx, (unsigned long long)*next_idx);
	while (line_token(ln, &pos, &tok)) {
		if (t >= h->nthreads)
			return parse_fail(err, ln->no, "histogram line has more than %d counts "
					  "(one per thread)", h->nthreads);
		if (span_u64(tok, h->max_cycles, &c))
			return parse_fail(err, ln->no, "bad count '%.*s' (not a number, or more "
					  "samples than the run can take)",
					  (int)(tok.len < 24 ? tok.len : 24), tok.s);
		h->counts[(size_t)t * h->nbuckets + idx] = c;
		if (c) {
			if (h->first[t] == UINT64_MAX)
				h->first[t] = idx;
			h->last[t] = idx;
		}
		t++;
	}
	if (t != h->nthreads)
		return parse_fail(err, ln->no, "histogram line has %d counts, expected %d threads",
				  t, h->nthreads);
	*next_idx = idx + 1;
	return 0;
}

/* "# Min Latencies: 00038 00014": LABEL then one value per thread. */
static int parse_row(const struct ct_hist *h, const struct line *ln, const char *label,
		     uint64_t max, uint64_t *vals, struct parse_error *err)
{
	struct line rest = *ln;
	size_t pos = 0;
	struct span tok;
	int t = 0;

	if (!line_starts(ln, label))
		return parse_fail(err, ln->no, "expected '%s' line, got '%.*s'", label,
				  LINE_SHOW(ln));
	rest.s += strlen(label);
	rest.len -= strlen(label);
	while (line_token(&rest, &pos, &tok)) {
		if (t >= h->nthreads)
			return parse_fail(err, ln->no, "'%s' has more than %d values (threads)",
					  label, h->nthreads);
		if (span_u64(tok, max, &vals[t]))
			return parse_fail(err, ln->no, "bad value '%.*s' in '%s'",
					  (int)(tok.len < 24 ? tok.len : 24), tok.s, label);
		t++;
	}
	if (t != h->nthreads)
		return parse_fail(err, ln->no, "'%s' has %d values, expected %d threads", label, t,
				  h->nthreads);
	return 0;
}

/*
 * Cross-check the summary rows (read on lines NO[0..4]) against the
 * histogram. In cyclictest's timerthread every sample updates min, max and
 * the running sum behind avg, and lands in bucket d or, when d >= the
 * histogram size, in the overflow count.
 */
static int check_summary(const struct ct_hist *h, const int no[5], struct parse_error *err)
{
	for (int t = 0; t < h->nthreads; t++) {
		const uint64_t *c = h->counts + (size_t)t * h->nbuckets;
		uint64_t sum = 0, tot = h->total[t], ovf = h->ovf[t];
		unsigned long long mn = h->min[t], av = h->avg[t], mx = h->max[t];
		int has = h->first[t] != UINT64_MAX;

		for (size_t i = 0; i < h->nbuckets; i++)
			sum += c[i]; /* <= nbuckets * max_cycles: no overflow */
		if (!tot && !ovf)
			return parse_fail(err, no[4], "thread %d recorded no samples", t);
		if (sum != tot)
			return parse_fail(err, no[0], "thread %d: total %llu, but its histogram "
					  "holds %llu", t, (unsigned long long)tot,
					  (unsigned long long)sum);
		if (tot > h->max_cycles || ovf > h->max_cycles - tot)
			return parse_fail(err, no[4], "thread %d: %llu samples, more than the run "
					  "can take", t, (unsigned long long)tot + ovf);
		if (has ? mn != h->first[t] : mn < h->nbuckets)
			return parse_fail(err, no[1], "thread %d: minimum %llu does not match its "
					  "histogram", t, mn);
		if ((has && mx < h->last[t]) || (!ovf && mx != h->last[t]))
			return parse_fail(err, no[3], "thread %d: maximum %llu does not match its "
					  "histogram", t, mx);
		if (mn > av || av > mx)
			return parse_fail(err, no[2], "thread %d: average %llu outside min %llu and "
					  "max %llu", t, av, mn, mx);
		if (ovf && mx < h->nbuckets)
			return parse_fail(err, no[4], "thread %d: %llu overflows, but maximum %llu "
					  "fits the histogram", t, (unsigned long long)ovf, mx);
	}
	return 0;
}

/* "# Thread 0: 00003 00011 ... # 01980 others": the cycle numbers of the
 * first overflows (at most `histogram` listed), then a count of the rest. */
static int parse_outliers(const struct ct_hist *h, int t, const struct line *ln,
			  struct parse_error *err)
{
	char label[32];
	struct line rest = *ln;
	size_t pos = 0;
	struct span tok;
	uint64_t listed = 0, others = 0, v;

	snprintf(label, sizeof(label), "# Thread %d:", t);
	if (!line_starts(ln, label))
		return parse_fail(err, ln->no, "expected '%s' line, got '%.*s'", label,
				  LINE_SHOW(ln));
	rest.s += strlen(label);
	rest.len -= strlen(label);
	while (line_token(&rest, &pos, &tok)) {
		if (span_eq(tok, "#")) {
			struct line tail = rest;
			tail.s += pos;
			tail.len -= pos;
			if (line_match(&tail, "%u others", &others))
				return parse_fail(err, ln->no, "malformed overflow list of thread %d", t);
			break;
		}
		if (span_u64(tok, UINT64_MAX, &v) || listed >= h->nbuckets)
			return parse_fail(err, ln->no, "malformed overflow list of thread %d", t);
		listed++;
	}
	if (others > h->max_cycles || listed + others != h->ovf[t])
		return parse_fail(err, ln->no, "thread %d lists %llu overflows, expected %llu", t,
				  (unsigned long long)(listed + others),
				  (unsigned long long)h->ovf[t]);
	return 0;
}

/* A JSON array of N unsigned values. */
static json_object *json_u64s(const uint64_t *v, size_t n)
{
	json_object *a = json_object_new_array_ext((int)n);
	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_int64((int64_t)v[i]));
	return a;
}

/* Metrics and the whole histogram into MS. */
static void ct_emit(const struct ct_hist *h, struct metric_set *ms)
{
	uint64_t *merged = xcalloc(h->nbuckets, sizeof(uint64_t));
	uint64_t lat_min = UINT64_MAX, lat_max = 0, ovf = 0, cycles = 0;
	double wsum = 0;
	json_object *counts = json_object_new_array_ext(h->nthreads);
	json_object *x = ms->extra ? ms->extra : json_object_new_object();

	for (int t = 0; t < h->nthreads; t++) {
		const uint64_t *c = h->counts + (size_t)t * h->nbuckets;
		uint64_t n = h->total[t] + h->ovf[t];
		for (size_t i = 0; i < h->nbuckets; i++)
			merged[i] += c[i];
		if (h->min[t] < lat_min)
			lat_min = h->min[t];
		if (h->max[t] > lat_max)
			lat_max = h->max[t];
		ovf += h->ovf[t];
		cycles += n;
		wsum += (double)h->avg[t] * (double)n;
		json_object_array_add(counts, json_u64s(c, h->nbuckets));
	}
	metric_set_add(ms, "lat_min", "us", BETTER_LOWER, (double)lat_min);
	/* cyclictest's per-thread avg (sum / cycles, truncated to whole us)
	 * weighted by that thread's cycles: total plus overflows */
	metric_set_add(ms, "lat_avg", "us", BETTER_LOWER, wsum / (double)cycles);
	metric_set_add(ms, "lat_max", "us", BETTER_LOWER, (double)lat_max);
	/* cannot fail: every thread has samples and lat_max is finite */
	hist_add_percentiles(ms, merged, h->nbuckets, ovf, (double)lat_max);
	metric_set_add(ms, "overflows", "count", BETTER_LOWER, (double)ovf);

	json_object_object_add(x, "bucket_us", json_object_new_int(1));
	json_object_object_add(x, "buckets", json_object_new_int64((int64_t)h->nbuckets));
	json_object_object_add(x, "threads", json_object_new_int(h->nthreads));
	json_object_object_add(x, "counts", counts);
	json_object_object_add(x, "overflows", json_u64s(h->ovf, (size_t)h->nthreads));
	json_object_object_add(x, "min", json_u64s(h->min, (size_t)h->nthreads));
	json_object_object_add(x, "avg", json_u64s(h->avg, (size_t)h->nthreads));
	json_object_object_add(x, "max", json_u64s(h->max, (size_t)h->nthreads));
	ms->extra = x;
	free(merged);
}

static const char *const ct_rows[] = {
	"# Total:", "# Min Latencies:", "# Avg Latencies:", "# Max Latencies:",
	"# Histogram Overflows:", "# Histogram Overflow at cycle number:",
};
#define N_ROWS (sizeof(ct_rows) / sizeof(ct_rows[0]))

/*
 * Output of cyclictest -q -h H -t N (rt-tests 2.4 print_hist): '#' lines
 * ("# /dev/cpu_dma_latency set to 0us"), "# Histogram", one line per
 * bucket ("%06d" then N tab-separated counts), the rows of ct_rows with N
 * values each (the last one bare), N lines "# Thread i: ...", a blank
 * line. Everything is checked against the params and against itself.
 */
static int cyclictest_parse(const void *params, const char *out, size_t len,
			    struct metric_set *ms, struct parse_error *err)
{
	const struct cyclictest_params *p = params;
	struct ct_hist h;
	struct line_iter it;
	struct line ln;
	uint64_t next_idx = 0;
	uint64_t *rows[5];
	int row_no[5] = { 0 };
	size_t row = 0;
	int r, ret = -1, t = 0, in_hist = 0, have = 0;

	if (p->threads < 1 || p->threads > CT_MAX_THREADS || p->histogram < 1 ||
	    p->histogram > CT_MAX_BUCKETS || p->interval < 1 || p->duration < 1 ||
	    (unsigned long long)p->threads * (unsigned long long)p->histogram > CT_MAX_CELLS)
		return parse_fail(err, 0, "cyclictest parameters out of range");
	ct_hist_init(&h, p);
	rows[0] = h.total;
	rows[1] = h.min;
	rows[2] = h.avg;
	rows[3] = h.max;
	rows[4] = h.ovf;
	line_iter_init(&it, out, len);

	/* preamble and histogram */
	while ((r = line_next(&it, &ln, err)) > 0) {
		if (!in_hist) {
			if (line_starts(&ln, "# Histogram") && ln.len == strlen("# Histogram"))
				in_hist = 1;
			else if (!line_is_blank(&ln) && ln.s[0] != '#') {
				parse_fail(err, ln.no, "unexpected line before the histogram '%.*s'",
					   LINE_SHOW(&ln));
				goto out;
			}
			continue;
		}
		if (ln.len && ln.s[0] >= '0' && ln.s[0] <= '9') {
			if (parse_bucket(&h, &ln, &next_idx, err))
				goto out;
			continue;
		}
		have = 1;
		break;
	}
	if (r < 0)
		goto out;
	if (!in_hist) {
		parse_fail(err, line_iter_next_no(&it),
			   "no '# Histogram' line (cyclictest failed, or ran without -h)");
		goto out;
	}

	/* summary rows, then one overflow list per thread */
	for (;;) {
		if (!have && (r = line_next(&it, &ln, err)) <= 0) {
			if (r < 0)
				goto out;
			if (row < N_ROWS)
				parse_fail(err, line_iter_next_no(&it),
					   "output ends before '%s' (truncated)", ct_rows[row]);
			else
				parse_fail(err, line_iter_next_no(&it),
					   "output ends before '# Thread %d:' (truncated)", t);
			goto out;
		}
		have = 0;
		if (row == 0 && next_idx != h.nbuckets) {
			parse_fail(err, ln.no, "histogram ends at bucket %llu, expected %zu buckets",
				   (unsigned long long)next_idx, h.nbuckets);
			goto out;
		}
		if (row < N_ROWS - 1) {
			/* sample counts are bounded by check_summary */
			if (parse_row(&h, &ln, ct_rows[row],
				      row == 0 || row == 4 ? (uint64_t)WL_NUM_MAX : (uint64_t)CT_MAX_LAT,
				      rows[row], err))
				goto out;
			row_no[row++] = ln.no;
			if (row == N_ROWS - 1 && check_summary(&h, row_no, err))
				goto out;
		} else if (row == N_ROWS - 1) {
			if (!line_starts(&ln, ct_rows[row]) || ln.len != strlen(ct_rows[row])) {
				parse_fail(err, ln.no, "expected '%s' line, got '%.*s'", ct_rows[row],
					   LINE_SHOW(&ln));
				goto out;
			}
			row++;
		} else {
			if (parse_outliers(&h, t, &ln, err))
				goto out;
			if (++t == h.nthreads)
				break;
		}
	}

	/* only blank lines may follow */
	while ((r = line_next(&it, &ln, err)) > 0)
		if (!line_is_blank(&ln)) {
			parse_fail(err, ln.no, "unexpected line after the summary '%.*s'",
				   LINE_SHOW(&ln));
			goto out;
		}
	if (r < 0)
		goto out;
	ct_emit(&h, ms);
	ret = 0;
out:
	ct_hist_release(&h);
	return ret;
}

/* load=kbuild needs kbuild's tools too (kbench doctor lists them there) */
static const struct host_tool cyclictest_tools[] = {
	{ "cyclictest", "rt-tests", NULL },
	{ "hackbench", "rt-tests", NULL },
	{ NULL, NULL, NULL },
};

const struct workload_ops cyclictest_ops = {
	.name = "cyclictest",
	.description = "timer wake-up latency histogram, optionally under hackbench load (rt-tests)",
	.headline = "lat_p99",
	.no_repeat = "its latency histogram (extra) is one per run and a median of repeats "
		     "would not be a histogram; run more iterations instead",
	.tools = cyclictest_tools,
	.opts = cyclictest_opts,
	.params_size = sizeof(struct cyclictest_params),
	.defaults = cyclictest_defaults,
	.check = cyclictest_check,
	.prepare = cyclictest_prepare,
	.command = cyclictest_command,
	.parse = cyclictest_parse,
};
