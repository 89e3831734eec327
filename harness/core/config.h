/* config.h - suites and kernel variants, as INI files parsed with inih. */
#ifndef KBENCH_CONFIG_H
#define KBENCH_CONFIG_H

#include <stdio.h>
#include "core/workload.h"

#define KB_NAME_MAX 64

struct suite_entry {
	const struct workload_ops *ops;
	char label[KB_NAME_MAX]; /* section name: "hackbench" or "cyclictest.load" */
	void *params;            /* ops->params_size bytes, owned */
	int timeout_s;           /* "timeout" key: overrides the derived deadline
				  * (of each repeat) */
	int repeat;              /* "repeat" key: runs back to back in one boot
				  * (1..KB_REPEAT_MAX, default 1) */
};

#define KB_REPEAT_MAX 100

struct suite {
	char name[KB_NAME_MAX];
	char path[KB_PATH_MAX];
	char description[OPT_STR_MAX];
	int iterations;
	int warmup; /* discarded warm-up iterations */
	struct suite_entry *w;
	size_t n;
};

/* Resolve NAME (a name in configs/suites, or a path) and load it.
 * VCPUS feeds workload defaults. Errors name the file and line. */
int suite_load(const char *name, int vcpus, struct suite *s);
void suite_release(struct suite *s);
/* Space-separated suite names in configs/suites, for messages. */
char *suite_names(void);

enum variant_source {
	VSRC_DEBIAN_IMAGE, /* a prebuilt Debian linux-image package */
	VSRC_BUILD,        /* built by kbench from a source tree */
	VSRC_IMAGE,        /* a kernel image the user built (--kernel-image) */
	VSRC_RUNNING,      /* --kernel running: this machine's kernel (the
			    * local backend) */
};

enum variant_base {
	VBASE_DEFCONFIG,   /* x86_64_defconfig + kvm_guest.config: for figures */
	VBASE_TINYCONFIG,  /* tinyconfig: for tests only, never for figures */
	VBASE_FILE,        /* a .config of the user's (base_config): a machine's
			    * running config, from `kbench target-config` */
};

struct variant {
	char name[KB_NAME_MAX];
	char path[KB_PATH_MAX];
	char description[OPT_STR_MAX];
	int source;                    /* enum variant_source */
	char package[OPT_STR_MAX];     /* Debian package (a metapackage is resolved) */
	char release[KB_NAME_MAX];     /* Debian release, e.g. trixie */
	char cmdline[OPT_STR_MAX];     /* extra kernel command line */
	/* source = build */
	char tree[OPT_STR_MAX];        /* Debian source package (KSRC overrides) */
	int base;                      /* enum variant_base */
	char base_config[OPT_STR_MAX]; /* base = file: the .config (absolute) */
	char configs[OPT_STR_MAX];     /* fragments in configs/kernel, in order */
	char patches[OPT_STR_MAX];     /* patches in kernels/patches, in order */
	int test_only;                 /* a test kernel: never for figures */
	/* source = image: absolute paths (a variant file's relative ones are
	 * taken from its directory) */
	char image[OPT_STR_MAX];       /* the bzImage */
	char modules[OPT_STR_MAX];     /* its modules: lib/modules/RELEASE, or "" */
	char kconfig[OPT_STR_MAX];     /* its .config, or "" to look beside it */
	/* source = debian-image from local files instead of a mirror: the
	 * image package, and the modules package where a distribution splits
	 * them off (Ubuntu's linux-modules-*); absolute paths */
	char package_file[OPT_STR_MAX];
	char modules_file[OPT_STR_MAX];
};

int variant_load(const char *name, struct variant *v);
/* Space-separated list of known variant names. */
char *variant_names(void);
/* Directory holding variant files and suites (KBENCH_HOME or source dir). */
const char *kb_home(void);

/* For other INI files (core/target.c): NAME resolved as a path (a slash
 * or .ini) or as SUBDIR/NAME.ini under kb_home(); and F (PATH) parsed
 * with inih's HANDLER, errors naming KIND, file and line (ERR: the
 * handler's reason) and -1. F is closed. */
int config_resolve(const char *kind, const char *subdir, const char *name, char *out,
		   size_t outlen);
int config_ini_load(FILE *f, const char *kind, const char *path,
		    int (*handler)(void *, const char *, const char *, const char *), void *ctx,
		    const char *err);
/* config_ini_load on BUF (LEN bytes, the text of PATH). */
int config_ini_parse(const char *buf, size_t len, const char *kind, const char *path,
		     int (*handler)(void *, const char *, const char *, const char *), void *ctx,
		     const char *err);
/* config_resolve, the file read (an error naming KIND and NAME, and -1),
 * then PARSE(its text, length, path, OBJ)'s return. */
int config_file_load(const char *kind, const char *subdir, const char *name,
		     int (*parse)(const char *, size_t, const char *, void *), void *obj);
/* PATH's base name up to its first '.' (at most 63 characters) into NAME
 * (64 bytes), and its directory into DIR. */
void config_file_names(const char *path, char *name, char *dir, size_t dirlen);
/* A path value P of a file in DIR: "~/" is $HOME, a relative path is
 * taken from DIR, "" stays "". */
void config_path(char *out, size_t len, const char *p, const char *dir);

#endif
