#!/bin/sh
# make kbuild-bench: what emulation costs a kernel compile. The kbuild of a
# suite (default smoke: kernel/locking/ of defconfig) is run natively on
# the host, then in a guest (KERNEL, default rt-stock; TCG here), N times
# each (KBUILD_BENCH_ITER, default 3), one after the other in this run;
# medians, spreads and the guest/native ratio are printed.
# Same gcc (shared into the guest read-only), same prepared tree, same
# make command and environment on both sides.
# Never run it beside another build or guest: it measures the host.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
KB="$top/kbench"
suite=${SUITE:-smoke}
kernel=${KERNEL:-rt-stock}
n=${KBUILD_BENCH_ITER:-3}
out="$top/reports/kbuild-bench/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
# a suite holding only the kbuild section of $suite
case $suite in */*) path=$suite ;; *) path="$top/configs/suites/$suite.ini" ;; esac
awk -v n="$n" '
	/^\[/ { sec = $0; keep = (sec == "[kbuild]") }
	sec == "[suite]" && /^name *=/ { print "name = kbuild-bench"; next }
	sec == "[suite]" && /^iterations *=/ { print "iterations = " n; next }
	sec == "[suite]" && /^warmup *=/ { print "warmup = 0"; next }
	sec == "[suite]" || keep { print }
' "$path" >"$out/suite.ini"
grep -q '^\[kbuild\]' "$out/suite.ini" || { echo "kbuild-bench: suite $suite has no [kbuild] section"; exit 2; }
echo "kbuild-bench: native, $n builds"
"$KB" kbuild-native --suite "$out/suite.ini" --iterations "$n" >"$out/native.json"
echo "kbuild-bench: guest ($kernel), $n builds"
"$KB" run --kernel "$kernel" --suite "$out/suite.ini" --reports "$out" --run-id guest \
	>"$out/guest.log" 2>&1 || { tail -30 "$out/guest.log"; echo "kbuild-bench: the guest run failed"; exit 1; }
/usr/bin/python3 - "$out/native.json" "$out/runs/guest/results.json" <<'PY'
import json, statistics, sys
nat = json.load(open(sys.argv[1]))
res = json.load(open(sys.argv[2]))
g = {"elapsed": [], "user": [], "sys": []}
compiled = set()
for it in res["iterations"]:
    for w in it.get("workloads", []):
        if w["workload"] == "kbuild" and w.get("status") == "ok":
            for k in g:
                g[k].append(w["metrics"][k]["value"])
            compiled.add(w["extra"]["compiled"])
n = {k: [r[k] for r in nat["runs"]] for k in g}
compiled |= {r["compiled"] for r in nat["runs"]}
if not g["elapsed"] or not n["elapsed"]:
    sys.exit("kbuild-bench: no successful builds to compare")
if len(compiled) != 1:
    sys.exit("kbuild-bench: native and guest compiled different object counts %s" % compiled)
p = nat["params"]
print("\nkbuild-bench: make -j%d %s (%s), %d objects, host: %s, %d cores; guest: %s, %s, %d vCPU" % (
    p["jobs"], p["target"], p["config"], compiled.pop(), nat["host"]["cpu_model"],
    nat["host"]["cores"], res["variant"]["kernel_release"], res["host"]["accel"], res["guest"]["vcpus"]))
print("%-8s %26s %26s %8s" % ("time", "native median (min-max)", "guest median (min-max)", "ratio"))
for k in ("elapsed", "user", "sys"):
    mn, mg = statistics.median(n[k]), statistics.median(g[k])
    print("%-8s %10.2f s (%5.2f-%5.2f) %10.2f s (%6.2f-%6.2f) %7.1fx" % (
        k, mn, min(n[k]), max(n[k]), mg, min(g[k]), max(g[k]), mg / mn if mn > 0 else float("nan")))
PY
echo "kbuild-bench: files in $out"
