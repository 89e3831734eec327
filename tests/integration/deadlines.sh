#!/bin/sh
# Deadlines: a guest that does not answer in time is killed, the iteration
# is recorded as failed with its console tail, and the run goes on; a
# workload that overruns is killed by the agent and recorded as a timeout.
. "$(dirname "$0")/../lib.sh"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 missing (make deps)"
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

# 2. a workload that overruns its deadline; the next workload still runs
cat >"$tmp/slow.ini" <<'INI'
[suite]
name = slow
iterations = 1
[dbench]
clients = 1
duration = 120
timeout = 5
[hackbench]
groups = 1
loops = 10
INI
expect_exit 1 "$KB" run --kernel rt-stock --suite "$tmp/slow.ini" --reports "$tmp/r" --run-id slow
/usr/bin/python3 - "$tmp/r/runs/slow/results.json" <<'PY' && ok "workload timeout recorded" || bad "workload timeout"
import json, sys
d = json.load(open(sys.argv[1]))
w = {x["label"]: x for x in d["iterations"][0]["workloads"]}
assert w["dbench"]["status"] == "timeout", w["dbench"]
assert w["dbench"]["wall_s"] < 30, w["dbench"]["wall_s"]
assert w["hackbench"]["status"] == "ok", w["hackbench"]
PY
pgrep -f "qemu-system-x86_64.*$tmp" >/dev/null && bad "QEMU left running" || ok "no QEMU left"
finish
