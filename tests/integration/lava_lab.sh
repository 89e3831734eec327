#!/bin/sh
# lane: beside
# A real LAVA lab (tests/tools/lavalab.sh: Debian 12's LAVA 2023.01 on
# 127.0.0.1, its own PostgreSQL cluster, two qemu devices under TCG) and
# kbench's side of it:
#  - kbench lab check: the lab file, the token and both devices: exit 0;
#  - a wrong token, a token file others can read, a dead server: each a
#    clear error and exit 2; the token is in no output;
#  - the token file is mode 0600;
#  - stop leaves no process and no worker configuration behind (LAVA's
#    daemons are found by name too: gunicorn renames itself), and no QEMU:
#    none of its jobs' (their command lines under the dispatcher's job
#    directories) and none started during the test. LAVA's worker starts
#    a job with a purged environment, so tests/run.sh's KBENCH_TEST_TAG
#    check cannot see a job's QEMU: this test looks itself.
#  - the lava backend, on one of the campaign's runs (kbench run --lab
#    on mainline-stock: hackbench, dbench on tmpfs, cyclictest):
#    results.json validates, names the job, its URL and device, and the
#    agent's results block from the job log, verified; the console log is
#    the job log's; LAVA says the job completed; its metrics are LAVA test
#    cases with results.json's values; Ctrl-C during a job: exit 1 (the
#    status docs/reliability.md gives SIGINT), the job Canceled in LAVA;
#    the token is in no output or report;
#  - a kernel that panics: a failed iteration with the panic in its
#    console tail (from the job log) and LAVA's own error type in its
#    error and its lava object, the device still Good;
#  - kbench killed (SIGKILL) during a job: --resume collects that job (the
#    agent waited for kbench to come back) and LAVA gets no new job.
#  - kbench campaign --lab over the two devices: each device every round
#    of both variants, pinned by its own tag, the devices at once; one
#    device put into Maintenance mid-campaign: its failed run set aside,
#    its rounds run on the other; the comparison blocked by device, with
#    verdicts.
#  - kbench nightly with lab = in its config: the night's runs on the
#    lab, in the history under the lab's identity (host.lab), judged.
# In CI (strict) a lab that cannot start fails this test.
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" = 0 ] || skip "not root: LAVA's worker configuration is under /etc/lava-server (CI runs as root)"
need_tool lava-server "the LAVA lab"
need_tool lava-worker "the LAVA lab's worker"
need_tool qemu-system-x86_64 "the lab's qemu devices"
need_tool python3 "the checks through LAVA's API"
[ -x "$KB" ] || skip "kbench missing: run make"
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || skip "no PostgreSQL server (harness/deps.sh test installs postgresql)"
lab="$top/tests/tools/lavalab.sh"
port=$((20000 + $$ % 20000))
dir="$tmp/lab"
# PostgreSQL runs as its own user when we are root: it must reach DIR
chmod 711 "$tmp"
trap 'sh "$lab" stop "$dir"; rm -rf "$tmp"' EXIT
# LAVA's daemons already running (another lab): not this test's leftovers
daemons='gunicorn: (master|worker) \[lava_server|lava-server manage lava-(scheduler|publisher)|lava-worker'
before=$(pgrep -f "$daemons" | sort)
t=$(date +%s)
sh "$lab" start "$dir" "$port" || { bad "the LAVA lab did not start (logs: $dir/log)"; tail -20 "$dir"/log/*.log; finish; }
sh "$lab" wait "$dir" "$port" 300 || { bad "the LAVA lab is not ready"; tail -20 "$dir"/log/*.log; finish; }
echo "lab up after $(($(date +%s) - t)) s"
token=$(cat "$dir/token")
mode=$(stat -c %a "$dir/token")
[ "$mode" = 600 ] && ok "token file mode 600" || bad "token file mode $mode"

# lab FILE TOKENFILE [URL]: a lab file for this lab
lab_file() {
	cat >"$1" <<EOF
[lab]
url = ${3:-http://127.0.0.1:$port/}
token_file = $2
device_type = qemu
artifacts = $tmp/art
artifacts_url = file://$tmp/art
[templates]
qemu = $top/configs/labs/qemu-tcg.yaml
EOF
}
mkdir -p "$tmp/art"
lab_file "$tmp/good.ini" "$dir/token"
expect_exit 0 "$KB" lab check "$tmp/good.ini"
expect_out "qemu-01 (qemu): Idle"
expect_out "qemu-02 (qemu): Idle"
cp "$tmp/out" "$tmp/all.out"

(umask 077; echo wrongtoken0123 >"$tmp/wrong.token")
lab_file "$tmp/wrong.ini" "$tmp/wrong.token"
expect_exit 2 "$KB" lab check "$tmp/wrong.ini"
expect_out "refused the token in '$tmp/wrong.token' (HTTP 403: Invalid token.)"
grep -q wrongtoken0123 "$tmp/out" && bad "the wrong token is in kbench's output"
cat "$tmp/out" >>"$tmp/all.out"

cp "$dir/token" "$tmp/open.token" && chmod 644 "$tmp/open.token"
lab_file "$tmp/open.ini" "$tmp/open.token"
expect_exit 2 "$KB" lab check "$tmp/open.ini"
expect_out "readable by its owner only"
cat "$tmp/out" >>"$tmp/all.out"

# a dead server: a port nothing listens on (the lab uses PORT only)
lab_file "$tmp/dead.ini" "$dir/token" "http://127.0.0.1:$((port + 1))/"
expect_exit 2 "$KB" lab check "$tmp/dead.ini"
expect_out "cannot reach LAVA at http://127.0.0.1:$((port + 1))/"
cat "$tmp/out" >>"$tmp/all.out"
if grep -q -- "$token" "$tmp/all.out"; then bad "the lab's token is in kbench's output"; else ok "the token is in no output"; fi

# the kernels the lab's jobs boot (cached by the tests before: quick)
for v in mainline-stock rt-stock; do
	"$KB" fetch "$v" >/dev/null || bad "kbench fetch $v failed"
done

# a campaign of two variants over the two devices: each device runs its
# two rounds of both (its jobs pinned by the tag only it carries), the
# devices in parallel. qemu-02 goes into Maintenance during its third job
# (round 2's first, mainline-stock with this seed): that job ends well,
# the next run finds the device not usable and fails (the lab's fault: set
# aside, not compared), and qemu-02's unfinished run goes to qemu-01. The
# comparison blocks by device (two baseline values on each) with verdicts.
t=$(date +%s)
printf '%s\n' '[suite]' 'name = lab-smoke' 'iterations = 1' '[hackbench]' 'groups = 2' \
	'loops = 50' '[dbench]' 'clients = 2' 'duration = 2' 'fs = tmpfs' '[cyclictest]' \
	'priority = 95' 'interval = 1000' 'histogram = 2000' 'duration = 2' 'load = none' \
	>"$tmp/lab-suite.ini"
sed 's/^token_file/queue_timeout = 60\ntoken_file/' "$tmp/good.ini" >"$tmp/camp.ini"
"$KB" campaign --lab "$tmp/camp.ini" --kernels "mainline-stock rt-stock" --suite "$tmp/lab-suite.ini" \
	--iterations 2 --seed 3 --id labc --reports "$tmp/rc" >"$tmp/out" 2>&1 &
cpid=$!
# Maintenance while qemu-02's third job runs: LAVA lets that job end, and
# gives the device no new one; the next run there finds it not usable
n=0
until grep -qs "Running on qemu-02" "$tmp/rc/compare/labc/logs/"qemu-02-r02-*.log || [ $n -ge 900 ] ||
	! kill -0 $cpid 2>/dev/null; do
	sleep 1; n=$((n + 1))
done
sh "$lab" health "$dir" qemu-02 Maintenance && echo "qemu-02 put into Maintenance after $n s, its third job running"
wait $cpid; rc=$?
sh "$lab" health "$dir" qemu-02 Good
grep 'kbench campaign\|lab device\|moves to\|set aside' "$tmp/out"
[ $rc = 0 ] && ok "campaign over the lab: exit 0" || { bad "campaign over the lab: exit $rc"; tail -20 "$tmp/out"; }
expect_out "on lab .*, 2 devices in parallel"
expect_out "lab device qemu-02 went bad (Maintenance"
python3 - "$tmp/rc/compare/labc" "$port" "$dir/token" >"$tmp/o" 2>&1 <<'PY'
import json, os, sys, urllib.request
d, port, tokf = sys.argv[1:4]
camp = json.load(open(d + "/campaign.json"))
c = json.load(open(d + "/comparison.json"))
plan = camp["lab"]["plan"]
assert camp["lab"]["bad"].get("qemu-02", "").startswith("Maintenance"), camp["lab"]["bad"]
assert all(e["state"] in ("done", "moved") for e in plan), plan
done = [e for e in plan if e["state"] == "done"]
moved = [e for e in done if e.get("moved_from") == "qemu-02"]
assert moved and all(e["device"] == "qemu-01" for e in moved), plan
# the run qemu-02 failed: set aside (or, refused at its start, never made)
assert any(r.get("lab_failed") and r["device"] == "qemu-02" for r in camp["runs"]), camp["runs"]
failed = os.listdir(d + "/lab-failed") if os.path.isdir(d + "/lab-failed") else []
assert len(failed) <= 1 and all(f.startswith("qemu-02-") for f in failed), failed
assert not os.path.exists(d + "/history.sqlite"), "a campaign's run kept a history of its own"
jobs = {}
for e in done:
    it = json.load(open("%s/runs/%s/results.json" % (d, e["run_id"])))["iterations"][0]
    assert it["status"] == "ok" and it["lava"]["device"] == e["device"], (e, it.get("lava"))
    jobs[it["lava"]["job_id"]] = e["device"]
for v in ("mainline-stock", "rt-stock"):
    n = len([e for e in done if e["variant"] == v])
    assert n == 4, (v, n, plan)  # 2 rounds x 2 devices' worth, the moved one included
# in parallel: LAVA ran jobs of both devices at the same time, each where pinned
tok = open(tokf).read().strip()
span = {}
for j in jobs:
    r = urllib.request.Request("http://127.0.0.1:%s/api/v0.2/jobs/%d/" % (port, j),
                               headers={"Authorization": "Token " + tok})
    x = json.load(urllib.request.urlopen(r))
    span[j] = (x["start_time"], x["end_time"], x["actual_device"])
    assert x["actual_device"] == jobs[j], (j, x["actual_device"], jobs[j])
over = any(a[2] != b[2] and a[0] < b[1] and b[0] < a[1] for a in span.values() for b in span.values())
assert over, span
b = c["blocks"]
assert b["by"] == "lab device" and sorted(b["devices"]) == ["qemu-01", "qemu-02"] and b["dropped"] == 0, b
assert not any("pooled here" in w for w in c["warnings"]), c["warnings"]
verdicts = {}
for m in c["metrics"]:
    v = m["variants"]["rt-stock"]
    assert v["by_device"].get("qemu-01") is not None and v["by_device"].get("qemu-02") is not None, v
    verdicts[m["label"] + "." + m["metric"]] = v["vs_baseline"]["verdict"]
called = [k for k, x in verdicts.items() if x in ("same", "better", "worse")]
assert len(called) >= 6, verdicts
print("%d jobs (%d moved from qemu-02 to qemu-01), pinned, both devices at once; blocked by device "
      "(%d values dropped); rt-stock vs mainline-stock: %s" % (len(jobs), len(moved), b["dropped"],
      ", ".join("%s %s" % (k, verdicts[k]) for k in ("hackbench.time", "dbench.throughput") if k in verdicts)))
PY
if [ $? = 0 ]; then ok "campaign over the lab's devices: $(cat "$tmp/o"), in $(($(date +%s) - t)) s"; else bad "campaign over the lab's devices"; cat "$tmp/o"; fi
[ -f "$tmp/rc/compare/labc/report.html" ] && ok "the campaign's report.html" || bad "no report.html"
# a job's place in LAVA's queue, shown while it is Submitted (kbench looks
# at a job right after submitting it)
if grep -h "queued, [0-9]* jobs* ahead of it for qemu" "$tmp/rc/compare/labc/logs/"*.log | head -3 | grep .; then
	ok "a queued job's place in LAVA's queue is shown"
else
	bad "no queue position in the campaign's run logs"
fi

# the lava backend, on one of the campaign's runs (a kbench run --lab
# pinned to qemu-01): each iteration a job on a lab device, the agent back
# over TCP
t=$(date +%s)
cat "$tmp/out" >>"$tmp/all.out"
res="$tmp/rc/compare/labc/runs/qemu-01-r01-mainline-stock/results.json"
expect_exit 0 "$KB" validate "$res"
python3 - "$res" "$port" >"$tmp/o" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "complete", d["status"]
assert d["host"]["backend"] == "lava", d["host"]
it = d["iterations"][0]
assert it["status"] == "ok", it
l = it["lava"]
assert l["job_id"] >= int(sys.argv[2]) * 1000, l
assert l["device"] == "qemu-01", l
b = l["block"]  # the agent's results block, from the job log, checked
assert b["verified"] is True and b["bytes"] > 10000 and "earlier_bytes" not in b, b
assert l["job_url"] == "http://127.0.0.1:%s/scheduler/job/%d" % (sys.argv[2], l["job_id"]), l
assert [w["status"] for w in it["workloads"]] == ["ok"] * 3, it["workloads"]
m = {w["label"]: w["metrics"] for w in it["workloads"]}
assert m["hackbench"]["time"]["value"] > 0 and m["dbench"]["throughput"]["value"] > 0, m
# host.machine: the device that ran the workloads, as its agent said, not this host
mf = it["guest"]["machine_facts"]
assert d["host"].get("machine") == mf and mf["cpu_model"].startswith("QEMU"), (d["host"].get("machine"), mf)
print("job", l["job_id"], "on", l["device"], "hackbench", m["hackbench"]["time"]["value"], "s; results block of",
      b["bytes"], "bytes verified")
PY
if [ $? = 0 ]; then
	ok "kbench run --lab: $(cat "$tmp/o")"
else
	bad "kbench run --lab: results.json"
	cat "$tmp/o"
fi
# beside a QEMU run on this host (a captured one): another suite and
# backend (the first of those named) and another machine, the device's
# (named beside it); --force compares them, flagged
expect_exit 2 "$KB" compare "$top/tests/fixtures/results/rt-smoke.json" "$res" --out "$tmp/cmpq"
expect_out "machine: CPU model"
expect_exit 0 "$KB" compare --force "$top/tests/fixtures/results/rt-smoke.json" "$res" --out "$tmp/cmpq"
expect_out "mixed inputs (--force): .*machine: CPU model"
con="$tmp/rc/compare/labc/runs/qemu-01-r01-mainline-stock/console/iter-1.log"
grep -q "Linux version" "$con" && grep -q "kbench-agent: ready (tcp)" "$con" && grep -q "^KBENCH-END v1" "$con" &&
	ok "the job log's console is the iteration's console log" || bad "no console from the job log in $con"
job=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["iterations"][0]["lava"]["job_id"])' "$res")
# state JOB: LAVA's "STATE HEALTH" of the job, through the API
state() {
	python3 - "$port" "$dir/token" "$1" <<'PY'
import json, sys, urllib.request
port, tok, jid = sys.argv[1:4]
req = urllib.request.Request("http://127.0.0.1:%s/api/v0.2/jobs/%s/" % (port, jid),
                             headers={"Authorization": "Token " + open(tok).read().strip()})
j = json.load(urllib.request.urlopen(req, timeout=30))
print(j["state"], j["health"])
PY
}
[ "$(state "$job")" = "Finished Complete" ] && ok "LAVA says job $job Finished Complete" ||
	bad "LAVA says job $job is $(state "$job")"
# the metrics as LAVA test cases: LAVA's API lists each with results.json's value and unit
python3 - "$port" "$dir/token" "$job" "$res" >"$tmp/o" 2>&1 <<'PY'
import json, sys, urllib.request
port, tok, jid, res = sys.argv[1:5]
hdr = {"Authorization": "Token " + open(tok).read().strip()}
url, cases = "http://127.0.0.1:%s/api/v0.2/jobs/%s/tests/?limit=200" % (port, jid), {}
while url:
    a = json.load(urllib.request.urlopen(urllib.request.Request(url, headers=hdr), timeout=30))
    for t in a["results"]:
        cases[t["name"]] = t
    url = a.get("next")
d = json.load(open(res))
n = 0
for w in d["iterations"][0]["workloads"]:
    for name, m in w["metrics"].items():
        t = cases["%s.%s" % (w["label"], name)]
        assert t["result"] == "pass" and t["unit"] == m["unit"], t
        assert abs(float(t["measurement"]) - m["value"]) <= 1e-6 * max(1, abs(m["value"])), (t, m)
        n += 1
print("%d metrics as LAVA test cases, e.g. hackbench.time = %s %s" % (n, cases["hackbench.time"]["measurement"], cases["hackbench.time"]["unit"]))
PY
if [ $? = 0 ]; then ok "$(cat "$tmp/o")"; else bad "the metrics are not LAVA's test cases"; cat "$tmp/o"; fi

# a kernel that panics (its init missing: no root to fall back on): the
# variant's failed iteration, the panic in its console tail from the job
# log, and the device it ran on stays Good. It runs on qemu-01 while the
# Ctrl-C case below runs on qemu-02, each pinned (--lab-device): the two
# devices at once, as a lab is used (CI time)
t=$(date +%s)
sed -e 's/^name = .*/name = mainline-panics/' -e 's|^cmdline =.*|cmdline = rdinit=/kbench-no-such-init|' \
	"$top/kernels/mainline-stock.ini" >"$tmp/panics.ini"
"$KB" run --lab "$tmp/good.ini" --lab-device qemu-01 --kernel "$tmp/panics.ini" --suite "$tmp/lab-suite.ini" \
	--boot-retries 0 --reports "$tmp/r" --run-id panics >"$tmp/panics.out" 2>&1 &
ppid=$!

# Ctrl-C while the job runs: kbench cancels it in LAVA before it exits
t2=$(date +%s)
"$KB" run --lab "$tmp/good.ini" --lab-device qemu-02 --kernel mainline-stock --suite "$tmp/lab-suite.ini" \
	--reports "$tmp/r" --run-id lab2 >"$tmp/int.out" 2>&1 &
kpid=$!
i=0
while [ $i -lt 600 ] && ! grep -q "Running on" "$tmp/int.out"; do sleep 1; i=$((i + 1)); done
kill -INT $kpid
wait $kpid
rc=$?
cat "$tmp/int.out" >>"$tmp/all.out"
# the last job submitted: a boot that failed (a TCG guest's oops, seen
# here) was retried as a new job before it
job2=$(sed -n 's/.*job \([0-9]*\) submitted.*/\1/p' "$tmp/int.out" | tail -1)
# exit 1: docs/reliability.md's status for SIGINT of kbench run (a crash's
# 139 or an abort's 134 is no pass)
if [ $rc = 1 ] && [ -n "$job2" ] && [ "$(state "$job2")" = "Finished Canceled" ] &&
	grep -q "Running on qemu-02" "$tmp/int.out"; then
	ok "Ctrl-C: kbench exit $rc, LAVA says job $job2 on qemu-02 Finished Canceled ($(($(date +%s) - t2)) s)"
else
	bad "Ctrl-C: exit $rc (want 1), job '$job2' is $([ -n "$job2" ] && state "$job2")"
	tail -20 "$tmp/int.out"
fi

# the panicking kernel's run, on qemu-01 meanwhile
wait $ppid
prc=$?
cp "$tmp/panics.out" "$tmp/out"
[ $prc = 1 ] && ok "a panicking kernel: exit 1" || { bad "a panicking kernel: exit $prc (want 1)"; cat "$tmp/out"; }
cat "$tmp/out" >>"$tmp/all.out"
grep 'kbench: lab\|iteration\|retry' "$tmp/out"
expect_exit 0 "$KB" validate "$tmp/r/runs/panics/results.json"
python3 - "$tmp/r/runs/panics/results.json" "$port" "$dir/token" >"$tmp/o" 2>&1 <<'PY'
import json, sys, urllib.request
d = json.load(open(sys.argv[1]))
it = d["iterations"][0]
assert it["status"] == "failed", it["status"]
assert "Kernel panic" in it["console_tail"], it["console_tail"][-2000:]
# the job ended before the agent connected: LAVA's own error from the job
# log is in the error and the lava object (lava-run's result of a failed
# job always carries an error_type: Job when its kernel-messages check
# stops at the panic, another type when the boot action times out first)
et = it["lava"].get("error_type", "")
assert et, it["lava"]
assert "LAVA says: " + et in it["error"], it["error"]
dev = it["lava"]["device"]
hdr = {"Authorization": "Token " + open(sys.argv[3]).read().strip()}
a = json.load(urllib.request.urlopen(urllib.request.Request(
    "http://127.0.0.1:%s/api/v0.2/devices/%s/" % (sys.argv[2], dev), headers=hdr), timeout=30))
assert a["health"] == "Good", a
assert dev == "qemu-01", dev
print("job %d on %s: %s; LAVA says %s: %s; %s stays %s" % (it["lava"]["job_id"], dev, it["error"][:100], et,
      it["lava"].get("error_msg", "")[:80], dev, a["health"]))
PY
if [ $? = 0 ]; then
	ok "a panicking kernel: $(cat "$tmp/o") ($(($(date +%s) - t)) s)"
else
	bad "a panicking kernel"
	cat "$tmp/o" "$tmp/out"
fi

# kbench killed (SIGKILL) while its job runs: the agent waits for it
# (resume_window), and kbench run --resume collects the same job instead
# of submitting another
t=$(date +%s)
jobs() {
	python3 - "$port" "$dir/token" <<'PY'
import json, sys, urllib.request
req = urllib.request.Request("http://127.0.0.1:%s/api/v0.2/jobs/?limit=1" % sys.argv[1],
                             headers={"Authorization": "Token " + open(sys.argv[2]).read().strip()})
print(json.load(urllib.request.urlopen(req, timeout=30))["count"])
PY
}
"$KB" run --lab "$tmp/good.ini" --kernel mainline-stock --suite "$tmp/lab-suite.ini" \
	--reports "$tmp/r" --run-id lab3 >"$tmp/kill.out" 2>&1 &
kpid=$!
i=0
while [ $i -lt 600 ] && ! grep -q "iteration 1: guest .* up" "$tmp/kill.out"; do sleep 1; i=$((i + 1)); done
sleep 3 # into the first workload
kill -KILL $kpid
wait $kpid
job3=$(sed -n 's/.*job \([0-9]*\) submitted.*/\1/p' "$tmp/kill.out" | tail -1)
n0=$(jobs)
expect_exit 0 "$KB" run --resume lab3 --lab "$tmp/good.ini" --reports "$tmp/r"
cat "$tmp/out" >>"$tmp/all.out"
grep 'kbench: lab' "$tmp/out"
expect_out "job $job3 of the killed run is still Running: collecting it, not submitting it again"
n1=$(jobs)
# counts that did not come back (empty) must not pass as equal
if ! [ "$n0" -gt 0 ] 2>/dev/null || grep -q "submitted" "$tmp/out" || [ "$n0" != "$n1" ]; then
	bad "--resume submitted another job (LAVA had $n0 jobs, then $n1)"
else
	ok "--resume submitted no job (LAVA has $n1 jobs before and after)"
fi
python3 - "$tmp/r/runs/lab3/results.json" "$job3" >"$tmp/o" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "complete", d["status"]
it = d["iterations"][-1]
assert it["status"] == "ok" and it["lava"]["job_id"] == int(sys.argv[2]), it
assert it["lava"].get("resumed") is True, it["lava"]
# the agent's block holds the killed run's session too, then this one's
b = it["lava"]["block"]
assert b["verified"] is True and b["earlier_bytes"] > 0, b
print("job", it["lava"]["job_id"], "collected, hackbench", it["workloads"][0]["metrics"]["time"]["value"],
      "s, its results block verified after %d bytes of the killed run's session" % b["earlier_bytes"])
PY
if [ $? = 0 ] && [ "$(state "$job3")" = "Finished Complete" ]; then
	ok "killed and resumed: $(cat "$tmp/o"), LAVA says Finished Complete ($(($(date +%s) - t)) s)"
else
	bad "killed and resumed: $(cat "$tmp/o"); job $job3 is $(state "$job3")"
	tail -20 "$tmp/kill.out"
fi
[ -e "$tmp/r/runs/lab3/console/iter-1.log.lava-job" ] && bad "the job record is left after the job ended" ||
	ok "no job record left"

# a night on the lab (lab = in the nightly config, as configs/nightly.ini
# can name one): a campaign over its devices, recorded in the history
# under the lab's identity (host.lab, not the host that drove it: a CI
# runner may change from night to night) and judged
# (the first night: exit 0); kbench history nights lists it
t=$(date +%s)
printf '[nightly]\nsuite = %s\nrefresh = no\nvariants = mainline-stock\nlab = %s\n' \
	"$tmp/lab-suite.ini" "$tmp/good.ini" >"$tmp/nightly.ini"
expect_exit 0 "$KB" nightly --config "$tmp/nightly.ini" --iterations 1 --reports "$tmp/rn" \
	--history "$tmp/history.sqlite" --night labn1
cat "$tmp/out" >>"$tmp/all.out"
python3 - "$tmp/rn/nightly/labn1/nightly.json" "$tmp/history.sqlite" >"$tmp/o" 2>&1 <<'PY'
import hashlib, json, os, socket, sqlite3, sys
n = json.load(open(sys.argv[1]))
assert n["exit"] == 0, n["exit"]
assert n["runs"] and all(r["variant"] == "mainline-stock" and r["exit"] == 0 for r in n["runs"]), n["runs"]
assert n["verdicts"] and all(v["state"] == "ok" for v in n["verdicts"]), n["verdicts"]
ids, devs = set(), set()
for r in n["runs"]:
    d = json.load(open(os.path.join(r["dir"], "results.json")))
    h = d["host"]
    assert h["backend"] == "lava" and h.get("lab") == "good" and "target" not in h, h
    it = d["iterations"][0]
    assert it["status"] == "ok", it.get("error")
    devs.add(it["lava"]["device"])
    m = h["machine"]
    assert m["cpu_model"].startswith("QEMU"), m
    ids.add(hashlib.sha256(("lab\n" + h["lab"]).encode()).hexdigest()[:16])
rows = sqlite3.connect(sys.argv[2]).execute("SELECT host_id, hostname FROM runs WHERE night = 'labn1'").fetchall()
assert len(rows) == len(n["runs"]), rows
assert {r[0] for r in rows} == ids and len(ids) == 1, (rows, ids)
assert all(r[1] == socket.gethostname() for r in rows), rows
print("%d runs on %s, in the history as lab 'good' (host_id %s), verdicts %s" %
      (len(rows), " and ".join(sorted(devs)), rows[0][0], ", ".join(sorted({v["state"] for v in n["verdicts"]}))))
PY
[ $? = 0 ] && ok "a night on the lab: $(cat "$tmp/o") ($(($(date +%s) - t)) s)" || { bad "a night on the lab"; cat "$tmp/o"; tail -20 "$tmp/out"; }
expect_exit 0 env KBENCH_HISTORY="$tmp/history.sqlite" "$KB" history nights
expect_out "^labn1 .* mainline-stock"

# a wrong token: refused before any job, exit 2, no run directory left
expect_exit 2 "$KB" run --lab "$tmp/wrong.ini" --kernel mainline-stock --suite "$tmp/lab-suite.ini" \
	--reports "$tmp/r" --run-id badtoken
expect_out "refused the token"
[ -e "$tmp/r/runs/badtoken" ] && bad "a refused token left the run directory $tmp/r/runs/badtoken"
cat "$tmp/out" >>"$tmp/all.out"
if grep -rq -- "$token" "$tmp/all.out" "$tmp/r" "$tmp/rc" "$tmp/rn" "$tmp/history.sqlite"; then
	bad "the lab's token is in kbench's output or reports"
else
	ok "the token is in no run output or report"
fi

t=$(date +%s)
# gunicorn renames itself: look for the process groups lavalab.sh started
pids="$(cat "$dir"/run/*.pid) $(head -1 "$dir/pg/data/postmaster.pid")"
sh "$lab" stop "$dir"
echo "lab stopped in $(($(date +%s) - t)) s"
# a process that is left: one of those pids or their process groups, not
# a zombie (an exited process whose parent, maybe a PID 1 that reaps late,
# has not reaped it yet: seen here with PostgreSQL's postmaster)
live() {
	ps -eo pid=,pgid=,stat= | awk -v p="$1" '($1 == p || $2 == p) && $3 !~ /^Z/ { print $1 }'
}
# the QEMU of this lab's jobs: the dispatcher runs a job's QEMU (and
# libguestfs's, which builds its overlay disk) on files in the job's
# directory, /var/lib/lava/dispatcher/tmp/JOB, JOB from PORT*1000 on
jobqemu() {
	pgrep -r R,S,D,T -f "qemu-system.*/var/lib/lava/dispatcher/tmp/${port}[0-9]{3}/"
}
# any QEMU started since this test began (ps's etimes: seconds since a
# process started; lib.sh's t0: the test's start), not a zombie, unless
# its environment names another test (tests/run.sh's KBENCH_TEST_TAG: a
# LAVA job's QEMU has none, its worker purges the environment)
newqemu() {
	ps -eo pid=,etimes=,stat=,comm= |
		awk -v s=$(($(date +%s) - t0)) '$4 ~ /^qemu/ && $3 !~ /^Z/ && $2 <= s { print $1 }' |
		while read -r p; do
			tag=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | sed -n 's/^KBENCH_TEST_TAG=//p')
			[ -n "$tag" ] && [ -n "${KBENCH_TEST_TAG:-}" ] && [ "$tag" != "$KBENCH_TEST_TAG" ] && continue
			echo "$p"
		done
}
i=0
while :; do
	left=""
	for p in $pids; do left="$left$(live "$p" | tr '\n' ' ')"; done
	named=$(pgrep -r R,S,D,T -f "$daemons" | sort | { [ -n "$before" ] && grep -vxF "$before" || cat; })
	jq=$(jobqemu | tr '\n' ' ')
	nq=$(newqemu | tr '\n' ' ')
	[ -z "$left$named$jq$nq" ] || [ $i -ge 10 ] && break
	i=$((i + 1))
	sleep 1
done
if [ -n "$left$named" ]; then
	bad "processes of the lab are left:"
	ps -o pid,pgid,cmd -p "$(echo $left $named | tr ' ' ',')"
else
	ok "no process left"
fi
if [ -n "$jq$nq" ]; then
	bad "QEMU left after the lab stopped (of its jobs: ${jq:-none}; started during the test: ${nq:-none}):"
	ps -o pid,etimes,args -p "$(echo $jq $nq | tr ' ' ',')"
	# this lab's jobs' own: killed, so they cannot load the host under the
	# next test (tests/run.sh cannot see them)
	[ -z "$jq" ] || kill -9 $jq 2>/dev/null
else
	ok "no QEMU left: none of the lab's jobs (/var/lib/lava/dispatcher/tmp/${port}NNN), none started during the test"
fi
if [ -e "/etc/lava-server/dispatcher.d/kbench-lab-$port" ]; then
	bad "the worker's env.yaml directory is left"
else
	ok "no worker configuration left"
fi
# the dispatcher's directories of this lab's jobs (ids from PORT*1000 on)
jobdirs=$(ls -d /var/lib/lava/dispatcher/tmp/$port[0-9][0-9][0-9] 2>/dev/null)
[ -z "$jobdirs" ] && ok "no job directory left" || bad "job directories left: $jobdirs"
finish
