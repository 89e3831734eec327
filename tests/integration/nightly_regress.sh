#!/bin/sh
# kbench nightly on stored synthetic runs (build/synth-runs; nothing
# boots): a first night, a second like it (nothing regressed), then a
# night whose rt run has hackbench 30% slower (the injected regression):
# exit 1, and a JUnit <failure> naming the metric, against both the last
# good night and the pinned baseline; the regressed night is not "good",
# so the next night is judged against the one before it. Then kbench merge
# of two hosts' nights: kept per host, pooled only with --pool-hosts, exit
# the worst night's. Bad configs give exit 2 naming file and line.
. "$(dirname "$0")/../lib.sh"
S="$top/build/synth-runs"
[ -x "$S" ] || skip "build/synth-runs missing (make test builds it)"
py=/usr/bin/python3
r="$tmp/r"
export KBENCH_HISTORY="$r/history.sqlite"
cat >"$tmp/n.ini" <<'INI'
[nightly]
suite = quick
refresh = no
variants = mainline rt
; 5% rather than the default 2%: five iterations of 2% noise cross 2% by
; chance too often for a test (the injected regression is 30%)
threshold = time=5%
threshold = throughput=5%
INI
night() { # NAME SEED HOST [synth options for rt]
	name=$1 seed=$2 host=$3; shift 3
	"$S" "$tmp/in/$name/ml" mainline "$name-mainline" "${seed}1" --host "$host" >/dev/null
	"$S" "$tmp/in/$name/rt" rt "$name-rt" "${seed}2" --host "$host" "$@" >/dev/null
}
night n1 1 testhost; night n2 2 testhost; night n4 4 testhost
night n3 3 testhost --scale hackbench.time=1.3
night other 5 otherhost

expect_exit 0 "$KB" nightly --config "$tmp/n.ini" --reports "$r" --night n1 --runs "$tmp/in/n1"
expect_out "no earlier good night"
grep -q '<skipped type="first-night"' "$r/nightly/n1/junit/nightly.xml" && ok "first night: a JUnit file saying so" ||
	bad "first night JUnit"
expect_exit 0 "$KB" nightly --config "$tmp/n.ini" --reports "$r" --night n2 --runs "$tmp/in/n2" --baseline n1
expect_out "rt against the last-good night n1: exit 0"
expect_out "the pinned baseline night .n1. is also its last good night"

# the injected regression
expect_exit 1 "$KB" nightly --config "$tmp/n.ini" --reports "$r" --night n3 --runs "$tmp/in/n3" --baseline n1
expect_out "rt against the last-good night n2: exit 1"
expect_out "rt against the pinned night n1: exit 1"
expect_out "mainline against the last-good night n2: exit 0"
expect_out "| \*\*regressed\*\* | hackbench time |"
for f in rt-vs-last-good rt-vs-pinned; do
	x="$r/nightly/n3/junit/$f.xml"
	grep -q '<testcase classname="hackbench" name="time" time="0">' "$x" &&
		grep -q '<failure type="regression" message="hackbench time regressed: ' "$x" &&
		ok "$f.xml: a failure naming hackbench time" || { bad "$f.xml"; cat "$x"; }
	[ "$(grep -c '<failure' "$x")" = 1 ] && ok "$f.xml: only that one" || bad "$f.xml: other failures"
	if command -v xmllint >/dev/null; then
		xmllint --noout --schema "$top/tests/fixtures/junit/junit.xsd" "$x" 2>/dev/null &&
			ok "$f.xml valid JUnit" || bad "$f.xml invalid"
	fi
done
grep -c '<failure' "$r/nightly/n3/junit/mainline-vs-last-good.xml" | grep -qx 0 && ok "mainline: no failure" ||
	bad "mainline failed"
$py - "$r/nightly/n3/nightly.json" <<'PY' && ok "nightly.json records the verdicts" || bad "nightly.json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "kbench-nightly" and d["exit"] == 1 and d["night"] == "n3"
assert d["last_good_night"] == {"mainline": "n2", "rt": "n2"} and d["pinned_baseline"] == "n1"
c = {(x["variant"], x["against"]): x for x in d["comparisons"]}
assert c[("rt", "last-good")]["exit"] == 1 and c[("rt", "pinned")]["exit"] == 1
assert c[("mainline", "last-good")]["exit"] == 0
assert any("hackbench time regressed" in f for f in c[("rt", "last-good")]["failures"])
s = {(x["variant"], x["label"], x["metric"]): x for x in d["trends"]["series"]}
assert len(s[("rt", "hackbench", "time")]["points"]) == 3
PY
grep -q "REGRESSION (exit 1)" "$r/nightly/n3/summary.md" && ok "summary.md says REGRESSION" || bad "summary.md"

# n3 regressed, so it is not the last good night of n4
expect_exit 0 "$KB" nightly --config "$tmp/n.ini" --reports "$r" --night n4 --runs "$tmp/in/n4"
expect_out "rt against the last-good night n2: exit 0"
expect_exit 0 "$KB" history nights
expect_out "^n3 .* 1  *mainline rt"
expect_out "regressed rt hackbench time (vs last-good)"

# a deliberate change is accepted by hand: the night that brought it
# fails, is accepted, and the next night like it is judged against it
night n6 6 testhost --scale hackbench.time=1.3
night n7 7 testhost --scale hackbench.time=1.3
expect_exit 1 "$KB" nightly --config "$tmp/n.ini" --reports "$r" --night n6 --runs "$tmp/in/n6"
expect_out "rt against the last-good night n4: exit 1"
expect_exit 0 "$KB" history accept n6
expect_out "night n6 accepted"
expect_exit 0 "$KB" nightly --config "$tmp/n.ini" --reports "$r" --night n7 --runs "$tmp/in/n7"
expect_out "rt against the last-good night n6: exit 0"
expect_exit 2 "$KB" history accept nosuchnight
expect_out "no night 'nosuchnight'"

# refused: a night twice, an unknown pinned night, bad config lines
expect_exit 2 "$KB" nightly --config "$tmp/n.ini" --reports "$r" --night n4 --runs "$tmp/in/n4"
expect_out "night 'n4' is already in the history"
expect_exit 2 "$KB" nightly --config "$tmp/n.ini" --reports "$r" --night n5 --runs "$tmp/in/n4" --baseline nosuch
expect_out "pinned baseline night 'nosuch' is not in the history"
printf '[nightly]\nsuite = quick\nvariants = rt\nloops = 3\n' >"$tmp/bad.ini"
expect_exit 2 "$KB" nightly --config "$tmp/bad.ini" --reports "$r"
expect_out "bad.ini' line 4: unknown key 'loops'"
printf '[nightly]\nsuite = quick\nvariants = rt nosuchvariant\n' >"$tmp/bad2.ini"
expect_exit 2 "$KB" nightly --config "$tmp/bad2.ini" --reports "$r"
expect_out "nosuchvariant"
[ -d "$r/nightly/n5" ] && bad "a refused night left a directory" || ok "a refused night writes nothing"

# another host's night: never judged against testhost's
expect_exit 0 env KBENCH_HISTORY="$tmp/other.sqlite" "$KB" nightly --config "$tmp/n.ini" --reports "$tmp/ro" \
	--night o1 --runs "$tmp/in/other"
expect_exit 2 "$KB" nightly --config "$tmp/n.ini" --reports "$r" --night mixed --runs "$tmp/in/n4" --runs "$tmp/in/other"
expect_out "ran on another host"

# merge: two hosts' nights, one regressed
expect_exit 1 "$KB" merge "$r/nightly/n3" "$tmp/ro/nightly/o1" --out "$tmp/m"
expect_out "2 hosts"
expect_out "each variant kept per host"
$py - "$tmp/m/comparison.json" "$tmp/m/merge.json" <<'PY' && ok "merge keeps each host's runs apart" || bad "merge groups"
import json, sys
c = json.load(open(sys.argv[1])); m = json.load(open(sys.argv[2]))
names = [v["name"] for v in c["variants"]]
assert sorted(names) == ["mainline@otherhost", "mainline@testhost", "rt@otherhost", "rt@testhost"], names
assert m["exit"] == 1 and sorted(m["hosts"]) == ["otherhost", "testhost"] and not m["pooled_hosts"]
PY
ls "$tmp/m/junit" | grep -q "testhost-n3-rt-vs-last-good.xml" && ok "merged JUnit files" || bad "merged junit"
expect_exit 2 "$KB" merge "$r/nightly/n3" "$tmp/ro/nightly/o1" --out "$tmp/m2" --baseline rt
expect_out "baseline 'rt' ran on 2 hosts"
expect_exit 1 "$KB" merge "$r/nightly/n3" "$tmp/ro/nightly/o1" --out "$tmp/m3" --pool-hosts --baseline mainline
$py - "$tmp/m3/comparison.json" <<'PY' && ok "--pool-hosts pools, flagged" || bad "pooled"
import json, sys
c = json.load(open(sys.argv[1]))
v = {x["name"]: x for x in c["variants"]}
assert sorted(v) == ["mainline", "rt"], list(v)
assert any("POOLED" in w for w in c["warnings"]), c["warnings"]
PY
expect_exit 0 "$KB" merge "$r/nightly/n4" --out "$tmp/m4"
finish
