/* kernel.h - kernel images in the cache: fetch Debian's prebuilt images
 * through a private apt configuration, record exactly what was fetched. */
#ifndef KBENCH_KERNEL_H
#define KBENCH_KERNEL_H

#include "core/config.h"

struct kernel_image {
	char dir[KB_PATH_MAX];      /* cache entry: an unpacked package root */
	char vmlinuz[KB_PATH_MAX];
	char config[KB_PATH_MAX];   /* the kernel's .config, "" if none */
	char moddir[KB_PATH_MAX];   /* lib/modules/<release>, "" if none */
	char release[128];          /* uname -r of the image */
	char package[OPT_STR_MAX];  /* resolved binary package */
	char version[128];          /* its Debian version */
	char config_hash[65];       /* sha256 of the .config */
	/* source = image (kernel/userimage.c) */
	char image_sha256[65];      /* sha256 of the image */
	char banner[256];           /* the image's version string */
};

/* Find the variant's kernel in the cache, fetching it when missing (or
 * always, with REFRESH). Returns 0, or -1 with an error printed. */
int kernel_get(const struct variant *v, int refresh, struct kernel_image *k);
/* Cache-only look-up: 0 if cached (K filled), 1 if not, -1 on error. */
int kernel_cached(const struct variant *v, struct kernel_image *k);

/* The modules directory of kernel RELEASE in the unpacked package ROOT
 * (usr/lib/modules/RELEASE or lib/modules/RELEASE) into OUT: 0, or 1 and
 * "" when the package has none. */
int kernel_moddir(const char *root, const char *release, char *out, size_t n);

/* Is PATH an x86 boot image (the "HdrS" boot protocol magic at 0x202)?
 * 0, or -1 with an error naming the file: a corrupt cache entry or a
 * wrong file must not reach QEMU, which would sit at a blank console. */
int kernel_image_check(const char *path);

#endif
