/* targets.c - one fuzz target per parser of untrusted input (targets.h):
 * workload outputs, the reference patch's lock counters, lines from the
 * guest agent, suite and variant files, stored results.json files
 * (loaded, then compared and rendered as the report would be), and the
 * boot header of a kernel image the user names. */
#include "targets.h"
#include "workloads/workloads.h"
#include "stats/compare.h"
#include "core/config.h"
#include "core/target.h"
#include "core/lab.h"
#include "backend/lava_log.h"
#include "kernel/userimage.h"
#include "kernel/source.h"
#include "backend/backend.h"
#include "backend/guest.h"
#include "report/report.h"
#include "run/results.h"
#include "run/sweep.h"
#include "run/run.h"
#include "run/trouble.h"
#include "core/ids.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* A broken contract: say which, then crash so the fuzzer keeps the input. */
#define FUZZ_ASSERT(cond)                                                             \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "fuzz: %s:%d: contract broken: %s\n", __FILE__, \
				__LINE__, #cond);                                     \
			abort();                                                      \
		}                                                                     \
	} while (0)

void fuzz_init(void)
{
	kb_quiet = 1;
}

/* A reason for a message: not empty, no control bytes but tabs. */
static int reason_ok(const char *msg)
{
	if (!*msg)
		return 0;
	for (; *msg; msg++)
		if ((unsigned char)*msg < 0x20 && *msg != '\t')
			return 0;
	return 1;
}

/* ---- workload outputs ---- */

/*
 * "@ key=value ...\n" as the first line sets the workload's parameters
 * through its option table (and its check); the rest is the output.
 * Without it, the parameters are the defaults for 2 vCPUs. Returns -1
 * when the line does not describe a run kbench could ask for.
 */
static int set_params(const struct workload_ops *w, void *params, const uint8_t **data,
		      size_t *size)
{
	const uint8_t *nl;
	char line[512], err[300], *save = NULL;
	size_t n;

	w->defaults(params, 2);
	if (*size < 2 || (*data)[0] != '@' || (*data)[1] != ' ')
		return 0;
	nl = memchr(*data, '\n', *size);
	n = nl ? (size_t)(nl - *data) : 0;
	if (!nl || n >= sizeof(line) || memchr(*data, '\0', n))
		return -1;
	memcpy(line, *data + 2, n - 2);
	line[n - 2] = '\0';
	for (char *kv = strtok_r(line, " ", &save); kv; kv = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(kv, '=');
		const struct opt_def *d;
		if (!eq)
			return -1;
		*eq = '\0';
		d = opt_find(w->opts, kv);
		if (!d || opt_set(params, d, eq + 1, err, sizeof(err)))
			return -1;
	}
	if (w->check && w->check(params, err, sizeof(err)))
		return -1;
	*data = nl + 1;
	*size -= n + 1;
	return 0;
}

/* The value of metric NAME, which must be there. */
static double metric(const struct metric_set *ms, const char *name)
{
	const struct metric *m = metric_set_get(ms, name);
	FUZZ_ASSERT(m != NULL);
	return m->value;
}

/* What accepted cyclictest output must give: min <= avg <= max, and
 * percentiles rising from min to max (overflows count at max). */
static void check_latencies(const struct metric_set *ms)
{
	static const char *const rising[] = {
		"lat_min", "lat_p50", "lat_p90", "lat_p99", "lat_p99_9", "lat_p99_99", "lat_max",
	};
	for (size_t i = 1; i < sizeof(rising) / sizeof(rising[0]); i++)
		FUZZ_ASSERT(metric(ms, rising[i - 1]) <= metric(ms, rising[i]));
	FUZZ_ASSERT(metric(ms, "lat_min") <= metric(ms, "lat_avg"));
	FUZZ_ASSERT(metric(ms, "lat_avg") <= metric(ms, "lat_max"));
}

/* Parse as workload W; check what the parser promises either way. */
static int fuzz_workload(const char *name, const uint8_t *data, size_t size)
{
	const struct workload_ops *w = workload_find(name);
	void *params = xcalloc(1, w->params_size);
	struct metric_set ms = METRIC_SET_INIT;
	struct parse_error perr = { 0, "" };
	char *buf = NULL;
	size_t lines = 0;

	if (set_params(w, params, &data, &size))
		goto out;
	/* exactly SIZE bytes, no terminator: ASan sees any read past the end */
	buf = xmalloc(size ? size : 1);
	if (size)
		memcpy(buf, data, size);
	for (size_t i = 0; i < size; i++)
		lines += buf[i] == '\n';
	if (w->parse(params, buf, size, &ms, &perr)) {
		FUZZ_ASSERT(reason_ok(perr.msg));
		FUZZ_ASSERT(perr.line >= 0 && (size_t)perr.line <= lines + 1);
		FUZZ_ASSERT(ms.n == 0);
	} else {
		/* kbuild's metrics are the agent's times: its parse checks and
		 * counts, into extra */
		FUZZ_ASSERT(ms.n > 0 || (!strcmp(name, "kbuild") && ms.extra));
		for (size_t i = 0; i < ms.n; i++)
			FUZZ_ASSERT(isfinite(ms.v[i].value) && ms.v[i].value >= 0);
		if (ms.extra)
			FUZZ_ASSERT(json_object_to_json_string(ms.extra) != NULL);
		if (!strcmp(name, "cyclictest"))
			check_latencies(&ms);
	}
out:
	metric_set_release(&ms);
	free(buf);
	free(params);
	return 0;
}

/* fuzz_hackbench, fuzz_dbench, ...: one per line of workloads/list.h */
#define WORKLOAD(name)                                              \
	static int fuzz_##name(const uint8_t *data, size_t size)    \
	{                                                           \
		return fuzz_workload(#name, data, size);            \
	}
#include "workloads/list.h"

/* ---- console logs scanned for kernel trouble (trouble.c) ---- */

static int fuzz_trouble(const uint8_t *data, size_t size)
{
	char *buf = xmalloc(size ? size : 1);
	json_object *t;
	if (size)
		memcpy(buf, data, size);
	t = trouble_scan(buf, size);
	if (t) {
		size_t n = json_object_array_length(t);
		char kinds[200];
		FUZZ_ASSERT(n > 0 && n <= TROUBLE_MAX);
		for (size_t i = 0; i < n; i++) {
			json_object *f = json_object_array_get_idx(t, i);
			const char *ex = json_object_get_string(json_object_object_get(f, "excerpt"));
			FUZZ_ASSERT(json_object_get_int(json_object_object_get(f, "line")) >= 1);
			/* excerpts are printable: they go to terminals and HTML */
			for (; ex && *ex; ex++)
				FUZZ_ASSERT(*ex == '\n' || (unsigned char)*ex >= 0x20);
		}
		trouble_kinds(t, kinds, sizeof(kinds));
		FUZZ_ASSERT(kinds[0] != '\0');
	}
	json_object_put(t);
	free(buf);
	return 0;
}

/* ---- lock counters (a string the agent read from debugfs) ---- */

static int fuzz_lock_stats(const uint8_t *data, size_t size)
{
	char *text = xmalloc(size + 1);
	json_object *o;

	memcpy(text, data, size);
	text[size] = '\0';
	o = parse_lock_stats(text);
	if (o) {
		FUZZ_ASSERT(json_object_is_type(o, json_type_object));
		FUZZ_ASSERT(json_object_object_length(o) <= 256);
		json_object_object_foreach(o, k, v) {
			FUZZ_ASSERT(*k && strlen(k) < 64 &&
				    strspn(k, "abcdefghijklmnopqrstuvwxyz_.") == strlen(k));
			FUZZ_ASSERT(json_object_is_type(v, json_type_int) &&
				    json_object_get_int64(v) >= 0);
		}
	}
	json_object_put(o);
	free(text);
	return 0;
}

/* ---- one line from the guest agent ---- */

static int fuzz_proto(const uint8_t *data, size_t size)
{
	char *buf = xmalloc(size ? size : 1), err[512] = "";
	json_object *o = NULL, *v;

	if (size)
		memcpy(buf, data, size);
	if (proto_parse_line(buf, size, &o, err, sizeof(err))) {
		FUZZ_ASSERT(!o && reason_ok(err));
	} else {
		FUZZ_ASSERT(o && json_object_is_type(o, json_type_object));
		FUZZ_ASSERT(json_object_object_get_ex(o, "op", &v) &&
			    json_object_is_type(v, json_type_string));
	}
	json_object_put(o);
	free(buf);
	return 0;
}

/* ---- suite and variant files ---- */

/* A lab file (core/lab.c): what the lava backend relies on holds. */
static void fuzz_lab(const char *path)
{
	struct lab l;
	if (lab_load(path, &l) == 0) {
		size_t n = strlen(l.url);
		FUZZ_ASSERT(!strncmp(l.url, "http", 4) && n && l.url[n - 1] == '/');
		FUZZ_ASSERT(!strchr(l.url, '@') && !strpbrk(l.url, " \t\n\"'"));
		FUZZ_ASSERT(l.token_file[0] && l.artifacts[0] == '/');
		FUZZ_ASSERT(l.device_type[0] || l.tags.n > 0);
		FUZZ_ASSERT(!l.device_type[0] || lab_template_for(&l, l.device_type));
		FUZZ_ASSERT(l.poll_interval_s >= 1 && l.job_timeout_s >= 30);
	}
	lab_release(&l);
}

/*
 * The loaders read files by path: hand them an in-memory file. Every input
 * goes through all three, suites, variants and targets (a variant file is
 * a bad suite and the other way round, all worth trying).
 */
static int fuzz_config(const uint8_t *data, size_t size)
{
	char path[64];
	struct suite s;
	struct variant v;
	struct target t;
	int fd = memfd_create("fuzz.ini", MFD_CLOEXEC);

	FUZZ_ASSERT(fd >= 0);
	FUZZ_ASSERT(write(fd, data, size) == (ssize_t)size);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (suite_load(path, 2, &s) == 0) {
		FUZZ_ASSERT(s.name[0] && s.n > 0 && s.iterations >= 1);
		for (size_t i = 0; i < s.n; i++) {
			char err[300];
			FUZZ_ASSERT(s.w[i].ops && s.w[i].params);
			FUZZ_ASSERT(!s.w[i].ops->check ||
				    !s.w[i].ops->check(s.w[i].params, err, sizeof(err)));
		}
		suite_release(&s);
	}
	if (variant_load(path, &v) == 0)
		FUZZ_ASSERT(v.name[0]);
	if (target_load(path, &t) == 0) {
		FUZZ_ASSERT(t.host[0] && t.host[0] != '-' && t.known_hosts[0] && t.port > 0);
		target_release(&t);
	}
	fuzz_lab(path);
	close(fd);
	return 0;
}

/* ---- a LAVA lab's output (backend/lava_log.c) ---- */

/* No control byte but tabs and newlines in a console. */
static int console_ok(const struct strbuf *sb)
{
	for (size_t i = 0; i < sb->len; i++)
		if ((unsigned char)sb->buf[i] < 0x20 && sb->buf[i] != '\t' && sb->buf[i] != '\n')
			return 0;
	return 1;
}

/* A block found in TEXT is whole and verified, or refused with a reason. */
static void fuzz_block(const char *text, size_t len)
{
	struct strbuf out = STRBUF_INIT;
	char err[512] = "";
	int r = lava_block_extract(text, len, &out, err, sizeof(err));
	FUZZ_ASSERT(r >= -1 && r <= 1);
	if (r < 0)
		FUZZ_ASSERT(reason_ok(err));
	if (r > 0) {
		char hex[65];
		FUZZ_ASSERT(out.len <= LAVA_BLOCK_MAX);
		sha256_hex(out.buf ? out.buf : "", out.len, hex);
		FUZZ_ASSERT(memmem(text, len, hex, 64));
	}
	sb_release(&out);
}

/* A job log: console lines out, or a reason; and any block in them. The
 * input is also taken as a console itself. */
static int fuzz_lava_log(const uint8_t *data, size_t size)
{
	struct strbuf con = STRBUF_INIT;
	struct lava_job_error je;
	char err[512] = "", says[LAVA_ERROR_MSG_MAX + 96];
	if (lava_log_parse((const char *)data, size, &con, &je, err, sizeof(err)) == 0) {
		FUZZ_ASSERT(console_ok(&con));
		/* LAVA's error: one line of printable ASCII, whatever the log held */
		FUZZ_ASSERT(memchr(je.type, '\0', sizeof(je.type)) != NULL);
		FUZZ_ASSERT(memchr(je.msg, '\0', sizeof(je.msg)) != NULL);
		lava_job_error_text(&je, says, sizeof(says));
		for (const char *p = says; *p; p++)
			FUZZ_ASSERT(*p >= 0x20 && *p < 0x7f);
		fuzz_block(con.buf ? con.buf : "", con.len);
	} else {
		FUZZ_ASSERT(reason_ok(err));
	}
	sb_release(&con);
	fuzz_block((const char *)data, size);
	return 0;
}

/* The REST API's answers: a job, a submit, an error message. */
static int fuzz_lava_api(const uint8_t *data, size_t size)
{
	struct lava_job j;
	char err[512] = "", msg[256];
	long long id = 0;
	if (lava_job_parse((const char *)data, size, &j, err, sizeof(err)) == 0) {
		FUZZ_ASSERT(j.id > 0 && strcmp(lava_state_name(j.state), "?") &&
			    strcmp(lava_health_name(j.health), "?"));
		for (const char *p = j.failure; *p; p++)
			FUZZ_ASSERT((unsigned char)*p >= 0x20);
	} else {
		FUZZ_ASSERT(reason_ok(err));
	}
	if (lava_submit_parse((const char *)data, size, &id, err, sizeof(err)) == 0)
		FUZZ_ASSERT(id > 0);
	{
		struct lava_device d[8];
		int n = -1;
		if (lava_devices_parse((const char *)data, size, d, 8, &n, err, sizeof(err)) == 0)
			FUZZ_ASSERT(n >= 0 && n <= 8 && (!n || d[n - 1].name[0]));
		else
			FUZZ_ASSERT(reason_ok(err));
	}
	lava_error_message((const char *)data, size, msg, sizeof(msg));
	for (const char *p = msg; *p; p++)
		FUZZ_ASSERT((unsigned char)*p >= 0x20 && *p != 0x7f);
	return 0;
}

/* ---- stored results ---- */

/*
 * Load as results.json; when accepted, compare it with itself (baseline
 * against current), as `kbench compare` would, and render the report.
 */
static int fuzz_results(const uint8_t *data, size_t size)
{
	char *buf = xmalloc(size ? size : 1);
	struct cmp_input inputs[2] = { { 0 } };
	struct cmp_inputs in = { inputs, 2 };
	struct cmp_opts o;
	struct comparison c;
	struct strbuf html = STRBUF_INIT;
	json_object *doc, *cj;

	if (size)
		memcpy(buf, data, size);
	doc = results_parse(buf, size, "fuzz.json");
	if (!doc)
		goto out;
	inputs[0] = (struct cmp_input){ "a/results.json", "baseline", doc };
	inputs[1] = (struct cmp_input){ "b/results.json", "current", doc };
	cmp_opts_init(&o);
	o.reps = 20;
	if (comparison_build(&c, &in, &o) == 0) {
		cj = comparison_to_json(&c);
		FUZZ_ASSERT(json_object_to_json_string(cj) != NULL);
		json_object_put(cj);
		report_html(&c, &html);
		FUZZ_ASSERT(html.len > 0);
		comparison_release(&c);
	} else {
		comparison_release(&c);
	}
	cmp_opts_release(&o);
	json_object_put(doc);
out:
	sb_release(&html);
	free(buf);
	return 0;
}

/* A kernel image's boot header (the user's file, --kernel-image). */
static int fuzz_bzimage(const uint8_t *data, size_t size)
{
	struct bzimage_info bi;
	char err[300] = "";
	if (bzimage_parse(data, size, &bi, err, sizeof(err))) {
		FUZZ_ASSERT(reason_ok(err));
		return 0;
	}
	FUZZ_ASSERT(bi.release[0] && !strchr(bi.release, '/') && !strchr(bi.release, ' '));
	FUZZ_ASSERT(strlen(bi.version) < sizeof(bi.version) && bi.x86_64 != 0);
	for (const char *p = bi.version; *p; p++)
		FUZZ_ASSERT(*p >= 0x20 && *p <= 0x7e);
	return 0;
}

/* ---- a remote machine's running config and /proc/modules (kbench
 * target-config): the machine's answer split at its markers into parts
 * of it; accepted text is printable Kconfig lines and module lines,
 * never anything a make or a file could trip on ---- */

static void fuzz_target_split(const uint8_t *data, size_t size)
{
	char *text = xmalloc(size + 1), rel[256];
	struct strbuf cfg = STRBUF_INIT, mods = STRBUF_INIT;
	memcpy(text, data, size);
	text[size] = '\0';
	if (ssh_running_config_split(text, rel, sizeof(rel), &cfg, &mods) == 0) {
		FUZZ_ASSERT(strlen(rel) < sizeof(rel) && cfg.len + mods.len <= size + 1);
		FUZZ_ASSERT(!cfg.len || strstr(text, cfg.buf));
	}
	sb_release(&cfg);
	sb_release(&mods);
	free(text);
}

static int fuzz_target_config(const uint8_t *data, size_t size)
{
	char err[300] = "";
	const char *t = (const char *)data;
	int n;
	fuzz_target_split(data, size);
	if (kconfig_text_check(t, size, err, sizeof(err)) == 0) {
		FUZZ_ASSERT(size <= KCONFIG_TEXT_MAX);
		for (size_t i = 0; i < size; i++)
			FUZZ_ASSERT(t[i] == '\n' || t[i] == '\t' || (t[i] >= 0x20 && t[i] <= 0x7e));
	} else {
		FUZZ_ASSERT(reason_ok(err));
	}
	n = kconfig_modules_check(t, size, err, sizeof(err));
	FUZZ_ASSERT(n >= -1);
	if (n < 0)
		FUZZ_ASSERT(reason_ok(err));
	return 0;
}

/* ---- kbench sweep --param (the command line) ---- */

static int fuzz_sweep_param(const uint8_t *data, size_t size)
{
	char *text = xmalloc(size + 1), label[KB_ID_MAX + 1], line[OPT_STR_MAX * 2];
	struct sweep s;

	memcpy(text, data, size);
	text[size] = '\0';
	memset(&s, 0, sizeof(s));
	snprintf(s.variant, sizeof(s.variant), "rt-adaptive");
	if (sweep_param_parse(&s, text) == 0) {
		FUZZ_ASSERT(s.nknobs == 1 && s.k[0].n >= 1 && s.k[0].n <= SWEEP_VALUES_MAX);
		FUZZ_ASSERT(strspn(s.k[0].name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					    "0123456789_.") == strlen(s.k[0].name));
		for (size_t i = 0; i < sweep_npoints(&s); i++) {
			FUZZ_ASSERT(sweep_value(&s, i, 0) >= 0);
			sweep_label(&s, i, label, sizeof(label));
			if (sweep_cmdline(&s, i, "quiet rtmutex.spin_max_loops=10000", line,
					  sizeof(line)) == 0)
				FUZZ_ASSERT(strstr(line, s.k[0].name) && !strchr(line, '\n'));
		}
	} else {
		FUZZ_ASSERT(s.nknobs == 0);
	}
	free(text);
	return 0;
}

const struct fuzz_target fuzz_targets[] = {
#define WORKLOAD(name) { #name, fuzz_##name },
#include "workloads/list.h"
	{ "trouble", fuzz_trouble },
	{ "lock_stats", fuzz_lock_stats },
	{ "proto", fuzz_proto },
	{ "config", fuzz_config },
	{ "results", fuzz_results },
	{ "bzimage", fuzz_bzimage },
	{ "sweep_param", fuzz_sweep_param },
	{ "target_config", fuzz_target_config },
	{ "lava_log", fuzz_lava_log },
	{ "lava_api", fuzz_lava_api },
	{ NULL, NULL },
};

const struct fuzz_target *fuzz_target_find(const char *name)
{
	for (const struct fuzz_target *t = fuzz_targets; t->name; t++)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}
