/* worktree.c - a user's tree mirrored by hard links into a work copy the
 * variant's patches are applied to, and the object dir's clean-up after an
 * interrupted build. Both exist so that the steps of a bisection build in
 * one place and make rebuilds only what a commit changed. */
#include "kernel/worktree.h"
#include "core/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STAMP ".kbench-building"

static int sync_dir(const char *src, const char *dst, int top);

static int same_inode(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* One entry NAME of SRC into DST: a directory recursively, anything else
 * as a hard link of SRC's inode */
static int sync_entry(const char *src, const char *dst, const char *name)
{
	char s[KB_PATH_MAX], d[KB_PATH_MAX];
	struct stat ss, ds;
	int have;
	snprintf(s, sizeof(s), "%s/%s", src, name);
	snprintf(d, sizeof(d), "%s/%s", dst, name);
	if (lstat(s, &ss))
		return error("cannot stat '%s': %s", s, strerror(errno));
	have = lstat(d, &ds) == 0;
	if (S_ISDIR(ss.st_mode)) {
		if (have && !S_ISDIR(ds.st_mode) && unlink(d))
			return error("cannot remove '%s': %s", d, strerror(errno));
		if ((!have || !S_ISDIR(ds.st_mode)) && mkdir(d, 0755))
			return error("cannot create '%s': %s", d, strerror(errno));
		return sync_dir(s, d, 0);
	}
	if (have && same_inode(&ss, &ds))
		return 0;
	if (have && rm_rf(d))
		return -1;
	if (link(s, d))
		return error("cannot link '%s' to '%s': %s", s, d, strerror(errno));
	return 0;
}

/* FN(NAME, SRC, DST, TOP) for each entry NAME of WALK (SRC or DST) but
 * "." and "..", until one returns non-zero: that is the result */
typedef int entry_fn(const char *name, const char *src, const char *dst, int top);

static int walk_dir(const char *walk, entry_fn *fn, const char *src, const char *dst, int top)
{
	DIR *dir = opendir(walk);
	struct dirent *de;
	int r = 0;
	if (!dir)
		return error("cannot read '%s': %s", walk, strerror(errno));
	while (!r && (de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		r = fn(de->d_name, src, dst, top);
	}
	closedir(dir);
	return r;
}

/* DST's entry NAME removed if SRC does not have it (or it is left out) */
static int prune_entry(const char *name, const char *src, const char *dst, int top)
{
	char s[KB_PATH_MAX], d[KB_PATH_MAX];
	struct stat ss;
	snprintf(s, sizeof(s), "%s/%s", src, name);
	snprintf(d, sizeof(d), "%s/%s", dst, name);
	if ((top && !strcmp(name, ".git")) || (lstat(s, &ss) && errno == ENOENT))
		return rm_rf(d);
	return 0;
}

/* SRC's entry NAME into DST, but the top-level .git */
static int sync_one(const char *name, const char *src, const char *dst, int top)
{
	return top && !strcmp(name, ".git") ? 0 : sync_entry(src, dst, name);
}

static int sync_dir(const char *src, const char *dst, int top)
{
	int r = walk_dir(src, sync_one, src, dst, top);
	return r ? r : walk_dir(dst, prune_entry, src, dst, top);
}

int worktree_sync(const char *src, const char *dst)
{
	if (mkdir_p(dst, 0755))
		return -1;
	return sync_dir(src, dst, 1);
}

/* The path a "+++ " line of a -p1 patch names, cut into OUT; 0, or 1 for
 * none (/dev/null, no directory part, "..") */
static int patch_target(const char *line, char *out, size_t n)
{
	const char *p = line + 4, *slash = strchr(p, '/');
	size_t len;
	if (!strncmp(p, "/dev/null", 9) || !slash)
		return 1;
	len = strcspn(slash + 1, "\t\n ");
	snprintf(out, n, "%.*s", (int)len, slash + 1);
	return !len || strstr(out, "..") ? 1 : 0;
}

int worktree_keep_mtimes(const char *src, const char *dst, const char *patch)
{
	struct strbuf sb = STRBUF_INIT;
	struct stat ps;
	char *save = NULL;
	int ret = -1;
	if (stat(patch, &ps) || read_file(patch, &sb, 64u << 20))
		goto out;
	for (char *l = strtok_r(sb.buf ? sb.buf : (char *)"", "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		char rel[KB_PATH_MAX], s[KB_PATH_MAX * 2], d[KB_PATH_MAX * 2];
		struct stat ss, ds;
		struct timespec t[2];
		if (strncmp(l, "+++ ", 4) || patch_target(l, rel, sizeof(rel)))
			continue;
		snprintf(s, sizeof(s), "%s/%s", src, rel);
		snprintf(d, sizeof(d), "%s/%s", dst, rel);
		if (lstat(d, &ds))
			continue; /* the patch removed it */
		if (lstat(s, &ss) == 0 && same_inode(&ss, &ds))
			continue; /* not replaced: never touch the user's inode */
		t[0] = t[1] = lstat(s, &ss) == 0 ? ss.st_mtim : ps.st_mtim;
		if (utimensat(AT_FDCWD, d, t, AT_SYMLINK_NOFOLLOW)) {
			error("cannot set the time of '%s': %s", d, strerror(errno));
			goto out;
		}
	}
	ret = 0;
out:
	sb_release(&sb);
	return ret;
}

/* ---- the object dir after an interrupted build ---- */

static struct timespec scrub_since;
static int scrub_count;

static int newer(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

/* kbuild writes DIR/.NAME.cmd after NAME is complete */
static int vouched(const char *path, const struct stat *st)
{
	char cmd[KB_PATH_MAX + 8];
	const char *slash = strrchr(path, '/');
	struct stat cs;
	if (!slash)
		return 0;
	snprintf(cmd, sizeof(cmd), "%.*s/.%s.cmd", (int)(slash - path), path, slash + 1);
	return stat(cmd, &cs) == 0 && !newer(&st->st_mtim, &cs.st_mtim);
}

static int scrub_one(const char *path, const struct stat *st, int type, struct FTW *f)
{
	const char *name = path + f->base;
	if (type != FTW_F || !newer(&st->st_mtim, &scrub_since) || vouched(path, st))
		return 0;
	if (f->level == 1 && (!strcmp(name, ".config") || !strcmp(name, STAMP)))
		return 0;
	if (unlink(path) && errno != ENOENT)
		return error("cannot remove '%s': %s", path, strerror(errno));
	scrub_count++;
	return 0;
}

int objdir_begin(const char *obj)
{
	char stamp[KB_PATH_MAX];
	struct stat st;
	snprintf(stamp, sizeof(stamp), "%s/%s", obj, STAMP);
	if (stat(stamp, &st) == 0) {
		scrub_since = st.st_mtim;
		scrub_count = 0;
		if (nftw(obj, scrub_one, 32, FTW_PHYS))
			return -1;
		info("kbench: %s: an earlier build there did not finish: removed the %d files "
		     "it wrote that kbuild did not complete", obj, scrub_count);
	}
	return write_file_atomic(stamp, "", 0);
}

int objdir_end(const char *obj)
{
	char stamp[KB_PATH_MAX];
	snprintf(stamp, sizeof(stamp), "%s/%s", obj, STAMP);
	if (unlink(stamp) && errno != ENOENT)
		return error("cannot remove '%s': %s", stamp, strerror(errno));
	return 0;
}
