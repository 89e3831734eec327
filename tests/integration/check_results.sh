#!/bin/sh
# lane: beside
# Negative controls for check_results.py, the checker the QEMU tests trust
# (smoke_stock, patched_kernel, ...): real results.json files
# (tests/fixtures/results/, README there) pass, and each validity check,
# fed a result broken in its one way, fails with its own message. No VM.
. "$(dirname "$0")/../lib.sh"
py=/usr/bin/python3
[ -x "$py" ] && "$py" -c 'import jsonschema' 2>/dev/null || skip "python3-jsonschema missing (make deps)"
F="$top/tests/fixtures/results"
# place NAME FIXTURE: a run directory $tmp/NAME with the fixture as its
# results.json and the raw outputs and console logs it names (empty)
place() {
	mkdir -p "$tmp/$1"
	cp "$F/$2" "$tmp/$1/results.json"
	"$py" - "$tmp/$1/results.json" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
base = os.path.dirname(sys.argv[1])
for it in d["iterations"]:
    names = [it.get("console")] + [w.get("raw") for w in it.get("workloads", [])]
    names += [r for w in it.get("workloads", []) for r in w.get("repeat_raw", [])]
    for n in filter(None, names):
        os.makedirs(os.path.dirname(os.path.join(base, n)), exist_ok=True)
        open(os.path.join(base, n), "a").close()
PY
}
# broken NAME FIXTURE PYTHON: place it, then edit results.json with PYTHON
# (d is the document, w(label) a workload of iteration 1, ls(label) its
# lock counters)
broken() {
	place "$1" "$2"
	"$py" - "$tmp/$1/results.json" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
w = lambda label: [x for x in d["iterations"][0]["workloads"] if x["label"] == label][0]
ls = lambda label: w(label)["lock_stats"]
exec(sys.argv[2])
json.dump(d, open(sys.argv[1], "w"))
PY
}
# passes NAME ARGS...: check_results.py ARGS $tmp/NAME/results.json exits 0
passes() {
	n=$1; shift
	"$py" "$top/tests/integration/check_results.py" "$@" "$tmp/$n/results.json" >"$tmp/out" 2>&1 &&
		ok "$n passes" || { bad "$n: a good result fails"; cat "$tmp/out"; }
}
# fails NAME MESSAGE ARGS...: exits 1 and says MESSAGE
fails() {
	n=$1 msg=$2; shift 2
	"$py" "$top/tests/integration/check_results.py" "$@" "$tmp/$n/results.json" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" = 1 ] && grep -q -- "FAIL:.*$msg" "$tmp/out"; then ok "$n: caught ($msg)"
	else bad "$n: exit $rc, want 1 and '$msg'"; cat "$tmp/out"; fi
}

# control NAME FIXTURE PYTHON MESSAGE ARGS...: broken, then fails
control() {
	n=$1 msg=$4
	broken "$1" "$2" "$3"
	shift 4
	fails "$n" "$msg" "$@"
}

# real results pass, with the lock expectations of their settings
place adaptive locks-adaptive.json
passes adaptive --expect-rt yes --exit-status 0 --locks steal1
place off locks-off.json
passes off --exit-status 0 --locks off,steal0
place unbounded locks-unbounded.json
passes unbounded --exit-status 0 --locks unbounded
place bound1 locks-bound1.json
passes bound1 --exit-status 0 --locks bound1
place smoke rt-smoke.json
passes smoke --expect-rt yes --exit-status 0
place repeat repeat-tiny.json
passes repeat --expect-rt no --exit-status 0

# a workload that did not run
control norun locks-adaptive.json 'd["iterations"][0]["workloads"] = [w("hackbench")]' \
	"dbench: missing or not ok"
control allfail locks-adaptive.json 'd["iterations"][0].update(status="failed", error="boot failed"); d["status"] = "partial"' \
	"0 ok iterations, want >= 1"
control parse locks-adaptive.json 'd["iterations"][0].update(status="failed", error="dbench: parse error"); d["status"] = "partial"; w("dbench")["status"] = "parse-error"; w("dbench")["error"] = "line 3: expected Throughput"' \
	"could not parse the tool's output" --min-ok 0
control noraw locks-adaptive.json 'w("dbench")["raw"] = "raw/iter-1/gone.out"' \
	"raw output raw/iter-1/gone.out missing"
control schema locks-adaptive.json 'del d["suite"]' \
	"schema:"

# implausible figures, from each workload's parameters
control fast locks-adaptive.json 'w("hackbench")["metrics"]["time"]["value"] = 0.001' \
	"hackbench: time = 0.001 not in"
control slow locks-adaptive.json 'w("hackbench")["metrics"]["time"]["value"] = 900' \
	"hackbench: time = 900 not in"
control nodb locks-adaptive.json 'w("dbench")["metrics"]["throughput"]["value"] = 0.5' \
	"dbench: throughput = 0.5 not in"
control nometric locks-adaptive.json 'del w("dbench")["metrics"]["max_latency"]' \
	"metric max_latency missing"
control lat rt-smoke.json 'w("cyclictest")["metrics"]["lat_max"]["value"] = 9e9' \
	"cyclictest: lat_max = 9000000000.0 not in"
control fewsamples rt-smoke.json 'h = w("cyclictest")["extra"]; h["counts"] = [[0] * len(c) for c in h["counts"]]; h["overflows"] = [3] * len(h["counts"])' \
	"thread 0: 3 samples, want >= 150"
control order rt-smoke.json 'w("cyclictest")["metrics"]["lat_p50"]["value"] = w("cyclictest")["metrics"]["lat_max"]["value"] + 100' \
	"percentiles out of order"
control kb rt-smoke.json 'w("kbuild")["metrics"]["elapsed"]["value"] = 0.2' \
	"kbuild: elapsed = 0.2 not in"

# repeats inside a boot: the median, every repeat's raw output and figures
control median repeat-tiny.json 'w("dbench")["metrics"]["throughput"]["value"] = w("dbench")["within_boot"]["throughput"]["mean"]' \
	"throughput = .* is not the median of its repeats"
control rraw repeat-tiny.json 'w("hackbench")["repeat_raw"][1] = "raw/iter-1/gone.out"' \
	"raw output of repeat 2 (raw/iter-1/gone.out) missing"
control rfast repeat-tiny.json 'w("hackbench")["repeat_metrics"][2]["time"]["value"] = 1e-6' \
	"hackbench repeat 3: time = 1e-06 not in"
control rcount repeat-tiny.json 'd["suite"]["workloads"][0]["repeat"] = 5' \
	"suite repeat = 5, results have 3 repeats"
control rnone repeat-tiny.json 'del d["suite"]["workloads"][1]["repeat"]' \
	"no repeat in the suite, but repeats"

# the exit status must agree with the results
place st locks-adaptive.json
fails st "exited 1 but every iteration is ok" --exit-status 1
fails st "exited 2" --exit-status 2
control stfail locks-adaptive.json 'd["iterations"].append(dict(d["iterations"][0], index=2, status="failed", error="boot failed", workloads=[])); d["status"] = "partial"' \
	"exited 0 but iterations \[2\] failed" --exit-status 0
passes stfail --exit-status 1

# lock counters that did not move, or are absent, or do not add up
control nosteal locks-adaptive.json 'ls("hackbench")["rtlock.steal_lateral"] = 0' \
	"steal1: no lateral steal under hackbench" --locks steal1
control nospin locks-unbounded.json '[ls(l).update({k: 0 for k in ls(l) if ".spin_" in k}) for l in ("hackbench", "dbench")]' \
	"unbounded: no spins" --locks unbounded
control nosleep locks-off.json '[ls(l).update({k: 0 for k in ls(l) if k.endswith(".sleeps")}) for l in ("hackbench", "dbench")]' \
	"off: no sleeps" --locks off
fails adaptive "off: spins" --locks off
fails adaptive "rtmutex parameter adaptive_rtlock is 'Y', want 'N'" --locks off
fails off "steal1: no lateral steal" --locks steal1
control bound locks-unbounded.json 'ls("hackbench")["rtlock.spin_bound"] = 5; ls("hackbench")["rtlock.spin_owner_off_cpu"] -= 5' \
	"unbounded: bound hits" --locks unbounded
control nolocks locks-adaptive.json 'del w("dbench")["lock_stats"]' \
	"dbench: no lock counters" --locks steal1
control sums locks-adaptive.json 'ls("hackbench")["rtlock.spin_owner_off_cpu"] //= 2' \
	"rtlock spin_started .* but the end reasons add up to" --locks steal1
control looped locks-bound1.json 'ls("hackbench")["rtlock.spin_loops"] = ls("hackbench")["rtlock.spin_started"] * 3' \
	"bound1: spins ran past one loop" --locks bound1
# with two guest CPUs the bound must be reached; the real run had one
control twocpu locks-bound1.json 'd["iterations"][0]["guest"]["nproc"] = 2' \
	"bound1: no spin reached the bound" --locks bound1
broken twocpuhit locks-bound1.json 'd["iterations"][0]["guest"]["nproc"] = 2; ls("hackbench")["rtlock.spin_bound"] = 7; ls("hackbench")["rtlock.spin_owner_off_cpu"] -= 7; ls("hackbench")["rtlock.spin_loops"] = 7'
passes twocpuhit --locks bound1
finish
