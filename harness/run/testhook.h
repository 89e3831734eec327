/* testhook.h - fault injection for the tests (docs/reliability.md), in
 * one place: the suite runner calls test_hook() at its named points, and
 * nothing happens unless a KBENCH_TEST_* variable asks for it. */
#ifndef KBENCH_TESTHOOK_H
#define KBENCH_TESTHOOK_H

#include "backend/guest.h"

enum test_point {
	TEST_BEFORE_BOOT,     /* BP may be changed for this boot only */
	TEST_AFTER_WORKLOADS, /* G is the booted guest */
};

struct test_ctx {
	struct boot_params *bp;
	struct guest *g;
	char cmdline[1024];   /* storage for a changed bp->cmdline */
};

/* KBENCH_TEST_BOOT_PANICS=N: the run's first N boots get an init that
 * exits, a real panic. KBENCH_TEST_KMSG=FILE: its lines go into the
 * guest's kernel log as warnings once the workloads ran, so the console
 * carries e.g. a lockdep report as the kernel prints it.
 * KBENCH_TEST_GUEST_READ=PATH[:PATH..]: once the workloads ran, the agent
 * (root in the guest) reads each host PATH under the toolchain share
 * (KB_HOSTROOT) and kbench prints "kbench test: the guest read PATH" or
 * "... cannot read PATH" (tests/integration/kbuild.sh). */
void test_hook(enum test_point pt, struct test_ctx *c);

#endif
