#!/bin/sh
# The kbuild workload on a real kernel: kernel/locking/ of a defconfig tree
# compiled inside rt-stock under QEMU with the host's gcc over 9p; its times
# reach results.json. The same guest, once the build ran, must not read
# the host's secrets through the toolchain share: a root-only file planted
# in /etc, /etc/shadow, the ssh host keys (was: the whole /etc was
# shared, read by QEMU as root); it does read the staged ld.so.conf, so the
# probe itself works. Then a broken tree (KSRC with a syntax error in one
# file) must give a failed iteration carrying the compiler's last lines,
# not a fast "success".
. "$(dirname "$0")/../lib.sh"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 missing (make deps)"
command -v qemu-img >/dev/null || skip "qemu-img missing (make deps)"
"$KB" fetch rt-stock >"$tmp/fetch" 2>&1 || { cat "$tmp/fetch"; skip "cannot fetch rt-stock (no mirror?)"; }

cat >"$tmp/kb.ini" <<'INI'
[suite]
name = kbuild-test
iterations = 1
[kbuild]
config = defconfig
target = kernel/locking/
INI
# a secret only root may read, removed however the test ends
[ "$(id -u)" = 0 ] || skip "planting a root-only file in /etc needs root"
secret=/etc/kbench-test-secret-$$-$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
trap 'rm -f "$secret"; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP
(umask 077 && echo "kbench test secret" >"$secret") || { bad "cannot plant $secret"; finish; }
[ -s /etc/shadow ] || bad "no /etc/shadow on this host to check"
reads="/etc/ld.so.conf:$secret:/etc/shadow"
for k in /etc/ssh/ssh_host_*_key; do [ -e "$k" ] && reads="$reads:$k"; done
t0=$(date +%s)
KBENCH_TEST_GUEST_READ=$reads expect_exit 0 "$KB" run --kernel rt-stock --suite "$tmp/kb.ini" --reports "$tmp/r" --run-id kb
cat "$tmp/out"
echo "time: kbuild run and probe $(($(date +%s) - t0)) s"
expect_out "kbuild .* elapsed"
expect_out "kbench test: the guest read /etc/ld.so.conf "
echo "$reads" | tr ':' '\n' | tail -n +2 | while read -r f; do
	grep -qF "kbench test: the guest cannot read $f" "$tmp/out" && echo "ok: guest cannot read $f" ||
		echo "FAIL: the guest reads $f (or was not asked)"
done >"$tmp/reads"
cat "$tmp/reads"
grep -q FAIL "$tmp/reads" && bad "the guest reads host secrets through the toolchain share"
/usr/bin/python3 - "$tmp/r/runs/kb/results.json" <<'PY' && ok "kbuild times in results.json" || bad "kbuild results"
import json, sys
d = json.load(open(sys.argv[1]))
it = d["iterations"][0]
assert it["status"] == "ok", it
w = it["workloads"][0]
assert w["workload"] == "kbuild" and w["status"] == "ok", w
m = w["metrics"]
for k in ("elapsed", "user", "sys"):
    assert m[k]["value"] > 0 and m[k]["unit"] == "s" and m[k]["better"] == "lower", (k, m)
assert m["elapsed"]["value"] < 3600, m
assert w["extra"]["compiled"] >= 5, w["extra"]
assert "kernel/locking/" in w["command"], w["command"]
print("elapsed %.1f s, user %.1f s, sys %.1f s, %d objects compiled" % (
    m["elapsed"]["value"], m["user"]["value"], m["sys"]["value"], w["extra"]["compiled"]))
PY
expect_exit 0 "$KB" validate "$tmp/r/runs/kb"

# a broken tree: one file of kernel/locking/ does not compile
cache=${KBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kbench}
src=$(ls -d "$cache"/sources/linux-source-6.12_*/tree 2>/dev/null | head -1)
[ -n "$src" ] || { bad "no cached linux-source tree in $cache/sources"; finish; }
cp -al "$src" "$tmp/broken"
rm "$tmp/broken/kernel/locking/semaphore.c"
{ cat "$src/kernel/locking/semaphore.c"; echo "int kbench_broken = ;"; } >"$tmp/broken/kernel/locking/semaphore.c"
KSRC="$tmp/broken" expect_exit 1 "$KB" run --kernel rt-stock --suite "$tmp/kb.ini" --reports "$tmp/r" --run-id broken
cat "$tmp/out"
expect_out "warning: kbuild failed: exited with status 2"
expect_out "semaphore.c:.*error:"
/usr/bin/python3 - "$tmp/r/runs/broken/results.json" <<'PY' && ok "compile error reported with the compiler's lines" || bad "compile error report"
import json, sys
d = json.load(open(sys.argv[1]))
it = d["iterations"][0]
assert it["status"] == "failed", it["status"]
w = it["workloads"][0]
assert w["status"] == "failed", w
assert "metrics" not in w, w
err = w["error"]
assert "semaphore.c" in err and "error:" in err, err
print(err)
PY
# the broken tree's disk is of no further use
disk=$(sed -n 's/.*making the tree disk .* in \(.*\)$/\1/p' "$tmp/out" | head -1)
case $disk in "$cache"/kbuild/*) rm -rf "$disk" ;; esac
finish
