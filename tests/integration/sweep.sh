#!/bin/sh
# lane: beside
# kbench sweep end to end: the small patched test kernel (rt-adaptive-test,
# its cmdline sets rtmutex.spin_max_loops=10000) at two settings of the
# spin bound, one round of a tiny suite. Checks: exit 0; each point's run
# booted with its own value in place of the variant's (the guest's
# /sys/module/rtmutex/parameters); sweep.json holds both points with
# metrics; sweep.html (with the trade-off against p99, p99.9 and max under
# load) and the comparison exist; the test subject (the
# reference patch, each point's knobs) is in sweep.json, comparison.json
# and both pages; --resume reruns nothing;
# bad --param values and names exit 2 before anything boots.
. "$(dirname "$0")/../lib.sh"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 missing (make deps)"
need_tool python3 "sweep.json is checked with python3"

expect_exit 2 "$KB" sweep --kernel rt-adaptive-test --param rtmutex.spin_max_loops=10,ten --reports "$tmp/r"
expect_out "'ten' is not an integer"
expect_exit 2 "$KB" sweep --kernel rt-adaptive-test --param 'spin_max_loops=10' --reports "$tmp/r"
expect_out "expected module.param="
expect_exit 2 "$KB" sweep --kernel rt-adaptive-test --reports "$tmp/r"
[ ! -d "$tmp/r/sweep" ] && ok "nothing created by the refused sweeps" || bad "a refused sweep left $tmp/r/sweep"

"$KB" build rt-adaptive-test >"$tmp/build" 2>&1 || {
	tail -20 "$tmp/build"
	if grep -q "step 'source'" "$tmp/build"; then skip "linux-source-6.12 cannot be fetched"; fi
	bad "building the patched test kernel failed"; finish; }

cat >"$tmp/tiny.ini" <<'INI'
[suite]
name = tiny
iterations = 1
[hackbench]
groups = 2
loops = 50
[cyclictest.load]
priority = 95
interval = 1000
duration = 2
histogram = 2000
load = hackbench
INI
"$KB" sweep --kernel rt-adaptive-test --param rtmutex.spin_max_loops=0,100 --suite "$tmp/tiny.ini" \
	--rounds 1 --vcpus 2 --seed 7 --id tiny --reports "$tmp/r" >"$tmp/sweep.out" 2>&1
rc=$?
[ "$rc" = 0 ] && ok "sweep: exit 0" || { bad "sweep: exit $rc"; tail -30 "$tmp/sweep.out"; }
d="$tmp/r/sweep/tiny"
/usr/bin/python3 - "$d" <<'PY' && ok "sweep.json: both points, their values booted" || bad "sweep.json or the runs"
import glob, json, sys
d = sys.argv[1]
s = json.load(open(d + "/sweep.json"))
assert s["schema"] == "kbench-sweep", s["schema"]
pts = s["points"]
assert [p["knobs"]["rtmutex.spin_max_loops"] for p in pts] == [0, 100], pts
for p in pts:
    assert p["iterations_ok"] == 1, p
    m = p["metrics"]["hackbench.time"]
    assert m["n"] == 1 and m["center"] > 0, m
    assert p["latency"]["cyclictest.load"]["p99_us"] > 0, p["latency"]
    assert p["lock_stats"], "no lock counters"
runs = glob.glob(d + "/runs/*/results.json")
assert len(runs) == 2, runs
for r in runs:
    doc = json.load(open(r))
    want = 0 if "loops_0" in r else 100
    got = int(doc["variant"]["rtmutex_params"]["spin_max_loops"])
    assert got == want, (r, got, want)
    assert "spin_max_loops=10000" not in doc["variant"]["extra_cmdline"], doc["variant"]["extra_cmdline"]
# the test subject: the reference patch, once at the top; each point's knobs
subj = "locking/rtmutex: Make adaptive spinning and lateral steal switchable"
p0 = s["subject"]["patches"][0]
assert p0["subject"] == subj and len(p0["sha256"]) == 64 and len(p0["diffstat"]) == 3, p0["subject"]
assert [p["lock_knobs"]["rtmutex.spin_max_loops"] for p in pts] == ["0", "100"], pts
cmp = json.load(open(d + "/comparison.json"))
assert all(v["subject"]["patches"][0]["subject"] == subj for v in cmp["variants"]), "comparison.json"
for html in ("/sweep.html", "/report.html"):
    t = open(d + html).read()
    assert subj in t and "<details" in t and "rtmutex.&lt;name&gt;" in t, html + ": no test subject"
c = json.load(open(d + "/campaign.json"))
assert c["sweep"]["variant"] == "rt-adaptive-test" and c["status"] == "complete", c.get("status")
print("points:", [p["label"] for p in pts])
PY
[ -s "$d/sweep.html" ] && grep -q "<svg" "$d/sweep.html" && ok "sweep.html has charts" || bad "sweep.html missing or without charts"
# the throughput-latency trade-off: p99, p99.9 and max under load, as
# charts and as a table with one row per point
n=$(grep -c "trade-off: p99 under load\|trade-off: p99.9 under load\|trade-off: max under load" "$d/sweep.html")
[ "$n" = 3 ] && grep -q "Trade-off per point" "$d/sweep.html" &&
	[ "$(grep -o "<tr><td>[12]</td><td style=\"text-align:left\">spin_max_loops=" "$d/sweep.html" | wc -l)" = 2 ] &&
	ok "sweep.html: the trade-off against p99, p99.9 and max, charts and table" ||
	bad "sweep.html: the trade-off charts ($n of 3) or its table missing"
[ -s "$d/report.html" ] && [ -s "$d/comparison.json" ] && ok "comparison written" || bad "no comparison"

# resume a finished sweep: nothing boots again, the reports are rewritten
"$KB" sweep --resume tiny --reports "$tmp/r" >"$tmp/resume.out" 2>&1
rc=$?
[ "$rc" = 0 ] && ok "resume: exit 0" || { bad "resume: exit $rc"; tail -20 "$tmp/resume.out"; }
[ "$(grep -c ': rt-adaptive-test@spin_max_loops=[0-9]* done' "$tmp/resume.out")" = 2 ] &&
	ok "resume: both points done, none rerun" || { bad "resume reran a point"; cat "$tmp/resume.out"; }
expect_exit 2 "$KB" campaign --resume "$d"
expect_out "a sweep: resume it with kbench sweep"
expect_exit 2 "$KB" sweep --resume tiny --param adaptive_lock.spin_max_loops=1 --reports "$tmp/r"
expect_out "takes the sweep's own"
finish
