/* userimage.h - a kernel the user built outside kbench (a bzImage from
 * their own tree, as `vng --run arch/x86/boot/bzImage` takes it): its
 * boot header checked and read, its config and modules found. */
#ifndef KBENCH_USERIMAGE_H
#define KBENCH_USERIMAGE_H

#include <stddef.h>

#include "core/config.h"
#include "kernel/kernel.h"

struct bzimage_info {
	unsigned protocol;     /* boot protocol version, e.g. 0x20f */
	int x86_64;            /* 1: a 64-bit kernel; 0: 32-bit; -1: unknown (old protocol) */
	char release[128];     /* uname -r: the version string's first word */
	char version[256];     /* the whole version string ("6.12.0 (u@h) #1 SMP ...") */
};

/* Read the x86 boot header in BUF (the image's first LEN bytes; at least
 * the setup code) into BI: 0, or -1 with what is wrong in ERR (not an
 * x86 boot image; an arm64 Image; a vmlinux ELF; a 32-bit kernel; no
 * readable version string). The bytes are the user's file: untrusted. */
int bzimage_parse(const unsigned char *buf, size_t len, struct bzimage_info *bi, char *err,
		  size_t errlen);

/* The variant for `--kernel-image PATH` (MODULES and CONFIG may be
 * NULL): source image, named image-RELEASE. */
int image_variant(const char *path, const char *modules, const char *config, struct variant *v);

/* Kernel K of a source = image variant: the image checked and hashed, its
 * release read, its config (V's, else the tree's .config when the image
 * is TREE/arch/x86/boot/bzImage, else config-RELEASE or config beside
 * it) and its modules (V's: a lib/modules/RELEASE directory with a
 * modules.dep, or a root holding one). 0, or -1 with an error. */
int kernel_from_image(const struct variant *v, struct kernel_image *k);

#endif
