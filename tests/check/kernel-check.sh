#!/bin/sh
# make kernel-check: the patched PREEMPT_RT kernel with lockdep and
# DEBUG_RT_MUTEXES runs locktorture on rtmutex_lock and spin_lock in each
# lock mode (pre-2008 RT, 2008 adaptive, upstream defaults) for
# KCHECK_SECONDS (default 300) under QEMU, while cyclictest and hackbench
# load the guest. Any lockdep report, BUG, WARNING, hung task, RCU stall or
# locktorture failure fails the check. Logs stay in reports/kernel-check/.
# Under TCG on 2 cores it takes about 6 x (boot + KCHECK_SECONDS + 60 s).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
KB="$top/kbench"
secs=${KCHECK_SECONDS:-300}
out="$top/reports/kernel-check/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
suite="$out/soak.ini"
sed "s/^duration = 300/duration = $secs/" "$top/configs/suites/soak.ini" >"$suite"
"$KB" build rt-lockdep-check || { echo "kernel-check: building the lockdep kernel failed"; exit 2; }
fail=0
for mode in rt adaptive upstream; do
	case $mode in
	rt) knobs="rtmutex.adaptive_rtlock=0 rtmutex.adaptive_mutex=0 rtmutex.lateral_steal=0" ;;
	adaptive) knobs="rtmutex.spin_max_loops=10000 rtmutex.lateral_steal=1" ;;
	upstream) knobs="" ;;
	esac
	for type in rtmutex_lock spin_lock; do
		id="$mode-$type"
		start=$(date +%s)
		"$KB" run --kernel rt-lockdep-check --suite "$suite" --reports "$out" --run-id "$id" \
			--cmdline "$knobs locktorture.torture_type=$type locktorture.stat_interval=60" \
			>"$out/$id.log" 2>&1
		rc=$?
		run="$out/runs/$id"
		logs="$run/console/iter-1.log $run/raw/iter-1/dmesg.txt"
		splat=$(cat $logs 2>/dev/null | grep -E "WARNING:|BUG:|possible (recursive|circular) locking|inconsistent lock state|INFO: task .* blocked|rcu: INFO|soft lockup|scheduling while atomic|Kernel panic" | head -5)
		stats=$(grep -h "Writes:" $logs 2>/dev/null | tail -1)
		torture_fail=$(grep -hE "Writes:.*Fail: *[1-9]|End of test: FAILURE" $logs 2>/dev/null | head -1)
		el=$(( $(date +%s) - start ))
		if [ $rc != 0 ] || [ -n "$splat" ] || [ -z "$stats" ] || [ -n "$torture_fail" ]; then
			fail=$((fail + 1))
			echo "FAIL $id (${el}s, kbench exit $rc): ${splat:-${torture_fail:-no locktorture statistics}}"
		else
			echo "ok   $id (${el}s): $stats"
		fi
	done
done
echo "kernel-check: logs in $out"
[ $fail = 0 ] && echo "kernel-check: 6 passed, 0 failed" || echo "kernel-check: $((6 - fail)) passed, $fail failed"
[ $fail = 0 ]
