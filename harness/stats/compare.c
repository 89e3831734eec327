/* compare.c - the comparison engine behind `kbench compare`, `report`,
 * `regress` and `campaign`: load results, refuse mixtures, group runs by
 * variant, test every metric against the baseline, merge cyclictest
 * histograms, and write comparison.json (docs/comparison.md).
 *
 * Statistical choices (each one a trade-off; docs/comparison.md says more):
 *
 * - The verdict's p-value is Welch's t-test, not Mann-Whitney U. Runs
 *   have 3 to 10 iterations per variant; the exact U test cannot reach
 *   p < 0.05 with 3 against 3 (its smallest p is 2/C(6,3) = 0.1) and
 *   barely with 4 against 4 (0.029), so it would call "no difference" on
 *   every quick run however large the effect. Welch works from 2 values a
 *   side and does not assume equal variances (RT and mainline spread
 *   differently). It assumes roughly normal means; heavy-tailed latency
 *   maxima break that, which is why tails also need a larger minimum
 *   effect, and why U is computed and reported beside it as a check.
 * - The relative difference and its interval come from a bootstrap of
 *   the ratio of means (harmonic means for rates), seeded (default 2008,
 *   recorded). Means rather than medians: with 3-10 values a resampled
 *   median takes only a handful of distinct values, so its interval is
 *   lumpy and often zero-width; the mean is also what Welch tests, so the
 *   interval and the p-value speak of the same quantity. Below 8 values
 *   a side no bootstrap can show the uncertainty: with 3 values there are
 *   10 distinct resamples, and on real smoke runs where every RT value
 *   exceeded every mainline value even the whole bootstrap range excluded
 *   0 while Welch gave p = 0.18. There the headline interval is Fieller's
 *   for the ratio of means with Welch's df, which excludes 0 exactly when
 *   Welch's p < 0.05; the (expanded percentile) bootstrap interval is
 *   still recorded beside it.
 * - Rates (MB/s) are summarised by the harmonic mean and tested on 1/x
 *   (time per unit of work), where the arithmetic mean is the right one;
 *   the overall score is the geometric mean of the variant/baseline
 *   ratios of each workload's headline metric (oriented so > 1 is better).
 * - A difference is called only when it is significant at 0.05 AND at
 *   least the metric's minimum effect (2% for throughput and times, more
 *   for latencies): significance alone would flag harmless 0.5% shifts
 *   on quiet metrics, and an effect alone would flag noise.
 */
#include "stats/compare.h"
#include "run/trouble.h"
#include "core/jsonutil.h"
#include "run/results.h"
#include "core/histogram.h"
#include "core/hostnoise.h"
#include "core/workload.h"
#include "core/machine.h"

#include <gsl/gsl_sort.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


#define MAX_BUCKETS 1000000u /* a merged histogram larger than this is garbage */

/* ---- small JSON helpers ---- */


static int jis_num(json_object *v)
{
	return v && (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double));
}


/* ---- rules ---- */

int cmp_rules_add(struct cmp_rules *r, const char *opt, const char *arg)
{
	const char *eq = strrchr(arg, '=');
	char *end;
	double v;
	if (!eq || eq == arg)
		return error("%s expects METRIC=PERCENT (e.g. time=5%%), got '%s'", opt, arg);
	errno = 0;
	v = strtod(eq + 1, &end);
	if (end == eq + 1 || errno || !isfinite(v) || v < 0)
		return error("%s: bad value in '%s'", opt, arg);
	if (*end == '%' && !end[1])
		v /= 100;
	else if (*end || v >= 1)
		return error("%s: write the value as a percentage (5%%) or a fraction (0.05), got '%s'",
			     opt, eq + 1);
	r->v = xrealloc(r->v, (r->n + 1) * sizeof(*r->v));
	r->v[r->n].pattern = xasprintf("%.*s", (int)(eq - arg), arg);
	r->v[r->n].value = v;
	r->n++;
	return 0;
}

void cmp_rules_release(struct cmp_rules *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].pattern);
	free(r->v);
	r->v = NULL;
	r->n = 0;
}

/* The value of the most specific rule matching the metric, else DEF. */
static double rule_value(const struct cmp_rules *r, const char *label, const char *workload,
			 const char *metric, double def)
{
	int best = 0;
	double v = def;
	char full[512], wm[512];
	snprintf(full, sizeof(full), "%s.%s", label, metric);
	snprintf(wm, sizeof(wm), "%s.%s", workload, metric);
	for (size_t i = 0; i < r->n; i++) {
		const char *p = r->v[i].pattern;
		int s = !strcmp(p, full) ? 3 : !strcmp(p, wm) ? 2 : !strcmp(p, metric) ? 1 : 0;
		if (s > best || (s && s == best)) { /* later rules win ties */
			best = s;
			v = r->v[i].value;
		}
	}
	return v;
}

void cmp_opts_init(struct cmp_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = STATS_DEFAULT_SEED;
	o->reps = STATS_BOOT_REPS;
}

void cmp_opts_release(struct cmp_opts *o)
{
	cmp_rules_release(&o->min_effect);
	cmp_rules_release(&o->max_cv);
}

/* ---- inputs ---- */

static int add_file(struct cmp_inputs *in, const char *path, const char *group)
{
	json_object *doc = results_load(path);
	struct cmp_input *x;
	if (!doc)
		return -1;
	in->v = xrealloc(in->v, (in->n + 1) * sizeof(*in->v));
	x = &in->v[in->n++];
	x->path = xstrdup(path);
	x->doc = doc;
	x->group = xstrdup(group ? group : jstr(jget(doc, "variant"), "name"));
	return 0;
}

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* DIR/SUB/x/results.json for every x, in name order; count found. */
static int scan_runs(struct cmp_inputs *in, const char *dir, const char *sub, const char *group,
		     int *found)
{
	char base[KB_PATH_MAX], path[KB_PATH_MAX];
	struct dirent **ents = NULL;
	int n, ret = 0;
	snprintf(base, sizeof(base), "%s%s%s", dir, *sub ? "/" : "", sub);
	if (!is_dir(base))
		return 0;
	n = scandir(base, &ents, NULL, alphasort);
	if (n < 0)
		return error("cannot read '%s': %s", base, strerror(errno));
	for (int i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s/results.json", base, ents[i]->d_name);
			if (path_exists(path)) {
				(*found)++;
				if (add_file(in, path, group))
					ret = -1;
			}
		}
		free(ents[i]);
	}
	free(ents);
	return ret;
}

int cmp_inputs_add(struct cmp_inputs *in, const char *arg, const char *group)
{
	char path[KB_PATH_MAX];
	int found = 0, ret = 0;
	if (!is_dir(arg)) {
		if (!path_exists(arg))
			return error("'%s': no such file or directory", arg);
		return add_file(in, arg, group);
	}
	snprintf(path, sizeof(path), "%s/results.json", arg);
	if (path_exists(path))
		return add_file(in, path, group);
	if (scan_runs(in, arg, "runs", group, &found) || scan_runs(in, arg, "", group, &found))
		ret = -1;
	if (!found)
		return error("'%s': no results.json in it, nor in runs/*/ or */", arg);
	return ret;
}

json_object *cmp_inputs_machine(const struct cmp_inputs *in)
{
	for (size_t i = 0; i < in->n; i++) {
		json_object *m = jget(jget(in->v[i].doc, "host"), "machine");
		if (json_object_is_type(m, json_type_object))
			return m;
	}
	return NULL;
}

void cmp_inputs_release(struct cmp_inputs *in)
{
	for (size_t i = 0; i < in->n; i++) {
		free(in->v[i].path);
		free(in->v[i].group);
		json_object_put(in->v[i].doc);
	}
	free(in->v);
	in->v = NULL;
	in->n = 0;
}

/* ---- names ---- */

const char *cmp_verdict_name(enum cmp_verdict v)
{
	static const char *const names[] = { "baseline", "same", "better", "worse", "undecided",
					      "missing" };
	return names[v];
}

const char *cmp_class_name(enum cmp_class c)
{
	static const char *const names[] = { "rate", "time", "latency", "tail" };
	return names[c];
}

/* Per class: minimum effect and noise limit (coefficient of variation). */
static const struct {
	double min_effect, max_cv;
} class_defaults[] = {
	[CMP_CLASS_RATE] = { 0.02, 0.10 },
	[CMP_CLASS_TIME] = { 0.02, 0.10 },
	[CMP_CLASS_LATENCY] = { 0.05, 0.20 },
	[CMP_CLASS_TAIL] = { 0.10, 0.30 },
};

void cmp_class_defaults(enum cmp_class c, double *min_effect, double *max_cv)
{
	*min_effect = class_defaults[c].min_effect;
	*max_cv = class_defaults[c].max_cv;
}

static enum cmp_class classify(const char *name, const char *unit)
{
	static const char *const central[] = { "lat_min", "lat_avg", "lat_p50", "lat_p90", NULL };
	size_t ul = strlen(unit);
	if (ul > 2 && !strcmp(unit + ul - 2, "/s"))
		return CMP_CLASS_RATE;
	if (!strcmp(unit, "s"))
		return CMP_CLASS_TIME;
	for (int i = 0; central[i]; i++)
		if (!strcmp(name, central[i]))
			return CMP_CLASS_LATENCY;
	return CMP_CLASS_TAIL;
}

/* ---- building ---- */

static void warnf(struct comparison *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warnf(struct comparison *c, const char *fmt, ...)
{
	va_list ap;
	char buf[1024];
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	strvec_push(&c->warnings, buf);
}

static size_t group_index(struct comparison *c, const char *name)
{
	for (size_t i = 0; i < c->ng; i++)
		if (!strcmp(c->g[i].name, name))
			return i;
	c->g = xrealloc(c->g, (c->ng + 1) * sizeof(*c->g));
	memset(&c->g[c->ng], 0, sizeof(*c->g));
	c->g[c->ng].name = xstrdup(name);
	c->g[c->ng].score = NAN;
	return c->ng++;
}

static struct cmp_metric *metric_get(struct comparison *c, const char *label,
				     const char *workload, const char *name, const char *unit,
				     const char *better)
{
	struct cmp_metric *m;
	for (size_t i = 0; i < c->nm; i++)
		if (!strcmp(c->m[i].label, label) && !strcmp(c->m[i].name, name))
			return &c->m[i];
	c->m = xrealloc(c->m, (c->nm + 1) * sizeof(*c->m));
	m = &c->m[c->nm++];
	memset(m, 0, sizeof(*m));
	m->label = xstrdup(label);
	m->workload = xstrdup(workload);
	m->name = xstrdup(name);
	m->unit = xstrdup(unit);
	m->better = better && !strcmp(better, "higher") ? 1 : -1;
	m->cell = xcalloc(c->ng, sizeof(*m->cell));
	return m;
}

static void cell_push(struct cmp_cell *cell, double v, const char *src, int blk)
{
	if (cell->n == cell->alloc) {
		cell->alloc = cell->alloc ? 2 * cell->alloc : 8;
		cell->v = xrealloc(cell->v, cell->alloc * sizeof(double));
		cell->src = xrealloc(cell->src, cell->alloc * sizeof(char *));
		cell->blk = xrealloc(cell->blk, cell->alloc * sizeof(int));
	}
	cell->v[cell->n] = v;
	cell->blk[cell->n] = blk;
	cell->src[cell->n++] = xstrdup(src);
}

/* Compare a field of two inputs; describe a difference into WHY. */
static int differs(json_object *a, json_object *b, const char *obj, const char *key, char *why,
		   size_t len)
{
	json_object *x = jget(jget(a, obj), key), *y = jget(jget(b, obj), key);
	if (json_object_equal(x, y))
		return 0;
	snprintf(why, len, "%s %s '%s' differs from '%s'", obj, key,
		 x && json_object_is_type(x, json_type_string) ? json_object_get_string(x) :
		 x ? json_object_to_json_string_ext(x, JSON_C_TO_STRING_NOSLASHESCAPE) : "null",
		 y && json_object_is_type(y, json_type_string) ? json_object_get_string(y) :
		 y ? json_object_to_json_string_ext(y, JSON_C_TO_STRING_NOSLASHESCAPE) : "null");
	return 1;
}

/* A suite workload's repeats inside one boot (absent: 1). */
static int repeat_of(json_object *sw)
{
	return jget(sw, "repeat") ? json_object_get_int(jget(sw, "repeat")) : 1;
}

/* Do A and B both have OBJ.KEY, with other values? (Older results lack
 * some keys: absence is not a difference.) */
static int both_differ(json_object *a, json_object *b, const char *obj, const char *key,
		       char *why, size_t len)
{
	return jget(jget(a, obj), key) && jget(jget(b, obj), key) && differs(a, b, obj, key, why, len);
}

/* The suites' workloads must match label by label, parameter by parameter,
 * and in their repeats. */
static int suite_differs(json_object *a, json_object *b, char *why, size_t len)
{
	json_object *wa = jget(jget(a, "suite"), "workloads"), *wb = jget(jget(b, "suite"), "workloads");
	size_t na = wa ? json_object_array_length(wa) : 0, nb = wb ? json_object_array_length(wb) : 0;
	if (na != nb) {
		snprintf(why, len, "suite has %zu workloads, not %zu", na, nb);
		return 1;
	}
	for (size_t i = 0; i < na; i++) {
		json_object *x = json_object_array_get_idx(wa, i), *y = json_object_array_get_idx(wb, i);
		const char *lx = or_empty(jstr(x, "label")), *ly = or_empty(jstr(y, "label"));
		json_object *px = jget(x, "params"), *py = jget(y, "params");
		if (strcmp(lx, ly)) {
			snprintf(why, len, "suite workload %zu is '%s', not '%s'", i + 1, lx, ly);
			return 1;
		}
		if (!json_object_equal(px, py)) {
			json_object_object_foreach(px, k, v) {
				json_object *w = jget(py, k);
				if (!json_object_equal(v, w)) {
					snprintf(why, len, "suite workload '%s' parameter %s is %s, not %s",
						 lx, k, json_object_to_json_string(v),
						 w ? json_object_to_json_string(w) : "absent");
					return 1;
				}
			}
			snprintf(why, len, "suite workload '%s' has other parameters", lx);
			return 1;
		}
		if (repeat_of(x) != repeat_of(y)) {
			snprintf(why, len, "suite workload '%s' repeat is %d, not %d", lx, repeat_of(x),
				 repeat_of(y));
			return 1;
		}
	}
	return 0;
}

/* Refuse (or with FORCE, flag) inputs that do not belong together. */
/* Did A and B run on LAVA devices, not the same one (their first
 * iterations')? */
static int lab_devices_differ(json_object *a, json_object *b)
{
	const char *da = jstr(jget(json_object_array_get_idx(jget(a, "iterations"), 0), "lava"), "device");
	const char *db = jstr(jget(json_object_array_get_idx(jget(b, "iterations"), 0), "lava"), "device");
	return da && db && strcmp(da, db);
}

static int check_inputs(struct comparison *c, const struct cmp_inputs *in, int force)
{
	static const char *const hard[][2] = {
		{ "suite", "name" }, { "host", "hostname" }, { "host", "cpu_model" },
		{ "host", "cores" }, { "host", "backend" }, { "host", "accel" }, { "guest", "vcpus" },
		{ "guest", "mem_mb" },
	};
	static const char *const soft[][2] = {
		{ "host", "qemu" }, { "host", "kernel" }, { "kbench", "version" },
	};
	json_object *first = in->v[0].doc, *m0 = cmp_inputs_machine(in);
	int bad = 0;
	char why[1024], mwhy[512];

	for (size_t i = 1; i < in->n; i++) {
		json_object *d = in->v[i].doc;
		int refused = 0;
		for (size_t k = 0; k < sizeof(hard) / sizeof(hard[0]) && !refused; k++)
			refused = differs(d, first, hard[k][0], hard[k][1], why, sizeof(why));
		if (!refused)
			refused = suite_differs(d, first, why, sizeof(why));
		/* the guests' clocks: an instruction-counted figure is a path
		 * length, a wall-clock one a time (docs/timing.md); runs from
		 * before timing was recorded are wall-clock runs */
		if (!refused && strcmp(results_timing(d), results_timing(first))) {
			snprintf(why, sizeof(why), "host timing '%s' differs from '%s' (the guests' "
				 "clocks: instruction-counted figures are not wall-clock times, "
				 "docs/timing.md)", results_timing(d), results_timing(first));
			refused = 1;
		}
		if (!refused && !strcmp(results_timing(d), "instructions") &&
		    differs(d, first, "host", "icount_shift", why, sizeof(why)))
			refused = 1;
		/* the guest's CPU model and TCG's threading change what the
		 * guest runs and how its vCPUs contend (single-threaded TCG
		 * runs them in turns: docs/reliability.md's boot study) */
		if (!refused)
			refused = both_differ(d, first, "host", "guest_cpu", why, sizeof(why)) ||
				  both_differ(d, first, "host", "tcg_thread", why, sizeof(why));
		/* named also beside another difference (an ssh run's machine
		 * beside a QEMU run's backend) */
		/* lab runs on different devices: the devices are blocks
		 * (block_align), their machines may differ */
		if (!lab_devices_differ(d, first) &&
		    machine_differs(jget(jget(d, "host"), "machine"), m0, mwhy, sizeof(mwhy))) {
			size_t l = refused ? strlen(why) : 0;
			snprintf(why + l, sizeof(why) - l, "%smachine: %s", refused ? "; " : "", mwhy);
			refused = 1;
		}
		if (refused) {
			if (force) {
				warnf(c, "mixed inputs (--force): '%s': %s of '%s'", in->v[i].path, why,
				      in->v[0].path);
			} else {
				error("'%s': %s of '%s': not comparable (--force compares anyway, flagged)",
				      in->v[i].path, why, in->v[0].path);
				bad = -1;
			}
			continue;
		}
		for (size_t k = 0; k < sizeof(soft) / sizeof(soft[0]); k++)
			if (differs(d, first, soft[k][0], soft[k][1], why, sizeof(why)))
				warnf(c, "'%s': %s of '%s'", in->v[i].path, why, in->v[0].path);
	}
	for (size_t i = 0; i < in->n; i++) {
		const char *st = or_empty(jstr(in->v[i].doc, "status"));
		if (!strcmp(st, "running") || !strcmp(st, "interrupted"))
			warnf(c, "'%s': run is %s: only its finished iterations are compared",
			      in->v[i].path, !strcmp(st, "running") ? "unfinished (running or killed)" : st);
	}
	return bad;
}

/* Merge one cyclictest histogram (results.json extra) into H. Returns -1
 * and leaves H as it was when the data is malformed. */
static int hist_merge(struct cmp_hist *h, json_object *extra, char *why, size_t len)
{
	json_object *counts = jget(extra, "counts"), *ovf = jget(extra, "overflows");
	json_object *mx = jget(extra, "max"), *jb = jget(extra, "buckets");
	size_t threads, nb;
	uint64_t add_ovf = 0, add_n = 0;
	double add_max = -1;

	if (!counts || !json_object_is_type(counts, json_type_array) || !jis_num(jb) ||
	    !ovf || !json_object_is_type(ovf, json_type_array) || !mx ||
	    !json_object_is_type(mx, json_type_array)) {
		snprintf(why, len, "no histogram (counts, overflows, max, buckets)");
		return -1;
	}
	threads = json_object_array_length(counts);
	if (json_object_get_int64(jb) < 1 || json_object_get_int64(jb) > MAX_BUCKETS) {
		snprintf(why, len, "histogram size out of range");
		return -1;
	}
	nb = (size_t)json_object_get_int64(jb);
	if (!threads || json_object_array_length(ovf) != threads ||
	    json_object_array_length(mx) != threads) {
		snprintf(why, len, "histogram threads disagree (%zu counts, %zu overflows, %zu maxima)",
			 threads, json_object_array_length(ovf), json_object_array_length(mx));
		return -1;
	}
	/* validate everything before touching H */
	for (size_t t = 0; t < threads; t++) {
		json_object *row = json_object_array_get_idx(counts, t);
		json_object *o = json_object_array_get_idx(ovf, t), *m = json_object_array_get_idx(mx, t);
		if (!row || !json_object_is_type(row, json_type_array) ||
		    json_object_array_length(row) != nb) {
			snprintf(why, len, "thread %zu histogram is not %zu counts", t, nb);
			return -1;
		}
		if (!jis_num(o) || json_object_get_int64(o) < 0 || !jis_num(m) ||
		    !isfinite(json_object_get_double(m)) || json_object_get_double(m) < 0) {
			snprintf(why, len, "thread %zu overflow count or maximum is not a number", t);
			return -1;
		}
		for (size_t i = 0; i < nb; i++) {
			json_object *x = json_object_array_get_idx(row, i);
			if (!x || !json_object_is_type(x, json_type_int) || json_object_get_int64(x) < 0) {
				snprintf(why, len, "thread %zu bucket %zu is not a count", t, i);
				return -1;
			}
			add_n += (uint64_t)json_object_get_int64(x);
		}
		add_ovf += (uint64_t)json_object_get_int64(o);
		if (json_object_get_double(m) > add_max)
			add_max = json_object_get_double(m);
	}
	if (nb > h->nb) {
		h->counts = xrealloc(h->counts, nb * sizeof(uint64_t));
		memset(h->counts + h->nb, 0, (nb - h->nb) * sizeof(uint64_t));
		h->nb = nb;
	}
	for (size_t t = 0; t < threads; t++) {
		json_object *row = json_object_array_get_idx(counts, t);
		for (size_t i = 0; i < nb; i++)
			h->counts[i] += (uint64_t)json_object_get_int64(json_object_array_get_idx(row, i));
	}
	h->overflows += add_ovf;
	h->samples += add_n + add_ovf;
	if (!h->ok || add_max > h->max)
		h->max = add_max;
	h->ok = 1;
	h->histograms += (int)threads;
	return 0;
}

static struct cmp_latency *latency_get(struct comparison *c, const char *label)
{
	for (size_t i = 0; i < c->nlat; i++)
		if (!strcmp(c->lat[i].label, label))
			return &c->lat[i];
	c->lat = xrealloc(c->lat, (c->nlat + 1) * sizeof(*c->lat));
	c->lat[c->nlat].label = xstrdup(label);
	c->lat[c->nlat].h = xcalloc(c->ng, sizeof(struct cmp_hist));
	return &c->lat[c->nlat++];
}

static void lock_add(struct comparison *c, size_t g, const char *label, json_object *ls,
		     int runs)
{
	json_object_object_foreach(ls, counter, v) {
		struct cmp_lockstat *k = NULL;
		if (!jis_num(v) || !isfinite(json_object_get_double(v)))
			continue;
		for (size_t i = 0; i < c->nlocks && !k; i++)
			if (!strcmp(c->locks[i].label, label) && !strcmp(c->locks[i].counter, counter))
				k = &c->locks[i];
		if (!k) {
			c->locks = xrealloc(c->locks, (c->nlocks + 1) * sizeof(*c->locks));
			k = &c->locks[c->nlocks++];
			k->label = xstrdup(label);
			k->counter = xstrdup(counter);
			k->sum = xcalloc(c->ng, sizeof(double));
			k->n = xcalloc(c->ng, sizeof(int));
		}
		k->sum[g] += json_object_get_double(v);
		k->n[g] += runs;
	}
}

static void add_failure(struct comparison *c, size_t g, const char *run_id, int iteration,
			const char *what, const char *err, const char *tail)
{
	struct cmp_failure *f;
	c->fail = xrealloc(c->fail, (c->nfail + 1) * sizeof(*c->fail));
	f = &c->fail[c->nfail++];
	f->group = g;
	f->run_id = xstrdup(run_id);
	f->iteration = iteration;
	f->what = xstrdup(what);
	f->error = xstrdup(err ? err : "unknown error");
	f->console_tail = tail && *tail ? xstrdup(tail) : NULL;
}

/* An iteration's host noise (results.json host_noise, when sampled). */
static void count_host_noise(struct cmp_group *g, json_object *hn)
{
	if (!hn)
		return;
	g->sampled++;
	if (!json_object_get_boolean(jget(hn, "busy")))
		return;
	g->busy++;
	if (json_object_get_double(jget(hn, "other_cpu_pct")) >= g->busy_max_pct) {
		g->busy_max_pct = json_object_get_double(jget(hn, "other_cpu_pct"));
		hostnoise_busiest_text(jget(hn, "busiest"), g->busy_who, sizeof(g->busy_who));
	}
	g->busy_threshold = json_object_get_double(jget(hn, "threshold_pct"));
}

/* Workload entry W's within-boot CV of metric NAME, when it has repeats
 * (validated: results.c check_repeats), into CELL. */
static void within_add(struct cmp_cell *cell, json_object *w, const char *name)
{
	json_object *cv = jget(jget(jget(w, "within_boot"), name), "cv");
	int r = json_object_get_int(jget(w, "repeats"));
	if (!cv || !isfinite(json_object_get_double(cv)))
		return;
	cell->within_cv_sum += json_object_get_double(cv);
	cell->within_n++;
	if (r > cell->within_repeats)
		cell->within_repeats = r;
}

double cmp_within_cv(const struct cmp_cell *cell)
{
	return cell->within_n ? cell->within_cv_sum / cell->within_n : NAN;
}

int cmp_metric_within(const struct cmp_metric *m, size_t ng)
{
	for (size_t g = 0; g < ng; g++)
		if (m->cell[g].within_n)
			return 1;
	return 0;
}

int cmp_has_within(const struct comparison *c)
{
	for (size_t i = 0; i < c->nm; i++)
		if (cmp_metric_within(&c->m[i], c->ng))
			return 1;
	return 0;
}

/* Every value, histogram and failure of input I (group G). */
static void collect(struct comparison *c, const struct cmp_input *x, size_t g)
{
	json_object *its = jget(x->doc, "iterations");
	const char *run_id = or_empty(jstr(x->doc, "run_id"));
	for (size_t i = 0; i < json_object_array_length(its); i++) {
		json_object *it = json_object_array_get_idx(its, i), *wl = jget(it, "workloads");
		int index = json_object_get_int(jget(it, "index")), blk;
		char src[512];
		if (json_object_get_boolean(jget(it, "warmup"))) {
			c->g[g].warmup++;
			continue;
		}
		{
			/* a failed boot tried again: not a failure, but the
			 * variant is marked (add_warnings) */
			json_object *br = jget(it, "boot_retries");
			for (size_t k = 0; br && k < json_object_array_length(br); k++) {
				char kinds[200];
				json_object *t = jget(json_object_array_get_idx(br, k), "kernel_trouble");
				c->g[g].boot_retries++;
				if (!t || !json_object_array_length(t))
					continue;
				trouble_kinds(t, kinds, sizeof(kinds));
				if (!c->g[g].retry_kinds)
					c->g[g].retry_kinds = xstrdup(kinds);
			}
		}
		count_host_noise(&c->g[g], jget(it, "host_noise"));
		if (!strcmp(or_empty(jstr(it, "status")), "ok")) {
			c->g[g].ok++;
		} else {
			c->g[g].failed++;
			add_failure(c, g, run_id, index, "iteration", jstr(it, "error"),
				    jstr(it, "console_tail"));
		}
		snprintf(src, sizeof(src), "%s#%d", run_id, index);
		if (jstr(jget(it, "lava"), "device")) {
			const char *dev = jstr(jget(it, "lava"), "device");
			for (blk = 0; blk < (int)c->blocks.n && strcmp(c->blocks.v[blk], dev); blk++)
				;
			if (blk == (int)c->blocks.n)
				strvec_push(&c->blocks, dev);
		} else {
			blk = -1;
		}
		for (size_t j = 0; wl && j < json_object_array_length(wl); j++) {
			json_object *w = json_object_array_get_idx(wl, j), *metrics, *extra;
			const char *label = jstr(w, "label");
			const char *workload = jstr(w, "workload");
			if (!label)
				continue;
			if (!workload)
				workload = label;
			if (strcmp(or_empty(jstr(w, "status")), "ok")) {
				char what[300];
				snprintf(what, sizeof(what), "%s (%s)", label, or_empty(jstr(w, "status")));
				add_failure(c, g, run_id, index, what, jstr(w, "error"), NULL);
				continue;
			}
			metrics = jget(w, "metrics");
			json_object_object_foreach(metrics, mname, mo) {
				struct cmp_metric *m = metric_get(c, label, workload, mname,
								  or_empty(jstr(mo, "unit")),
								  jstr(mo, "better"));
				cell_push(&m->cell[g], json_object_get_double(jget(mo, "value")), src, blk);
				within_add(&m->cell[g], w, mname);
			}
			if (jget(w, "lock_stats") &&
			    json_object_is_type(jget(w, "lock_stats"), json_type_object))
				lock_add(c, g, label, jget(w, "lock_stats"),
					 jget(w, "lock_stats_repeats") ?
					 json_object_get_int(jget(w, "lock_stats_repeats")) : 1);
			extra = jget(w, "extra");
			if (!strcmp(workload, "cyclictest") && extra) {
				struct cmp_latency *l = latency_get(c, label);
				char why[256];
				if (hist_merge(&l->h[g], extra, why, sizeof(why)))
					warnf(c, "'%s' iteration %d %s: histogram skipped: %s", x->path,
					      index, label, why);
			}
		}
	}
}

/* Values on the scale Welch tests: 1/x for rates (the harmonic mean's scale). */
static double *analysis_scale(const struct cmp_metric *m, const struct cmp_cell *cell)
{
	double *y = xmalloc((cell->n ? cell->n : 1) * sizeof(double));
	for (size_t i = 0; i < cell->n; i++)
		y[i] = m->cls == CMP_CLASS_RATE ? 1.0 / cell->v[i] : cell->v[i];
	return y;
}

static int rate_ok(const struct cmp_cell *cell)
{
	for (size_t i = 0; i < cell->n; i++)
		if (!(cell->v[i] > 0))
			return 0;
	return 1;
}

/* One cell against the baseline's. */
static void judge(const struct comparison *c, const struct cmp_metric *m, size_t g)
{
	struct cmp_cell *b = &m->cell[c->base], *x = &m->cell[g];
	enum stats_center ctr = m->cls == CMP_CLASS_RATE ? STATS_CENTER_HMEAN : STATS_CENTER_MEAN;
	double *ya = NULL, *yb = NULL;
	char key[600];
	int significant, big;

	x->rel = x->rel_lo = x->rel_hi = x->mde = NAN;
	x->boot_lo = x->boot_hi = x->fieller_lo = x->fieller_hi = NAN;
	if (g == c->base) {
		x->verdict = CMP_BASELINE;
		return;
	}
	if (!x->n || !b->n) {
		x->verdict = CMP_MISSING;
		snprintf(x->note, sizeof(x->note), "no value in %s", !x->n ? c->g[g].name :
			 c->g[c->base].name);
		return;
	}
	if (b->center != 0 && isfinite(b->center) && isfinite(x->center))
		x->rel = x->center / b->center - 1;
	if (x->n < 2 || b->n < 2) {
		x->verdict = CMP_UNDECIDED;
		snprintf(x->note, sizeof(x->note), "%zu against %zu values: no spread to test",
			 b->n, x->n);
		return;
	}
	if (m->cls == CMP_CLASS_RATE && (!rate_ok(b) || !rate_ok(x))) {
		x->verdict = CMP_UNDECIDED;
		snprintf(x->note, sizeof(x->note), "a rate of 0 or less: cannot compare");
		return;
	}
	ya = analysis_scale(m, b);
	yb = analysis_scale(m, x);
	stats_welch(ya, b->n, yb, x->n, STATS_LEVEL, &x->welch);
	x->have_test = 1;
	x->have_mwu = stats_mwu(b->v, b->n, x->v, x->n, STATS_MWU_AUTO, &x->mwu) == 0;
	{
		struct stats_desc da, db;
		stats_describe_sample(ya, b->n, STATS_LEVEL, &da);
		stats_describe_sample(yb, x->n, STATS_LEVEL, &db);
		if (da.mean != 0)
			x->mde = stats_mde(da.sd, da.n, db.sd, db.n, STATS_ALPHA, STATS_POWER) /
				 fabs(da.mean);
	}
	snprintf(key, sizeof(key), "%s/%s/%s", m->label, m->name, c->g[g].name);
	stats_boot_ratio(b->v, b->n, x->v, x->n, ctr, c->reps, stats_seed_mix(c->seed, key),
			 STATS_LEVEL, 1, &x->boot_lo, &x->boot_hi);
	if (stats_fieller(ya, b->n, yb, x->n, STATS_LEVEL, &x->fieller_lo, &x->fieller_hi) == 0 &&
	    m->cls == CMP_CLASS_RATE) {
		/* on 1/x the ratio is inverted: hmean ratio = 1 / ratio of means of 1/x */
		double l = 1 / (x->fieller_hi + 1) - 1, h = 1 / (x->fieller_lo + 1) - 1;
		x->fieller_lo = l;
		x->fieller_hi = h;
	}
	x->ci_boot = b->n >= CMP_BOOT_MIN_N && x->n >= CMP_BOOT_MIN_N;
	x->rel_lo = x->ci_boot ? x->boot_lo : x->fieller_lo;
	x->rel_hi = x->ci_boot ? x->boot_hi : x->fieller_hi;
	significant = x->welch.p < STATS_ALPHA;
	big = isnan(x->rel) ? x->welch.diff != 0 : fabs(x->rel) >= m->min_effect;
	if (significant && big) {
		/* on the analysis scale a rate's direction is reversed */
		double d = m->cls == CMP_CLASS_RATE ? -x->welch.diff : x->welch.diff;
		x->verdict = (d > 0) == (m->better > 0) ? CMP_BETTER : CMP_WORSE;
	} else {
		x->verdict = CMP_SAME;
		if (significant)
			snprintf(x->note, sizeof(x->note), "significant but below the %.0f%% minimum effect",
				 m->min_effect * 100);
	}
	free(ya);
	free(yb);
}

/*
 * A variant is compared with the baseline on dozens of metrics at once;
 * at p < 0.05 each, one or two would "change" every night by chance alone
 * (seen here: cyclictest.load lat_min +47%, p 0.024, between two nights of
 * the same binary; test_compare's A/A trials called 1.5 differences per
 * comparison of 42 metrics). So the verdicts control the false discovery
 * rate within each workload's metrics (one family per label: a
 * cyclictest's dozen percentiles, dbench's throughput and latency):
 * Benjamini & Hochberg (1995), q_(i) = min over j >= i of p_(j) * m / j.
 * Per workload rather than over all metrics keeps the power of the
 * headline metrics (a lone hackbench time is not adjusted at all). Written
 * here because GSL has no multiple-testing adjustment and the step is a
 * dozen lines.
 */
static void control_fdr(struct comparison *c, size_t g, const char *label)
{
	struct cmp_cell **cells = xcalloc(c->nm + 1, sizeof(*cells));
	double *p = xcalloc(c->nm + 1, sizeof(double));
	size_t *idx = xcalloc(c->nm + 1, sizeof(size_t));
	size_t n = 0;
	double run = 1;
	for (size_t i = 0; i < c->nm; i++) {
		struct cmp_cell *x = &c->m[i].cell[g];
		if (strcmp(c->m[i].label, label))
			continue;
		x->q = NAN;
		if (x->have_test && isfinite(x->welch.p)) {
			cells[n] = x;
			p[n++] = x->welch.p;
		}
	}
	if (n)
		gsl_sort_index(idx, p, 1, n);
	for (size_t k = n; k-- > 0;) {
		struct cmp_cell *x = cells[idx[k]];
		run = fmin(run, p[idx[k]] * (double)n / (double)(k + 1));
		x->q = run;
		if ((x->verdict == CMP_BETTER || x->verdict == CMP_WORSE) && x->q >= STATS_ALPHA) {
			x->verdict = CMP_SAME;
			snprintf(x->note, sizeof(x->note), "p %.2g, but q %.2g after Benjamini-Hochberg "
				 "over %s's %zu metrics: not significant", x->welch.p, x->q, label, n);
		}
	}
	free(cells);
	free(p);
	free(idx);
}

static void describe_cell(const struct cmp_metric *m, struct cmp_cell *cell)
{
	cell->center = cell->center_lo = cell->center_hi = NAN;
	if (!cell->n || stats_describe_sample(cell->v, cell->n, STATS_LEVEL, &cell->d))
		return;
	if (m->cls == CMP_CLASS_RATE && !isnan(cell->d.hmean)) {
		cell->center = cell->d.hmean;
		cell->center_lo = cell->d.hm_lo;
		cell->center_hi = cell->d.hm_hi;
	} else {
		cell->center = cell->d.mean;
		cell->center_lo = cell->d.ci_lo;
		cell->center_hi = cell->d.ci_hi;
	}
	cell->noisy = isfinite(cell->d.cv) && cell->d.cv > m->max_cv;
}

static void merged_percentiles(struct comparison *c)
{
	static const uint32_t ppm[5] = { 500000, 900000, 990000, 999000, 999900 };
	for (size_t l = 0; l < c->nlat; l++)
		for (size_t g = 0; g < c->ng; g++) {
			struct cmp_hist *h = &c->lat[l].h[g];
			for (int k = 0; k < 5; k++)
				if (!h->ok || hist_percentile(h->counts, h->nb, h->overflows, h->max,
								    ppm[k], &h->pct[k]))
					h->pct[k] = NAN;
		}
}

/* Geometric mean of each group's oriented ratios of the primary metrics. */
static void scores(struct comparison *c)
{
	for (size_t g = 0; g < c->ng; g++) {
		double logsum = 0;
		int n = 0;
		for (size_t i = 0; i < c->nm; i++) {
			const struct cmp_metric *m = &c->m[i];
			double b = m->cell[c->base].center, x = m->cell[g].center;
			if (!m->primary || !(b > 0) || !(x > 0) || !isfinite(b) || !isfinite(x))
				continue;
			logsum += log(m->better > 0 ? x / b : b / x);
			n++;
		}
		c->g[g].score_n = n;
		c->g[g].score = n ? exp(logsum / n) : NAN;
	}
}

static void add_warnings(struct comparison *c)
{
	if (c->accel && !strcmp(c->accel, "tcg"))
		warnf(c, CMP_TCG_WARNING ": figures compare variants with each other on "
		      "this host; they are not hardware figures");
	if (c->timing && !strcmp(c->timing, "instructions"))
		warnf(c, CMP_ICOUNT_WARNING " (QEMU -icount shift=%d, one instruction %d ns): "
		      "figures are the kernel's path lengths and the order in which the vCPUs took "
		      "turns on one host thread; no caches, no parallel contention, no real latency "
		      "(docs/timing.md)", c->icount_shift, 1 << c->icount_shift);
	for (size_t g = 0; g < c->ng; g++) {
		size_t noisy = 0, with = 0;
		if (c->g[g].failed)
			warnf(c, "%s: %d of %d iterations failed (see the failures)", c->g[g].name,
			      c->g[g].failed, c->g[g].failed + c->g[g].ok);
		if (c->g[g].boot_retries)
			warnf(c, "%s: %d boot%s failed and %s tried again%s%s%s (boot_retries in "
			      "results.json; the failed boots' consoles are kept)", c->g[g].name,
			      c->g[g].boot_retries, c->g[g].boot_retries == 1 ? "" : "s",
			      c->g[g].boot_retries == 1 ? "was" : "were",
			      c->g[g].retry_kinds ? " (kernel trouble: " : "",
			      c->g[g].retry_kinds ? c->g[g].retry_kinds : "", c->g[g].retry_kinds ? ")" : "");
		if (c->g[g].busy)
			warnf(c, "%s: %d of %d iterations ran on a BUSY HOST (other processes used up to "
			      "%.0f%% of its CPU, threshold %.0f%%%s): their figures may be distorted "
			      "(host_noise in results.json)", c->g[g].name, c->g[g].busy, c->g[g].sampled,
			      c->g[g].busy_max_pct, c->g[g].busy_threshold, c->g[g].busy_who);
		for (size_t i = 0; i < c->nm; i++) {
			noisy += c->m[i].cell[g].noisy;
			with += c->m[i].cell[g].n > 1;
		}
		if (noisy)
			warnf(c, "%s: %zu of %zu metrics too noisy to call small differences (coefficient "
			      "of variation above the metric's limit; marked noisy)", c->g[g].name, noisy, with);
	}
	for (size_t g = 0; g < c->ng; g++) {
		size_t most = 0;
		for (size_t i = 0; i < c->nm; i++)
			if (c->m[i].cell[g].n > most)
				most = c->m[i].cell[g].n;
		if (most == 1)
			warnf(c, "%s: 1 iteration: no spread, so no verdicts (run more iterations)",
			      c->g[g].name);
	}
	for (size_t l = 0; l < c->nlat; l++) {
		struct strbuf sb = STRBUF_INIT;
		size_t nb = 0;
		for (size_t g = 0; g < c->ng; g++) {
			const struct cmp_hist *h = &c->lat[l].h[g];
			if (h->ok && h->overflows) {
				sb_addf(&sb, "%s%s %llu of %llu", sb.len ? ", " : "", c->g[g].name,
					(unsigned long long)h->overflows, (unsigned long long)h->samples);
				nb = h->nb;
			}
		}
		if (sb.len)
			warnf(c, "%s: samples beyond the %zu us histogram: %s (counted, not dropped; a "
			      "percentile falling among them is reported as the maximum)",
			      c->lat[l].label, nb, sb.buf);
		sb_release(&sb);
	}
}

/* Put groups named in ORDER first (stable otherwise). */
static void order_groups(struct comparison *c, const struct cmp_opts *o)
{
	size_t k = 0;
	for (size_t i = 0; i < o->norder; i++)
		for (size_t g = k; g < c->ng; g++)
			if (!strcmp(c->g[g].name, o->order[i])) {
				struct cmp_group t = c->g[g];
				memmove(&c->g[k + 1], &c->g[k], (g - k) * sizeof(t));
				c->g[k++] = t;
				break;
			}
}

/* The lab devices (a lava run's iterations' "lava.device") of group G,
 * with their iteration counts, into DEV ("qemu-01 3, qemu-02 2"); the
 * number of distinct devices. */
static size_t group_devices(const struct comparison *c, size_t g, struct strbuf *dev)
{
	struct strvec names = STRVEC_INIT;
	int count[64] = { 0 };
	size_t n;
	for (size_t k = 0; k < c->g[g].ninputs; k++) {
		json_object *its = jget(c->in->v[c->g[g].inputs[k]].doc, "iterations");
		for (size_t i = 0; i < json_object_array_length(its); i++) {
			json_object *it = json_object_array_get_idx(its, i);
			const char *d = jstr(jget(it, "lava"), "device");
			size_t j;
			if (!d || json_object_get_boolean(jget(it, "warmup")))
				continue;
			for (j = 0; j < names.n && strcmp(names.v[j], d); j++)
				;
			if (j == names.n) {
				if (names.n == sizeof(count) / sizeof(count[0]))
					continue;
				strvec_push(&names, d);
			}
			count[j]++;
		}
	}
	for (size_t j = 0; j < names.n; j++)
		sb_addf(dev, "%s%s %d", j ? ", " : "", names.v[j], count[j]);
	n = names.n;
	strvec_clear(&names);
	return n;
}

/* Lab runs the devices could not block (block_align: the baseline did not
 * share a device with every variant): iterations of one variant on several
 * devices are pooled, and variants each on a device of their own differ by
 * the device too: either is said, never left silent. */
static void check_devices(struct comparison *c)
{
	struct strbuf all = STRBUF_INIT;
	struct strvec one = STRVEC_INIT; /* the device of each single-device group */
	size_t withdev = 0;
	int distinct = 0;
	for (size_t g = 0; g < c->ng; g++) {
		struct strbuf d = STRBUF_INIT;
		size_t n = group_devices(c, g, &d);
		withdev += n > 0;
		if (n > 1)
			warnf(c, "%s: its iterations ran on %zu lab devices (%s iterations): pooled here, "
			      "so the devices' own differences are in the variant's spread", c->g[g].name,
			      n, d.buf);
		if (n == 1) {
			*strrchr(d.buf, ' ') = '\0'; /* the count */
			strvec_push(&one, d.buf);
			distinct |= strcmp(one.v[0], d.buf) != 0;
			sb_addf(&all, "%s%s on %s", all.len ? ", " : "", c->g[g].name, d.buf);
		}
		sb_release(&d);
	}
	if (distinct && one.n == withdev)
		warnf(c, "the variants ran on different lab devices (%s): their differences may be "
		      "the devices'", all.buf);
	strvec_clear(&one);
	sb_release(&all);
}

/* The center of CELL's values on device B (all devices: B < 0): the
 * harmonic mean for rates, else the mean; NAN without values. */
static double block_center(const struct cmp_metric *m, const struct cmp_cell *cell, int b)
{
	double sum = 0;
	size_t n = 0;
	for (size_t i = 0; i < cell->n; i++)
		if (b < 0 || cell->blk[i] == b) {
			sum += m->cls == CMP_CLASS_RATE ? 1.0 / cell->v[i] : cell->v[i];
			n++;
		}
	if (!n)
		return NAN;
	return m->cls == CMP_CLASS_RATE ? n / sum : sum / n;
}

/* A device is a block for CELL's metric when the baseline has at least
 * BLOCK_MIN_BASE values there: its level is then estimated with a spread
 * of its own (from one value, every scaled baseline value would be the
 * same and the baseline's spread would vanish). */
#define BLOCK_MIN_BASE 2

static size_t block_count(const struct cmp_cell *x, int b)
{
	size_t n = 0;
	for (size_t k = 0; k < x->n; k++)
		n += x->blk[k] == b;
	return n;
}

/* Can the devices be blocks? Two or more of them seen, and every group
 * with values on a device where the baseline has BLOCK_MIN_BASE (variants
 * each alone on a device of their own cannot be told from their devices,
 * nor can a baseline with one value a device be scaled: check_devices
 * says so). */
static int blocks_usable(const struct comparison *c)
{
	if (c->blocks.n < 2)
		return 0;
	for (size_t g = 0; g < c->ng; g++) {
		int shared = 0;
		for (size_t i = 0; i < c->nm && !shared; i++) {
			const struct cmp_cell *x = &c->m[i].cell[g], *b = &c->m[i].cell[c->base];
			for (size_t k = 0; k < x->n && !shared; k++)
				shared = x->blk[k] >= 0 && block_count(b, x->blk[k]) >= BLOCK_MIN_BASE;
		}
		if (!shared && c->g[g].ok)
			return 0;
	}
	return 1;
}

/* Each value scaled by its device's factor (struct comparison); the
 * per-device differences into brel. Done before the cells are described. */
static void block_align(struct comparison *c)
{
	size_t nb = c->blocks.n;
	double *f = xcalloc(nb, sizeof(double));
	c->blocked = 1;
	for (size_t i = 0; i < c->nm; i++) {
		struct cmp_metric *m = &c->m[i];
		struct cmp_cell *base = &m->cell[c->base];
		double sum = 0;
		size_t with = 0;
		m->cls = classify(m->name, m->unit);
		for (size_t b = 0; b < nb; b++) {
			f[b] = block_count(base, (int)b) >= BLOCK_MIN_BASE ?
			       block_center(m, base, (int)b) : NAN;
			if (isfinite(f[b]) && f[b] > 0) {
				sum += m->cls == CMP_CLASS_RATE ? 1.0 / f[b] : f[b];
				with++;
			}
		}
		for (size_t g = 0; g < c->ng; g++) {
			struct cmp_cell *x = &m->cell[g];
			x->brel = xmalloc(nb * sizeof(double));
			for (size_t b = 0; b < nb; b++)
				x->brel[b] = isfinite(f[b]) && f[b] > 0 ?
					     block_center(m, x, (int)b) / f[b] - 1 : NAN;
		}
		if (!with)
			continue; /* no baseline level to scale by (zeros): as measured */
		{
			double over = m->cls == CMP_CLASS_RATE ? with / sum : sum / with;
			for (size_t g = 0; g < c->ng; g++) {
				struct cmp_cell *x = &m->cell[g];
				size_t k = 0;
				for (size_t j = 0; j < x->n; j++) {
					int b = x->blk[j];
					if (b < 0 || !isfinite(f[b]) || !(f[b] > 0)) {
						free(x->src[j]);
						c->dropped++;
						continue;
					}
					x->v[k] = x->v[j] * over / f[b];
					x->blk[k] = b;
					x->src[k++] = x->src[j];
				}
				x->n = k;
			}
		}
	}
	free(f);
}

/* Devices whose own differences go opposite ways, each beyond the
 * metric's minimum effect: the overall verdict hides that, so it is said. */
static void blocks_disagree(struct comparison *c)
{
	for (size_t i = 0; i < c->nm; i++)
		for (size_t g = 0; g < c->ng; g++) {
			const struct cmp_metric *m = &c->m[i];
			const struct cmp_cell *x = &m->cell[g];
			struct strbuf sb = STRBUF_INIT;
			int up = 0, down = 0;
			if (g == c->base || !x->brel)
				continue;
			for (size_t b = 0; b < c->blocks.n; b++) {
				if (!isfinite(x->brel[b]))
					continue;
				sb_addf(&sb, "%s%s %+.1f%%", sb.len ? ", " : "", c->blocks.v[b],
					100 * x->brel[b]);
				up |= x->brel[b] > m->min_effect;
				down |= x->brel[b] < -m->min_effect;
			}
			if (up && down)
				warnf(c, "%s: %s.%s: the lab devices disagree (%s), which the overall "
				      "verdict (%s) does not show", c->g[g].name, m->label, m->name, sb.buf,
				      cmp_verdict_name(x->verdict));
			sb_release(&sb);
		}
}

int comparison_build(struct comparison *c, const struct cmp_inputs *in,
		     const struct cmp_opts *o)
{
	memset(c, 0, sizeof(*c));
	c->in = in;
	c->seed = o->seed;
	c->reps = o->reps;
	c->seed_roles = o->seed_roles;
	iso8601_now(c->created, sizeof(c->created));
	if (!in->n)
		return error("nothing to compare");
	if (check_inputs(c, in, o->force))
		return -1;
	c->suite = xstrdup(or_empty(jstr(jget(in->v[0].doc, "suite"), "name")));
	c->accel = xstrdup(or_empty(jstr(jget(in->v[0].doc, "host"), "accel")));
	c->timing = xstrdup(results_timing(in->v[0].doc));
	c->icount_shift = json_object_get_int(jget(jget(in->v[0].doc, "host"), "icount_shift"));
	for (size_t i = 0; i < in->n; i++) {
		size_t g = group_index(c, in->v[i].group);
		c->g[g].inputs = xrealloc(c->g[g].inputs, (c->g[g].ninputs + 1) * sizeof(size_t));
		c->g[g].inputs[c->g[g].ninputs++] = i;
	}
	order_groups(c, o);
	c->base = 0;
	if (o->baseline) {
		size_t g;
		for (g = 0; g < c->ng && strcmp(c->g[g].name, o->baseline); g++)
			;
		if (g == c->ng) {
			struct strbuf sb = STRBUF_INIT;
			for (size_t i = 0; i < c->ng; i++)
				sb_addf(&sb, " %s", c->g[i].name);
			error("baseline '%s' is not among the variants compared:%s", o->baseline, sb.buf);
			sb_release(&sb);
			return -1;
		}
		c->base = g;
	}
	/* within a group, one kernel: say so when the runs disagree */
	for (size_t g = 0; g < c->ng; g++)
		for (size_t k = 1; k < c->g[g].ninputs; k++) {
			const struct cmp_input *a = &in->v[c->g[g].inputs[0]], *b = &in->v[c->g[g].inputs[k]];
			char why[1024];
			if (differs(b->doc, a->doc, "variant", "package_version", why, sizeof(why)) ||
			    differs(b->doc, a->doc, "variant", "config_hash", why, sizeof(why)) ||
			    differs(b->doc, a->doc, "variant", "extra_cmdline", why, sizeof(why)))
				warnf(c, "%s: '%s': %s of '%s': the runs pooled here are not one kernel",
				      c->g[g].name, b->path, why, a->path);
		}
	for (size_t g = 0; g < c->ng; g++)
		for (size_t k = 0; k < c->g[g].ninputs; k++)
			collect(c, &in->v[c->g[g].inputs[k]], g);
	if (blocks_usable(c)) {
		block_align(c);
		warnf(c, "lab devices are blocks (%zu devices): each value is scaled by its device's "
		      "baseline level, so the devices' own differences are neither in the spread nor "
		      "in the differences (by_device in comparison.json has each device's own)",
		      c->blocks.n);
		if (c->dropped)
			warnf(c, "%zu values dropped: they ran on a lab device where the baseline has "
			      "fewer than %d values", c->dropped, BLOCK_MIN_BASE);
	} else {
		check_devices(c);
	}
	/* metric_get sized cells by the groups known then: all of them */
	for (size_t i = 0; i < c->nm; i++) {
		struct cmp_metric *m = &c->m[i];
		const char *p = workload_headline(m->workload);
		int seen = 0;
		m->cls = classify(m->name, m->unit);
		m->min_effect = rule_value(&o->min_effect, m->label, m->workload, m->name,
					   class_defaults[m->cls].min_effect);
		m->max_cv = rule_value(&o->max_cv, m->label, m->workload, m->name,
				       class_defaults[m->cls].max_cv);
		for (size_t j = 0; j < i; j++)
			seen |= !strcmp(c->m[j].label, m->label);
		/* a workload kbench knows has its headline; others, their first metric */
		m->primary = p ? !strcmp(p, m->name) : !seen;
		for (size_t g = 0; g < c->ng; g++)
			describe_cell(m, &m->cell[g]);
	}
	for (size_t i = 0; i < c->nm; i++)
		for (size_t g = 0; g < c->ng; g++)
			judge(c, &c->m[i], g);
	/* one family per label, each variant against the baseline */
	for (size_t i = 0; i < c->nm; i++) {
		size_t j = 0;
		while (j < i && strcmp(c->m[j].label, c->m[i].label))
			j++;
		for (size_t g = 0; j == i && g < c->ng; g++)
			if (g != c->base)
				control_fdr(c, g, c->m[i].label);
	}
	merged_percentiles(c);
	scores(c);
	add_warnings(c);
	if (c->blocked)
		blocks_disagree(c);
	return 0;
}

void comparison_release(struct comparison *c)
{
	for (size_t i = 0; i < c->nm; i++) {
		for (size_t g = 0; g < c->ng; g++) {
			for (size_t k = 0; k < c->m[i].cell[g].n; k++)
				free(c->m[i].cell[g].src[k]);
			free(c->m[i].cell[g].src);
			free(c->m[i].cell[g].v);
			free(c->m[i].cell[g].blk);
			free(c->m[i].cell[g].brel);
		}
		free(c->m[i].cell);
		free(c->m[i].label);
		free(c->m[i].workload);
		free(c->m[i].name);
		free(c->m[i].unit);
	}
	free(c->m);
	for (size_t l = 0; l < c->nlat; l++) {
		for (size_t g = 0; g < c->ng; g++)
			free(c->lat[l].h[g].counts);
		free(c->lat[l].h);
		free(c->lat[l].label);
	}
	free(c->lat);
	for (size_t i = 0; i < c->nlocks; i++) {
		free(c->locks[i].label);
		free(c->locks[i].counter);
		free(c->locks[i].sum);
		free(c->locks[i].n);
	}
	free(c->locks);
	for (size_t i = 0; i < c->nfail; i++) {
		free(c->fail[i].run_id);
		free(c->fail[i].what);
		free(c->fail[i].error);
		free(c->fail[i].console_tail);
	}
	free(c->fail);
	for (size_t g = 0; g < c->ng; g++) {
		free(c->g[g].name);
		free(c->g[g].retry_kinds);
		free(c->g[g].inputs);
	}
	free(c->g);
	strvec_clear(&c->warnings);
	strvec_clear(&c->blocks);
	free(c->suite);
	free(c->accel);
	free(c->timing);
	json_object_put(c->campaign);
	memset(c, 0, sizeof(*c));
}

/* ---- lookups ---- */

const struct cmp_metric *cmp_find(const struct comparison *c, const char *workload,
				  const char *name)
{
	for (size_t i = 0; i < c->nm; i++)
		if (!strcmp(c->m[i].workload, workload) && !strcmp(c->m[i].name, name))
			return &c->m[i];
	return NULL;
}

const struct cmp_latency *cmp_find_latency(const struct comparison *c, const char *label)
{
	for (size_t i = 0; i < c->nlat; i++)
		if (!strcmp(c->lat[i].label, label))
			return &c->lat[i];
	return NULL;
}

const char *cmp_group_str(const struct comparison *c, size_t g, const char *obj, const char *key)
{
	if (g >= c->ng || !c->g[g].ninputs)
		return NULL;
	return jstr(jget(c->in->v[c->g[g].inputs[0]].doc, obj), key);
}

void cmp_fmt_num(char *buf, size_t len, double v)
{
	double a = fabs(v);
	if (!isfinite(v))
		snprintf(buf, len, "%s", isnan(v) ? "-" : v > 0 ? "inf" : "-inf");
	else if (a == 0)
		snprintf(buf, len, "0");
	else if (v == floor(v) && a < 1e7)
		snprintf(buf, len, "%.0f", v);
	else if (a >= 1e7 || a < 1e-3)
		snprintf(buf, len, "%.3g", v);
	else if (a >= 1000)
		snprintf(buf, len, "%.0f", v);
	else if (a >= 100)
		snprintf(buf, len, "%.1f", v);
	else if (a >= 10)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.3f", v);
}

void cmp_fmt_mde(char *buf, size_t len, double mde)
{
	if (isfinite(mde))
		snprintf(buf, len, "%.0f%%", mde * 100);
	else
		snprintf(buf, len, "-");
}
