/* userimage.c - a kernel the user built outside kbench (userimage.h).
 * The boot header is read by hand: it is a fixed binary layout (the x86
 * boot protocol, Documentation/arch/x86/boot.rst) that no packaged
 * library parses. */
#include "kernel/userimage.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"

static unsigned le16(const unsigned char *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

int bzimage_parse(const unsigned char *buf, size_t len, struct bzimage_info *bi, char *err,
		  size_t errlen)
{
	size_t off, end;
	memset(bi, 0, sizeof(*bi));
	if (len >= 4 && !memcmp(buf, "\177ELF", 4))
		return snprintf(err, errlen, "an ELF file (vmlinux?), not a boot image: give "
			        "arch/x86/boot/bzImage"), -1;
	if (len >= 0x3c && !memcmp(buf + 0x38, "ARM\x64", 4))
		return snprintf(err, errlen, "an arm64 Image: kbench boots x86_64 guests only"), -1;
	if (len < 0x240 || memcmp(buf + 0x202, "HdrS", 4))
		return snprintf(err, errlen, "not an x86 boot image (no bzImage header \"HdrS\" at "
			        "0x202)"), -1;
	bi->protocol = le16(buf + 0x206);
	if (bi->protocol < 0x200)
		return snprintf(err, errlen, "boot protocol %u.%02u is too old (2.00 or later)",
				bi->protocol >> 8, bi->protocol & 0xff), -1;
	/* xloadflags (2.12+): bit 0, the kernel has a 64-bit entry point */
	bi->x86_64 = bi->protocol >= 0x20c ? (int)(le16(buf + 0x236) & 1) : -1;
	if (bi->x86_64 == 0)
		return snprintf(err, errlen, "a 32-bit kernel: kbench's guest is x86_64"), -1;
	/* kernel_version: the version string's offset minus 0x200 */
	off = (size_t)le16(buf + 0x20e);
	if (!off)
		return snprintf(err, errlen, "the boot header has no version string"), -1;
	off += 0x200;
	if (off >= len)
		return snprintf(err, errlen, "the version string (at %zu) lies outside the boot "
			        "header's %zu bytes", off, len), -1;
	for (end = off; end < len && end - off < sizeof(bi->version) - 1 && buf[end]; end++)
		if (buf[end] < 0x20 || buf[end] > 0x7e)
			return snprintf(err, errlen, "the version string has a non-printable byte "
				        "(0x%02x)", buf[end]), -1;
	if (end == len)
		return snprintf(err, errlen, "the version string runs past the boot header's %zu bytes "
			        "(a truncated image?)", len), -1;
	if (buf[end])
		return snprintf(err, errlen, "the version string is longer than %zu bytes",
				sizeof(bi->version) - 1), -1;
	snprintf(bi->version, sizeof(bi->version), "%.*s", (int)(end - off), (const char *)buf + off);
	snprintf(bi->release, sizeof(bi->release), "%.*s", (int)strcspn(bi->version, " "),
		 bi->version);
	if (!bi->release[0] || strchr(bi->release, '/'))
		return snprintf(err, errlen, "no kernel release in the version string '%s'",
				bi->version), -1;
	return 0;
}

int image_variant(const char *path, const char *modules, const char *config, struct variant *v)
{
	char *const dst[] = { v->image, v->modules, v->kconfig };
	const char *const src[] = { path, modules, config };
	memset(v, 0, sizeof(*v));
	v->source = VSRC_IMAGE;
	for (int i = 0; i < 3; i++) {
		char *abs;
		if (!src[i])
			continue;
		if (!(abs = realpath(src[i], NULL)))
			return error("%s '%s': %s", i == 0 ? "--kernel-image" : i == 1 ? "--kernel-modules"
				     : "--kernel-config", src[i], strerror(errno));
		if (strlen(abs) >= OPT_STR_MAX) {
			error("'%s': path too long (at most %d bytes)", abs, OPT_STR_MAX - 1);
			free(abs);
			return -1;
		}
		snprintf(dst[i], OPT_STR_MAX, "%s", abs);
		free(abs);
	}
	snprintf(v->path, sizeof(v->path), "%s", v->image);
	snprintf(v->description, sizeof(v->description), "a kernel image: %.200s", v->image);
	snprintf(v->package, sizeof(v->package), "image");
	{
		/* named by its release, in the characters names may have */
		struct kernel_image *k = xcalloc(1, sizeof(*k));
		int r = kernel_from_image(v, k);
		if (!r) {
			snprintf(v->name, sizeof(v->name), "image-%.*s", KB_NAME_MAX - 7, k->release);
			for (char *p = v->name; *p; p++)
				if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.", *p))
					*p = '_';
		}
		free(k);
		return r;
	}
}

/* The config of image IMG (release REL): the tree's .config for
 * TREE/arch/x86/boot/bzImage, else config-REL or config beside it. */
static void find_config(const char *img, const char *rel, char *out, size_t n)
{
	static const char tail[] = "/arch/x86/boot/bzImage";
	size_t l = strlen(img), tl = sizeof(tail) - 1;
	const char *slash = strrchr(img, '/');
	int dl = slash ? (int)(slash - img) : 0;
	if (l > tl && !strcmp(img + l - tl, tail)) {
		snprintf(out, n, "%.*s/.config", (int)(l - tl), img);
		if (path_exists(out))
			return;
	}
	snprintf(out, n, "%.*s/config-%s", dl, img, rel);
	if (path_exists(out))
		return;
	snprintf(out, n, "%.*s/config", dl, img);
	if (path_exists(out))
		return;
	out[0] = '\0';
}

/* K's modules directory from DIR: DIR itself (it has modules.dep), or
 * DIR/lib/modules/RELEASE (an INSTALL_MOD_PATH root). */
static int find_modules(const char *dir, struct kernel_image *k)
{
	char dep[KB_PATH_MAX];
	snprintf(dep, sizeof(dep), "%s/modules.dep", dir);
	if (path_exists(dep)) {
		snprintf(k->moddir, sizeof(k->moddir), "%s", dir);
		return 0;
	}
	if (kernel_moddir(dir, k->release, k->moddir, sizeof(k->moddir)) == 0) {
		snprintf(dep, sizeof(dep), "%s/modules.dep", k->moddir);
		if (path_exists(dep))
			return 0;
	}
	return error("--kernel-modules '%s': no modules.dep there nor in lib/modules/%s under it "
		     "(make modules_install INSTALL_MOD_PATH=DIR runs depmod)", dir, k->release);
}

int kernel_from_image(const struct variant *v, struct kernel_image *k)
{
	unsigned char buf[65536];
	struct bzimage_info bi;
	char err[300];
	ssize_t n;
	int fd = open(v->image, O_RDONLY | O_CLOEXEC);
	memset(k, 0, sizeof(*k));
	if (fd < 0)
		return error("kernel image '%s': %s", v->image, strerror(errno));
	n = pread(fd, buf, sizeof(buf), 0);
	close(fd);
	if (n < 0)
		return error("kernel image '%s': %s", v->image, strerror(errno));
	if (bzimage_parse(buf, (size_t)n, &bi, err, sizeof(err)))
		return error("kernel image '%s': %s", v->image, err);
	snprintf(k->vmlinuz, sizeof(k->vmlinuz), "%s", v->image);
	snprintf(k->release, sizeof(k->release), "%s", bi.release);
	snprintf(k->banner, sizeof(k->banner), "%s", bi.version);
	snprintf(k->package, sizeof(k->package), "image");
	if (sha256_file_hex(v->image, k->image_sha256))
		return -1;
	snprintf(k->version, sizeof(k->version), "sha256:%.16s", k->image_sha256);
	if (v->kconfig[0])
		snprintf(k->config, sizeof(k->config), "%s", v->kconfig);
	else
		find_config(v->image, k->release, k->config, sizeof(k->config));
	if (k->config[0] && (!path_exists(k->config) || sha256_file_hex(k->config, k->config_hash)))
		return error("kernel config '%s': cannot read it", k->config);
	if (v->modules[0] && find_modules(v->modules, k))
		return -1;
	snprintf(k->dir, sizeof(k->dir), "%s", v->image);
	return 0;
}
