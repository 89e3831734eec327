#!/bin/sh
# make nightly-bench: the cost of one night and of `kbench history trends`
# on a long history (docs/nightly.md, "Cost of a night"). Seeds a
# synthetic history of NB_HOSTS hosts (10) x 4 variants x NB_NIGHTS nights
# (1095, three years) straight into SQLite (build/nightly-bench-seed), then
# times, 3 times each, one more night of host03 (kbench nightly --runs with
# four synthetic runs) and kbench history trends --suite quick --host host03
# --html (the page-wide charts of every series over the whole history).
# Prints the median and the spread of the wall time and of the CPU time
# (user + sys: what the machine's load does not inflate). Targets on an
# idle machine: under 2 s a night, under 10 s for trends.
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
KB="$top/kbench"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbench-nbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
hosts=${NB_HOSTS:-10}
nights=${NB_NIGHTS:-1095}
export KBENCH_HISTORY="$tmp/history.sqlite"
t0=$(date +%s)
"$top/build/nightly-bench-seed" "$KBENCH_HISTORY" "$hosts" "$nights"
echo "seeded in $(($(date +%s) - t0)) s, $(du -m "$KBENCH_HISTORY" | cut -f1) MB; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '[nightly]\nsuite = quick\nrefresh = no\nvariants = mainline rt\n' >"$tmp/n.ini"
# median and spread of 3 "wall cpu" lines in FILE
stats() {
	w=$(cut -d' ' -f1 "$2" | sort -n | tr '\n' ' ')
	c=$(cut -d' ' -f2 "$2" | sort -n | tr '\n' ' ')
	set -- "$1" $w $c
	echo "$1: wall median $3 s ($2 .. $4), cpu median $6 s ($5 .. $7), 3 runs"
}
for i in 1 2 3; do
	for v in mainline rt rt-upstream rt-adaptive; do
		"$top/build/synth-runs" "$tmp/in$i/$v" "$v" "bench$i-$v" "9$i" --host host03 >/dev/null
	done
	/usr/bin/time -f "%e %U %S" -o "$tmp/time" "$KB" nightly --config "$tmp/n.ini" --reports "$tmp/r" \
		--night "bench$i" --runs "$tmp/in$i" >"$tmp/night$i.log" 2>&1 || {
		rc=$?; [ "$rc" = 3 ] || [ "$rc" = 0 ] || { cat "$tmp/night$i.log"; echo "night exit $rc"; exit 1; }; }
	awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$tmp/time" >>"$tmp/nights"
done
stats "one more night (4 variants, 16 metrics)" "$tmp/nights"
for i in 1 2 3; do
	/usr/bin/time -f "%e %U %S" -o "$tmp/time" "$KB" history trends --suite quick --host host03 \
		--html "$tmp/trends.html" >"$tmp/trends.log" 2>&1 || { cat "$tmp/trends.log"; exit 1; }
	awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$tmp/time" >>"$tmp/trends"
done
stats "kbench history trends --html (charts of $nights nights, change points over the latest 400)" "$tmp/trends"
grep '^trends:' "$tmp/trends.log"
echo "trends.html: $(du -k "$tmp/trends.html" | cut -f1) kB, $(grep -o '<svg class="trend"' "$tmp/trends.html" | wc -l) charts"
