# Shared helpers for integration tests (sourced).
top=$(cd "$(dirname "$0")/../.." && pwd)
KB="$top/kbench"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbench-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
skip() { echo "SKIP: $*"; exit 77; }
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
finish() { [ "$fails" = 0 ] || { echo "$fails check(s) failed"; exit 1; }; exit 0; }
