#!/bin/sh
# lane: beside
# The local backend: a suite on this machine's running kernel, no boot
# (--backend local --kernel running), dbench in a --scratch DIR; results
# valid, with the machine's facts; a variant that is not running, a
# missing --scratch and a scratch directory holding a user's file are
# refused (exit 2), the file left intact.
. "$(dirname "$0")/../lib.sh"
start=$(date +%s)
[ -x "$top/build/kbench-agent" ] || skip "build/kbench-agent missing: run make"
for t in hackbench dbench cyclictest; do
	command -v $t >/dev/null || skip "$t not installed (make deps)"
done

# smoke's workloads without kbuild (a kernel compile on the host's 2
# cores is minutes): hackbench, dbench, cyclictest with and without load
sed '/^; a real kernel compile/,$d' "$top/configs/suites/smoke.ini" |
	sed 's/^iterations = .*/iterations = 1/' >"$tmp/smoke-local.ini"
grep -q '^\[kbuild\]' "$tmp/smoke-local.ini" && bad "kbuild left in the suite"
mkdir "$tmp/scratch"
expect_exit 0 "$KB" run --backend local --kernel running --suite "$tmp/smoke-local.ini" \
	--scratch "$tmp/scratch" --reports "$tmp/r" --run-id local1
res="$tmp/r/runs/local1/results.json"
expect_exit 0 "$KB" validate "$res"
expect_exit 0 python3 "$top/tests/integration/check_results.py" "$res"
python3 - "$res" "$(uname -r)" >"$tmp/out" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
h, v = d["host"], d["variant"]
assert h["backend"] == "local", h["backend"]
m = h["machine"]
for k in ("cpu_model", "sockets", "cores", "threads", "mem_kb", "cmdline"):
    assert m.get(k) not in (None, ""), k
assert m["threads"] >= 1 and m["mem_kb"] > 0, m
assert v["name"] == "running" and v["source"] == "running", v
assert v["kernel_release"] == sys.argv[2], v["kernel_release"]
it = d["iterations"][0]
assert it["status"] == "ok", it
assert d["guest"]["mem_mb"] == h["mem_mb"], (d["guest"], h["mem_mb"])  # the whole machine
assert it["guest"]["machine_facts"]["threads"] == m["threads"]
print("machine facts ok:", m["cpu_model"], m["threads"], "threads")
PY
[ $? = 0 ] && ok "$(cat "$tmp/out")" || { bad "results.json facts"; cat "$tmp/out"; }
# kbench's directory in DIR is gone, its mark stays
[ -e "$tmp/scratch/kbench-scratch" ] && bad "the scratch directory was left behind"
[ -f "$tmp/scratch/.kbench-scratch" ] && ok "scratch mark kept" || bad "no scratch mark"

# kernel trouble during the run (the kernel log since the agent started,
# added to the console log) fails the iteration; what was logged before
# the run does not
if [ -w /dev/kmsg ]; then
	echo "kbench-test: WARNING: before the run, not its trouble" >/dev/kmsg
	printf '[suite]\nname = lt\niterations = 1\n[cyclictest]\nduration = 3\n' >"$tmp/lt.ini"
	(sleep 1.5; echo "kbench-test: WARNING: injected during the run" >/dev/kmsg) &
	expect_exit 1 "$KB" run --backend local --kernel running --suite "$tmp/lt.ini" \
		--reports "$tmp/r" --run-id trouble
	expect_out "kernel trouble on the console: warning"
	wait
	grep -q "injected during the run" "$tmp/r/runs/trouble/console/iter-1.log" &&
		! grep -q "before the run" "$tmp/r/runs/trouble/console/iter-1.log" &&
		ok "the run's kernel log only" || bad "console/iter-1.log: not the run's kernel log"
elif strict; then
	bad "/dev/kmsg not writable (not root?): the kernel trouble check cannot run (strict: CI or KBENCH_TEST_STRICT=1)"
else
	echo "SKIP part: /dev/kmsg not writable (not root?): the kernel trouble check is not shown"
fi

# two runs at once on one host: each agent collects its commands' output
# in a private directory (a shared /tmp/kb.out mixed them), removed after
printf '[suite]\nname = two\niterations = 1\n[cyclictest]\nduration = 3\nthreads = 1\n' >"$tmp/two.ini"
ls -d /tmp/kbench-agent.* >"$tmp/agents-before" 2>/dev/null
"$KB" run --backend local --kernel running --suite "$tmp/two.ini" --reports "$tmp/r" \
	--run-id two-a >"$tmp/two-a.out" 2>&1 &
apid=$!
expect_exit 0 "$KB" run --backend local --kernel running --suite "$tmp/two.ini" --reports "$tmp/r" \
	--run-id two-b
wait $apid && ok "two runs at once: both ok" || { bad "the concurrent run failed"; cat "$tmp/two-a.out"; }
ls -d /tmp/kbench-agent.* 2>/dev/null | diff "$tmp/agents-before" - >/dev/null &&
	ok "the agents' directories are gone" || bad "an agent left its directory in /tmp"

# the report shows the machine; another machine's run is refused unless --force
expect_exit 0 "$KB" compare "$res" --out "$tmp/cmp"
grep -q '<p class="sub">machine <b>' "$tmp/cmp/report.html" && ok "report shows the machine" ||
	bad "report.html has no machine line"
mkdir -p "$tmp/other/runs/local2"
python3 - "$res" "$tmp/other/runs/local2/results.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["run_id"] = "local2"
d["host"]["machine"]["cores"] += 2
json.dump(d, open(sys.argv[2], "w"))
PY
expect_exit 2 "$KB" compare "$res" "$tmp/other/runs/local2/results.json" --out "$tmp/cmp2"
expect_out "machine: .* cores"
expect_exit 0 "$KB" compare "$res" "$tmp/other/runs/local2/results.json" --out "$tmp/cmp2" --force

# a named variant that is not the running kernel (or not cached): exit 2
expect_exit 2 "$KB" run --backend local --kernel rt-stock --suite "$tmp/smoke-local.ini" \
	--scratch "$tmp/scratch" --reports "$tmp/r"
expect_out "oot it first"
expect_out "remote target"
# dbench without --scratch
expect_exit 2 "$KB" run --backend local --kernel running --suite "$tmp/smoke-local.ini" \
	--reports "$tmp/r"
expect_out "give --scratch DIR"
# a scratch directory with a user's file: refused, the file intact
mkdir "$tmp/mine" && echo precious >"$tmp/mine/data.txt"
expect_exit 2 "$KB" run --backend local --kernel running --suite "$tmp/smoke-local.ini" \
	--scratch "$tmp/mine" --reports "$tmp/r"
expect_out "holds 'data.txt', which kbench did not make"
[ "$(cat "$tmp/mine/data.txt")" = precious ] && [ "$(ls -A "$tmp/mine")" = data.txt ] &&
	ok "the user's file is intact" || bad "the user's scratch directory changed"
# a directory that does not exist; --scratch on qemu
expect_exit 2 "$KB" run --backend local --kernel running --suite "$tmp/smoke-local.ini" \
	--scratch "$tmp/nope" --reports "$tmp/r"
expect_out "not an existing directory"
expect_exit 2 "$KB" run --kernel rt-stock --suite "$tmp/smoke-local.ini" \
	--scratch "$tmp/scratch" --reports "$tmp/r"
expect_out "is for a backend that runs on this machine"
# no guest to size
expect_exit 2 "$KB" run --backend local --kernel running --suite "$tmp/smoke-local.ini" \
	--scratch "$tmp/scratch" --vcpus 1 --reports "$tmp/r"
expect_out "runs on the whole machine"
expect_exit 2 "$KB" run --kernel running --suite "$tmp/smoke-local.ini" --reports "$tmp/r"
expect_out "add --backend local"
echo "local backend smoke suite: $(( $(date +%s) - start )) s"
finish
