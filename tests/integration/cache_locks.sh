#!/bin/sh
# lane: beside
# Shared-cache locking without a real kernel (docs/reliability.md): a fake
# source tree (KSRC, as kconfig_cache.sh) whose make only pretends, slowly,
# and counts each bzImage and `make prepare` it is asked for.
#   case 1: two `kbench build` of the same variant at once on one cache:
#           both succeed, make built once, one whole entry, no stage left
#   case 2: a kernel build and two kbuild disks (kbuild-native, prepare =
#           host) at once on one fresh cache: all succeed, one build, one
#           disk made, no half-written entry or image
#   case 3: two `kbench build` at once on a fresh cache, from Debian's
#           source package (no KSRC): a fake apt-get/apt-cache on PATH hand
#           out a tiny linux-source .deb holding the same fake tree; both
#           succeed, one download and one unpack, one whole entry
. "$(dirname "$0")/../lib.sh"
need_tool make "the fake kernel tree is built with make"
need_tool mkfs.ext4 "a kbuild disk is an ext4 image (e2fsprogs)"
need_tool dpkg-deb "case 3 packs the fake source package"
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

echo "case 3: two unpacks of the Debian source package at once on one cache"
export KBENCH_CACHE="$tmp/cache3"
unset KSRC
rm -f "$count"/*
# the package: usr/src/linux-source-6.12.tar.gz holding the fake tree
pkg="$tmp/pkg" deb="$tmp/linux-source-6.12_6.12.99-1_all.deb"
mkdir -p "$pkg/DEBIAN" "$pkg/usr/src" "$tmp/pkgtree" "$tmp/bin"
cp -R "$src" "$tmp/pkgtree/linux-source-6.12"
tar -czf "$pkg/usr/src/linux-source-6.12.tar.gz" -C "$tmp/pkgtree" linux-source-6.12
printf 'Package: linux-source-6.12\nVersion: 6.12.99-1\nArchitecture: all\nMaintainer: kbench test <test@invalid>\nDescription: fake kernel source\n' \
	>"$pkg/DEBIAN/control"
dpkg-deb -Zgzip -b "$pkg" "$deb" >/dev/null || bad "dpkg-deb could not pack the fake source package"
# apt-get download counts itself and waits (up to 10 s) until the other
# kbench waits for the source cache's lock, so that both are in the
# source step at once; without the lock both download and unpack
cat >"$tmp/bin/apt-get" <<A
#!/bin/sh
case " \$* " in
*" download "*)
	echo \$\$ >>"$count/download"
	i=0
	while [ \$i -lt 50 ] && ! grep -q "waiting for another kbench (source cache)" "$tmp/s1.out" "$tmp/s2.out"; do
		sleep 0.2; i=\$((i + 1))
	done
	cp "$deb" . ;;
esac
A
printf '#!/bin/sh\nprintf "Package: linux-source-6.12\\nVersion: 6.12.99-1\\n\\n"\n' >"$tmp/bin/apt-cache"
chmod +x "$tmp/bin/apt-get" "$tmp/bin/apt-cache"
export PATH="$tmp/bin:$PATH"
"$KB" build fake >"$tmp/s1.out" 2>&1 & p1=$!
"$KB" build fake >"$tmp/s2.out" 2>&1 & p2=$!
wait $p1; r1=$?; wait $p2; r2=$?
status s1 "$r1"; status s2 "$r2"
n=$(grep -l "waiting for another kbench (source cache)" "$tmp/s1.out" "$tmp/s2.out" | wc -l)
[ "$n" = 1 ] && ok "both were in the source step at once: one waited for the other's lock" ||
	bad "$n runs waited for the source cache's lock"
n=$(lines "$count/download")
[ "$n" = 1 ] && ok "the package was downloaded once" || bad "the package was downloaded $n times"
n=$(cat "$tmp/s1.out" "$tmp/s2.out" | grep -c "kbench: unpacking")
[ "$n" = 1 ] && ok "the package was unpacked once" || bad "the package was unpacked $n times"
n=$(lines "$count/bzImage")
[ "$n" = 1 ] && ok "make bzImage ran once" || bad "make bzImage ran $n times"
entry="$KBENCH_CACHE/sources/linux-source-6.12_6.12.99-1"
diff -r "$src" "$entry/tree" >"$tmp/diff" 2>&1 && ok "the unpacked tree is whole" ||
	{ bad "the unpacked tree differs from the package's"; head "$tmp/diff"; }
left=$(cd "$KBENCH_CACHE/sources" && echo .[!.]* * && cd "$entry" && echo deb* unpacked*)
[ "$left" = ".lock by-name linux-source-6.12_6.12.99-1
deb* unpacked*" ] && ok "one source entry, no stage or unpack leftovers" || bad "in the source cache: $left"
[ "$(cat "$KBENCH_CACHE/sources/by-name/linux-source-6.12_trixie")" = linux-source-6.12_6.12.99-1 ] &&
	ok "the pointer names the entry" || bad "pointer: $(cat "$KBENCH_CACHE/sources/by-name/"* 2>&1)"
whole "$KBENCH_CACHE"
expect_exit 0 "$KB" build fake
expect_out "build cache hit"
n=$(lines "$count/download")
[ "$n" = 1 ] && ok "a third build used the cached source" || bad "the package was downloaded $n times"
finish
