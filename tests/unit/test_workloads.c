/* test_workloads.c - registry, option tables, commands and the parsers of
 * hackbench, dbench and cyclictest, on real outputs captured from rt-tests
 * 2.4 and dbench 4.0 (tests/fixtures/<workload>/) and on outputs derived
 * from them by tests/fixtures/make-bad.sh (bad-*.txt). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/workloads.h"
#include "core/histogram.h"
#include "run/run.h"

#ifndef KB_SRCDIR
#error "KB_SRCDIR must name the source tree"
#endif

/* ---- helpers ---------------------------------------------------------- */

/* Read a fixture into a buffer of exactly its size (no NUL after it), so
 * that ASan catches any parser reading past the end. */
static char *fixture(const char *wl, const char *name, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/tests/fixtures/%s/%s", KB_SRCDIR, wl, name);
	char *buf;

	if (read_file(path, &sb, 0))
		fail_msg("cannot read fixture %s", path);
	free(path);
	*len = sb.len;
	buf = xmalloc(sb.len);
	if (sb.len)
		memcpy(buf, sb.buf, sb.len);
	sb_release(&sb);
	return buf;
}

/* Params of W with defaults for VCPUS, then "key=value" settings. */
static void *params_with(const struct workload_ops *w, int vcpus, const char *const *kv)
{
	void *p = xcalloc(1, w->params_size);
	char err[256];

	w->defaults(p, vcpus);
	for (; kv && *kv; kv++) {
		char key[64];
		const char *eq = strchr(*kv, '=');
		const struct opt_def *d;
		assert_non_null(eq);
		snprintf(key, sizeof(key), "%.*s", (int)(eq - *kv), *kv);
		d = opt_find(w->opts, key);
		if (!d)
			fail_msg("no option '%s' in %s", key, w->name);
		if (opt_set(p, d, eq + 1, err, sizeof(err)))
			fail_msg("%s: %s", w->name, err);
	}
	if (w->check && w->check(p, err, sizeof(err)))
		fail_msg("%s: check: %s", w->name, err);
	return p;
}

/* Parse a buffer; the metric set is untouched when parsing fails. */
static int parse_buf(const struct workload_ops *w, const void *p, const char *buf, size_t len,
		     struct metric_set *ms, struct parse_error *err)
{
	int r;
	memset(err, 0, sizeof(*err));
	r = w->parse(p, buf, len, ms, err);
	if (r) {
		assert_int_equal(r, -1);
		assert_int_equal(ms->n, 0);
		assert_null(ms->extra);
		assert_true(err->msg[0] != '\0');
	} else {
		/* kbuild's metrics are the agent's times: its parse only checks
		 * and counts, into extra */
		assert_true(ms->n > 0 || (w == &kbuild_ops && ms->extra));
	}
	return r;
}

static double metric(const struct metric_set *ms, const char *name, const char *unit,
		     enum better better)
{
	const struct metric *m = metric_set_get(ms, name);
	if (!m)
		fail_msg("no metric '%s'", name);
	assert_string_equal(m->unit, unit);
	assert_int_equal(m->better, better);
	assert_true(isfinite(m->value));
	return m->value;
}

#define assert_double(a, b) assert_true(fabs((a) - (b)) < 1e-9)

/* argv as one space-joined string, for compact comparisons. */
static char *joined(const struct strvec *sv)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;
	for (size_t i = 0; i < sv->n; i++)
		sb_addf(&sb, "%s%s", i ? " " : "", sv->v[i]);
	assert_null(sv->n ? sv->v[sv->n] : NULL);
	s = xstrdup(sb.buf ? sb.buf : "");
	sb_release(&sb);
	return s;
}

/* Run W's command for params (vcpus 2 + KV) and compare. */
static void check_command(const struct workload_ops *w, const char *const *kv,
			  const char *argv, const char *bg, int timeout, const char *cwd,
			  int scratch)
{
	void *p = params_with(w, 2, kv);
	struct guest_cmd c;
	char *a, *b;

	guest_cmd_init(&c);
	assert_int_equal(w->command(p, &c), 0);
	a = joined(&c.argv);
	b = joined(&c.bg_argv);
	assert_string_equal(a, argv);
	assert_string_equal(b, bg);
	assert_int_equal(c.timeout_s, timeout);
	assert_string_equal(c.cwd, cwd);
	assert_int_equal(c.needs_scratch, scratch);
	free(a);
	free(b);
	guest_cmd_release(&c);
	assert_int_equal(c.argv.n, 0);
	assert_null(c.argv.v);
	free(p);
}

#define KV(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define NOKV ((const char *const *)NULL)
#define HB &hackbench_ops
#define DB &dbench_ops
#define CT &cyclictest_ops
#define DB2 KV("clients=2", "duration=3")
#define CT2 KV("threads=2", "histogram=200", "duration=3")

/* EXTRA must print as JSON that parses back (results.json stays valid).
 * json-c itself accepts and prints "00.5", which other readers reject, so
 * look for numbers with leading zeros too (keys here never hold digits
 * after a non-alphanumeric). */
static void assert_valid_json(json_object *extra)
{
	const char *s = json_object_to_json_string_ext(extra, JSON_C_TO_STRING_PLAIN);
	json_object *back = json_tokener_parse(s);
	assert_non_null(back);
	json_object_put(back);
	for (size_t i = 1; s[i] && s[i + 1]; i++) {
		char before = s[i - 1];
		int starts = !(before >= '0' && before <= '9') && !(before >= 'A' && before <= 'Z') &&
			     !(before >= 'a' && before <= 'z') && before != '.' && before != '_' &&
			     before != '-';
		if (starts && s[i] == '0' && s[i + 1] >= '0' && s[i + 1] <= '9')
			fail_msg("number with a leading zero in %.80s", s + i - 1);
	}
}

/* ---- registry and shared helpers ------------------------------------- */

static void test_registry(void **state)
{
	const struct workload_ops *const *all = workload_all();
	(void)state;
	assert_int_equal(workload_registry_check(), 0);
	assert_ptr_equal(all[0], &hackbench_ops);
	assert_ptr_equal(all[1], &dbench_ops);
	assert_ptr_equal(all[2], &cyclictest_ops);
	assert_ptr_equal(all[3], &kbuild_ops);
	assert_ptr_equal(workload_find("kbuild"), &kbuild_ops);
	assert_ptr_equal(workload_find("hackbench"), &hackbench_ops);
	assert_ptr_equal(workload_find("dbench"), &dbench_ops);
	assert_ptr_equal(workload_find("cyclictest"), &cyclictest_ops);
	assert_null(workload_find("no-such-workload"));
	assert_null(workload_find(""));
	assert_null(workload_find(NULL));
	for (; *all; all++) {
		assert_non_null((*all)->check);
		assert_non_null((*all)->description);
		assert_non_null((*all)->tools);
	}
}

/* The headlines compare.c's map had (comparison.json must not change). */
static void test_headlines(void **state)
{
	(void)state;
	assert_string_equal(workload_headline("hackbench"), "time");
	assert_string_equal(workload_headline("dbench"), "throughput");
	assert_string_equal(workload_headline("cyclictest"), "lat_p99");
	assert_string_equal(workload_headline("kbuild"), "elapsed");
	assert_null(workload_headline("no-such-workload"));
	assert_null(workload_headline(NULL));
}

/* Tools come once each, in registry order, with their packages (those of
 * the first four workloads; a new one adds its own after them). */
static void test_tools(void **state)
{
	static const char *const want[][2] = {
		{ "hackbench", "rt-tests" }, { "dbench", "dbench" },
		{ "/usr/share/dbench/client.txt", "dbench" }, { "cyclictest", "rt-tests" },
		{ "qemu-img", "qemu-utils" }, { "make", "make" }, { "gcc", "gcc" },
	};
	const struct workload_ops *two[] = { &cyclictest_ops, &hackbench_ops, NULL };
	const struct host_tool **t = workload_tools(workload_all());
	size_t n = 0;
	(void)state;
	for (; n < sizeof(want) / sizeof(want[0]); n++) {
		assert_non_null(t[n]);
		assert_string_equal(t[n]->name, want[n][0]);
		assert_string_equal(t[n]->package, want[n][1]);
	}
	for (; t[n]; n++)
		for (size_t i = 0; i < n; i++)
			assert_string_not_equal(t[i]->name, t[n]->name);
	free(t);
	t = workload_tools(two);
	assert_string_equal(t[0]->name, "cyclictest");
	assert_string_equal(t[1]->name, "hackbench");
	assert_null(t[2]);
	free(t);
	t = workload_tools(two + 2);
	assert_null(t[0]);
	free(t);
}

/* ---- lists that cannot be derived from workloads/list.h -------------- */

/* The words of harness/deps.sh's base package list (pkgs="...": the
 * packages `make deps` installs, without the test and fuzz extras). */
static char *deps_packages(void)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/harness/deps.sh", KB_SRCDIR);
	const char *start, *end;
	char *words;

	if (read_file(path, &sb, 0))
		fail_msg("cannot read %s", path);
	start = strstr(sb.buf, "\npkgs=\"");
	end = start ? strchr(start + 7, '"') : NULL;
	if (!end)
		fail_msg("%s: no pkgs=\"...\" list", path);
	words = xasprintf(" %.*s ", (int)(end - start - 7), start + 7);
	for (char *c = words; *c; c++)
		if (*c == '\n' || *c == '\t')
			*c = ' ';
	sb_release(&sb);
	free(path);
	return words;
}

/* Is PKG a word of WORDS (" a b c ")? */
static int has_word(const char *words, const char *pkg)
{
	char *w = xasprintf(" %s ", pkg);
	int found = strstr(words, w) != NULL;
	free(w);
	return found;
}

/* Every package a workload or the harness needs is in deps.sh. */
static void test_deps_list(void **state)
{
	/* Debian's Essential packages: always installed */
	static const char *const essential[] = { "dpkg", "libc-bin", NULL };
	const struct host_tool **t = workload_tools(workload_all());
	char *words = deps_packages();
	(void)state;
	for (size_t i = 0; t[i]; i++)
		if (!has_word(words, t[i]->package))
			fail_msg("harness/deps.sh: package '%s' (for '%s', a workload's tool) is not in "
				 "its pkgs list: add it there", t[i]->package, t[i]->name);
	for (const struct host_tool *h = run_host_tools; h->name; h++) {
		int ess = 0;
		for (size_t i = 0; essential[i]; i++)
			ess |= !strcmp(essential[i], h->package);
		if (!ess && !has_word(words, h->package))
			fail_msg("harness/deps.sh: package '%s' (for '%s', run_host_tools in "
				 "harness/run/run.c) is not in its pkgs list: add it there",
				 h->package, h->name);
	}
	free(words);
	free(t);
}

/* docs/results.schema.json's suite workload enum is the registry. */
static void test_schema_enum(void **state)
{
	static const char *const path[] = { "properties", "suite", "properties", "workloads",
					    "items", "properties", "workload", "enum" };
	char *file = xasprintf("%s/docs/results.schema.json", KB_SRCDIR);
	json_object *doc = json_object_from_file(file), *e = doc;
	size_t n = 0;
	(void)state;
	for (size_t i = 0; e && i < sizeof(path) / sizeof(path[0]); i++)
		e = json_object_object_get(e, path[i]);
	if (!e || !json_object_is_type(e, json_type_array))
		fail_msg("%s: no suite.workloads[].workload enum", file);
	for (const struct workload_ops *const *w = workload_all(); *w; w++, n++) {
		size_t i = 0;
		while (i < json_object_array_length(e) &&
		       strcmp(json_object_get_string(json_object_array_get_idx(e, i)), (*w)->name))
			i++;
		if (i == json_object_array_length(e))
			fail_msg("%s: workload '%s' is missing from the suite.workloads[].workload "
				 "enum: add it there", file, (*w)->name);
	}
	if (json_object_array_length(e) != n)
		fail_msg("%s: the suite.workloads[].workload enum names %zu workloads, "
			 "workloads/list.h %zu: make them the same", file,
			 json_object_array_length(e), n);
	json_object_put(doc);
	free(file);
}

static void test_numbers(void **state)
{
	struct span s;
	uint64_t u = 7;
	double d = 7;
	(void)state;
#define SP(str) ((struct span){ (str), sizeof(str) - 1 })
	assert_int_equal(span_u64(SP("00042"), 100, &u), 0);
	assert_int_equal(u, 42);
	assert_int_equal(span_u64(SP("18446744073709551615"), UINT64_MAX, &u), 0);
	assert_true(u == UINT64_MAX);
	assert_int_equal(span_u64(SP("18446744073709551616"), UINT64_MAX, &u), -1);
	assert_int_equal(span_u64(SP("99999999999999999999"), UINT64_MAX, &u), -1);
	assert_int_equal(span_u64(SP("101"), 100, &u), -1);
	assert_int_equal(span_u64(SP("-1"), 100, &u), -1);
	assert_int_equal(span_u64(SP("+1"), 100, &u), -1);
	assert_int_equal(span_u64(SP("1 "), 100, &u), -1);
	assert_int_equal(span_u64(SP(""), 100, &u), -1);
	assert_int_equal(span_decimal(SP("490.412"), 1e6, &d), 0);
	assert_double(d, 490.412);
	assert_int_equal(span_decimal(SP("3"), 1e6, &d), 0);
	assert_double(d, 3);
	static const char *const bad[] = { ".5", "5.", "1e5", "nan", "inf", "-1", "+1",
					   "0x10", "1.2.3", "", "1,5", "infinity", NULL };
	for (int i = 0; bad[i]; i++) {
		s.s = bad[i];
		s.len = strlen(bad[i]);
		if (!span_decimal(s, 1e6, &d))
			fail_msg("span_decimal accepted '%s'", bad[i]);
	}
	assert_int_equal(span_decimal(SP("1000001"), 1e6, &d), -1);
	/* 400 digits: would be inf for strtod, rejected by length */
	{
		char big[401];
		memset(big, '9', 400);
		s.s = big;
		s.len = 400;
		assert_int_equal(span_decimal(s, 1e300, &d), -1);
	}
#undef SP
}

static void test_lines(void **state)
{
	static const char text[] = "a b\r\n\n  x\t y  \nlast";
	struct line_iter it;
	struct line ln;
	struct parse_error err = { 0, "" };
	size_t pos = 0;
	struct span t;
	(void)state;

	line_iter_init(&it, text, sizeof(text) - 1);
	assert_int_equal(line_next(&it, &ln, &err), 1);
	assert_int_equal(ln.no, 1);
	assert_int_equal(ln.len, 3); /* '\r' dropped */
	assert_int_equal(line_next(&it, &ln, &err), 1);
	assert_true(line_is_blank(&ln));
	assert_int_equal(line_next(&it, &ln, &err), 1);
	assert_int_equal(line_token(&ln, &pos, &t), 1);
	assert_true(span_eq(t, "x"));
	assert_int_equal(line_token(&ln, &pos, &t), 1);
	assert_true(span_eq(t, "y"));
	assert_int_equal(line_token(&ln, &pos, &t), 0);
	assert_int_equal(line_next(&it, &ln, &err), -1);
	assert_int_equal(err.line, 4);
	assert_non_null(strstr(err.msg, "mid-line"));

	line_iter_init(&it, "ok\nb\001d\n", 7);
	assert_int_equal(line_next(&it, &ln, &err), 1);
	assert_int_equal(line_next(&it, &ln, &err), -1);
	assert_int_equal(err.line, 2);
	assert_non_null(strstr(err.msg, "0x01"));

	line_iter_init(&it, "a\0b\n", 4);
	assert_int_equal(line_next(&it, &ln, &err), -1);
	assert_int_equal(err.line, 1);

	line_iter_init(&it, NULL, 0);
	assert_int_equal(line_next(&it, &ln, &err), 0);
	assert_int_equal(line_iter_next_no(&it), 1);

	/* the size check comes before any byte is read */
	line_iter_init(&it, "x\n", (size_t)WL_OUTPUT_MAX + 1);
	assert_int_equal(line_next(&it, &ln, &err), -1);
	assert_int_equal(err.line, 0);

	/* patterns: prefix/suffix around a conversion, flexible spacing */
	{
		static const char l1[] = "Throughput 490.412 MB/sec  2 clients\t2 procs  max_latency=10.014 ms";
		struct line a = { l1, sizeof(l1) - 1, 1 };
		double mbs, lat;
		uint64_t c, p;
		struct span q;
		static const char l2[] = "with load '/a/b.txt' and";
		struct line b = { l2, sizeof(l2) - 1, 1 };
		assert_int_equal(line_match(&a, "Throughput %f MB/sec %u clients %u procs max_latency=%f ms",
					    &mbs, &c, &p, &lat), 0);
		assert_double(mbs, 490.412);
		assert_double(lat, 10.014);
		assert_int_equal(c, 2);
		assert_int_equal(p, 2);
		assert_int_equal(line_match(&a, "Throughput %f MB/sec", &mbs), -1);
		assert_int_equal(line_match(&a, "Throughput %f MB/sec %u clients %u procs max_latency=%f ms extra",
					    &mbs, &c, &p, &lat), -1);
		assert_int_equal(line_match(&b, "with load '%s' and", &q), 0);
		assert_true(span_eq(q, "/a/b.txt"));
		assert_int_equal(line_match(&b, "with load %u and", &c), -1);
	}
}

static void test_guest_cmd(void **state)
{
	struct guest_cmd c;
	(void)state;
	guest_cmd_init(&c);
	assert_int_equal(c.argv.n, 0);
	assert_int_equal(c.timeout_s, 0);
	assert_string_equal(c.cwd, "");
	strvec_push(&c.argv, "/bin/true");
	strvec_push(&c.bg_argv, "/bin/false");
	c.timeout_s = 5;
	guest_cmd_release(&c);
	assert_int_equal(c.argv.n, 0);
	assert_int_equal(c.bg_argv.n, 0);
	assert_int_equal(c.timeout_s, 0);
	guest_cmd_release(&c); /* twice is fine */
}

/* ---- option tables ---------------------------------------------------- */

/* opt_set of KEY=VALUE on W's defaults must fail with a message holding WANT. */
static void opt_rejects(const struct workload_ops *w, const char *key, const char *value,
			const char *want)
{
	void *p = params_with(w, 2, NOKV);
	const struct opt_def *d = opt_find(w->opts, key);
	char err[256] = "";
	assert_non_null(d);
	assert_int_equal(opt_set(p, d, value, err, sizeof(err)), -1);
	if (!strstr(err, want))
		fail_msg("%s %s=%s: '%s' lacks '%s'", w->name, key, value, err, want);
	free(p);
}

/* W's check must reject KV with a message holding WANT. */
static void check_rejects(const struct workload_ops *w, const char *const *kv, const char *want)
{
	void *p = xcalloc(1, w->params_size);
	char err[256] = "";
	w->defaults(p, 2);
	for (; *kv; kv++) {
		char key[64];
		const char *eq = strchr(*kv, '=');
		snprintf(key, sizeof(key), "%.*s", (int)(eq - *kv), *kv);
		assert_int_equal(opt_set(p, opt_find(w->opts, key), eq + 1, err, sizeof(err)), 0);
	}
	assert_int_equal(w->check(p, err, sizeof(err)), -1);
	if (!strstr(err, want))
		fail_msg("%s check: '%s' lacks '%s'", w->name, err, want);
	free(p);
}

static void test_opts_hackbench(void **state)
{
	const struct workload_ops *w = &hackbench_ops;
	(void)state;
	opt_rejects(w, "groups", "0", "'groups' must be in 1..1000, got 0");
	opt_rejects(w, "groups", "1001", "1..1000");
	opt_rejects(w, "loops", "x", "expected an integer");
	opt_rejects(w, "fds", "-3", "1..1000");
	opt_rejects(w, "datasize", "65537", "1..65536");
	opt_rejects(w, "transport", "tcp", "'transport' must be one of socket, pipe, got 'tcp'");
	opt_rejects(w, "mode", "threads", "one of process, thread");
	check_rejects(w, KV("groups=1000", "fds=11"), "groups * fds must be at most 10000");
	free(params_with(w, 2, KV("groups=1000", "fds=10", "transport=pipe", "mode=thread")));
}

static void test_opts_dbench(void **state)
{
	const struct workload_ops *w = &dbench_ops;
	(void)state;
	opt_rejects(w, "clients", "0", "'clients' must be in 1..1024");
	opt_rejects(w, "clients", "1025", "1..1024");
	opt_rejects(w, "duration", "0", "1..86400");
	opt_rejects(w, "duration", "1.5", "expected an integer");
	check_rejects(w, KV("loadfile=client.txt"), "absolute path");
	check_rejects(w, KV("loadfile=/my load.txt"), "spaces");
	check_rejects(w, KV("loadfile=/it's.txt"), "quotes");
}

static void test_opts_cyclictest(void **state)
{
	const struct workload_ops *w = &cyclictest_ops;
	(void)state;
	opt_rejects(w, "priority", "0", "'priority' must be in 1..99, got 0");
	opt_rejects(w, "priority", "100", "1..99");
	opt_rejects(w, "threads", "0", "1..1024");
	opt_rejects(w, "interval", "5", "10..1000000");
	opt_rejects(w, "histogram", "0", "1..100000");
	opt_rejects(w, "histogram", "100001", "1..100000");
	opt_rejects(w, "policy", "other", "'policy' must be one of fifo, rr, got 'other'");
	opt_rejects(w, "load", "kcompile", "one of none, hackbench");
	opt_rejects(w, "mlockall", "maybe", "expected true or false");
	check_rejects(w, KV("threads=3", "histogram=100000"), "threads * histogram must be at most");
	free(params_with(w, 2, KV("threads=2", "histogram=100000", "policy=rr", "mlockall=no",
				  "load=hackbench")));
}

static void test_defaults(void **state)
{
	void *p;
	(void)state;
	/* vcpus drives clients and threads, clamped to their ranges */
	p = params_with(&dbench_ops, 3, NOKV);
	assert_int_equal(*(int *)((char *)p + opt_find(dbench_ops.opts, "clients")->offset), 3);
	free(p);
	p = params_with(&dbench_ops, 0, NOKV);
	assert_int_equal(*(int *)((char *)p + opt_find(dbench_ops.opts, "clients")->offset), 1);
	free(p);
	p = params_with(&cyclictest_ops, 4, NOKV);
	assert_int_equal(*(int *)((char *)p + opt_find(cyclictest_ops.opts, "threads")->offset), 4);
	free(p);
	p = xcalloc(1, cyclictest_ops.params_size);
	cyclictest_ops.defaults(p, 5000);
	assert_int_equal(*(int *)((char *)p + opt_find(cyclictest_ops.opts, "threads")->offset), 1024);
	free(p);
	/* defaults render as JSON for results.json */
	p = params_with(&cyclictest_ops, 2, NOKV);
	{
		json_object *o = opts_to_json(p, cyclictest_ops.opts);
		assert_string_equal(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
				    "{\"threads\":2,\"priority\":95,\"interval\":1000,\"duration\":10,"
				    "\"histogram\":10000,\"policy\":\"fifo\",\"mlockall\":true,"
				    "\"load\":\"none\",\"load_groups\":2,\"load_loops\":100,"
				    "\"load_target\":\"kernel\\/\"}");
		json_object_put(o);
	}
	free(p);
}

/* ---- commands and image needs ----------------------------------------- */

static void test_commands(void **state)
{
	(void)state;
	check_command(&hackbench_ops, NOKV,
		      "/usr/bin/hackbench -g 4 -l 200 -f 20 -s 100", "", 124, "", 0);
	check_command(&hackbench_ops, KV("groups=10", "loops=1000", "transport=pipe", "mode=thread"),
		      "/usr/bin/hackbench -g 10 -l 1000 -f 20 -s 100 -p -T", "", 60 + 800, "", 0);
	/* 1000 * 1000^2 * 10^6 messages: capped at a day */
	check_command(&hackbench_ops, KV("groups=10", "fds=1000", "loops=1000000"),
		      "/usr/bin/hackbench -g 10 -l 1000000 -f 1000 -s 100", "", 86400, "", 0);
	check_command(&dbench_ops, NOKV,
		      "/usr/bin/dbench -t 10 -c /usr/share/dbench/client.txt -D /scratch 2", "",
		      10 + 2 + 120, "/scratch", 1);
	check_command(&dbench_ops, KV("clients=8", "duration=60", "loadfile=/opt/x.txt"),
		      "/usr/bin/dbench -t 60 -c /opt/x.txt -D /scratch 8", "", 60 + 12 + 120,
		      "/scratch", 1);
	/* on tmpfs: no scratch disk, the clients work in /dev/shm */
	check_command(&dbench_ops, KV("clients=4", "fs=tmpfs"),
		      "/usr/bin/dbench -t 10 -c /usr/share/dbench/client.txt -D /dev/shm 4", "",
		      10 + 2 + 120, "/dev/shm", 0);
	/* not in a system's own /dev/shm: this host's (local backend) or a
	 * remote machine's (ssh target) */
	for (int k = 0; k < 2; k++) {
		void *p = params_with(&dbench_ops, 2, KV("fs=tmpfs"));
		struct guest_cmd c;
		guest_cmd_init(&c);
		if (k)
			c.target = 1;
		else
			c.native = 1;
		assert_int_equal(dbench_ops.command(p, &c), -1);
		guest_cmd_release(&c);
		free(p);
	}
	check_command(&cyclictest_ops, NOKV,
		      "/usr/bin/cyclictest -q -t 2 -p 95 --policy=fifo -i 1000 -D 10s -h 10000 -m",
		      "", 70, "", 0);
	check_command(&cyclictest_ops,
		      KV("threads=1", "priority=50", "interval=200", "duration=60", "histogram=200",
			 "policy=rr", "mlockall=false", "load=hackbench", "load_groups=3",
			 "load_loops=500"),
		      "/usr/bin/cyclictest -q -t 1 -p 50 --policy=rr -i 200 -D 60s -h 200",
		      "/usr/bin/hackbench -g 3 -l 500", 120, "", 0);
}

static void check_prepare(const struct workload_ops *w, const char *const *kv,
			  const char *programs, const char *files)
{
	struct image_needs n = IMAGE_NEEDS_INIT;
	void *p = params_with(w, 2, kv);
	char *a, *b;
	assert_int_equal(w->prepare(p, &n), 0);
	a = joined(&n.programs);
	b = joined(&n.files);
	assert_string_equal(a, programs);
	assert_string_equal(b, files);
	free(a);
	free(b);
	strvec_clear(&n.programs);
	strvec_clear(&n.files);
	free(p);
}

static void test_prepare(void **state)
{
	(void)state;
	check_prepare(&hackbench_ops, NOKV, "/usr/bin/hackbench", "");
	check_prepare(&dbench_ops, NOKV, "/usr/bin/dbench", "/usr/share/dbench/client.txt");
	check_prepare(&dbench_ops, KV("loadfile=/srv/l.txt"), "/usr/bin/dbench", "/srv/l.txt");
	check_prepare(&cyclictest_ops, NOKV, "/usr/bin/cyclictest", "");
	check_prepare(&cyclictest_ops, KV("load=hackbench"),
		      "/usr/bin/cyclictest /usr/bin/hackbench", "");
}

/* On a remote machine (guest_cmd.target): the tree kbench copied there,
 * the machine's toolchain (no chroot), the scratch directory, and the
 * untimed step; prepare refuses what a machine cannot get, needs no disk
 * and no host toolchain share, and names the tree. */
static void test_kbuild_target(void **state)
{
	struct image_needs n = IMAGE_NEEDS_INIT;
	struct guest_cmd c;
	void *p = params_with(&kbuild_ops, 4, KV("config=tinyconfig", "target=kernel/locking/"));
	char *a, want[600];
	(void)state;
	n.target = 1;
	assert_int_equal(kbuild_ops.prepare(p, &n), 0);
	assert_true(n.tree[0] == '/' && strlen(n.tree_key) == 24);
	assert_string_equal(n.disk, "");
	assert_int_equal(n.hostroot, 0);
	guest_cmd_init(&c);
	c.target = 1;
	snprintf(c.scratch, sizeof(c.scratch), "/srv/s/kbench-scratch");
	assert_int_equal(kbuild_ops.command(p, &c), 0);
	a = joined(&c.argv);
	snprintf(want, sizeof(want), "/usr/bin/make -C " KB_TARGET_KBUILD_DIR "/%s/linux "
		 "O=/srv/s/kbench-scratch/kbuild-obj -j4 kernel/locking/", n.tree_key);
	assert_string_equal(a, want);
	free(a);
	assert_int_equal(c.in_root, 0);
	assert_int_equal(c.needs_scratch, 1);
	assert_int_equal(c.report_times, 1);
	assert_string_equal(c.cwd, "/srv/s/kbench-scratch");
	assert_int_equal(c.pre_argv.n, 9);
	assert_string_equal(c.pre_argv.v[0], "/bin/sh");
	assert_string_equal(c.pre_argv.v[5], "tinyconfig");
	assert_string_equal(c.pre_argv.v[7], "/srv/s/kbench-scratch/kbuild-obj");
	assert_string_equal(c.pre_argv.v[8], "");
	guest_cmd_release(&c);
	free(p);
	/* a config file of this host, and clean = no: refused */
	p = params_with(&kbuild_ops, 4, KV("config=/etc/hostname"));
	assert_int_equal(kbuild_ops.prepare(p, &n), -1);
	free(p);
	p = params_with(&kbuild_ops, 4, KV("clean=no"));
	assert_int_equal(kbuild_ops.prepare(p, &n), -1);
	free(p);
	/* cyclictest's kcompile load there: prepared by the same step */
	p = params_with(&cyclictest_ops, 2, KV("load=kbuild"));
	guest_cmd_init(&c);
	c.target = 1;
	assert_int_equal(cyclictest_ops.command(p, &c), 0);
	assert_int_equal(c.bg_in_root, 0);
	assert_int_equal(c.needs_scratch, 1);
	assert_string_equal(c.pre_argv.v[5], "defconfig");
	assert_string_equal(c.bg_argv.v[0], "/bin/sh");
	assert_true(!strncmp(c.bg_argv.v[4], KB_TARGET_KBUILD_DIR "/", strlen(KB_TARGET_KBUILD_DIR) + 1));
	guest_cmd_release(&c);
	free(p);
	strvec_clear(&n.programs);
	strvec_clear(&n.files);
}

/* Run the untimed step's script (the pre_argv of a target command) with
 * TREE and OBJ, TIMED; its output into OUT. */
static int run_target_pre(const char *tree, const char *obj, int timed, struct strbuf *out)
{
	struct strvec v = STRVEC_INIT;
	int r;
	kbuild_target_pre(tree, "tinyconfig", timed, 2, obj, &v);
	strvec_push(&v, NULL);
	sb_reset(out);
	r = run_capture((const char *const *)v.v, 60, out);
	strvec_clear(&v);
	return r;
}

/* The script itself, on a stand-in tree whose Makefile configures and
 * prepares (what the real one does on the machine): prepared once and
 * reused, a copy each time, a failed prepare says so, no tree refused. */
static void test_kbuild_target_script(void **state)
{
	char dir[] = "/tmp/kbench-target-pre-XXXXXX", tree[300], obj[300], path[400];
	struct strbuf out = STRBUF_INIT, mk = STRBUF_INIT;
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(tree, sizeof(tree), "%s/k/linux", dir);
	snprintf(obj, sizeof(obj), "%s/scratch-obj", dir);
	assert_int_equal(mkdir_p(tree, 0755), 0);
	/* no tree-complete mark yet: refused */
	assert_int_not_equal(run_target_pre(tree, obj, 0, &out), 0);
	assert_non_null(strstr(out.buf, "no complete kernel tree"));
	snprintf(path, sizeof(path), "%s/k/tree-complete", dir);
	assert_int_equal(write_file_atomic(path, "", 0), 0);
	/* prepare after the config, as the kernel's Makefile orders a config
	 * goal and a build goal given together (make -j2 would run two
	 * unrelated goals at once) */
	sb_adds(&mk, "tinyconfig:\n\techo CONFIG_X=y >$(O)/.config\n"
		     "prepare: tinyconfig\n\ttest -f $(O)/.config && echo prepared >$(O)/stamp\n");
	snprintf(path, sizeof(path), "%s/Makefile", tree);
	assert_int_equal(write_file_atomic(path, mk.buf, mk.len), 0);
	if (run_target_pre(tree, obj, 0, &out)) fail_msg("%s", out.buf);
	assert_non_null(strstr(out.buf, "configuring (tinyconfig) and make prepare on the machine"));
	snprintf(path, sizeof(path), "%s/stamp", obj);
	assert_true(path_exists(path));
	/* again: reused, the copy fresh (what a build left is gone) */
	snprintf(path, sizeof(path), "%s/left-over.o", obj);
	assert_int_equal(write_file_atomic(path, "", 0), 0);
	assert_int_equal(run_target_pre(tree, obj, 0, &out), 0);
	assert_non_null(strstr(out.buf, "prepared on the machine before (reused)"));
	assert_false(path_exists(path));
	snprintf(path, sizeof(path), "%s/stamp", obj);
	assert_true(path_exists(path));
	/* timed: an empty object directory, nothing prepared */
	assert_int_equal(run_target_pre(tree, obj, 1, &out), 0);
	assert_false(path_exists(path));
	/* the prepared directory gone (as after a toolchain upgrade: a new
	 * key), a prepare that fails says so, with make's error */
	sb_reset(&mk);
	sb_adds(&mk, "tinyconfig:\n\t@echo 'scripts/x.c:1: error: broken' >&2; exit 2\n");
	snprintf(path, sizeof(path), "%s/Makefile", tree);
	assert_int_equal(write_file_atomic(path, mk.buf, mk.len), 0);
	snprintf(path, sizeof(path), "%s/k", dir);
	{
		struct strvec v = STRVEC_INIT;
		strvec_push(&v, "/bin/sh");
		strvec_push(&v, "-c");
		strvec_push(&v, "cd \"$1\" && rm -rf obj-tinyconfig-*");
		strvec_push(&v, "x");
		strvec_push(&v, path);
		strvec_push(&v, NULL);
		assert_int_equal(run_capture((const char *const *)v.v, 10, NULL), 0);
		strvec_clear(&v);
	}
	assert_int_equal(run_target_pre(tree, obj, 0, &out), 1);
	assert_non_null(strstr(out.buf, "scripts/x.c:1: error: broken"));
	assert_non_null(strstr(out.buf, "make prepare failed on the machine"));
	sb_release(&out);
	sb_release(&mk);
	assert_int_equal(rm_rf(dir), 0);
}

/* ---- parsing real outputs --------------------------------------------- */

/* Parse fixture WL/NAME with params KV; must succeed. */
static void parse_ok(const struct workload_ops *w, const char *name, const char *const *kv,
		     struct metric_set *ms)
{
	size_t len;
	char *buf = fixture(w->name, name, &len);
	void *p = params_with(w, 2, kv);
	struct parse_error err;
	if (w->parse(p, buf, len, ms, &err))
		fail_msg("%s/%s rejected: line %d: %s", w->name, name, err.line, err.msg);
	free(buf);
	free(p);
}

/* Every workload's headline is a metric it really produces: one its
 * parser adds from a real captured output, or, for a command whose times
 * the agent measures (report_times), one of elapsed, user and sys (run.c).
 * kbuild's headline was "time", which no kbuild run ever had, so kbuild
 * never counted in a comparison's score. */
static void test_headline_is_produced(void **state)
{
	const struct {
		const char *workload, *fixture;
		const char *const *kv;
	} t[] = {
		{ "hackbench", "process-socket.txt", NOKV },
		{ "dbench", "t3-c1.txt", KV("clients=1", "duration=3") },
		{ "cyclictest", "t2-h200.txt", KV("threads=2", "histogram=200", "duration=3") },
		{ "kbuild", "locking.txt", KV("target=kernel/locking/") },
	};
	(void)state;
	for (const struct workload_ops *const *w = workload_all(); *w; w++) {
		const char *fx = NULL, *h = (*w)->headline;
		const char *const *kv = NOKV;
		struct metric_set ms = METRIC_SET_INIT;
		struct guest_cmd cmd;
		void *p;
		int found;
		for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
			if (!strcmp(t[i].workload, (*w)->name)) {
				fx = t[i].fixture;
				kv = t[i].kv;
			}
		if (!fx)
			fail_msg("workload %s: name a real output in test_headline_is_produced",
				 (*w)->name);
		p = params_with(*w, 2, kv);
		parse_ok(*w, fx, kv, &ms);
		guest_cmd_init(&cmd);
		assert_int_equal((*w)->command(p, &cmd), 0);
		if (!h)
			found = ms.n > 0;
		else
			found = metric_set_get(&ms, h) != NULL ||
				(cmd.report_times && (!strcmp(h, "elapsed") || !strcmp(h, "user") ||
						      !strcmp(h, "sys")));
		if (!found)
			fail_msg("workload %s: headline '%s' is not a metric it produces",
				 (*w)->name, h ? h : "(first)");
		guest_cmd_release(&cmd);
		metric_set_release(&ms);
		free(p);
	}
}

static void test_hackbench_good(void **state)
{
	const struct {
		const char *file;
		const char *const *kv;
		double time;
	} t[] = {
		{ "process-socket.txt", NOKV, 1.652 },
		{ "process-pipe.txt", KV("transport=pipe"), 1.143 },
		{ "thread-socket.txt", KV("mode=thread"), 1.629 },
		{ "thread-pipe.txt", KV("mode=thread", "transport=pipe"), 0.965 },
		{ "small.txt", KV("groups=1", "loops=10", "fds=5", "datasize=512"), 0.016 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct metric_set ms = METRIC_SET_INIT;
		parse_ok(&hackbench_ops, t[i].file, t[i].kv, &ms);
		assert_int_equal(ms.n, 1);
		assert_double(metric(&ms, "time", "s", BETTER_LOWER), t[i].time);
		assert_null(ms.extra);
		metric_set_release(&ms);
	}
}

static void test_dbench_good(void **state)
{
	const struct {
		const char *file;
		const char *const *kv;
		double mbs, maxlat;
		size_t nops;
	} t[] = {
		{ "t3-c2.txt", KV("clients=2", "duration=3"), 225.153, 201.133, 16 },
		{ "t10-c4.txt", KV("clients=4", "duration=10"), 346.751, 27.111, 14 },
		{ "t3-c1.txt", KV("clients=1", "duration=3"), 137.235, 55.546, 0 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct metric_set ms = METRIC_SET_INIT;
		json_object *ops, *op, *v;
		parse_ok(&dbench_ops, t[i].file, t[i].kv, &ms);
		assert_int_equal(ms.n, 2);
		assert_double(metric(&ms, "throughput", "MB/s", BETTER_HIGHER), t[i].mbs);
		assert_double(metric(&ms, "max_latency", "ms", BETTER_LOWER), t[i].maxlat);
		assert_true(json_object_object_get_ex(ms.extra, "operations", &ops));
		if (t[i].nops)
			assert_int_equal(json_object_object_length(ops), t[i].nops);
		assert_true(json_object_object_get_ex(ops, "NTCreateX", &op));
		assert_true(json_object_object_get_ex(op, "count", &v));
		assert_true(json_object_get_int64(v) > 0);
		metric_set_release(&ms);
	}
	/* leading zeros are valid dbench output but not valid JSON numbers */
	{
		size_t len;
		char *buf = fixture("dbench", "t3-c2.txt", &len);
		char *z = memmem(buf, len, "     0.029     8.321", 20);
		struct metric_set ms = METRIC_SET_INIT;
		struct parse_error err;
		void *p = params_with(&dbench_ops, 2, DB2);
		assert_non_null(z);
		memcpy(z, "    00.029    08.321", 20);
		assert_int_equal(parse_buf(&dbench_ops, p, buf, len, &ms, &err), 0);
		assert_valid_json(ms.extra);
		metric_set_release(&ms);
		free(p);
		free(buf);
	}
	/* the extra JSON keeps dbench's digits */
	{
		struct metric_set ms = METRIC_SET_INIT;
		json_object *ops, *op;
		parse_ok(&dbench_ops, "t3-c2.txt", KV("clients=2", "duration=3"), &ms);
		json_object_object_get_ex(ms.extra, "operations", &ops);
		json_object_object_get_ex(ops, "Flush", &op);
		assert_string_equal(json_object_to_json_string_ext(op, JSON_C_TO_STRING_PLAIN),
				    "{\"count\":1688,\"avg_lat_ms\":1.772,\"max_lat_ms\":201.113}");
		metric_set_release(&ms);
	}
}

/* Expected metrics of a cyclictest fixture, computed independently (a
 * Python script over the same files, nearest-rank percentiles). */
struct ct_expect {
	const char *file;
	const char *const *kv;
	double min, avg, max, p50, p90, p99, p99_9, p99_99, ovf;
};

static void test_cyclictest_good(void **state)
{
	const struct ct_expect t[] = {
		{ "t2-h200.txt", KV("threads=2", "histogram=200", "duration=3"),
		  21, 391614.0 / 5979.0, 7884, 54, 77, 7884, 7884, 7884, 62 },
		{ "t1-h1000.txt", KV("threads=1", "histogram=1000", "duration=3"),
		  12, 81, 3031, 70, 83, 342, 995, 3031, 2 },
		{ "t1-h10000.txt", KV("threads=1", "histogram=10000", "duration=3"),
		  18, 80, 3585, 72, 80, 270, 1587, 3585, 0 },
		{ "t2-h20-overflow.txt", KV("threads=2", "histogram=20", "duration=3", "interval=500"),
		  10, (96.0 * 5855 + 99.0 * 5844) / 11699.0, 2548, 2548, 2548, 2548, 2548, 2548,
		  11692 },
		{ "t2-h40-rr.txt", KV("threads=2", "histogram=40", "duration=3", "policy=rr"),
		  16, 116.5, 3282, 3282, 3282, 3282, 3282, 3282, 5949 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct metric_set ms = METRIC_SET_INIT;
		parse_ok(&cyclictest_ops, t[i].file, t[i].kv, &ms);
		assert_int_equal(ms.n, 9);
		assert_double(metric(&ms, "lat_min", "us", BETTER_LOWER), t[i].min);
		assert_double(metric(&ms, "lat_avg", "us", BETTER_LOWER), t[i].avg);
		assert_double(metric(&ms, "lat_max", "us", BETTER_LOWER), t[i].max);
		assert_double(metric(&ms, "lat_p50", "us", BETTER_LOWER), t[i].p50);
		assert_double(metric(&ms, "lat_p90", "us", BETTER_LOWER), t[i].p90);
		assert_double(metric(&ms, "lat_p99", "us", BETTER_LOWER), t[i].p99);
		assert_double(metric(&ms, "lat_p99_9", "us", BETTER_LOWER), t[i].p99_9);
		assert_double(metric(&ms, "lat_p99_99", "us", BETTER_LOWER), t[i].p99_99);
		assert_double(metric(&ms, "overflows", "count", BETTER_LOWER), t[i].ovf);
		metric_set_release(&ms);
	}
}

/* The histogram is kept whole: dense counts per thread, summing to Total. */
static void test_cyclictest_extra(void **state)
{
	struct metric_set ms = METRIC_SET_INIT;
	json_object *x = NULL, *counts, *v;
	(void)state;
	parse_ok(&cyclictest_ops, "t2-h200.txt", KV("threads=2", "histogram=200", "duration=3"),
		 &ms);
	x = ms.extra;
	assert_non_null(x);
	assert_true(json_object_object_get_ex(x, "bucket_us", &v));
	assert_int_equal(json_object_get_int(v), 1);
	assert_true(json_object_object_get_ex(x, "buckets", &v));
	assert_int_equal(json_object_get_int(v), 200);
	assert_true(json_object_object_get_ex(x, "threads", &v));
	assert_int_equal(json_object_get_int(v), 2);
	assert_true(json_object_object_get_ex(x, "counts", &counts));
	assert_int_equal(json_object_array_length(counts), 2);
	{
		static const int64_t total[] = { 2946, 2971 };
		for (size_t t = 0; t < 2; t++) {
			json_object *row = json_object_array_get_idx(counts, t);
			int64_t sum = 0;
			assert_int_equal(json_object_array_length(row), 200);
			for (size_t i = 0; i < 200; i++)
				sum += json_object_get_int64(json_object_array_get_idx(row, i));
			assert_int_equal(sum, total[t]);
		}
	}
	assert_true(json_object_object_get_ex(x, "overflows", &v));
	assert_string_equal(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN), "[42,20]");
	assert_true(json_object_object_get_ex(x, "min", &v));
	assert_string_equal(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN), "[23,21]");
	assert_true(json_object_object_get_ex(x, "avg", &v));
	assert_string_equal(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN), "[69,62]");
	assert_true(json_object_object_get_ex(x, "max", &v));
	assert_string_equal(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN),
			    "[6022,7884]");
	metric_set_release(&ms);
}

/* ---- rejected outputs ------------------------------------------------- */

struct bad {
	const struct workload_ops *w;
	const char *file;
	const char *const *kv;
	int line;
	const char *msg;
};

static const struct bad bad_outputs[] = {
	/* hackbench, from process-socket.txt */
	{ HB, "bad-empty.txt", NOKV, 1, "no hackbench output" },
	{ HB, "bad-cut-midline.txt", NOKV, 3, "ends mid-line" },
	{ HB, "bad-no-time.txt", NOKV, 3, "no 'Time:' line" },
	{ HB, "bad-two-times.txt", NOKV, 4, "second 'Time:' line" },
	{ HB, "bad-negative.txt", NOKV, 3, "bad time" },
	{ HB, "bad-garbage.txt", NOKV, 3, "bad time" },
	{ HB, "bad-nan.txt", NOKV, 3, "bad time" },
	{ HB, "bad-inf.txt", NOKV, 3, "bad time" },
	{ HB, "bad-huge.txt", NOKV, 3, "bad time" },
	{ HB, "bad-zero.txt", NOKV, 3, "must be positive" },
	{ HB, "bad-binary.txt", NOKV, 2, "control byte 0x00" },
	{ HB, "bad-groups.txt", NOKV, 1, "ran 3 groups" },
	{ HB, "bad-loops.txt", NOKV, 2, "passed 20 messages" },
	{ HB, "bad-extra-line.txt", NOKV, 3, "unexpected line 'Segmentation fault'" },
	/* real outputs of other runs than the params describe */
	{ HB, "thread-socket.txt", NOKV, 1, "threaded mode, expected process" },
	{ HB, "process-socket.txt", KV("mode=thread"), 1, "process mode, expected threaded" },
	{ HB, "process-socket.txt", KV("fds=10"), 1, "expected 4 of 20" },
	{ HB, "process-socket.txt", KV("datasize=64"), 2, "expected 200 of 64" },
	{ HB, "small.txt", NOKV, 1, "ran 1 groups" },

	/* dbench, from t3-c2.txt */
	{ DB, "bad-empty.txt", DB2, 1, "no 'Running for' line" },
	{ DB, "bad-killed.txt", DB2, 10, "no operation table (dbench ended early)" },
	{ DB, "bad-cut-table.txt", DB2, 21, "operation table cut short" },
	{ DB, "bad-no-throughput.txt", DB2, 31, "no 'Throughput' line" },
	{ DB, "bad-cut-midline.txt", DB2, 31, "ends mid-line" },
	{ DB, "bad-clients.txt", DB2, 31, "ran 3 clients in 3 procs, expected 2" },
	{ DB, "bad-procs.txt", DB2, 31, "in 1 procs" },
	{ DB, "bad-negative.txt", DB2, 14, "bad number" },
	{ DB, "bad-huge.txt", DB2, 14, "bad number" },
	{ DB, "bad-nan.txt", DB2, 31, "malformed summary" },
	{ DB, "bad-dup-op.txt", DB2, 16, "'Close' listed twice" },
	{ DB, "bad-avg-above-max.txt", DB2, 14, "average latency above the maximum" },
	{ DB, "bad-duration.txt", DB2, 3, "ran for 4 s, expected 3" },
	{ DB, "bad-binary.txt", DB2, 8, "control byte" },
	{ DB, "bad-trailing.txt", DB2, 32, "unexpected line after the summary" },
	/* real: -t 1 ends before dbench's first whole second, so no figure */
	{ DB, "t1-c2-no-execute.txt", KV("clients=2", "duration=1"), 29, "throughput 0" },
	{ DB, "bad-no-header.txt", DB2, 29, "before the operation table" },
	{ DB, "t3-c2.txt", KV("clients=4", "duration=3"), 31, "expected 4" },
	{ DB, "t3-c2.txt", KV("clients=2", "duration=10"), 3, "expected 10" },
	{ DB, "t3-c2.txt", KV("clients=2", "duration=3", "loadfile=/x/client.txt"), 3,
	  "expected '/x/client.txt'" },
	{ DB, "t10-c4.txt", DB2, 3, "ran for 10 s" },

	/* cyclictest, from t2-h200.txt */
	{ CT, "bad-empty.txt", CT2, 1, "no '# Histogram' line" },
	{ CT, "nohist.txt", CT2, 2, "unexpected line before the histogram" },
	{ CT, "bad-cut-midhist.txt", CT2, 100, "ends mid-line" },
	{ CT, "bad-cut-before-summary.txt", CT2, 203, "ends before '# Total:'" },
	{ CT, "bad-no-max.txt", CT2, 206, "ends before '# Max Latencies:'" },
	{ CT, "bad-missing-max.txt", CT2, 206, "expected '# Max Latencies:' line" },
	{ CT, "bad-cut-thread.txt", CT2, 210, "ends before '# Thread 1:'" },
	{ CT, "bad-three-counts.txt", CT2, 50, "more than 2 counts" },
	{ CT, "bad-order.txt", CT2, 60, "bucket 70 out of order (expected 57)" },
	{ CT, "bad-bucket-range.txt", CT2, 202, "bucket 200 beyond the 200 requested" },
	{ CT, "bad-negative.txt", CT2, 99, "bad count '-00007'" },
	{ CT, "bad-huge.txt", CT2, 99, "bad count '99999999999999'" },
	{ CT, "bad-total.txt", CT2, 203, "thread 0: total 2947, but its histogram holds 2946" },
	{ CT, "bad-min.txt", CT2, 204, "thread 0: minimum 22" },
	{ CT, "bad-avg-threads.txt", CT2, 205, "'# Avg Latencies:' has more than 2 values" },
	{ CT, "bad-max.txt", CT2, 206, "thread 0: maximum 150" },
	{ CT, "bad-overflow-list.txt", CT2, 209, "thread 0 lists 41 overflows, expected 42" },
	{ CT, "bad-binary.txt", CT2, 41, "control byte" },
	{ CT, "bad-trailing.txt", CT2, 212, "unexpected line after the summary" },
	/* wrong thread counts and sizes for the params */
	{ CT, "t2-h200.txt", KV("threads=1", "histogram=200", "duration=3"), 3,
	  "more than 1 counts" },
	{ CT, "t1-h1000.txt", KV("threads=2", "histogram=1000", "duration=3"), 3,
	  "has 1 counts, expected 2 threads" },
	{ CT, "t2-h200.txt", KV("threads=2", "histogram=100", "duration=3"), 103,
	  "bucket 100 beyond the 100 requested" },
	{ CT, "t2-h200.txt", KV("threads=2", "histogram=300", "duration=3"), 203,
	  "histogram ends at bucket 200, expected 300 buckets" },
	/* 2988 samples cannot come from a 1 s run at 10 ms (at most 1200) */
	{ CT, "t2-h200.txt", KV("threads=2", "histogram=200", "duration=1", "interval=10000"),
	  207, "thread 0: 2988 samples, more than the run can take" },
};

static void test_bad_outputs(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_outputs) / sizeof(bad_outputs[0]); i++) {
		const struct bad *b = &bad_outputs[i];
		struct metric_set ms = METRIC_SET_INIT;
		struct parse_error err;
		size_t len;
		char *buf = fixture(b->w->name, b->file, &len);
		void *p = params_with(b->w, 2, b->kv);

		if (!parse_buf(b->w, p, buf, len, &ms, &err))
			fail_msg("%s/%s accepted", b->w->name, b->file);
		if ((b->line && err.line != b->line) || !strstr(err.msg, b->msg))
			fail_msg("%s/%s: got line %d '%s', want line %d '%s'", b->w->name, b->file,
				 err.line, err.msg, b->line, b->msg);
		free(buf);
		free(p);
	}
}

/* ---- kbuild ------------------------------------------------------------ */

/* make's stdout from a real guest build of kernel/locking/ (rt-stock,
 * TCG): nine objects compiled, the archive linked. */
static void test_kbuild(void **state)
{
	struct metric_set ms = METRIC_SET_INIT;
	struct parse_error err;
	size_t len;
	char *buf;
	void *p;
	char e[256];
	(void)state;
	parse_ok(&kbuild_ops, "locking.txt", KV("target=kernel/locking/"), &ms);
	/* the times come from the agent, not from make's output */
	assert_int_equal(ms.n, 0);
	assert_int_equal(json_object_get_int(json_object_object_get(ms.extra, "compiled")), 9);
	assert_int_equal(json_object_get_int(json_object_object_get(ms.extra, "linked")), 1);
	metric_set_release(&ms);
	/* a clean build that compiled nothing is no success ... */
	buf = fixture("kbuild", "nothing.txt", &len);
	p = params_with(&kbuild_ops, 2, KV("target=kernel/locking/"));
	assert_int_equal(parse_buf(&kbuild_ops, p, buf, len, &ms, &err), -1);
	assert_non_null(strstr(err.msg, "compiled nothing"));
	free(p);
	/* ... but an incremental one (clean = no) may have nothing to do */
	p = params_with(&kbuild_ops, 2, KV("target=kernel/locking/", "clean=no"));
	assert_int_equal(parse_buf(&kbuild_ops, p, buf, len, &ms, &err), 0);
	metric_set_release(&ms);
	free(p);
	free(buf);
	buf = fixture("kbuild", "bad-binary.txt", &len);
	p = params_with(&kbuild_ops, 2, NOKV);
	assert_int_equal(parse_buf(&kbuild_ops, p, buf, len, &ms, &err), -1);
	assert_int_equal(err.line, 2);
	free(p);
	free(buf);
	/* targets: vmlinux, directories, objects; nothing that escapes the tree */
	assert_int_equal(kbuild_targets_check("vmlinux", e, sizeof(e)), 0);
	assert_int_equal(kbuild_targets_check("kernel/locking/ mm/slub.o fs/ext4/", e, sizeof(e)), 0);
	assert_int_equal(kbuild_targets_check("", e, sizeof(e)), -1);
	assert_non_null(strstr(e, "empty"));
	assert_int_equal(kbuild_targets_check("../etc/", e, sizeof(e)), -1);
	assert_int_equal(kbuild_targets_check("/usr/", e, sizeof(e)), -1);
	assert_int_equal(kbuild_targets_check("kernel/locking", e, sizeof(e)), -1);
	assert_non_null(strstr(e, "ending in '/'"));
	assert_int_equal(kbuild_targets_check("clean", e, sizeof(e)), -1);
	assert_int_equal(kbuild_targets_check("a/;rm/", e, sizeof(e)), -1);
	/* options and cross-checks */
	opt_rejects(&kbuild_ops, "prepare", "sometimes", "must be one of host, guest, timed");
	opt_rejects(&kbuild_ops, "jobs", "0", "1..1024");
	check_rejects(&kbuild_ops, KV("config=my.config"), "absolute path");
	check_rejects(&kbuild_ops, KV("config=/nonexistent/kbench.config"), "No such file");
	check_rejects(&kbuild_ops, KV("target=kernel/locking"), "ending in '/'");
	check_rejects(&cyclictest_ops, KV("load=kbuild", "load_target=../x/"), "'load_target' goal");
	check_rejects(&cyclictest_ops, KV("load=kbuild", "load_target=vmlinux"), "directories or objects");
}

/* ---- percentiles ------------------------------------------------------ */

static void test_percentiles(void **state)
{
	static const uint64_t h[] = { 0, 10, 20, 30, 40 }; /* 100 samples */
	static const uint64_t o[] = { 5, 5 };               /* + 10 overflows */
	static const uint64_t edge[] = { 9999, 1 };
	uint64_t huge[] = { UINT64_MAX, 1 };
	double v = -1;
	(void)state;

	assert_int_equal(hist_percentile(h, 5, 0, 4, 500000, &v), 0);
	assert_double(v, 3); /* rank 50: 10 + 20 + 30 reach it at bucket 3 */
	assert_int_equal(hist_percentile(h, 5, 0, 4, 100000, &v), 0);
	assert_double(v, 1); /* rank 10 */
	assert_int_equal(hist_percentile(h, 5, 0, 4, 100001, &v), 0);
	assert_double(v, 2); /* rank 11 */
	assert_int_equal(hist_percentile(h, 5, 0, 4, 300000, &v), 0);
	assert_double(v, 2); /* rank 30 exactly */
	assert_int_equal(hist_percentile(h, 5, 0, 4, 900000, &v), 0);
	assert_double(v, 4);
	assert_int_equal(hist_percentile(h, 5, 0, 4, 1000000, &v), 0);
	assert_double(v, 4);
	assert_int_equal(hist_percentile(h, 5, 0, 4, 1, &v), 0);
	assert_double(v, 1); /* rank 1: lowest sample */

	/* overflows: 20 samples, 10 of them at or above 2 us, max 250 us */
	assert_int_equal(hist_percentile(o, 2, 10, 250, 500000, &v), 0);
	assert_double(v, 1);
	assert_int_equal(hist_percentile(o, 2, 10, 250, 510000, &v), 0);
	assert_double(v, 250);
	assert_int_equal(hist_percentile(o, 2, 10, 250, 999900, &v), 0);
	assert_double(v, 250);
	/* a max below the histogram's end: the overflow region's lower bound */
	assert_int_equal(hist_percentile(o, 2, 10, 1, 999900, &v), 0);
	assert_double(v, 2);
	/* only overflows */
	assert_int_equal(hist_percentile(o, 0, 7, 99, 500000, &v), 0);
	assert_double(v, 99);

	/* integer ranks: 0.9999 * 10000 is 9999 exactly (in floating point
	 * ceil() would give 10000 and answer bucket 1) */
	assert_int_equal(hist_percentile(edge, 2, 0, 1, 999900, &v), 0);
	assert_double(v, 0);
	assert_int_equal(hist_percentile(edge, 2, 0, 1, 999901, &v), 0);
	assert_double(v, 1);

	/* errors */
	v = -1;
	assert_int_equal(hist_percentile(h, 0, 0, 4, 500000, &v), -1);
	assert_int_equal(hist_percentile(h, 5, 0, 4, 0, &v), -1);
	assert_int_equal(hist_percentile(h, 5, 0, 4, 1000001, &v), -1);
	assert_int_equal(hist_percentile(h, 5, 0, NAN, 500000, &v), -1);
	assert_int_equal(hist_percentile(huge, 2, 0, 1, 500000, &v), -1);
	huge[1] = 0;
	assert_int_equal(hist_percentile(huge, 2, 1, 1, 500000, &v), -1);
	assert_double(v, -1);

	/* all five as metrics */
	{
		struct metric_set ms = METRIC_SET_INIT;
		assert_int_equal(hist_add_percentiles(&ms, o, 2, 10, 250), 0);
		assert_int_equal(ms.n, 5);
		assert_double(metric(&ms, "lat_p50", "us", BETTER_LOWER), 1);
		assert_double(metric(&ms, "lat_p90", "us", BETTER_LOWER), 250);
		assert_double(metric(&ms, "lat_p99_99", "us", BETTER_LOWER), 250);
		metric_set_release(&ms);
		assert_int_equal(hist_add_percentiles(&ms, h, 0, 0, 0), -1);
		assert_int_equal(ms.n, 0);
	}
}

/* ---- fuzzing ---------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

/* xorshift64*: deterministic, so a failure reproduces. */
static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

struct fuzz_case {
	const struct workload_ops *w;
	const char *file;
	const char *const *kv;
	size_t stride; /* prefixes tried: every STRIDE-th length */
};

static const struct fuzz_case fuzz_cases[] = {
	{ HB, "process-socket.txt", NOKV, 1 },
	{ HB, "thread-pipe.txt", KV("mode=thread", "transport=pipe"), 1 },
	{ DB, "t3-c2.txt", DB2, 1 },
	{ DB, "t10-c4.txt", KV("clients=4", "duration=10"), 1 },
	{ CT, "t2-h200.txt", CT2, 1 },
	{ CT, "t2-h20-overflow.txt", KV("threads=2", "histogram=20", "duration=3", "interval=500"), 1 },
	{ CT, "t1-h1000.txt", KV("threads=1", "histogram=1000", "duration=3"), 7 },
};

/* Every prefix short of the last data line must be rejected, and parse
 * must survive it: the copy has exactly the prefix's size. */
static void test_fuzz_truncation(void **state)
{
	(void)state;
	for (size_t c = 0; c < sizeof(fuzz_cases) / sizeof(fuzz_cases[0]); c++) {
		const struct fuzz_case *f = &fuzz_cases[c];
		size_t len, need;
		char *buf = fixture(f->w->name, f->file, &len);
		void *p = params_with(f->w, 2, f->kv);

		/* trailing blank lines carry nothing */
		need = len;
		while (need > 1 && buf[need - 1] == '\n' && buf[need - 2] == '\n')
			need--;
		for (size_t n = 0; n < len; n += f->stride) {
			struct metric_set ms = METRIC_SET_INIT;
			struct parse_error err;
			char *cut = xmalloc(n);
			int r;
			memcpy(cut, buf, n);
			r = parse_buf(f->w, p, cut, n, &ms, &err);
			if (n < need && r == 0)
				fail_msg("%s: prefix of %zu/%zu bytes accepted", f->file, n, len);
			metric_set_release(&ms);
			free(cut);
		}
		free(buf);
		free(p);
	}
}

/* Random byte edits: parse returns 0 or -1 with a sane line number, never
 * crashes (ASan/UBSan build), and accepted results stay finite. */
static void test_fuzz_mutation(void **state)
{
	static const char alphabet[] = "0123456789 \t\n.-#:x\0\377";
	(void)state;
	for (size_t c = 0; c < sizeof(fuzz_cases) / sizeof(fuzz_cases[0]); c++) {
		const struct fuzz_case *f = &fuzz_cases[c];
		size_t len, lines = 0;
		char *buf = fixture(f->w->name, f->file, &len);
		void *p = params_with(f->w, 2, f->kv);
		int rounds = f->stride > 1 ? 150 : 1500;

		for (size_t i = 0; i < len; i++)
			lines += buf[i] == '\n';
		for (int round = 0; round < rounds; round++) {
			struct metric_set ms = METRIC_SET_INIT;
			struct parse_error err;
			size_t n = len + 8;
			char *m = xmalloc(n);
			int edits = 1 + (int)(rng() % 4);

			memcpy(m, buf, len);
			n = len;
			for (int e = 0; e < edits && n; e++) {
				size_t at = (size_t)(rng() % n);
				switch (rng() % 4) {
				case 0: /* replace */
					m[at] = alphabet[rng() % (sizeof(alphabet) - 1)];
					break;
				case 1: /* delete */
					memmove(m + at, m + at + 1, n - at - 1);
					n--;
					break;
				case 2: /* insert */
					if (n < len + 8) {
						memmove(m + at + 1, m + at, n - at);
						m[at] = alphabet[rng() % (sizeof(alphabet) - 1)];
						n++;
					}
					break;
				case 3: /* a long run of digits */
					for (size_t k = at; k < n && k < at + 12; k++)
						m[k] = '9';
					break;
				}
			}
			{
				char *exact = xmalloc(n);
				memcpy(exact, m, n);
				if (parse_buf(f->w, p, exact, n, &ms, &err))
					assert_true(err.line >= 0 && (size_t)err.line <= lines + 10);
				for (size_t k = 0; k < ms.n; k++)
					assert_true(isfinite(ms.v[k].value) && ms.v[k].value >= 0);
				if (ms.extra)
					assert_valid_json(ms.extra);
				free(exact);
			}
			metric_set_release(&ms);
			free(m);
		}
		free(buf);
		free(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_headlines),
		cmocka_unit_test(test_headline_is_produced),
		cmocka_unit_test(test_tools),
		cmocka_unit_test(test_deps_list),
		cmocka_unit_test(test_schema_enum),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_guest_cmd),
		cmocka_unit_test(test_opts_hackbench),
		cmocka_unit_test(test_opts_dbench),
		cmocka_unit_test(test_opts_cyclictest),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_commands),
		cmocka_unit_test(test_prepare),
		cmocka_unit_test(test_kbuild),
		cmocka_unit_test(test_hackbench_good),
		cmocka_unit_test(test_dbench_good),
		cmocka_unit_test(test_cyclictest_good),
		cmocka_unit_test(test_cyclictest_extra),
		cmocka_unit_test(test_bad_outputs),
		cmocka_unit_test(test_percentiles),
		cmocka_unit_test(test_fuzz_truncation),
		cmocka_unit_test(test_fuzz_mutation),
		cmocka_unit_test(test_kbuild_target),
		cmocka_unit_test(test_kbuild_target_script),
	};
	kb_quiet = 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
