#!/bin/sh
# lane: beside
# tests/run.sh itself: a test that leaves a process running fails, with
# the process listed, and the process is killed (a leftover QEMU or
# daemon would load the host under every later test and distort the
# host-noise and timing checks); a test that ends its processes passes;
# a test that passes but leaves a process behind is failed all the same.
# A cmocka test that calls skip() fails a strict run (CI) and is counted
# as skipped otherwise; each test's time and the total are printed; a
# whole run over its time budget (tests/time-budget) fails a strict run,
# naming the slowest test, and only warns otherwise; a failed test's
# first FAIL lines are repeated at the end. Lanes: a background
# script runs beside the "beside" ones (niced), whose rest it then
# shares, the others after both.
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
# CPU work in a detached process it waits for (as a daemonized QEMU): its
# CPU is the test's, where the host lets run.sh make a cgroup
cat >"$tmp/t/burn.sh" <<'T'
# a fixed amount of work (about 4 s of CPU here), not a time: a busy host
# gives a timed loop less CPU
setsid sh -c 'i=0; while [ $i -lt 4000000 ]; do i=$((i + 1)); done' </dev/null >/dev/null 2>&1 &
wait
exit 0
T
TESTS_FILTER= TESTS_DIR="$tmp/t" TEST_LOG_DIR="$tmp/logs" sh "$top/tests/run.sh" >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
[ "$rc" != 0 ] && ok "run.sh fails (exit $rc)" || bad "run.sh passed a test that left a process running"
grep -q "^ok   integration/clean " "$tmp/out" && ok "the clean test passes" || bad "the clean test did not pass"
grep -q "^FAIL integration/leaky (exit 1" "$tmp/out" && ok "the leaky test fails" || bad "the leaky test did not fail"
# repeated after the totals (CI keeps the end of the output)
sed -n '/^time: tests/,$p' "$tmp/out" | grep -A1 "^integration/leaky, its first failed checks" | grep -q "^| FAIL: the test left processes running" &&
	ok "the failed checks repeated at the end" || bad "no failed checks at the end of the output"
grep -q "the test left processes running" "$tmp/out" && grep -q "kbench-leaked-loop" "$tmp/out" &&
	ok "the leftover is listed by its command line" || bad "the leftover is not listed"
grep -q "test: 2 passed, 1 failed, 0 skipped" "$tmp/out" && ok "counted" || bad "wrong count"
if pgrep -f kbench-leaked-loop >/dev/null; then
	bad "the leftover still runs"
	pkill -f kbench-leaked-loop
else
	ok "the leftover was killed"
fi
grep -q "^ok   integration/clean ([0-9]*s\(, CPU [0-9]*s\)\{0,1\}, host CPU [0-9]*% busy)" "$tmp/out" && grep -q "^time: tests [0-9]* s, in all [0-9]* s .*slowest: integration/" "$tmp/out" &&
	ok "each test's time and the total printed" || bad "no time per test or in all"
# a cgroup v2 or v1 cpuacct hierarchy run.sh can write to (CI runs as root)
cgroups=no
for d in /sys/fs/cgroup/unified /sys/fs/cgroup /sys/fs/cgroup/cpuacct; do
	[ -f "$d/cgroup.procs" ] && mkdir "$d/kbench-probe.$$" 2>/dev/null || continue
	sh -c 'echo $$ >"$1/cgroup.procs"' sh "$d/kbench-probe.$$" 2>/dev/null && cgroups=yes
	sleep 0.2; rmdir "$d/kbench-probe.$$" 2>/dev/null
	[ $cgroups = yes ] && break
done
if [ $cgroups = yes ]; then
	cpu=$(sed -n 's/^ok   integration\/burn ([0-9]*s, CPU \([0-9]*\)s, .*/\1/p' "$tmp/out")
	[ -n "$cpu" ] && [ "$cpu" -ge 2 ] && grep -q "^CPU: the integration tests used [0-9]* s of [0-9]* cores' time; most: integration/burn ${cpu}s" "$tmp/out" &&
		ok "a test's CPU counts its detached children's: burn used ${cpu} s" || bad "burn's CPU seconds not counted (cgroups writable here)"
	left=$(find /sys/fs/cgroup -maxdepth 6 -type d -name 'kbench-test.*' 2>/dev/null |
		grep -E '/kbench-test\.(clean|leaky|burn)\.')
	[ -z "$left" ] && ok "run.sh removed its cgroups" || bad "cgroups left: $left"
else
	echo "note: no writable cgroup here: run.sh prints no CPU seconds"
fi

# a real cmocka binary with one test that passes and one that calls skip()
need_tool gcc "the cmocka test binary"
cat >"$tmp/skips.c" <<'C'
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
static void passes(void **state) { (void)state; }
static void skips_here(void **state) { (void)state; skip(); }
int main(void)
{
	const struct CMUnitTest t[] = { cmocka_unit_test(passes), cmocka_unit_test(skips_here) };
	return cmocka_run_group_tests(t, NULL, NULL);
}
C
mkdir -p "$tmp/none"
mkdir -p "$tmp/build/tests"
gcc -o "$tmp/build/tests/skips" "$tmp/skips.c" -lcmocka || { bad "cannot build the cmocka test"; finish; }
units() { TESTS_DIR="$tmp/none" TEST_LOG_DIR="$tmp/logs" "$@" sh "$top/tests/run.sh" "$tmp/build/tests/skips" >"$tmp/out" 2>&1; }
expect_exit 1 units env CI=true
expect_out "^FAIL tests/skips: 1 test(s) skipped in a strict run (CI or KBENCH_TEST_STRICT=1): skips_here"
expect_out "^test: 1 passed, 1 failed, 0 skipped"
expect_exit 0 units env -u CI -u KBENCH_TEST_STRICT
expect_out "^skip tests/skips: skips_here"
expect_out "^ok   tests/skips (1 tests, [0-9]*s)"
expect_out "^test: 1 passed, 0 failed, 1 skipped"

# lanes: a background script runs while the "beside" ones run, and the
# others (alone) only once it has ended; each is judged and counted
mkdir -p "$tmp/lanes" "$tmp/marks"
cat >"$tmp/lanes/slow_bg.sh" <<'T'
# lane: background
touch "$LANE_DIR/bg.start"; sleep 4; touch "$LANE_DIR/bg.end"
T
cat >"$tmp/lanes/beside_one.sh" <<'T'
# lane: beside
i=0; while [ ! -e "$LANE_DIR/bg.start" ] && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
[ -e "$LANE_DIR/bg.start" ] && [ ! -e "$LANE_DIR/bg.end" ]
T
cat >"$tmp/lanes/alone_one.sh" <<'T'
[ -e "$LANE_DIR/bg.end" ]
T
# and the unit test binaries run while the background script runs (they
# use one core): a "unit" that sees the background one started, not ended
mkdir -p "$tmp/ub/build/tests"
cat >"$tmp/ub/build/tests/while_bg" <<'T'
#!/bin/sh
i=0; while [ ! -e "$LANE_DIR/bg.start" ] && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
[ -e "$LANE_DIR/bg.start" ] && [ ! -e "$LANE_DIR/bg.end" ] && echo '[  PASSED  ] 1 test(s).'
T
chmod +x "$tmp/ub/build/tests/while_bg"
LANE_DIR="$tmp/marks" TESTS_FILTER= TESTS_DIR="$tmp/lanes" TEST_LOG_DIR="$tmp/logs" sh "$top/tests/run.sh" \
	"$tmp/ub/build/tests/while_bg" >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
[ $rc = 0 ] && ok "lanes: exit 0" || bad "lanes: exit $rc"
expect_out "^ok   tests/while_bg (1 tests, [0-9]*s)"
expect_out "^start slow_bg in the background (lane: background)"
expect_out "^ok   integration/beside_one ([0-9]*s\(, CPU [0-9]*s\)\{0,1\}, host CPU [0-9]*% busy; beside slow_bg)"
expect_out "^ok   integration/slow_bg ([0-9]*s\(, CPU [0-9]*s\)\{0,1\}, host CPU [0-9]*% busy; beside the tests marked beside)"
expect_out "^ok   integration/alone_one ([0-9]*s\(, CPU [0-9]*s\)\{0,1\}, host CPU [0-9]*% busy)"
expect_out "^test: 4 passed, 0 failed, 0 skipped"
# the order of the result lines: beside, then the background one, then alone
[ "$(grep -o '^ok   integration/[a-z_]*' "$tmp/out" | tr '\n' ' ')" = "ok   integration/beside_one ok   integration/slow_bg ok   integration/alone_one " ] &&
	ok "lanes: judged in order" || bad "lanes: order $(grep '^ok ' "$tmp/out" | tr '\n' '|')"
# a background script that fails is counted as a failure
printf '# lane: background\nexit 3\n' >"$tmp/lanes/slow_bg.sh"
rm -f "$tmp/marks"/*
touch "$tmp/marks/bg.start" "$tmp/marks/bg.end"
LANE_DIR="$tmp/marks" TESTS_FILTER=slow_bg TESTS_DIR="$tmp/lanes" TEST_LOG_DIR="$tmp/logs" sh "$top/tests/run.sh" >"$tmp/out" 2>&1
[ $? != 0 ] && grep -q "^FAIL integration/slow_bg (exit 3" "$tmp/out" && grep -q "^test: 0 passed, 1 failed" "$tmp/out" &&
	ok "lanes: a failed background script fails the run" || { bad "lanes: a failed background script"; cat "$tmp/out"; }
# the second lane: once the background scripts have ended, it takes the
# beside scripts not yet taken, running beside the main lane's
mkdir -p "$tmp/lanes2" "$tmp/marks2"
printf '# lane: background\nnice >"$LANE_DIR/bg.nice"\n' >"$tmp/lanes2/quick_bg.sh"
printf '# lane: beside\nnice >"$LANE_DIR/a.nice"; touch "$LANE_DIR/a.start"; sleep 4; touch "$LANE_DIR/a.end"\n' >"$tmp/lanes2/beside_a.sh"
printf '# lane: beside\ntouch "$LANE_DIR/b.start"; sleep 4; touch "$LANE_DIR/b.end"\n' >"$tmp/lanes2/beside_b.sh"
t2=$(date +%s)
LANE_DIR="$tmp/marks2" TESTS_FILTER= TESTS_DIR="$tmp/lanes2" TEST_LOG_DIR="$tmp/logs2" sh "$top/tests/run.sh" >"$tmp/out" 2>&1
rc=$? el=$(($(date +%s) - t2))
cat "$tmp/out"
expect_out "^test: 3 passed, 0 failed, 0 skipped"
# each started before the other ended: run side by side, not in turn
if [ $rc = 0 ] && [ "$(grep -c 'in the second lane, after quick_bg)$' "$tmp/out")" = 1 ] &&
	[ ! "$tmp/marks2/a.end" -ot "$tmp/marks2/b.start" ] && [ ! "$tmp/marks2/b.end" -ot "$tmp/marks2/a.start" ] &&
	[ $el -lt 8 ]; then
	ok "lanes: the second lane took a beside script once the background one ended (${el} s for two 4-s scripts)"
else
	bad "lanes: the second lane (exit $rc, ${el} s)"; ls -l --time-style=+%T.%N "$tmp/marks2"
fi
# beside scripts niced (the background one is the critical path)
[ "$(cat "$tmp/marks2/a.nice")" = $(($(nice) + 5)) ] && [ "$(cat "$tmp/marks2/bg.nice")" = "$(nice)" ] &&
	ok "lanes: a beside script 5 nicer than run.sh, the background one as run.sh" ||
	bad "lanes: nice $(cat "$tmp/marks2/a.nice") beside, $(cat "$tmp/marks2/bg.nice") background"

# the time budget: a whole run (no TESTS_FILTER) that took longer fails a
# strict run with the slowest test named, and only warns otherwise
printf 'sleep 2\nexit 0\n' >"$tmp/none/slow.sh"
printf '# a budget\ntotal = 1\n' >"$tmp/budget"
budget() { TESTS_FILTER= TESTS_DIR="$tmp/none" TEST_LOG_DIR="$tmp/logs" "$@" sh "$top/tests/run.sh" \
	--budget "$tmp/budget" --since "$(date +%s)" >"$tmp/out" 2>&1; }
expect_exit 1 budget env CI=true
expect_out "^FAIL: make test took [0-9]* s, over its budget of 1 s ($tmp/budget); the slowest: integration/slow [0-9]*s"
expect_out "^failed: time-budget"
expect_exit 0 budget env -u CI -u KBENCH_TEST_STRICT
expect_out "^warning: make test took [0-9]* s, over its budget of 1 s"
printf 'total = 3600\n' >"$tmp/budget"
expect_exit 0 budget env CI=true
expect_out "^time budget: [0-9]* s of 3600 s"
# the repository's budget is readable (a typo there must not pass silently)
grep -qx 'total = [0-9][0-9]*' "$top/tests/time-budget" && ok "tests/time-budget has its total" ||
	bad "tests/time-budget has no 'total = SECONDS' line"
finish
