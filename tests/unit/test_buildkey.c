/* test_buildkey.c - what lets the commits of one user tree build in one
 * object dir (kernel/source.c's keys, kernel/worktree.c): the object
 * dir's key leaves out the commit and nothing else, the work copy mirrors
 * the tree by hard links (never touching the tree), a patched file keeps
 * the tree's time, and an interrupted build's leftovers are removed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "kernel/source.h"
#include "kernel/worktree.h"

static const struct build_key_in base_in = {
	.source = "ksrc-git:1111111111111111111111111111111111111111:clean+patches:0123456789abcdef",
	.location = "/home/dev/linux",
	.patchset = "patch a.patch 00ff\n",
	.base = 1,
	.compiler = "gcc (Debian 12.2.0-14) 12.2.0",
	.fragments = "fragment test-tiny 11aa\nfragment rt 22bb\n",
};

static void keys(const struct build_key_in *in, char inputs[65], char obj[65])
{
	kernel_build_keys(in, inputs, obj);
}

static void test_objdir_key_leaves_out_the_commit(void **state)
{
	char i1[65], o1[65], i2[65], o2[65];
	struct build_key_in in = base_in;
	(void)state;
	keys(&in, i1, o1);
	in.source = "ksrc-git:2222222222222222222222222222222222222222:clean+patches:fedcba9876543210";
	keys(&in, i2, o2);
	assert_string_not_equal(i1, i2); /* a commit is its own build */
	assert_string_equal(o1, o2);     /* in the same object dir */
	assert_int_equal(strlen(o1), 64);
}

static void test_objdir_key_has_everything_else(void **state)
{
	char i0[65], o0[65], i[65], o[65];
	struct build_key_in in;
	(void)state;
	keys(&base_in, i0, o0);
	in = base_in, in.location = "/home/dev/linux2";
	keys(&in, i, o);
	assert_string_not_equal(o, o0);
	assert_string_equal(i, i0); /* the inputs key is the content's, not the place's */
	in = base_in, in.patchset = "patch a.patch 00fe\n";
	keys(&in, i, o);
	assert_string_not_equal(o, o0);
	in = base_in, in.base = 0;
	keys(&in, i, o);
	assert_string_not_equal(o, o0);
	in = base_in, in.compiler = "gcc 13";
	keys(&in, i, o);
	assert_string_not_equal(o, o0);
	in = base_in, in.fragments = "fragment test-tiny 11aa\n";
	keys(&in, i, o);
	assert_string_not_equal(o, o0);
}

/* Debian's tree: no object dir key, and the inputs key as before (the
 * caches of earlier versions keep hitting) */
static void test_debian_keys_unchanged(void **state)
{
	const char *want = "kbench-build 1\ninputs\nsource debian:linux-source-6.12_6.12.117-1\n"
			   "base 1\ncompiler gcc 12\nfragment test-tiny 11aa\n";
	struct build_key_in in = { "debian:linux-source-6.12_6.12.117-1", NULL, "", 1, "gcc 12",
				   "fragment test-tiny 11aa\n" };
	char i[65], o[65], h[65];
	(void)state;
	keys(&in, i, o);
	sha256_hex(want, strlen(want), h);
	assert_string_equal(i, h);
	assert_string_equal(o, "");
}

static char tmpdir[] = "/tmp/kbench-buildkey.XXXXXX";

static void put(const char *rel, const char *text)
{
	char p[KB_PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", tmpdir, rel);
	assert_int_equal(write_file_atomic(p, text, strlen(text)), 0);
}

static ino_t ino(const char *rel)
{
	char p[KB_PATH_MAX];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s", tmpdir, rel);
	return lstat(p, &st) ? 0 : st.st_ino;
}

static int setup(void **state)
{
	char p[KB_PATH_MAX];
	(void)state;
	strcpy(tmpdir, "/tmp/kbench-buildkey.XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(p, sizeof(p), "%s/tree/.git", tmpdir);
	mkdir_p(p, 0755);
	snprintf(p, sizeof(p), "%s/tree/sub/deeper", tmpdir);
	return mkdir_p(p, 0755);
}

static int teardown(void **state)
{
	(void)state;
	return rm_rf(tmpdir);
}

static void test_sync_mirrors_by_links(void **state)
{
	char src[KB_PATH_MAX], dst[KB_PATH_MAX];
	(void)state;
	snprintf(src, sizeof(src), "%s/tree", tmpdir);
	snprintf(dst, sizeof(dst), "%s/work", tmpdir);
	put("tree/a.c", "a1\n");
	put("tree/sub/deeper/b.c", "b1\n");
	put("tree/.git/HEAD", "ref\n");
	assert_int_equal(worktree_sync(src, dst), 0);
	assert_true(ino("work/a.c") == ino("tree/a.c"));
	assert_true(ino("work/sub/deeper/b.c") == ino("tree/sub/deeper/b.c"));
	assert_true(ino("work/.git") == 0); /* the top .git is left out */
	/* the tree moves on: a.c rewritten (a new inode, as git checkout
	 * writes it), b.c deleted, c.c added; the work copy had a patched
	 * a.c and a file a patch created */
	put("work/a.c", "patched\n");
	put("work/new.h", "created by a patch\n");
	put("tree/a.c", "a2\n");
	put("tree/c.c", "c1\n");
	{
		char p[KB_PATH_MAX];
		snprintf(p, sizeof(p), "%s/tree/sub/deeper/b.c", tmpdir);
		unlink(p);
	}
	assert_int_equal(worktree_sync(src, dst), 0);
	assert_true(ino("work/a.c") == ino("tree/a.c"));
	assert_true(ino("work/c.c") == ino("tree/c.c"));
	assert_true(ino("work/sub/deeper/b.c") == 0);
	assert_true(ino("work/new.h") == 0);
	assert_true(ino("work/sub/deeper") != 0);
}

static void test_patched_files_keep_the_trees_time(void **state)
{
	char src[KB_PATH_MAX], dst[KB_PATH_MAX], patch[KB_PATH_MAX], p[KB_PATH_MAX];
	struct stat ts, ws, ps, us;
	struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	(void)state;
	snprintf(src, sizeof(src), "%s/tree", tmpdir);
	snprintf(dst, sizeof(dst), "%s/work", tmpdir);
	snprintf(patch, sizeof(patch), "%s/x.patch", tmpdir);
	put("tree/a.c", "a1\n");
	put("tree/u.c", "untouched\n");
	snprintf(p, sizeof(p), "%s/tree/a.c", tmpdir);
	assert_int_equal(utimensat(AT_FDCWD, p, old, 0), 0);
	assert_int_equal(worktree_sync(src, dst), 0);
	/* as patch(1) does: the patched file is a new inode */
	put("work/a.c", "a1\npatched\n");
	put("work/new.h", "new\n");
	put("x.patch", "--- a/a.c\n+++ b/a.c\t2024-01-01\n@@ -1 +1,2 @@\n a1\n+patched\n"
		       "--- /dev/null\n+++ b/new.h\n@@ -0,0 +1 @@\n+new\n+++ ../../escape\n");
	assert_int_equal(worktree_keep_mtimes(src, dst, patch), 0);
	snprintf(p, sizeof(p), "%s/tree/a.c", tmpdir);
	assert_int_equal(stat(p, &ts), 0);
	snprintf(p, sizeof(p), "%s/work/a.c", tmpdir);
	assert_int_equal(stat(p, &ws), 0);
	assert_int_equal(ws.st_mtim.tv_sec, 1000000000);
	assert_int_equal(ts.st_mtim.tv_sec, 1000000000);
	snprintf(p, sizeof(p), "%s/work/new.h", tmpdir);
	assert_int_equal(stat(p, &ws), 0);
	assert_int_equal(stat(patch, &ps), 0);
	assert_int_equal(ws.st_mtim.tv_sec, ps.st_mtim.tv_sec);
	snprintf(p, sizeof(p), "%s/work/u.c", tmpdir);
	assert_int_equal(stat(p, &us), 0);
	assert_true(us.st_mtim.tv_sec != 1000000000);
}

static void test_interrupted_build_leftovers_removed(void **state)
{
	char obj[KB_PATH_MAX], p[KB_PATH_MAX];
	struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	(void)state;
	snprintf(obj, sizeof(obj), "%s/obj", tmpdir);
	assert_int_equal(mkdir_p(obj, 0755), 0);
	put("obj/done.o", "old build\n");
	snprintf(p, sizeof(p), "%s/obj/done.o", tmpdir);
	utimensat(AT_FDCWD, p, old, 0);
	assert_int_equal(objdir_begin(obj), 0); /* no stamp: nothing removed */
	assert_true(ino("obj/done.o") != 0);
	usleep(10000);
	put("obj/.config", "CONFIG_X=y\n");      /* copied in by kbench: kept */
	put("obj/half.o", "partial\n");          /* no .cmd: removed */
	put("obj/whole.o", "complete\n");        /* its .cmd after it: kept */
	put("obj/.whole.o.cmd", "savedcmd\n");
	put("obj/.stale.o.cmd", "savedcmd\n");   /* an older .cmd ... */
	usleep(10000);
	put("obj/stale.o", "partial\n");         /* ... does not vouch for a newer object */
	assert_int_equal(objdir_begin(obj), 0); /* the stamp of the interrupted build */
	assert_true(ino("obj/half.o") == 0);
	assert_true(ino("obj/stale.o") == 0);
	assert_true(ino("obj/whole.o") != 0);
	assert_true(ino("obj/.config") != 0);
	assert_true(ino("obj/done.o") != 0);
	assert_int_equal(objdir_end(obj), 0);
	assert_true(ino("obj/.kbench-building") == 0);
	put("obj/later.o", "after a finished build\n");
	assert_int_equal(objdir_begin(obj), 0); /* no stamp: kept */
	assert_true(ino("obj/later.o") != 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_objdir_key_leaves_out_the_commit),
		cmocka_unit_test(test_objdir_key_has_everything_else),
		cmocka_unit_test(test_debian_keys_unchanged),
		cmocka_unit_test_setup_teardown(test_sync_mirrors_by_links, setup, teardown),
		cmocka_unit_test_setup_teardown(test_patched_files_keep_the_trees_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_interrupted_build_leftovers_removed, setup, teardown),
	};
	kb_quiet = 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
