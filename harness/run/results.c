/* results.c - results.json: write atomically, summarise, load and validate.
 * The format is documented in docs/results.md (schema in
 * docs/results.schema.json); results_validate() is the C side of it. */
#include "run/results.h"
#include "core/jsonutil.h"
#include "core/config.h"
#include "core/hostnoise.h"
#include "backend/lava_log.h"
#include "kernel/kernel.h"
#include "kernel/subject.h"

#include <json-c/printbuf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Arrays of numbers (cyclictest histograms: thousands of counts) on one
 * line each: the pretty printer would give every count its own line and
 * make results.json six times larger and slower to load. Same JSON. */
static int one_line(json_object *jso, struct printbuf *pb, int level, int flags)
{
	size_t n = json_object_array_length(jso);
	(void)level;
	(void)flags;
	printbuf_strappend(pb, "[");
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(jso, i);
		if (i)
			printbuf_strappend(pb, ", ");
		if (json_object_is_type(e, json_type_int))
			sprintbuf(pb, "%lld", (long long)json_object_get_int64(e));
		else {
			const char *t = json_object_to_json_string_ext(e, JSON_C_TO_STRING_PLAIN);
			printbuf_memappend(pb, t, (int)strlen(t));
		}
	}
	printbuf_strappend(pb, "]");
	return 0;
}

static void compact_number_arrays(json_object *o)
{
	if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, k, v) {
			(void)k;
			compact_number_arrays(v);
		}
	} else if (json_object_is_type(o, json_type_array)) {
		size_t n = json_object_array_length(o);
		int numbers = n > 0;
		for (size_t i = 0; i < n; i++) {
			json_object *e = json_object_array_get_idx(o, i);
			if (!json_object_is_type(e, json_type_int) && !json_object_is_type(e, json_type_double)) {
				numbers = 0;
				compact_number_arrays(e);
			}
		}
		if (numbers)
			json_object_set_serializer(o, one_line, NULL, NULL);
	}
}

int results_save(json_object *doc, const char *path)
{
	compact_number_arrays(doc);
	return json_save(path, doc);
}

struct series {
	char *label, *metric, *unit, *better;
	double *v;
	size_t n, alloc;
};

static struct series *series_get(struct series **all, size_t *n, const char *label,
				 const char *metric)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*all)[i].label, label) && !strcmp((*all)[i].metric, metric))
			return &(*all)[i];
	*all = xrealloc(*all, (*n + 1) * sizeof(**all));
	memset(&(*all)[*n], 0, sizeof(**all));
	(*all)[*n].label = xstrdup(label);
	(*all)[*n].metric = xstrdup(metric);
	return &(*all)[(*n)++];
}

void stats_describe(const double *in, size_t n, json_object *out)
{
	double *v = xmalloc(n * sizeof(*v));
	double mean, sd = 0;
	memcpy(v, in, n * sizeof(*v));
	gsl_sort(v, 1, n);
	mean = gsl_stats_mean(v, 1, n);
	if (n > 1)
		sd = gsl_stats_sd_m(v, 1, n, mean);
	json_object_object_add(out, "n", json_object_new_int((int)n));
	json_object_object_add(out, "mean", json_object_new_double(mean));
	json_object_object_add(out, "median", json_object_new_double(gsl_stats_median_from_sorted_data(v, 1, n)));
	json_object_object_add(out, "min", json_object_new_double(v[0]));
	json_object_object_add(out, "max", json_object_new_double(v[n - 1]));
	json_object_object_add(out, "stddev", json_object_new_double(sd));
	json_object_object_add(out, "cv", mean != 0 && n > 1 ? json_object_new_double(sd / fabs(mean)) : NULL);
	free(v);
}

void results_summarize(json_object *doc)
{
	json_object *its = json_object_object_get(doc, "iterations"), *sum;
	struct series *all = NULL;
	size_t n = 0;

	for (size_t i = 0; its && i < json_object_array_length(its); i++) {
		json_object *it = json_object_array_get_idx(its, i), *w, *wl;
		if (json_object_get_boolean(json_object_object_get(it, "warmup")))
			continue;
		wl = json_object_object_get(it, "workloads");
		for (size_t j = 0; wl && j < json_object_array_length(wl); j++) {
			json_object *metrics;
			const char *label;
			w = json_object_array_get_idx(wl, j);
			label = json_object_get_string(json_object_object_get(w, "label"));
			metrics = json_object_object_get(w, "metrics");
			if (!label || !metrics)
				continue;
			json_object_object_foreach(metrics, mname, m) {
				struct series *s = series_get(&all, &n, label, mname);
				double x = json_object_get_double(json_object_object_get(m, "value"));
				if (!isfinite(x))
					continue;
				if (!s->unit) {
					s->unit = xstrdup(json_object_get_string(json_object_object_get(m, "unit")));
					s->better = xstrdup(json_object_get_string(json_object_object_get(m, "better")));
				}
				if (s->n == s->alloc) {
					s->alloc = s->alloc ? 2 * s->alloc : 8;
					s->v = xrealloc(s->v, s->alloc * sizeof(double));
				}
				s->v[s->n++] = x;
			}
		}
	}
	sum = json_object_new_object();
	for (size_t i = 0; i < n; i++) {
		json_object *lab = json_object_object_get(sum, all[i].label), *m;
		if (!lab) {
			lab = json_object_new_object();
			json_object_object_add(sum, all[i].label, lab);
		}
		m = json_object_new_object();
		json_object_object_add(m, "unit", json_object_new_string(all[i].unit ? all[i].unit : ""));
		json_object_object_add(m, "better", json_object_new_string(all[i].better ? all[i].better : "lower"));
		if (all[i].n)
			stats_describe(all[i].v, all[i].n, m);
		json_object_object_add(lab, all[i].metric, m);
		free(all[i].label);
		free(all[i].metric);
		free(all[i].unit);
		free(all[i].better);
		free(all[i].v);
	}
	free(all);
	json_object_object_add(doc, "summary", sum);
	results_host_noise(doc);
}

void results_host_noise(json_object *doc)
{
	json_object *its = jget(doc, "iterations"), *o, *busy = json_object_new_array();
	json_object *who = NULL; /* the busiest processes of the busiest iteration */
	double most = -1, kernel = -1, threshold = 0;
	int with = 0, ignored = 0;
	for (size_t i = 0; its && i < json_object_array_length(its); i++) {
		json_object *it = json_object_array_get_idx(its, i);
		json_object *hn = jget(it, "host_noise");
		if (!hn || json_object_get_boolean(jget(it, "warmup")))
			continue;
		with++;
		if (json_object_get_double(jget(hn, "other_cpu_pct")) > most) {
			most = json_object_get_double(jget(hn, "other_cpu_pct"));
			who = jget(hn, "busiest");
		}
		if (jget(hn, "kernel_cpu_pct"))
			kernel = fmax(kernel, json_object_get_double(jget(hn, "kernel_cpu_pct")));
		threshold = json_object_get_double(jget(hn, "threshold_pct"));
		if (json_object_get_boolean(jget(hn, "busy")))
			json_object_array_add(busy, json_object_new_int(json_object_get_int(jget(it, "index"))));
		ignored += json_object_get_boolean(jget(hn, "busy_ignored"));
	}
	if (!with) { /* no samples (results written before the guard): no key */
		json_object_put(busy);
		return;
	}
	o = json_object_new_object();
	jset_int(o, "iterations", with);
	jset_int(o, "busy", (int)json_object_array_length(busy));
	jset(o, "busy_iterations", busy);
	if (ignored)
		jset_int(o, "busy_ignored", ignored);
	jset_num(o, "max_other_cpu_pct", most);
	if (who)
		jset(o, "busiest", json_object_get(who));
	if (kernel >= 0)
		jset_num(o, "max_kernel_cpu_pct", kernel);
	jset_num(o, "threshold_pct", threshold);
	jset(doc, "host_noise", o);
}

/* ---- repeats inside one boot ---- */

/* O[KEY] += X (a number; created when absent). */
static void jadd_num(json_object *o, const char *key, double x)
{
	json_object *v = jget(o, key);
	jset(o, key, json_object_new_double((v ? json_object_get_double(v) : 0) + x));
}

/* A[] += V (a new reference); A created in O under KEY when absent. */
static void jappend(json_object *o, const char *key, json_object *v)
{
	json_object *a = jget(o, key);
	if (!a) {
		a = json_object_new_array();
		jset(o, key, a);
	}
	json_object_array_add(a, json_object_get(v));
}

void results_repeat_add(json_object *wj, json_object *rj)
{
	static const char *const times[] = { "wall_s", "user_s", "sys_s", NULL };
	json_object *ls = jget(rj, "lock_stats"), *sum, *bg = jget(rj, "background_runs");
	for (int i = 0; times[i]; i++)
		if (jget(rj, times[i]))
			jadd_num(wj, times[i], json_object_get_double(jget(rj, times[i])));
	if (bg)
		jset_int(wj, "background_runs",
			 json_object_get_int(jget(wj, "background_runs")) + json_object_get_int(bg));
	jappend(wj, "repeat_metrics", jget(rj, "metrics"));
	if (jget(rj, "extra"))
		jappend(wj, "repeat_extra", jget(rj, "extra"));
	if (jget(rj, "raw")) {
		jappend(wj, "repeat_raw", jget(rj, "raw"));
		if (!jget(wj, "raw")) /* the first repeat's, for readers of one output */
			jset(wj, "raw", json_object_get(jget(rj, "raw")));
	}
	if (!ls)
		return;
	if (!(sum = jget(wj, "lock_stats"))) {
		sum = json_object_new_object();
		jset(wj, "lock_stats", sum);
	}
	json_object_object_foreach(ls, counter, v) {
		json_object *old = jget(sum, counter);
		int64_t x = json_object_get_int64(v), y = old ? json_object_get_int64(old) : 0;
		jset_i64(sum, counter, x > INT64_MAX - y ? INT64_MAX : x + y);
	}
	jset_int(wj, "lock_stats_repeats", json_object_get_int(jget(wj, "lock_stats_repeats")) + 1);
}

void results_repeats_done(json_object *wj)
{
	json_object *rm = jget(wj, "repeat_metrics"), *first = json_object_array_get_idx(rm, 0);
	json_object *metrics = json_object_new_object(), *wb = json_object_new_object();
	size_t n = json_object_array_length(rm);
	double *v = xmalloc((n ? n : 1) * sizeof(*v));
	json_object_object_foreach(first, name, m0) {
		json_object *d, *m;
		size_t k = 0;
		for (size_t r = 0; r < n; r++) {
			json_object *x = jget(jget(json_object_array_get_idx(rm, r), name), "value");
			if (x && isfinite(json_object_get_double(x)))
				v[k++] = json_object_get_double(x);
		}
		if (!k)
			continue;
		stats_describe(v, k, d = json_object_new_object());
		m = json_object_new_object();
		jset(m, "value", json_object_new_double(json_object_get_double(jget(d, "median"))));
		jset_str(m, "unit", or_empty(jstr(m0, "unit")));
		jset_str(m, "better", or_empty(jstr(m0, "better")));
		jset(metrics, name, m);
		jset(wb, name, d);
	}
	free(v);
	jset_str(wj, "status", "ok");
	jset_int(wj, "repeats", (int)n);
	jset(wj, "metrics", metrics);
	jset(wj, "within_boot", wb);
}

json_object *results_boot_retry(json_object *ij, int attempt, const char *console,
				json_object *trouble, const char *facts_key)
{
	json_object *a = json_object_new_object(), *list = jget(ij, "boot_retries"), *f;
	const char *err = jstr(ij, "error");
	json_object_object_add(a, "attempt", json_object_new_int(attempt));
	json_object_object_add(a, "error", json_object_new_string(err ? err : "boot failed"));
	json_object_object_add(a, "console", json_object_new_string(console));
	json_object_object_add(a, "kernel_trouble", trouble);
	/* the failed boot's own facts (lava: its job and LAVA's error) stay
	 * with it: the next boot's are the iteration's */
	if (facts_key && (f = jget(ij, facts_key))) {
		json_object_object_add(a, facts_key, json_object_get(f));
		json_object_object_del(ij, facts_key);
	}
	if (!list) {
		list = json_object_new_array();
		json_object_object_add(ij, "boot_retries", list);
	}
	json_object_array_add(list, a);
	json_object_object_del(ij, "status");
	json_object_object_del(ij, "error");
	json_object_object_del(ij, "console_tail");
	return a;
}

/* ---- validation ---- */

static int verr(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

static int need(json_object *o, const char *key, json_type t, int nullable, const char *where,
		char *err, size_t len)
{
	json_object *v;
	if (!json_object_object_get_ex(o, key, &v))
		return verr(err, len, "%s: missing '%s'", where, key);
	if (!v) {
		if (nullable)
			return 0;
		return verr(err, len, "%s: '%s' is null", where, key);
	}
	if (t == json_type_double && json_object_is_type(v, json_type_int))
		return 0;
	if (!json_object_is_type(v, t))
		return verr(err, len, "%s: '%s' should be a %s, is a %s", where, key,
			    json_type_to_name(t), json_type_to_name(json_object_get_type(v)));
	return 0;
}

/* An iteration's host_noise, when there (hostnoise.h). */
/* variant.subject, where a run of a source-built variant recorded it
 * (older results have none) */
static int check_subject(json_object *v, char *err, size_t len)
{
	static const char *const keys[] = { "file", "subject", "sha256", "diffstat", "text" };
	json_object *s, *a;
	if (!json_object_object_get_ex(v, "subject", &s))
		return 0;
	if (!json_object_is_type(s, json_type_object))
		return verr(err, len, "variant: 'subject' should be an object");
	if (need(s, "patches", json_type_array, 0, "variant subject", err, len) ||
	    need(s, "config_fragments", json_type_array, 0, "variant subject", err, len) ||
	    need(s, "lock_knobs", json_type_object, 0, "variant subject", err, len))
		return -1;
	a = json_object_object_get(s, "patches");
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *p = json_object_array_get_idx(a, i);
		char w[64];
		snprintf(w, sizeof(w), "variant subject patch %zu", i + 1);
		if (!json_object_is_type(p, json_type_object))
			return verr(err, len, "%s: not an object", w);
		for (int k = 0; k < 5; k++)
			if (need(p, keys[k], k == 3 ? json_type_array : json_type_string, 0, w, err, len))
				return -1;
	}
	return 0;
}

/* host_noise.busiest, when there: [{pid, comm, cpu_pct}], HOSTNOISE_BUSIEST at most */
static int check_busiest(json_object *hn, const char *where, char *err, size_t len)
{
	json_object *a;
	char w[128];
	if (!json_object_object_get_ex(hn, "busiest", &a))
		return 0;
	if (!json_object_is_type(a, json_type_array) || json_object_array_length(a) > HOSTNOISE_BUSIEST)
		return verr(err, len, "%s: 'busiest' should be an array of at most %d processes", where,
			    HOSTNOISE_BUSIEST);
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *p = json_object_array_get_idx(a, i);
		double pct;
		snprintf(w, sizeof(w), "%s busiest %zu", where, i + 1);
		if (!json_object_is_type(p, json_type_object))
			return verr(err, len, "%s: not an object", w);
		if (need(p, "pid", json_type_int, 0, w, err, len) ||
		    need(p, "comm", json_type_string, 0, w, err, len) ||
		    need(p, "cpu_pct", json_type_double, 0, w, err, len))
			return -1;
		pct = json_object_get_double(jget(p, "cpu_pct"));
		if (!(pct >= 0 && pct <= 100))
			return verr(err, len, "%s: 'cpu_pct' should be a percentage (0 to 100), is %g", w,
				    pct);
	}
	return 0;
}

static int check_host_noise(json_object *it, const char *where, char *err, size_t len)
{
	static const char *const pcts[] = { "other_cpu_pct", "own_cpu_pct", "kernel_cpu_pct",
					    "psi_cpu_some_pct", "threshold_pct", NULL };
	json_object *hn;
	char w[96];
	if (!json_object_object_get_ex(it, "host_noise", &hn))
		return 0;
	snprintf(w, sizeof(w), "%s host_noise", where);
	if (!json_object_is_type(hn, json_type_object))
		return verr(err, len, "%s: not an object", w);
	if (need(hn, "other_cpu_pct", json_type_double, 0, w, err, len) ||
	    need(hn, "threshold_pct", json_type_double, 0, w, err, len) ||
	    need(hn, "busy", json_type_boolean, 0, w, err, len) ||
	    (jget(hn, "busy_ignored") && need(hn, "busy_ignored", json_type_boolean, 0, w, err, len)))
		return -1;
	for (int i = 0; pcts[i]; i++) {
		json_object *x = jget(hn, pcts[i]);
		double v = x ? json_object_get_double(x) : 0;
		if (x && need(hn, pcts[i], json_type_double, 0, w, err, len))
			return -1;
		if (x && !(v >= 0 && v <= 100))
			return verr(err, len, "%s: '%s' should be a percentage (0 to 100), is %g", w,
				    pcts[i], v);
	}
	return check_busiest(hn, w, err, len);
}

static int check_metrics(json_object *metrics, const char *where, char *err, size_t len)
{
	json_object_object_foreach(metrics, name, m) {
		char w[256];
		const char *better;
		double x;
		snprintf(w, sizeof(w), "%s metric '%s'", where, name);
		if (!json_object_is_type(m, json_type_object))
			return verr(err, len, "%s: not an object", w);
		if (need(m, "value", json_type_double, 0, w, err, len) ||
		    need(m, "unit", json_type_string, 0, w, err, len) ||
		    need(m, "better", json_type_string, 0, w, err, len))
			return -1;
		better = json_object_get_string(json_object_object_get(m, "better"));
		if (strcmp(better, "higher") && strcmp(better, "lower"))
			return verr(err, len, "%s: 'better' must be higher or lower", w);
		x = json_object_get_double(json_object_object_get(m, "value"));
		if (!isfinite(x))
			return verr(err, len, "%s: value is not finite", w);
	}
	return 0;
}

/* within_boot[NAME], the spread of a metric's repeats (WHERE names it). */
static int check_within(json_object *d, int repeats, const char *where, char *err, size_t len)
{
	static const char *const nums[] = { "mean", "min", "max", NULL };
	json_object *cv;
	int n;
	if (!json_object_is_type(d, json_type_object))
		return verr(err, len, "%s: not an object", where);
	if (need(d, "n", json_type_int, 0, where, err, len) ||
	    need(d, "cv", json_type_double, 1, where, err, len))
		return -1;
	n = json_object_get_int(jget(d, "n"));
	if (n < 1 || n > repeats)
		return verr(err, len, "%s: 'n' should be in 1..%d (the repeats), is %d", where, repeats, n);
	for (int i = 0; nums[i]; i++) {
		if (need(d, nums[i], json_type_double, 0, where, err, len))
			return -1;
		if (!isfinite(json_object_get_double(jget(d, nums[i]))))
			return verr(err, len, "%s: '%s' is not finite", where, nums[i]);
	}
	if (json_object_get_double(jget(d, "min")) > json_object_get_double(jget(d, "max")))
		return verr(err, len, "%s: 'min' is above 'max'", where);
	cv = jget(d, "cv");
	if (cv && !(json_object_get_double(cv) >= 0 && isfinite(json_object_get_double(cv))))
		return verr(err, len, "%s: 'cv' should be a number >= 0 or null", where);
	return 0;
}

/* An ok workload's repeats inside one boot, when it has them: repeats
 * (2..KB_REPEAT_MAX), one repeat_metrics entry per repeat, within_boot
 * for exactly the workload's metrics, lock_stats_repeats in range. */
static int check_repeats(json_object *w, const char *where, char *err, size_t len)
{
	json_object *rm, *wb, *metrics = jget(w, "metrics"), *lr = jget(w, "lock_stats_repeats");
	char ww[300];
	int r;
	if (!jget(w, "repeats") && !jget(w, "repeat_metrics") && !jget(w, "within_boot"))
		return 0;
	if (need(w, "repeats", json_type_int, 0, where, err, len) ||
	    need(w, "repeat_metrics", json_type_array, 0, where, err, len) ||
	    need(w, "within_boot", json_type_object, 0, where, err, len))
		return -1;
	r = json_object_get_int(jget(w, "repeats"));
	rm = jget(w, "repeat_metrics");
	wb = jget(w, "within_boot");
	if (r < 2 || r > KB_REPEAT_MAX)
		return verr(err, len, "%s: 'repeats' should be in 2..%d, is %d", where, KB_REPEAT_MAX, r);
	if (json_object_array_length(rm) != (size_t)r)
		return verr(err, len, "%s: 'repeat_metrics' has %zu entries, not 'repeats' (%d)", where,
			    json_object_array_length(rm), r);
	for (int i = 0; i < r; i++) {
		json_object *m = json_object_array_get_idx(rm, (size_t)i);
		snprintf(ww, sizeof(ww), "%s repeat %d", where, i + 1);
		if (!json_object_is_type(m, json_type_object))
			return verr(err, len, "%s: not an object", ww);
		if (check_metrics(m, ww, err, len))
			return -1;
	}
	json_object_object_foreach(metrics, name, m) {
		(void)m;
		snprintf(ww, sizeof(ww), "%s within_boot '%s'", where, name);
		if (!jget(wb, name))
			return verr(err, len, "%s: missing", ww);
		if (check_within(jget(wb, name), r, ww, err, len))
			return -1;
	}
	json_object_object_foreach(wb, wname, wv) {
		(void)wv;
		if (!jget(metrics, wname))
			return verr(err, len, "%s: within_boot has '%s', which is not a metric", where, wname);
	}
	if (lr && (!json_object_is_type(lr, json_type_int) || json_object_get_int(lr) < 1 ||
		   json_object_get_int(lr) > r))
		return verr(err, len, "%s: 'lock_stats_repeats' should be an integer in 1..%d", where, r);
	return 0;
}

/* Is S one line of printable ASCII, at most MAX bytes? */
static int printable_ascii(const char *s, size_t max)
{
	size_t n = 0;
	for (; s[n]; n++)
		if ((unsigned char)s[n] < 0x20 || (unsigned char)s[n] > 0x7e)
			return 0;
	return n <= max;
}

/* An iteration's "lava" object (the lava backend's facts): where it ran,
 * and LAVA's own error when the job failed (error_type, error_msg: one
 * line of printable ASCII, as lava_log.c keeps them). IT may be a
 * boot_retries entry too (a failed boot's job). */
static int check_lava(json_object *it, const char *where, char *err, size_t len)
{
	json_object *l = json_object_object_get(it, "lava"), *id;
	static const char *const strs[] = { "lab", "job_url", "device", "device_type", NULL };
	static const char *const errs[] = { "error_type", "error_msg" };
	static const size_t errmax[] = { LAVA_ERROR_TYPE_MAX - 1, LAVA_ERROR_MSG_MAX - 1 };
	if (!l)
		return 0;
	if (!json_object_is_type(l, json_type_object))
		return verr(err, len, "%s: 'lava' should be an object", where);
	id = json_object_object_get(l, "job_id");
	if (!json_object_is_type(id, json_type_int) || json_object_get_int64(id) < 1)
		return verr(err, len, "%s: lava 'job_id' should be a positive integer", where);
	for (int i = 0; strs[i]; i++) {
		json_object *v = json_object_object_get(l, strs[i]);
		if (!json_object_is_type(v, json_type_string))
			return verr(err, len, "%s: lava '%s' should be a string", where, strs[i]);
		if (path_has_control(json_object_get_string(v)))
			return verr(err, len, "%s: lava '%s' has a control character", where,
				    strs[i]);
	}
	if (json_object_object_get_ex(l, "resumed", &id) && !json_object_is_type(id, json_type_boolean))
		return verr(err, len, "%s: lava 'resumed' should be true or false", where);
	for (int i = 0; i < 2; i++)
		if (json_object_object_get_ex(l, errs[i], &id) &&
		    (!json_object_is_type(id, json_type_string) ||
		     !printable_ascii(json_object_get_string(id), errmax[i])))
			return verr(err, len, "%s: lava '%s' should be a string of printable ASCII, "
				    "at most %zu bytes", where, errs[i], errmax[i]);
	if (json_object_object_get_ex(l, "block", &id)) {
		json_object *v = json_object_object_get(id, "verified");
		const char *sha = json_object_is_type(id, json_type_object) ?
				  jstr(id, "sha256") : NULL;
		if (!json_object_is_type(id, json_type_object) ||
		    !json_object_is_type(v, json_type_boolean))
			return verr(err, len, "%s: lava 'block' should be an object with 'verified' "
				    "true or false", where);
		if (json_object_object_get(id, "sha256") &&
		    (!sha || strlen(sha) != 64 || strspn(sha, "0123456789abcdef") != 64))
			return verr(err, len, "%s: lava block 'sha256' should be 64 hex digits", where);
		if (jget(id, "error") && (!json_object_is_type(jget(id, "error"), json_type_string) ||
					  path_has_control(jstr(id, "error"))))
			return verr(err, len, "%s: lava block 'error' should be a string without "
				    "control characters", where);
	}
	return 0;
}

/* An iteration's failed boots that were tried again ("boot_retries", run.c):
 * each {attempt >= 1, error, console, kernel_trouble: a list or null}, and
 * the failed boot's own backend facts (lava: its job) checked as an
 * iteration's are. Older runs have no such key. */
static int check_boot_retries(json_object *it, const char *where, char *err, size_t len)
{
	json_object *br;
	if (!json_object_object_get_ex(it, "boot_retries", &br))
		return 0;
	if (!json_object_is_type(br, json_type_array))
		return verr(err, len, "%s: 'boot_retries' should be a list", where);
	for (size_t i = 0; i < json_object_array_length(br); i++) {
		json_object *a = json_object_array_get_idx(br, i), *kt;
		char w[96];
		snprintf(w, sizeof(w), "%s boot_retries %zu", where, i + 1);
		if (!json_object_is_type(a, json_type_object))
			return verr(err, len, "%s: not an object", w);
		if (need(a, "attempt", json_type_int, 0, w, err, len) ||
		    need(a, "error", json_type_string, 0, w, err, len) ||
		    need(a, "console", json_type_string, 0, w, err, len))
			return -1;
		if (json_object_get_int(jget(a, "attempt")) < 1)
			return verr(err, len, "%s: 'attempt' should be 1 or more", w);
		if ((kt = jget(a, "kernel_trouble")) && !json_object_is_type(kt, json_type_array))
			return verr(err, len, "%s: 'kernel_trouble' should be a list or null", w);
		if (check_lava(a, w, err, len))
			return -1;
	}
	return 0;
}

/* host.backend (a name: [a-z][a-z0-9_-]*, at most 32), host.backend_version
 * (a string) and host.target (a target's name), when present: older runs
 * lack them. */
/* host.timing (wall, instructions; absent before it was recorded: wall)
 * and host.icount_shift (0-10), which instructions timing has and wall
 * timing does not. */
static int host_timing_check(json_object *host, char *err, size_t len)
{
	json_object *t = json_object_object_get(host, "timing");
	json_object *s = json_object_object_get(host, "icount_shift");
	const char *n = t && json_object_is_type(t, json_type_string) ? json_object_get_string(t) : NULL;
	int instr = n && !strcmp(n, "instructions");
	if (t && (!n || (strcmp(n, "wall") && !instr)))
		return verr(err, len, "host: 'timing' should be wall or instructions");
	if (instr && (!s || !json_object_is_type(s, json_type_int) || json_object_get_int(s) < 0 ||
		      json_object_get_int(s) > 10))
		return verr(err, len, "host: instructions timing needs 'icount_shift', an integer 0-10");
	if (!instr && s)
		return verr(err, len, "host: 'icount_shift' belongs to instructions timing only");
	return 0;
}

const char *results_timing(json_object *doc)
{
	const char *t = jstr(json_object_object_get(doc, "host"), "timing");
	return t && !strcmp(t, "instructions") ? "instructions" : "wall";
}

const char *results_accel_key(json_object *doc, char *buf, size_t n)
{
	const char *a = jstr(json_object_object_get(doc, "host"), "accel");
	if (!a)
		return NULL;
	if (strcmp(results_timing(doc), "instructions"))
		return a;
	snprintf(buf, n, "%s+instructions", a);
	return buf;
}

/* host.guest_cpu (QEMU's -cpu: a model and its properties, 1-127 of
 * [A-Za-z0-9._,+=-]) and host.tcg_thread (multi, single): optional, absent
 * in runs before they were recorded and for backends that boot no QEMU. */
static int host_guest_cpu_check(json_object *host, char *err, size_t len)
{
	json_object *c = json_object_object_get(host, "guest_cpu");
	json_object *t = json_object_object_get(host, "tcg_thread");
	const char *n;
	size_t l;
	if (c && (!json_object_is_type(c, json_type_string) ||
		  (l = strlen(n = json_object_get_string(c))) < 1 || l > 127 ||
		  strspn(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._,+=-") != l))
		return verr(err, len, "host: 'guest_cpu' should be a QEMU CPU model (1-127 of "
			    "[A-Za-z0-9._,+=-])");
	if (t && (!json_object_is_type(t, json_type_string) ||
		  (strcmp(n = json_object_get_string(t), "multi") && strcmp(n, "single"))))
		return verr(err, len, "host: 'tcg_thread' should be multi or single");
	return host_timing_check(host, err, len);
}

static int host_backend_check(json_object *host, char *err, size_t len)
{
	json_object *b = json_object_object_get(host, "backend");
	json_object *bv = json_object_object_get(host, "backend_version");
	static const char *const names[] = { "target", "lab" };
	const char *n;
	size_t l;
	if (bv && !json_object_is_type(bv, json_type_string))
		return verr(err, len, "host: 'backend_version' should be a string");
	for (size_t i = 0; i < 2; i++) {
		json_object *t = json_object_object_get(host, names[i]);
		if (t && (!json_object_is_type(t, json_type_string) ||
			  (l = strlen(n = json_object_get_string(t))) < 1 || l > 64 ||
			  strspn(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") != l))
			return verr(err, len, "host: '%s' should be a %s's name (1-64 of [A-Za-z0-9._-])",
				    names[i], names[i]);
	}
	if (host_guest_cpu_check(host, err, len))
		return -1;
	if (!b)
		return 0;
	if (!json_object_is_type(b, json_type_string))
		return verr(err, len, "host: 'backend' should be a string");
	n = json_object_get_string(b);
	l = strlen(n);
	if (l < 1 || l > 32 || n[0] < 'a' || n[0] > 'z' ||
	    strspn(n, "abcdefghijklmnopqrstuvwxyz0123456789_-") != l)
		return verr(err, len, "host: 'backend' should be a backend name ([a-z][a-z0-9_-]*), "
			    "got '%.40s'", n);
	return 0;
}

int results_validate(json_object *doc, char *err, size_t len)
{
	json_object *v, *its;
	static const char *const statuses[] = { "running", "complete", "partial", "interrupted", NULL };
	int found = 0;

	if (!json_object_is_type(doc, json_type_object))
		return verr(err, len, "top level is not an object");
	if (need(doc, "schema", json_type_string, 0, "top level", err, len))
		return -1;
	if (strcmp(json_object_get_string(json_object_object_get(doc, "schema")), RESULTS_SCHEMA))
		return verr(err, len, "not a kbench results file (schema '%s')",
			    json_object_get_string(json_object_object_get(doc, "schema")));
	if (need(doc, "schema_version", json_type_int, 0, "top level", err, len))
		return -1;
	if (json_object_get_int(json_object_object_get(doc, "schema_version")) != RESULTS_SCHEMA_VERSION)
		return verr(err, len, "schema version %d, this kbench reads %d",
			    json_object_get_int(json_object_object_get(doc, "schema_version")),
			    RESULTS_SCHEMA_VERSION);
	if (need(doc, "run_id", json_type_string, 0, "top level", err, len) ||
	    need(doc, "started", json_type_string, 0, "top level", err, len) ||
	    need(doc, "finished", json_type_string, 1, "top level", err, len) ||
	    need(doc, "status", json_type_string, 0, "top level", err, len) ||
	    need(doc, "kbench", json_type_object, 0, "top level", err, len) ||
	    need(doc, "host", json_type_object, 0, "top level", err, len) ||
	    need(doc, "guest", json_type_object, 0, "top level", err, len) ||
	    need(doc, "variant", json_type_object, 0, "top level", err, len) ||
	    need(doc, "suite", json_type_object, 0, "top level", err, len) ||
	    need(doc, "iterations", json_type_array, 0, "top level", err, len))
		return -1;
	for (int i = 0; statuses[i]; i++)
		found |= !strcmp(statuses[i], json_object_get_string(json_object_object_get(doc, "status")));
	if (!found)
		return verr(err, len, "top level: unknown status '%s'",
			    json_object_get_string(json_object_object_get(doc, "status")));
	v = json_object_object_get(doc, "kbench");
	if (need(v, "version", json_type_string, 0, "kbench", err, len) ||
	    need(v, "commit", json_type_string, 0, "kbench", err, len))
		return -1;
	v = json_object_object_get(doc, "host");
	if (need(v, "cpu_model", json_type_string, 0, "host", err, len) ||
	    need(v, "cores", json_type_int, 0, "host", err, len) ||
	    need(v, "mem_mb", json_type_int, 0, "host", err, len) ||
	    need(v, "kernel", json_type_string, 0, "host", err, len) ||
	    need(v, "qemu", json_type_string, 0, "host", err, len) ||
	    need(v, "accel", json_type_string, 0, "host", err, len) ||
	    host_backend_check(v, err, len))
		return -1;
	v = json_object_object_get(doc, "variant");
	if (need(v, "name", json_type_string, 0, "variant", err, len) ||
	    need(v, "source", json_type_string, 0, "variant", err, len) ||
	    need(v, "package_version", json_type_string, 0, "variant", err, len) ||
	    need(v, "kernel_release", json_type_string, 1, "variant", err, len) ||
	    need(v, "realtime", json_type_string, 1, "variant", err, len) ||
	    need(v, "cmdline", json_type_string, 1, "variant", err, len) ||
	    need(v, "config_hash", json_type_string, 1, "variant", err, len) ||
	    check_subject(v, err, len))
		return -1;
	v = json_object_object_get(doc, "suite");
	if (need(v, "name", json_type_string, 0, "suite", err, len) ||
	    need(v, "iterations", json_type_int, 0, "suite", err, len) ||
	    need(v, "workloads", json_type_array, 0, "suite", err, len))
		return -1;
	for (size_t i = 0; i < json_object_array_length(json_object_object_get(v, "workloads")); i++) {
		json_object *w = json_object_array_get_idx(json_object_object_get(v, "workloads"), i);
		if (!json_object_is_type(w, json_type_object) ||
		    need(w, "label", json_type_string, 0, "suite workload", err, len) ||
		    need(w, "workload", json_type_string, 0, "suite workload", err, len) ||
		    need(w, "params", json_type_object, 0, "suite workload", err, len))
			return err[0] ? -1 : verr(err, len, "suite workload %zu is not an object", i);
		if (jget(w, "repeat") && (!json_object_is_type(jget(w, "repeat"), json_type_int) ||
					  json_object_get_int(jget(w, "repeat")) < 1 ||
					  json_object_get_int(jget(w, "repeat")) > KB_REPEAT_MAX))
			return verr(err, len, "suite workload %zu: 'repeat' should be an integer in 1..%d",
				    i + 1, KB_REPEAT_MAX);
	}
	its = json_object_object_get(doc, "iterations");
	for (size_t i = 0; i < json_object_array_length(its); i++) {
		json_object *it = json_object_array_get_idx(its, i), *wl;
		char where[64];
		const char *st;
		snprintf(where, sizeof(where), "iteration %zu", i + 1);
		if (!json_object_is_type(it, json_type_object))
			return verr(err, len, "%s: not an object", where);
		if (need(it, "index", json_type_int, 0, where, err, len) ||
		    need(it, "status", json_type_string, 0, where, err, len) ||
		    need(it, "warmup", json_type_boolean, 0, where, err, len) ||
		    need(it, "workloads", json_type_array, 0, where, err, len))
			return -1;
		st = json_object_get_string(json_object_object_get(it, "status"));
		if (strcmp(st, "ok") && strcmp(st, "failed"))
			return verr(err, len, "%s: status must be ok or failed", where);
		if (!strcmp(st, "failed") && need(it, "error", json_type_string, 0, where, err, len))
			return -1;
		if ((!strcmp(st, "ok") && need(it, "boot_s", json_type_double, 0, where, err, len)) ||
		    check_host_noise(it, where, err, len) || check_lava(it, where, err, len) ||
		    check_boot_retries(it, where, err, len))
			return -1;
		wl = json_object_object_get(it, "workloads");
		for (size_t j = 0; j < json_object_array_length(wl); j++) {
			json_object *w = json_object_array_get_idx(wl, j);
			char ww[128];
			snprintf(ww, sizeof(ww), "%s workload %zu", where, j + 1);
			if (!json_object_is_type(w, json_type_object))
				return verr(err, len, "%s: not an object", ww);
			if (need(w, "label", json_type_string, 0, ww, err, len) ||
			    need(w, "status", json_type_string, 0, ww, err, len))
				return -1;
			if (!strcmp(json_object_get_string(json_object_object_get(w, "status")), "ok")) {
				if (need(w, "metrics", json_type_object, 0, ww, err, len) ||
				    check_metrics(json_object_object_get(w, "metrics"), ww, err, len) ||
				    check_repeats(w, ww, err, len))
					return -1;
			} else if (need(w, "error", json_type_string, 0, ww, err, len)) {
				return -1;
			}
		}
	}
	return 0;
}

json_object *results_parse(const char *buf, size_t len, const char *name)
{
	json_tokener *tok = json_tokener_new();
	json_object *doc;
	char err[512] = "";
	size_t end;

	doc = json_tokener_parse_ex(tok, buf, (int)len);
	end = json_tokener_get_parse_end(tok);
	if (json_tokener_get_error(tok) != json_tokener_success || !doc) {
		/* find the line of the byte offset where parsing stopped */
		int line = 1;
		for (size_t i = 0; i < end && i < len; i++)
			line += buf[i] == '\n';
		error("'%s' line %d: not valid JSON (%s)%s", name, line,
		      json_tokener_error_desc(json_tokener_get_error(tok)),
		      json_tokener_get_error(tok) == json_tokener_continue ? ": the file is truncated" : "");
		json_object_put(doc);
		doc = NULL;
		goto out;
	}
	/* one document: only white space may follow it */
	while (end < len && (buf[end] == ' ' || buf[end] == '\t' || buf[end] == '\n' ||
			     buf[end] == '\r'))
		end++;
	if (end < len) {
		int line = 1;
		for (size_t i = 0; i < end; i++)
			line += buf[i] == '\n';
		error("'%s' line %d: data after the JSON document", name, line);
		json_object_put(doc);
		doc = NULL;
	} else if (results_validate(doc, err, sizeof(err))) {
		error("'%s': %s", name, err);
		json_object_put(doc);
		doc = NULL;
	}
out:
	json_tokener_free(tok);
	return doc;
}

json_object *results_load(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	json_object *doc = NULL;

	if (read_file(path, &sb, 256u << 20) == 0)
		doc = results_parse(sb.buf ? sb.buf : "", sb.len, path);
	sb_release(&sb);
	return doc;
}

/* ---- the document a run writes ---- */

static json_object *jstr_or_null(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

/* Kernel options that change speed or latency: the report shows those
 * that differ between variants (issue: diff configs before comparing). */
static const char *const speed_options[] = {
	"CONFIG_PREEMPT_RT", "CONFIG_PREEMPT", "CONFIG_PREEMPT_VOLUNTARY", "CONFIG_PREEMPT_NONE",
	"CONFIG_PREEMPT_DYNAMIC", "CONFIG_PREEMPT_LAZY", "CONFIG_HZ", "CONFIG_NO_HZ_IDLE",
	"CONFIG_NO_HZ_FULL", "CONFIG_HIGH_RES_TIMERS", "CONFIG_PARAVIRT_SPINLOCKS",
	"CONFIG_QUEUED_SPINLOCKS", "CONFIG_QUEUED_RWLOCKS", "CONFIG_RCU_BOOST",
	"CONFIG_RCU_NOCB_CPU", "CONFIG_TRANSPARENT_HUGEPAGE", "CONFIG_NUMA", "CONFIG_NUMA_BALANCING",
	"CONFIG_SLUB_TINY", "CONFIG_SLUB_CPU_PARTIAL", "CONFIG_CC_OPTIMIZE_FOR_SIZE",
	"CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE", "CONFIG_SCHED_AUTOGROUP", "CONFIG_CGROUP_SCHED",
	"CONFIG_INIT_ON_ALLOC_DEFAULT_ON", "CONFIG_RANDOMIZE_KSTACK_OFFSET_DEFAULT",
	"CONFIG_MITIGATION_RETPOLINE", "CONFIG_VIRT_CPU_ACCOUNTING_GEN", "CONFIG_PROVE_LOCKING",
	"CONFIG_DEBUG_RT_MUTEXES", "CONFIG_LOCKDEP", "CONFIG_KASAN", "CONFIG_DEBUG_PREEMPT",
	"CONFIG_MODULES", "CONFIG_NR_CPUS", NULL,
};

/* The speed-relevant options of a kernel .config ("n" when not set). */
static json_object *config_speed(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	json_object *o;
	if (!path || !*path || read_file(path, &sb, 16u << 20) || !sb.buf) {
		sb_release(&sb);
		return NULL;
	}
	o = json_object_new_object();
	for (int i = 0; speed_options[i]; i++) {
		char key[80];
		const char *p;
		size_t kl = (size_t)snprintf(key, sizeof(key), "\n%s=", speed_options[i]);
		char val[64] = "n";
		if ((p = strstr(sb.buf, key)))
			snprintf(val, sizeof(val), "%.*s", (int)strcspn(p + kl, "\n"), p + kl);
		json_object_object_add(o, speed_options[i], json_object_new_string(val));
	}
	sb_release(&sb);
	return o;
}

/* Where a kernel image came from (source = image). */
static json_object *image_json(const struct variant *v, const struct kernel_image *k)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "path", json_object_new_string(v->image));
	json_object_object_add(o, "sha256", json_object_new_string(k->image_sha256));
	json_object_object_add(o, "version", json_object_new_string(k->banner));
	json_object_object_add(o, "config", jstr_or_null(k->config));
	json_object_object_add(o, "modules", jstr_or_null(k->moddir));
	return o;
}

static json_object *variant_json(const struct results_head *h)
{
	json_object *jv = json_object_new_object();
	const struct variant *v = h->variant;
	const struct kernel_image *k = h->kernel;
	json_object *cs, *rt, *subj;
	json_object_object_add(jv, "name", json_object_new_string(v->name));
	json_object_object_add(jv, "description", jstr_or_null(v->description));
	json_object_object_add(jv, "source", json_object_new_string(
		v->source == VSRC_BUILD ? "build" : v->source == VSRC_RUNNING ? "running" :
		v->source == VSRC_IMAGE ? "image" : "debian-image"));
	if (v->source == VSRC_IMAGE)
		json_object_object_add(jv, "image", image_json(v, k));
	json_object_object_add(jv, "test_only", json_object_new_boolean(v->test_only));
	json_object_object_add(jv, "package", json_object_new_string(k->package));
	json_object_object_add(jv, "package_version", json_object_new_string(k->version));
	json_object_object_add(jv, "metapackage", json_object_new_string(v->package));
	json_object_object_add(jv, "image_release", json_object_new_string(k->release));
	json_object_object_add(jv, "config_hash", jstr_or_null(k->config_hash));
	json_object_object_add(jv, "config_speed", cs = config_speed(k->config));
	json_object_object_add(jv, "extra_cmdline", json_object_new_string(h->cmdline));
	if (v->source == VSRC_BUILD && (subj = subject_json(v, h->cmdline)))
		json_object_object_add(jv, "subject", subj);
	/* filled from the guest's hello (results_note_guest) */
	json_object_object_add(jv, "kernel_release", NULL);
	/* until a guest says otherwise: the kernel's own config, or the
	 * version string of an image without one */
	rt = cs ? json_object_object_get(cs, "CONFIG_PREEMPT_RT") : NULL;
	if (rt) {
		json_object_object_add(jv, "realtime", json_object_new_string(
			strcmp(json_object_get_string(rt), "y") ? "0" : "1"));
		json_object_object_add(jv, "realtime_source", json_object_new_string("config"));
	} else if (k->banner[0]) {
		json_object_object_add(jv, "realtime", json_object_new_string(
			strstr(k->banner, "PREEMPT_RT") ? "1" : "0"));
		json_object_object_add(jv, "realtime_source", json_object_new_string("uname"));
	} else {
		json_object_object_add(jv, "realtime", NULL);
		json_object_object_add(jv, "realtime_source", NULL);
	}
	json_object_object_add(jv, "preempt_rt", NULL);
	json_object_object_add(jv, "cmdline", NULL);
	return jv;
}

static json_object *suite_json(const struct results_head *h)
{
	const struct suite *s = h->suite;
	json_object *js = json_object_new_object(), *wls = json_object_new_array();
	json_object_object_add(js, "name", json_object_new_string(s->name));
	json_object_object_add(js, "description", json_object_new_string(s->description));
	json_object_object_add(js, "path", json_object_new_string(s->path));
	json_object_object_add(js, "iterations", json_object_new_int(h->iterations));
	json_object_object_add(js, "warmup", json_object_new_int(s->warmup));
	for (size_t i = 0; i < s->n; i++) {
		json_object *w = json_object_new_object();
		json_object_object_add(w, "label", json_object_new_string(s->w[i].label));
		json_object_object_add(w, "workload", json_object_new_string(s->w[i].ops->name));
		json_object_object_add(w, "params", opts_to_json(s->w[i].params, s->w[i].ops->opts));
		json_object_object_add(w, "timeout_s", s->w[i].timeout_s ?
				       json_object_new_int(s->w[i].timeout_s) : NULL);
		if (s->w[i].repeat > 1) /* absent: 1, as in runs before the key */
			json_object_object_add(w, "repeat", json_object_new_int(s->w[i].repeat));
		json_object_array_add(wls, w);
	}
	json_object_object_add(js, "workloads", wls);
	return js;
}

json_object *results_new(const struct results_head *h)
{
	json_object *doc = json_object_new_object(), *o;
	char started[32];
	iso8601_now(started, sizeof(started));
	json_object_object_add(doc, "schema", json_object_new_string(RESULTS_SCHEMA));
	json_object_object_add(doc, "schema_version", json_object_new_int(RESULTS_SCHEMA_VERSION));
	json_object_object_add(doc, "run_id", json_object_new_string(h->run_id));
	json_object_object_add(doc, "started", json_object_new_string(started));
	json_object_object_add(doc, "finished", NULL);
	json_object_object_add(doc, "status", json_object_new_string("running"));
	o = json_object_new_object();
	json_object_object_add(o, "version", json_object_new_string(KB_VERSION));
	json_object_object_add(o, "commit", json_object_new_string(KB_GIT_COMMIT));
	json_object_object_add(doc, "kbench", o);
	json_object_object_add(doc, "host", h->host);
	o = json_object_new_object();
	json_object_object_add(o, "vcpus", json_object_new_int(h->vcpus));
	json_object_object_add(o, "mem_mb", json_object_new_int(h->mem_mb));
	json_object_object_add(o, "scratch_mb", json_object_new_int(h->scratch_mb));
	json_object_object_add(doc, "guest", o);
	json_object_object_add(doc, "variant", variant_json(h));
	json_object_object_add(doc, "suite", suite_json(h));
	json_object_object_add(doc, "iterations", json_object_new_array());
	return doc;
}

void results_resumed(json_object *doc)
{
	json_object *rs = json_object_object_get(doc, "resumed");
	char now[32];
	iso8601_now(now, sizeof(now));
	if (!rs || !json_object_is_type(rs, json_type_array)) {
		rs = json_object_new_array();
		json_object_object_add(doc, "resumed", rs);
	}
	json_object_array_add(rs, json_object_new_string(now));
	json_object_object_add(doc, "status", json_object_new_string("running"));
	json_object_object_add(doc, "finished", NULL);
}

void results_note_guest(json_object *doc, json_object *ij)
{
	static const char *const map[][2] = { { "kernel", "kernel_release" },
					       { "realtime", "realtime" },
					       { "cmdline", "cmdline" } };
	json_object *gh = json_object_object_get(ij, "guest");
	json_object *vv = json_object_object_get(doc, "variant");
	json_object *rp = json_object_object_get(gh, "rtmutex_params");
	json_object *kv = json_object_object_get(gh, "kernel_version");
	json_object *rt;
	if (!gh)
		return;
	/* /sys/kernel/realtime is a Debian addition; uname -v says
	 * PREEMPT_RT on every RT kernel */
	if (kv && json_object_is_type(kv, json_type_string))
		json_object_object_add(vv, "preempt_rt", json_object_new_boolean(
			strstr(json_object_get_string(kv), "PREEMPT_RT") != NULL));
	if (rp && json_object_is_type(rp, json_type_object))
		json_object_object_add(vv, "rtmutex_params", json_object_get(rp));
	for (int m = 0; m < 3; m++) {
		json_object *x = json_object_object_get(gh, map[m][0]);
		if (x && json_object_is_type(x, json_type_string))
			json_object_object_add(vv, map[m][1],
					       json_object_new_string(json_object_get_string(x)));
	}
	/* realtime: /sys/kernel/realtime where the kernel has it (a Debian
	 * addition), else the running kernel's uname -v, else (no guest) the
	 * config, as variant_json set it */
	rt = json_object_object_get(gh, "realtime");
	if (rt && json_object_is_type(rt, json_type_string)) {
		json_object_object_add(vv, "realtime_source", json_object_new_string("sysfs"));
	} else if (kv && json_object_is_type(kv, json_type_string)) {
		json_object_object_add(vv, "realtime", json_object_new_string(
			strstr(json_object_get_string(kv), "PREEMPT_RT") ? "1" : "0"));
		json_object_object_add(vv, "realtime_source", json_object_new_string("uname"));
	}
}

void results_finish(json_object *doc, int interrupted, int failed)
{
	char finished[32];
	iso8601_now(finished, sizeof(finished));
	json_object_object_add(doc, "finished", json_object_new_string(finished));
	json_object_object_add(doc, "status", json_object_new_string(
		interrupted ? "interrupted" : failed ? "partial" : "complete"));
	results_summarize(doc);
}
