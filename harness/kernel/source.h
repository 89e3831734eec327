/* build.h - kernel variants built from source, cached by content. */
#ifndef KBENCH_BUILD_H
#define KBENCH_BUILD_H

#include "kernel/kernel.h"

struct build_info {
	char key[32];        /* build cache key (short) */
	char source[600];    /* source identity, with patches */
	char compiler[256];
	int hit;             /* found in the cache */
	double build_s;      /* time of `make bzImage` on a miss */
	char config_out[4096]; /* if set: stop after the config step, copy .config here */
	int rebuild;           /* ignore a cache hit: run make again in the kept object dir */
};

/* Find V's kernel in the build cache or build it (source, patch, config,
 * build). Returns 0, or -1 after an error naming the step and its log. */
int kernel_build(const struct variant *v, struct kernel_image *k, struct build_info *bi);
/* A machine's running config and loaded modules (kbench target-config):
 * untrusted text checked line by line (0, or -1 with ERR naming the
 * line); the modules check returns their count. */
#define KCONFIG_TEXT_MAX (4 << 20)
int kconfig_text_check(const char *text, size_t len, char *err, size_t errlen);
int kconfig_modules_check(const char *text, size_t len, char *err, size_t errlen);
/* IN made a config of Debian's 6.12 tree (olddefconfig), trimmed with
 * localyesconfig to the modules of LSMOD, built in, when LSMOD is not
 * NULL (kbench builds no modules), written to OUT. */
int kconfig_for_tree(const char *in, const char *lsmod, const char *out);

/* "defconfig", "tinyconfig" or "file" (base = file: V's base_config). */
const char *variant_base_name(const struct variant *v);
/* The variant's most recent build, without configuring: 0 found, 1 none. */
int kernel_build_last(const struct variant *v, struct kernel_image *k);

/* The keys of a source build's inputs (the config's inputs, for the fast
 * path: the same inputs need no configuring) and, for a user's tree
 * (LOCATION set), of its object directory: the same without the commit,
 * so consecutive commits share one and make rebuilds only what changed.
 * OBJDIR is "" without a LOCATION. */
struct build_key_in {
	const char *source;    /* the source identity with the patches' (commit included) */
	const char *location;  /* a user's tree: its real path; NULL for Debian's */
	const char *patchset;  /* "patch NAME SHA256" lines */
	int base;              /* enum of the config base */
	const char *compiler;
	const char *fragments; /* "fragment NAME SHA256" lines */
};
void kernel_build_keys(const struct build_key_in *in, char inputs[65], char objdir[65]);

/* The source tree variants build from (KSRC, or Debian's TREE_PKG of
 * RELEASE unpacked once per cache), its identity and gcc's version, for
 * the kbuild workload. 0, or -1 after an error. */
int kernel_source(const char *tree_pkg, const char *release, char *tree, size_t treelen,
		  char *ident, size_t identlen, char *compiler, size_t cclen);

#endif
