/* run.c - run one variant through one suite: boot a fresh guest per
 * iteration, run every workload through the agent, parse, and keep
 * results.json, raw outputs and console logs in the run directory. */
#include "run/run.h"
#include "backend/hostroot.h"
#include "backend/image.h"
#include "kernel/kernel.h"
#include "run/results.h"
#include "agent/proto.h"
#include "run/trouble.h"
#include "core/spawn.h"

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

json_object *host_info(void)
{
	json_object *h = json_object_new_object();
	struct utsname u;
	struct sysinfo si;
	struct strbuf cpu = STRBUF_INIT;
	char model[256] = "unknown", qv[256];

	uname(&u);
	sysinfo(&si);
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
	json_object_object_add(h, "mem_mb",
			       json_object_new_int64((int64_t)si.totalram * si.mem_unit >> 20));
	json_object_object_add(h, "kernel", json_object_new_string(u.release));
	json_object_object_add(h, "qemu", json_object_new_string(qv));
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
	char ts[32], path[KB_PATH_MAX];
	time_t t = time(NULL);
	struct tm tm;
	if (o->run_id) {
		snprintf(out, n, "%s", o->run_id);
		return;
	}
	gmtime_r(&t, &tm);
	strftime(ts, sizeof(ts), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(out, n, "%s-%s-%s", ts, variant, suite);
	snprintf(path, sizeof(path), "%s/%s", runs, out);
	for (int i = 2; path_exists(path) && i < 1000; i++) {
		snprintf(out, n, "%s-%s-%s-%d", ts, variant, suite, i);
		snprintf(path, sizeof(path), "%s/%s", runs, out);
	}
}

static json_object *jstr_or_null(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

static int save_text(const char *dir, const char *name, const char *text, char *rel,
		     size_t rellen, const char *relprefix)
{
	char path[KB_PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(rel, rellen, "%s/%s", relprefix, name);
	return write_file_atomic(path, text, strlen(text));
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

/* Small request helpers for the agent's read and write ops. */
static int agent_write(struct guest *g, const char *path, const char *data)
{
	json_object *req = json_object_new_object(), *resp = NULL;
	int ret;
	json_object_object_add(req, "op", json_object_new_string("write"));
	json_object_object_add(req, "path", json_object_new_string(path));
	json_object_object_add(req, "data", json_object_new_string(data));
	ret = guest_call(g, req, 30, &resp);
	if (ret == 0 && json_object_object_get(resp, "error"))
		ret = -1;
	json_object_put(req);
	json_object_put(resp);
	return ret;
}

static char *agent_read(struct guest *g, const char *path)
{
	json_object *req = json_object_new_object(), *resp = NULL, *v;
	char *data = NULL;
	json_object_object_add(req, "op", json_object_new_string("read"));
	json_object_object_add(req, "path", json_object_new_string(path));
	if (guest_call(g, req, 30, &resp) == 0 && json_object_object_get_ex(resp, "data", &v) &&
	    json_object_is_type(v, json_type_string))
		data = xstrdup(json_object_get_string(v));
	json_object_put(req);
	json_object_put(resp);
	return data;
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

/* The untimed step before a workload (kbuild's configure in the guest).
 * 0 when it succeeded; otherwise WJ says why and *RET is -1 if the guest
 * is gone. */
static int run_pre(struct guest *g, const struct suite_entry *e, const struct guest_cmd *cmd,
		   double tscale, json_object *wj, int *ret)
{
	json_object *req = json_object_new_object(), *resp = NULL, *v;
	double timeout = cmd->pre_timeout_s * tscale;
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
		json_object_object_add(wj, "status",
				       json_object_new_string(g->timed_out ? "timeout" : "failed"));
		json_object_object_add(wj, "error", json_object_new_string(g->err));
		*ret = -1;
		goto out;
	}
	if (json_object_object_get_ex(resp, "error", &v)) {
		snprintf(msg, sizeof(msg), "untimed step: %s", json_object_get_string(v));
		goto fail;
	}
	if (json_object_object_get_ex(resp, "timed_out", &v) && json_object_get_boolean(v)) {
		json_object_object_add(wj, "status", json_object_new_string("timeout"));
		json_object_object_add(wj, "error", json_object_new_string(
			"the untimed step did not finish by its deadline and was killed"));
		goto out;
	}
	status = json_object_object_get_ex(resp, "status", &v) ? json_object_get_int(v) : -1;
	if (status == 0) {
		bad = 0;
		goto out;
	}
	exit_message(msg, sizeof(msg), "untimed step ", status, 0,
		     json_object_object_get_ex(resp, "stdout", &v) ? json_object_get_string(v) : "",
		     json_object_object_get_ex(resp, "stderr", &v) ? json_object_get_string(v) : "");
fail:
	json_object_object_add(wj, "status", json_object_new_string("failed"));
	json_object_object_add(wj, "error", json_object_new_string(msg));
out:
	json_object_put(req);
	json_object_put(resp);
	return bad;
}

/* Run one workload in a booted guest; fills WJ. Returns 0 if the guest is
 * still usable afterwards, -1 if it is gone or hung. */
static int run_workload(struct guest *g, const struct suite_entry *e, double tscale,
			const char *rawdir, const char *relraw, json_object *wj)
{
	int lock_stats = json_object_get_boolean(json_object_object_get(g->hello, "lock_stats"));
	struct guest_cmd cmd;
	json_object *req = NULL, *resp = NULL, *v, *argv, *metrics;
	struct metric_set ms = METRIC_SET_INIT;
	struct parse_error perr = { 0, "" };
	const char *out = "", *errout = "";
	size_t outlen = 0;
	char name[KB_PATH_MAX], rel[KB_PATH_MAX];
	double timeout;
	int ret = 0;

	guest_cmd_init(&cmd);
	json_object_object_add(wj, "label", json_object_new_string(e->label));
	json_object_object_add(wj, "workload", json_object_new_string(e->ops->name));
	if (e->ops->command(e->params, &cmd)) {
		json_object_object_add(wj, "status", json_object_new_string("failed"));
		json_object_object_add(wj, "error", json_object_new_string("cannot build the command"));
		goto out;
	}
	timeout = e->timeout_s > 0 ? e->timeout_s : cmd.timeout_s * tscale;
	req = json_object_new_object();
	json_object_object_add(req, "op", json_object_new_string("exec"));
	argv = json_object_new_array();
	for (size_t i = 0; i < cmd.argv.n; i++)
		json_object_array_add(argv, json_object_new_string(cmd.argv.v[i]));
	json_object_object_add(req, "argv", argv);
	if (cmd.bg_argv.n) {
		argv = json_object_new_array();
		for (size_t i = 0; i < cmd.bg_argv.n; i++)
			json_object_array_add(argv, json_object_new_string(cmd.bg_argv.v[i]));
		json_object_object_add(req, "bg_argv", argv);
	}
	if (cmd.cwd[0])
		json_object_object_add(req, "cwd", json_object_new_string(cmd.cwd));
	if (cmd.in_root)
		json_object_object_add(req, "root", json_object_new_string(KB_HOSTROOT));
	if (cmd.bg_in_root)
		json_object_object_add(req, "bg_root", json_object_new_string(KB_HOSTROOT));
	if (cmd.env.n)
		json_object_object_add(req, "env", strvec_json(&cmd.env));
	json_object_object_add(req, "timeout_s", json_object_new_double(timeout));
	{
		/* the command line, as a person would type it */
		struct strbuf sb = STRBUF_INIT;
		for (size_t i = 0; i < cmd.argv.n; i++)
			sb_addf(&sb, "%s%s", i ? " " : "", cmd.argv.v[i]);
		json_object_object_add(wj, "command", json_object_new_string(sb.buf ? sb.buf : ""));
		if (cmd.bg_argv.n) {
			sb_reset(&sb);
			for (size_t i = 0; i < cmd.bg_argv.n; i++)
				sb_addf(&sb, "%s%s", i ? " " : "", cmd.bg_argv.v[i]);
			json_object_object_add(wj, "background", json_object_new_string(sb.buf));
		}
		sb_release(&sb);
	}
	info("kbench:   %s: %s", e->label,
	     json_object_get_string(json_object_object_get(wj, "command")));
	if (cmd.pre_argv.n && run_pre(g, e, &cmd, tscale, wj, &ret))
		goto out;
	if (lock_stats && agent_write(g, KB_LOCK_STATS_RESET, "1"))
		warning("%s: cannot reset the lock counters", e->label);
	if (guest_call(g, req, timeout + CALL_MARGIN_S, &resp)) {
		json_object_object_add(wj, "status",
				       json_object_new_string(g->timed_out ? "timeout" : "failed"));
		json_object_object_add(wj, "error", json_object_new_string(g->err));
		ret = -1;
		goto out;
	}
	if (json_object_object_get_ex(resp, "error", &v) && json_object_is_type(v, json_type_string)) {
		json_object_object_add(wj, "status", json_object_new_string("failed"));
		json_object_object_add(wj, "error", json_object_new_string(json_object_get_string(v)));
		goto out;
	}
	if (json_object_object_get_ex(resp, "stdout", &v) && json_object_is_type(v, json_type_string)) {
		out = json_object_get_string(v);
		outlen = (size_t)json_object_get_string_len(v);
	}
	if (json_object_object_get_ex(resp, "stderr", &v) && json_object_is_type(v, json_type_string))
		errout = json_object_get_string(v);
	snprintf(name, sizeof(name), "%s.out", e->label);
	if (save_text(rawdir, name, out, rel, sizeof(rel), relraw) == 0)
		json_object_object_add(wj, "raw", json_object_new_string(rel));
	if (*errout) {
		snprintf(name, sizeof(name), "%s.err", e->label);
		if (save_text(rawdir, name, errout, rel, sizeof(rel), relraw) == 0)
			json_object_object_add(wj, "raw_stderr", json_object_new_string(rel));
	}
	{
		static const char *const keys[] = { "wall_s", "user_s", "sys_s", NULL };
		for (int i = 0; keys[i]; i++)
			if (json_object_object_get_ex(resp, keys[i], &v) &&
			    (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) &&
			    isfinite(json_object_get_double(v)) && json_object_get_double(v) >= 0)
				json_object_object_add(wj, keys[i],
						       json_object_new_double(json_object_get_double(v)));
	}
	if (lock_stats) {
		char *text = agent_read(g, KB_LOCK_STATS);
		json_object *ls = text ? parse_lock_stats(text) : NULL;
		if (ls)
			json_object_object_add(wj, "lock_stats", ls);
		else
			warning("%s: the lock counters could not be read or parsed", e->label);
		free(text);
	}
	if (json_object_object_get_ex(resp, "bg_runs", &v) && json_object_get_int(v) > 0)
		json_object_object_add(wj, "background_runs", json_object_new_int(json_object_get_int(v)));
	if (json_object_object_get_ex(resp, "timed_out", &v) && json_object_get_boolean(v)) {
		json_object_object_add(wj, "status", json_object_new_string("timeout"));
		json_object_object_add(wj, "error", json_object_new_string(
			"the workload did not finish by its deadline and was killed"));
		goto out;
	}
	{
		int status = json_object_object_get_ex(resp, "status", &v) ? json_object_get_int(v) : -1;
		int sig = json_object_object_get_ex(resp, "signal", &v) ? json_object_get_int(v) : 0;
		if (status != 0 || sig) {
			char msg[2200];
			exit_message(msg, sizeof(msg), "", status, sig, out, errout);
			json_object_object_add(wj, "status", json_object_new_string("failed"));
			json_object_object_add(wj, "error", json_object_new_string(msg));
			goto out;
		}
	}
	if (json_object_object_get_ex(resp, "truncated", &v) && json_object_get_boolean(v))
		warning("%s: the guest truncated the output at its capture limit", e->label);
	if (e->ops->parse(e->params, out, outlen, &ms, &perr)) {
		char msg[400];
		snprintf(msg, sizeof(msg), "cannot parse %s output (line %d): %s", e->ops->name,
			 perr.line, perr.msg);
		json_object_object_add(wj, "status", json_object_new_string("parse-error"));
		json_object_object_add(wj, "error", json_object_new_string(msg));
		goto out;
	}
	if (cmd.report_times) {
		/* make's own times, as the agent measured them (rusage) */
		static const char *const t[][2] = { { "elapsed", "wall_s" }, { "user", "user_s" },
						    { "sys", "sys_s" } };
		for (int i = 0; i < 3; i++) {
			json_object *x = json_object_object_get(wj, t[i][1]);
			if (!x) {
				json_object_object_add(wj, "status", json_object_new_string("failed"));
				json_object_object_add(wj, "error", json_object_new_string(
					"the agent did not report the command's times"));
				goto out;
			}
			metric_set_add(&ms, t[i][0], "s", BETTER_LOWER, json_object_get_double(x));
		}
	}
	metrics = json_object_new_object();
	for (size_t i = 0; i < ms.n; i++) {
		json_object *m = json_object_new_object();
		json_object_object_add(m, "value", json_object_new_double(ms.v[i].value));
		json_object_object_add(m, "unit", json_object_new_string(ms.v[i].unit));
		json_object_object_add(m, "better", json_object_new_string(
			ms.v[i].better == BETTER_HIGHER ? "higher" : "lower"));
		json_object_object_add(metrics, ms.v[i].name, m);
	}
	json_object_object_add(wj, "status", json_object_new_string("ok"));
	json_object_object_add(wj, "metrics", metrics);
	if (ms.extra) {
		json_object_object_add(wj, "extra", json_object_get(ms.extra));
	}
out:
	metric_set_release(&ms);
	guest_cmd_release(&cmd);
	json_object_put(req);
	json_object_put(resp);
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

static int mount_scratch(struct guest *g, char *err, size_t errlen)
{
	json_object *req = json_object_new_object(), *resp = NULL, *v;
	int ret = -1;
	json_object_object_add(req, "op", json_object_new_string("mount"));
	json_object_object_add(req, "serial", json_object_new_string("scratch"));
	json_object_object_add(req, "dir", json_object_new_string("/scratch"));
	json_object_object_add(req, "fstype", json_object_new_string("ext4"));
	if (guest_call(g, req, 60, &resp)) {
		snprintf(err, errlen, "mounting the scratch disk: %s", g->err);
	} else if (json_object_object_get_ex(resp, "error", &v)) {
		snprintf(err, errlen, "mounting the scratch disk: %s", json_object_get_string(v));
	} else {
		ret = 0;
	}
	json_object_put(req);
	json_object_put(resp);
	return ret;
}

static void iteration_fail(json_object *ij, const char *why, const char *console)
{
	char *tail = file_tail(console, 25);
	json_object_object_add(ij, "status", json_object_new_string("failed"));
	json_object_object_add(ij, "error", json_object_new_string(why));
	json_object_object_add(ij, "console_tail", json_object_new_string(tail));
	warning("iteration failed: %s", why);
	if (*tail)
		fprintf(stderr, "--- console tail (%s) ---\n%s\n--- end of console tail ---\n",
			console, tail);
	free(tail);
}

/* The kbuild disk's copy-on-write layer over the cached image (kept
 * across iterations only when the suite asks for no clean). */
static int kbuild_overlay(const struct image_needs *needs, const char *overlay)
{
	const char *argv[] = { "qemu-img", "create", "-q", "-f", "qcow2", "-F", "raw", "-b",
			       needs->disk, overlay, NULL };
	struct strbuf out = STRBUF_INIT;
	int r;
	if (needs->disk_keep && path_exists(overlay))
		return 0;
	unlink(overlay);
	r = run_capture(argv, 60, &out);
	if (r)
		error("qemu-img create of the kbuild disk layer failed (status %d): %s", r,
		      out.buf ? out.buf : "");
	sb_release(&out);
	return r ? -1 : 0;
}

static int run_iteration_inner(const struct suite *s, struct boot_params *bp,
			       const struct image_needs *needs, int index, int warmup,
			       const char *rundir, json_object *ij);

/* One iteration, then its console (or kernel log) scanned for kernel
 * trouble: a panic, oops, BUG, WARNING, lockdep report, hung task, RCU
 * stall or lockup fails the iteration with the excerpt, even when every
 * workload finished (their results stay in results.json). */
/* A failed boot of iteration INDEX (attempt ATTEMPT) set aside before
 * the next try: its console moves to iter-N.boot-K.log, and ij's
 * boot_retries array gains the error and any kernel trouble. */
static void boot_attempt_keep(const char *rundir, int index, int attempt, json_object *ij)
{
	char from[KB_PATH_MAX], rel[96], to[KB_PATH_MAX], kinds[200] = "";
	json_object *a = json_object_new_object(), *list = json_object_object_get(ij, "boot_retries");
	json_object *t;
	const char *err = json_object_get_string(json_object_object_get(ij, "error"));
	snprintf(from, sizeof(from), "%s/console/iter-%d.log", rundir, index);
	snprintf(rel, sizeof(rel), "console/iter-%d.boot-%d.log", index, attempt);
	snprintf(to, sizeof(to), "%s/%s", rundir, rel);
	if (rename(from, to))
		warning("cannot keep the failed boot's console '%s': %s", from, strerror(errno));
	{
		/* QEMU's own messages beside it */
		char qf[KB_PATH_MAX + 8], qt[KB_PATH_MAX + 8];
		snprintf(qf, sizeof(qf), "%s.qemu", from);
		snprintf(qt, sizeof(qt), "%s.qemu", to);
		if (path_exists(qf))
			rename(qf, qt);
	}
	t = trouble_scan_file(to);
	if (t)
		trouble_kinds(t, kinds, sizeof(kinds));
	json_object_object_add(a, "attempt", json_object_new_int(attempt));
	json_object_object_add(a, "error", json_object_new_string(err ? err : "boot failed"));
	json_object_object_add(a, "console", json_object_new_string(rel));
	json_object_object_add(a, "kernel_trouble", t);
	if (!list) {
		list = json_object_new_array();
		json_object_object_add(ij, "boot_retries", list);
	}
	json_object_array_add(list, a);
	warning("iteration %d: boot %d failed (%s%s%s); booting again (--boot-retries; console kept in %s)",
		index, attempt, err ? err : "boot failed", *kinds ? "; kernel trouble: " : "", kinds, to);
	json_object_object_del(ij, "status");
	json_object_object_del(ij, "error");
	json_object_object_del(ij, "console_tail");
}

static int run_iteration(const struct suite *s, struct boot_params *bp,
			 const struct image_needs *needs, int index, int warmup,
			 const char *rundir, int retries, json_object *ij)
{
	int r;
	char path[KB_PATH_MAX], kinds[200], msg[1200];
	json_object *t, *first;
	const char *ex, *prev;
	for (int attempt = 1;; attempt++) {
		const char *e, *keep = bp->cmdline, *inj = getenv("KBENCH_TEST_BOOT_PANICS");
		static int injected;
		char panic_cmdline[OPT_STR_MAX * 2 + 32];
		if (inj && injected < atoi(inj)) {
			/* fault injection for the tests (docs/reliability.md): the
			 * run's first N boots get an init that exits, a real panic */
			snprintf(panic_cmdline, sizeof(panic_cmdline), "%s rdinit=/bin/false",
				 keep ? keep : "");
			bp->cmdline = panic_cmdline;
			injected++;
		}
		r = run_iteration_inner(s, bp, needs, index, warmup, rundir, ij);
		bp->cmdline = keep;
		e = json_object_get_string(json_object_object_get(ij, "error"));
		if (!r || kb_interrupted || attempt > retries || !e || strncmp(e, "boot failed", 11))
			break;
		boot_attempt_keep(rundir, index, attempt, ij);
	}
	snprintf(path, sizeof(path), "%s/console/iter-%d.log", rundir, index);
	t = trouble_scan_file(path);
	if (!t) {
		snprintf(path, sizeof(path), "%s/raw/iter-%d/dmesg.txt", rundir, index);
		t = trouble_scan_file(path);
	}
	if (!t)
		return r;
	trouble_kinds(t, kinds, sizeof(kinds));
	first = json_object_array_get_idx(t, 0);
	ex = json_object_get_string(json_object_object_get(first, "excerpt"));
	prev = json_object_get_string(json_object_object_get(ij, "error"));
	snprintf(msg, sizeof(msg), "%s%skernel trouble on the console: %s (first at line %d of %s)",
		 r && prev ? prev : "", r && prev ? "; " : "", kinds,
		 json_object_get_int(json_object_object_get(first, "line")), path);
	json_object_object_add(ij, "kernel_trouble", t);
	json_object_object_add(ij, "status", json_object_new_string("failed"));
	json_object_object_add(ij, "error", json_object_new_string(msg));
	json_object_object_add(ij, "console_tail", json_object_new_string(ex));
	warning("iteration %d: %s", index, msg);
	fprintf(stderr, "--- %s ---\n%s--- end ---\n", kinds, ex);
	return -1;
}

/* One iteration: boot, run every workload, save logs, power off. */
static int run_iteration_inner(const struct suite *s, struct boot_params *bp,
			       const struct image_needs *needs, int index, int warmup,
			       const char *rundir, json_object *ij)
{
	char rawdir[KB_PATH_MAX], relraw[64], console[KB_PATH_MAX], relcon[64], err[600];
	struct guest g;
	json_object *wl = json_object_new_array();
	int ok = 1;
	double t0 = now_mono(), work_s = 0;
	double tscale = bp->accel == ACCEL_TCG ? 3.0 : 1.0;

	snprintf(relraw, sizeof(relraw), "raw/iter-%d", index);
	snprintf(rawdir, sizeof(rawdir), "%s/%s", rundir, relraw);
	snprintf(relcon, sizeof(relcon), "console/iter-%d.log", index);
	snprintf(console, sizeof(console), "%s/%s", rundir, relcon);
	json_object_object_add(ij, "index", json_object_new_int(index));
	json_object_object_add(ij, "warmup", json_object_new_boolean(warmup));
	json_object_object_add(ij, "console", json_object_new_string(relcon));
	json_object_object_add(ij, "workloads", wl);
	if (mkdir_p(rawdir, 0755)) {
		iteration_fail(ij, "cannot create the raw output directory", console);
		return -1;
	}
	bp->console_log = console;
	if (bp->scratch && scratch_create(bp->scratch, SCRATCH_MB)) {
		iteration_fail(ij, "cannot create the scratch disk", console);
		return -1;
	}
	if (bp->kbuild_disk && kbuild_overlay(needs, bp->kbuild_disk)) {
		iteration_fail(ij, "cannot create the kbuild disk's copy-on-write layer", console);
		return -1;
	}
	guest_init(&g, &qemu_backend);
	if (guest_boot(&g, bp)) {
		snprintf(err, sizeof(err), "boot failed: %s", g.err);
		guest_release(&g);
		iteration_fail(ij, err, console);
		return -1;
	}
	json_object_object_add(ij, "boot_s", json_object_new_double(g.t_ready - g.t_start));
	json_object_object_add(ij, "guest", json_object_get(g.hello));
	info("kbench: iteration %d%s: guest %s up in %.1f s", index, warmup ? " (warm-up)" : "",
	     json_object_get_string(json_object_object_get(g.hello, "kernel")),
	     g.t_ready - g.t_start);
	if ((bp->scratch && mount_scratch(&g, err, sizeof(err))) ||
	    (bp->hostroot && hostroot_setup(&g, needs->disk_mount, err, sizeof(err)))) {
		guest_shutdown(&g, 5);
		guest_release(&g);
		iteration_fail(ij, err, console);
		return -1;
	}
	for (size_t i = 0; i < s->n && !kb_interrupted; i++) {
		json_object *wj = json_object_new_object();
		json_object *st;
		int r;
		json_object_array_add(wl, wj);
		r = run_workload(&g, &s->w[i], tscale, rawdir, relraw, wj);
		st = json_object_object_get(wj, "status");
		if (!st || strcmp(json_object_get_string(st), "ok")) {
			ok = 0;
			warning("%s %s: %s", s->w[i].label, st ? json_object_get_string(st) : "failed",
				json_object_get_string(json_object_object_get(wj, "error")));
		}
		if (json_object_object_get(wj, "wall_s"))
			work_s += json_object_get_double(json_object_object_get(wj, "wall_s"));
		if (r) {
			snprintf(err, sizeof(err), "%s: %s", s->w[i].label,
				 json_object_get_string(json_object_object_get(wj, "error")));
			guest_shutdown(&g, 0);
			guest_release(&g);
			iteration_fail(ij, err, console);
			json_object_object_add(ij, "wall_s", json_object_new_double(now_mono() - t0));
			return -1;
		}
	}
	{
		/* fault injection for the tests (docs/reliability.md): lines of
		 * this file go into the guest's kernel log as warnings, so the
		 * console carries e.g. a lockdep report as the kernel prints it */
		const char *kmsg = getenv("KBENCH_TEST_KMSG");
		struct strbuf sb = STRBUF_INIT;
		if (kmsg && *kmsg && read_file(kmsg, &sb, 1u << 20) == 0 && sb.buf) {
			char *save = NULL;
			for (char *l = strtok_r(sb.buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
				char rec[1100];
				snprintf(rec, sizeof(rec), "<4>%.1000s", l);
				if (agent_write(&g, "/dev/kmsg", rec))
					warning("KBENCH_TEST_KMSG: cannot write to the guest's /dev/kmsg");
			}
		}
		sb_release(&sb);
	}
	save_dmesg(&g, rawdir, relraw, ij);
	if (guest_shutdown(&g, 30))
		warning("the guest did not power off within 30 s and was killed");
	guest_release(&g);
	if (bp->scratch)
		unlink(bp->scratch);
	if (bp->kbuild_disk && !needs->disk_keep)
		unlink(bp->kbuild_disk);
	json_object_object_add(ij, "wall_s", json_object_new_double(now_mono() - t0));
	json_object_object_add(ij, "workload_s", json_object_new_double(work_s));
	if (kb_interrupted) {
		iteration_fail(ij, "interrupted", console);
		return -1;
	}
	if (!ok) {
		json_object_object_add(ij, "status", json_object_new_string("failed"));
		json_object_object_add(ij, "error", json_object_new_string("a workload failed"));
		return -1;
	}
	json_object_object_add(ij, "status", json_object_new_string("ok"));
	return 0;
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

/* The harness's tools and those of the workloads of suite S. */
int check_tools(const struct suite *s)
{
	const struct workload_ops **ws = xcalloc(s->n + 1, sizeof(*ws));
	const struct host_tool **wt;
	int bad = 0;

	for (size_t i = 0; i < s->n; i++)
		ws[i] = s->w[i].ops;
	wt = workload_tools(ws);
	for (const struct host_tool *t = run_host_tools; t->name; t++)
		bad |= check_tool(t);
	for (size_t i = 0; wt[i]; i++)
		bad |= check_tool(wt[i]);
	free(wt);
	free(ws);
	return bad;
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
			bad = -1;
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

int run_bench(const struct run_opts *o, struct run_result *res)
{
	struct variant v;
	struct suite s;
	struct kernel_image k;
	struct image_needs needs = IMAGE_NEEDS_INIT;
	struct boot_params bp;
	char runs[KB_PATH_MAX], run_id[256], initrd[KB_PATH_MAX], workdir[KB_PATH_MAX] = "";
	char kbdisk[KB_PATH_MAX], scratch[KB_PATH_MAX], started[32], finished[32], cmdline[OPT_STR_MAX * 2];
	json_object *doc = NULL, *its, *jv, *js, *wls, *old = NULL;
	int resuming = o->resume != NULL;
	struct run_opts ro = *o;
	int vcpus = o->vcpus > 0 ? o->vcpus : host_cores();
	int mem = o->mem_mb > 0 ? o->mem_mb : 2048;
	int ret = KB_EXIT_USAGE, iterations, total;
	const char *agent = agent_path();

	memset(res, 0, sizeof(*res));
	memset(&s, 0, sizeof(s));
	snprintf(runs, sizeof(runs), "%s/runs", o->reports ? o->reports : "reports");
	if (!o->reports)
		snprintf(runs, sizeof(runs), "%s/reports/runs", kb_home());
	if (o->resume) {
		/* finish a run: its variant, suite and settings, not new ones */
		char path[KB_PATH_MAX];
		json_object *x;
		resume_dir(o->resume, runs, res->dir, sizeof(res->dir));
		snprintf(path, sizeof(path), "%s/results.json", res->dir);
		if (!path_exists(path)) {
			error("--resume: '%s' has no results.json (not a kbench run directory)", res->dir);
			return KB_EXIT_USAGE;
		}
		if (!(old = results_load(path)))
			return KB_EXIT_USAGE;
		x = json_object_object_get(old, "variant");
		ro.kernel = json_object_get_string(json_object_object_get(x, "name"));
		if (o->kernel && o->kernel_given && strcmp(o->kernel, ro.kernel)) {
			error("--resume: the run is of variant '%s', not '%s'", ro.kernel, o->kernel);
			goto out;
		}
		x = json_object_object_get(old, "suite");
		ro.suite = json_object_get_string(json_object_object_get(x, "path"));
		ro.iterations = json_object_get_int(json_object_object_get(x, "iterations"));
		x = json_object_object_get(old, "guest");
		vcpus = json_object_get_int(json_object_object_get(x, "vcpus"));
		mem = json_object_get_int(json_object_object_get(x, "mem_mb"));
		x = json_object_object_get(old, "variant");
		ro.cmdline = NULL;
		{
			/* the extra command line was recorded whole (variant's + user's) */
			const char *xc = json_object_get_string(json_object_object_get(x, "extra_cmdline"));
			snprintf(cmdline, sizeof(cmdline), "%s", xc ? xc : "");
		}
		o = &ro;
	}
	if (variant_load(o->kernel, &v))
		return KB_EXIT_USAGE;
	if (suite_load(o->suite, vcpus, &s))
		return KB_EXIT_USAGE;
	if (!is_executable(agent)) {
		error("guest agent '%s' is missing: run make", agent);
		goto out;
	}
	if (check_tools(&s) || check_space(runs))
		goto out;
	iterations = o->iterations > 0 ? o->iterations : s.iterations;
	if (kernel_get(&v, 0, &k) || kernel_image_check(k.vmlinuz))
		goto out;
	/* after the kernel: a kbuild disk's tree comes from the same source cache */
	for (size_t i = 0; i < s.n; i++)
		if (s.w[i].ops->prepare(s.w[i].params, &needs))
			goto out;
	if (needs.disk[0]) {
		char *qi = which("qemu-img");
		if (!qi) {
			error("'qemu-img' not found: install the Debian package qemu-utils (make deps does)");
			goto out;
		}
		free(qi);
	}
	if (image_build(&k, &needs, agent, initrd, sizeof(initrd)))
		goto out;

	if (old) {
		/* the same suite settings and the same kernel, or the figures
		 * of the two halves would not belong together */
		json_object *ow = json_object_object_get(json_object_object_get(old, "suite"), "workloads");
		json_object *ov = json_object_object_get(old, "variant");
		const char *pv = json_object_get_string(json_object_object_get(ov, "package_version"));
		const char *ch = json_object_get_string(json_object_object_get(ov, "config_hash"));
		int same = ow && json_object_array_length(ow) == s.n;
		for (size_t i = 0; same && i < s.n; i++) {
			json_object *p = opts_to_json(s.w[i].params, s.w[i].ops->opts);
			json_object *w = json_object_array_get_idx(ow, i);
			same = !strcmp(json_object_get_string(json_object_object_get(w, "label")), s.w[i].label) &&
			       json_object_equal(p, json_object_object_get(w, "params"));
			json_object_put(p);
		}
		if (!same) {
			error("--resume: suite '%s' has changed since the run started (workloads or "
			      "parameters differ from results.json): start a new run", s.path);
			goto out;
		}
		if (!pv || strcmp(pv, k.version) || ((ch || k.config_hash[0]) &&
						      (!ch || strcmp(ch, k.config_hash)))) {
			error("--resume: variant '%s' is now %s%s%s, the run used %s: start a new run",
			      v.name, k.version, k.config_hash[0] ? " config " : "",
			      k.config_hash[0] ? k.config_hash : "", pv ? pv : "?");
			goto out;
		}
		snprintf(run_id, sizeof(run_id), "%s",
			 json_object_get_string(json_object_object_get(old, "run_id")));
	} else {
		if (mkdir_p(runs, 0755))
			goto out;
		make_run_id(o, v.name, s.name, runs, run_id, sizeof(run_id));
		snprintf(res->dir, sizeof(res->dir), "%s/%s", runs, run_id);
		if (path_exists(res->dir)) {
			error("run directory '%s' already exists", res->dir);
			goto out;
		}
		if (mkdir_p(res->dir, 0755))
			goto out;
	}
	snprintf(res->results, sizeof(res->results), "%s/results.json", res->dir);
	{
		char con[KB_PATH_MAX];
		snprintf(con, sizeof(con), "%s/console", res->dir);
		if (mkdir_p(con, 0755))
			goto out;
	}
	snprintf(workdir, sizeof(workdir), "%s/tmp/run-%ld", cache_root(), (long)getpid());
	if (mkdir_p(workdir, 0755))
		goto out;
	snprintf(scratch, sizeof(scratch), "%s/scratch.img", workdir);
	snprintf(kbdisk, sizeof(kbdisk), "%s/kbuild.qcow2", workdir);
	if (!old)
		snprintf(cmdline, sizeof(cmdline), "%s%s%s", v.cmdline, o->cmdline ? " " : "",
			 o->cmdline ? o->cmdline : "");

	memset(&bp, 0, sizeof(bp));
	bp.kernel = k.vmlinuz;
	bp.initrd = initrd;
	/* a scratch disk only when some workload works on it */
	for (size_t i = 0; i < s.n; i++) {
		struct guest_cmd c;
		guest_cmd_init(&c);
		if (s.w[i].ops->command(s.w[i].params, &c) == 0 && c.needs_scratch)
			bp.scratch = scratch;
		guest_cmd_release(&c);
	}
	if (needs.disk[0])
		bp.kbuild_disk = kbdisk;
	bp.hostroot = needs.hostroot;
	bp.cmdline = cmdline;
	bp.workdir = workdir;
	bp.vcpus = vcpus;
	bp.mem_mb = mem;
	bp.boot_timeout_s = 60;
	{
		char probe_con[KB_PATH_MAX];
		struct boot_params probe = bp;
		snprintf(probe_con, sizeof(probe_con), "%s/console/kvm-probe.log", res->dir);
		probe.console_log = probe_con;
		probe.scratch = NULL;
		probe.kbuild_disk = NULL;
		probe.hostroot = 0;
		probe.boot_timeout_s = 30;
		bp.accel = accel_resolve(o->accel, &probe);
	}
	/* Under TCG boots take seconds, and much longer on a busy host. */
	bp.boot_timeout_s = o->boot_timeout_s > 0 ? o->boot_timeout_s : bp.accel == ACCEL_TCG ? 180 : 60;

	if (old) {
		json_object *rs = json_object_object_get(old, "resumed");
		char now[32];
		doc = old;
		old = NULL;
		iso8601_now(now, sizeof(now));
		if (!rs || !json_object_is_type(rs, json_type_array)) {
			rs = json_object_new_array();
			json_object_object_add(doc, "resumed", rs);
		}
		json_object_array_add(rs, json_object_new_string(now));
		json_object_object_add(doc, "status", json_object_new_string("running"));
		json_object_object_add(doc, "finished", NULL);
		its = json_object_object_get(doc, "iterations");
	} else {
		iso8601_now(started, sizeof(started));
		doc = json_object_new_object();
		json_object_object_add(doc, "schema", json_object_new_string(RESULTS_SCHEMA));
		json_object_object_add(doc, "schema_version", json_object_new_int(RESULTS_SCHEMA_VERSION));
		json_object_object_add(doc, "run_id", json_object_new_string(run_id));
		json_object_object_add(doc, "started", json_object_new_string(started));
		json_object_object_add(doc, "finished", NULL);
		json_object_object_add(doc, "status", json_object_new_string("running"));
		jv = json_object_new_object();
		json_object_object_add(jv, "version", json_object_new_string(KB_VERSION));
		json_object_object_add(jv, "commit", json_object_new_string(KB_GIT_COMMIT));
		json_object_object_add(doc, "kbench", jv);
		jv = host_info();
		json_object_object_add(jv, "accel", json_object_new_string(accel_name(bp.accel)));
		json_object_object_add(jv, "backend", json_object_new_string(qemu_backend.name));
		json_object_object_add(doc, "host", jv);
		jv = json_object_new_object();
		json_object_object_add(jv, "vcpus", json_object_new_int(vcpus));
		json_object_object_add(jv, "mem_mb", json_object_new_int(mem));
		json_object_object_add(jv, "scratch_mb", json_object_new_int(SCRATCH_MB));
		json_object_object_add(doc, "guest", jv);
		jv = json_object_new_object();
		json_object_object_add(jv, "name", json_object_new_string(v.name));
		json_object_object_add(jv, "description", jstr_or_null(v.description));
		json_object_object_add(jv, "source", json_object_new_string(
			v.source == VSRC_BUILD ? "build" : "debian-image"));
		json_object_object_add(jv, "test_only", json_object_new_boolean(v.test_only));
		json_object_object_add(jv, "package", json_object_new_string(k.package));
		json_object_object_add(jv, "package_version", json_object_new_string(k.version));
		json_object_object_add(jv, "metapackage", json_object_new_string(v.package));
		json_object_object_add(jv, "image_release", json_object_new_string(k.release));
		json_object_object_add(jv, "config_hash", jstr_or_null(k.config_hash));
		json_object_object_add(jv, "config_speed", config_speed(k.config));
		json_object_object_add(jv, "extra_cmdline", json_object_new_string(cmdline));
		json_object_object_add(jv, "kernel_release", NULL);
		json_object_object_add(jv, "realtime", NULL);
		json_object_object_add(jv, "preempt_rt", NULL);
		json_object_object_add(jv, "cmdline", NULL);
		json_object_object_add(doc, "variant", jv);
		js = json_object_new_object();
		json_object_object_add(js, "name", json_object_new_string(s.name));
		json_object_object_add(js, "description", json_object_new_string(s.description));
		json_object_object_add(js, "path", json_object_new_string(s.path));
		json_object_object_add(js, "iterations", json_object_new_int(iterations));
		json_object_object_add(js, "warmup", json_object_new_int(s.warmup));
		wls = json_object_new_array();
		for (size_t i = 0; i < s.n; i++) {
			json_object *w = json_object_new_object();
			json_object_object_add(w, "label", json_object_new_string(s.w[i].label));
			json_object_object_add(w, "workload", json_object_new_string(s.w[i].ops->name));
			json_object_object_add(w, "params", opts_to_json(s.w[i].params, s.w[i].ops->opts));
			json_object_object_add(w, "timeout_s", s.w[i].timeout_s ? json_object_new_int(s.w[i].timeout_s) : NULL);
			json_object_array_add(wls, w);
		}
		json_object_object_add(js, "workloads", wls);
		json_object_object_add(doc, "suite", js);
		its = json_object_new_array();
		json_object_object_add(doc, "iterations", its);
}
	if (results_save(doc, res->results))
		goto out;

	if (v.test_only)
		warning("variant '%s' is a TEST kernel (small config): its figures are not "
			"representative and must not be compared with real variants", v.name);
	info("kbench: run %s: %s (%s %s), suite %s, %d iteration%s%s, %d vCPU, %d MiB, %s",
	     run_id, v.name, k.package, k.version, s.name, iterations, iterations == 1 ? "" : "s",
	     s.warmup ? " + warm-up" : "", vcpus, mem, accel_name(bp.accel));
	total = iterations + s.warmup;
	ret = KB_EXIT_OK;
	for (int i = 1; i <= total && !kb_interrupted; i++) {
		json_object *ij;
		int warm = i <= s.warmup, pos;
		double t;
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
		if (resuming)
			info("kbench: resuming: iteration %d", i);
		ij = json_object_new_object();
		t = now_mono();
		json_object_array_add(its, ij);
		json_object_object_add(ij, "index", json_object_new_int(i));
		json_object_array_sort(its, by_index);
		if (run_iteration(&s, &bp, &needs, i, warm, res->dir,
				  o->boot_retries_set ? o->boot_retries : KB_BOOT_RETRIES, ij)) {
			/* cut short by Ctrl-C or SIGTERM: --resume runs it again */
			if (kb_interrupted)
				json_object_object_add(ij, "interrupted", json_object_new_boolean(1));
			res->iterations_failed++;
			ret = KB_EXIT_FAILED;
		} else {
			res->iterations_ok++;
		}
		/* the variant's identity, as the guest itself reports it */
		if (json_object_object_get(ij, "guest")) {
			json_object *gh = json_object_object_get(ij, "guest"), *vv = json_object_object_get(doc, "variant");
			static const char *const map[][2] = { { "kernel", "kernel_release" },
							       { "realtime", "realtime" },
							       { "cmdline", "cmdline" } };
			json_object *rp = json_object_object_get(gh, "rtmutex_params");
			json_object *kv = json_object_object_get(gh, "kernel_version");
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
		}
		results_summarize(doc);
		if (results_save(doc, res->results))
			ret = KB_EXIT_USAGE;
		index_append(res->dir, ij);
		if (!kb_quiet) {
			double el = now_mono() - t;
			int left = total - i;
			info("kbench: iteration %d/%d %s in %.0f s%s", i, total,
			     json_object_get_string(json_object_object_get(ij, "status")), el,
			     left ? "" : "");
			if (left)
				info("kbench: about %.0f s left (%d iteration%s)", el * left, left,
				     left == 1 ? "" : "s");
		}
	}
	iso8601_now(finished, sizeof(finished));
	json_object_object_add(doc, "finished", json_object_new_string(finished));
	json_object_object_add(doc, "status", json_object_new_string(
		kb_interrupted ? "interrupted" : res->iterations_failed ? "partial" : "complete"));
	results_summarize(doc);
	if (results_save(doc, res->results))
		ret = KB_EXIT_USAGE;
	if (!o->no_latest) {
		char latest[KB_PATH_MAX], target[KB_PATH_MAX], tmp[KB_PATH_MAX];
		snprintf(latest, sizeof(latest), "%s/../latest", runs);
		snprintf(target, sizeof(target), "runs/%s", run_id);
		snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", latest, (long)getpid());
		unlink(tmp);
		if (symlink(target, tmp) || rename(tmp, latest))
			warning("cannot point '%s' at the run: %s", latest, strerror(errno));
	}
	if (!o->quiet_summary)
		print_summary(doc, stdout);
	info("kbench: results in %s", res->results);
	if (kb_interrupted)
		ret = KB_EXIT_FAILED;
	res->doc = doc;
	doc = NULL;
out:
	if (kb_interrupted && ret == KB_EXIT_USAGE) {
		/* a step that failed because Ctrl-C or SIGTERM killed its
		 * child is an interruption, not bad input: exit as one */
		info("kbench: interrupted before the run could start");
		ret = KB_EXIT_FAILED;
	}
	if (workdir[0])
		rm_rf(workdir);
	json_object_put(old);
	json_object_put(doc);
	strvec_clear(&needs.programs);
	strvec_clear(&needs.files);
	suite_release(&s);
	return ret;
}

void run_result_release(struct run_result *r)
{
	json_object_put(r->doc);
	r->doc = NULL;
}

void print_summary(json_object *doc, FILE *out)
{
	json_object *sum = json_object_object_get(doc, "summary");
	json_object *v = json_object_object_get(doc, "variant");
	json_object *h = json_object_object_get(doc, "host");
	fprintf(out, "\n%s on %s (%s), suite %s, accel %s\n",
		json_object_get_string(json_object_object_get(v, "name")),
		json_object_get_string(json_object_object_get(v, "kernel_release")),
		json_object_get_string(json_object_object_get(v, "package_version")),
		json_object_get_string(json_object_object_get(json_object_object_get(doc, "suite"), "name")),
		json_object_get_string(json_object_object_get(h, "accel")));
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
	{
		int ok = 0, failed = 0, retried = 0;
		json_object *its = json_object_object_get(doc, "iterations");
		for (size_t i = 0; its && i < json_object_array_length(its); i++) {
			json_object *it = json_object_array_get_idx(its, i);
			json_object *st = json_object_object_get(it, "status");
			json_object *br = json_object_object_get(it, "boot_retries");
			if (st && !strcmp(json_object_get_string(st), "ok"))
				ok++;
			else
				failed++;
			if (br && json_object_is_type(br, json_type_array))
				retried += (int)json_object_array_length(br);
		}
		fprintf(out, "iterations: %d ok, %d failed", ok, failed);
		if (retried)
			fprintf(out, "; %d failed boot%s tried again (boot_retries in results.json)",
				retried, retried == 1 ? "" : "s");
		fputc('\n', out);
	}
}
