#!/bin/sh
# lane: beside
# A kernel the user built in their own tree: `kbench run --kernel-image
# TREE/arch/x86/boot/bzImage` boots it (config from the tree, the image's
# hash and version recorded), a variant file with source = image works
# through kbench doctor --kernel; and kernels the guest cannot use are
# refused before any boot, naming the option: the same image with a
# config without virtio_console, a vmlinux ELF, and a source-built
# variant configured without it (refused after the config step, before
# its build). The tree is kbench's own build of the small test kernel
# (patched_kernel.sh builds it first in make test; a cache hit here).
. "$(dirname "$0")/../lib.sh"
start=$(date +%s)
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 missing (make deps)"
"$KB" fetch rt-adaptive-test >"$tmp/fetch" 2>&1 || { cat "$tmp/fetch"; skip "cannot build rt-adaptive-test (no mirror?)"; }
key=$(sed -n 's/.*(key \([0-9a-f]*\)).*/\1/p' "$tmp/fetch" | tail -1)
cache=${KBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kbench}
tree="$cache/builds/obj-$(echo "$key" | cut -c1-24)"
img="$tree/arch/x86/boot/bzImage"
[ -n "$key" ] && [ -f "$img" ] && [ -f "$tree/.config" ] ||
	{ bad "no build tree with a bzImage at '$tree' (fetch said: $(tail -1 "$tmp/fetch"))"; finish; }

# a variant file, paths relative to it
ln -s "$tree" "$tmp/tree"
printf '[variant]\nname = mine\ndescription = my tree\nsource = image\nimage = tree/arch/x86/boot/bzImage\n' >"$tmp/mine.ini"
expect_exit 0 "$KB" doctor --kernel "$tmp/mine.ini"
expect_out "config: $tmp/tree/.config"
expect_out "this kernel runs kbench's guest, but not kbuild"

printf '[suite]\nname = tiny\niterations = 1\n[hackbench]\ngroups = 2\nloops = 50\n[dbench]\nclients = 2\nduration = 3\n' >"$tmp/tiny.ini"
expect_exit 0 "$KB" run --kernel-image "$img" --suite "$tmp/tiny.ini" --vcpus 2 --reports "$tmp/r" --run-id img
res="$tmp/r/runs/img/results.json"
expect_exit 0 "$KB" validate "$res"
expect_exit 0 /usr/bin/python3 "$top/tests/integration/check_results.py" --expect-rt yes "$res"
python3 - "$res" "$img" "$(sha256sum "$img" | cut -d' ' -f1)" "$tree/.config" >"$tmp/o" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
v = d["variant"]
assert v["source"] == "image" and v["name"] == "image-" + v["kernel_release"], v
im = v["image"]
assert im["path"] == sys.argv[2] and im["sha256"] == sys.argv[3], im
assert im["config"] == sys.argv[4] and im["modules"] is None, im
assert "PREEMPT_RT" in im["version"], im
assert v["realtime"] == "1" and v["realtime_source"] in ("uname", "sysfs"), v
assert d["iterations"][0]["status"] == "ok"
print("image", im["sha256"][:16], v["kernel_release"], "realtime from", v["realtime_source"])
PY
[ $? = 0 ] && ok "$(cat "$tmp/o")" || { bad "results.json: the image's record"; cat "$tmp/o"; }

# refused before any boot, nothing written
sed 's/^CONFIG_VIRTIO_CONSOLE=y$/# CONFIG_VIRTIO_CONSOLE is not set/' "$tree/.config" >"$tmp/nocon.config"
t0=$(date +%s)
expect_exit 2 "$KB" run --kernel-image "$img" --kernel-config "$tmp/nocon.config" --suite "$tmp/tiny.ini" \
	--reports "$tmp/r" --run-id nocon
expect_out "has virtio_console neither built in nor as a module (CONFIG_VIRTIO_CONSOLE is not set): kbench needs it for the channel to kbench's agent"
expect_out "build the kernel with CONFIG_VIRTIO_CONSOLE=y"
[ $(($(date +%s) - t0)) -lt 20 ] && ok "refused before any boot" || bad "the refusal took a boot's time"
[ ! -e "$tmp/r/runs/nocon" ] && ok "no run directory" || bad "a refused run wrote $tmp/r/runs/nocon"
if [ -f "$tree/vmlinux" ]; then
	expect_exit 2 "$KB" run --kernel-image "$tree/vmlinux" --suite "$tmp/tiny.ini" --reports "$tmp/r" --run-id elf
	expect_out "an ELF file (vmlinux?), not a boot image: give arch/x86/boot/bzImage"
fi
expect_exit 2 "$KB" run --kernel rt-stock --kernel-image "$img" --suite "$tmp/tiny.ini" --reports "$tmp/r"
expect_out "--kernel-image boots the image it names: not with --kernel"

# a source-built variant configured without virtio_console: refused after
# the config step, before kbench spends minutes building it
sed -e 's/^name = .*/name = no-console-test/' -e 's/^configs = .*/configs = test-tiny rt test-no-virtio-console/' \
	-e '/^cmdline/d' "$top/kernels/rt-adaptive-test.ini" >"$tmp/nocon.ini"
ls -d "$cache"/builds/obj-* >"$tmp/objs-before"
expect_exit 2 "$KB" fetch "$tmp/nocon.ini"
expect_out "kernel no-console-test (its merged .config, before the build) lacks virtio_console (CONFIG_VIRTIO_CONSOLE is not set)"
expect_out "add CONFIG_VIRTIO_CONSOLE=y to a fragment in configs/kernel/"
ls -d "$cache"/builds/obj-* | diff "$tmp/objs-before" - >/dev/null && ok "nothing built" ||
	bad "a build directory appeared for a refused kernel"
echo "user_image: $(($(date +%s) - start)) s"
finish
