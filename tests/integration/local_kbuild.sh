#!/bin/sh
# lane: beside
# kbuild on the local backend (issue 12): kernel/locking/ of the cached,
# natively prepared defconfig tree compiled on this host with its own
# toolchain, in a copy of the pristine object directory inside the
# user's --scratch DIR; the times reach results.json and the scratch is
# left as it was. A broken tree (KSRC, one file of kernel/locking/ with a
# syntax error) fails the iteration with the compiler's error (file:line).
# clean = no and a missing --scratch are refused before anything runs.
. "$(dirname "$0")/../lib.sh"
[ -x "$top/build/kbench-agent" ] || skip "build/kbench-agent missing: run make"
for t in make gcc flex bison bc; do
	command -v $t >/dev/null || skip "$t not installed (make deps)"
done
cache=${KBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kbench}

printf '[suite]\nname = local-kbuild\niterations = 1\n[kbuild]\nconfig = defconfig\ntarget = kernel/locking/\n' \
	>"$tmp/kb.ini"
mkdir "$tmp/scratch"
t1=$(date +%s)
expect_exit 0 "$KB" run --backend local --kernel running --suite "$tmp/kb.ini" --scratch "$tmp/scratch" \
	--reports "$tmp/r" --run-id kb
echo "time: local kbuild run (the tree prepared if not cached) $(($(date +%s) - t1)) s"
expect_out "kbuild: untimed step: /bin/cp"
expect_exit 0 "$KB" validate "$tmp/r/runs/kb/results.json"
/usr/bin/python3 - "$tmp/r/runs/kb/results.json" "$tmp/scratch" <<'PY' && ok "kbuild times in results.json" || bad "kbuild results"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["host"]["backend"] == "local", d["host"]["backend"]
w = d["iterations"][0]["workloads"][0]
assert w["workload"] == "kbuild" and w["status"] == "ok", w
m = w["metrics"]
for k in ("elapsed", "user", "sys"):
    assert m[k]["value"] > 0 and m[k]["unit"] == "s", (k, m)
assert w["extra"]["compiled"] >= 5, w["extra"]
# built in the scratch, never in the cache
assert "O=%s/kbench-scratch/kbuild-obj" % sys.argv[2] in w["command"], w["command"]
print("elapsed %.1f s, user %.1f s, sys %.1f s, %d objects compiled natively" % (
    m["elapsed"]["value"], m["user"]["value"], m["sys"]["value"], w["extra"]["compiled"]))
PY
left=$(ls -A "$tmp/scratch")
[ "$left" = ".kbench-scratch" ] && ok "the scratch holds only kbench's mark afterwards" ||
	bad "left in the scratch: $left"

# refused before anything runs: no --scratch, clean = no
expect_exit 2 "$KB" run --backend local --kernel running --suite "$tmp/kb.ini" --reports "$tmp/r" --run-id noscratch
expect_out "needs scratch space (dbench, kbuild): give --scratch DIR"
printf 'clean = no\n' >>"$tmp/kb.ini"
expect_exit 2 "$KB" run --backend local --kernel running --suite "$tmp/kb.ini" --scratch "$tmp/scratch" \
	--reports "$tmp/r" --run-id noclean
expect_out "clean = no cannot be kept on this host"
sed -i '/^clean = no$/d' "$tmp/kb.ini"
[ ! -e "$tmp/r/runs/noscratch" ] && [ ! -e "$tmp/r/runs/noclean" ] && ok "no run directory for a refused run" ||
	bad "a refused run left a run directory"

# a broken tree: one file of kernel/locking/ does not compile
src=$(ls -d "$cache"/sources/linux-source-6.12_*/tree 2>/dev/null | head -1)
[ -n "$src" ] || { bad "no cached linux-source tree in $cache/sources"; finish; }
cp -al "$src" "$tmp/broken"
rm "$tmp/broken/kernel/locking/semaphore.c"
{ cat "$src/kernel/locking/semaphore.c"; echo "int kbench_broken = ;"; } >"$tmp/broken/kernel/locking/semaphore.c"
t1=$(date +%s)
KSRC="$tmp/broken" expect_exit 1 "$KB" run --backend local --kernel running --suite "$tmp/kb.ini" \
	--scratch "$tmp/scratch" --reports "$tmp/r" --run-id broken
echo "time: broken tree (prepared natively first) $(($(date +%s) - t1)) s"
expect_out "warning: kbuild failed: exited with status 2"
expect_out "semaphore.c:[0-9]*:[0-9]*: error:"
# the broken tree's copy in the cache is of no further use
tree=$(sed -n 's/.*making the tree disk .* in \(.*\)$/\1/p' "$tmp/out" | head -1)
case $tree in "$cache"/kbuild/*) rm -rf "$tree" ;; esac
left=$(ls -A "$tmp/scratch")
[ "$left" = ".kbench-scratch" ] && ok "the scratch is clean after the failed build too" ||
	bad "left in the scratch after the failure: $left"
finish
