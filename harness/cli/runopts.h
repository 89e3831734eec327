/* runopts.h - the run options shared by kbench run, overhead,
 * kbuild-native, campaign and nightly, parsed in one place: each command
 * puts the groups it takes into its getopt_long table and hands every
 * option to runopts_parse before its own. Spellings, ranges and error
 * texts are the same for every command. */
#ifndef KBENCH_RUNOPTS_H
#define KBENCH_RUNOPTS_H

#include <getopt.h>
#include "run/run.h"

enum {
	RO_KERNEL = 1000, RO_SUITE, RO_ITER, RO_VCPUS, RO_MEM, RO_ACCEL, RO_REPORTS, RO_RUNID,
	RO_BOOT_TIMEOUT, RO_BOOT_RETRIES, RO_CMDLINE, RO_RESUME, RO_BACKEND, RO_SCRATCH,
	RO_KIMAGE, RO_KMODULES, RO_KCONFIG, RO_BUSY_THRESHOLD,
	RO_TARGET, RO_KEEP, RO_LAB, RO_LAB_DEVICE, RO_NO_LATEST, RO_TIMING,
	RO_END /* a command's own options start here or above */
};

/* The guest: --vcpus --memory --accel --timing --boot-timeout --boot-retries --backend
 * --scratch --busy-threshold --target --keep --lab --lab-device, and
 * --no-latest (kbench campaign's own runs on a lab) */
#define RUNOPTS_GUEST                                                      \
	{ "vcpus", required_argument, NULL, RO_VCPUS },                    \
	{ "memory", required_argument, NULL, RO_MEM },                     \
	{ "accel", required_argument, NULL, RO_ACCEL },                    \
	{ "timing", required_argument, NULL, RO_TIMING },                  \
	{ "boot-timeout", required_argument, NULL, RO_BOOT_TIMEOUT },      \
	{ "boot-retries", required_argument, NULL, RO_BOOT_RETRIES },      \
	{ "backend", required_argument, NULL, RO_BACKEND },                \
	{ "scratch", required_argument, NULL, RO_SCRATCH },                \
	{ "busy-threshold", required_argument, NULL, RO_BUSY_THRESHOLD }, \
	{ "target", required_argument, NULL, RO_TARGET },                  \
	{ "keep", no_argument, NULL, RO_KEEP },                            \
	{ "lab", required_argument, NULL, RO_LAB },                        \
	{ "lab-device", required_argument, NULL, RO_LAB_DEVICE },          \
	{ "no-latest", no_argument, NULL, RO_NO_LATEST }

/* How much and where: --iterations --reports */
#define RUNOPTS_WHERE                                                      \
	{ "iterations", required_argument, NULL, RO_ITER },                \
	{ "reports", required_argument, NULL, RO_REPORTS }

/* --suite --resume */
#define RUNOPTS_SUITE                                                      \
	{ "suite", required_argument, NULL, RO_SUITE },                    \
	{ "resume", required_argument, NULL, RO_RESUME }

/* One run's own: --kernel --cmdline --run-id, and a kernel image the
 * user built (--kernel-image, --kernel-modules, --kernel-config) */
#define RUNOPTS_RUN                                                        \
	{ "kernel", required_argument, NULL, RO_KERNEL },                  \
	{ "kernel-image", required_argument, NULL, RO_KIMAGE },            \
	{ "kernel-modules", required_argument, NULL, RO_KMODULES },        \
	{ "kernel-config", required_argument, NULL, RO_KCONFIG },          \
	{ "cmdline", required_argument, NULL, RO_CMDLINE },                \
	{ "run-id", required_argument, NULL, RO_RUNID }

/* Option C (getopt_long's value) with argument ARG into O: 1 if it was a
 * run option, 0 if not (the command's own), -1 after an error message. */
int runopts_parse(int c, const char *arg, struct run_opts *o);

/* "unknown option '--x'" (getopt_long's last ARGV element) and -1. */
int runopts_unknown(char **argv, const char *hint);
/* The target file TARGET and the lab file LAB (either may be NULL or "")
 * load: checked before anything is built or booted. 0, or -1 with the
 * loader's message printed. */
int runopts_where_loads(const char *target, const char *lab);

#endif
