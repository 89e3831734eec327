#!/bin/sh
# Build (or find in the cache) the patched PREEMPT_RT test kernel, boot it,
# and check the reference patch: the knobs in /sys/module/rtmutex/parameters
# take their command-line values, the lock counters reach results.json,
# each setting changes what the counters show (asserted per setting by
# check_results.py --locks, whose negative controls are in
# check_results.sh), and a bad value is refused.
# The first run on a fresh machine builds the small test kernel (about 7-10
# minutes on 2 cores); later runs hit the build cache.
. "$(dirname "$0")/../lib.sh"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 missing (make deps)"
for t in make gcc flex bison bc patch; do
	command -v $t >/dev/null || skip "$t missing (make deps installs the kernel build tools)"
done
"$KB" build rt-adaptive-test >"$tmp/build" 2>&1 || {
	tail -30 "$tmp/build"
	if grep -q "step 'source'" "$tmp/build"; then skip "linux-source-6.12 cannot be fetched"; fi
	bad "building the patched test kernel failed"; finish; }
tail -3 "$tmp/build"

# a suite that makes locks contend: hackbench and dbench on 2 vCPUs
cat >"$tmp/locks.ini" <<'INI'
[suite]
name = locks
iterations = 1
[hackbench]
groups = 2
loops = 100
[dbench]
clients = 2
duration = 3
INI
check() { /usr/bin/python3 "$top/tests/integration/check_results.py" "$@"; }
# run NAME EXTRA-CMDLINE: kbench must exit 0 (one iteration: any failure
# fails the test), and check_results.py checks the results and the lock
# counters per setting (EXPECT, see its --locks; the workloads must have
# run, every ok workload must carry the counters)
run() {
	"$KB" run --kernel rt-adaptive-test --suite "$tmp/locks.ini" --vcpus 2 \
		--reports "$tmp/r" --run-id "$1" --cmdline "$2" >"$tmp/out-$1" 2>&1
	rc=$?
	[ "$rc" = 0 ] && ok "run $1: exit 0" || { bad "run $1: exit $rc"; tail -20 "$tmp/out-$1"; }
	r="$tmp/r/runs/$1/results.json"
	[ -f "$r" ] || { bad "run $1: no results.json"; return 1; }
}
locks() { # NAME EXPECT WHAT
	check --expect-rt yes --exit-status "$rc" --locks "$2" "$r" && ok "$1: $3" || bad "$1: $3"
}
param() { /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["variant"]["rtmutex_params"][sys.argv[2]])' "$tmp/r/runs/$1/results.json" "$2"; }
ncpu() { /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["iterations"][0]["guest"]["nproc"])' "$tmp/r/runs/$1/results.json"; }

# the variant's own settings: adaptive, bound 10000, lateral steal on
run adaptive "" && {
	[ "$(param adaptive spin_max_loops)" = 10000 ] && ok "spin_max_loops=10000 from the variant" || bad "spin_max_loops: $(param adaptive spin_max_loops)"
	locks adaptive steal1 "lateral_steal=1: lateral steals under hackbench"
	# the test kernel (test-tiny, no ACPI) reads the MP table, where
	# SeaBIOS lists one CPU per socket: kbench gives such a kernel one
	# socket per vCPU, so it sees both and its locks can spin
	# (kernels/patches/README.md)
	[ "$(ncpu adaptive)" = 2 ] && ok "the guest sees both vCPUs" ||
		bad "the guest sees $(ncpu adaptive) CPU(s) of 2 vCPUs"
}
# adaptive spinning and lateral steal off: sleeps, no spin, no lateral steal
run off "rtmutex.adaptive_rtlock=0 rtmutex.adaptive_mutex=0 rtmutex.lateral_steal=0" &&
	locks off off,steal0 "adaptive off: sleeps > 0, no spins, no lateral steals"
# unbounded: spins, none ended by the bound
run unbounded "rtmutex.spin_max_loops=0" &&
	locks unbounded unbounded "unbounded: spins > 0, no bound hits"
# bound of 1 loop (the later command-line value wins): no spin past one
# loop; with 2 guest CPUs also some spin ends by the bound
run bound1 "rtmutex.spin_max_loops=1" &&
	locks bound1 bound1 "spin_max_loops=1: no spin ran past one loop"

# a bad value is refused: the kernel keeps the default and says so
run badval "rtmutex.spin_max_loops=abc" && {
	check --exit-status "$rc" "$r" && ok "badval: the workloads ran" || bad "badval results"
	[ "$(param badval spin_max_loops)" = 10000 ] && ok "bad spin_max_loops refused (value kept)" || bad "bad value taken: $(param badval spin_max_loops)"
	grep -q "invalid for parameter" "$tmp/r/runs/badval/raw/iter-1/dmesg.txt" && ok "kernel reports the bad value" || bad "no 'invalid for parameter' in dmesg"
}
finish
