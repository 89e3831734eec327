/* run.c - run one variant through one suite: boot a fresh guest per
 * iteration, run every workload through the agent, parse, and keep
 * results.json, raw outputs and console logs in the run directory. */
#include "run/run.h"
#include "backend/backend.h"
#include "core/hostnoise.h"
#include "core/ids.h"
#include "core/jsonutil.h"
#include "core/machine.h"
#include "backend/hostroot.h"
#include "backend/image.h"
#include "core/target.h"
#include "kernel/kernel.h"
#include "kernel/needs.h"
#include "kernel/userimage.h"
#include "run/results.h"
#include "run/targetcfg.h"
#include "run/running.h"
#include "agent/proto.h"
#include "run/testhook.h"
#include "run/trouble.h"
#include "core/spawn.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>


#define SCRATCH_MB 4096
#define CALL_MARGIN_S 30.0

static int host_cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

static int host_mem_mb(void)
{
	struct sysinfo si;
	sysinfo(&si);
	return (int)((int64_t)si.totalram * si.mem_unit >> 20);
}

json_object *host_info(void)
{
	json_object *h = json_object_new_object();
	struct utsname u;
	struct strbuf cpu = STRBUF_INIT;
	char model[256] = "unknown", qv[256];

	uname(&u);
	if (read_file("/proc/cpuinfo", &cpu, 4u << 20) == 0 && cpu.buf) {
		char *m = strstr(cpu.buf, "model name");
		if (m && (m = strchr(m, ':'))) {
			m++;
			while (*m == ' ' || *m == '\t')
				m++;
			snprintf(model, sizeof(model), "%.*s", (int)strcspn(m, "\n"), m);
		}
	}
	sb_release(&cpu);
	qemu_backend.version(qv, sizeof(qv));
	json_object_object_add(h, "hostname", json_object_new_string(u.nodename));
	json_object_object_add(h, "cpu_model", json_object_new_string(model));
	json_object_object_add(h, "cores", json_object_new_int(host_cores()));
	json_object_object_add(h, "mem_mb", json_object_new_int(host_mem_mb()));
	json_object_object_add(h, "kernel", json_object_new_string(u.release));
	json_object_object_add(h, "qemu", json_object_new_string(qv));
	json_object_object_add(h, "machine", machine_facts(""));
	return h;
}

const char *agent_path(void)
{
	static char path[KB_PATH_MAX];
	const char *e = getenv("KBENCH_AGENT");
	if (e && *e)
		return e;
	snprintf(path, sizeof(path), "%s/build/kbench-agent", kb_home());
	return path;
}

static void make_run_id(const struct run_opts *o, const char *variant, const char *suite,
			const char *runs, char *out, size_t n)
{
	char path[KB_PATH_MAX], base[KB_ID_MAX + 1];
	if (o->run_id) {
		snprintf(out, n, "%s", o->run_id);
		return;
	}
	id_make(base, sizeof(base), variant, suite, NULL);
	snprintf(out, n, "%s", base);
	snprintf(path, sizeof(path), "%s/%s", runs, out);
	for (int i = 2; path_exists(path) && i < 1000; i++) {
		snprintf(out, n, "%s-%d", base, i);
		snprintf(path, sizeof(path), "%s/%s", runs, out);
	}
}

static int save_text(const char *dir, const char *name, const char *text, char *rel,
		     size_t rellen, const char *relprefix)
{
	char path[KB_PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(rel, rellen, "%s/%s", relprefix, name);
	return write_file_atomic(path, text, strlen(text));
}

/* Parse the patch's counters ("rtlock.spin_started 123" lines; guest
 * data, so bounded and checked) into a JSON object, NULL if malformed. */
json_object *parse_lock_stats(const char *text)
{
	json_object *o = json_object_new_object();
	const char *p = text;
	int n = 0;
	while (*p) {
		char name[64], *end;
		size_t len = strspn(p, "abcdefghijklmnopqrstuvwxyz_.");
		unsigned long long v;
		if (len == 0 || len >= sizeof(name) || p[len] != ' ' || ++n > 256)
			goto bad;
		memcpy(name, p, len);
		name[len] = '\0';
		p += len + 1;
		if (*p < '0' || *p > '9')
			goto bad; /* digits only: no sign, no space */
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno || v > INT64_MAX || (*end != '\n' && *end != '\0'))
			goto bad;
		json_object_object_add(o, name, json_object_new_int64((int64_t)v));
		p = *end ? end + 1 : end;
	}
	return o;
bad:
	json_object_put(o);
	return NULL;
}

static json_object *strvec_json(const struct strvec *v)
{
	json_object *a = json_object_new_array();
	for (size_t i = 0; i < v->n; i++)
		json_object_array_add(a, json_object_new_string(v->v[i]));
	return a;
}

/* The last N lines of TEXT (at most OUTLEN - 1 bytes of them). */
static void last_lines(const char *text, int n, char *out, size_t outlen)
{
	size_t len = strlen(text);
	const char *p = text + len;
	while (len && (text[len - 1] == '\n'))
		len--, p--;
	while (p > text && n > 0) {
		p--;
		if (*p == '\n' && --n == 0) {
			p++;
			break;
		}
	}
	if ((size_t)(text + len - p) >= outlen)
		p = text + len - (outlen - 1);
	snprintf(out, outlen, "%.*s", (int)(text + len - p), p);
}

/* "exited with status N[, killed by signal S]" and the last lines of the
 * command's stderr, then of its stdout when that has any: make says why on
 * stderr, dbench on stdout ("ERROR: child 0 failed at line 42"). */
static void exit_message(char *msg, size_t msglen, const char *what, int status, int sig,
			 const char *out, const char *errout)
{
	char etail[1200], otail[800];
	last_lines(errout ? errout : "", 12, etail, sizeof(etail));
	last_lines(out ? out : "", 8, otail, sizeof(otail));
	snprintf(msg, msglen, "%sexited with status %d%s%s; last lines of stderr:\n%s%s%s", what,
		 status, sig ? ", killed by signal " : "", sig ? strsignal(sig) : "", etail,
		 *otail ? "\nlast lines of stdout:\n" : "", otail);
}

/* A workload's (or its untimed step's) outcome in WJ. */
static void wj_fail(json_object *wj, const char *status, const char *msg)
{
	json_object_object_add(wj, "status", json_object_new_string(status));
	json_object_object_add(wj, "error", json_object_new_string(msg));
}

/* The untimed step before a workload (kbuild's configure in the guest).
 * 0 when it succeeded; otherwise WJ says why and *RET is -1 if the guest
 * is gone. */
static int run_pre(struct guest *g, const struct suite_entry *e, const struct guest_cmd *cmd,
		   double tscale, json_object *wj, int *ret)
{
	json_object *req = json_object_new_object(), *resp = NULL, *v;
	double timeout = cmd->pre_timeout_s * tscale, t0 = now_mono();
	char msg[2200];
	int status, bad = 1;

	json_object_object_add(req, "op", json_object_new_string("exec"));
	json_object_object_add(req, "argv", strvec_json(&cmd->pre_argv));
	if (cmd->in_root)
		json_object_object_add(req, "root", json_object_new_string(KB_HOSTROOT));
	if (cmd->env.n)
		json_object_object_add(req, "env", strvec_json(&cmd->env));
	json_object_object_add(req, "timeout_s", json_object_new_double(timeout));
	info("kbench:   %s: untimed step: %s ...", e->label, cmd->pre_argv.v[0]);
	if (guest_call(g, req, timeout + CALL_MARGIN_S, &resp)) {
		wj_fail(wj, g->timed_out ? "timeout" : "failed", g->err);
		*ret = -1;
		goto out;
	}
	if (json_object_object_get_ex(resp, "error", &v)) {
		snprintf(msg, sizeof(msg), "untimed step: %s", json_object_get_string(v));
		goto fail;
	}
	if (json_object_object_get_ex(resp, "timed_out", &v) && json_object_get_boolean(v)) {
		wj_fail(wj, "timeout", "the untimed step did not finish by its deadline and was killed");
		goto out;
	}
	status = json_object_object_get_ex(resp, "status", &v) ? json_object_get_int(v) : -1;
	if (status == 0) {
		/* its last line of output says what it did (guest output:
		 * printable bytes only, cut short) */
		const char *o = json_object_object_get_ex(resp, "stdout", &v) ?
					json_object_get_string(v) : NULL;
		last_lines(o ? o : "", 1, msg, sizeof(msg));
		msg[200] = '\0';
		for (char *c = msg; *c; c++)
			if (!isprint((unsigned char)*c))
				*c = '?';
		info("kbench:   %s: untimed step done in %.0f s%s%s", e->label, now_mono() - t0,
		     *msg ? ": " : "", msg);
		bad = 0;
		goto out;
	}
	exit_message(msg, sizeof(msg), "untimed step ", status, 0,
		     json_object_object_get_ex(resp, "stdout", &v) ? json_object_get_string(v) : "",
		     json_object_object_get_ex(resp, "stderr", &v) ? json_object_get_string(v) : "");
fail:
	wj_fail(wj, "failed", msg);
out:
	json_object_put(req);
	json_object_put(resp);
	return bad;
}

/* ARGV as a person would type it. */
static json_object *command_line(const struct strvec *argv)
{
	struct strbuf sb = STRBUF_INIT;
	json_object *o;
	for (size_t i = 0; i < argv->n; i++)
		sb_addf(&sb, "%s%s", i ? " " : "", argv->v[i]);
	o = json_object_new_string(sb.buf ? sb.buf : "");
	sb_release(&sb);
	return o;
}

/* The agent's exec request for CMD; its command lines go into WJ. */
static json_object *workload_request(const struct guest_cmd *cmd, double timeout, json_object *wj)
{
	json_object *req = json_object_new_object();
	json_object_object_add(req, "op", json_object_new_string("exec"));
	json_object_object_add(req, "argv", strvec_json(&cmd->argv));
	if (cmd->bg_argv.n)
		json_object_object_add(req, "bg_argv", strvec_json(&cmd->bg_argv));
	if (cmd->cwd[0])
		json_object_object_add(req, "cwd", json_object_new_string(cmd->cwd));
	if (cmd->in_root)
		json_object_object_add(req, "root", json_object_new_string(KB_HOSTROOT));
	if (cmd->bg_in_root)
		json_object_object_add(req, "bg_root", json_object_new_string(KB_HOSTROOT));
	if (cmd->env.n)
		json_object_object_add(req, "env", strvec_json(&cmd->env));
	json_object_object_add(req, "timeout_s", json_object_new_double(timeout));
	json_object_object_add(wj, "command", command_line(&cmd->argv));
	if (cmd->bg_argv.n)
		json_object_object_add(wj, "background", command_line(&cmd->bg_argv));
	return req;
}

/* What the agent answered, kept: the raw outputs in RAWDIR, the times,
 * the lock counters, background runs. */
struct wl_output {
	const char *out, *errout;
	size_t outlen;
};

/* One run of a workload's command in a booted guest: what it needs to
 * run it again (a repeat). */
struct wl_run {
	struct guest *g;
	const struct suite_entry *e;
	const struct guest_cmd *cmd;
	json_object *req;  /* the agent's exec request */
	double timeout;    /* of each run */
	int lock_stats;    /* the kernel has the lock counters */
	const char *rawdir, *relraw;
};

/* REP: 0 for a workload run once (LABEL.out), else the repeat's number
 * (LABEL.rREP.out). */
static void workload_keep(const struct wl_run *w, json_object *resp, int rep, json_object *wj,
			  struct wl_output *o)
{
	struct guest *g = w->g;
	const struct suite_entry *e = w->e;
	const char *rawdir = w->rawdir, *relraw = w->relraw;
	char sfx[16] = "";
	static const char *const keys[] = { "wall_s", "user_s", "sys_s", NULL };
	char name[KB_PATH_MAX], rel[KB_PATH_MAX];
	json_object *v;
	if (json_object_object_get_ex(resp, "stdout", &v) && json_object_is_type(v, json_type_string)) {
		o->out = json_object_get_string(v);
		o->outlen = (size_t)json_object_get_string_len(v);
	}
	if (json_object_object_get_ex(resp, "stderr", &v) && json_object_is_type(v, json_type_string))
		o->errout = json_object_get_string(v);
	if (rep)
		snprintf(sfx, sizeof(sfx), ".r%d", rep);
	snprintf(name, sizeof(name), "%s%s.out", e->label, sfx);
	if (save_text(rawdir, name, o->out, rel, sizeof(rel), relraw) == 0)
		json_object_object_add(wj, "raw", json_object_new_string(rel));
	if (*o->errout) {
		snprintf(name, sizeof(name), "%s%s.err", e->label, sfx);
		if (save_text(rawdir, name, o->errout, rel, sizeof(rel), relraw) == 0)
			json_object_object_add(wj, "raw_stderr", json_object_new_string(rel));
	}
	for (int i = 0; keys[i]; i++)
		if (json_object_object_get_ex(resp, keys[i], &v) &&
		    (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) &&
		    isfinite(json_object_get_double(v)) && json_object_get_double(v) >= 0)
			json_object_object_add(wj, keys[i], json_object_new_double(json_object_get_double(v)));
	if (w->lock_stats) {
		char *text = guest_read(g, KB_LOCK_STATS);
		json_object *ls = text ? parse_lock_stats(text) : NULL;
		if (ls)
			json_object_object_add(wj, "lock_stats", ls);
		else
			warning("%s: the lock counters could not be read or parsed", e->label);
		free(text);
	}
	if (json_object_object_get_ex(resp, "bg_runs", &v) && json_object_get_int(v) > 0)
		json_object_object_add(wj, "background_runs", json_object_new_int(json_object_get_int(v)));
}

/* METRICS as results.json has them. */
static json_object *metrics_json(const struct metric_set *ms)
{
	json_object *metrics = json_object_new_object();
	for (size_t i = 0; i < ms->n; i++) {
		json_object *m = json_object_new_object();
		json_object_object_add(m, "value", json_object_new_double(ms->v[i].value));
		json_object_object_add(m, "unit", json_object_new_string(ms->v[i].unit));
		json_object_object_add(m, "better", json_object_new_string(
			ms->v[i].better == BETTER_HIGHER ? "higher" : "lower"));
		json_object_object_add(metrics, ms->v[i].name, m);
	}
	return metrics;
}

/* Did it finish and exit 0, does its output parse: WJ's status, and
 * its metrics when ok. */
static void workload_judge(const struct suite_entry *e, const struct guest_cmd *cmd,
			   json_object *resp, const struct wl_output *o, json_object *wj)
{
	struct metric_set ms = METRIC_SET_INIT;
	struct parse_error perr = { 0, "" };
	char msg[2200];
	json_object *v;
	int status, sig;
	if (json_object_object_get_ex(resp, "timed_out", &v) && json_object_get_boolean(v)) {
		wj_fail(wj, "timeout", "the workload did not finish by its deadline and was killed");
		goto out;
	}
	status = json_object_object_get_ex(resp, "status", &v) ? json_object_get_int(v) : -1;
	sig = json_object_object_get_ex(resp, "signal", &v) ? json_object_get_int(v) : 0;
	if (status != 0 || sig) {
		exit_message(msg, sizeof(msg), "", status, sig, o->out, o->errout);
		wj_fail(wj, "failed", msg);
		goto out;
	}
	if (json_object_object_get_ex(resp, "truncated", &v) && json_object_get_boolean(v))
		warning("%s: the guest truncated the output at its capture limit", e->label);
	if (e->ops->parse(e->params, o->out, o->outlen, &ms, &perr)) {
		snprintf(msg, sizeof(msg), "cannot parse %s output (line %d): %s", e->ops->name,
			 perr.line, perr.msg);
		wj_fail(wj, "parse-error", msg);
		goto out;
	}
	if (cmd->report_times) {
		/* make's own times, as the agent measured them (rusage) */
		static const char *const t[][2] = { { "elapsed", "wall_s" }, { "user", "user_s" },
						    { "sys", "sys_s" } };
		for (int i = 0; i < 3; i++) {
			json_object *x = json_object_object_get(wj, t[i][1]);
			if (!x) {
				wj_fail(wj, "failed", "the agent did not report the command's times");
				goto out;
			}
			metric_set_add(&ms, t[i][0], "s", BETTER_LOWER, json_object_get_double(x));
		}
	}
	json_object_object_add(wj, "status", json_object_new_string("ok"));
	json_object_object_add(wj, "metrics", metrics_json(&ms));
	if (ms.extra)
		json_object_object_add(wj, "extra", json_object_get(ms.extra));
out:
	metric_set_release(&ms);
}

/* One run of W's command: the lock counters reset, the agent's call, the
 * outputs kept (REP as workload_keep has it) and judged into WJ. 0 if
 * the guest is still usable afterwards, -1 if it is gone or hung. */
static int run_once(const struct wl_run *w, int rep, json_object *wj)
{
	struct wl_output o = { "", "", 0 };
	json_object *resp = NULL, *v;
	int ret = 0;
	if (w->lock_stats && guest_write(w->g, KB_LOCK_STATS_RESET, "1"))
		warning("%s: cannot reset the lock counters", w->e->label);
	if (guest_call(w->g, w->req, w->timeout + CALL_MARGIN_S, &resp)) {
		wj_fail(wj, w->g->timed_out ? "timeout" : "failed", w->g->err);
		ret = -1;
		goto out;
	}
	if (json_object_object_get_ex(resp, "error", &v) && json_object_is_type(v, json_type_string)) {
		wj_fail(wj, "failed", json_object_get_string(v));
		goto out;
	}
	workload_keep(w, resp, rep, wj, &o);
	workload_judge(w->e, w->cmd, resp, &o, wj);
out:
	json_object_put(resp);
	return ret;
}

/* The suite's `repeat` runs of W back to back into WJ (results.h,
 * results_repeat_add): the first that fails fails the workload with its
 * status and error, and nothing of the repeats before it is summarised.
 * 0, or -1 when the guest is gone or hung. */
static int run_repeats(const struct wl_run *w, json_object *wj)
{
	static const char *const partial[] = { "repeat_metrics", "repeat_extra", "lock_stats",
					       "lock_stats_repeats", NULL };
	int n = w->e->repeat, ret = 0;
	for (int r = 1; r <= n; r++) {
		json_object *rj = json_object_new_object();
		const char *st;
		char msg[2400];
		if (kb_interrupted) {
			snprintf(msg, sizeof(msg), "interrupted before repeat %d of %d", r, n);
			wj_fail(wj, "failed", msg);
			json_object_put(rj);
			break;
		}
		info("kbench:   %s: repeat %d of %d", w->e->label, r, n);
		ret = run_once(w, r, rj);
		st = or_empty(jstr(rj, "status"));
		if (strcmp(st, "ok")) {
			snprintf(msg, sizeof(msg), "repeat %d of %d: %s", r, n, or_empty(jstr(rj, "error")));
			wj_fail(wj, *st ? st : "failed", msg);
			if (jget(rj, "raw"))
				jset(wj, "raw", json_object_get(jget(rj, "raw")));
			if (jget(rj, "raw_stderr"))
				jset(wj, "raw_stderr", json_object_get(jget(rj, "raw_stderr")));
			json_object_put(rj);
			break;
		}
		results_repeat_add(wj, rj);
		json_object_put(rj);
	}
	if (jget(wj, "status")) {
		for (int i = 0; partial[i]; i++)
			json_object_object_del(wj, partial[i]);
		return ret;
	}
	results_repeats_done(wj);
	return ret;
}

/* Run one workload in a booted guest, its scratch space in SCRATCH (NULL:
 * the guest's scratch mount): the untimed step, then the command once or
 * `repeat` times; fills WJ. Returns 0 if the guest is still usable
 * afterwards, -1 if it is gone or hung. */
static int run_workload(struct guest *g, const struct suite_entry *e, double tscale,
			const char *scratch, unsigned caps, const char *rawdir, const char *relraw,
			json_object *wj)
{
	struct wl_run w = { .g = g, .e = e, .rawdir = rawdir, .relraw = relraw };
	struct guest_cmd cmd;
	int ret = 0;

	w.lock_stats = json_object_get_boolean(json_object_object_get(g->hello, "lock_stats"));
	w.cmd = &cmd;
	guest_cmd_init(&cmd);
	json_object_object_add(wj, "label", json_object_new_string(e->label));
	json_object_object_add(wj, "workload", json_object_new_string(e->ops->name));
	if (scratch)
		snprintf(cmd.scratch, sizeof(cmd.scratch), "%s", scratch);
	cmd.native = !!(caps & BK_CAP_NATIVE);
	cmd.target = !!(caps & BK_CAP_TARGET);
	if (e->ops->command(e->params, &cmd)) {
		wj_fail(wj, "failed", "cannot build the command");
		goto out;
	}
	/* the deadline of each run: N repeats may take N times it */
	w.timeout = e->timeout_s > 0 ? e->timeout_s : cmd.timeout_s * tscale;
	w.req = workload_request(&cmd, w.timeout, wj);
	info("kbench:   %s: %s", e->label,
	     json_object_get_string(json_object_object_get(wj, "command")));
	if (cmd.pre_argv.n && run_pre(g, e, &cmd, tscale, wj, &ret))
		goto out;
	ret = e->repeat > 1 ? run_repeats(&w, wj) : run_once(&w, 0, wj);
out:
	guest_cmd_release(&cmd);
	json_object_put(w.req);
	return ret;
}

/* Save the guest's kernel log (the console runs at loglevel 5). */
static void save_dmesg(struct guest *g, const char *rawdir, const char *relraw, json_object *ij)
{
	json_object *req = json_object_new_object(), *resp = NULL, *v, *argv;
	char rel[KB_PATH_MAX];
	json_object_object_add(req, "op", json_object_new_string("exec"));
	argv = json_object_new_array();
	json_object_array_add(argv, json_object_new_string("/bin/dmesg"));
	json_object_object_add(req, "argv", argv);
	json_object_object_add(req, "timeout_s", json_object_new_double(30));
	if (guest_call(g, req, 60, &resp) == 0 && json_object_object_get_ex(resp, "stdout", &v) &&
	    json_object_is_type(v, json_type_string) &&
	    save_text(rawdir, "dmesg.txt", json_object_get_string(v), rel, sizeof(rel), relraw) == 0)
		json_object_object_add(ij, "dmesg", json_object_new_string(rel));
	json_object_put(req);
	json_object_put(resp);
}

/* The workloads' scratch space at KB_SCRATCH_MOUNT: the scratch disk
 * (ext4), or with TMPFS a tmpfs of half the guest's memory. */
static int mount_scratch(struct guest *g, int tmpfs, char *err, size_t errlen)
{
	json_object *req = json_object_new_object(), *resp = NULL, *v;
	const char *what = tmpfs ? "the scratch tmpfs" : "the scratch disk";
	int ret = -1;
	json_object_object_add(req, "op", json_object_new_string("mount"));
	if (tmpfs) {
		json_object_object_add(req, "dev", json_object_new_string("tmpfs"));
		json_object_object_add(req, "options", json_object_new_string("size=50%"));
	} else {
		json_object_object_add(req, "serial", json_object_new_string("scratch"));
	}
	json_object_object_add(req, "dir", json_object_new_string(KB_SCRATCH_MOUNT));
	json_object_object_add(req, "fstype", json_object_new_string(tmpfs ? "tmpfs" : "ext4"));
	if (guest_call(g, req, 60, &resp)) {
		snprintf(err, errlen, "mounting %s: %s", what, g->err);
	} else if (json_object_object_get_ex(resp, "error", &v)) {
		snprintf(err, errlen, "mounting %s: %s", what, json_object_get_string(v));
	} else {
		ret = 0;
	}
	json_object_put(req);
	json_object_put(resp);
	return ret;
}

/* How an iteration ended; its message is in results.json ("error"). */
enum iter_outcome {
	IT_OK,
	IT_SETUP_FAILED,    /* before the boot: directories, disks */
	IT_BOOT_FAILED,     /* the guest did not come up to the agent: tried again */
	IT_GUEST_FAILED,    /* up, but its disks or shares could not be set up */
	IT_GUEST_LOST,      /* gone or hung during a workload */
	IT_WORKLOAD_FAILED, /* a workload failed, timed out or did not parse */
	IT_INTERRUPTED,     /* Ctrl-C or SIGTERM */
};

/* One iteration's fixed facts and paths. */
struct iter {
	const struct suite *s;
	const struct backend_ops *bk;
	const struct backend_info *bi;
	struct boot_params *bp;
	const struct image_needs *needs;
	double tscale;           /* workload deadlines */
	double busy_threshold;   /* host noise (core/hostnoise.h) */
	int scratch_tmpfs;       /* struct bench's */
	int host_independent;    /* instructions timing: a busy host is recorded,
				  * not flagged (its load does not enter the
				  * figures: docs/timing.md) */
	int index, warmup;
	const char *rundir;
	char rawdir[KB_PATH_MAX], relraw[64], console[KB_PATH_MAX], relcon[64];
	json_object *ij;
};

static enum iter_outcome iteration_fail(struct iter *it, enum iter_outcome why_kind,
					const char *why)
{
	char *tail = file_tail(it->console, 25);
	json_object_object_add(it->ij, "status", json_object_new_string("failed"));
	json_object_object_add(it->ij, "error", json_object_new_string(why));
	json_object_object_add(it->ij, "console_tail", json_object_new_string(tail));
	warning("iteration failed: %s", why);
	if (*tail)
		fprintf(stderr, "--- console tail (%s) ---\n%s\n--- end of console tail ---\n",
			it->console, tail);
	free(tail);
	return why_kind;
}

/* Paths, the backend's disks, the boot and the guest's own setup. */
static enum iter_outcome iteration_boot(struct iter *it, struct guest *g)
{
	char err[600];
	struct test_ctx tc = { .bp = it->bp };
	const char *keep = it->bp->cmdline;
	double t;
	int r;
	if (mkdir_p(it->rawdir, 0755))
		return iteration_fail(it, IT_SETUP_FAILED, "cannot create the raw output directory");
	it->bp->console_log = it->console;
	t = now_mono();
	if (it->bk->prepare && it->bk->prepare(it->bp, err, sizeof(err)))
		return iteration_fail(it, IT_SETUP_FAILED, err);
	/* the backend's part before the boot (ssh: copies, the initrd) */
	json_object_object_add(it->ij, "prepare_s", json_object_new_double(now_mono() - t));
	guest_init(g, it->bk);
	test_hook(TEST_BEFORE_BOOT, &tc);
	r = guest_boot(g, it->bp);
	it->bp->cmdline = keep;
	if (it->bk->facts) {
		/* where it ran (lava: the job and device), a failed boot too */
		json_object *f = it->bk->facts(g);
		if (f)
			json_object_object_add(it->ij, it->bk->name, f);
	}
	if (r) {
		snprintf(err, sizeof(err), "boot failed: %s", g->err);
		guest_release(g);
		return iteration_fail(it, IT_BOOT_FAILED, err);
	}
	json_object_object_add(it->ij, "boot_s", json_object_new_double(g->t_ready - g->t_start));
	json_object_object_add(it->ij, "guest", json_object_get(g->hello));
	info("kbench: iteration %d%s: guest %s up in %.1f s", it->index,
	     it->warmup ? " (warm-up)" : "",
	     json_object_get_string(json_object_object_get(g->hello, "kernel")),
	     g->t_ready - g->t_start);
	if (((it->bp->scratch_mb || it->scratch_tmpfs) &&
	     mount_scratch(g, it->scratch_tmpfs, err, sizeof(err))) ||
	    (it->bp->hostroot && hostroot_setup(g, it->needs->disk_mount, err, sizeof(err)))) {
		guest_shutdown(g, 5);
		guest_release(g);
		return iteration_fail(it, IT_GUEST_FAILED, err);
	}
	return IT_OK;
}

/* Every workload of the suite in the booted guest. IT_GUEST_LOST (the
 * guest released) when one leaves it gone or hung. */
static enum iter_outcome iteration_workloads(struct iter *it, struct guest *g, double *work_s)
{
	json_object *wl = json_object_object_get(it->ij, "workloads");
	enum iter_outcome out = IT_OK;
	char err[600], scratch[KB_PATH_MAX];
	if (it->bp->scratch_dir)
		snprintf(scratch, sizeof(scratch), "%s/%s", it->bp->scratch_dir, BK_SCRATCH_SUBDIR);
	for (size_t i = 0; i < it->s->n && !kb_interrupted; i++) {
		const struct suite_entry *e = &it->s->w[i];
		json_object *wj = json_object_new_object(), *st;
		int r;
		json_object_array_add(wl, wj);
		r = run_workload(g, e, it->tscale, it->bp->scratch_dir ? scratch : NULL,
				 it->bk->caps, it->rawdir, it->relraw, wj);
		st = json_object_object_get(wj, "status");
		if (!st || strcmp(json_object_get_string(st), "ok")) {
			out = IT_WORKLOAD_FAILED;
			warning("%s %s: %s", e->label, st ? json_object_get_string(st) : "failed",
				json_object_get_string(json_object_object_get(wj, "error")));
		}
		if (json_object_object_get(wj, "wall_s"))
			*work_s += json_object_get_double(json_object_object_get(wj, "wall_s"));
		if (r) {
			snprintf(err, sizeof(err), "%s: %s", e->label,
				 json_object_get_string(json_object_object_get(wj, "error")));
			guest_shutdown(g, 0);
			guest_release(g);
			return iteration_fail(it, IT_GUEST_LOST, err);
		}
	}
	return out;
}

/* One iteration: boot, run every workload, save logs, power off. */
static enum iter_outcome run_iteration_inner(struct iter *it)
{
	struct guest g;
	enum iter_outcome out;
	double t0 = now_mono(), work_s = 0;
	struct test_ctx tc = { .g = &g };
	struct host_sample h0, h1;
	json_object *hn;
	int remote = !!(it->bk->caps & BK_CAP_REMOTE);

	json_object_object_add(it->ij, "index", json_object_new_int(it->index));
	json_object_object_add(it->ij, "warmup", json_object_new_boolean(it->warmup));
	json_object_object_add(it->ij, "console", json_object_new_string(it->relcon));
	json_object_object_add(it->ij, "workloads", json_object_new_array());
	if ((out = iteration_boot(it, &g)) != IT_OK)
		return out;
	/* the host beside the workloads: what else ran while they did (not
	 * for a remote machine or a lab's device: this host's load is not
	 * the machine's, so it is not sampled) */
	if (remote) {
		out = iteration_workloads(it, &g, &work_s);
	} else {
		hostnoise_sample(&h0);
		out = iteration_workloads(it, &g, &work_s);
		hostnoise_sample(&h1);
		if ((hn = hostnoise_json(&h0, &h1, it->busy_threshold))) {
			if (it->host_independent && json_object_get_boolean(jget(hn, "busy"))) {
				jset_bool(hn, "busy", 0);
				jset_bool(hn, "busy_ignored", 1);
			}
			json_object_object_add(it->ij, "host_noise", hn);
		}
		hostnoise_release(&h0);
		hostnoise_release(&h1);
	}
	if (out == IT_GUEST_LOST) {
		json_object_object_add(it->ij, "wall_s", json_object_new_double(now_mono() - t0));
		return out;
	}
	test_hook(TEST_AFTER_WORKLOADS, &tc);
	save_dmesg(&g, it->rawdir, it->relraw, it->ij);
	if (it->bk->results && !kb_interrupted)
		it->bk->results(&g, json_object_object_get(it->ij, "workloads"));
	if (guest_shutdown(&g, 30))
		warning("the guest did not power off within 30 s and was killed");
	guest_release(&g);
	if (it->bk->cleanup)
		it->bk->cleanup(it->bp);
	json_object_object_add(it->ij, "wall_s", json_object_new_double(now_mono() - t0));
	json_object_object_add(it->ij, "workload_s", json_object_new_double(work_s));
	if (kb_interrupted)
		return iteration_fail(it, IT_INTERRUPTED, "interrupted");
	if (out != IT_OK) {
		json_object_object_add(it->ij, "status", json_object_new_string("failed"));
		json_object_object_add(it->ij, "error", json_object_new_string("a workload failed"));
		return out;
	}
	json_object_object_add(it->ij, "status", json_object_new_string("ok"));
	return IT_OK;
}

/* Findings T that the backend's setup is known to cause (a QEMU before
 * 8.1 under multi-threaded TCG: "Oops: int3") get their cause, and OUT
 * says it for a message ("; its 'Oops: int3' has a known cause: ...");
 * else OUT is "". */
static void known_cause(const struct iter *it, json_object *t, char *out, size_t n)
{
	out[0] = '\0';
	if (trouble_explain(t, it->bi->trouble_match, it->bi->trouble_cause))
		snprintf(out, n, "; its '%s' has a known cause: %s", it->bi->trouble_match,
			 it->bi->trouble_cause);
}

/* A failed boot of the iteration (attempt ATTEMPT) set aside before the
 * next try: its console (and the backend's log) moves to
 * iter-N.boot-K.log, and ij's boot_retries array gains the error, any
 * kernel trouble and the backend's facts of that boot (lava: the job that
 * failed, LAVA's error; a retry is a new job), for every backend. */
static void boot_attempt_keep(struct iter *it, int attempt)
{
	char rel[96], to[KB_PATH_MAX], kinds[200] = "", cause[800];
	json_object *t, *a;
	snprintf(rel, sizeof(rel), "console/iter-%d.boot-%d.log", it->index, attempt);
	snprintf(to, sizeof(to), "%s/%s", it->rundir, rel);
	backend_logs_move(it->bk, it->console, to);
	t = trouble_scan_file(to);
	if (t)
		trouble_kinds(t, kinds, sizeof(kinds));
	known_cause(it, t, cause, sizeof(cause));
	a = results_boot_retry(it->ij, attempt, rel, t, it->bk->facts ? it->bk->name : NULL);
	warning("iteration %d: boot %d failed (%s%s%s); booting again (--boot-retries; console kept in "
		"%s)%s", it->index, attempt, jstr(a, "error"), *kinds ? "; kernel trouble: " : "", kinds,
		to, cause);
}

/* The console (or kernel log) scanned for kernel trouble: a panic, oops,
 * BUG, WARNING, lockdep report, hung task, RCU stall or lockup fails the
 * iteration with the excerpt, even when every workload finished (their
 * results stay in results.json). 0 when there is none. */
static int iteration_trouble(struct iter *it, int failed)
{
	char path[KB_PATH_MAX], kinds[200], msg[2048], cause[800];
	json_object *t, *first;
	const char *ex, *prev;
	snprintf(path, sizeof(path), "%s", it->console);
	t = trouble_scan_file(path);
	/* not the running kernel's log: it holds what happened before the run */
	if (!t && !(it->bk->caps & BK_CAP_RUNNING_KERNEL)) {
		snprintf(path, sizeof(path), "%s/dmesg.txt", it->rawdir);
		t = trouble_scan_file(path);
	}
	if (!t)
		return 0;
	trouble_kinds(t, kinds, sizeof(kinds));
	known_cause(it, t, cause, sizeof(cause));
	first = json_object_array_get_idx(t, 0);
	ex = json_object_get_string(json_object_object_get(first, "excerpt"));
	prev = json_object_get_string(json_object_object_get(it->ij, "error"));
	snprintf(msg, sizeof(msg), "%s%skernel trouble on the console: %s (first at line %d of %s)%s",
		 failed && prev ? prev : "", failed && prev ? "; " : "", kinds,
		 json_object_get_int(json_object_object_get(first, "line")), path, cause);
	json_object_object_add(it->ij, "kernel_trouble", t);
	json_object_object_add(it->ij, "status", json_object_new_string("failed"));
	json_object_object_add(it->ij, "error", json_object_new_string(msg));
	json_object_object_add(it->ij, "console_tail", json_object_new_string(ex));
	warning("iteration %d: %s", it->index, msg);
	fprintf(stderr, "--- %s ---\n%s--- end ---\n", kinds, ex);
	return -1;
}

/* One iteration, its failed boots tried again up to RETRIES times, then
 * its logs scanned for kernel trouble. 0 when it is ok. */
static int run_iteration(struct iter *it, int retries)
{
	enum iter_outcome out;
	snprintf(it->relraw, sizeof(it->relraw), "raw/iter-%d", it->index);
	snprintf(it->rawdir, sizeof(it->rawdir), "%s/%s", it->rundir, it->relraw);
	snprintf(it->relcon, sizeof(it->relcon), "console/iter-%d.log", it->index);
	snprintf(it->console, sizeof(it->console), "%s/%s", it->rundir, it->relcon);
	for (int attempt = 1;; attempt++) {
		out = run_iteration_inner(it);
		if (out != IT_BOOT_FAILED || kb_interrupted || attempt > retries)
			break;
		boot_attempt_keep(it, attempt);
	}
	if (iteration_trouble(it, out != IT_OK))
		return -1;
	return out == IT_OK ? 0 : -1;
}

/* Every host tool a run needs, checked before any work; exit 2 names the
 * package to install. */
const struct host_tool run_host_tools[] = {
	{ "qemu-system-x86_64", "qemu-system-x86", NULL }, { "busybox", "busybox-static", NULL },
	{ "cpio", "cpio", NULL }, { "mkfs.ext4", "e2fsprogs", NULL }, { "depmod", "kmod", NULL },
	{ "xz", "xz-utils", NULL }, { "apt-get", "apt", NULL }, { "dpkg-deb", "dpkg", NULL },
	{ "ldd", "libc-bin", NULL }, { NULL, NULL, NULL },
};

/* Is T there? An error naming its package if not. */
static int check_tool(const struct host_tool *t)
{
	char *p = host_tool_find(t);
	if (p)
		return free(p), 0;
	return error("'%s' not found: install the Debian package %s (make deps does)", t->name,
		     t->package);
}

/* The harness's tools (HARNESS: those that build and boot images) and
 * those of the workloads of suite S. */
static int check_tools_of(const struct suite *s, int harness)
{
	const struct workload_ops **ws = xcalloc(s->n + 1, sizeof(*ws));
	const struct host_tool **wt;
	int bad = 0;

	for (size_t i = 0; i < s->n; i++)
		ws[i] = s->w[i].ops;
	wt = workload_tools(ws);
	for (const struct host_tool *t = run_host_tools; harness && t->name; t++)
		bad |= check_tool(t);
	for (size_t i = 0; wt[i]; i++)
		bad |= check_tool(wt[i]);
	free(wt);
	free(ws);
	return bad;
}

int check_tools(const struct suite *s)
{
	return check_tools_of(s, 1);
}

/* Room to work: the cache holds scratch disks, copy-on-write layers and
 * initramfs images; the reports directory results and logs. Checked
 * before anything boots, so a full disk is a clear message, not a run
 * that dies half-way. */
static int check_space(const char *runs)
{
	static const struct {
		int cache;
		long long mib;
		const char *what;
	} need[] = { { 1, 1024, "scratch disks and images" }, { 0, 64, "results and logs" } };
	int bad = 0;
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		char dir[KB_PATH_MAX];
		struct statvfs sv;
		snprintf(dir, sizeof(dir), "%s", need[i].cache ? cache_root() : runs);
		if (mkdir_p(dir, 0755)) {
			/* mkdir_p said why; this says what it is for and, for the
			 * cache, where else to go (faults.sh case 7) */
			bad = error("'%s' is not writable: kbench needs it for %s%s", dir, need[i].what,
				    need[i].cache ? "; set KBENCH_CACHE to a writable directory" : "");
			continue;
		}
		if (access(dir, W_OK)) {
			bad = error("'%s' is not writable (%s): kbench needs it for %s%s", dir,
				    strerror(errno), need[i].what,
				    need[i].cache ? "; set KBENCH_CACHE to a writable directory" : "");
			continue;
		}
		if (statvfs(dir, &sv) == 0 &&
		    (long long)sv.f_bavail * (long long)sv.f_frsize < (need[i].mib << 20))
			bad = error("only %lld MiB free on the file system of '%s': kbench needs at "
				    "least %lld MiB there for %s", (long long)sv.f_bavail *
				    (long long)sv.f_frsize >> 20, dir, need[i].mib, need[i].what);
	}
	return bad;
}

/* Is iteration INDEX of ITS done (ok, or failed for a reason other than
 * an interruption)? Returns its array position, or -1 when it must run. */
static int iteration_done(json_object *its, int index, int *pos)
{
	*pos = -1;
	for (size_t i = 0; i < json_object_array_length(its); i++) {
		json_object *it = json_object_array_get_idx(its, i);
		const char *st;
		if (json_object_get_int(json_object_object_get(it, "index")) != index)
			continue;
		*pos = (int)i;
		st = json_object_get_string(json_object_object_get(it, "status"));
		return st && !json_object_get_boolean(json_object_object_get(it, "interrupted"));
	}
	return 0;
}

static int by_index(const void *a, const void *b)
{
	json_object *const *x = a, *const *y = b;
	return json_object_get_int(json_object_object_get(*x, "index")) -
	       json_object_get_int(json_object_object_get(*y, "index"));
}

/* The run directory of --resume ID (an id under RUNS, or a path). */
static void resume_dir(const char *id, const char *runs, char *out, size_t n)
{
	if (strchr(id, '/'))
		snprintf(out, n, "%s", id);
	else
		snprintf(out, n, "%s/%s", runs, id);
}

/* The directory holding PATH (trailing slashes ignored), "." if none. */
static void parent_of(const char *path, char *out, size_t n)
{
	char *slash;
	snprintf(out, n, "%s", path);
	for (size_t len = strlen(out); len > 1 && out[len - 1] == '/'; len--)
		out[len - 1] = '\0';
	if (!(slash = strrchr(out, '/')))
		snprintf(out, n, ".");
	else
		*(slash == out ? slash + 1 : slash) = '\0';
}

/* A line per finished iteration, appended (the run's index: with the
 * atomically replaced results.json, a crash loses at most the iteration
 * in flight). */
static void index_append(const char *dir, json_object *ij)
{
	char path[KB_PATH_MAX];
	json_object *o = json_object_new_object();
	const char *line;
	FILE *f;
	char now[32];
	snprintf(path, sizeof(path), "%s/index.jsonl", dir);
	iso8601_now(now, sizeof(now));
	json_object_object_add(o, "index", json_object_get(json_object_object_get(ij, "index")));
	json_object_object_add(o, "status", json_object_get(json_object_object_get(ij, "status")));
	json_object_object_add(o, "finished", json_object_new_string(now));
	if (json_object_object_get(ij, "error"))
		json_object_object_add(o, "error", json_object_get(json_object_object_get(ij, "error")));
	line = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	f = fopen(path, "a");
	if (!f || fprintf(f, "%s\n", line) < 0 || fflush(f) || fsync(fileno(f)))
		warning("cannot append to '%s': %s", path, strerror(errno));
	if (f)
		fclose(f);
	json_object_put(o);
}

/* Everything one run holds, phase to phase. */
struct bench {
	const struct run_opts *o;
	struct run_opts ro;          /* the options, or a resumed run's */
	struct run_result *res;
	struct variant v;
	struct suite s;
	struct kernel_image k;
	struct image_needs needs;
	const struct backend_ops *bk;
	void *bkparams;              /* the backend's parameters */
	struct backend_info bi;
	struct boot_params bp;
	int scratch_tmpfs;       /* instructions timing: the scratch space is a
				  * tmpfs in guest RAM, not a disk (block I/O
				  * completes in host time: docs/timing.md) */
	char runs[KB_PATH_MAX], run_id[256], initrd[KB_PATH_MAX], workdir[KB_PATH_MAX];
	char cmdline[OPT_STR_MAX * 2];
	char target_scratch[OPT_STR_MAX]; /* --target's scratch directory */
	int vcpus, mem, iterations;
	json_object *old;            /* the resumed run's document */
	json_object *doc;
	int unsaved;                 /* an iteration could not be saved: stopped */
};

/* --resume: the run's variant, suite and settings, not new ones. */
static int resume_settings(struct bench *b)
{
	const struct run_opts *o = b->o;
	char path[KB_PATH_MAX];
	const char *xc, *bk;
	json_object *x;
	resume_dir(o->resume, b->runs, b->res->dir, sizeof(b->res->dir));
	/* without --reports, the run's own reports directory: its latest link
	 * and its history, not the default ones */
	if (!o->reports)
		parent_of(b->res->dir, b->runs, sizeof(b->runs));
	snprintf(path, sizeof(path), "%s/results.json", b->res->dir);
	if (!path_exists(path))
		return error("--resume: '%s' has no results.json (not a kbench run directory)",
			     b->res->dir);
	if (!(b->old = results_load(path)))
		return -1;
	x = json_object_object_get(b->old, "variant");
	b->ro.kernel = json_object_get_string(json_object_object_get(x, "name"));
	if (o->kernel && o->kernel_given && strcmp(o->kernel, b->ro.kernel))
		return error("--resume: the run is of variant '%s', not '%s'", b->ro.kernel, o->kernel);
	if (!strcmp(or_empty(jstr(x, "source")), "image")) {
		/* a kernel image: the same file again (its hash is checked) */
		json_object *im = json_object_object_get(x, "image");
		b->ro.kernel_image = jstr(im, "path");
		b->ro.kernel_config = jstr(im, "config");
		b->ro.kernel_modules = jstr(im, "modules");
		if (!b->ro.kernel_image)
			return error("--resume: the run's results.json names no image path");
	}
	bk = json_object_get_string(json_object_object_get(json_object_object_get(b->old, "host"),
							   "backend"));
	if (o->backend && bk && strcmp(o->backend, bk))
		return error("--resume: the run is on backend '%s', not '%s'", bk, o->backend);
	b->ro.backend = bk;
	x = json_object_object_get(b->old, "suite");
	b->ro.suite = json_object_get_string(json_object_object_get(x, "path"));
	b->ro.iterations = json_object_get_int(json_object_object_get(x, "iterations"));
	x = json_object_object_get(b->old, "guest");
	b->vcpus = json_object_get_int(json_object_object_get(x, "vcpus"));
	b->mem = json_object_get_int(json_object_object_get(x, "mem_mb"));
	/* the extra command line was recorded whole (variant's + user's) */
	b->ro.cmdline = NULL;
	xc = json_object_get_string(json_object_object_get(json_object_object_get(b->old, "variant"),
							   "extra_cmdline"));
	snprintf(b->cmdline, sizeof(b->cmdline), "%s", xc ? xc : "");
	b->o = &b->ro;
	return 0;
}

/* --target: only for a backend that runs on one (ssh), which needs it;
 * its name and --keep go to the backend, its scratch directory to the
 * boot parameters. */
static int bench_target(struct bench *b)
{
	const struct run_opts *o = b->o;
	struct target t;
	int tgt = (b->bk->caps & BK_CAP_TARGET) != 0;
	if (o->target && !tgt)
		return error("--target names a remote machine, which backend '%s' does not run on: "
			     "use --backend ssh (or leave --backend out)", b->bk->name);
	if (!tgt)
		return o->keep ? error("--keep is for a remote machine (--target NAME)") : 0;
	if (!o->target)
		return error("backend '%s' needs --target NAME (a file in configs/targets/)",
			     b->bk->name);
	if (o->scratch)
		return error("--scratch: the target file names the machine's scratch directory "
			     "(scratch = DIR)");
	if (target_load(o->target, &t))
		return -1;
	/* a block device is formatted and mounted there by the backend */
	snprintf(b->target_scratch, sizeof(b->target_scratch), "%s",
		 t.scratch_mkfs != TM_NO ? TARGET_SCRATCH_MNT : t.scratch);
	target_release(&t);
	return 0;
}

/* Phase 1: the options (or the resumed run's) and the backend. */
static int bench_options(struct bench *b)
{
	const struct run_opts *o = b->o;
	snprintf(b->runs, sizeof(b->runs), "%s/runs", o->reports ? o->reports : "reports");
	if (!o->reports)
		snprintf(b->runs, sizeof(b->runs), "%s/reports/runs", kb_home());
	b->vcpus = o->vcpus > 0 ? o->vcpus : host_cores();
	b->mem = o->mem_mb > 0 ? o->mem_mb : 2048;
	if (o->resume && resume_settings(b))
		return -1;
	parent_of(b->runs, b->res->reports, sizeof(b->res->reports));
	if (b->o->target && b->o->lab)
		return error("--target and --lab: a run is on one remote machine or on a lab, not both");
	if (!(b->bk = backend_lookup(b->o->backend ? b->o->backend : b->o->target ? "ssh" :
				     b->o->lab ? "lava" : NULL)))
		return -1;
	if (b->o->lab && strcmp(b->bk->name, "lava"))
		return error("--lab names a LAVA lab, which backend '%s' does not run on: use "
			     "--backend lava (or leave --backend out)", b->bk->name);
	if (!b->o->lab && !strcmp(b->bk->name, "lava"))
		return error("backend 'lava' needs --lab NAME (a file in configs/labs/)");
	if (b->o->lab && (o->vcpus > 0 || o->mem_mb > 0))
		return error("--vcpus and --memory size a QEMU guest; a lab's device is what its job "
			     "template makes it (docs/lab.md)");
	if (bench_target(b))
		return -1;
	if (b->o->scratch && !(b->bk->caps & BK_CAP_SCRATCH_DIR))
		return error("--scratch: backend '%s' has its own scratch disk; --scratch DIR is for "
			     "a backend that runs on this machine (--backend local)", b->bk->name);
	/* no guest: the workloads have the whole machine */
	if (b->bk->caps & BK_CAP_RUNNING_KERNEL) {
		if (o->vcpus > 0 || o->mem_mb > 0)
			return error("--vcpus and --memory size a guest; backend '%s' runs on the whole "
				     "machine", b->bk->name);
		b->mem = host_mem_mb();
	}
	b->bkparams = backend_params_new(b->bk);
	if (b->o->lab_device && !b->o->lab)
		return error("--lab-device names a device of the lab given by --lab");
	if (b->o->lab && (backend_param_set(b->bk, b->bkparams, "lab", b->o->lab) ||
			  (b->o->lab_device &&
			   backend_param_set(b->bk, b->bkparams, "device", b->o->lab_device))))
		return -1;
	if (b->o->target && (backend_param_set(b->bk, b->bkparams, "target", b->o->target) ||
			     (b->o->keep && backend_param_set(b->bk, b->bkparams, "keep", "yes"))))
		return -1;
	/* --accel is the qemu backend's accel option */
	if (b->o->accel != ACCEL_AUTO &&
	    backend_param_set(b->bk, b->bkparams, "accel", accel_name(b->o->accel)))
		return -1;
	/* --timing is the qemu backend's timing option; other backends run
	 * on real time (a machine, a lab's device) and refuse instructions */
	if (b->o->timing != TIMING_DEFAULT) {
		if (!backend_has_param(b->bk, "timing")) {
			if (b->o->timing == TIMING_INSTRUCTIONS)
				return error("--timing instructions is QEMU's instruction counter: backend "
					     "'%s' runs on real time (give --timing wall or leave it out)",
					     b->bk->name);
		} else if (backend_param_set(b->bk, b->bkparams, "timing", timing_name(b->o->timing))) {
			return -1;
		}
	}
	return 0;
}

/* The same suite settings and the same kernel as the resumed run, or the
 * figures of the two halves would not belong together. */
static int resume_matches(struct bench *b)
{
	json_object *ow = json_object_object_get(json_object_object_get(b->old, "suite"), "workloads");
	json_object *ov = json_object_object_get(b->old, "variant");
	const char *pv = json_object_get_string(json_object_object_get(ov, "package_version"));
	const char *ch = json_object_get_string(json_object_object_get(ov, "config_hash"));
	const struct kernel_image *k = &b->k;
	int same = ow && json_object_array_length(ow) == b->s.n;
	for (size_t i = 0; same && i < b->s.n; i++) {
		json_object *p = opts_to_json(b->s.w[i].params, b->s.w[i].ops->opts);
		json_object *w = json_object_array_get_idx(ow, i);
		same = !strcmp(json_object_get_string(json_object_object_get(w, "label")), b->s.w[i].label) &&
		       json_object_equal(p, json_object_object_get(w, "params"));
		json_object_put(p);
	}
	if (!same)
		return error("--resume: suite '%s' has changed since the run started (workloads or "
			     "parameters differ from results.json): start a new run", b->s.path);
	if (!pv || strcmp(pv, k->version) || ((ch || k->config_hash[0]) &&
					       (!ch || strcmp(ch, k->config_hash))))
		return error("--resume: variant '%s' is now %s%s%s, the run used %s: start a new run",
			     b->v.name, k->version, k->config_hash[0] ? " config " : "",
			     k->config_hash[0] ? k->config_hash : "", pv ? pv : "?");
	snprintf(b->run_id, sizeof(b->run_id), "%s",
		 json_object_get_string(json_object_object_get(b->old, "run_id")));
	return 0;
}

/* The run directory: the resumed one, or a new one. */
static int bench_rundir(struct bench *b)
{
	struct run_result *res = b->res;
	char con[KB_PATH_MAX];
	if (b->old) {
		if (resume_matches(b))
			return -1;
	} else {
		if (mkdir_p(b->runs, 0755))
			return -1;
		make_run_id(b->o, b->v.name, b->s.name, b->runs, b->run_id, sizeof(b->run_id));
		snprintf(res->dir, sizeof(res->dir), "%s/%s", b->runs, b->run_id);
		if (path_exists(res->dir))
			return error("run directory '%s' already exists", res->dir);
		if (mkdir_p(res->dir, 0755))
			return -1;
	}
	snprintf(res->results, sizeof(res->results), "%s/results.json", res->dir);
	snprintf(con, sizeof(con), "%s/console", res->dir);
	return mkdir_p(con, 0755);
}

/* The generic boot parameters; a scratch disk only when some workload
 * works on it. Refused when the backend cannot give what the suite needs. */
static int bench_boot_params(struct bench *b)
{
	struct boot_params *bp = &b->bp;
	int scratch = 0, in_root = 0;
	memset(bp, 0, sizeof(*bp));
	bp->kernel = b->k.vmlinuz;
	bp->initrd = b->initrd;
	bp->agent = agent_path();
	bp->release = b->k.release;
	bp->moddir = b->k.moddir;
	bp->kconfig = b->k.config;
	for (size_t i = 0; i < b->s.n; i++) {
		struct guest_cmd c;
		guest_cmd_init(&c);
		c.native = !!(b->bk->caps & BK_CAP_NATIVE);
		c.target = !!(b->bk->caps & BK_CAP_TARGET);
		if (b->s.w[i].ops->command(b->s.w[i].params, &c) == 0) {
			scratch |= c.needs_scratch;
			in_root |= c.in_root || c.bg_in_root;
		} else if (c.native || c.target) { /* no image: the command is all there is to check */
			guest_cmd_release(&c);
			return error("suite '%s': [%s] cannot run on backend '%s' (above)", b->s.name,
				     b->s.w[i].label, b->bk->name);
		}
		guest_cmd_release(&c);
	}
	/* a chroot into the host's toolchain share (the local backend
	 * prepares no workload, so its needs do not say) */
	if (in_root && !(b->bk->caps & BK_CAP_HOSTROOT))
		return error("suite '%s' needs a host toolchain share, which backend '%s' cannot give",
			     b->s.name, b->bk->name);
	if (scratch && (b->bk->caps & BK_CAP_TARGET)) {
		if (!b->target_scratch[0])
			return error("suite '%s' has a workload that needs scratch space (dbench, kbuild): give "
				     "target '%s' a scratch directory (scratch = DIR in its file)",
				     b->s.name, b->o->target);
		bp->scratch_dir = b->target_scratch;
	} else if (scratch && !(b->bk->caps & BK_CAP_SCRATCH_DISK) &&
		   (b->bk->caps & BK_CAP_SCRATCH_DIR)) {
		if (!b->o->scratch)
			return error("suite '%s' has a workload that needs scratch space (dbench, kbuild): "
				     "give --scratch DIR, an existing empty directory kbench may use (backend "
				     "'%s' has no scratch disk and never picks one itself)", b->s.name,
				     b->bk->name);
		bp->scratch_dir = b->o->scratch;
	} else if (scratch) {
		bp->scratch_mb = SCRATCH_MB;
	}
	if (b->needs.disk[0])
		bp->build_disk = b->needs.disk;
	if (b->needs.tree[0]) {
		bp->build_tree = b->needs.tree;
		bp->build_tree_key = b->needs.tree_key;
	}
	bp->build_disk_keep = b->needs.disk_keep;
	bp->hostroot = b->needs.hostroot;
	bp->cmdline = b->cmdline;
	bp->workdir = b->workdir;
	bp->vcpus = b->vcpus;
	/* without ACPI a kernel sees one CPU per socket (the test kernels saw
	 * one CPU, so their locks never spun: kernels/patches/README.md) */
	bp->cpus_as_sockets = b->vcpus > 1 && kernel_config_state(&b->k, "ACPI") == 'n';
	bp->mem_mb = b->mem;
	bp->boot_timeout_s = 60;
	bp->bparams = b->bkparams;
	if ((bp->scratch_mb && !(b->bk->caps & BK_CAP_SCRATCH_DISK)) ||
	    (bp->build_disk && !(b->bk->caps & BK_CAP_BUILD_DISK)) ||
	    (bp->hostroot && !(b->bk->caps & BK_CAP_HOSTROOT)))
		return error("suite '%s' needs a %s, which backend '%s' cannot give", b->s.name,
			     bp->hostroot && !(b->bk->caps & BK_CAP_HOSTROOT) ? "host toolchain share" :
			     bp->build_disk && !(b->bk->caps & BK_CAP_BUILD_DISK) ? "build disk" :
			     "scratch disk", b->bk->name);
	return b->bk->check_tools ? b->bk->check_tools(bp) : 0;
}

/* The backend settles the rest (qemu: KVM or TCG, with a probe boot). */
static int bench_backend_setup(struct bench *b)
{
	char probe_con[KB_PATH_MAX];
	struct boot_params probe = b->bp;
	snprintf(probe_con, sizeof(probe_con), "%s/console/kvm-probe.log", b->res->dir);
	probe.console_log = probe_con;
	probe.scratch_mb = 0;
	probe.build_disk = NULL;
	probe.hostroot = 0;
	probe.boot_timeout_s = 30;
	if (b->bk->setup(b->bkparams, &probe, &b->bi))
		return -1;
	/* instructions timing: a disk's I/O completes in host time, which
	 * the guest's clock does not follow; in RAM it is guest work like
	 * any other (dbench's CV between boots: docs/timing.md) */
	if (!strcmp(b->bi.timing, "instructions") && b->bp.scratch_mb) {
		b->bp.scratch_mb = 0;
		b->scratch_tmpfs = 1;
	}
	b->bp.boot_timeout_s = b->o->boot_timeout_s > 0 ? b->o->boot_timeout_s : b->bi.boot_timeout_s;
	return 0;
}

/* Phase 2: variant, suite, tools, kernel, image, run directory, backend. */
static int bench_prepare(struct bench *b)
{
	const struct run_opts *o = b->o;
	const char *agent = agent_path();
	/* the local backend: the running kernel, nothing fetched, built or booted */
	int local = (b->bk->caps & BK_CAP_RUNNING_KERNEL) != 0;
	if (!local && !strcmp(o->kernel, "running"))
		return error("--kernel running is this machine's kernel, which backend '%s' does not "
			     "run: add --backend local", b->bk->name);
	if (o->kernel_image && (local || o->kernel_given))
		return error("--kernel-image boots the image it names: not with %s",
			     local ? "the local backend" : "--kernel");
	if ((o->kernel_modules || o->kernel_config) && !o->kernel_image)
		return error("--kernel-modules and --kernel-config go with --kernel-image");
	if ((local ? running_variant(o->kernel, o->cmdline, &b->v, &b->k) :
	     o->kernel_image ? image_variant(o->kernel_image, o->kernel_modules, o->kernel_config,
					     &b->v) :
		     variant_load(o->kernel, &b->v)) ||
	    suite_load(o->suite, b->vcpus, &b->s))
		return -1;
	/* built for the machine: its kernel_config = localyes */
	if ((b->bk->caps & BK_CAP_TARGET) && o->target && target_variant(o->target, &b->v) < 0)
		return -1;
	if (!is_executable(agent))
		return error("guest agent '%s' is missing: run make", agent);
	if (check_tools_of(&b->s, !local) || check_space(b->runs))
		return -1;
	b->iterations = o->iterations > 0 ? o->iterations : b->s.iterations;
	if (!local && (kernel_get(&b->v, 0, &b->k) || kernel_image_check(b->k.vmlinuz)))
		return -1;
	if (b->old && b->v.source == VSRC_IMAGE) {
		const char *was = jstr(jget(jget(b->old, "variant"), "image"), "sha256");
		if (!was || strcmp(was, b->k.image_sha256))
			return error("--resume: '%s' is not the image the run started with (sha256 %.16s..., "
				     "now %.16s...): start a new run", b->v.image, was ? was : "?",
				     b->k.image_sha256);
	}
	/* after the kernel: a kbuild disk's tree comes from the same source cache */
	b->needs.target = (b->bk->caps & BK_CAP_TARGET) != 0;
	b->needs.net = (b->bk->caps & BK_CAP_NET_AGENT) != 0;
	for (size_t i = 0; !local && i < b->s.n; i++)
		if (b->s.w[i].ops->prepare(b->s.w[i].params, &b->needs))
			return -1;
	if (!b->old && o->cmdline_whole)
		snprintf(b->cmdline, sizeof(b->cmdline), "%s", o->cmdline ? o->cmdline : "");
	else if (!b->old)
		snprintf(b->cmdline, sizeof(b->cmdline), "%s%s%s", b->v.cmdline, o->cmdline ? " " : "",
			 o->cmdline ? o->cmdline : "");
	/* QEMU's guest needs; a target boots with its own userspace */
	if (bench_boot_params(b) ||
	    (!local && !(b->bk->caps & BK_CAP_TARGET) &&
	     kernel_needs_refuse(b->v.name, &b->k, IMAGE_NEEDS_KNEEDS(&b->needs))) ||
	    (!local && !(b->bk->caps & BK_CAP_TARGET) &&
	     image_build(&b->k, &b->needs, agent, b->initrd, sizeof(b->initrd))))
		return -1;
	if (bench_rundir(b))
		return -1;
	snprintf(b->workdir, sizeof(b->workdir), "%s/tmp/run-%ld", cache_root(), (long)getpid());
	if (mkdir_p(b->workdir, 0755))
		return -1;
	return bench_backend_setup(b);
}

/* HOST's KEY: the name of the target or lab file PATH (configs/targets,
 * configs/labs), its characters but [A-Za-z0-9._-] made '_'. */
static void host_name_add(json_object *host, const char *key, const char *path)
{
	char name[64], dir[KB_PATH_MAX];
	config_file_names(path ? path : "", name, dir, sizeof(dir));
	for (char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("._-", *c))
			*c = '_';
	if (name[0])
		json_object_object_add(host, key, json_object_new_string(name));
}

/* A resumed run's guest given the CPU model and TCG threading the run
 * started with (KBENCH_QEMU_CPU, KBENCH_QEMU_TCG_THREAD), or its halves
 * would not belong together; runs before they were recorded pass. */
static int resume_same_cpu(struct bench *b)
{
	json_object *h = jget(b->old, "host");
	const char *cpu = jstr(h, "guest_cpu"), *th = jstr(h, "tcg_thread");
	const char *tm = results_timing(b->old), *now = b->bi.timing[0] ? b->bi.timing : "wall";
	if (strcmp(tm, now))
		return error("--resume: the run's guest ran on %s timing, this one would run on %s: "
			     "give --timing %s, or start a new run", tm, now, tm);
	if ((cpu && strcmp(cpu, b->bi.cpu)) || (th && strcmp(th, b->bi.tcg_thread)))
		return error("--resume: the run's guest had -cpu %s%s%s, this one would have -cpu "
			     "%s%s%s: set KBENCH_QEMU_CPU and KBENCH_QEMU_TCG_THREAD as the run had them, "
			     "or start a new run", cpu ? cpu : "?", th ? " under TCG thread=" : "",
			     th ? th : "", b->bi.cpu, b->bi.tcg_thread[0] ? " under TCG thread=" : "",
			     b->bi.tcg_thread);
	return 0;
}

/* Phase 3: the results document, new or resumed, saved. */
static int bench_document(struct bench *b)
{
	if (b->old) {
		if (resume_same_cpu(b))
			return -1;
		b->doc = b->old;
		b->old = NULL;
		results_resumed(b->doc);
	} else {
		struct results_head h = {
			.run_id = b->run_id, .host = host_info(), .vcpus = b->vcpus, .mem_mb = b->mem,
			.scratch_mb = b->scratch_tmpfs ? 0 : SCRATCH_MB, .variant = &b->v, .kernel = &b->k,
			.cmdline = b->cmdline, .suite = &b->s, .iterations = b->iterations,
		};
		char ver[256];
		b->bk->version(ver, sizeof(ver));
		json_object_object_add(h.host, "accel", json_object_new_string(b->bi.accel));
		/* what the guest was given: the CPU model, TCG's threading */
		if (b->bi.cpu[0])
			json_object_object_add(h.host, "guest_cpu", json_object_new_string(b->bi.cpu));
		if (b->bi.tcg_thread[0])
			json_object_object_add(h.host, "tcg_thread",
					       json_object_new_string(b->bi.tcg_thread));
		/* the guest's clock (docs/timing.md): its figures are not
		 * comparable with the other clock's */
		json_object_object_add(h.host, "timing",
				       json_object_new_string(b->bi.timing[0] ? b->bi.timing : "wall"));
		if (b->bi.timing[0] && !strcmp(b->bi.timing, "instructions"))
			json_object_object_add(h.host, "icount_shift",
					       json_object_new_int(b->bi.icount_shift));
		json_object_object_add(h.host, "backend", json_object_new_string(b->bk->name));
		json_object_object_add(h.host, "backend_version", json_object_new_string(ver));
		/* a remote machine's facts come from its agent (bench_record);
		 * its name (the target file's) identifies it in the history */
		if (b->bk->caps & BK_CAP_REMOTE)
			json_object_object_del(h.host, "machine");
		if (b->bk->caps & BK_CAP_TARGET)
			host_name_add(h.host, "target", b->o->target);
		/* a lab's runs are the lab's in the history, whichever host
		 * drives them (a CI runner that changes from night to night) */
		if (b->o->lab)
			host_name_add(h.host, "lab", b->o->lab);
		b->doc = results_new(&h);
		/* instructions timing's scratch space (bench_backend_setup) */
		if (b->scratch_tmpfs)
			json_object_object_add(json_object_object_get(b->doc, "guest"), "scratch",
					       json_object_new_string("tmpfs"));
	}
	return results_save(b->doc, b->res->results);
}

/* Phase 5 (after each iteration): what the guest said, the summary, the
 * document and the index saved. */
static int bench_record(struct bench *b, json_object *ij)
{
	int ret = 0;
	json_object *host = json_object_object_get(b->doc, "host");
	json_object *mf = json_object_object_get(json_object_object_get(ij, "guest"), "machine_facts");
	/* host.machine is the machine that ran the workloads: a target's or
	 * a lab device's facts as its agent reports them, not this host's */
	if ((b->bk->caps & BK_CAP_REMOTE) && !json_object_object_get(host, "machine") &&
	    json_object_is_type(mf, json_type_object))
		json_object_object_add(host, "machine", json_object_get(mf));
	results_note_guest(b->doc, ij);
	results_summarize(b->doc);
	if (results_save(b->doc, b->res->results))
		ret = -1;
	index_append(b->res->dir, ij);
	return ret;
}

static void progress(json_object *ij, int i, int total, double t)
{
	double el = now_mono() - t;
	int left = total - i;
	if (kb_quiet)
		return;
	info("kbench: iteration %d/%d %s in %.0f s", i, total,
	     json_object_get_string(json_object_object_get(ij, "status")), el);
	if (left)
		info("kbench: about %.0f s left (%d iteration%s)", el * left, left, left == 1 ? "" : "s");
}

/* Phase 4: every iteration not done yet (all of a new run). */
static int bench_iterations(struct bench *b)
{
	struct run_result *res = b->res;
	json_object *its = json_object_object_get(b->doc, "iterations");
	int total = b->iterations + b->s.warmup, ret = KB_EXIT_OK;
	int retries = b->o->boot_retries_set ? b->o->boot_retries : KB_BOOT_RETRIES;
	for (int i = 1; i <= total && !kb_interrupted; i++) {
		struct iter it = { .s = &b->s, .bk = b->bk, .bi = &b->bi, .bp = &b->bp,
				   .needs = &b->needs,
				   .tscale = b->bi.time_scale, .index = i,
				   .busy_threshold = b->o->busy_threshold > 0 ? b->o->busy_threshold :
						     HOSTNOISE_THRESHOLD_PCT, .warmup = i <= b->s.warmup,
				   .host_independent = !strcmp(b->bi.timing, "instructions"),
				   .scratch_tmpfs = b->scratch_tmpfs,
				   .rundir = res->dir };
		double t;
		int pos;
		if (iteration_done(its, i, &pos)) {
			if (!strcmp(json_object_get_string(json_object_object_get(
				    json_object_array_get_idx(its, (size_t)pos), "status")), "ok"))
				res->iterations_ok++;
			else
				res->iterations_failed++, ret = KB_EXIT_FAILED;
			continue;
		}
		if (pos >= 0)
			json_object_array_del_idx(its, (size_t)pos, 1);
		if (b->o->resume)
			info("kbench: resuming: iteration %d", i);
		it.ij = json_object_new_object();
		t = now_mono();
		json_object_array_add(its, it.ij);
		json_object_object_add(it.ij, "index", json_object_new_int(i));
		json_object_array_sort(its, by_index);
		if (run_iteration(&it, retries)) {
			/* cut short by Ctrl-C or SIGTERM: --resume runs it again */
			if (kb_interrupted)
				json_object_object_add(it.ij, "interrupted", json_object_new_boolean(1));
			res->iterations_failed++;
			ret = KB_EXIT_FAILED;
		} else {
			res->iterations_ok++;
		}
		if (bench_record(b, it.ij)) {
			/* a full disk: running on would throw every result away */
			error("iteration %d could not be saved in '%s': the run stops here; the file "
			      "holds the iterations saved before (free some space, then kbench run "
			      "--resume %s)", i, res->results, res->dir);
			b->unsaved = 1;
			return KB_EXIT_USAGE;
		}
		progress(it.ij, i, total, t);
	}
	return ret;
}

/* Phase 6: the verdict in the document, reports/latest, the summary. */
static int bench_finish(struct bench *b, int ret)
{
	if (b->unsaved)
		return ret; /* left resumable: not finished, not summarised, not recorded */
	results_finish(b->doc, kb_interrupted, b->res->iterations_failed);
	b->unsaved = results_save(b->doc, b->res->results) != 0;
	if (b->unsaved)
		ret = KB_EXIT_USAGE;
	if (!b->o->no_latest) {
		char latest[KB_PATH_MAX], target[KB_PATH_MAX], tmp[KB_PATH_MAX];
		snprintf(latest, sizeof(latest), "%s/../latest", b->runs);
		snprintf(target, sizeof(target), "runs/%s", b->run_id);
		snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", latest, (long)getpid());
		unlink(tmp);
		if (symlink(target, tmp) || rename(tmp, latest))
			warning("cannot point '%s' at the run: %s", latest, strerror(errno));
	}
	if (!b->o->quiet_summary)
		print_summary(b->doc, stdout);
	if (b->unsaved)
		error("the end of the run could not be saved in '%s' (its status is still "
		      "'running')", b->res->results);
	else
		info("kbench: results in %s", b->res->results);
	return kb_interrupted && !b->unsaved ? KB_EXIT_FAILED : ret;
}

static void bench_release(struct bench *b)
{
	if (b->workdir[0])
		rm_rf(b->workdir);
	json_object_put(b->old);
	json_object_put(b->doc);
	free(b->bkparams);
	strvec_clear(&b->needs.programs);
	strvec_clear(&b->needs.files);
	suite_release(&b->s);
}

int run_bench(const struct run_opts *o, struct run_result *res)
{
	struct bench b = { .o = o, .ro = *o, .res = res, .needs = IMAGE_NEEDS_INIT };
	char where[OPT_STR_MAX + 32];
	int ret = KB_EXIT_USAGE;

	memset(res, 0, sizeof(*res));
	if (bench_options(&b) || bench_prepare(&b) || bench_document(&b))
		goto out;
	if (b.v.test_only)
		warning("variant '%s' is a TEST kernel (small config): its figures are not "
			"representative and must not be compared with real variants", b.v.name);
	/* where it runs: a guest kbench sizes, or a machine that is what it is */
	if (b.bk->caps & BK_CAP_TARGET)
		snprintf(where, sizeof(where), "on target %s", o->target);
	else if (b.bk->caps & BK_CAP_NET_AGENT)
		snprintf(where, sizeof(where), "on a device of lab %s", o->lab);
	else
		snprintf(where, sizeof(where), "%d %s, %d MiB, %s", b.vcpus,
			 b.bk->caps & BK_CAP_RUNNING_KERNEL ? "CPUs" : "vCPU", b.mem, b.bi.accel);
	info("kbench: run %s: %s (%s %s), suite %s, %d iteration%s%s, %s", b.run_id, b.v.name,
	     b.k.package, b.k.version, b.s.name, b.iterations, b.iterations == 1 ? "" : "s",
	     b.s.warmup ? " + warm-up" : "", where);
	ret = bench_finish(&b, bench_iterations(&b));
	if (!b.unsaved) { /* the history records only what results.json holds */
		res->doc = b.doc;
		b.doc = NULL;
	}
out:
	if (!b.old && res->dir[0] && res->results[0] && !path_exists(res->results)) {
		/* refused before its document (a lab's token, a target that
		 * does not answer): no empty run directory left behind; rmdir
		 * removes only what is still empty */
		char con[KB_PATH_MAX + 16];
		snprintf(con, sizeof(con), "%s/console", res->dir);
		if (!rmdir(con))
			rmdir(res->dir);
	}
	if (kb_interrupted && ret == KB_EXIT_USAGE) {
		/* a step that failed because Ctrl-C or SIGTERM killed its
		 * child is an interruption, not bad input: exit as one */
		info("kbench: interrupted before the run could start");
		ret = KB_EXIT_FAILED;
	}
	bench_release(&b);
	return ret;
}

void run_result_release(struct run_result *r)
{
	json_object_put(r->doc);
	r->doc = NULL;
}

static const char *str_or(const char *s)
{
	return s ? s : "?";
}

/* The run's host noise line, when it was sampled. */
static void print_host_noise(json_object *doc, FILE *out)
{
	json_object *hn = json_object_object_get(doc, "host_noise");
	int busy = json_object_get_int(json_object_object_get(hn, "busy"));
	double most = json_object_get_double(json_object_object_get(hn, "max_other_cpu_pct"));
	double thr = json_object_get_double(json_object_object_get(hn, "threshold_pct"));
	json_object *kern = json_object_object_get(hn, "max_kernel_cpu_pct");
	char kernel[96] = "", who[256];
	if (!hn)
		return;
	if (kern)
		snprintf(kernel, sizeof(kernel), "; the kernel's own work, not counted: at most %.1f%%",
			 json_object_get_double(kern));
	/* the busiest other processes of the busiest iteration: who to ask */
	hostnoise_busiest_text(json_object_object_get(hn, "busiest"), who, sizeof(who));
	if (json_object_get_int(json_object_object_get(hn, "busy_ignored")))
		fprintf(out, "host noise: the host was busy in %d of %d iterations (other processes used "
			"up to %.1f%% of its CPU%s), not flagged: the guest's clock counted instructions, "
			"which the host's load does not change\n",
			json_object_get_int(json_object_object_get(hn, "busy_ignored")),
			json_object_get_int(json_object_object_get(hn, "iterations")), most, who);
	else if (busy)
		fprintf(out, "host noise: BUSY HOST: %d of %d iterations flagged (other processes used up "
			"to %.1f%% of the host's CPU, threshold %.0f%%%s%s): their figures may be "
			"distorted\n", busy, json_object_get_int(json_object_object_get(hn, "iterations")),
			most, thr, who, kernel);
	else
		fprintf(out, "host noise: quiet (other processes used at most %.1f%% of the host's CPU, "
			"threshold %.0f%%%s%s)\n", most, thr, who, kernel);
}

/* The summary's iterations line: how many are ok and failed, and how many
 * boots were retried (any backend: run_iteration's boot_retries), in which
 * iterations. */
static void print_iterations(json_object *doc, FILE *out)
{
	int ok = 0, failed = 0, retried = 0;
	json_object *its = json_object_object_get(doc, "iterations");
	struct strbuf which = STRBUF_INIT;
	for (size_t i = 0; its && i < json_object_array_length(its); i++) {
		json_object *it = json_object_array_get_idx(its, i);
		json_object *st = json_object_object_get(it, "status");
		json_object *br = json_object_object_get(it, "boot_retries");
		if (st && !strcmp(json_object_get_string(st), "ok"))
			ok++;
		else
			failed++;
		if (br && json_object_is_type(br, json_type_array) && json_object_array_length(br)) {
			retried += (int)json_object_array_length(br);
			sb_addf(&which, "%s%d", which.len ? ", " : "",
				json_object_get_int(json_object_object_get(it, "index")));
		}
	}
	fprintf(out, "iterations: %d ok, %d failed", ok, failed);
	if (retried)
		fprintf(out, "; %d boot%s retried (%d failed boot%s tried again, in iteration%s %s: "
			"boot_retries in results.json)", retried, retried == 1 ? "" : "s", retried,
			retried == 1 ? "" : "s", strchr(which.buf, ',') ? "s" : "", which.buf);
	fputc('\n', out);
	sb_release(&which);
}

void print_summary(json_object *doc, FILE *out)
{
	json_object *sum = json_object_object_get(doc, "summary");
	json_object *v = json_object_object_get(doc, "variant");
	json_object *h = json_object_object_get(doc, "host");
	const char *rel = jstr(v, "kernel_release");
	/* no guest came up: the image's release, never "(null)" */
	fprintf(out, "\n%s on %s%s (%s), suite %s, accel %s%s\n", str_or(jstr(v, "name")),
		rel ? rel : str_or(jstr(v, "image_release")), rel ? "" : " (never booted)",
		str_or(jstr(v, "package_version")),
		str_or(jstr(json_object_object_get(doc, "suite"), "name")), str_or(jstr(h, "accel")),
		strcmp(results_timing(doc), "instructions") ? "" :
		", timing instructions (QEMU icount: path lengths, not hardware times)");
	fprintf(out, "%-22s %-12s %8s %3s %12s %12s %12s %7s\n", "workload", "metric", "unit", "n",
		"median", "min", "max", "cv%");
	if (!sum)
		return;
	json_object_object_foreach(sum, label, metrics) {
		json_object_object_foreach(metrics, mname, m) {
			json_object *x;
			double cv = NAN;
			if (json_object_object_get_ex(m, "cv", &x))
				cv = json_object_get_double(x) * 100;
			fprintf(out, "%-22.22s %-12.12s %8.8s %3d %12.4g %12.4g %12.4g %7.1f\n", label, mname,
				json_object_get_string(json_object_object_get(m, "unit")),
				json_object_get_int(json_object_object_get(m, "n")),
				json_object_get_double(json_object_object_get(m, "median")),
				json_object_get_double(json_object_object_get(m, "min")),
				json_object_get_double(json_object_object_get(m, "max")), cv);
		}
	}
	print_iterations(doc, out);
	print_host_noise(doc, out);
}
