/* build.c - kernel variants built from source, cached by content.
 *
 * Steps, each named in errors with its log:
 *   source   Debian's linux-source-6.12 (private apt, unpacked once per
 *            cache) or the tree named by KSRC
 *   patch    a copy of the tree (hard links: `patch` replaces files, so
 *            the pristine tree is never touched) with the variant's patches
 *            applied with no fuzz
 *   config   x86_64_defconfig + kvm_guest.config (or tinyconfig, tests
 *            only), then the variant's fragments merged with the kernel's
 *            merge_config.sh, then olddefconfig; every requested option is
 *            checked to have survived
 *   build    `make bzImage` out of tree, with ccache when installed
 * The cache key hashes the source identity, the patches, the merged
 * .config and the compiler version, so two variants that differ only in
 * their command line share one binary, and a hit costs nothing.
 * A user's tree (KSRC) is patched in one work copy and built in one object
 * directory per tree, patches and config inputs (everything but the
 * commit: the steps of a bisection), locked for the whole build;
 * worktree.c keeps both fit for make's incremental rebuild.
 */
#include "kernel/source.h"
#include "kernel/needs.h"
#include "kernel/apt.h"
#include "kernel/worktree.h"
#include "core/spawn.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUILD_FORMAT "kbench-build 1"
#define BUILD_TIMEOUT_S (4 * 3600.0)

#define step_fail(step, log, ...) step_failed("kernel build", step, log, __VA_ARGS__)


static int lock_key(const char *builds, const char *key)
{
	char dir[KB_PATH_MAX], name[64];
	snprintf(dir, sizeof(dir), "%s/locks", builds);
	snprintf(name, sizeof(name), "%.24s", key);
	return lock_file(dir, name, "the same kernel build");
}

/* ---- source ---- */

struct source {
	char tree[KB_PATH_MAX]; /* the unpacked top directory */
	char ident[512];        /* "debian:linux-source-6.12=6.12.117-1" or "ksrc:..." */
};

static int is_kernel_tree(const char *dir)
{
	char p[KB_PATH_MAX];
	snprintf(p, sizeof(p), "%s/kernel/locking/rtmutex.c", dir);
	if (!path_exists(p))
		return 0;
	snprintf(p, sizeof(p), "%s/scripts/kconfig/merge_config.sh", dir);
	return path_exists(p);
}

/* A user's tree: identify it by git commit (+ a hash of local changes) or,
 * for a tarball, by path and the Makefile's version lines. */
static int source_ksrc(const char *ksrc, struct source *s)
{
	char real[KB_PATH_MAX];
	struct strbuf out = STRBUF_INIT;
	if (!realpath(ksrc, real))
		return step_fail("source", NULL, "KSRC '%s': %s", ksrc, strerror(errno));
	if (!is_kernel_tree(real))
		return step_fail("source", NULL, "KSRC '%s' is not a Linux source tree "
				 "(no kernel/locking/rtmutex.c or scripts/kconfig/merge_config.sh)", real);
	snprintf(s->tree, sizeof(s->tree), "%s", real);
	{
		const char *argv[] = { "git", "-C", real, "rev-parse", "HEAD", NULL };
		if (run_capture(argv, 60, &out) == 0 && out.len >= 40) {
			struct strbuf diff = STRBUF_INIT;
			const char *dargv[] = { "git", "-C", real, "diff", "HEAD", NULL };
			char h[65] = "clean";
			rtrim(out.buf);
			if (run_capture(dargv, 300, &diff) == 0 && diff.len)
				sha256_hex(diff.buf, diff.len, h);
			snprintf(s->ident, sizeof(s->ident), "ksrc-git:%s:%.12s", out.buf, h);
			sb_release(&diff);
			sb_release(&out);
			return 0;
		}
	}
	sb_release(&out);
	{
		char mk[KB_PATH_MAX], h[65];
		snprintf(mk, sizeof(mk), "%s/Makefile", real);
		if (sha256_file_hex(mk, h))
			return -1;
		snprintf(s->ident, sizeof(s->ident), "ksrc-tree:%s:%.16s", real, h);
	}
	warning("KSRC '%s' is not a git tree: kbench identifies it by path and Makefile only; "
		"edits inside it are not seen by the build cache", real);
	return 0;
}

/* The cached pointer to an unpacked tree, if it still names one: no
 * network. 0 found (S filled), 1 not. */
static int source_cached(const char *dir, const char *ptr, struct source *s)
{
	struct strbuf sb = STRBUF_INIT;
	int r = 1;
	if (!path_exists(ptr))
		return 1;
	if (read_file(ptr, &sb, 4096) == 0 && sb.buf) {
		rtrim(sb.buf);
		snprintf(s->tree, sizeof(s->tree), "%s/%s/tree", dir, sb.buf);
		if (is_kernel_tree(s->tree) && !strchr(sb.buf, '/')) {
			snprintf(s->ident, sizeof(s->ident), "debian:%s", sb.buf);
			r = 0;
		}
	}
	if (r)
		warning("source cache pointer '%s' is stale: fetching again", ptr);
	sb_release(&sb);
	return r;
}

/* The downloaded source .deb in TMP unpacked: its tarball's one top
 * directory becomes TMP/tree. */
static int unpack_source_deb(const char *tmp, const char *spec, const char *log)
{
	char deb[KB_PATH_MAX], x[KB_PATH_MAX], tarball[KB_PATH_MAX], t[KB_PATH_MAX];
	char top[KB_PATH_MAX], final[KB_PATH_MAX];
	const char *dpkg[] = { "dpkg-deb", "-x", deb, x, NULL };
	const char *tar[] = { "tar", "-xf", tarball, "-C", t, NULL };
	dir_find(tmp, ".deb", deb, sizeof(deb));
	snprintf(x, sizeof(x), "%s/deb", tmp);
	if (!deb[0] || run_logged(dpkg, NULL, log, 600))
		return step_fail("source", log, "cannot unpack '%s'", deb[0] ? deb : "(no .deb)");
	unlink(deb);
	snprintf(x, sizeof(x), "%s/deb/usr/src", tmp);
	if (dir_find(x, ".tar.", tarball, sizeof(tarball)))
		return step_fail("source", NULL, "%s has no source tarball under /usr/src", spec);
	info("kbench: unpacking %s (about 15 s)", tarball);
	snprintf(t, sizeof(t), "%s/unpacked", tmp);
	if (mkdir_p(t, 0755) || run_logged(tar, NULL, log, 1200))
		return step_fail("source", log, "cannot unpack '%s'", tarball);
	/* the tarball holds one top directory: that is the tree */
	snprintf(final, sizeof(final), "%s/tree", tmp);
	if (dir_find(t, NULL, top, sizeof(top)) || rename(top, final) || !is_kernel_tree(final))
		return step_fail("source", NULL, "%s did not unpack to a kernel tree", spec);
	snprintf(final, sizeof(final), "%s/deb", tmp);
	rm_rf(final);
	snprintf(final, sizeof(final), "%s/unpacked", tmp);
	rm_rf(final);
	return 0;
}

/* Download TREE_PKG=VERSION and unpack it into ENTRY (via a temporary
 * directory in DIR, renamed when whole). */
static int fetch_source(const struct strvec *opts, const char *dir, const char *tree_pkg,
			const char *version, const char *entry)
{
	char tmp[KB_PATH_MAX], log[KB_PATH_MAX];
	char *spec = xasprintf("%s=%s", tree_pkg, version);
	int ret = -1;
	snprintf(tmp, sizeof(tmp), "%s/.tmp-%ld", dir, (long)getpid());
	snprintf(log, sizeof(log), "%s/unpack.log", tmp);
	if (apt_download(opts, spec, tmp, "150 MB") || unpack_source_deb(tmp, spec, log))
		goto out;
	rm_rf(entry);
	if (rename(tmp, entry)) {
		error("cannot move '%s' to '%s': %s", tmp, entry, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	rm_rf(tmp);
	free(spec);
	return ret;
}

/* Debian's linux-source package: fetch and unpack once per cache. */
static int source_debian(const struct variant *v, struct source *s)
{
	struct strvec opts = STRVEC_INIT;
	char real[OPT_STR_MAX], version[128] = "", dir[KB_PATH_MAX], entry[KB_PATH_MAX];
	char ptr[KB_PATH_MAX], pdir[KB_PATH_MAX], *base = NULL;
	int ret = -1, lock, r;

	snprintf(dir, sizeof(dir), "%s/sources", cache_root());
	lock = lock_file(dir, ".lock", "source cache");
	if (lock < 0)
		return -1;
	snprintf(ptr, sizeof(ptr), "%s/by-name/%s_%s", dir, v->tree, v->release);
	if (source_cached(dir, ptr, s) == 0) {
		ret = 0;
		goto out;
	}
	if (apt_setup(v->release, &opts))
		goto out;
	info("kbench: looking up %s in Debian '%s'", v->tree, v->release);
	r = apt_lookup(&opts, v->tree, real, sizeof(real), version, sizeof(version));
	if (r) {
		if (r > 0)
			step_fail("source", NULL, "apt-cache show %s printed no Version", v->tree);
		goto out;
	}
	snprintf(entry, sizeof(entry), "%s/%s_%s", dir, v->tree, version);
	snprintf(s->tree, sizeof(s->tree), "%s/tree", entry);
	if (!is_kernel_tree(s->tree) && fetch_source(&opts, dir, v->tree, version, entry))
		goto out;
	base = xasprintf("%s_%s\n", v->tree, version);
	snprintf(pdir, sizeof(pdir), "%s/by-name", dir);
	if (mkdir_p(pdir, 0755) || write_file_atomic(ptr, base, strlen(base)))
		goto out;
	snprintf(s->ident, sizeof(s->ident), "debian:%s_%s", v->tree, version);
	info("kbench: source %s %s in %s", v->tree, version, s->tree);
	ret = 0;
out:
	free(base);
	strvec_clear(&opts);
	close(lock);
	return ret;
}

/* ---- patches ---- */

/* The variant's patches: their paths into PATCHES and their identity
 * lines ("patch NAME SHA256") into LINES. */
static int patch_list(const struct variant *v, struct strvec *patches, struct strbuf *lines)
{
	char list[OPT_STR_MAX], *save = NULL;
	snprintf(list, sizeof(list), "%s", v->patches);
	for (char *t = strtok_r(list, " \t,", &save); t; t = strtok_r(NULL, " \t,", &save)) {
		char path[KB_PATH_MAX], ph[65];
		snprintf(path, sizeof(path), "%s/kernels/patches/%s", kb_home(), t);
		if (sha256_file_hex(path, ph))
			return -1;
		strvec_push(patches, path);
		sb_addf(lines, "patch %s %s\n", t, ph);
	}
	return 0;
}

/* Apply PATCHES in DIR with no fuzz, each tried with --dry-run first;
 * IDENT names the source in errors. */
static int apply_patches(const struct strvec *patches, const char *dir, const char *ident,
			 const char *log)
{
	for (size_t i = 0; i < patches->n; i++) {
		const char *dry[] = { "patch", "-p1", "-F0", "--dry-run", "-i", patches->v[i], NULL };
		const char *real[] = { "patch", "-p1", "-F0", "-i", patches->v[i], NULL };
		info("kbench: applying %s", patches->v[i]);
		if (run_logged(dry, dir, log, 120))
			return step_fail("patch", log, "'%s' does not apply to %s with no fuzz",
					 patches->v[i], ident);
		if (run_logged(real, dir, log, 120))
			return step_fail("patch", log, "applying '%s' failed", patches->v[i]);
	}
	return 0;
}

/* Debian's tree: the patches applied to a hard-linked copy, cached by
 * source identity and patch contents (ID, hashed to H) in trees/H. */
static int patched_copy(const struct source *s, const struct strvec *patches,
			const struct strbuf *id, const char *h, char *out, size_t outlen)
{
	char dir[KB_PATH_MAX], tmp[KB_PATH_MAX] = "", log[KB_PATH_MAX], done[KB_PATH_MAX];
	int ret = -1, lock;

	snprintf(dir, sizeof(dir), "%s/trees", cache_root());
	lock = lock_file(dir, ".lock", "patched trees");
	if (lock < 0)
		return -1;
	snprintf(out, outlen, "%s/%.16s", dir, h);
	snprintf(done, sizeof(done), "%s/.kbench-patched", out);
	if (path_exists(done)) {
		ret = 0;
		goto out;
	}
	snprintf(tmp, sizeof(tmp), "%s/.tmp-%.16s-%ld", dir, h, (long)getpid());
	rm_rf(tmp);
	snprintf(log, sizeof(log), "%s/patch-%.16s.log", dir, h);
	unlink(log);
	{
		const char *argv[] = { "cp", "-al", s->tree, tmp, NULL };
		if (run_logged(argv, NULL, log, 600)) {
			step_fail("patch", log, "cannot copy the tree '%s'", s->tree);
			goto out;
		}
	}
	snprintf(done, sizeof(done), "%s/.kbench-patched", tmp);
	if (apply_patches(patches, tmp, s->ident, log) || write_file_atomic(done, id->buf, id->len))
		goto out;
	rm_rf(out);
	if (rename(tmp, out)) {
		error("cannot move '%s' to '%s': %s", tmp, out, strerror(errno));
		goto out;
	}
	tmp[0] = '\0';
	ret = 0;
out:
	if (tmp[0])
		rm_rf(tmp);
	close(lock);
	return ret;
}

/* A user's tree (KSRC): one work copy per tree, patches and config inputs
 * (KEY), trees/work-KEY, brought back to the tree's current state by
 * relinking what changed and patched again, the patched files keeping the
 * tree's times, so consecutive commits rebuild only what they changed.
 * The caller holds KEY's lock. */
static int patched_work(const struct source *s, const struct strvec *patches, const char *key,
			char *out, size_t outlen)
{
	char dir[KB_PATH_MAX], log[KB_PATH_MAX];
	snprintf(dir, sizeof(dir), "%s/trees", cache_root());
	snprintf(out, outlen, "%s/work-%.24s", dir, key);
	snprintf(log, sizeof(log), "%s/patch-work-%.24s.log", dir, key);
	unlink(log);
	if (mkdir_p(dir, 0755) || worktree_sync(s->tree, out) ||
	    apply_patches(patches, out, s->ident, log))
		return -1;
	for (size_t i = 0; i < patches->n; i++)
		if (worktree_keep_mtimes(s->tree, out, patches->v[i]))
			return -1;
	return 0;
}

/* ---- config ---- */

struct kopt {
	char name[128];
	char value[256]; /* "y", "m", "\"str\"", "n" for "is not set" */
};

/* Parse "CONFIG_X=v" and "# CONFIG_X is not set" lines of a fragment or a
 * .config. Returns the count, or -1 with file and line on a bad line. */
static int parse_config(const char *path, struct kopt **opts, size_t *n, int strict)
{
	struct strbuf sb = STRBUF_INIT;
	int lineno = 0;
	char *save = NULL;
	if (read_file(path, &sb, 16u << 20)) {
		sb_release(&sb);
		return -1;
	}
	for (char *l = strtok_r(sb.buf ? sb.buf : (char *)"", "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		struct kopt o;
		char *eq;
		lineno++;
		rtrim(l);
		memset(&o, 0, sizeof(o));
		if (!strncmp(l, "# CONFIG_", 9) && strstr(l, " is not set")) {
			snprintf(o.name, sizeof(o.name), "%.*s", (int)strcspn(l + 2, " "), l + 2);
			snprintf(o.value, sizeof(o.value), "n");
		} else if (!strncmp(l, "CONFIG_", 7) && (eq = strchr(l, '='))) {
			snprintf(o.name, sizeof(o.name), "%.*s", (int)(eq - l), l);
			snprintf(o.value, sizeof(o.value), "%s", eq + 1);
		} else if (!*l || *l == '#') {
			continue;
		} else if (strict) {
			sb_release(&sb);
			return error("config fragment '%s' line %d: expected 'CONFIG_X=value' or "
				     "'# CONFIG_X is not set', got '%.60s'", path, lineno, l);
		} else {
			continue;
		}
		{
			/* a later fragment's value wins, as in merge_config.sh */
			size_t i = 0;
			while (i < *n && strcmp((*opts)[i].name, o.name))
				i++;
			if (i == *n)
				*opts = xrealloc(*opts, ++*n * sizeof(**opts));
			(*opts)[i] = o;
		}
	}
	sb_release(&sb);
	return 0;
}

static const char *kopt_get(const struct kopt *o, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(o[i].name, name))
			return o[i].value;
	return "n";
}

/* The name of V's config base, for messages, keys and reports. */
const char *variant_base_name(const struct variant *v)
{
	return v->base == VBASE_TINYCONFIG ? "tinyconfig" : v->base == VBASE_FILE ? "file" : "defconfig";
}

/* The fragments V's config merges, in order: for a file base kbench's
 * file-base fragment first (a distribution config's build breakers). */
static void variant_fragments(const struct variant *v, struct strvec *names)
{
	char list[OPT_STR_MAX], *save = NULL;
	if (v->base == VBASE_FILE)
		strvec_push(names, "file-base");
	snprintf(list, sizeof(list), "%s", v->configs);
	for (char *t = strtok_r(list, " \t,", &save); t; t = strtok_r(NULL, " \t,", &save))
		strvec_push(names, t);
}

/* A config step in the object directory ODIR ("O=DIR"): make -C TREE
 * ODIR ARCH=x86_64 A [B], logged to LOG; 0 or make's failure. */
static int config_make(const char *tree, const char *odir, const char *log, const char *a,
		       const char *b)
{
	const char *argv[] = { "make", "-C", tree, odir, "ARCH=x86_64", a, b, NULL };
	return run_logged(argv, NULL, log, 600);
}

/* The base config in OBJ: make defconfig (+ kvm_guest.config) or
 * tinyconfig, or the user's file brought up to this tree (olddefconfig). */
static int base_config(const struct variant *v, const char *tree, const char *odir,
		       const char *dotconfig, const char *log)
{
	int file = v->base == VBASE_FILE;
	const char *goal = file ? "olddefconfig" : variant_base_name(v);
	const char *extra = v->base == VBASE_DEFCONFIG ? "kvm_guest.config" : NULL;
	if (file && copy_file(v->base_config, dotconfig, 0644))
		return -1;
	if (config_make(tree, odir, log, goal, extra))
		return step_fail("config", log, "make %s%s%s%s failed", goal, extra ? " " : "",
				 extra ? extra : "", file ? " (over base_config)" : "");
	return 0;
}

/* Make the merged .config for V in OBJ (a scratch build dir). */
static int make_config(const struct variant *v, const char *tree, const char *obj,
		       const char *log, struct strbuf *dropped)
{
	char odir[KB_PATH_MAX + 4], dotconfig[KB_PATH_MAX];
	struct strvec frags = STRVEC_INIT, names = STRVEC_INIT;
	struct kopt *want = NULL, *got = NULL;
	size_t nwant = 0, ngot = 0;
	int ret = -1;

	snprintf(odir, sizeof(odir), "O=%s", obj);
	snprintf(dotconfig, sizeof(dotconfig), "%s/.config", obj);
	variant_fragments(v, &names);
	for (size_t i = 0; i < names.n; i++) {
		char path[KB_PATH_MAX];
		snprintf(path, sizeof(path), "%s/configs/kernel/%s.config", kb_home(), names.v[i]);
		/* file-base's options may not exist in the user's config (no
		 * module signing: no signing key): applied, not required */
		if (strcmp(names.v[i], "file-base") && parse_config(path, &want, &nwant, 1))
			goto out;
		strvec_push(&frags, path);
	}
	if (base_config(v, tree, odir, dotconfig, log))
		goto out;
	if (frags.n) {
		struct strvec argv = STRVEC_INIT;
		char script[KB_PATH_MAX];
		int r;
		snprintf(script, sizeof(script), "%s/scripts/kconfig/merge_config.sh", tree);
		strvec_push(&argv, "sh");
		strvec_push(&argv, script);
		strvec_push(&argv, "-m");
		strvec_push(&argv, "-O");
		strvec_push(&argv, obj);
		strvec_push(&argv, dotconfig);
		for (size_t i = 0; i < frags.n; i++)
			strvec_push(&argv, frags.v[i]);
		r = run_logged((const char *const *)argv.v, tree, log, 300);
		strvec_clear(&argv);
		if (r) {
			step_fail("config", log, "merge_config.sh failed");
			goto out;
		}
	}
	if (config_make(tree, odir, log, "olddefconfig", NULL)) {
		step_fail("config", log, "make olddefconfig failed");
		goto out;
	}
	if (parse_config(dotconfig, &got, &ngot, 0))
		goto out;
	for (size_t i = 0; i < nwant; i++) {
		const char *g = kopt_get(got, ngot, want[i].name);
		if (strcmp(g, want[i].value))
			sb_addf(dropped, "  %s=%s (after olddefconfig: %s)\n", want[i].name,
				want[i].value, !strcmp(g, "n") ? "not set" : g);
	}
	ret = 0;
out:
	free(want);
	free(got);
	strvec_clear(&frags);
	strvec_clear(&names);
	return ret;
}

/* ---- build ---- */

static void compiler_version(char *out, size_t n)
{
	const char *argv[] = { "gcc", "--version", NULL };
	struct strbuf sb = STRBUF_INIT;
	if (run_capture(argv, 30, &sb) == 0 && sb.buf) {
		sb.buf[strcspn(sb.buf, "\n")] = '\0';
		snprintf(out, n, "%s", sb.buf);
	} else {
		snprintf(out, n, "unknown");
	}
	sb_release(&sb);
}

/* Count kbuild's quiet step lines ("  CC      kernel/fork.o") added to the
 * log since *POS; only whole lines are consumed, so a line split between
 * two reads is counted once. */
static int count_lines_matching(const char *path, off_t *pos, int *count)
{
	char buf[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	if (fd < 0)
		return -1;
	for (;;) {
		ssize_t start = 0, last_nl = -1;
		if (lseek(fd, *pos, SEEK_SET) < 0)
			break;
		n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n')
				continue;
			if (i - start >= 3 && buf[start] == ' ' && buf[start + 1] == ' ' &&
			    buf[start + 2] >= 'A' && buf[start + 2] <= 'Z')
				(*count)++;
			start = i + 1;
			last_nl = i;
		}
		if (last_nl < 0) {
			if (n == (ssize_t)sizeof(buf))
				*pos += n; /* a huge line: skip it */
			break;
		}
		*pos += last_nl + 1;
		if (n < (ssize_t)sizeof(buf))
			break;
	}
	close(fd);
	return 0;
}

static void fmt_dur(double s, char *out, size_t n)
{
	if (s < 0 || s > 1e6)
		snprintf(out, n, "?");
	else if (s >= 60)
		snprintf(out, n, "%dm%02ds", (int)s / 60, (int)s % 60);
	else
		snprintf(out, n, "%ds", (int)s);
}

/* make bzImage with progress: on a terminal one updating line with an
 * ETA, otherwise a plain line every 30 s. EXPECT is the step count of the
 * last build of this kind (0 if unknown). Returns steps done or -1. */
static int make_bzimage(const char *tree, const char *obj, const char *log, int jobs, int expect)
{
	struct child c = CHILD_INIT;
	char *ccache = which("ccache");
	off_t pos = 0;
	int steps = 0, tty = isatty(2), r;
	double t0 = now_mono(), last = 0;

	strvec_push(&c.argv, "make");
	strvec_push(&c.argv, "-C");
	strvec_push(&c.argv, tree);
	strvec_pushf(&c.argv, "O=%s", obj);
	strvec_push(&c.argv, "ARCH=x86_64");
	strvec_pushf(&c.argv, "-j%d", jobs);
	if (ccache) {
		strvec_push(&c.argv, "CC=ccache gcc");
		strvec_pushf(&c.env, "CCACHE_DIR=%s/ccache", cache_root());
		/* identical builds in different trees share objects */
		strvec_push(&c.env, "CCACHE_BASEDIR=/");
		strvec_push(&c.env, "CCACHE_NOHASHDIR=1");
	}
	/* reproducible identity strings: the cache key decides, not the clock */
	strvec_push(&c.env, "KBUILD_BUILD_TIMESTAMP=kbench");
	strvec_push(&c.env, "KBUILD_BUILD_USER=kbench");
	strvec_push(&c.env, "KBUILD_BUILD_HOST=kbench");
	strvec_push(&c.argv, "bzImage");
	c.stdout_path = log;
	c.stderr_path = log;
	c.append = 1;
	c.timeout_s = BUILD_TIMEOUT_S;
	free(ccache);
	if (child_start(&c)) {
		child_release(&c);
		return -1;
	}
	for (;;) {
		double el;
		r = child_poll(&c);
		count_lines_matching(log, &pos, &steps);
		el = now_mono() - t0;
		if (r != 0)
			break;
		if (kb_interrupted || el > BUILD_TIMEOUT_S) {
			child_kill(&c, 2);
			break;
		}
		if ((tty && el - last >= 1) || el - last >= 30) {
			char e[32], eta[32] = "?";
			fmt_dur(el, e, sizeof(e));
			if (expect > 0 && steps > 20) {
				double left = el / steps * (expect > steps ? expect - steps : 0);
				fmt_dur(left, eta, sizeof(eta));
			}
			if (tty)
				fprintf(stderr, "\rkbench: building: %d/%d steps, %s elapsed, ETA %s   ", steps,
					expect, e, eta);
			else
				fprintf(stderr, "kbench: building: %d steps (last build: %d), %s elapsed, ETA %s\n",
					steps, expect, e, eta);
			last = el;
		}
		usleep(250000);
	}
	if (tty)
		fputc('\n', stderr);
	r = c.status;
	child_release(&c);
	return r == 0 ? steps : -1;
}

static int entry_fill(const char *entry, struct kernel_image *k)
{
	char meta[KB_PATH_MAX];
	struct strbuf sb = STRBUF_INIT;
	char *save = NULL;
	memset(k, 0, sizeof(*k));
	snprintf(meta, sizeof(meta), "%s/kbench-entry", entry);
	if (!path_exists(meta))
		return 1;
	if (read_file(meta, &sb, 65536))
		return -1;
	snprintf(k->dir, sizeof(k->dir), "%s", entry);
	for (char *l = strtok_r(sb.buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(l, '=');
		if (!eq)
			continue;
		*eq++ = '\0';
		if (!strcmp(l, "release"))
			snprintf(k->release, sizeof(k->release), "%s", eq);
		else if (!strcmp(l, "source"))
			snprintf(k->package, sizeof(k->package), "%s", eq);
		else if (!strcmp(l, "key"))
			snprintf(k->version, sizeof(k->version), "build-%.16s", eq);
	}
	sb_release(&sb);
	snprintf(k->vmlinuz, sizeof(k->vmlinuz), "%s/bzImage", entry);
	snprintf(k->config, sizeof(k->config), "%s/config", entry);
	k->moddir[0] = '\0'; /* everything built in */
	if (!k->release[0] || !path_exists(k->vmlinuz) || sha256_file_hex(k->config, k->config_hash))
		return error("corrupt build cache entry '%s' (remove it to rebuild)", entry);
	return 0;
}

int kernel_build_last(const struct variant *v, struct kernel_image *k)
{
	char ptr[KB_PATH_MAX], entry[KB_PATH_MAX];
	struct strbuf sb = STRBUF_INIT;
	int r = 1;
	snprintf(ptr, sizeof(ptr), "%s/builds/by-variant/%s", cache_root(), v->name);
	if (path_exists(ptr) && read_file(ptr, &sb, 128) == 0 && sb.buf) {
		rtrim(sb.buf);
		if (!strchr(sb.buf, '/')) {
			snprintf(entry, sizeof(entry), "%s/builds/%s", cache_root(), sb.buf);
			r = entry_fill(entry, k);
		}
	}
	sb_release(&sb);
	return r;
}

int kernel_source(const char *tree_pkg, const char *release, char *tree, size_t treelen,
		  char *ident, size_t identlen, char *compiler, size_t cclen)
{
	struct variant v;
	struct source src;
	const char *ksrc = getenv("KSRC");
	memset(&v, 0, sizeof(v));
	memset(&src, 0, sizeof(src));
	snprintf(v.tree, sizeof(v.tree), "%s", tree_pkg);
	snprintf(v.release, sizeof(v.release), "%s", release);
	snprintf(v.name, sizeof(v.name), "kbuild");
	if (ksrc && *ksrc ? source_ksrc(ksrc, &src) : source_debian(&v, &src))
		return -1;
	snprintf(tree, treelen, "%s", src.tree);
	snprintf(ident, identlen, "%s", src.ident);
	compiler_version(compiler, cclen);
	return 0;
}

/* One build's state, filled phase by phase: source, inputs (the fast
 * path's key), config (the merged .config and the cache key it gives),
 * build (make in the kept object dir), publish (the cache entry), record
 * (the variant's and the inputs' pointers to it). */
struct build {
	const struct variant *v;
	struct build_info *bi; /* the caller's, or a zeroed local one */
	struct source src;
	struct strvec patches;
	struct strbuf patchset; /* "patch NAME SHA256" lines */
	char loc[KB_PATH_MAX];  /* a user's tree (KSRC): its real path; "" for Debian's */
	char tree[KB_PATH_MAX], treekey[600], builds[KB_PATH_MAX], cc[256];
	char inhash[65], inptr[KB_PATH_MAX];         /* inputs phase */
	char objkey[65];                             /* inputs but the commit (KSRC) */
	char cfgobj[KB_PATH_MAX], cfglog[KB_PATH_MAX]; /* config phase (scratch) */
	char h[65], entry[KB_PATH_MAX], obj[KB_PATH_MAX], log[KB_PATH_MAX];
	int lock, objlock;
};

/* source: the tree's identity with the patches', the builds dir and the
 * compiler; the (patched) tree itself is made only for a build */
static int phase_source(struct build *b)
{
	const char *ksrc = getenv("KSRC");
	if (ksrc && *ksrc ? source_ksrc(ksrc, &b->src) : source_debian(b->v, &b->src))
		return -1;
	if (ksrc && *ksrc)
		snprintf(b->loc, sizeof(b->loc), "%s", b->src.tree);
	if (patch_list(b->v, &b->patches, &b->patchset))
		return -1;
	if (b->patches.n) {
		struct strbuf id = STRBUF_INIT;
		char h[65];
		sb_addf(&id, "%s\n", b->src.ident);
		sb_add(&id, b->patchset.buf, b->patchset.len);
		sha256_hex(id.buf, id.len, h);
		snprintf(b->treekey, sizeof(b->treekey), "%s+patches:%.16s", b->src.ident, h);
		sb_release(&id);
	} else {
		snprintf(b->treekey, sizeof(b->treekey), "%s", b->src.ident);
	}
	snprintf(b->builds, sizeof(b->builds), "%s/builds", cache_root());
	/* entries are published by rename, so look-ups need no lock; a build
	 * locks its own key, and other builds go on beside it */
	if (mkdir_p(b->builds, 0755))
		return -1;
	compiler_version(b->cc, sizeof(b->cc));
	return 0;
}

void kernel_build_keys(const struct build_key_in *in, char inputs[65], char objdir[65])
{
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%s\ninputs\nsource %s\nbase %d\ncompiler %s\n%s", BUILD_FORMAT, in->source,
		in->base, in->compiler, in->fragments);
	sha256_hex(sb.buf, sb.len, inputs);
	objdir[0] = '\0';
	if (in->location) {
		sb_reset(&sb);
		sb_addf(&sb, "%s\nobjdir\ntree %s\n%sbase %d\ncompiler %s\n%s", BUILD_FORMAT,
			in->location, in->patchset, in->base, in->compiler, in->fragments);
		sha256_hex(sb.buf, sb.len, objdir);
	}
	sb_release(&sb);
}

/* inputs: the hash of what goes into the config (tree, base, fragments,
 * compiler), the fast path's key: the same inputs need no configuring;
 * for a user's tree also the object dir's key, the same without the
 * commit */
static int phase_inputs(struct build *b)
{
	struct strbuf frags = STRBUF_INIT;
	struct strvec names = STRVEC_INIT;
	struct build_key_in in;
	int ret = -1;
	if (b->v->base == VBASE_FILE) { /* the file's content, not its name */
		char fh[65];
		if (sha256_file_hex(b->v->base_config, fh))
			goto out;
		sb_addf(&frags, "base_config %s\n", fh);
	}
	variant_fragments(b->v, &names);
	for (size_t i = 0; i < names.n; i++) {
		char path[KB_PATH_MAX], fh[65];
		snprintf(path, sizeof(path), "%s/configs/kernel/%s.config", kb_home(), names.v[i]);
		if (sha256_file_hex(path, fh))
			goto out;
		sb_addf(&frags, "fragment %s %s\n", names.v[i], fh);
	}
	in.source = b->treekey;
	in.location = b->loc[0] ? b->loc : NULL;
	in.patchset = b->patchset.buf ? b->patchset.buf : "";
	in.base = b->v->base;
	in.compiler = b->cc;
	in.fragments = frags.buf ? frags.buf : "";
	kernel_build_keys(&in, b->inhash, b->objkey);
	snprintf(b->inptr, sizeof(b->inptr), "%s/inputs/%.24s", b->builds, b->inhash);
	ret = 0;
out:
	sb_release(&frags);
	strvec_clear(&names);
	return ret;
}

/* The tree to configure and build: the source, or its patched copy (a
 * user's tree: the shared work copy, under the object dir's lock) */
static int tree_ready(struct build *b)
{
	if (b->loc[0] && b->objlock < 0) {
		b->objlock = lock_key(b->builds, b->objkey);
		if (b->objlock < 0)
			return -1;
	}
	if (!b->patches.n) {
		snprintf(b->tree, sizeof(b->tree), "%s", b->src.tree);
		return 0;
	}
	if (b->loc[0])
		return patched_work(&b->src, &b->patches, b->objkey, b->tree, sizeof(b->tree));
	{
		struct strbuf id = STRBUF_INIT;
		char h[65];
		int r;
		sb_addf(&id, "%s\n", b->src.ident);
		sb_add(&id, b->patchset.buf, b->patchset.len);
		sha256_hex(id.buf, id.len, h);
		r = patched_copy(&b->src, &b->patches, &id, h, b->tree, sizeof(b->tree));
		sb_release(&id);
		return r;
	}
}

/* The object dir: a user's tree builds every commit in one (make rebuilds
 * what changed); Debian's keeps one per build key */
static void obj_dir(struct build *b)
{
	if (b->loc[0])
		snprintf(b->obj, sizeof(b->obj), "%s/obj-tree-%.24s", b->builds, b->objkey);
	else
		snprintf(b->obj, sizeof(b->obj), "%s/obj-%.24s", b->builds, b->h);
}

/* The key the inputs pointer names, if it is a plain name (not a path) of
 * at least MINLEN characters; 0 and H filled, or 1. */
static int inputs_key(const struct build *b, char *h, size_t hlen, size_t minlen)
{
	struct strbuf sb = STRBUF_INIT;
	int r = 1;
	if (path_exists(b->inptr) && read_file(b->inptr, &sb, 128) == 0 && sb.buf) {
		rtrim(sb.buf);
		if (!strchr(sb.buf, '/') && strlen(sb.buf) >= minlen) {
			snprintf(h, hlen, "%s", sb.buf);
			r = 0;
		}
	}
	sb_release(&sb);
	return r;
}

static void note_key(struct build *b)
{
	snprintf(b->bi->key, sizeof(b->bi->key), "%.24s", b->h);
	snprintf(b->bi->source, sizeof(b->bi->source), "%s", b->treekey);
	snprintf(b->bi->compiler, sizeof(b->bi->compiler), "%s", b->cc);
}

/* fast path: the inputs were configured and built before. 0 hit, 1 not. */
static int inputs_hit(struct build *b, struct kernel_image *k)
{
	if (inputs_key(b, b->h, sizeof(b->h), 0))
		return 1;
	snprintf(b->entry, sizeof(b->entry), "%s/%s", b->builds, b->h);
	if (entry_fill(b->entry, k))
		return 1;
	info("kbench: %s: build cache hit (%s, kernel %s)", b->v->name, b->entry, k->release);
	b->bi->hit = 1;
	note_key(b);
	return 0;
}

/* --rebuild of a configured build of Debian's tree: its key and kept
 * object dir, if both are there. 0 found (the key locked, the tree
 * ready), 1 not, -1 error. (A user's tree's object dir is shared by its
 * commits: a rebuild there configures again.) */
static int configured_build(struct build *b)
{
	if (b->loc[0] || inputs_key(b, b->h, sizeof(b->h), 24))
		return 1;
	obj_dir(b);
	if (!path_exists(b->obj))
		return 1;
	snprintf(b->entry, sizeof(b->entry), "%s/%.24s", b->builds, b->h);
	b->lock = lock_key(b->builds, b->h);
	return b->lock < 0 || tree_ready(b) ? -1 : 0;
}

/* config: the merged .config in a scratch dir, every requested option
 * checked to have survived */
static int phase_config(struct build *b)
{
	struct strbuf dropped = STRBUF_INIT;
	int ret = -1;
	snprintf(b->cfgobj, sizeof(b->cfgobj), "%s/.cfg-%ld", b->builds, (long)getpid());
	rm_rf(b->cfgobj);
	if (mkdir_p(b->cfgobj, 0755))
		goto out;
	snprintf(b->cfglog, sizeof(b->cfglog), "%s/config-%s.log", b->builds, b->v->name);
	unlink(b->cfglog);
	if (make_config(b->v, b->tree, b->cfgobj, b->cfglog, &dropped))
		goto out;
	if (dropped.len) {
		step_fail("config", b->cfglog, "requested options did not survive olddefconfig "
			  "(a dependency is missing or the option vanished):\n%s", dropped.buf);
		goto out;
	}
	ret = 0;
out:
	sb_release(&dropped);
	return ret;
}

/* the cache key: source, compiler and the merged .config */
static int config_key(struct build *b)
{
	struct strbuf key = STRBUF_INIT, cfg = STRBUF_INIT;
	char p[KB_PATH_MAX];
	int ret = -1;
	snprintf(p, sizeof(p), "%s/.config", b->cfgobj);
	if (read_file(p, &cfg, 16u << 20))
		goto out;
	sb_addf(&key, "%s\nsource %s\ncompiler %s\nconfig\n", BUILD_FORMAT, b->treekey, b->cc);
	sb_add(&key, cfg.buf, cfg.len);
	sha256_hex(key.buf, key.len, b->h);
	snprintf(b->entry, sizeof(b->entry), "%s/%.24s", b->builds, b->h);
	note_key(b);
	ret = 0;
out:
	sb_release(&cfg);
	sb_release(&key);
	return ret;
}

/* The object dir made ready for make: what an interrupted build left
 * removed, the stamp set, the merged .config copied in when it differs
 * (a shared object dir keeps the last commit's otherwise: kbuild's
 * syncconfig sees the new one and rebuilds what its options touch) */
static int obj_prepare(struct build *b)
{
	char from[KB_PATH_MAX], to[KB_PATH_MAX];
	struct strbuf have = STRBUF_INIT, want = STRBUF_INIT;
	int r = 0;
	if (mkdir_p(b->obj, 0755) || objdir_begin(b->obj))
		return -1;
	if (!b->cfgobj[0])
		return 0; /* --rebuild: the .config there is the build's */
	snprintf(from, sizeof(from), "%s/.config", b->cfgobj);
	snprintf(to, sizeof(to), "%s/.config", b->obj);
	if (read_file(from, &want, 16u << 20))
		r = -1;
	else if (!path_exists(to) || read_file(to, &have, 16u << 20) || have.len != want.len ||
		 memcmp(have.buf, want.buf, want.len))
		r = copy_file(from, to, 0644);
	sb_release(&have);
	sb_release(&want);
	return r;
}

/* build: make bzImage in the object dir, with progress against the step
 * count of the last build of this base */
static int phase_build(struct build *b)
{
	const struct variant *v = b->v;
	char cnt[KB_PATH_MAX];
	struct strbuf sb = STRBUF_INIT;
	int expect = 0, steps, jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	double t0 = now_mono();
	if (obj_prepare(b))
		return -1;
	snprintf(b->log, sizeof(b->log), "%s/build.log", b->obj);
	unlink(b->log);
	snprintf(cnt, sizeof(cnt), "%s/steps-%s", b->builds, variant_base_name(v));
	if (path_exists(cnt) && read_file(cnt, &sb, 64) == 0 && sb.buf)
		expect = atoi(sb.buf);
	sb_release(&sb);
	if (!expect)
		expect = v->base == VBASE_TINYCONFIG ? 1300 : 3300;
	info("kbench: building %s (%s, %s) in %s with -j%d; log %s", v->name, b->treekey,
	     v->base == VBASE_TINYCONFIG ? "tinyconfig base: TEST KERNEL" :
	     v->base == VBASE_FILE ? "base_config file" : "defconfig base",
	     b->obj, jobs > 0 ? jobs : 1, b->log);
	steps = make_bzimage(b->tree, b->obj, b->log, jobs > 0 ? jobs : 1, expect);
	if (steps < 0)
		return step_fail("build", b->log, kb_interrupted ? "interrupted" : "make bzImage failed");
	if (objdir_end(b->obj))
		return -1;
	b->bi->build_s = now_mono() - t0;
	if (steps > 100) {
		char *s = xasprintf("%d\n", steps);
		write_file_atomic(cnt, s, strlen(s));
		free(s);
	}
	info("kbench: built %s in %.0f s", v->name, now_mono() - t0);
	return 0;
}

/* The artifacts and their description into TMPENT. */
static int fill_entry(const struct build *b, const char *tmpent)
{
	char from[KB_PATH_MAX], to[KB_PATH_MAX], odir[KB_PATH_MAX + 4];
	struct strbuf rel = STRBUF_INIT, meta = STRBUF_INIT;
	const char *argv[] = { "make", "-s", "-C", b->tree, odir, "ARCH=x86_64", "kernelrelease", NULL };
	int r;
	snprintf(odir, sizeof(odir), "O=%s", b->obj);
	snprintf(from, sizeof(from), "%s/arch/x86/boot/bzImage", b->obj);
	snprintf(to, sizeof(to), "%s/bzImage", tmpent);
	r = copy_file(from, to, 0644);
	snprintf(from, sizeof(from), "%s/.config", b->obj);
	snprintf(to, sizeof(to), "%s/config", tmpent);
	r = r || copy_file(from, to, 0644);
	snprintf(to, sizeof(to), "%s/build.log", tmpent);
	r = r || copy_file(b->log, to, 0644);
	if (!r && (run_capture(argv, 120, &rel) || !rel.buf)) {
		step_fail("build", NULL, "make kernelrelease failed");
		r = -1;
	}
	if (!r) {
		rtrim(rel.buf);
		sb_addf(&meta, "release=%s\nsource=%s\nkey=%s\ncompiler=%s\nvariant=%s\n", rel.buf,
			b->treekey, b->h, b->cc, b->v->name);
		snprintf(to, sizeof(to), "%s/kbench-entry", tmpent);
		r = write_file_atomic(to, meta.buf, meta.len);
	}
	sb_release(&rel);
	sb_release(&meta);
	return r ? -1 : 0;
}

/* publish: the artifacts into a temporary entry, then rename */
static int phase_publish(struct build *b, struct kernel_image *k)
{
	char tmpent[KB_PATH_MAX];
	int ret = -1;
	snprintf(tmpent, sizeof(tmpent), "%s/.tmp-%.24s-%ld", b->builds, b->h, (long)getpid());
	rm_rf(tmpent);
	if (mkdir_p(tmpent, 0755) || fill_entry(b, tmpent))
		goto out;
	rm_rf(b->entry);
	if (rename(tmpent, b->entry)) {
		error("cannot move '%s' to '%s': %s", tmpent, b->entry, strerror(errno));
		goto out;
	}
	ret = entry_fill(b->entry, k) ? -1 : 0;
out:
	rm_rf(tmpent);
	return ret;
}

/* A miss: configure, and unless the config's key is in the cache, lock
 * it, look again (another kbench may have built it meanwhile), build out
 * of tree and publish. The object dir is kept for incremental rebuilds of
 * the same tree and config; a user's tree (KSRC) has one for all its
 * commits, so a bisection's steps rebuild only what each commit changed. */
static int configure_and_build(struct build *b, struct kernel_image *k)
{
	char from[KB_PATH_MAX];
	int rebuild = b->bi->rebuild;
	if (tree_ready(b) || phase_config(b) || config_key(b))
		return -1;
	/* a kernel the guest cannot use is refused before it is built (kbench
	 * kconfig still writes its config) */
	snprintf(from, sizeof(from), "%s/.config", b->cfgobj);
	if (b->v->base == VBASE_FILE) /* a machine's config: its needs are its own */
		info("kbench: %s: base = file, a machine's config: QEMU's guest needs are not "
		     "checked before the build (a QEMU run of it checks them)", b->v->name);
	else if (kneeds_refuse_config(b->v->name, from))
		return -1;
	if (!rebuild && entry_fill(b->entry, k) == 0) {
		info("kbench: %s: build cache hit (%s, kernel %s)", b->v->name, b->entry, k->release);
		b->bi->hit = 1;
		return 0;
	}
	b->lock = lock_key(b->builds, b->h);
	if (b->lock < 0)
		return -1;
	if (!rebuild && entry_fill(b->entry, k) == 0) {
		info("kbench: %s: built meanwhile by another kbench (%s)", b->v->name, b->entry);
		return 0;
	}
	obj_dir(b);
	return phase_build(b) || phase_publish(b, k) ? -1 : 0;
}

/* record: remember the variant's last build (for `kbench kernels`) and
 * the build the inputs gave (the fast path) */
static void phase_record(const struct build *b)
{
	char pdir[KB_PATH_MAX], ptr[KB_PATH_MAX], *s = xasprintf("%.24s\n", b->h);
	snprintf(pdir, sizeof(pdir), "%s/by-variant", b->builds);
	snprintf(ptr, sizeof(ptr), "%s/%s", pdir, b->v->name);
	if (mkdir_p(pdir, 0755) == 0)
		write_file_atomic(ptr, s, strlen(s));
	snprintf(pdir, sizeof(pdir), "%s/inputs", b->builds);
	if (mkdir_p(pdir, 0755) == 0)
		write_file_atomic(b->inptr, s, strlen(s));
	free(s);
}

/* config only (`kbench kconfig`): the merged .config to the caller's
 * file; nothing is built, so the build-cache index is left alone */
static int config_only(struct build *b)
{
	char p[KB_PATH_MAX];
	if (tree_ready(b) || phase_config(b))
		return -1;
	snprintf(p, sizeof(p), "%s/.config", b->cfgobj);
	return copy_file(p, b->bi->config_out, 0644);
}

int kernel_build(const struct variant *v, struct kernel_image *k, struct build_info *bi)
{
	struct build_info none;
	struct build *b = xcalloc(1, sizeof(*b));
	int ret = -1, r;

	memset(&none, 0, sizeof(none));
	b->v = v;
	b->bi = bi ? bi : &none;
	b->lock = b->objlock = -1;
	/* keep the caller's request, clear the results */
	b->bi->hit = 0;
	b->bi->build_s = 0;
	b->bi->key[0] = b->bi->source[0] = b->bi->compiler[0] = '\0';
	if (phase_source(b) || phase_inputs(b))
		goto out;
	if (b->bi->config_out[0]) {
		ret = config_only(b);
		goto out;
	}
	if (b->bi->rebuild && (r = configured_build(b)) <= 0)
		ret = r < 0 || phase_build(b) || phase_publish(b, k) ? -1 : 0;
	else if (!b->bi->rebuild && inputs_hit(b, k) == 0)
		ret = 0;
	else
		ret = configure_and_build(b, k);
	if (ret == 0)
		phase_record(b);
out:
	if (b->cfgobj[0])
		rm_rf(b->cfgobj);
	if (b->lock >= 0)
		close(b->lock);
	if (b->objlock >= 0)
		close(b->objlock);
	strvec_clear(&b->patches);
	sb_release(&b->patchset);
	free(b);
	return ret;
}

/* ---- a machine's running config (kbench target-config) ---- */

/* The length of L's first N bytes' prefix of letters, digits, '_' (and
 * '-' when DASH): strspn bounded by N (L need not end in a NUL). */
static size_t ident_span(const char *l, size_t n, int dash)
{
	size_t i = 0;
	while (i < n && (isalnum((unsigned char)l[i]) || l[i] == '_' || (dash && l[i] == '-')))
		i++;
	return i;
}

/* A remote machine's text, line by line: each line printable (tabs
 * allowed; L need not end in a NUL) and then FN's to judge. 0, or -1
 * with ERR naming the line. */
typedef int (*line_fn)(const char *l, size_t n, size_t lineno, void *ctx, char *err,
		       size_t errlen);
static int each_text_line(const char *text, size_t len, line_fn fn, void *ctx, char *err,
			  size_t errlen)
{
	size_t lineno = 0;
	for (const char *l = text, *end; l < text + len; l = end + 1) {
		size_t n;
		end = memchr(l, '\n', (size_t)(text + len - l));
		if (!end)
			end = text + len;
		n = (size_t)(end - l);
		lineno++;
		for (size_t i = 0; i < n; i++)
			if (!isprint((unsigned char)l[i]) && l[i] != '\t') {
				snprintf(err, errlen, "line %zu: a byte that is not printable text (0x%02x)",
					 lineno, (unsigned char)l[i]);
				return -1;
			}
		if (n && fn(l, n, lineno, ctx, err, errlen))
			return -1;
	}
	return 0;
}

struct kconfig_count {
	size_t opts;
	int x86_64;
};

static int kconfig_line(const char *l, size_t n, size_t lineno, void *ctx, char *err,
			size_t errlen)
{
	struct kconfig_count *c = ctx;
	size_t name = ident_span(l, n, 0);
	if (l[0] == '#')
		return 0;
	if (n < 7 || memcmp(l, "CONFIG_", 7) || name <= 7 || name >= n || l[name] != '=') {
		snprintf(err, errlen, "line %zu: expected 'CONFIG_X=value', a comment or a blank line, "
			 "got '%.*s'", lineno, (int)(n < 60 ? n : 60), l);
		return -1;
	}
	c->opts++;
	if (n == 15 && !memcmp(l, "CONFIG_X86_64=y", 15))
		c->x86_64 = 1;
	return 0;
}

/* Hand-written: the text comes from a remote machine (untrusted) and
 * must be a Kconfig file before kbench writes it anywhere or make reads
 * it; no library parses Kconfig output. */
int kconfig_text_check(const char *text, size_t len, char *err, size_t errlen)
{
	struct kconfig_count c = { 0, 0 };
	if (len > KCONFIG_TEXT_MAX) {
		snprintf(err, errlen, "%zu bytes, more than a config has (at most %d)", len,
			 KCONFIG_TEXT_MAX);
		return -1;
	}
	if (each_text_line(text, len, kconfig_line, &c, err, errlen))
		return -1;
	if (c.opts < 100) {
		snprintf(err, errlen, "only %zu options: not a kernel's config", c.opts);
		return -1;
	}
	if (!c.x86_64) {
		snprintf(err, errlen, "not an x86_64 config (no CONFIG_X86_64=y): kbench builds x86_64");
		return -1;
	}
	return 0;
}

static int module_line(const char *l, size_t n, size_t lineno, void *ctx, char *err,
		       size_t errlen)
{
	size_t name = ident_span(l, n, 1);
	if (!name || name + 1 >= n || l[name] != ' ' || !isdigit((unsigned char)l[name + 1])) {
		snprintf(err, errlen, "line %zu: expected '/proc/modules' lines (NAME SIZE ...), got "
			 "'%.*s'", lineno, (int)(n < 60 ? n : 60), l);
		return -1;
	}
	++*(int *)ctx;
	return 0;
}

/* /proc/modules as localmodconfig's LSMOD file: "NAME SIZE ..." lines.
 * Returns the module count, or -1 with ERR on anything else. */
int kconfig_modules_check(const char *text, size_t len, char *err, size_t errlen)
{
	int mods = 0;
	return each_text_line(text, len, module_line, &mods, err, errlen) ? -1 : mods;
}

/* IN brought up to Debian's 6.12 tree (olddefconfig) and, with LSMOD,
 * trimmed to the modules it lists and those built in (make
 * localyesconfig: kbench builds the bzImage alone, no modules), into OUT. */
int kconfig_for_tree(const char *in, const char *lsmod, const char *out)
{
	char tree[KB_PATH_MAX], ident[600], cc[256], obj[KB_PATH_MAX], log[KB_PATH_MAX];
	char odir[KB_PATH_MAX + 4], dotconfig[KB_PATH_MAX], lsarg[KB_PATH_MAX + 8];
	int ret = -1;
	if (kernel_source("linux-source-6.12", "trixie", tree, sizeof(tree), ident, sizeof(ident), cc,
			  sizeof(cc)))
		return -1;
	snprintf(obj, sizeof(obj), "%s/tmp/target-config-%ld", cache_root(), (long)getpid());
	rm_rf(obj);
	if (mkdir_p(obj, 0755))
		return -1;
	snprintf(log, sizeof(log), "%s.log", obj);
	snprintf(odir, sizeof(odir), "O=%s", obj);
	snprintf(dotconfig, sizeof(dotconfig), "%s/.config", obj);
	snprintf(lsarg, sizeof(lsarg), "LSMOD=%s", lsmod ? lsmod : "");
	if (copy_file(in, dotconfig, 0644))
		goto out;
	if (config_make(tree, odir, log, "olddefconfig", NULL)) {
		step_fail("config", log, "make olddefconfig over the machine's config failed");
		goto out;
	}
	if (lsmod && config_make(tree, odir, log, lsarg, "localyesconfig")) {
		step_fail("config", log, "make localyesconfig failed");
		goto out;
	}
	ret = copy_file(dotconfig, out, 0644);
	if (!ret)
		unlink(log);
out:
	rm_rf(obj);
	return ret;
}
