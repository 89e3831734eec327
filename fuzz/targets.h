/* targets.h - the fuzz targets: one function per parser of untrusted
 * input, fed raw bytes. libFuzzer drives them (fuzz/main.c, built with
 * clang by `make fuzz`); tests/unit/test_fuzz.c replays the seed corpora
 * and every crash ever found through them in the ordinary gcc builds.
 *
 * A target returns 0, and abort()s when a parser breaks its own contract
 * (accepts something it must not, or rejects without a reason), so that a
 * logic slip is a crash for the fuzzer, like a sanitizer report.
 */
#ifndef KBENCH_FUZZ_TARGETS_H
#define KBENCH_FUZZ_TARGETS_H

#include <stddef.h>
#include <stdint.h>

struct fuzz_target {
	const char *name; /* fuzz/corpus/<name>, tests/fixtures/fuzz/<name> */
	int (*run)(const uint8_t *data, size_t size);
};

/* NULL-terminated list of every target. */
extern const struct fuzz_target fuzz_targets[];

const struct fuzz_target *fuzz_target_find(const char *name);

/* Quiet the harness's own messages (the parsers' errors are expected). */
void fuzz_init(void);

#endif
