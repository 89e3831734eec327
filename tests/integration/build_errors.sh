#!/bin/sh
# lane: beside
# Source builds fail cleanly: a missing source, a patch that does not
# apply, a config option that vanished and a failing compile each give a
# message naming the step (and its log), exit 2, and no cache entry.
. "$(dirname "$0")/../lib.sh"
for t in make gcc flex bison bc patch; do
	command -v $t >/dev/null || skip "$t missing (make deps installs the kernel build tools)"
done
home="$tmp/home"
mkdir -p "$home/kernels/patches" "$home/configs"
cp -r "$top/configs/kernel" "$home/configs/kernel"
export KBENCH_HOME="$home"
variant() { # NAME CONFIGS PATCHES
	printf '[variant]\nname = %s\nsource = build\nbase = tinyconfig\nconfigs = %s\npatches = %s\ntest_only = true\n' \
		"$1" "$2" "$3" >"$home/kernels/$1.ini"
}
entries() { ls "$KBENCH_CACHE/builds" 2>/dev/null | grep -cv -e '^obj-' -e '^inputs$' -e '^by-variant$' -e '^steps-' -e '^locks$' -e 'log$' ; }

# 1. missing source tree
variant plain "test-tiny" ""
KSRC=/nonexistent/linux expect_exit 2 "$KB" build plain
expect_out "kernel build step 'source': KSRC '/nonexistent/linux'"

# everything below needs Debian's source: fetched once into the user's
# cache, then hard-linked into a private cache the failures cannot litter
"$KB" kconfig plain "$tmp/plain.config" >"$tmp/fetch" 2>&1 || {
	cat "$tmp/fetch"; skip "linux-source-6.12 cannot be fetched"; }
real_cache=${KBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kbench}
mkdir -p "$tmp/cache"
cp -al "$real_cache/sources" "$tmp/cache/sources"
export KBENCH_CACHE="$tmp/cache"
before=$(entries)

# 2. a patch that does not apply
cat >"$home/kernels/patches/bad.patch" <<'P'
--- a/kernel/locking/rtmutex.c
+++ b/kernel/locking/rtmutex.c
@@ -1,3 +1,3 @@
-this line is not in rtmutex.c
+neither is this one
 nor this
P
variant badpatch "test-tiny" "bad.patch"
expect_exit 2 "$KB" build badpatch
expect_out "kernel build step 'patch': '.*bad.patch' does not apply"
expect_out "log: .*patch-.*\.log"

# 3. a config option that vanished
printf 'CONFIG_KBENCH_NO_SUCH_OPTION=y\n' >"$home/configs/kernel/vanished.config"
variant vanished "test-tiny vanished" ""
expect_exit 2 "$KB" build vanished
expect_out "kernel build step 'config': requested options did not survive olddefconfig"
expect_out "CONFIG_KBENCH_NO_SUCH_OPTION=y (after olddefconfig: not set)"

# 4. a malformed fragment: file and line
printf 'CONFIG_SMP=y\nthis is not kconfig\n' >"$home/configs/kernel/garbled.config"
variant garbled "test-tiny garbled" ""
expect_exit 2 "$KB" build garbled
expect_out "garbled.config' line 2: expected 'CONFIG_X=value'"

# 5. a compile that fails (the patch breaks init/Makefile)
cat >"$home/kernels/patches/break.patch" <<'P'
--- a/init/Makefile
+++ b/init/Makefile
@@ -1,3 +1,4 @@
+$(error kbench test: this build is meant to fail)
 # SPDX-License-Identifier: GPL-2.0
 #
 # Makefile for the linux kernel.
P
variant broken "test-tiny" "break.patch"
expect_exit 2 "$KB" build broken
expect_out "kernel build step 'build': make bzImage failed; log: .*build.log"
expect_out "this build is meant to fail"

[ "$(entries)" = "$before" ] && ok "no cache entry was written" || bad "cache entries changed: $before -> $(entries)"
ls -a "$KBENCH_CACHE/builds" | grep -q '^\.tmp-' && bad "temporary entry left" || ok "no temporary entry left"
finish
