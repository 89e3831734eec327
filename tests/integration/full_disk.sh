#!/bin/sh
# lane: beside
# A full disk under --reports (a small tmpfs, so root is needed to mount
# it): too little space is refused before anything boots; a disk that fills
# up during a run stops the run at the first iteration that cannot be saved
# (exit 2, saying so), leaves results.json as last saved and resumable, and
# records nothing in the history; after space is freed, --resume finishes
# the run, recording it in the history beside it. Real rt-stock guests
# under TCG.
. "$(dirname "$0")/../lib.sh"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 missing (make deps)"
need_tool pgrep "the no-QEMU-left check"
[ "$(id -u)" = 0 ] || skip "mounting a small tmpfs needs root"
"$KB" fetch rt-stock >"$tmp/fetch" 2>&1 || { cat "$tmp/fetch"; skip "cannot fetch rt-stock (no mirror?)"; }
mkdir -p "$tmp/small" "$tmp/full"
trap 'umount "$tmp/small" "$tmp/full" 2>/dev/null; rm -rf "$tmp"' EXIT
mount -t tmpfs -o size=16m tmpfs "$tmp/small" && mount -t tmpfs -o size=80m tmpfs "$tmp/full" ||
	skip "cannot mount a tmpfs here (a container without CAP_SYS_ADMIN?)"
printf '[suite]\nname = full\niterations = 3\n[hackbench]\ngroups = 1\nloops = 20\n' >"$tmp/three.ini"
py=/usr/bin/python3

# 1. too little space before the run: refused, nothing booted or written
expect_exit 2 "$KB" run --kernel rt-stock --suite "$tmp/three.ini" --reports "$tmp/small/r"
expect_out "only 1[0-9] MiB free on the file system of '$tmp/small/r/runs': kbench needs at least 64 MiB there for results and logs"
[ -z "$(ls "$tmp/small/r/runs" 2>/dev/null)" ] && ok "no run directory" || bad "a run directory was made"

# 2. the disk fills up after the first iteration
"$KB" run --kernel rt-stock --suite "$tmp/three.ini" --reports "$tmp/full/r" --run-id full \
	>"$tmp/run.log" 2>&1 &
pid=$!
for i in $(seq 1 300); do
	[ -s "$tmp/full/r/runs/full/index.jsonl" ] && break
	sleep 1
done
dd if=/dev/zero of="$tmp/full/fill" bs=1M >/dev/null 2>&1
wait $pid
rc=$?
cat "$tmp/run.log"
[ "$rc" = 2 ] && ok "full disk: exit 2" || bad "full disk: exit $rc"
grep -q "iteration 2 could not be saved in .*: the run stops here" "$tmp/run.log" &&
	ok "says which iteration could not be saved" || bad "no 'could not be saved' message"
grep -q "iteration 3:" "$tmp/run.log" && bad "iteration 3 ran on a full disk" || ok "the run stopped"
grep -q "results in" "$tmp/run.log" && bad "claims results were written" || ok "no 'results in' claim"
$py - "$tmp/full/r/runs/full/results.json" <<'PY' && ok "results.json as last saved: iteration 1, still running" || bad "results.json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "running", d["status"]
assert [(i["index"], i["status"]) for i in d["iterations"]] == [(1, "ok")], d["iterations"]
PY
if pgrep -f "qemu-system-x86_64.*$tmp" >/dev/null; then
	bad "QEMU left running"; pkill -9 -f "qemu-system-x86_64.*$tmp"
else
	ok "no QEMU left"
fi
# nothing in the history: the stopped run did not record itself (the
# resume below says "recorded in history", so the words are right), and
# the history beside it, if there is one, holds no run
h="$tmp/full/r/history.sqlite"
grep -q "recorded in history" "$tmp/run.log" && bad "the stopped run was recorded in the history" ||
	ok "the stopped run was not recorded in the history"
if [ -e "$h" ]; then
	expect_exit 0 env KBENCH_HISTORY="$h" "$KB" history --suite full
	expect_out "^0 runs$"
else
	ok "no history beside the stopped run"
fi

# 3. space freed: --resume finishes the run; the history has it once
rm -f "$tmp/full/fill"
expect_exit 0 "$KB" run --resume "$tmp/full/r/runs/full"
expect_out "kbench: recorded in history $tmp/full/r/history.sqlite"
$py - "$tmp/full/r/runs/full/results.json" <<'PY' && ok "resumed to 3 ok iterations" || bad "resume after a full disk"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "complete", d["status"]
assert [(i["index"], i["status"]) for i in d["iterations"]] == [(1, "ok"), (2, "ok"), (3, "ok")]
PY
# --resume without --reports uses the run's own reports directory: its
# history and its latest link, not the default ones (they were, before)
expect_exit 0 env KBENCH_HISTORY="$tmp/full/r/history.sqlite" "$KB" history --suite full
expect_out "^1 run$"
[ "$(readlink "$tmp/full/r/latest")" = "runs/full" ] && ok "latest beside the run" || bad "latest link not beside the run"
finish
