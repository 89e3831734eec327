/* main.c - the libFuzzer entry points for the target named by FUZZ_TARGET
 * (a string, set by the Makefile: one binary per target). */
#include "targets.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef FUZZ_TARGET
#error "FUZZ_TARGET must name a target"
#endif

static const struct fuzz_target *target;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_init();
	target = fuzz_target_find(FUZZ_TARGET);
	if (!target) {
		fprintf(stderr, "fuzz: no target '%s'\n", FUZZ_TARGET);
		exit(2);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return target->run(data, size);
}
