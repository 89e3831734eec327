#!/bin/sh
# aa.sh - the A/A false-call rate (make aa; docs/comparison.md): K
# interleaved campaigns of one stock kernel run as two variants (VARIANT
# and a copy of its file named aa-VARIANT), each judged by kbench regress
# (the runs of the copy against the runs of the original, default
# thresholds) and by the campaign's comparison.json; then, per metric, how
# many of the K campaigns called a difference (verdict better or worse),
# how many regress runs called a regression (exit 1), and the false-call
# rate over all metric comparisons with a verdict (how many of them were
# noisy is printed beside it). Every call is a false one: both variants
# are the same kernel.
#
#   sh tests/tools/aa.sh [-k CAMPAIGNS] [-r ROUNDS] [-v VARIANT] [-s SUITE] [-o DIR]
#                        [-t wall|instructions]
#
# Defaults: 5 campaigns of 3 rounds of mainline-stock (prebuilt, cached
# after its first fetch) on the smoke suite without its kernel compile,
# in reports/aa (with -s SUITE: reports/aa-SUITE). Per metric it also
# prints the minimum detectable effect at n = ROUNDS and the CV between
# boots and, for suites with repeats (-s power), within a boot.
# Measure on an idle host: TCG figures on a busy one are 4-10x noisier.
# -t gives the campaigns' --timing (docs/timing.md; default: kbench's,
# wall); the figures then also print the wall time per iteration.
# Every kbench command's exit status is checked (regress: 0, 1 and 3 are
# verdicts, anything else stops the benchmark).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
KB="$top/kbench"
k=5 rounds=3 variant=mainline-stock suite="" out="" timing=""
while getopts k:r:v:s:o:t: o; do
	case $o in
	k) k=$OPTARG ;; r) rounds=$OPTARG ;; v) variant=$OPTARG ;; s) suite=$OPTARG ;; o) out=$OPTARG ;;
	t) timing=$OPTARG ;;
	*) echo "usage: see the head of $0" >&2; exit 2 ;;
	esac
done
# one directory per suite: campaigns there resume, so two suites must not share one
[ -n "$out" ] || out="$top/reports/aa${suite:+-$(basename "$suite" .ini)}"
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
start=$(date +%s)
if [ -z "$suite" ]; then
	suite="$out/smoke-nokbuild.ini"
	awk '/^\[/ { skip = ($0 == "[kbuild]") } !skip' "$top/configs/suites/smoke.ini" >"$suite" || exit 1
fi
src="$top/kernels/$variant.ini"
[ -f "$src" ] || { echo "aa.sh: no variant file '$src'" >&2; exit 2; }
aa="aa-$variant"
sed "s/^name = $variant\$/name = $aa/" "$src" >"$out/$aa.ini"
grep -q "^name = $aa\$" "$out/$aa.ini" || { echo "aa.sh: '$src' has no 'name = $variant' line" >&2; exit 2; }
i=1
while [ "$i" -le "$k" ]; do
	id="aa-$i"
	d="$out/compare/$id"
	echo "aa.sh: campaign $i/$k ($id, $rounds rounds, seed $i)"
	if [ -f "$d/campaign.json" ]; then
		(cd "$out" && "$KB" campaign --resume "$d") || { echo "aa.sh: campaign $id failed" >&2; exit 1; }
	else
		(cd "$out" && "$KB" campaign --kernels "$variant $aa.ini" --suite "$suite" --iterations "$rounds" \
			--seed "$i" --reports "$out" --id "$id" ${timing:+--timing "$timing"}) ||
			{ echo "aa.sh: campaign $id failed" >&2; exit 1; }
	fi
	set --
	r=1
	while [ "$r" -le "$rounds" ]; do
		set -- "$@" --baseline "$d/runs/$(printf 'r%02d' "$r")-$variant" \
			--current "$d/runs/$(printf 'r%02d' "$r")-$aa.ini"
		r=$((r + 1))
	done
	"$KB" regress "$@" >"$d/regress.out" 2>&1
	rc=$?
	case $rc in 0|1|3) echo "$rc" >"$d/regress.rc" ;; *) cat "$d/regress.out"; echo "aa.sh: regress exit $rc" >&2; exit 1 ;; esac
	i=$((i + 1))
done
python3 - "$out" "$k" "$variant" "$aa" "$rounds" <<'PY'
import json, os, sys
out, k, base, aa, rounds = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
calls, compared, noisy, regress = {}, {}, {}, []
mde, between, within = {}, {}, {}
walls, timing, values = [], set(), {}
for i in range(1, k + 1):
    d = os.path.join(out, "compare", f"aa-{i}")
    runs = os.path.join(d, "runs")
    for r in sorted(os.listdir(runs)):
        rj = json.load(open(os.path.join(runs, r, "results.json")))
        timing.add(rj["host"].get("timing", "wall"))
        walls += [it["wall_s"] for it in rj["iterations"] if it.get("status") == "ok" and "wall_s" in it]
    regress.append(int(open(os.path.join(d, "regress.rc")).read()))
    c = json.load(open(os.path.join(d, "comparison.json")))
    for m in c["metrics"]:
        key = f"{m['label']} {m['metric']}"
        x, b = m["variants"].get(aa) or {}, m["variants"].get(base) or {}
        verdict = (x.get("vs_baseline") or {}).get("verdict")
        for t in (calls, compared, noisy):
            t.setdefault(key, 0)
        if verdict in ("same", "better", "worse"):
            compared[key] += 1
            noisy[key] += bool(x.get("noisy") or b.get("noisy"))
        if verdict in ("better", "worse"):
            calls[key] += 1
        if (x.get("vs_baseline") or {}).get("mde") is not None:
            mde.setdefault(key, []).append(x["vs_baseline"]["mde"])
        for cell in (x, b):
            values.setdefault(key, []).extend(cell.get("values") or [])
            if cell.get("cv") is not None:
                between.setdefault(key, []).append(cell["cv"])
            if cell.get("within_boot_cv") is not None:
                within.setdefault(key, []).append(cell["within_boot_cv"])
print(f"\nA/A: {base} against itself, {k} campaigns of {rounds} rounds, timing {' '.join(sorted(timing))} ({out})\n")
def med(v, scale=100):
    """median (min-max) of V in percent, '-' when empty"""
    if not v:
        return "-"
    v = sorted(v)
    m = v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2
    return f"{m * scale:.1f}% ({v[0] * scale:.1f}-{v[-1] * scale:.1f})"
print(f"mde: the smallest change each campaign could detect at n = {rounds} (median, range over the "
      "campaigns); CV between boots (of each boot's value: the median of its repeats) and within "
      "a boot (its repeats), both variants pooled\n")
print("| metric | false calls | compared | of which noisy | mde | CV between | CV within |")
print("|---|---|---|---|---|---|---|")
for key in calls:
    print(f"| {key} | {calls[key]} of {k} | {compared[key]} of {k} | {noisy[key]} | "
          f"{med(mde.get(key))} | {med(between.get(key))} | {med(within.get(key))} |")
n, d, q = sum(calls.values()), sum(compared.values()), sum(noisy.values())
print(f"\ncompare: {n} false calls in {d} metric comparisons"
      + (f" ({100 * n / d:.1f}%)" if d else "")
      + f", {q} of them noisy (CV above the limit), K = {k}")
print(f"regress: {sum(r == 1 for r in regress)} of {k} campaigns called a regression "
      f"(exit statuses {' '.join(map(str, regress))})")
walls.sort()
if walls:
    print(f"wall time per iteration (boot to power-off): median {walls[len(walls) // 2]:.1f} s "
          f"({walls[0]:.1f}-{walls[-1]:.1f}, {len(walls)} iterations)")
json.dump({"timing": sorted(timing), "k": k, "rounds": int(rounds),
           "metrics": {key: {"false_calls": calls[key], "compared": compared[key], "noisy": noisy[key],
                             "mde": sorted(mde.get(key, [])), "cv_between": sorted(between.get(key, [])),
                             "cv_within": sorted(within.get(key, [])),
                             "values": sorted(values.get(key, []))} for key in calls},
           "wall_s": walls}, open(os.path.join(out, "aa.json"), "w"), indent=1)
PY
rc=$?
echo "aa.sh: $(( $(date +%s) - start )) s"
exit $rc
