#!/bin/sh
# Any Debian release's kernel package: bookworm's 6.1 (modules in
# /lib/modules; virtio_console and virtio_pci as modules, where trixie's
# 6.12 has them built in and its modules in /usr/lib/modules) boots and
# runs a short suite; kbench doctor --kernel shows what the guest needs
# of it; and a package whose config says CONFIG_VIRTIO_CONSOLE=m but
# whose modules lack it is refused before any boot, with the option named
# (it used to time out: "virtio-serial port org.kbench.agent.0 not found").
. "$(dirname "$0")/../lib.sh"
start=$(date +%s)
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 missing (make deps)"
"$KB" fetch mainline-bookworm >"$tmp/fetch" 2>&1 || { cat "$tmp/fetch"; skip "cannot fetch mainline-bookworm (no mirror?)"; }

expect_exit 0 "$KB" doctor --kernel mainline-bookworm
grep -Eq '^  CONFIG_VIRTIO_CONSOLE +module ' "$tmp/out" && grep -q "/lib/modules/6\." "$tmp/out" &&
	ok "doctor: virtio_console is a module, found in /lib/modules" || { bad "doctor output"; cat "$tmp/out"; }

printf '[suite]\nname = tiny\niterations = 1\n[hackbench]\ngroups = 2\nloops = 50\n[dbench]\nclients = 2\nduration = 3\n' >"$tmp/tiny.ini"
expect_exit 0 "$KB" run --kernel mainline-bookworm --suite "$tmp/tiny.ini" --reports "$tmp/r" --run-id bw
res="$tmp/r/runs/bw/results.json"
expect_exit 0 "$KB" validate "$res"
expect_exit 0 /usr/bin/python3 "$top/tests/integration/check_results.py" --expect-rt no "$res"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["variant"]["kernel_release"]; assert r.startswith("6.1.") and "deb13" not in r, r; assert d["iterations"][0]["status"]=="ok"; print(r)' "$res" >"$tmp/o2" 2>&1 &&
	ok "booted bookworm's kernel: $(cat "$tmp/o2")" || { bad "results: not bookworm's kernel"; cat "$tmp/o2"; }

# the same package without virtio_console.ko (as when a distribution puts
# drivers in a second package): refused at once, nothing written
entry=$(sed -n 's/^mainline-bookworm: .* in //p' "$tmp/fetch")
if [ -d "$entry" ]; then
	c="$tmp/cache"
	mkdir -p "$c/kernels/by-name"
	cp -al "$entry" "$c/kernels/"
	name=$(basename "$entry")
	cp "$(dirname "$entry")/by-name/linux-image-amd64_bookworm" "$c/kernels/by-name/"
	dep=$(ls "$c/kernels/$name"/lib/modules/*/modules.dep)
	grep -v '/virtio_console\.ko' "$dep" >"$dep.new" && mv "$dep.new" "$dep"
	rm -f "$(dirname "$dep")"/kernel/drivers/char/virtio_console.ko
	t0=$(date +%s)
	expect_exit 2 env KBENCH_CACHE="$c" "$KB" run --kernel mainline-bookworm --suite "$tmp/tiny.ini" \
		--reports "$tmp/r2" --run-id nocon
	expect_out "has virtio_console neither built in nor as a module (CONFIG_VIRTIO_CONSOLE=m, but virtio_console.ko is not among its modules): kbench needs it for the channel to kbench's agent"
	expect_out "CONFIG_VIRTIO_CONSOLE=y"
	[ $(($(date +%s) - t0)) -lt 20 ] && ok "refused before any boot" || bad "refusal took a boot's time"
	[ ! -e "$tmp/r2/runs/nocon" ] && ok "no run directory written" || bad "a refused run wrote $tmp/r2/runs/nocon"
	expect_exit 2 env KBENCH_CACHE="$c" "$KB" doctor --kernel mainline-bookworm
	expect_out "CONFIG_VIRTIO_CONSOLE       MISSING"
else
	bad "cannot find the cache entry of mainline-bookworm in: $(cat "$tmp/fetch")"
fi
echo "other_release: $(($(date +%s) - start)) s"
finish
