#!/bin/sh
# lane: beside
# Consecutive commits of one user tree (KSRC, the steps of kbench bisect)
# build in one object dir: make recompiles only what a commit changed, a
# revisited commit is a cache hit, a changed .config is seen, a patched
# variant's work copy keeps the patched files' times (and the user's tree
# is never patched), a build killed half-way does not poison the next one,
# and two kbench builds never share the object dir at once. A fake git
# tree whose Makefile really compiles (cat) src/*.c into O=, so it needs
# make and git, not a kernel.
. "$(dirname "$0")/../lib.sh"
need_tool make "the fake tree's build"
need_tool git "the fake tree's history"
need_tool patch "the patched variant"
home="$tmp/home" src="$tmp/linux"
. "$top/tests/fake_ksrc.sh"
fake_ksrc "$home" "$src"
mkdir -p "$home/kernels/patches" "$src/src"
export KBENCH_HOME="$home" KBENCH_CACHE="$tmp/cache" KSRC="$src"
# each object depends on .config, as kbuild's do on their options; the
# .cmd file is written after the object, as kbuild does; KBENCH_TEST_KILL
# (a file) kills make half-way through b.o, KBENCH_TEST_SLOW slows bzImage
cat >"$src/Makefile" <<'M'
OBJS := $(patsubst src/%.c,$(O)/%.o,$(wildcard src/*.c))
tinyconfig defconfig:
	printf 'CONFIG_KBENCH_TINY=y\n' >$(O)/.config
kvm_guest.config: ;
olddefconfig:
	cat extra.config >>$(O)/.config
$(O)/%.o: src/%.c $(O)/.config
	@if [ $* = b ] && [ -n "$$KBENCH_TEST_KILL" ] && [ -e "$$KBENCH_TEST_KILL" ]; then \
		rm "$$KBENCH_TEST_KILL"; echo partial >$@; kill -9 $$PPID; sleep 5; fi
	cat $< >$@
	@echo '  CC      $*.o'
	@echo 'savedcmd_$*.o := cat' >$(O)/.$*.o.cmd
bzImage: $(OBJS)
	@sleep $${KBENCH_TEST_SLOW:-0}
	mkdir -p $(O)/arch/x86/boot && cat $(OBJS) >$(O)/arch/x86/boot/bzImage
kernelrelease:
	@echo 6.12.0-kbench-fake
M
for f in a b c; do echo "$f version 1" >"$src/src/$f.c"; done
echo 'CONFIG_KBENCH_EXTRA=1' >"$src/extra.config"
variant() { # NAME PATCHES
	printf '[variant]\nname = %s\nsource = build\nbase = tinyconfig\nconfigs = fake\npatches = %s\ntest_only = true\n' \
		"$1" "$2" >"$home/kernels/$1.ini"
}
variant fake ""
cat >"$home/kernels/patches/b.patch" <<'P'
--- a/src/b.c
+++ b/src/b.c
@@ -1 +1,2 @@
 b version 1
+b patched
P
variant fakep "b.patch"
g() { git -C "$src" -c user.name=kbench -c user.email=kbench@example.invalid "$@"; }
commit() { g add -A . && g commit -q -m "$1"; }
g init -q && commit one
# the compiles of the last build of VARIANT, from its cache entry's log
compiles() { grep -c '^  CC' "$KBENCH_CACHE/builds/$(cat "$KBENCH_CACHE/builds/by-variant/$1")/build.log"; }
image() { cat "$KBENCH_CACHE/builds/$(cat "$KBENCH_CACHE/builds/by-variant/$1")/bzImage"; }
objdirs() { ls -d "$KBENCH_CACHE"/builds/obj-* 2>/dev/null | wc -l; }

expect_exit 0 "$KB" build fake
[ "$(compiles fake)" = 3 ] && ok "first build: 3 compiles" || bad "first build: $(compiles fake) compiles"
echo "a version 2" >"$src/src/a.c"; commit two
expect_exit 0 "$KB" build fake
[ "$(compiles fake)" = 1 ] && ok "a commit changing a.c: 1 compile (a fresh object dir: 3)" ||
	bad "a commit changing a.c: $(compiles fake) compiles, want 1"
[ "$(objdirs)" = 1 ] && ok "one object dir for both commits" || bad "$(objdirs) object dirs"
image fake | grep -q "a version 2" && ok "the image has the commit's a.c" || bad "stale image"
g checkout -q HEAD~1
expect_exit 0 "$KB" build fake
expect_out "build cache hit"
image fake | grep -q "a version 1" && ok "revisit: the first commit's image" || bad "revisit: wrong image"
g checkout -q master 2>/dev/null || g checkout -q main
echo 'CONFIG_KBENCH_EXTRA=2' >"$src/extra.config"; commit "the config changes"
expect_exit 0 "$KB" build fake
[ "$(compiles fake)" = 3 ] && ok "a changed .config rebuilds what depends on it" ||
	bad "a changed .config: $(compiles fake) compiles, want 3"

# the patched variant: its own work copy and object dir, the user's tree untouched
expect_exit 0 "$KB" build fakep
image fakep | grep -q "b patched" && ok "patched image" || bad "the patch is not in the image"
echo "c version 2" >"$src/src/c.c"; commit "c changes"
expect_exit 0 "$KB" build fakep
[ "$(compiles fakep)" = 1 ] && ok "patched variant, a commit changing c.c: 1 compile (the patched b.c kept its time)" ||
	bad "patched variant: $(compiles fakep) compiles, want 1"
[ -z "$(g status --porcelain)" ] && ! grep -q patched "$src/src/b.c" && ok "the user's tree is not patched" ||
	bad "the user's tree changed: $(g status --porcelain)"

# make killed half-way through b.o: a partial b.o newer than b.c is left
echo "b version 2" >"$src/src/b.c"; commit "b changes"
: >"$tmp/kill"
KBENCH_TEST_KILL="$tmp/kill" expect_exit 2 "$KB" build fake
expect_out "make bzImage failed"
expect_exit 0 "$KB" build fake
expect_out "did not finish"
image fake | grep -q "b version 2" && ! image fake | grep -q partial && ok "after an interrupted build: the commit's b.c, no partial object" ||
	{ bad "the interrupted build's partial object was used"; image fake; }

# two builds of one object dir: the second waits, then finds the first's build
echo "a version 3" >"$src/src/a.c"; commit "a again"
KBENCH_TEST_SLOW=3 "$KB" build fake >"$tmp/b1" 2>&1 &
p1=$!
sleep 1
"$KB" build fake >"$tmp/b2" 2>&1; r2=$?
wait $p1; r1=$?
[ "$r1" = 0 ] && [ "$r2" = 0 ] && ok "both builds exit 0" || { bad "exits $r1 $r2"; cat "$tmp/b1" "$tmp/b2"; }
grep -q "waiting for another kbench" "$tmp/b2" && ok "the second build waited for the object dir" ||
	{ bad "the second build did not wait"; cat "$tmp/b2"; }
[ "$(cat "$tmp/b1" "$tmp/b2" | grep -c 'kbench: building')" = 1 ] && ok "built once" ||
	{ bad "built more than once"; cat "$tmp/b1" "$tmp/b2"; }
finish
