#!/bin/sh
# tests/run.sh itself: a test that leaves a process running fails, with
# the process listed, and the process is killed (a leftover QEMU or
# daemon would load the host under every later test and distort the
# host-noise and timing checks); a test that ends its processes passes;
# a test that passes but leaves a process behind is failed all the same.
. "$(dirname "$0")/../lib.sh"
mkdir -p "$tmp/t"
cat >"$tmp/t/clean.sh" <<'T'
sleep 30 & p=$!
kill $p
exit 0
T
# a daemon of sorts: detached from the test, its own session, never stopped
cat >"$tmp/t/leaky.sh" <<'T'
setsid sh -c 'sleep 300; : kbench-leaked-loop' </dev/null >/dev/null 2>&1 &
exit 0
T
TESTS_FILTER= TESTS_DIR="$tmp/t" TEST_LOG_DIR="$tmp/logs" sh "$top/tests/run.sh" >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
[ "$rc" != 0 ] && ok "run.sh fails (exit $rc)" || bad "run.sh passed a test that left a process running"
grep -q "^ok   integration/clean " "$tmp/out" && ok "the clean test passes" || bad "the clean test did not pass"
grep -q "^FAIL integration/leaky (exit 1" "$tmp/out" && ok "the leaky test fails" || bad "the leaky test did not fail"
grep -q "the test left processes running" "$tmp/out" && grep -q "kbench-leaked-loop" "$tmp/out" &&
	ok "the leftover is listed by its command line" || bad "the leftover is not listed"
grep -q "test: 1 passed, 1 failed, 0 skipped" "$tmp/out" && ok "counted" || bad "wrong count"
if pgrep -f kbench-leaked-loop >/dev/null; then
	bad "the leftover still runs"
	pkill -f kbench-leaked-loop
else
	ok "the leftover was killed"
fi
finish
