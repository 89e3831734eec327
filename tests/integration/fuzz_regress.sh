#!/bin/sh
# lane: beside
# Every fuzz seed and every input a fuzzer crashed on, replayed through the
# libFuzzer builds of the targets (make fuzz-regress; a few seconds). Needs
# Debian's clang (sh harness/deps.sh fuzz); without it the gcc-built unit
# test test_fuzz still replays the same inputs.
. "$(dirname "$0")/../lib.sh"

sh "$top/fuzz/run.sh" have-clang "${FUZZ_CC:-clang-14}" ||
	skip "no ${FUZZ_CC:-clang-14} with libFuzzer (sh harness/deps.sh fuzz)"
expect_exit 0 make -s -C "$top" fuzz-regress
cat "$tmp/out"
# every target, from the target list (make fuzz-names, fuzz/targets.c)
names=$(make -s -C "$top" fuzz-names)
case " $names " in *" kbuild "*) ok "target list: $names" ;; *) bad "target list: '$names'" ;; esac
for t in $names; do
	expect_out "^fuzz $t: ok: [1-9][0-9]* inputs replayed"
done
finish
