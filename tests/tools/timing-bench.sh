#!/bin/sh
# timing-bench.sh - make timing-bench: the two clocks side by side in one
# run (docs/timing.md). The same A/A benchmark (tests/tools/aa.sh: a stock
# kernel against a copy of itself, interleaved campaigns judged by compare
# and regress) under wall timing (plain TCG) and under instructions timing
# (QEMU's instruction counter), on an idle host, then instructions timing
# again with LOAD_PROCS busy shell loops beside it (a busy host), and wall
# timing beside the same loops when BUSY_WALL=1. Per metric and mode: the
# CV between boots, the minimum detectable effect at n = ROUNDS, the false
# calls; per mode the wall time per iteration. The goal (issue 34):
# between-boot CV at or under 1%, mde at n = 5 at or under 2%, wall cost at
# most 2.5x plain TCG's.
#
#   sh tests/tools/timing-bench.sh [-k CAMPAIGNS] [-r ROUNDS] [-s SUITE] [-o DIR]
#
# Defaults: 2 campaigns of 5 rounds of mainline-stock on configs/suites/
# power.ini (hackbench and dbench, 5 repeats each inside a boot), in
# reports/timing-bench. About 30 minutes on an idle 2-core host. Nothing
# else may run beside it (the wall-clock half would measure that); the
# busy half's loops end with it, even after SIGKILL (each checks that this
# script is alive).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
k=2 rounds=5 suite="$top/configs/suites/power.ini" out="$top/reports/timing-bench"
while getopts k:r:s:o: o; do
	case $o in
	k) k=$OPTARG ;; r) rounds=$OPTARG ;; s) suite=$OPTARG ;; o) out=$OPTARG ;;
	*) echo "usage: see the head of $0" >&2; exit 2 ;;
	esac
done
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
start=$(date +%s)
loads=""
stop_load() { for p in $loads; do kill "$p" 2>/dev/null; done; loads=""; }
trap 'stop_load' EXIT
trap 'stop_load; exit 130' INT TERM HUP
start_load() {
	i=0
	while [ "$i" -lt "${LOAD_PROCS:-2}" ]; do
		# a busy loop that ends when this script does
		sh -c 'while kill -0 '"$$"' 2>/dev/null; do i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; done' &
		loads="$loads $!"
		i=$((i + 1))
	done
	echo "timing-bench: $(echo $loads | wc -w) busy loops beside the next campaigns"
}
modes="wall instructions instructions-busy"
[ "${BUSY_WALL:-0}" = 1 ] && modes="$modes wall-busy"
for m in $modes; do
	t=${m%-busy}
	echo "timing-bench: $m: $k campaigns of $rounds rounds ($(( $(date +%s) - start )) s so far)"
	[ "$m" = "$t" ] || start_load
	sh "$top/tests/tools/aa.sh" -k "$k" -r "$rounds" -s "$suite" -t "$t" -o "$out/$m" || {
		stop_load
		echo "timing-bench: $m failed" >&2
		exit 1
	}
	stop_load
done
python3 - "$out" $modes <<'PY'
import json, os, sys
out, modes = sys.argv[1], sys.argv[2:]
aa = {m: json.load(open(os.path.join(out, m, "aa.json"))) for m in modes}
def med(v):
    v = sorted(v)
    return None if not v else v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2
def pct(x):
    return "-" if x is None else f"{100 * x:.1f}%"
keys = [k for k in aa[modes[0]]["metrics"]]
print("\n## Wall timing and instructions timing side by side\n")
print(f"{aa[modes[0]]['k']} A/A campaigns of {aa[modes[0]]['rounds']} rounds per mode; CV between "
      "boots and mde (the smallest change a campaign could detect at that n), medians over the "
      "campaigns and both variants; false calls of compare over the campaigns\n")
print("| metric | " + " | ".join(f"{m}: CV between / mde / false calls" for m in modes) + " |")
print("|---|" + "---|" * len(modes))
for key in keys:
    cells = []
    for m in modes:
        x = aa[m]["metrics"].get(key)
        cells.append("-" if not x else f"{pct(med(x['cv_between']))} / {pct(med(x['mde']))} / "
                     f"{x['false_calls']} of {x['compared']}")
    print(f"| {key} | " + " | ".join(cells) + " |")
w = {m: med(aa[m]["wall_s"]) for m in modes}
print("\n| | " + " | ".join(modes) + " |")
print("|---|" + "---|" * len(modes))
print("| wall time per iteration (median, s) | " + " | ".join(
    "-" if w[m] is None else f"{w[m]:.1f}" for m in modes) + " |")
if w.get("wall"):
    print("| against plain TCG (wall) | " + " | ".join(
        "-" if w[m] is None else f"{w[m] / w['wall']:.2f}x" for m in modes) + " |")
# the busy host against the idle one, instructions timing: the same figures?
if "instructions" in aa and "instructions-busy" in aa:
    print("\ninstructions timing, idle host against busy host (every boot's value, both variants):\n")
    print("| metric | idle: median (min-max) | busy: median (min-max) | busy/idle |")
    print("|---|---|---|---|")
    for key in keys:
        a = aa["instructions"]["metrics"].get(key, {}).get("values") or []
        b = aa["instructions-busy"]["metrics"].get(key, {}).get("values") or []
        if a and b:
            print(f"| {key} | {med(a):.4g} ({min(a):.4g}-{max(a):.4g}) | {med(b):.4g} "
                  f"({min(b):.4g}-{max(b):.4g}) | {med(b) / med(a):.3f} |")
json.dump({m: {"wall_s_median": w[m], **aa[m]} for m in modes},
          open(os.path.join(out, "timing-bench.json"), "w"), indent=1)
PY
rc=$?
echo "timing-bench: $(( $(date +%s) - start )) s in all; figures in $out/timing-bench.json"
exit $rc
