#!/bin/sh
# Run every test kbench has and print one closing line:
#   "test: N passed, N failed, N skipped"
# Arguments: the cmocka unit test binaries (plain and sanitizer builds).
# Then every tests/integration/*.sh (exit 0 pass, 77 skip, else fail);
# TESTS_FILTER=glob limits the integration scripts. Strict (CI set or
# KBENCH_TEST_STRICT=1): a skip counts as a failure (lib.sh's skip already
# fails there; this catches a script that exits 77 by itself).
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

for s in "$top"/tests/integration/${TESTS_FILTER:-*}.sh; do
	[ -f "$s" ] || continue
	name=integration/$(basename "$s" .sh)
	out="$log_dir/$(basename "$s" .sh).log"
	start=$(date +%s)
	sh "$s" >"$out" 2>&1
	rc=$?
	el=$(( $(date +%s) - start ))
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
