#!/bin/sh
# Paths reach QEMU's comma-separated options escaped (',' written ',,'):
# a --reports directory with a comma and a space boots and runs (was: QEMU
# read the part after the comma as more options, and wrote the console log
# to the path cut at the comma), and
# one with a newline is refused with a clear error. The cache path takes
# the same escaping (qemu.c, hostroot.c; test_harness test_qemu_opt_escape);
# a fresh KBENCH_CACHE would refetch the kernel, so only --reports is booted.
. "$(dirname "$0")/../lib.sh"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 missing (make deps)"
"$KB" fetch rt-stock >"$tmp/fetch" 2>&1 || { cat "$tmp/fetch"; skip "cannot fetch rt-stock (no mirror?)"; }

cat >"$tmp/hb.ini" <<'INI'
[suite]
name = paths
iterations = 1
warmup = 0
[hackbench]
groups = 1
loops = 10
INI
r="$tmp/a,id=x b"
expect_exit 0 "$KB" run --kernel rt-stock --suite "$tmp/hb.ini" --reports "$r" --run-id p
[ -s "$r/runs/p/results.json" ] && ok "results.json under '$r'" || { bad "no results under '$r'"; cat "$tmp/out"; }
# before: QEMU took path=$tmp/a and option 'id=x b/...': the console went to $tmp/a
[ ! -e "$tmp/a" ] && ok "nothing written to the path cut at the comma" || bad "QEMU wrote $tmp/a: the comma cut the path"
nl="$tmp/new
line"
"$KB" run --kernel rt-stock --suite "$tmp/hb.ini" --reports "$nl" --run-id n >"$tmp/out" 2>&1
rc=$?
[ "$rc" != 0 ] && ok "newline in --reports refused (exit $rc)" || bad "newline in --reports accepted"
cat "$tmp/out" | tail -5
finish
