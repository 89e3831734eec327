# Shared helpers for integration tests (sourced).
top=$(cd "$(dirname "$0")/../.." && pwd)
KB="$top/kbench"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbench-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
t0=$(date +%s)
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
# strict: in CI (CI set) or with KBENCH_TEST_STRICT=1 a test that would
# skip fails instead, naming what was missing; a local run skips (exit 77)
strict() { [ -n "${CI:-}" ] || [ "${KBENCH_TEST_STRICT:-}" = 1 ]; }
skip() {
	if strict; then
		echo "FAIL: $* (strict: CI or KBENCH_TEST_STRICT=1 is set, so this is not skipped)"
		exit 1
	fi
	echo "SKIP: $*"
	exit 77
}
# need_tool TOOL WHY: a check that needs TOOL must not pass without it
need_tool() { command -v "$1" >/dev/null 2>&1 || skip "$1 missing: $2 (make test installs it: harness/deps.sh test)"; }
# expect_exit CODE CMD...: run, keep output in $tmp/out, check the status
expect_exit() {
	want=$1; shift
	"$@" >"$tmp/out" 2>&1
	got=$?
	if [ "$got" = "$want" ]; then ok "exit $got: $*"; else bad "exit $got (want $want): $*"; cat "$tmp/out"; fi
}
expect_out() {
	if grep -q -- "$1" "$tmp/out"; then ok "output has '$1'"; else bad "output lacks '$1'"; cat "$tmp/out"; fi
}
no_out() {
	if grep -q -- "$1" "$tmp/out"; then bad "output has '$1'"; cat "$tmp/out"; else ok "output lacks '$1'"; fi
}
finish() { echo "time: $(( $(date +%s) - t0 )) s"; [ "$fails" = 0 ] || { echo "$fails check(s) failed"; exit 1; }; exit 0; }
