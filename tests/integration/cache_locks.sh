#!/bin/sh
# Shared-cache locking without a real kernel (docs/reliability.md): a fake
# source tree (KSRC, as kconfig_cache.sh) whose make only pretends, slowly,
# and counts each bzImage and `make prepare` it is asked for.
#   case 1: two `kbench build` of the same variant at once on one cache:
#           both succeed, make built once, one whole entry, no stage left
#   case 2: a kernel build and two kbuild disks (kbuild-native, prepare =
#           host) at once on one fresh cache: all succeed, one build, one
#           disk made, no half-written entry or image
# Not covered: unpacking a Debian source package (KSRC skips it).
. "$(dirname "$0")/../lib.sh"
need_tool make "the fake kernel tree is built with make"
need_tool mkfs.ext4 "a kbuild disk is an ext4 image (e2fsprogs)"
home="$tmp/home" src="$tmp/linux" count="$tmp/count"
. "$top/tests/fake_ksrc.sh"
fake_ksrc "$home" "$src"
mkdir -p "$home/configs/suites" "$count"
export KBENCH_HOME="$home" KSRC="$src"
# each slow step sleeps long enough that the other processes reach the lock
cat >"$src/Makefile" <<M
.PHONY: prepare kernel/locking/
tinyconfig defconfig:
	printf 'CONFIG_KBENCH_TINY=y\n' >\$(O)/.config
kvm_guest.config: ;
olddefconfig:
	test -f \$(O)/.config
bzImage:
	echo \$\$\$\$ >>$count/bzImage
	sleep 3
	mkdir -p \$(O)/arch/x86/boot && echo fake >\$(O)/arch/x86/boot/bzImage
	@echo '  CC      fake.o'
prepare:
	echo \$\$\$\$ >>$count/prepare
	sleep 3
kernel/locking/:
	@echo '  CC      kernel/locking/rtmutex.o'
kernelrelease:
	@echo 6.12.0-kbench-fake
M
printf '[suite]\nname = kb\niterations = 1\n\n[kbuild]\nconfig = tinyconfig\ntarget = kernel/locking/\nprepare = host\njobs = 1\n' \
	>"$home/configs/suites/kb.ini"
lines() { [ -f "$1" ] && wc -l <"$1" || echo 0; }
# status NAME RC: a background command's exit status
status() { [ "$2" = 0 ] && ok "$1 exit 0" || { bad "$1 exit $2"; cat "$tmp/$1.out"; }; }
# whole CACHE: no stage or half-written entry left
whole() {
	left=$(find "$1" -name '.tmp-*' -o -name '*.tmp' | head -3)
	[ -z "$left" ] && ok "no stage or temporary file left in $(basename "$1")" || bad "left behind: $left"
}

echo "case 1: two builds of the same source at once"
export KBENCH_CACHE="$tmp/cache1"
"$KB" build fake >"$tmp/b1.out" 2>&1 & p1=$!
"$KB" build fake >"$tmp/b2.out" 2>&1 & p2=$!
wait $p1; r1=$?; wait $p2; r2=$?
status b1 "$r1"; status b2 "$r2"
n=$(lines "$count/bzImage")
[ "$n" = 1 ] && ok "make bzImage ran once" || bad "make bzImage ran $n times"
cat "$tmp/b1.out" "$tmp/b2.out" | grep -q "built meanwhile by another kbench\|build cache hit" &&
	ok "the other run took the first's build" || { bad "no run reused the build"; cat "$tmp/b1.out" "$tmp/b2.out"; }
set -- "$KBENCH_CACHE"/builds/*/bzImage
[ $# = 1 ] && [ "$(cat "$1")" = fake ] && ok "one whole entry: $1" || bad "entries: $*"
whole "$KBENCH_CACHE"
expect_exit 0 "$KB" build fake
expect_out "build cache hit"

echo "case 2: a kernel build and two kbuild disks at once on one cache"
export KBENCH_CACHE="$tmp/cache2"
rm -f "$count"/*
"$KB" build fake >"$tmp/k.out" 2>&1 & pk=$!
"$KB" kbuild-native --suite kb >"$tmp/d1.out" 2>&1 & pd1=$!
"$KB" kbuild-native --suite kb >"$tmp/d2.out" 2>&1 & pd2=$!
wait $pk; rk=$?; wait $pd1; rd1=$?; wait $pd2; rd2=$?
status k "$rk"; status d1 "$rd1"; status d2 "$rd2"
n=$(lines "$count/bzImage")
[ "$n" = 1 ] && ok "make bzImage ran once" || bad "make bzImage ran $n times"
n=$(lines "$count/prepare")
[ "$n" = 1 ] && ok "the kbuild disk was prepared once" || bad "make prepare ran $n times"
n=$(grep -l "making the tree disk" "$tmp/d1.out" "$tmp/d2.out" | wc -l)
[ "$n" = 1 ] && ok "one run made the disk, the other used it" || bad "$n runs made the disk"
set -- "$KBENCH_CACHE"/kbuild/*/disk.img
[ $# = 1 ] && [ -s "$1" ] && ok "one kbuild disk" || bad "kbuild disks: $*"
if command -v debugfs >/dev/null; then
	debugfs -R "stat /linux/kernel/locking/rtmutex.c" "$1" >"$tmp/dbg" 2>&1 &&
		ok "the disk holds the tree" || { bad "the disk lacks the tree"; cat "$tmp/dbg"; }
fi
for f in "$tmp/d1.out" "$tmp/d2.out"; do
	grep -q '"compiled"' "$f" && ok "$(basename "$f"): native kbuild ran" || { bad "$(basename "$f"): no run"; cat "$f"; }
done
set -- "$KBENCH_CACHE"/builds/*/bzImage
[ $# = 1 ] && ok "one kernel entry" || bad "kernel entries: $*"
whole "$KBENCH_CACHE"
finish
