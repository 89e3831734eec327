#!/bin/sh
# Deadlines: a guest that does not answer in time is killed, the iteration
# is recorded as failed with its console tail, and the run goes on; a
# workload that overruns is killed by the agent and recorded as a timeout;
# one that fails is recorded with the tool's last words.
. "$(dirname "$0")/../lib.sh"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 missing (make deps)"
need_tool pgrep "the no-QEMU-left checks need it (procps)"
"$KB" fetch rt-stock >"$tmp/fetch" 2>&1 || { cat "$tmp/fetch"; skip "cannot fetch rt-stock"; }

# 1. boot deadline far too short for TCG: both iterations fail, run ends
expect_exit 1 "$KB" run --kernel rt-stock --suite smoke --iterations 2 --boot-timeout 2 \
	--reports "$tmp/r" --run-id boot
expect_out "did not boot to the agent within 2 s"
/usr/bin/python3 - "$tmp/r/runs/boot/results.json" <<'PY' && ok "boot failures recorded" || bad "boot failures"
import json, sys
d = json.load(open(sys.argv[1]))
its = d["iterations"]
assert len(its) == 2, its
for it in its:
    assert it["status"] == "failed" and "did not boot" in it["error"], it
    assert "console_tail" in it
assert d["status"] == "partial", d["status"]
PY
pgrep -f "qemu-system-x86_64.*$tmp" >/dev/null && bad "QEMU left running" || ok "no QEMU left"

# 2. a workload that overruns its deadline, and one that fails (dbench
# refuses a dbench 1 load file, on stdout, and exits 1); the next workload
# still runs
printf 'SMBopenx "\\clients\\client1\\x" 0x0 NT_STATUS_OK\n' >"$tmp/v1-load.txt"
cat >"$tmp/slow.ini" <<INI
[suite]
name = slow
iterations = 1
[dbench]
clients = 1
duration = 120
timeout = 5
[dbench.v1]
clients = 1
duration = 3
loadfile = $tmp/v1-load.txt
[hackbench]
groups = 1
loops = 10
INI
expect_exit 1 "$KB" run --kernel rt-stock --suite "$tmp/slow.ini" --reports "$tmp/r" --run-id slow
/usr/bin/python3 - "$tmp/r/runs/slow/results.json" <<'PY' && ok "workload timeout and failure recorded" || bad "workload timeout or failure"
import json, sys
d = json.load(open(sys.argv[1]))
w = {x["label"]: x for x in d["iterations"][0]["workloads"]}
assert w["dbench"]["status"] == "timeout", w["dbench"]
assert w["dbench"]["wall_s"] < 30, w["dbench"]["wall_s"]
# the error carries the tool's own words from its stdout
assert w["dbench.v1"]["status"] == "failed", w["dbench.v1"]
assert "exited with status 1" in w["dbench.v1"]["error"], w["dbench.v1"]["error"]
assert "ERROR: You are using a dbench 1 load file" in w["dbench.v1"]["error"], w["dbench.v1"]["error"]
assert w["hackbench"]["status"] == "ok", w["hackbench"]
PY
pgrep -f "qemu-system-x86_64.*$tmp" >/dev/null && bad "QEMU left running" || ok "no QEMU left"
finish
