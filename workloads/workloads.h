/* workloads.h - the workloads' own declarations: one ops table per line of
 * list.h, and kbuild's functions that cyclictest's kbuild load and
 * `kbench kbuild-native` share. The harness reaches workloads through the
 * registry (core/workload.h); only the command line (kbuild-native), the
 * tests and the fuzz targets include this. */
#ifndef KBENCH_WORKLOADS_H
#define KBENCH_WORKLOADS_H

#include "core/workload.h"

/* hackbench_ops, dbench_ops, ...: one per line of workloads/list.h */
#define WORKLOAD(name) extern const struct workload_ops name##_ops;
#include "workloads/list.h"

/* kbuild (workloads/kbuild.c), shared with cyclictest's kbuild load. */
enum kbuild_prepare {
	KB_PREP_HOST,   /* configured and prepared on the host, once per cache */
	KB_PREP_GUEST,  /* in the guest, before the timed part */
	KB_PREP_TIMED,  /* in the guest, inside the timed part */
};
/* Find or make the cached kbuild disk for CONFIG (defconfig, tinyconfig,
 * allnoconfig or an absolute .config path) and record it in NEEDS. The
 * tree's guest path goes to SRC and the object directory to OBJ. */
int kbuild_disk(const char *config, enum kbuild_prepare prep, struct image_needs *needs,
		char *src, size_t srclen, char *obj, size_t objlen);
/* make's whole environment in the guest and in the native comparison. */
void kbuild_env(struct strvec *env);
/* On a remote machine: its path of the tree (the host's, and the key of
 * the copy, into NEEDS->tree and ->tree_key), and the untimed step that
 * prepares it there (once per toolchain) into OBJ (TIMED: OBJ empty). */
int kbuild_target_tree(struct image_needs *needs, char *tree, size_t len);
void kbuild_target_pre(const char *tree, const char *config, int timed, int jobs, const char *obj,
		       struct strvec *pre);
/* The timed make command of kbuild PARAMS for a tree at SRC, objects at OBJ. */
int kbuild_make_argv(const void *params, const char *src, const char *obj, struct strvec *argv);
/* Run kbuild PARAMS natively ITERATIONS times in the disk's prepared tree;
 * one {"elapsed","user","sys","compiled"} object per build into RUNS. */
int kbuild_native(const void *params, int iterations, json_object *runs);
/* Check a target list ("vmlinux", "kernel/locking/", "mm/slub.o"). */
int kbuild_targets_check(const char *targets, char *err, size_t errlen);

#endif
