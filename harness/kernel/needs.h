/* needs.h - what kbench's QEMU guest needs of a kernel, as data, checked
 * against each kernel's config and modules before it boots. A kernel
 * that cannot talk to the agent is refused with the option to enable,
 * never left to a 30-second "virtio-serial port not found". */
#ifndef KBENCH_NEEDS_H
#define KBENCH_NEEDS_H

#include "core/util.h"
#include "kernel/kernel.h"

#define KNEED_HOSTROOT 1u /* only with the toolchain share (kbuild) */
#define KNEED_OPTIONAL 2u /* missing: noted, not refused */
#define KNEED_NET 4u      /* only for an agent on the guest's network (lava) */
/* The needs only some runs have: a HOSTROOT argument below is a mask of
 * these (1 = KNEED_HOSTROOT, so 0 and 1 keep their old meaning). */
#define KNEED_COND (KNEED_HOSTROOT | KNEED_NET)

struct kneed {
	const char *option; /* CONFIG_ symbol without the prefix */
	const char *module; /* its module's name, NULL if it cannot be one */
	const char *what;   /* what kbench loses without it */
	unsigned flags;
};

/* Every need, NULL-terminated by option; the order is the modules'
 * load order (dependencies come from modules.dep). */
extern const struct kneed kernel_needs[];

enum kneed_state { KNEED_BUILTIN, KNEED_MODULE, KNEED_MISSING, KNEED_UNKNOWN };

struct kneed_result {
	const struct kneed *need;
	enum kneed_state state;
	char why[160]; /* for MISSING: what the config and modules say */
};

/* What kernel K has of each need (config text CONFIG, modules.dep DEP and
 * modules.builtin BUILTIN, each NULL when unknown). RES gets one entry
 * per need; returns the number of required needs MISSING. HOSTROOT
 * selects the kbuild needs. */
int kneeds_eval(const char *config, const char *dep, const char *builtin, int hostroot,
		struct kneed_result *res);

/* CONFIG_OPTION in kernel K's config: 'y', 'm', 'n' (not set), or '?'
 * when K has no config. */
char kernel_config_state(const struct kernel_image *k, const char *option);

/* kneeds_eval on kernel K's files (k->config, k->moddir). */
int kernel_needs_check(const struct kernel_image *k, int hostroot, struct kneed_result *res);

/* Refuse kernel K (of variant NAME) when a required need is missing:
 * one error per missing need naming it, the option to enable and what
 * kbench cannot do without it; 0 when all are there or unknown. */
int kernel_needs_refuse(const char *name, const struct kernel_image *k, int hostroot);

/* Refuse the merged .config CONFIG of source-built variant NAME, before
 * its build, when it lacks a need of the guest (kbench builds the bzImage
 * alone, so a need set to =m is missing too): 0, or -1 with the errors. */
int kneeds_refuse_config(const char *name, const char *config);

/* The module paths (relative to moddir) to load in the guest, with their
 * dependencies first, for the needs (RES from kneeds_eval; the kbuild
 * ones with HOSTROOT) that are modules in DEP. */
int kneeds_modules(const char *dep, const struct kneed_result *res, int hostroot,
		   struct strvec *order);

/* The number of entries kneeds_eval fills. */
size_t kneeds_count(void);

#endif
