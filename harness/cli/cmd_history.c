/* cmd_history.c - `kbench history` (list, import, nights, trends, check)
 * and `kbench merge` (several machines' runs or nights in one report). */
#include "cli/cmd_nightly.h"
#include "core/ids.h"
#include "stats/compare.h"
#include "history/history.h"
#include "core/jsonutil.h"
#include "report/report.h"
#include "history/trend.h"

#include <dirent.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char history_usage[] =
	"usage: kbench history [list] [--variant V] [--metric M] [--since DATE] [--host H]\n"
	"                      [--suite S] [--night ID] [--limit N]\n"
	"       kbench history import RUN-DIR|NIGHT-DIR|results.json... [--night ID]\n"
	"       kbench history nights\n"
	"       kbench history trends --suite S [--variant V]... [--host H] [--last N] [--html FILE]\n"
	"       kbench history check\n"
	"       kbench history accept [NIGHT] [--variant V] [--metric LABEL.METRIC] --reason TEXT\n"
	"                             [--by WHO]\n"
	"  accept: a deliberate change; from NIGHT (default: the variant's latest) on, the\n"
	"  variant's (all: every variant's) metric (all: every metric) is judged against a\n"
	"  level that starts there. WHO: --by, else $KBENCH_USER, else $USER\n"
	"  trends: per host (every host with nightly runs of the suite, or --host); the charts\n"
	"  show the whole history with the latest 90 nights in detail\n"
	"  --last N: change points over the latest N nights (default 400; 0: all)\n"
	"  every command takes --history FILE (default $KBENCH_HISTORY or reports/history.sqlite)\n"
	"  --metric: metric, workload.metric or label.metric; prints each run's values\n"
	"  --since: an ISO 8601 date or time (2026-11-01)\n";

enum { H_VARIANT = 4000, H_METRIC, H_SINCE, H_HOST, H_SUITE, H_NIGHT, H_LIMIT, H_HISTORY, H_HTML,
       H_OUT, H_POOL, H_BASELINE, H_FORCE, H_REASON, H_BY, H_LAST, H_HELP };

/* Import a night directory (it has nightly.json): its runs keep their night. */
static int import_night(struct history *h, const char *dir, int *added, int *dups)
{
	char path[KB_PATH_MAX];
	json_object *nj;
	const char *id;
	int r;
	snprintf(path, sizeof(path), "%s/nightly.json", dir);
	nj = json_object_from_file(path);
	if (!nj || !(id = jstr(nj, "night"))) {
		json_object_put(nj);
		return error("'%s': not a kbench nightly.json", path);
	}
	if (!id_valid(id)) {
		json_object_put(nj);
		return error("'%s': night '%s' is not a plain name (letters, digits, '.', '_', '-')", path, id);
	}
	r = history_night_exists(h, id);
	if (r == 0) {
		json_object *ex = jget(nj, "exit");
		r = history_night_begin(h, id, jstr(nj, "host_id"), jstr(nj, "suite"), jstr(nj, "config"));
		if (!r)
			r = history_night_end(h, id, ex ? json_object_get_int(ex) : 2, "imported");
	}
	if (r >= 0)
		r = history_import(h, dir, id, added, dups);
	json_object_put(nj);
	return r < 0 ? -1 : 0;
}

/* kbench history import DIR...: nights keep their id, runs get --night. */
static int history_import_dirs(struct history *h, const char *path, const struct strvec *args,
			       const char *night)
{
	int added = 0, dups = 0, bad = 0;
	if (!args->n)
		return error("usage: kbench history import RUN-DIR... [--night ID]"), KB_EXIT_USAGE;
	if (night && id_check("--night", night))
		return KB_EXIT_USAGE;
	for (size_t i = 0; i < args->n; i++) {
		char nj[KB_PATH_MAX];
		snprintf(nj, sizeof(nj), "%s/nightly.json", args->v[i]);
		if (!night && path_exists(nj))
			bad |= import_night(h, args->v[i], &added, &dups) != 0;
		else
			bad |= history_import(h, args->v[i], night, &added, &dups) != 0;
	}
	printf("history %s: %d run%s added, %d already there\n", path, added, added == 1 ? "" : "s",
	       dups);
	return bad ? KB_EXIT_USAGE : KB_EXIT_OK;
}

/* No nightly run to draw: say why, and what the history has instead
 * (plain runs: `kbench run`, or a schema 1 history, which had no nights). */
static void no_nights(struct history *h, const char *path, const struct history_filter *f)
{
	sqlite3_stmt *st = history_prepare(h, "SELECT count(*) FROM runs WHERE suite = ?1 AND (?2 IS NULL "
					   "OR hostname = ?2 OR host_id = ?2)", "ss", f->suite, f->host);
	int runs = st && sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	if (!runs)
		error("history '%s': no nightly run of suite '%s'%s%s", path, f->suite,
		      f->host ? " on host " : "", f->host ? f->host : "");
	else
		error("history '%s': no nightly run of suite '%s'%s%s: its %d run%s of the suite %s, not "
		      "nights (kbench run, or a history from before nights, schema 1), so there are no "
		      "trends over nights; kbench history import NIGHT-DIR adds nights", path, f->suite,
		      f->host ? " on host " : "", f->host ? f->host : "", runs, runs == 1 ? "" : "s",
		      runs == 1 ? "is a plain run" : "are plain runs");
}

/* One host's trends: printed, and appended to HTML when not NULL. */
static int host_trends(struct history *h, const char *hid, const char *accel, const char *host,
		       const struct history_filter *f, const struct strvec *variants, int last,
		       struct strbuf *html)
{
	struct trends t;
	if (trends_build(h, hid, f->suite, accel, (const char *const *)variants->v, variants->n, NULL,
			 last, &t)) {
		trends_release(&t);
		return -1;
	}
	if (host)
		printf("host %s (%s):\n", host, hid);
	trends_print(&t, stdout);
	t.host = host;
	if (html)
		trends_html(&t, html);
	trends_release(&t);
	return 0;
}

/* kbench history trends --suite S: every host with nightly runs of the
 * suite (or --host), the newest first, each with its own charts. */
static int history_trends(struct history *h, const char *path, const struct history_filter *f,
			  const struct strvec *variants, const char *html, int last)
{
	sqlite3_stmt *st;
	struct strvec hosts = STRVEC_INIT;  /* id, accel, name, ... */
	struct strbuf sb = STRBUF_INIT;
	int ret = KB_EXIT_OK;
	if (!f->suite)
		return error("kbench history trends needs --suite"), KB_EXIT_USAGE;
	/* SQLite takes the bare columns from the row with max(started) */
	if (!(st = history_prepare(h, "SELECT host_id, coalesce(accel, ''), coalesce(hostname, host_id), "
				   "max(started) FROM runs WHERE night IS NOT NULL AND suite = ?1 AND "
				   "(?2 IS NULL OR hostname = ?2 OR host_id = ?2) GROUP BY host_id "
				   "ORDER BY max(started) DESC", "ss", f->suite, f->host)))
		return KB_EXIT_USAGE;
	while (sqlite3_step(st) == SQLITE_ROW)
		for (int k = 0; k < 3; k++)
			strvec_push(&hosts, (const char *)sqlite3_column_text(st, k));
	sqlite3_finalize(st);
	if (!hosts.n)
		return no_nights(h, path, f), KB_EXIT_USAGE;
	sb_adds(&sb, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<title>kbench trends</title><style>body{font:14px system-ui,sans-serif;color:#1f2328;"
		"margin:16px 24px}.card{border:1px solid #d0d7de;border-radius:8px;padding:10px 14px;"
		"margin:12px 0}.small{font-size:12px;color:#57606a}table{border-collapse:collapse}"
		"td,th{padding:3px 8px;border-bottom:1px solid #e5e8eb;text-align:right}.l{text-align:"
		"left}.worse{color:#a40e26}.better{color:#1a7f37}</style></head><body>");
	for (size_t i = 0; i + 2 < hosts.n && !ret; i += 3)
		if (host_trends(h, hosts.v[i], hosts.v[i + 1], hosts.n > 3 ? hosts.v[i + 2] : NULL, f,
				variants, last, html ? &sb : NULL))
			ret = KB_EXIT_USAGE;
	sb_adds(&sb, "</body></html>\n");
	if (!ret && html && write_file_atomic(html, sb.buf, sb.len))
		ret = KB_EXIT_USAGE;
	sb_release(&sb);
	strvec_clear(&hosts);
	return ret;
}

/* kbench history accept [NIGHT] [--variant V] [--metric LABEL.METRIC]
 * --reason TEXT [--by WHO]. */
static int history_accept_cmd(struct history *h, const struct strvec *args,
			      const struct history_filter *f, const char *reason, const char *by)
{
	char night[128];
	const char *who = by && *by ? by : getenv("KBENCH_USER");
	if (!who || !*who)
		who = getenv("USER");
	if (args->n > 1 || (!args->n && !f->variant))
		return error("usage: kbench history accept [NIGHT] [--variant V] [--metric LABEL.METRIC] "
			     "--reason TEXT (without NIGHT, --variant names whose latest night)"),
		       KB_EXIT_USAGE;
	if (args->n)
		snprintf(night, sizeof(night), "%s", args->v[0]);
	else if (history_latest_night(h, f->variant, night, sizeof(night)))
		return error("history '%s': no night with a run of variant '%s'", h->path, f->variant),
		       KB_EXIT_USAGE;
	if (history_accept(h, night, f->variant, f->metric, reason, who && *who ? who : "unknown"))
		return KB_EXIT_USAGE;
	printf("night %s accepted for %s, %s by %s (%s): from it on they are judged against a level "
	       "that starts there\n", night, f->variant ? f->variant : "every variant",
	       f->metric ? f->metric : "every metric", who && *who ? who : "unknown", reason);
	return KB_EXIT_OK;
}

int cmd_history(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "variant", required_argument, NULL, H_VARIANT },
		{ "metric", required_argument, NULL, H_METRIC },
		{ "since", required_argument, NULL, H_SINCE },
		{ "host", required_argument, NULL, H_HOST },
		{ "suite", required_argument, NULL, H_SUITE },
		{ "night", required_argument, NULL, H_NIGHT },
		{ "limit", required_argument, NULL, H_LIMIT },
		{ "history", required_argument, NULL, H_HISTORY },
		{ "html", required_argument, NULL, H_HTML },
		{ "reason", required_argument, NULL, H_REASON },
		{ "by", required_argument, NULL, H_BY },
		{ "last", required_argument, NULL, H_LAST },
		{ "help", no_argument, NULL, H_HELP },
		{ NULL, 0, NULL, 0 },
	};
	struct history_filter f;
	struct history h;
	struct strvec variants = STRVEC_INIT, args = STRVEC_INIT;
	const char *sub = "list", *hist = NULL, *html = NULL, *reason = NULL, *by = NULL;
	char path[KB_PATH_MAX];
	int c, ret = KB_EXIT_USAGE, open = 0, last = 400;

	memset(&f, 0, sizeof(f));
	memset(&h, 0, sizeof(h));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case H_VARIANT: f.variant = optarg; strvec_push(&variants, optarg); break;
		case H_METRIC: f.metric = optarg; break;
		case H_SINCE: f.since = optarg; break;
		case H_HOST: f.host = optarg; break;
		case H_SUITE: f.suite = optarg; break;
		case H_NIGHT: f.night = optarg; break;
		case H_LIMIT: f.limit = atoi(optarg); break;
		case H_HISTORY: hist = optarg; break;
		case H_HTML: html = optarg; break;
		case H_REASON: reason = optarg; break;
		case H_BY: by = optarg; break;
		case H_LAST: {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (!*optarg || *end || v < 0 || v > 1000000) {
				error("--last expects a number of nights (0: all), got '%s'", optarg);
				goto out;
			}
			last = (int)v;
			break;
		}
		case H_HELP:
			fputs(history_usage, stdout);
			ret = KB_EXIT_OK;
			goto out;
		default:
			error("unknown option '%s'", argv[optind - 1]);
			fputs(history_usage, stderr);
			goto out;
		}
	}
	/* the subcommand may come before or after the options */
	if (optind < argc && (!strcmp(argv[optind], "list") || !strcmp(argv[optind], "import") ||
			      !strcmp(argv[optind], "nights") || !strcmp(argv[optind], "trends") ||
			      !strcmp(argv[optind], "check") || !strcmp(argv[optind], "accept")))
		sub = argv[optind++];
	for (int i = optind; i < argc; i++)
		strvec_push(&args, argv[i]);
	if (strcmp(sub, "list") && strcmp(sub, "import") && strcmp(sub, "nights") &&
	    strcmp(sub, "trends") && strcmp(sub, "check") && strcmp(sub, "accept")) {
		error("unknown history command '%s' (list, import, nights, trends, check, accept)", sub);
		goto out;
	}
	if (args.n && strcmp(sub, "import") && strcmp(sub, "accept")) {
		error("unknown history command or argument '%s' (commands: list, import, nights, "
		      "trends, check)", args.v[0]);
		goto out;
	}
	if (hist)
		snprintf(path, sizeof(path), "%s", hist);
	else
		history_default_path(NULL, path, sizeof(path));
	if (history_open(&h, path, !strcmp(sub, "import")))
		goto out;
	open = 1;
	if (!strcmp(sub, "list")) {
		ret = history_list(&h, &f, stdout) ? KB_EXIT_USAGE : KB_EXIT_OK;
	} else if (!strcmp(sub, "nights")) {
		ret = history_list_nights(&h, stdout) ? KB_EXIT_USAGE : KB_EXIT_OK;
	} else if (!strcmp(sub, "accept")) {
		ret = history_accept_cmd(&h, &args, &f, reason, by);
	} else if (!strcmp(sub, "check")) {
		ret = history_check(&h, stdout) ? KB_EXIT_USAGE : KB_EXIT_OK;
		if (!ret)
			printf("history %s: intact (schema version %d)\n", path, HISTORY_SCHEMA_VERSION);
	} else if (!strcmp(sub, "import")) {
		ret = history_import_dirs(&h, path, &args, f.night);
	} else { /* trends */
		ret = history_trends(&h, path, &f, &variants, html, last);
	}
out:
	if (open)
		history_close(&h);
	strvec_clear(&variants);
	strvec_clear(&args);
	return ret;
}

/* ---- merge ---- */

static const char merge_usage[] =
	"usage: kbench merge DIR... --out DIR [--pool-hosts] [--baseline GROUP] [--force]\n"
	"  DIR: run directories, directories of runs, or nights (reports/nightly/ID, as the\n"
	"  CI jobs upload them). Writes one comparison (comparison.json, report.html),\n"
	"  junit/ with every night's JUnit files, summary.md and merge.json.\n"
	"  Runs from different hosts are never pooled: each group is VARIANT@HOST unless\n"
	"  --pool-hosts pools a variant's runs over hosts (flagged in the report).\n"
	"exit status: the worst of the nights' (2 error, 1 regression, 3 too noisy, 0),\n"
	"  0 for plain runs, 2 on bad input\n";

/* Copy DIR/junit/NAME.xml to OUT/junit/PREFIX-NAME.xml. */
static int copy_junit(const char *dir, const char *out, const char *prefix)
{
	char src[KB_PATH_MAX], dst[KB_PATH_MAX];
	struct dirent **e;
	int n, ret = 0;
	snprintf(src, sizeof(src), "%s/junit", dir);
	n = scandir(src, &e, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		size_t l = strlen(e[i]->d_name);
		if (l > 4 && !strcmp(e[i]->d_name + l - 4, ".xml")) {
			snprintf(src, sizeof(src), "%s/junit/%s", dir, e[i]->d_name);
			snprintf(dst, sizeof(dst), "%s/junit/%s-%s", out, prefix, e[i]->d_name);
			ret |= copy_file(src, dst, 0644);
		}
		free(e[i]);
	}
	if (n >= 0)
		free(e);
	return ret;
}

struct merge {
	const char *out, *baseline;
	int pool, force, worst;
	struct cmp_inputs in;
	struct strvec hosts, groups;
	struct strbuf md;           /* summary.md */
	json_object *nights;        /* merge.json's nights */
};

/* Parse: 0 to go on, -1 after --help, else the exit status. */
static int merge_parse(int argc, char **argv, struct merge *m)
{
	static const struct option longopts[] = {
		{ "out", required_argument, NULL, H_OUT },
		{ "pool-hosts", no_argument, NULL, H_POOL },
		{ "baseline", required_argument, NULL, H_BASELINE },
		{ "force", no_argument, NULL, H_FORCE },
		{ "help", no_argument, NULL, H_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case H_OUT: m->out = optarg; break;
		case H_POOL: m->pool = 1; break;
		case H_BASELINE: m->baseline = optarg; break;
		case H_FORCE: m->force = 1; break;
		case H_HELP:
			fputs(merge_usage, stdout);
			return -1;
		default:
			error("unknown option '%s'", argv[optind - 1]);
			fputs(merge_usage, stderr);
			return KB_EXIT_USAGE;
		}
	}
	if (!m->out || optind >= argc) {
		fputs(merge_usage, stderr);
		return KB_EXIT_USAGE;
	}
	return 0;
}

/* A night directory's nightly.json (untrusted: it comes from another
 * machine's CI job): its JUnit files, summary and exit. 0 or -1. */
static int merge_night(struct merge *m, const char *dir, const char *nj)
{
	json_object *night = json_object_from_file(nj), *e;
	const char *id = night ? jstr(night, "night") : NULL, *host = night ? jstr(night, "hostname") : NULL;
	char prefix[2 * KB_ID_MAX + 8], sm[KB_PATH_MAX];
	struct strbuf s = STRBUF_INIT;
	int ex, ret = 0;
	if (!id || !jget(night, "exit")) {
		json_object_put(night);
		return error("'%s': not a kbench nightly.json", nj);
	}
	if (!id_valid(id) || (host && !id_valid(host))) {
		error("'%s': night '%s' on host '%s': not plain names (letters, digits, '.', '_', '-')",
		      nj, id, or_empty(host));
		json_object_put(night);
		return -1;
	}
	ex = json_object_get_int(jget(night, "exit"));
	snprintf(prefix, sizeof(prefix), "%s-%s", host ? host : "host", id);
	ret = copy_junit(dir, m->out, prefix);
	m->worst = nightly_worst(m->worst, ex);
	snprintf(sm, sizeof(sm), "%s/summary.md", dir);
	if (path_exists(sm) && read_file(sm, &s, 1 << 20) == 0 && s.buf)
		sb_addf(&m->md, "%s\n", s.buf);
	sb_release(&s);
	e = json_object_new_object();
	json_object_object_add(e, "dir", json_object_new_string(dir));
	json_object_object_add(e, "night", json_object_new_string(id));
	json_object_object_add(e, "hostname", host ? json_object_new_string(host) : NULL);
	json_object_object_add(e, "exit", json_object_new_int(ex));
	json_object_array_add(m->nights, e);
	printf("kbench merge: night %s from %s: exit %d\n", id, host ? host : "?", ex);
	json_object_put(night);
	return ret;
}

/* The hosts, and a group per variant and host (VARIANT@HOST) unless pooled. */
static void merge_groups(struct merge *m)
{
	for (size_t i = 0; i < m->in.n; i++) {
		const char *hn = jstr(jget(m->in.v[i].doc, "host"), "hostname");
		size_t k;
		hn = hn ? hn : "?";
		for (k = 0; k < m->hosts.n && strcmp(m->hosts.v[k], hn); k++)
			;
		if (k == m->hosts.n)
			strvec_push(&m->hosts, hn);
	}
	for (size_t i = 0; i < m->in.n; i++) {
		const char *hn = jstr(jget(m->in.v[i].doc, "host"), "hostname");
		size_t k;
		if (m->hosts.n > 1 && !m->pool) {
			char *g = xasprintf("%s@%s", m->in.v[i].group, hn ? hn : "?");
			free(m->in.v[i].group);
			m->in.v[i].group = g;
		}
		for (k = 0; k < m->groups.n && strcmp(m->groups.v[k], m->in.v[i].group); k++)
			;
		if (k == m->groups.n)
			strvec_push(&m->groups, m->in.v[i].group);
	}
}

/* --baseline names a group; a variant that ran on several hosts is not one. */
static int merge_check_baseline(const struct merge *m)
{
	struct strbuf on = STRBUF_INIT;
	size_t matches = 0, l = strlen(m->baseline);
	for (size_t k = 0; k < m->groups.n; k++)
		if (!strcmp(m->groups.v[k], m->baseline))
			return 0;
	for (size_t j = 0; j < m->groups.n; j++)
		if (!strncmp(m->groups.v[j], m->baseline, l) && m->groups.v[j][l] == '@') {
			sb_addf(&on, "%s%s", matches ? ", " : "", m->groups.v[j]);
			matches++;
		}
	if (matches)
		error("baseline '%s' ran on %zu hosts (%s): runs from different hosts are not "
		      "pooled; name one of them, or pass --pool-hosts", m->baseline, matches, on.buf);
	else
		error("baseline '%s' is not among the groups", m->baseline);
	sb_release(&on);
	return -1;
}

/* The comparison over hosts, printed and written as the report. */
static int merge_compare(struct merge *m)
{
	struct cmp_opts o;
	struct comparison cmp;
	int ret = -1;
	cmp_opts_init(&o);
	o.baseline = m->baseline ? m->baseline : m->groups.v[0];
	o.order = (const char *const *)m->groups.v;
	o.norder = m->groups.n;
	/* different hosts are expected here; the report flags them */
	o.force = m->hosts.n > 1 || m->force;
	if (comparison_build(&cmp, &m->in, &o))
		goto out;
	if (m->hosts.n > 1) {
		char *w = xasprintf(m->pool ? "runs of %zu hosts POOLED per variant (--pool-hosts): host "
				    "differences are mixed into the variants' spread" :
				    "runs of %zu hosts: every group is one variant on one host (VARIANT@HOST); "
				    "differences between hosts are the machines', not the kernels'", m->hosts.n);
		strvec_push(&cmp.warnings, w);
		free(w);
	}
	comparison_print(&cmp, stdout);
	ret = report_write_dir(&cmp, m->out);
out:
	comparison_release(&cmp);
	cmp_opts_release(&o);
	return ret;
}

/* merge.json and summary.md. */
static int merge_write(struct merge *m)
{
	json_object *mj = json_object_new_object(), *hj = json_object_new_array();
	char path[KB_PATH_MAX];
	const char *s;
	int ret = -1;
	for (size_t i = 0; i < m->hosts.n; i++)
		json_object_array_add(hj, json_object_new_string(m->hosts.v[i]));
	json_object_object_add(mj, "schema", json_object_new_string("kbench-merge"));
	json_object_object_add(mj, "schema_version", json_object_new_int(1));
	json_object_object_add(mj, "hosts", hj);
	json_object_object_add(mj, "pooled_hosts", json_object_new_boolean(m->pool));
	json_object_object_add(mj, "nights", json_object_get(m->nights));
	json_object_object_add(mj, "exit", json_object_new_int(m->worst));
	s = json_object_to_json_string_ext(mj, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
					   JSON_C_TO_STRING_NOSLASHESCAPE);
	snprintf(path, sizeof(path), "%s/merge.json", m->out);
	if (write_file_atomic(path, s, strlen(s)))
		goto out;
	sb_addf(&m->md, "merged: %zu run%s from %zu host%s%s; exit %d\n", m->in.n,
		m->in.n == 1 ? "" : "s", m->hosts.n, m->hosts.n == 1 ? "" : "s",
		m->pool ? " (pooled)" : "", m->worst);
	snprintf(path, sizeof(path), "%s/summary.md", m->out);
	ret = write_file_atomic(path, m->md.buf, m->md.len);
out:
	json_object_put(mj);
	return ret;
}

int cmd_merge(int argc, char **argv)
{
	struct merge m;
	char path[KB_PATH_MAX];
	int ret, bad = 0;

	memset(&m, 0, sizeof(m));
	m.hosts = (struct strvec)STRVEC_INIT;
	m.groups = (struct strvec)STRVEC_INIT;
	m.md = (struct strbuf)STRBUF_INIT;
	m.nights = json_object_new_array();
	m.worst = KB_EXIT_OK;
	ret = merge_parse(argc, argv, &m);
	if (ret) {
		ret = ret < 0 ? KB_EXIT_OK : ret;
		goto out;
	}
	ret = KB_EXIT_USAGE;
	snprintf(path, sizeof(path), "%s/junit", m.out);
	if (mkdir_p(path, 0755))
		goto out;
	sb_adds(&m.md, "## kbench merge\n\n");
	for (int i = optind; i < argc; i++) {
		char nj[KB_PATH_MAX];
		bad |= cmp_inputs_add(&m.in, argv[i], NULL) != 0;
		snprintf(nj, sizeof(nj), "%s/nightly.json", argv[i]);
		if (path_exists(nj))
			bad |= merge_night(&m, argv[i], nj) != 0;
	}
	if (bad)
		goto out;
	merge_groups(&m);
	if (m.baseline && merge_check_baseline(&m))
		goto out;
	if (m.hosts.n > 1)
		printf("kbench merge: %zu hosts (%s%s): %s\n", m.hosts.n, m.hosts.v[0],
		       m.hosts.n > 2 ? ", ..." : "", m.pool ? "variants POOLED over hosts (--pool-hosts)" :
		       "each variant kept per host as VARIANT@HOST");
	if (merge_compare(&m) || merge_write(&m))
		goto out;
	printf("report:  %s/report.html\nsummary: %s/summary.md\nexit %d\n", m.out, m.out, m.worst);
	ret = m.worst;
out:
	json_object_put(m.nights);
	cmp_inputs_release(&m.in);
	strvec_clear(&m.hosts);
	strvec_clear(&m.groups);
	sb_release(&m.md);
	return ret;
}
