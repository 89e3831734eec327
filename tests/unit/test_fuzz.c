/* test_fuzz.c - replay every fuzz seed (fuzz/corpus/<target>/) and every
 * input a fuzzer ever crashed on (tests/fixtures/fuzz/<target>/) through
 * the fuzz targets (fuzz/targets.c) in the ordinary builds, plain and
 * ASan/UBSan: the regressions stay covered where clang is not installed.
 * A target abort()s when a parser breaks its contract. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../fuzz/targets.h"
#include "agent/proto.h"
#include "backend/guest.h"
#include "core/util.h"
#include "core/workload.h"

#ifndef KB_SRCDIR
#error "KB_SRCDIR must name the source tree"
#endif

/* Run every file of DIR through T; the number of files. */
static int replay_dir(const struct fuzz_target *t, const char *dir)
{
	struct dirent **ents = NULL;
	int n = scandir(dir, &ents, NULL, alphasort), files = 0;

	for (int i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.') {
			struct strbuf sb = STRBUF_INIT;
			char *path = xasprintf("%s/%s", dir, ents[i]->d_name);
			uint8_t *buf;
			if (read_file(path, &sb, 0))
				fail_msg("cannot read %s", path);
			/* exactly its size, so ASan sees a read past the end */
			buf = xmalloc(sb.len ? sb.len : 1);
			if (sb.len)
				memcpy(buf, sb.buf, sb.len);
			print_message("%s: %s\n", t->name, path + strlen(KB_SRCDIR) + 1);
			assert_int_equal(t->run(buf, sb.len), 0);
			free(buf);
			sb_release(&sb);
			free(path);
			files++;
		}
		free(ents[i]);
	}
	free(ents);
	return files;
}

/* Every target has seeds, and they and its crash fixtures pass. */
static void test_replay(void **state)
{
	(void)state;
	fuzz_init();
	for (const struct fuzz_target *t = fuzz_targets; t->name; t++) {
		char *seeds = xasprintf("%s/fuzz/corpus/%s", KB_SRCDIR, t->name);
		char *crashes = xasprintf("%s/tests/fixtures/fuzz/%s", KB_SRCDIR, t->name);
		int n = replay_dir(t, seeds);
		if (!n)
			fail_msg("no seed corpus in %s", seeds);
		replay_dir(t, crashes);
		free(seeds);
		free(crashes);
	}
}

/* Every workload's parser is a target (fuzz/targets.c and the Makefile's
 * FUZZ_NAMES derive them from workloads/list.h), with a seed corpus. */
static void test_workload_targets(void **state)
{
	(void)state;
	for (const struct workload_ops *const *w = workload_all(); *w; w++)
		if (!fuzz_target_find((*w)->name))
			fail_msg("workload '%s' has no fuzz target (fuzz/targets.c)", (*w)->name);
}

/* Inputs no file holds: nothing at all, and one byte of each kind. */
static void test_tiny_inputs(void **state)
{
	static const uint8_t bytes[] = { 0, '\n', '@', '[', '{', 'a', 0xff };
	(void)state;
	fuzz_init();
	for (const struct fuzz_target *t = fuzz_targets; t->name; t++) {
		uint8_t *one = xmalloc(1);
		assert_int_equal(t->run(one, 0), 0);
		for (size_t i = 0; i < sizeof(bytes); i++) {
			one[0] = bytes[i];
			assert_int_equal(t->run(one, 1), 0);
		}
		free(one);
	}
}

/* One agent line: exactly one JSON object with a string op, else a reason
 * that quotes the line printably. */
static void test_proto_line(void **state)
{
	static const struct {
		const char *line;
		const char *why; /* NULL: accepted */
	} cases[] = {
		{ "{\"op\":\"result\",\"id\":3}", NULL },
		{ "{\"op\":\"hello\",\"proto\":1} \r", NULL },
		{ "{\"op\":\"hello\"} {\"op\":\"x\"}", "bytes after its JSON object" },
		{ "{\"op\":\"hello\"}junk", "bytes after its JSON object" },
		{ "[{\"op\":\"hello\"}]", "not a JSON object: '[{\"op\":\"hello\"}]'" },
		{ "{\"op\":\"hel", "not a JSON object" },
		{ "{\"id\":1}", "without op" },
		{ "{\"op\":7}", "without op" },
		{ "\x01\x7f\xff{", "not a JSON object: '???{'" },
		{ "", "not a JSON object" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_object *o = (json_object *)1;
		char err[256] = "";
		int r = proto_parse_line(cases[i].line, strlen(cases[i].line), &o, err, sizeof(err));
		if (!cases[i].why) {
			assert_int_equal(r, 0);
			assert_non_null(o);
			json_object_put(o);
		} else {
			assert_int_equal(r, -1);
			assert_null(o);
			if (!strstr(err, cases[i].why))
				fail_msg("'%s': '%s' lacks '%s'", cases[i].line, err, cases[i].why);
		}
	}
}

/* The longest agent line taken is KB_PROTO_MAX_LINE bytes; one byte more
 * is refused naming the limit, before json-c sees it. */
static void test_proto_line_limit(void **state)
{
	size_t n = KB_PROTO_MAX_LINE;
	char *buf = malloc(n + 1), err[256] = "";
	json_object *o;
	(void)state;
	assert_non_null(buf);
	memset(buf, 'a', n + 1);
	memcpy(buf, "{\"op\":\"x\",\"pad\":\"", 17);
	memcpy(buf + n - 2, "\"}", 2);
	assert_int_equal(proto_parse_line(buf, n, &o, err, sizeof(err)), 0);
	json_object_put(o);
	memcpy(buf + n - 2, "a\"}", 3);
	assert_int_equal(proto_parse_line(buf, n + 1, &o, err, sizeof(err)), -1);
	assert_null(o);
	assert_non_null(strstr(err, "longer than 33554432 bytes"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay),
		cmocka_unit_test(test_workload_targets),
		cmocka_unit_test(test_tiny_inputs),
		cmocka_unit_test(test_proto_line),
		cmocka_unit_test(test_proto_line_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
