/* image.c - build the guest's initramfs and scratch disk.
 *
 * The initramfs holds: the static agent as /init, busybox with its applet
 * links, each workload program with the shared libraries ldd reports, the
 * data files workloads need (dbench's load file), and the kernel modules
 * the guest needs, in the load order modules.dep gives (decompressed on the
 * host so any kernel can load them). It is cached by content: the key hashes
 * the agent, every copied file and the kernel release.
 */
#include "backend/image.h"
#include "core/spawn.h"
#include "kernel/needs.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int mkparent(const char *path)
{
	char dir[KB_PATH_MAX];
	char *slash;
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	return mkdir_p(dir, 0755);
}

/* Copy host file SRC to the same path under STAGE. */
static int stage_copy(const char *stage, const char *src, unsigned mode)
{
	char dst[KB_PATH_MAX];
	snprintf(dst, sizeof(dst), "%s%s", stage, src);
	if (path_exists(dst))
		return 0;
	if (mkparent(dst))
		return -1;
	return copy_file(src, dst, mode);
}

/* Append the shared libraries of PROG (from ldd) to LIBS. */
static int libs_of(const char *prog, struct strvec *libs)
{
	const char *argv[] = { "ldd", prog, NULL };
	struct strbuf out = STRBUF_INIT;
	int ret = run_capture(argv, 60, &out);
	char *save = NULL;
	/* ldd exits 1 for static binaries ("not a dynamic executable") */
	if (ret < 0) {
		sb_release(&out);
		return error("ldd '%s' failed", prog);
	}
	for (char *l = strtok_r(out.buf ? out.buf : (char *)"", "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		char *p = strstr(l, "=> ");
		char path[KB_PATH_MAX];
		if (strstr(l, "not found")) {
			error("'%s' needs a library that is missing: %s", prog, l);
			sb_release(&out);
			return -1;
		}
		p = p ? p + 3 : l;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '/')
			continue;
		snprintf(path, sizeof(path), "%.*s", (int)strcspn(p, " \t("), p);
		strvec_push(libs, path);
	}
	sb_release(&out);
	return 0;
}

/* The modules the guest needs (kernel/needs.c: those of its needs that
 * are modules of this kernel), dependencies first, into ORDER. */
static int resolve_modules(const struct kernel_image *k, int hostroot, struct strvec *order)
{
	char depfile[KB_PATH_MAX];
	struct strbuf dep = STRBUF_INIT;
	struct kneed_result *res = xcalloc(kneeds_count() + 1, sizeof(*res));
	int ret = -1;
	snprintf(depfile, sizeof(depfile), "%s/modules.dep", k->moddir);
	if (read_file(depfile, &dep, 64u << 20) || kernel_needs_check(k, hostroot, res) < 0)
		goto out;
	ret = kneeds_modules(dep.buf ? dep.buf : "", res, hostroot, order);
out:
	free(res);
	sb_release(&dep);
	return ret;
}

/* Decompress (or copy) module REL from MODDIR into the stage; return the
 * guest path in OUT. */
static int stage_module(const char *stage, const struct kernel_image *k, const char *rel,
			char *out, size_t outlen)
{
	char src[KB_PATH_MAX], dst[KB_PATH_MAX], name[KB_PATH_MAX];
	size_t l;
	snprintf(src, sizeof(src), "%s/%s", k->moddir, rel);
	snprintf(name, sizeof(name), "%s", rel);
	l = strlen(name);
	if (l > 3 && !strcmp(name + l - 3, ".xz"))
		name[l - 3] = '\0';
	snprintf(out, outlen, "/lib/modules/%s/%s", k->release, name);
	snprintf(dst, sizeof(dst), "%s%s", stage, out);
	if (mkparent(dst))
		return -1;
	if (l > 3 && !strcmp(rel + l - 3, ".xz")) {
		struct child c = CHILD_INIT;
		int r;
		strvec_push(&c.argv, "xz");
		strvec_push(&c.argv, "-dc");
		strvec_push(&c.argv, src);
		c.stdout_path = dst;
		c.timeout_s = 120;
		r = child_run(&c);
		child_release(&c);
		if (r)
			return error("cannot decompress module '%s' (xz exit %d)", src, r);
		return 0;
	}
	return copy_file(src, dst, 0644);
}

static FILE *list_fp;
static size_t stage_len;

static int list_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	if (strlen(p) > stage_len && fprintf(list_fp, ".%s\n", p + stage_len) < 0)
		return -1; /* stops the walk */
	return 0;
}

int image_file_list(const char *stage, const char *list)
{
	int r, saved;
	list_fp = fopen(list, "w");
	if (!list_fp)
		return error("cannot write '%s': %s", list, strerror(errno));
	stage_len = strlen(stage);
	r = nftw(stage, list_one, 32, FTW_PHYS);
	saved = errno;
	if (fclose(list_fp)) {
		list_fp = NULL;
		return error("cannot write '%s': %s", list, strerror(errno));
	}
	list_fp = NULL;
	if (r)
		return error("cannot list '%s' into '%s': %s", stage, list,
			     r < 0 ? strerror(saved) : "write failed");
	return 0;
}

/* Write a newc cpio of STAGE to OUT with the cpio tool (no shell). */
static int make_cpio(const char *stage, const char *out)
{
	char list[KB_PATH_MAX];
	struct child c = CHILD_INIT;
	int ret;
	snprintf(list, sizeof(list), "%s.list", out);
	if (image_file_list(stage, list)) {
		unlink(list);
		return -1;
	}
	strvec_push(&c.argv, "cpio");
	strvec_push(&c.argv, "-o");
	strvec_push(&c.argv, "-H");
	strvec_push(&c.argv, "newc");
	strvec_push(&c.argv, "-R");
	strvec_push(&c.argv, "0:0");
	strvec_push(&c.argv, "--quiet");
	c.cwd = stage;
	c.stdin_path = list;
	c.stdout_path = out;
	c.timeout_s = 300;
	ret = child_run(&c);
	child_release(&c);
	unlink(list);
	if (ret)
		return error("cpio failed (exit %d) writing '%s'", ret, out);
	return 0;
}

static int hash_add_file(struct strbuf *key, const char *path)
{
	char h[65];
	if (sha256_file_hex(path, h))
		return -1;
	sb_addf(key, "%s %s\n", path, h);
	return 0;
}

/* The cache key: everything that ends up in the image (the programs'
 * libraries and the kernel's modules into LIBS and MODS on the way). */
static int image_key(const struct kernel_image *k, const struct image_needs *needs,
		     const char *agent, const char *busybox, struct strvec *libs,
		     struct strvec *mods, struct strbuf *key)
{
	sb_addf(key, "kbench-initramfs 2\nkernel %s %s\n", k->release, k->dir);
	if (hash_add_file(key, agent) || hash_add_file(key, busybox))
		return -1;
	for (size_t i = 0; i < needs->programs.n; i++) {
		if (!is_executable(needs->programs.v[i]))
			return error("'%s' is not installed (make deps installs it)",
				     needs->programs.v[i]);
		if (hash_add_file(key, needs->programs.v[i]) || libs_of(needs->programs.v[i], libs))
			return -1;
	}
	for (size_t i = 0; i < libs->n; i++)
		if (hash_add_file(key, libs->v[i]))
			return -1;
	for (size_t i = 0; i < needs->files.n; i++) {
		if (!path_exists(needs->files.v[i]))
			return error("'%s' is missing (make deps installs it)", needs->files.v[i]);
		if (hash_add_file(key, needs->files.v[i]))
			return -1;
	}
	if (k->moddir[0] && resolve_modules(k, IMAGE_NEEDS_KNEEDS(needs), mods))
		return -1;
	for (size_t i = 0; i < mods->n; i++)
		sb_addf(key, "module %s\n", mods->v[i]);
	return 0;
}

/* The image's skeleton: directories, the agent as /init, busybox and
 * its applet links (so a person debugging the image has a shell). */
static int stage_base(const char *stage, const char *agent, const char *busybox)
{
	static const char *const dirs[] = { "bin", "sbin", "usr/bin", "usr/sbin", "etc/kbench",
					    "proc", "sys", "dev", "tmp", "scratch", "root", NULL };
	const char *argv[] = { busybox, "--list", NULL };
	struct strbuf list = STRBUF_INIT;
	char tmp[KB_PATH_MAX], *save = NULL;
	for (int i = 0; dirs[i]; i++) {
		snprintf(tmp, sizeof(tmp), "%s/%s", stage, dirs[i]);
		if (mkdir_p(tmp, 0755))
			return -1;
	}
	snprintf(tmp, sizeof(tmp), "%s/init", stage);
	if (copy_file(agent, tmp, 0755))
		return -1;
	snprintf(tmp, sizeof(tmp), "%s/bin/busybox", stage);
	if (copy_file(busybox, tmp, 0755))
		return -1;
	if (run_capture(argv, 30, &list)) {
		sb_release(&list);
		return error("'%s --list' failed", busybox);
	}
	for (char *a = strtok_r(list.buf, "\n", &save); a; a = strtok_r(NULL, "\n", &save)) {
		if (!*a || strchr(a, '/') || !strcmp(a, "busybox"))
			continue;
		snprintf(tmp, sizeof(tmp), "%s/bin/%s", stage, a);
		if (symlink("busybox", tmp) && errno != EEXIST)
			warning("cannot link applet '%s': %s", a, strerror(errno));
	}
	sb_release(&list);
	return 0;
}

/* What the workloads need, and the kernel's modules with their load
 * order in /etc/kbench/modules. */
static int stage_needs(const char *stage, const struct kernel_image *k,
		       const struct image_needs *needs, const struct strvec *libs,
		       const struct strvec *mods)
{
	struct strbuf modlist = STRBUF_INIT;
	char tmp[KB_PATH_MAX];
	int ret = -1;
	for (size_t i = 0; i < needs->programs.n; i++)
		if (stage_copy(stage, needs->programs.v[i], 0755))
			goto out;
	for (size_t i = 0; i < libs->n; i++)
		if (stage_copy(stage, libs->v[i], 0755))
			goto out;
	for (size_t i = 0; i < needs->files.n; i++)
		if (stage_copy(stage, needs->files.v[i], 0644))
			goto out;
	for (size_t i = 0; i < mods->n; i++) {
		char guest[KB_PATH_MAX];
		if (stage_module(stage, k, mods->v[i], guest, sizeof(guest)))
			goto out;
		sb_addf(&modlist, "%s\n", guest);
	}
	snprintf(tmp, sizeof(tmp), "%s/etc/kbench/modules", stage);
	ret = write_file_atomic(tmp, modlist.buf ? modlist.buf : "", modlist.len);
out:
	sb_release(&modlist);
	return ret;
}

int image_build(const struct kernel_image *k, const struct image_needs *needs,
		const char *agent, char *out, size_t outlen)
{
	struct strvec libs = STRVEC_INIT, mods = STRVEC_INIT;
	struct strbuf key = STRBUF_INIT;
	char stage[KB_PATH_MAX] = "", dir[KB_PATH_MAX], hash[65], tmp[KB_PATH_MAX];
	char *busybox = which("busybox");
	int ret = -1;

	if (!busybox) {
		error("busybox not found (install busybox-static: make deps)");
		goto out;
	}
	if (image_key(k, needs, agent, busybox, &libs, &mods, &key))
		goto out;
	sha256_hex(key.buf, key.len, hash);
	snprintf(dir, sizeof(dir), "%s/initramfs", cache_root());
	if (mkdir_p(dir, 0755))
		goto out;
	snprintf(out, outlen, "%s/%.24s.cpio", dir, hash);
	if (path_exists(out)) {
		ret = 0;
		goto out;
	}
	info("kbench: building the guest initramfs for %s", k->release);
	snprintf(stage, sizeof(stage), "%s/.stage-%ld", dir, (long)getpid());
	rm_rf(stage);
	if (stage_base(stage, agent, busybox) || stage_needs(stage, k, needs, &libs, &mods))
		goto out;
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", out, (long)getpid());
	if (make_cpio(stage, tmp))
		goto out;
	if (rename(tmp, out)) {
		error("cannot rename '%s': %s", tmp, strerror(errno));
		unlink(tmp);
		goto out;
	}
	ret = 0;
out:
	if (stage[0])
		rm_rf(stage);
	free(busybox);
	strvec_clear(&libs);
	strvec_clear(&mods);
	sb_release(&key);
	return ret;
}

int scratch_create(const char *path, int size_mb)
{
	int fd, ret;
	struct child c = CHILD_INIT;
	char *mkfs = which("mkfs.ext4");
	if (!mkfs)
		return error("mkfs.ext4 not found (install e2fsprogs: make deps)");
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		free(mkfs);
		return error("cannot create scratch disk '%s': %s", path, strerror(errno));
	}
	/* sparse: only what ext4 and the workloads write takes space */
	if (ftruncate(fd, (off_t)size_mb << 20)) {
		close(fd);
		free(mkfs);
		return error("cannot size scratch disk '%s': %s", path, strerror(errno));
	}
	close(fd);
	strvec_push(&c.argv, mkfs);
	strvec_push(&c.argv, "-q");
	strvec_push(&c.argv, "-F");
	strvec_push(&c.argv, "-L");
	strvec_push(&c.argv, "kbench-scratch");
	strvec_push(&c.argv, path);
	c.capture = 1;
	c.timeout_s = 120;
	ret = child_run(&c);
	if (ret)
		error("mkfs.ext4 '%s' failed (exit %d): %s", path, ret, c.out.buf ? c.out.buf : "");
	child_release(&c);
	free(mkfs);
	return ret ? -1 : 0;
}
