#!/bin/sh
# lane: beside
# `kbench kconfig` writes the merged config and touches no build-cache
# index: a variant built before still shows as cached after it (it used
# to write an uninitialised key into builds/by-variant and builds/inputs).
# Runs against a fake source tree (KSRC) whose Makefile only pretends, so
# it needs make, not a kernel.
. "$(dirname "$0")/../lib.sh"
command -v make >/dev/null || skip "make missing"
. "$top/tests/fake_ksrc.sh"
home="$tmp/home" src="$tmp/linux"
fake_ksrc "$home" "$src"
export KBENCH_HOME="$home" KBENCH_CACHE="$tmp/cache" KSRC="$src"
cat >"$src/Makefile" <<'M'
tinyconfig defconfig:
	printf 'CONFIG_KBENCH_TINY=y\n' >$(O)/.config
kvm_guest.config: ;
olddefconfig:
	test -f $(O)/.config
bzImage:
	mkdir -p $(O)/arch/x86/boot && echo fake >$(O)/arch/x86/boot/bzImage
	@echo '  CC      fake.o'
kernelrelease:
	@echo 6.12.0-kbench-fake
M
cached() { "$KB" kernels 2>&1 | awk '$1 == "fake" { print $2 }'; }

expect_exit 0 "$KB" build fake
[ "$(cached)" = yes ] && ok "built variant shows as cached" || { bad "built variant not cached"; "$KB" kernels; }
ptr=$(cat "$KBENCH_CACHE/builds/by-variant/fake")
inputs=$(cat "$KBENCH_CACHE/builds/inputs/"*)

expect_exit 0 "$KB" kconfig fake "$tmp/fake.config"
expect_out "merged config written to"
grep -q '^CONFIG_KBENCH_FAKE=y' "$tmp/fake.config" && ok "merged config has the fragment" ||
	bad "merged config lacks the fragment"
[ "$(cached)" = yes ] && ok "still cached after kconfig" || { bad "not cached after kconfig"; "$KB" kernels; }
[ "$(cat "$KBENCH_CACHE/builds/by-variant/fake")" = "$ptr" ] && ok "by-variant pointer unchanged" ||
	bad "by-variant pointer changed: $ptr -> $(cat "$KBENCH_CACHE/builds/by-variant/fake")"
[ "$(cat "$KBENCH_CACHE/builds/inputs/"*)" = "$inputs" ] && ok "inputs index unchanged" ||
	bad "inputs index changed"

# on a fresh cache, kconfig writes no index at all
export KBENCH_CACHE="$tmp/cache2"
expect_exit 0 "$KB" kconfig fake "$tmp/fake2.config"
[ -e "$KBENCH_CACHE/builds/by-variant/fake" ] && bad "kconfig wrote a by-variant pointer" ||
	ok "no by-variant pointer"
[ -n "$(ls "$KBENCH_CACHE/builds/inputs" 2>/dev/null)" ] && bad "kconfig wrote an inputs entry" ||
	ok "no inputs entry"
[ "$(cached)" = no ] && ok "not cached: nothing was built" || bad "cached without a build"

# and a build after kconfig still works and is found again
expect_exit 0 "$KB" build fake
expect_exit 0 "$KB" build fake
expect_out "build cache hit"
# --rebuild runs make again in the kept object dir, and stays cached
expect_exit 0 "$KB" fetch fake --rebuild
expect_out "fake: kernel 6.12.0-kbench-fake, built"
[ "$(cached)" = yes ] && ok "cached after --rebuild" || bad "not cached after --rebuild"
finish
