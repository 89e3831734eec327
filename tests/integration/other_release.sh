#!/bin/sh
# lane: beside
# Any Debian release's kernel package: bookworm's 6.1 (modules in
# /lib/modules; virtio_console and virtio_pci as modules, where trixie's
# 6.12 has them built in and its modules in /usr/lib/modules) boots and
# runs a short suite; kbench doctor --kernel shows what the guest needs
# of it; local package files work, with the modules split off into a
# second package; and a package whose config says CONFIG_VIRTIO_CONSOLE=m
# but whose modules lack it is refused before any boot, with the option
# named (it used to time out: "virtio-serial port org.kbench.agent.0 not
# found").
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

# local package files, the modules split off into a second package (as
# Ubuntu's linux-modules-*), made with dpkg-deb from bookworm's package:
# the pair boots (virtio_console loaded from the second package); the
# image package alone is refused at once, naming the option and the fix.
# A cache of their own: each unpacked pair takes about 400 MB.
entry=$(sed -n 's/^mainline-bookworm: .* in //p' "$tmp/fetch")
rel=$(basename "$(ls -d "$entry"/lib/modules/* | head -1)")
if [ -d "$entry/lib/modules/$rel" ] && command -v dpkg-deb >/dev/null; then
	mkdeb() { # NAME ROOT
		mkdir -p "$2/DEBIAN"
		printf 'Package: %s\nVersion: 6.1.0-kbench1\nArchitecture: amd64\nMaintainer: kbench tests <kbench@localhost>\nDescription: kbench test package\n' \
			"$1" >"$2/DEBIAN/control"
		dpkg-deb -Znone --root-owner-group -b "$2" "$tmp/$1.deb" >/dev/null
	}
	img="$tmp/pkg-img" mods="$tmp/pkg-mods"
	mkdir -p "$img/lib/modules" "$mods/lib/modules/$rel/kernel/drivers/char"
	cp -al "$entry/boot" "$img/" && cp -al "$entry/lib/modules/$rel" "$img/lib/modules/"
	# what depmod made is not in a package
	rm -f "$img/lib/modules/$rel"/modules.dep* "$img/lib/modules/$rel"/modules.alias* \
		"$img/lib/modules/$rel"/modules.symbols* "$img/lib/modules/$rel"/modules.softdep \
		"$img/lib/modules/$rel"/modules.devname
	mv "$img/lib/modules/$rel/kernel/drivers/char/virtio_console.ko" "$mods/lib/modules/$rel/kernel/drivers/char/"
	mkdeb linux-image-kbtest "$img" && mkdeb linux-modules-kbtest "$mods" && rm -rf "$img" "$mods"
	printf '[variant]\nname = split\ndescription = split\npackage_file = linux-image-kbtest.deb\nmodules_file = linux-modules-kbtest.deb\n' >"$tmp/split.ini"
	printf '[variant]\nname = imgonly\ndescription = image only\npackage_file = %s/linux-image-kbtest.deb\n' "$tmp" >"$tmp/imgonly.ini"
	c="$tmp/cache"
	t0=$(date +%s)
	expect_exit 2 env KBENCH_CACHE="$c" "$KB" run --kernel "$tmp/imgonly.ini" --suite "$tmp/tiny.ini" \
		--reports "$tmp/r2" --run-id nocon
	expect_out "has virtio_console neither built in nor as a module (CONFIG_VIRTIO_CONSOLE=m, but virtio_console.ko is not among its modules): kbench needs it for the channel to kbench's agent"
	expect_out "name it in the variant file (modules_file = PATH)"
	[ ! -e "$tmp/r2/runs/nocon" ] && ok "no run directory written" || bad "a refused run wrote $tmp/r2/runs/nocon"
	expect_exit 0 env KBENCH_CACHE="$c" "$KB" fetch "$tmp/split.ini"
	expect_exit 0 env KBENCH_CACHE="$c" "$KB" doctor --kernel "$tmp/split.ini"
	expect_out "CONFIG_VIRTIO_CONSOLE       module"
	expect_exit 0 env KBENCH_CACHE="$c" "$KB" run --kernel "$tmp/split.ini" --suite "$tmp/tiny.ini" \
		--reports "$tmp/r2" --run-id split
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=d["variant"]; assert v["package"]=="linux-image-kbtest" and v["package_version"]=="6.1.0-kbench1", v; assert d["iterations"][0]["status"]=="ok"' \
		"$tmp/r2/runs/split/results.json" && ok "split packages booted and recorded" || bad "split packages: results.json"
	rm -rf "$c"
else
	bad "cannot find bookworm's unpacked package (fetch said: $(cat "$tmp/fetch")) or dpkg-deb"
fi
echo "other_release: $(($(date +%s) - start)) s"
finish
