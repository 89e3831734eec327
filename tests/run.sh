#!/bin/sh
# Run every test kbench has and print one closing line:
#   "test: N passed, N failed, N skipped"
# Usage: run.sh [--budget FILE --since EPOCH] UNIT-TEST-BINARY...
# The background integration script started (see lane below), the cmocka
# unit test binaries (plain and sanitizer builds) beside it, then every
# other tests/integration/*.sh (exit 0 pass, 77 skip, else fail);
# TESTS_FILTER=glob limits the integration scripts (TESTS_DIR: another
# directory of them, for tests/integration/test_runner.sh). Strict (CI set or
# KBENCH_TEST_STRICT=1): a skip counts as a failure, a cmocka test that
# called skip() too (lib.sh's skip already fails there; this catches a
# script that exits 77 by itself and a unit test that skips).
# Each test's time is printed, then the slowest and the total. With
# --budget (make test passes tests/time-budget and its own start time), a
# whole run (no TESTS_FILTER) longer than the budget's `total` fails in a
# strict run, naming the slowest tests: CI stops at 90 minutes and lands
# nothing past them, so the suite's room is checked where it grows.
# A test that leaves processes running fails: each script runs with
# KBENCH_TEST_TAG=<name>.<pid> in its environment, which every process it
# starts inherits (QEMU, daemons, background loops; not those started with
# a cleared environment: lava_lab.sh checks its LAVA jobs' own); any still
# alive 10 s after the script ended are listed and killed, so they cannot
# load the host under the next test (a CI run's host_noise test once found
# 23% of the host busy beside it).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
budget_file="" since=""
while [ $# -gt 0 ]; do
	case $1 in
	--budget) budget_file=$2; shift 2 ;;
	--since) since=$2; shift 2 ;;
	*) break ;;
	esac
done
pass=0 fail=0 skip=0
failed_names=""
log_dir=${TEST_LOG_DIR:-$top/build/test-logs}
mkdir -p "$log_dir"
strict() { [ -n "${CI:-}" ] || [ "${KBENCH_TEST_STRICT:-}" = 1 ]; }
run_start=$(date +%s)
[ -n "$since" ] && echo "setup (packages, build): $((run_start - since)) s"
times="$log_dir/times.$$"
: >"$times"


# The host's busy and total CPU ticks so far (/proc/stat's first line): a
# test's share of busy CPU says whether its time is the guests' work or
# waiting (timeouts, polls, a lab's queue), where sharing would pay.
cpu_ticks() { awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print t - $5 - $6, t; exit }' /proc/stat; }
busy_pct() { # BUSY0 TOTAL0 BUSY1 TOTAL1
	[ "$4" -gt "$2" ] && echo $(( ($3 - $1) * 100 / ($4 - $2) )) || echo 0
}

# The CPU a test used, its own and that of every process it started
# (QEMU daemonized, LAVA's daemons and the jobs' guests included): each
# script runs in a cgroup of its own where the host lets us make one
# (cgroup v2's cpu.stat, else v1's cpuacct.usage), and nothing is printed
# where it does not. On a 2-core runner the tests' CPU seconds over two
# are the suite's floor: what to cut to stay in the budget, where the
# wall time of a test beside others says little.
cg_make() { # NAME: prints the new cgroup's directory (under run.sh's own), or nothing
	v2=$(sed -n 's/^0:://p' /proc/self/cgroup) v1=$(sed -n 's/^[0-9]*:\([a-z,]*,\)\{0,1\}cpuacct\(,[a-z,]*\)\{0,1\}://p' /proc/self/cgroup)
	for base in "/sys/fs/cgroup/unified${v2%/}" "/sys/fs/cgroup${v2%/}" "/sys/fs/cgroup/cpuacct${v1%/}"; do
		[ -f "$base/cgroup.procs" ] || continue
		d="$base/kbench-test.$1.$$"
		mkdir "$d" 2>/dev/null || continue
		# usable when a process can be moved into it (a short-lived one)
		if { [ -f "$d/cpu.stat" ] || [ -f "$d/cpuacct.usage" ]; } &&
			sh -c 'echo $$ >"$1/cgroup.procs"' sh "$d" 2>/dev/null; then echo "$d"; return; fi
		rmdir "$d" 2>/dev/null
	done
}
cg_cpu() { # DIR: CPU seconds used in it so far
	if [ -f "$1/cpu.stat" ]; then awk '$1 == "usage_usec" { printf "%d\n", $2 / 1e6 }' "$1/cpu.stat"
	else awk '{ printf "%d\n", $1 / 1e9 }' "$1/cpuacct.usage"; fi 2>/dev/null
}

# The pids of live processes with KBENCH_TEST_TAG=$1 in their environment,
# after up to 10 s for them to end by themselves.
leftovers() {
	n=0
	while :; do
		p=$(grep -lzxs "KBENCH_TEST_TAG=$1" /proc/[0-9]*/environ 2>/dev/null |
			sed -n 's|^/proc/\([0-9]*\)/environ$|\1|p')
		[ -z "$p" ] || [ $n -ge 10 ] && break
		sleep 1
		n=$((n + 1))
	done
	echo $p
}

# A script's lane, from its header line "# lane: background|beside"
# (alone when it has none): a background script starts first and runs
# while the "beside" scripts run one after another; once it has ended its
# lane takes the beside scripts not yet started, so two run at a time;
# the others run alone once both lanes are done. A background script is
# a long chain on a slow machine (ssh_backend's lab VM: boots, ssh,
# copies, about one core), a "beside" one a test whose checks hold on a
# busy host (kbench's iterations are flagged, not refused); a test that
# measures the host (host_noise), holds a guest to a deadline or counts
# lock events runs alone.
lane() { sed -n '1,40s/^# lane: \(background\|beside\)$/\1/p' "$1" | head -1; }
# The beside scripts run at nice 5: the background one is the longest
# chain (the suite's critical path), and its lab VM's two vCPUs, when a
# beside test's QEMU takes the core one of them needs, spin on locks the
# other holds (ssh_backend took 1364 s on a quiet host, 1631 s beside the
# others at the same priority). Nice 5 leaves the beside tests about a
# quarter of a contended core, not less (their guests' deadlines hold).
beside_nice=${KBENCH_TEST_BESIDE_NICE:-5}

# run_script SCRIPT: run one integration script (its log in $log_dir; a
# beside script at $beside_nice, above), then the leftover check of every
# process with its tag (listed in its log and killed: a leftover fails
# the script), and write "rc seconds
# busy% [cpu]" to its .result file for judge. It runs in whichever lane
# ran the script, so a leftover never loads the host under the next test.
run_script() {
	b=$(basename "$1" .sh)
	start=$(date +%s)
	c0=$(cpu_ticks)
	cg=$(cg_make "$b")
	n=0
	[ "$(lane "$1")" = beside ] && n=$beside_nice
	# shellcheck disable=SC2016
	KBENCH_TEST_TAG="$b.$$" nice -n "$n" sh -c '[ -z "$1" ] || echo $$ >"$1/cgroup.procs" 2>/dev/null; exec sh "$2"' \
		sh "$cg" "$1" >"$log_dir/$b.log" 2>&1
	rc=$?
	el=$(( $(date +%s) - start ))
	# shellcheck disable=SC2046
	busy=$(busy_pct $c0 $(cpu_ticks))
	left=$(leftovers "$b.$$")
	if [ -n "$left" ]; then
		{
			echo "FAIL: the test left processes running:"
			ps -o pid,ppid,etimes,pcpu,args -p "$(echo $left | tr ' ' ',')"
		} >>"$log_dir/$b.log" 2>&1
		kill -9 $left 2>/dev/null
		[ "$rc" = 0 ] || [ "$rc" = 77 ] && rc=1
	fi
	cpu=${cg:+$(cg_cpu "$cg")}
	if [ -n "$cg" ]; then rmdir "$cg" 2>/dev/null || { sleep 1; rmdir "$cg" 2>/dev/null; }; fi
	echo "$rc $el $busy $cpu" >"$log_dir/$b.result"
}

# judge SCRIPT [NOTE]: the script's result counted and printed
judge() {
	b=$(basename "$1" .sh)
	name=integration/$b
	out="$log_dir/$b.log"
	cpu=""
	read -r rc el busy cpu <"$log_dir/$b.result" || { rc=1 el=0 busy=0; }
	rm -f "$log_dir/$b.result"
	echo "$el $name" >>"$times"
	[ -n "$cpu" ] && echo "$cpu $name" >>"$times.cpu"
	el="${el}s${cpu:+, CPU ${cpu}s}"
	case $rc in
	0) pass=$((pass + 1)); echo "ok   $name ($el, host CPU ${busy}% busy${2:+; $2})" ;;
	77) if strict; then
		fail=$((fail + 1)); failed_names="$failed_names $name"
		echo "FAIL $name (skipped in a strict run: $(grep '^SKIP' "$out" | tail -1))"
	    else
		skip=$((skip + 1)); echo "skip $name: $(grep '^SKIP' "$out" | tail -1)"
	    fi ;;
	*) fail=$((fail + 1)); failed_names="$failed_names $name"
	   echo "FAIL $name (exit $rc, $el, host CPU ${busy}% busy${2:+; $2}; log $out)"
	   # the failed checks and kbench's warnings from the whole log (CI
	   # keeps only part of the output), then its end
	   grep -E '^(FAIL|warning|note)' "$out" | head -50 | sed 's/^/| /'
	   tail -40 "$out" ;;
	esac
}

scripts=""
for s in "${TESTS_DIR:-$top/tests/integration}"/${TESTS_FILTER:-*}.sh; do
	[ -f "$s" ] && scripts="$scripts $s"
done
# Two lanes share the two cores. The main one runs the "beside" scripts
# in order. The second runs the background scripts (each in a process of
# its own) and, once they have all ended, the beside scripts no one has
# taken yet (mkdir claims one), so that neither core idles while the
# other lane still has work. The rest run alone afterwards.
claims="$log_dir/claims.$$"
rm -rf "$claims" && mkdir -p "$claims" || exit 2
trap 'rm -f "$times" "$times.cpu"; rm -rf "$claims"' EXIT
claim() { mkdir "$claims/$(basename "$1" .sh)" 2>/dev/null; }
bg="" besides=""
for s in $scripts; do
	[ "$(lane "$s")" = background ] || continue
	echo "start $(basename "$s" .sh) in the background (lane: background)"
	bg="$bg $s" besides="$besides $(basename "$s" .sh)"
done
(
	[ -n "$bg" ] || exit 0
	pids=""
	for s in $bg; do run_script "$s" & pids="$pids $!"; done
	for p in $pids; do wait "$p"; done
	for s in $scripts; do
		[ "$(lane "$s")" = beside ] && claim "$s" || continue
		echo "$s" >>"$claims/second"
		run_script "$s"
	done
) &
second=$!
# the unit test binaries, while the background script starts (its lab's
# boot): they use one core, and CPU is the suite's floor on 2 cores
for t in "$@"; do
	name=$(echo "$t" | sed 's|.*/build/||')
	out="$log_dir/$(echo "$name" | tr '/' '_').log"
	start=$(date +%s)
	"$t" >"$out" 2>&1
	rc=$?
	el=$(( $(date +%s) - start ))
	echo "$el $name" >>"$times"
	# a binary may run several groups: add up every group's lines
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | awk '{ s += $1 } END { print s + 0 }')
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | awk '{ s += $1 } END { print s + 0 }')
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$out" | awk '{ s += $1 } END { print s + 0 }')
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		f=1 # crashed or a sanitizer stopped it
	fi
	skipped=$(sed -n 's/^\[  SKIPPED \] \([a-z_][a-z0-9_]*\)$/\1/p' "$out" | sort -u | tr '\n' ' ')
	if [ "$s" != 0 ] && strict; then
		f=$((f + s))
		echo "FAIL $name: $s test(s) skipped in a strict run (CI or KBENCH_TEST_STRICT=1): $skipped"
	elif [ "$s" != 0 ]; then
		skip=$((skip + s))
		echo "skip $name: $skipped"
	fi
	pass=$((pass + p)); fail=$((fail + f))
	if [ "$f" != 0 ]; then
		failed_names="$failed_names $name"
		echo "FAIL $name ($f failed, ${el}s; log $out)"
		tail -30 "$out"
	else
		echo "ok   $name ($p tests, ${el}s)"
	fi
done
for s in $scripts; do
	[ "$(lane "$s")" = beside ] && claim "$s" || continue
	run_script "$s"
	judge "$s" "${bg:+beside$besides}"
done
wait "$second"
for s in $bg; do judge "$s" "beside the tests marked beside"; done
[ -f "$claims/second" ] && while read -r s; do
	judge "$s" "in the second lane, after$besides"
done <"$claims/second"
for s in $scripts; do
	case $(lane "$s") in background | beside) continue ;; esac
	run_script "$s"
	judge "$s"
done

now=$(date +%s)
total=$((now - ${since:-$run_start}))
# top FILE: its 8 largest "N name" lines as "name Ns, ..."
top() { sort -rn "$1" | head -8 | awk '{ printf "%s%s %ss", (NR > 1 ? ", " : ""), $2, $1 }'; }
slowest=$(top "$times")
echo "time: tests $((now - run_start)) s, in all $total s ($((total / 60)) min $((total % 60)) s); slowest: $slowest"
if [ -s "$times.cpu" ]; then
	most=$(top "$times.cpu")
	echo "CPU: the integration tests used $(awk '{ s += $1 } END { print s }' "$times.cpu") s of $(nproc) cores' time; most: $most"
fi
if [ -n "$budget_file" ] && [ -z "${TESTS_FILTER:-}" ]; then
	b=$(sed -n 's/^total[[:space:]]*=[[:space:]]*\([0-9][0-9]*\)[[:space:]]*$/\1/p' "$budget_file" 2>/dev/null)
	if [ -z "$b" ]; then
		echo "FAIL: $budget_file: no line 'total = SECONDS'"
		fail=$((fail + 1)); failed_names="$failed_names time-budget"
	elif [ "$total" -gt "$b" ]; then
		msg="make test took $total s, over its budget of $b s ($budget_file); the slowest: $slowest"
		if strict; then
			echo "FAIL: $msg: CI stops at 90 minutes in all, so make the slowest share boots and runs (docs: README, Testing) instead of raising the budget"
			fail=$((fail + 1)); failed_names="$failed_names time-budget"
		else
			echo "warning: $msg (a strict run fails)"
		fi
	else
		echo "time budget: $total s of $b s ($budget_file)"
	fi
fi

# again at the end, each failed integration test's first failed checks:
# CI keeps the end of a long output only
for n in $failed_names; do
	f="$log_dir/${n#integration/}.log"
	case $n in integration/*) [ -f "$f" ] || continue ;; *) continue ;; esac
	echo "$n, its first failed checks (log $f):"
	grep -E '^FAIL' "$f" | head -8 | cut -c1-300 | sed 's/^/| /'
done
[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "test: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
