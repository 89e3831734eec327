#!/bin/sh
# Run every test kbench has and print one closing line:
#   "test: N passed, N failed, N skipped"
# Arguments: the cmocka unit test binaries (plain and sanitizer builds).
# Then every tests/integration/*.sh (exit 0 pass, 77 skip, else fail);
# TESTS_FILTER=glob limits the integration scripts (TESTS_DIR: another
# directory of them, for tests/integration/test_runner.sh). Strict (CI set or
# KBENCH_TEST_STRICT=1): a skip counts as a failure (lib.sh's skip already
# fails there; this catches a script that exits 77 by itself).
# A test that leaves processes running fails: each script runs with
# KBENCH_TEST_TAG=<name>.<pid> in its environment, which every process it
# starts inherits (QEMU, daemons, background loops; not those started with
# a cleared environment); any still alive 10 s after the script ended are
# listed and killed, so they cannot load the host under the next test (a
# CI run's host_noise test once found 23% of the host busy beside it).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
pass=0 fail=0 skip=0
failed_names=""
log_dir=${TEST_LOG_DIR:-$top/build/test-logs}
mkdir -p "$log_dir"

for t in "$@"; do
	name=$(echo "$t" | sed 's|.*/build/||')
	out="$log_dir/$(echo "$name" | tr '/' '_').log"
	"$t" >"$out" 2>&1
	rc=$?
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
	p=${p:-0}; f=${f:-0}
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		f=1 # crashed or a sanitizer stopped it
	fi
	pass=$((pass + p)); fail=$((fail + f))
	if [ "$f" != 0 ]; then
		failed_names="$failed_names $name"
		echo "FAIL $name ($f failed; log $out)"
		tail -30 "$out"
	else
		echo "ok   $name ($p tests)"
	fi
done

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

for s in "${TESTS_DIR:-$top/tests/integration}"/${TESTS_FILTER:-*}.sh; do
	[ -f "$s" ] || continue
	name=integration/$(basename "$s" .sh)
	out="$log_dir/$(basename "$s" .sh).log"
	start=$(date +%s)
	tag="$(basename "$s" .sh).$$"
	KBENCH_TEST_TAG=$tag sh "$s" >"$out" 2>&1
	rc=$?
	el=$(( $(date +%s) - start ))
	left=$(leftovers "$tag")
	if [ -n "$left" ]; then
		{
			echo "FAIL: the test left processes running:"
			ps -o pid,ppid,etimes,pcpu,args -p "$(echo $left | tr ' ' ',')"
		} >>"$out" 2>&1
		kill -9 $left 2>/dev/null
		[ "$rc" = 0 ] || [ "$rc" = 77 ] && rc=1
	fi
	case $rc in
	0) pass=$((pass + 1)); echo "ok   $name (${el}s)" ;;
	77) if [ -n "${CI:-}" ] || [ "${KBENCH_TEST_STRICT:-}" = 1 ]; then
		fail=$((fail + 1)); failed_names="$failed_names $name"
		echo "FAIL $name (skipped in a strict run: $(grep '^SKIP' "$out" | tail -1))"
	    else
		skip=$((skip + 1)); echo "skip $name: $(grep '^SKIP' "$out" | tail -1)"
	    fi ;;
	*) fail=$((fail + 1)); failed_names="$failed_names $name"
	   echo "FAIL $name (exit $rc, ${el}s; log $out)"
	   # the failed checks and kbench's warnings from the whole log (CI
	   # keeps only part of the output), then its end
	   grep -E '^(FAIL|warning|note)' "$out" | head -50 | sed 's/^/| /'
	   tail -40 "$out" ;;
	esac
done

[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "test: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
