#!/bin/sh
# lane: beside
# kbench nightly on stored synthetic runs (build/synth-runs; nothing
# boots): four nights make the level, then two nights whose rt run has
# hackbench 30% slower (the injected regression): exit 1 both nights, a
# JUnit <failure> "regressed since night n5 (kernel ...), 2 nights, not
# accepted" and against the pinned baseline; fixed, it is green again
# without an accept; a deliberate change is accepted with a reason and who,
# and shown; a night flagged noisy exits 3 without an alarm. Then kbench merge
# of two hosts' nights: kept per host, pooled only with --pool-hosts, exit
# the worst night's. Bad configs give exit 2 naming file and line. Nights
# imported without verdicts are judged first; an unaccepted worse change
# point fails the night until it is accepted.
. "$(dirname "$0")/../lib.sh"
t0=$(date +%s)
S="$top/build/synth-runs"
need_tool sqlite3 "the test reads the verdicts table"
need_tool xmllint "the night's JUnit files are validated against tests/fixtures/junit/junit.xsd"
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
for i in 1 2 3 4 7 8 9 10 11 12; do night n$i $i testhost; done
for i in 5 6 13 14 16; do night n$i $i testhost --scale hackbench.time=1.3; done
night n15 15 testhost --scale hackbench.time=2.0
night other 5 otherhost

expect_exit 0 "$KB" nightly --config "$tmp/n.ini" --reports "$r" --night n1 --runs "$tmp/in/n1"
expect_out "rt against its level: exit 0 (4 metrics)"
grep -q "the level starts here" "$r/nightly/n1/summary.md" 2>/dev/null ||
	grep -q "4 metrics judged, exit 0" "$r/nightly/n1/summary.md" && ok "first night: the level starts" ||
	bad "first night summary"
grep -q 'failures="0"' "$r/nightly/n1/junit/rt-verdicts.xml" && ok "first night: a JUnit file without failures" ||
	bad "first night JUnit"
for i in 2 3 4; do
	expect_exit 0 "$KB" nightly --config "$tmp/n.ini" --reports "$r" --night n$i --runs "$tmp/in/n$i" --baseline n1
done
expect_out "rt against the pinned night n1: exit 0"

# the injected regression: red, and red again the next night
expect_exit 1 "$KB" nightly --config "$tmp/n.ini" --reports "$r" --night n5 --runs "$tmp/in/n5" --baseline n1
expect_out "rt against its level: exit 1"
expect_out "rt against the pinned night n1: exit 1"
expect_out "mainline against its level: exit 0"
expect_exit 1 "$KB" nightly --config "$tmp/n.ini" --reports "$r" --night n6 --runs "$tmp/in/n6" --baseline n1
expect_out "regressed since night n5 (kernel [^)]*), 2 nights, not accepted"
x="$r/nightly/n6/junit/rt-verdicts.xml"
grep -q '<testcase classname="hackbench" name="time" time="0">' "$x" &&
	grep -q '<failure type="regression" message="hackbench time: regressed since night n5 (kernel .*), 2 nights, not accepted' "$x" &&
	ok "rt-verdicts.xml: a failure naming hackbench time, since n5, 2 nights" || { bad "rt-verdicts.xml"; cat "$x"; }
[ "$(grep -c '<failure' "$x")" = 1 ] && ok "rt-verdicts.xml: only that one" || bad "rt-verdicts.xml: other failures"
for f in rt-verdicts rt-vs-pinned mainline-verdicts changepoints; do
	xmllint --noout --schema "$top/tests/fixtures/junit/junit.xsd" "$r/nightly/n6/junit/$f.xml" >"$tmp/xmllint" 2>&1 &&
		ok "$f.xml valid JUnit" || { bad "$f.xml invalid"; cat "$tmp/xmllint"; }
done
grep -c '<failure' "$r/nightly/n6/junit/mainline-verdicts.xml" | grep -qx 0 && ok "mainline: no failure" ||
	bad "mainline failed"
$py - "$r/nightly/n6/nightly.json" <<'PY' && ok "nightly.json records the verdicts" || bad "nightly.json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "kbench-nightly" and d["exit"] == 1 and d["night"] == "n6"
assert d["pinned_baseline"] == "n1"
v = {(x["variant"], x["label"], x["metric"]): x for x in d["verdicts"]}
h = v[("rt", "hackbench", "time")]
assert h["state"] == "regressed" and h["since_night"] == "n5" and h["nights"] == 2, h
assert v[("mainline", "hackbench", "time")]["state"] == "ok"
c = {(x["variant"], x["against"]): x for x in d["comparisons"]}
assert c[("rt", "pinned")]["exit"] == 1
s = {(x["variant"], x["label"], x["metric"]): x for x in d["trends"]["series"]}
assert len(s[("rt", "hackbench", "time")]["points"]) == 6
PY
grep -q "REGRESSION (exit 1)" "$r/nightly/n6/summary.md" && ok "summary.md says REGRESSION" || bad "summary.md"

# fixed: green again without an accept, once the last nights pool back at
# the old level (clear_nights = 3: within a few nights)
green=
for i in 7 8 9 10 11 12; do
	"$KB" nightly --config "$tmp/n.ini" --reports "$r" --night n$i --runs "$tmp/in/n$i" >"$tmp/out" 2>&1
	rc=$?
	case $rc in
	0) green=n$i; break ;;
	1) grep -q "regressed since night n5" "$tmp/out" || { bad "n$i red for another reason"; cat "$tmp/out"; } ;;
	*) bad "n$i exit $rc"; cat "$tmp/out" ;;
	esac
done
[ -n "$green" ] && grep -q "back at its level" "$r/nightly/$green/summary.md" &&
	ok "fixed regression green again at $green without an accept" || bad "never green again after the fix"
expect_exit 0 "$KB" history nights
expect_out "regressed rt hackbench time since n5 (2 nights)"

# a deliberate change is accepted by hand, with a reason and who
expect_exit 1 "$KB" nightly --config "$tmp/n.ini" --reports "$r" --night n13 --runs "$tmp/in/n13"
expect_exit 2 "$KB" history accept n13 --variant rt --metric hackbench.time
expect_out "needs a reason"
expect_exit 2 "$KB" history accept n13 --variant rt --metric hackbench.nosuch --reason x
expect_out "no metric 'hackbench.nosuch'"
expect_exit 0 env KBENCH_USER=alice "$KB" history accept --variant rt --metric hackbench.time \
	--reason "new scheduler default, slower on purpose"
expect_out "night n13 accepted for rt, hackbench.time by alice"
expect_exit 0 "$KB" nightly --config "$tmp/n.ini" --reports "$r" --night n14 --runs "$tmp/in/n14"
grep -q "accepted: night n13 accepted (rt, hackbench.time) by alice on .*: new scheduler default" \
	"$r/nightly/n14/summary.md" && ok "the summary shows who accepted what and why" || bad "accept not shown"
expect_exit 2 "$KB" history accept nosuchnight --reason x
expect_out "no night 'nosuchnight'"

# a night a host-noise guard flagged: exit 3, no alarm, not in any level
expect_exit 3 "$KB" nightly --config "$tmp/n.ini" --reports "$r" --night n15 --runs "$tmp/in/n15" --noisy "load 9 on the host"
grep -c '<failure' "$r/nightly/n15/junit/rt-verdicts.xml" | grep -qx 0 && ok "noisy night: no failure" || bad "noisy night failed"
expect_exit 0 "$KB" nightly --config "$tmp/n.ini" --reports "$r" --night n16 --runs "$tmp/in/n16"
n=$(sqlite3 "$KBENCH_HISTORY" "SELECT count(*) FROM verdicts WHERE night = 'n15' AND state = 'noisy'" 2>/dev/null)
[ "$n" = 8 ] && ok "noisy night recorded as such (not in a level)" || bad "noisy verdicts: $n"
# the host-noise guard: two of tonight's rt iterations ran beside busy
# processes (iterations[].host_noise.busy): flagged noisy, exit 3, no alarm
night n17 17 testhost --scale hackbench.time=1.6
$py - "$tmp/in/n17/rt/results.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for it in d["iterations"][:2]:
    it["host_noise"] = {"seconds": 10.0, "other_cpu_pct": 55.0, "own_cpu_pct": 40.0, "load1": 3.5,
                        "threshold_pct": 10.0, "busy": True}
json.dump(d, open(sys.argv[1], "w"))
PY
expect_exit 3 "$KB" nightly --config "$tmp/n.ini" --reports "$r" --night n17 --runs "$tmp/in/n17"
expect_out "host-noise guard: rt 2 busy iterations (other processes up to 55% CPU): the night is flagged noisy"
grep -c '<failure' "$r/nightly/n17/junit/rt-verdicts.xml" | grep -qx 0 && ok "guard-flagged night: no failure" ||
	bad "guard-flagged night failed"
# nights are listed in the order they ran, not by name (n13 after n7)
expect_exit 0 "$KB" history nights
grep -n '^n7 \|^n13 ' "$tmp/out" | tr '\n' ' ' | grep -q '^[0-9]*:n7 .*:n13 ' &&
	ok "nights in recorded order (n7 before n13)" || { bad "night order"; cat "$tmp/out"; }

# nights without verdicts (recorded before history schema 3, or imported
# night directories): the first night judged after them judges them
# first, in order, so the regression that began in them is red tonight,
# "since" its first night (without that, the level started tonight: exit 0)
expect_exit 0 env KBENCH_HISTORY="$tmp/imp.sqlite" "$KB" history import "$r/nightly/n1" "$r/nightly/n2" \
	"$r/nightly/n3" "$r/nightly/n4" "$r/nightly/n5" "$r/nightly/n6"
n=$(sqlite3 "$tmp/imp.sqlite" "SELECT count(*) FROM verdicts")
[ "$n" = 0 ] && ok "imported nights have no verdicts" || bad "imported nights' verdicts: $n"
expect_exit 1 env KBENCH_HISTORY="$tmp/imp.sqlite" "$KB" nightly --config "$tmp/n.ini" --reports "$tmp/ri" \
	--night i13 --runs "$tmp/in/n13"
expect_out "rt: 6 earlier nights had no verdicts (recorded before history schema 3, or imported): judged first"
expect_out "regressed since night n5 (kernel [^)]*), 3 nights, not accepted"

# refused: a night twice, an unknown pinned night, bad config lines
expect_exit 2 "$KB" nightly --config "$tmp/n.ini" --reports "$r" --night n4 --runs "$tmp/in/n4"
expect_out "night 'n4' is already in the history"
expect_exit 2 "$KB" nightly --config "$tmp/n.ini" --reports "$r" --night x5 --runs "$tmp/in/n4" --baseline nosuch
expect_out "pinned baseline night 'nosuch' is not in the history"
printf '[nightly]\nsuite = quick\nvariants = rt\nloops = 3\n' >"$tmp/bad.ini"
expect_exit 2 "$KB" nightly --config "$tmp/bad.ini" --reports "$r"
expect_out "bad.ini' line 4: unknown key 'loops'"
printf '[nightly]\nsuite = quick\nvariants = rt nosuchvariant\n' >"$tmp/bad2.ini"
expect_exit 2 "$KB" nightly --config "$tmp/bad2.ini" --reports "$r"
expect_out "nosuchvariant"
[ -d "$r/nightly/x5" ] && bad "a refused night left a directory" || ok "a refused night writes nothing"
printf '[nightly]\nsuite = quick\nvariants = rt\nwindow = 1\n' >"$tmp/bad3.ini"
expect_exit 2 "$KB" nightly --config "$tmp/bad3.ini" --reports "$r"
expect_out "bad3.ini' line 4: window expects a whole number 2..100, got '1'"
# where the night runs: a lab file that is not there, or a lab and a target
printf '[nightly]\nsuite = quick\nvariants = rt\nlab = %s/nosuchlab.ini\n' "$tmp" >"$tmp/bad4.ini"
expect_exit 2 "$KB" nightly --config "$tmp/bad4.ini" --reports "$r" --night x6
expect_out "lab '$tmp/nosuchlab.ini': cannot read"
printf '[nightly]\nsuite = quick\nvariants = rt\nlab = a\ntarget = b\n' >"$tmp/bad5.ini"
expect_exit 2 "$KB" nightly --config "$tmp/bad5.ini" --reports "$r" --night x6
expect_out "lab = a and target = b: a night runs on a lab or on one machine, not both"
[ -d "$r/nightly/x6" ] && bad "a refused lab night left a directory" || ok "a refused lab night writes nothing"

# another host's night: never judged against testhost's
expect_exit 0 env KBENCH_HISTORY="$tmp/other.sqlite" "$KB" nightly --config "$tmp/n.ini" --reports "$tmp/ro" \
	--night o1 --runs "$tmp/in/other"
expect_exit 2 "$KB" nightly --config "$tmp/n.ini" --reports "$r" --night mixed --runs "$tmp/in/n4" --runs "$tmp/in/other"
expect_out "ran on another host"

# merge: two hosts' nights, one regressed
expect_exit 1 "$KB" merge "$r/nightly/n5" "$tmp/ro/nightly/o1" --out "$tmp/m"
expect_out "2 hosts"
expect_out "each variant kept per host"
$py - "$tmp/m/comparison.json" "$tmp/m/merge.json" <<'PY' && ok "merge keeps each host's runs apart" || bad "merge groups"
import json, sys
c = json.load(open(sys.argv[1])); m = json.load(open(sys.argv[2]))
names = [v["name"] for v in c["variants"]]
assert sorted(names) == ["mainline@otherhost", "mainline@testhost", "rt@otherhost", "rt@testhost"], names
assert m["exit"] == 1 and sorted(m["hosts"]) == ["otherhost", "testhost"] and not m["pooled_hosts"]
PY
ls "$tmp/m/junit" | grep -q "testhost-n5-rt-verdicts.xml" && ok "merged JUnit files" || bad "merged junit"
expect_exit 2 "$KB" merge "$r/nightly/n5" "$tmp/ro/nightly/o1" --out "$tmp/m2" --baseline rt
expect_out "baseline 'rt' ran on 2 hosts"
expect_exit 1 "$KB" merge "$r/nightly/n5" "$tmp/ro/nightly/o1" --out "$tmp/m3" --pool-hosts --baseline mainline
$py - "$tmp/m3/comparison.json" <<'PY' && ok "--pool-hosts pools, flagged" || bad "pooled"
import json, sys
c = json.load(open(sys.argv[1]))
v = {x["name"]: x for x in c["variants"]}
assert sorted(v) == ["mainline", "rt"], list(v)
assert any("POOLED" in w for w in c["warnings"]), c["warnings"]
PY
expect_exit 0 "$KB" merge "$r/nightly/n4" --out "$tmp/m4"
# change points count in the exit status: 60 seeded nights with an 8%
# step in rt's hackbench time at night 40 (build/nightly-bench-seed), then
# a night at the new level: exit 1 and a <failure type="change-point">
# naming the metric, the nights and the change; accepted, the next night
# has no change-point failure, and its chart marks the accept
SEED="$top/build/nightly-bench-seed"
[ -x "$SEED" ] || { bad "build/nightly-bench-seed missing (make test builds it)"; finish; }
export KBENCH_HISTORY="$tmp/cp.sqlite"
expect_exit 0 "$SEED" "$KBENCH_HISTORY" 1 60 --step 40:8
for i in 1 2; do
	"$S" "$tmp/cp$i/ml" mainline "cp$i-mainline" "$i$i" --host host00 >/dev/null
	"$S" "$tmp/cp$i/rt" rt "cp$i-rt" "$i$i" --host host00 --scale hackbench.time=1.08 >/dev/null
done
printf '[nightly]\nsuite = quick\nrefresh = no\nvariants = mainline rt\n' >"$tmp/cp.ini"
expect_exit 1 "$KB" nightly --config "$tmp/cp.ini" --reports "$tmp/rc" --night cp1 --runs "$tmp/cp1"
expect_out "change point: rt hackbench time between nights h00-d0039 and h00-d0040"
grep -q '<failure type="change-point" message="rt hackbench time: change point between nights h00-d0039 and h00-d0040, [0-9.]* -&gt; [0-9.]* s (+[0-9.]*%, p [0-9.e-]*), worse by more than its threshold (2%), not accepted"' \
	"$tmp/rc/nightly/cp1/junit/changepoints.xml" && ok "changepoints.xml: a failure naming the change point" ||
	{ bad "changepoints.xml"; cat "$tmp/rc/nightly/cp1/junit/changepoints.xml"; }
expect_exit 0 "$KB" history accept --variant rt --metric hackbench.time --reason "rt lock rework" --by bob
expect_exit 0 "$KB" nightly --config "$tmp/cp.ini" --reports "$tmp/rc" --night cp2 --runs "$tmp/cp2"
grep -c '<failure' "$tmp/rc/nightly/cp2/junit/changepoints.xml" | grep -qx 0 &&
	ok "accepted: no change-point failure" || bad "accepted change point still fails"
grep -q '<title>accepted at night cp1 by bob on [0-9-]* (rt, hackbench.time): rt lock rework</title>' \
	"$tmp/rc/nightly/cp2/report.html" && ok "the night's chart marks the accept" || bad "no accept mark in report.html"

# a night on a target (host.target) where rt's kernel never booted: that
# run has no machine facts (host.machine comes from the agent), so its
# own history identity is not the machine's; it is recorded as the
# night's host's, and the night fails (exit 2) saying why, in summary.md
# and the JUnit, not "ran on another host". A run on another target still is.
export KBENCH_HISTORY="$tmp/tg.sqlite"
"$S" "$tmp/tg/ml" mainline tg-mainline 31 --host h >/dev/null
"$S" "$tmp/tg/rt" rt tg-rt 32 --host h >/dev/null
$py - "$tmp/tg" <<'PY'
import json, sys
for v, booted in (("ml", True), ("rt", False)):
    p = "%s/%s/results.json" % (sys.argv[1], v)
    d = json.load(open(p))
    d["host"].update(target="lab1", backend="ssh")
    d["host"]["machine"] = {"cpu_model": "Xeon Gold 6338", "sockets": 1, "cores": 32, "threads": 64,
                            "mem_kb": 263000000}
    if not booted:
        del d["host"]["machine"]
        for it in d["iterations"]:
            it.update(status="failed", error="panicked after the kexec", workloads=[])
    json.dump(d, open(p, "w"))
PY
expect_exit 2 "$KB" nightly --config "$tmp/cp.ini" --reports "$tmp/rt" --night tg1 --runs "$tmp/tg"
grep -q "^- \*\*failed\*\*: tg-rt iteration 1: iteration failed: panicked after the kexec" "$tmp/rt/nightly/tg1/summary.md" &&
	grep -q 'message="tg-rt iteration 1: iteration failed: panicked after the kexec"' "$tmp/rt/nightly/tg1/junit/rt-verdicts.xml" &&
	ok "a target's night with a kernel that never booted: exit 2, the panic in summary.md and the JUnit" ||
	{ bad "a target's night with a kernel that never booted"; cat "$tmp/out" "$tmp/rt/nightly/tg1/summary.md"; }
[ "$(sqlite3 "$KBENCH_HISTORY" "SELECT count(DISTINCT host_id) || ' ' || count(*) FROM runs WHERE night = 'tg1'")" = "1 2" ] &&
	ok "both runs in the history as the target's" || bad "the target's runs: $(sqlite3 "$KBENCH_HISTORY" 'SELECT run_id, host_id FROM runs')"
sed -i 's/"target": "lab1"/"target": "lab2"/' "$tmp/tg/rt/results.json"
expect_exit 2 "$KB" nightly --config "$tmp/cp.ini" --reports "$tmp/rt" --night tg2 --runs "$tmp/tg"
expect_out "ran on another host than"

echo "nightly_regress: $(($(date +%s) - t0)) s"
finish
