/* image.h - the guest's initramfs (cached by content) and scratch disk. */
#ifndef KBENCH_IMAGE_H
#define KBENCH_IMAGE_H

#include "kernel/kernel.h"
#include "core/workload.h"

/* Build (or find in the cache) the initramfs for kernel K carrying NEEDS;
 * its path goes to OUT. */
int image_build(const struct kernel_image *k, const struct image_needs *needs,
		const char *agent, char *out, size_t outlen);

/* The cpio file list of STAGE ("./path" lines) into LIST; -1 with an
 * error when the walk or a write fails. */
int image_file_list(const char *stage, const char *list);

/* Create a sparse ext4 image of SIZE_MB at PATH (replacing any). */
int scratch_create(const char *path, int size_mb);

#endif
