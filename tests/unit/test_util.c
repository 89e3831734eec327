/* test_util.c - core/util.c's file writing: write_file_atomic leaves the
 * whole file or the old one, and makes the rename itself durable by
 * syncing the directory that holds the name. fsync is replaced here (the
 * test's definition wins over libc's for util.c's calls) to see what
 * gets synced. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/util.h"

static int dir_syncs, file_syncs;
static dev_t synced_dev;
static ino_t synced_ino;

int fsync(int fd)
{
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		dir_syncs++;
		synced_dev = st.st_dev;
		synced_ino = st.st_ino;
	} else {
		file_syncs++;
	}
	return (int)syscall(SYS_fsync, fd);
}

static void assert_synced_dir(const char *dir)
{
	struct stat st;
	assert_int_equal(stat(dir, &st), 0);
	assert_true(dir_syncs >= 1);
	assert_true(synced_dev == st.st_dev && synced_ino == st.st_ino);
}

static void assert_content(const char *path, const char *want)
{
	struct strbuf sb = STRBUF_INIT;
	assert_int_equal(read_file(path, &sb, 4096), 0);
	assert_string_equal(sb.buf ? sb.buf : "", want);
	sb_release(&sb);
}

/* Only the named file is left: no temporary beside it. */
static void assert_alone(const char *dir, const char *name)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			assert_string_equal(e->d_name, name);
	closedir(d);
}

static void test_atomic_syncs_dir(void **state)
{
	char dir[] = "/tmp/kbench-util.XXXXXX", sub[64], path[128];
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(path, sizeof(path), "%s/file", sub);
	dir_syncs = file_syncs = 0;
	assert_int_equal(write_file_atomic(path, "one\n", 4), 0);
	assert_int_equal(file_syncs, 1);
	assert_synced_dir(sub);
	assert_content(path, "one\n");
	/* replacing an existing file: the new content, nothing beside it */
	dir_syncs = 0;
	assert_int_equal(write_file_atomic(path, "two\n", 4), 0);
	assert_synced_dir(sub);
	assert_content(path, "two\n");
	assert_alone(sub, "file");
	assert_int_equal(rm_rf(dir), 0);
}

/* A bare name: its directory is the current one. */
static void test_atomic_relative(void **state)
{
	char dir[] = "/tmp/kbench-util.XXXXXX", cwd[4096];
	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	dir_syncs = 0;
	assert_int_equal(write_file_atomic("bare", "x", 1), 0);
	assert_synced_dir(".");
	assert_content("bare", "x");
	assert_alone(".", "bare");
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(rm_rf(dir), 0);
}

/* A directory that is not there: an error, and nothing synced. */
static void test_atomic_missing_dir(void **state)
{
	(void)state;
	dir_syncs = 0;
	assert_int_equal(write_file_atomic("/nonexistent-kbench/dir/file", "x", 1), -1);
	assert_int_equal(dir_syncs, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_atomic_syncs_dir),
		cmocka_unit_test(test_atomic_relative),
		cmocka_unit_test(test_atomic_missing_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
