/* running.h - the variant of a run on this machine's running kernel (the
 * local backend): "running" itself, or a named variant checked against
 * what is running. Nothing is fetched or built. */
#ifndef KBENCH_RUNNING_H
#define KBENCH_RUNNING_H

#include "kernel/kernel.h"

/* NAME ("running", or a variant whose cached kernel must be the one
 * running, with CMDLINE's parameters on the running command line) into
 * V and K. 0, or -1 with an error saying to boot it first or to use a
 * remote target. */
int running_variant(const char *name, const char *cmdline, struct variant *v,
		    struct kernel_image *k);

/* Does the running kernel (RELEASE, booted with RUNNING_CMDLINE) match
 * WANT_RELEASE and have every parameter of WANT_PARAMS? 0, or -1 with
 * what differs in WHY. */
int running_matches(const char *release, const char *running_cmdline, const char *want_release,
		    const char *want_params, char *why, size_t whylen);

#endif
