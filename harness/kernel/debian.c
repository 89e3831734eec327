/* kernel.c - fetch prebuilt Debian kernel images into the cache.
 *
 * apt runs with a private configuration under $CACHE/apt (own sources list,
 * lists and archive cache, no dpkg status), so the host's apt setup is not
 * touched and nothing is installed: `apt-get download` + `dpkg -x` unpack
 * the image into $CACHE/kernels/<package>_<version>. A pointer file
 * $CACHE/kernels/by-name/<package> names the entry a metapackage resolved
 * to, so a second run needs no network at all.
 */
#include "kernel/kernel.h"
#include "kernel/userimage.h"
#include "kernel/apt.h"
#include "kernel/source.h"
#include "core/spawn.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static int publish_root(const char *root, const char *content, const char *entry,
			struct kernel_image *k);
static int kernel_files(const struct variant *v, int fetch, struct kernel_image *k);

static int find_vmlinuz(const char *root, struct kernel_image *k)
{
	char boot[KB_PATH_MAX];
	DIR *d;
	struct dirent *e;
	snprintf(boot, sizeof(boot), "%s/boot", root);
	d = opendir(boot);
	if (!d)
		return error("kernel package has no /boot directory ('%s')", boot);
	while ((e = readdir(d))) {
		if (!strncmp(e->d_name, "vmlinuz-", 8)) {
			snprintf(k->release, sizeof(k->release), "%s", e->d_name + 8);
			break;
		}
	}
	closedir(d);
	if (!k->release[0])
		return error("kernel package has no boot/vmlinuz-* ('%s')", boot);
	return 0;
}

/* Fill the paths of K from a cache entry directory. */
static int entry_load(const char *dir, struct kernel_image *k)
{
	char meta[KB_PATH_MAX];
	struct strbuf sb = STRBUF_INIT;
	int ret = -1;

	snprintf(meta, sizeof(meta), "%s/kbench-entry", dir);
	if (!path_exists(meta))
		return 1; /* incomplete or absent */
	if (read_file(meta, &sb, 65536))
		goto out;
	snprintf(k->dir, sizeof(k->dir), "%s", dir);
	for (char *line = strtok(sb.buf, "\n"); line; line = strtok(NULL, "\n")) {
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq++ = '\0';
		if (!strcmp(line, "package"))
			snprintf(k->package, sizeof(k->package), "%s", eq);
		else if (!strcmp(line, "version"))
			snprintf(k->version, sizeof(k->version), "%s", eq);
		else if (!strcmp(line, "release"))
			snprintf(k->release, sizeof(k->release), "%s", eq);
	}
	if (!k->release[0] || !k->package[0]) {
		error("corrupt cache entry '%s' (remove it to fetch again)", meta);
		goto out;
	}
	snprintf(k->vmlinuz, sizeof(k->vmlinuz), "%s/boot/vmlinuz-%s", dir, k->release);
	snprintf(k->config, sizeof(k->config), "%s/boot/config-%s", dir, k->release);
	kernel_moddir(dir, k->release, k->moddir, sizeof(k->moddir));
	if (!path_exists(k->vmlinuz)) {
		error("corrupt cache entry '%s': '%s' is missing (remove the entry to fetch again)",
		      dir, k->vmlinuz);
		goto out;
	}
	if (path_exists(k->config)) {
		if (sha256_file_hex(k->config, k->config_hash))
			goto out;
	} else {
		k->config[0] = '\0';
	}
	ret = 0;
out:
	sb_release(&sb);
	return ret;
}

int kernel_moddir(const char *root, const char *release, char *out, size_t n)
{
	/* trixie's packages put modules in /usr/lib/modules, bookworm's and
	 * older ones in /lib/modules: take whichever the package has */
	snprintf(out, n, "%s/usr/lib/modules/%s", root, release);
	if (path_exists(out))
		return 0;
	snprintf(out, n, "%s/lib/modules/%s", root, release);
	if (path_exists(out))
		return 0;
	out[0] = '\0';
	return 1;
}

static void pointer_path(const struct variant *v, char *out, size_t n)
{
	snprintf(out, n, "%s/kernels/by-name/%s_%s", cache_root(), v->package, v->release);
}

int kernel_cached(const struct variant *v, struct kernel_image *k)
{
	char ptr[KB_PATH_MAX], dir[KB_PATH_MAX];
	struct strbuf sb = STRBUF_INIT;
	int ret;
	memset(k, 0, sizeof(*k));
	if (v->source == VSRC_BUILD)
		return kernel_build_last(v, k);
	if (v->source == VSRC_IMAGE)
		return kernel_from_image(v, k);
	if (v->package_file[0])
		return kernel_files(v, 0, k);
	pointer_path(v, ptr, sizeof(ptr));
	if (!path_exists(ptr))
		return 1;
	if (read_file(ptr, &sb, 4096)) {
		sb_release(&sb);
		return -1;
	}
	rtrim(sb.buf);
	if (!sb.len || strchr(sb.buf, '/')) {
		error("corrupt cache pointer '%s' (remove it to fetch again)", ptr);
		sb_release(&sb);
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s/kernels/%s", cache_root(), sb.buf);
	sb_release(&sb);
	ret = entry_load(dir, k);
	return ret;
}

/* Debian ships no modules.dep (depmod runs at install): make one. */
static int depmod_tree(const char *root, const struct kernel_image *k)
{
	char lib[KB_PATH_MAX], usrlib[KB_PATH_MAX], *dm;
	const char *argv[] = { NULL, "-b", root, k->release, NULL };
	int r;
	snprintf(lib, sizeof(lib), "%s/lib", root);
	snprintf(usrlib, sizeof(usrlib), "%s/usr/lib/modules", root);
	if (path_exists(usrlib) && !path_exists(lib) && symlink("usr/lib", lib))
		warning("cannot link '%s': %s", lib, strerror(errno));
	/* bookworm and older: lib/modules in the package itself */
	snprintf(usrlib, sizeof(usrlib), "%s/lib/modules", root);
	if (!path_exists(usrlib))
		return 0;
	dm = which("depmod");
	if (!dm)
		return error("depmod not found (install kmod: make deps)");
	argv[0] = dm;
	r = run_capture(argv, 600, NULL);
	free(dm);
	return r ? error("depmod for %s failed", k->release) : 0;
}


/* The downloaded .deb in TMP unpacked into TMP/root, made usable
 * (depmod) and described (kbench-entry), then renamed to ENTRY. */
static int unpack_image(const struct variant *v, const char *tmp, const char *spec,
			const char *real, const char *version, const char *entry,
			struct kernel_image *k)
{
	char deb[KB_PATH_MAX], root[KB_PATH_MAX];
	const char *argv[] = { "dpkg-deb", "-x", deb, root, NULL };
	char *content;
	int r;
	if (dir_find(tmp, ".deb", deb, sizeof(deb)))
		return error("apt-get download of %s produced no .deb in '%s'", spec, tmp);
	snprintf(root, sizeof(root), "%s/root", tmp);
	info("kbench: unpacking %s", deb);
	if (run_capture(argv, 600, NULL))
		return error("dpkg-deb -x '%s' failed", deb);
	memset(k, 0, sizeof(*k));
	if (find_vmlinuz(root, k) || depmod_tree(root, k))
		return -1;
	unlink(deb); /* the unpacked tree is what we keep */
	content = xasprintf("package=%s\nversion=%s\nrelease=%s\nmetapackage=%s\ndebian=%s\n",
			    real, version, k->release, v->package, v->release);
	r = publish_root(root, content, entry, k);
	free(content);
	return r;
}

/* Describe the unpacked package tree ROOT (kbench-entry: CONTENT) and
 * move it to the cache entry ENTRY. */
static int publish_root(const char *root, const char *content, const char *entry,
			struct kernel_image *k)
{
	char meta[KB_PATH_MAX];
	snprintf(meta, sizeof(meta), "%s/kbench-entry", root);
	if (write_file_atomic(meta, content, strlen(content)))
		return -1;
	rm_rf(entry); /* an incomplete earlier attempt */
	if (rename(root, entry))
		return error("cannot move '%s' to '%s': %s", root, entry, strerror(errno));
	return entry_load(entry, k);
}

/* FIELD of the control file of package DEB into OUT (one line of plain
 * characters: the package is the user's file). */
static int deb_field(const char *deb, const char *field, char *out, size_t n)
{
	const char *argv[] = { "dpkg-deb", "-f", deb, field, NULL };
	struct strbuf sb = STRBUF_INIT;
	int bad = run_capture(argv, 60, &sb) != 0 || !sb.buf;
	if (!bad) {
		rtrim(sb.buf);
		bad = !*sb.buf || strlen(sb.buf) >= n || strspn(sb.buf, "abcdefghijklmnopqrstuvwxyz"
		      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-~:_") != strlen(sb.buf);
		if (!bad)
			snprintf(out, n, "%s", sb.buf);
	}
	sb_release(&sb);
	return bad ? error("'%s': no plain %s in its control file (is it a Debian package?)", deb,
			   field) : 0;
}

/* The cache entry of a variant's local package files, named by their
 * contents: a changed file is a new entry. */
static int files_entry(const struct variant *v, char *entry, size_t n)
{
	char h1[65], h2[65] = "", all[65];
	char *key;
	if (sha256_file_hex(v->package_file, h1) ||
	    (v->modules_file[0] && sha256_file_hex(v->modules_file, h2)))
		return -1;
	key = xasprintf("kbench-debs 1\n%s\n%s\n", h1, h2);
	sha256_hex(key, strlen(key), all);
	free(key);
	snprintf(entry, n, "%s/kernels/file-%.24s", cache_root(), all);
	return 0;
}

/* A variant's local package files (package_file, modules_file) unpacked
 * into one tree, as apt would install them, into its cache entry. */
static int unpack_files(const struct variant *v, const char *entry, struct kernel_image *k)
{
	char tmp[KB_PATH_MAX], root[KB_PATH_MAX], pkg[OPT_STR_MAX], ver[128];
	const char *const files[] = { v->package_file, v->modules_file };
	char *content = NULL;
	int ret = -1;
	snprintf(tmp, sizeof(tmp), "%s/kernels/.tmp-file-%ld", cache_root(), (long)getpid());
	snprintf(root, sizeof(root), "%s/root", tmp);
	rm_rf(tmp);
	if (mkdir_p(root, 0755) || deb_field(v->package_file, "Package", pkg, sizeof(pkg)) ||
	    deb_field(v->package_file, "Version", ver, sizeof(ver)))
		goto out;
	for (int i = 0; i < 2 && files[i][0]; i++) {
		const char *argv[] = { "dpkg-deb", "-x", files[i], root, NULL };
		info("kbench: unpacking %s", files[i]);
		if (run_capture(argv, 600, NULL)) {
			error("dpkg-deb -x '%s' failed: not a Debian package?", files[i]);
			goto out;
		}
	}
	memset(k, 0, sizeof(*k));
	if (find_vmlinuz(root, k) || depmod_tree(root, k))
		goto out;
	content = xasprintf("package=%s\nversion=%s\nrelease=%s\nmetapackage=%s\ndebian=local\n",
			    pkg, ver, k->release, pkg);
	ret = publish_root(root, content, entry, k);
out:
	free(content);
	rm_rf(tmp);
	return ret;
}

/* kernel_get and kernel_cached for package files: 0, 1 (not unpacked
 * yet, with FETCH 0), or -1. */
static int kernel_files(const struct variant *v, int fetch, struct kernel_image *k)
{
	char entry[KB_PATH_MAX], dir[KB_PATH_MAX];
	int ret, lock;
	memset(k, 0, sizeof(*k));
	if (files_entry(v, entry, sizeof(entry)))
		return -1;
	if ((ret = entry_load(entry, k)) <= 0 || !fetch)
		return ret;
	snprintf(dir, sizeof(dir), "%s/kernels", cache_root());
	if (mkdir_p(dir, 0755) || (lock = lock_file(dir, ".lock", v->name)) < 0)
		return -1;
	ret = entry_load(entry, k) == 0 ? 0 : unpack_files(v, entry, k);
	close(lock);
	if (!ret)
		info("kbench: cached %s %s (kernel %s) from %s", k->package, k->version, k->release,
		     v->package_file);
	return ret;
}

/* Download REAL=VERSION and unpack it into ENTRY. */
static int download_image(const struct variant *v, const struct strvec *opts, const char *real,
			  const char *version, const char *entry, struct kernel_image *k)
{
	char tmp[KB_PATH_MAX];
	char *spec = xasprintf("%s=%s", real, version);
	int ret = -1;
	snprintf(tmp, sizeof(tmp), "%s/kernels/.tmp-%s-%ld", cache_root(), real, (long)getpid());
	if (apt_download(opts, spec, tmp, "70-110 MB"))
		goto out;
	ret = unpack_image(v, tmp, spec, real, version, entry, k);
out:
	rm_rf(tmp);
	free(spec);
	return ret;
}

/* Fetch: resolve the package, download, unpack, depmod, publish. */
static int kernel_fetch(const struct variant *v, struct kernel_image *k)
{
	struct strvec opts = STRVEC_INIT;
	char real[OPT_STR_MAX], version[128] = "", entry[KB_PATH_MAX], ptr[KB_PATH_MAX];
	char pdir[KB_PATH_MAX], *base = NULL;
	int ret = -1, r;

	if (apt_setup(v->release, &opts))
		goto out;
	info("kbench: updating the package lists for Debian '%s' (private apt configuration in %s/apt)",
	     v->release, cache_root());
	r = apt_lookup(&opts, v->package, real, sizeof(real), version, sizeof(version));
	if (r) {
		if (r > 0)
			error("apt-cache show %s printed no Version", v->package);
		goto out;
	}
	snprintf(entry, sizeof(entry), "%s/kernels/%s_%s", cache_root(), real, version);
	if (entry_load(entry, k) == 0)
		info("kbench: %s %s is already in the cache", real, version);
	else if (download_image(v, &opts, real, version, entry, k))
		goto out;
	/* publish: the pointer from the variant's package to the entry */
	pointer_path(v, ptr, sizeof(ptr));
	snprintf(pdir, sizeof(pdir), "%s/kernels/by-name", cache_root());
	base = xasprintf("%s_%s\n", real, version);
	if (mkdir_p(pdir, 0755) || write_file_atomic(ptr, base, strlen(base)))
		goto out;
	info("kbench: cached %s %s (kernel %s)", k->package, k->version, k->release);
	ret = 0;
out:
	free(base);
	strvec_clear(&opts);
	return ret;
}

int kernel_get(const struct variant *v, int refresh, struct kernel_image *k)
{
	int ret, lock;
	if (v->source == VSRC_BUILD)
		return kernel_build(v, k, NULL);
	if (v->source == VSRC_IMAGE)
		return kernel_from_image(v, k);
	if (v->package_file[0])
		return kernel_files(v, 1, k);
	{
		char dir[KB_PATH_MAX];
		snprintf(dir, sizeof(dir), "%s/kernels", cache_root());
		lock = lock_file(dir, ".lock", v->name);
	}
	if (lock < 0)
		return -1;
	ret = refresh ? 1 : kernel_cached(v, k);
	if (ret == 1)
		ret = kernel_fetch(v, k);
	close(lock);
	return ret;
}

int kernel_image_check(const char *path)
{
	char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	if (fd < 0)
		return error("kernel image '%s': %s", path, strerror(errno));
	n = pread(fd, magic, sizeof(magic), 0x202);
	close(fd);
	if (n != (ssize_t)sizeof(magic) || memcmp(magic, "HdrS", 4))
		return error("'%s' is not a bootable x86 kernel image (no bzImage header): a corrupt "
			     "cache entry? Fetch or build it again (kbench fetch --refresh VARIANT, or "
			     "remove it from the cache)", path);
	return 0;
}
