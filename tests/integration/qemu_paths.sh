#!/bin/sh
# lane: beside
# Paths reach QEMU's comma-separated options escaped (',' written ',,'):
# a --reports directory with a comma and a space boots and runs (was: QEMU
# read the part after the comma as more options, and wrote the console log
# to the path cut at the comma), and so does a KBENCH_CACHE with ", " (the
# same boot: the kernel, initramfs, work directory and agent socket are
# under it; its entries link to the real cache's, so nothing is
# refetched). A --reports or cache path with a newline is refused at once
# with exit 2 and a message, before anything is written (was: exit 1 at
# the first boot, after the run directory was made).
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
cache=${KBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kbench}
c="$tmp/cache, id=y"
mkdir "$c" "$c/tmp"
for d in "$cache"/*; do
	case ${d##*/} in tmp) ;; *) ln -s "$d" "$c/${d##*/}" ;; esac
done
t0=$(date +%s)
KBENCH_CACHE=$c expect_exit 0 "$KB" run --kernel rt-stock --suite "$tmp/hb.ini" --reports "$r" --run-id p
echo "time: booted run $(($(date +%s) - t0)) s"
[ -s "$r/runs/p/results.json" ] && ok "results.json under '$r'" || { bad "no results under '$r'"; cat "$tmp/out"; }
# before: QEMU took path=$tmp/a and option 'id=x b/...': the console went to $tmp/a
[ ! -e "$tmp/a" ] && ok "nothing written to the path cut at the comma" || bad "QEMU wrote $tmp/a: the comma cut the path"
[ ! -e "$tmp/cache" ] && ok "nothing written to the cache path cut at the comma" || bad "QEMU wrote $tmp/cache"
nl="$tmp/new
line"
expect_exit 2 "$KB" run --kernel rt-stock --suite "$tmp/hb.ini" --reports "$nl" --run-id n
# the path's newline splits the message over two lines
expect_out "^error: --reports '"
expect_out "' has a newline or another control character: QEMU cannot take such a path"
[ ! -e "$nl" ] && [ ! -e "$tmp/new" ] && ok "nothing made for the --reports path with a newline" ||
	bad "a directory was made for the --reports path with a newline"
KBENCH_CACHE="$tmp/c
x" expect_exit 2 "$KB" run --kernel rt-stock --suite "$tmp/hb.ini" --reports "$tmp/rc" --run-id n
expect_out "^fatal: cache directory '"
expect_out "' (KBENCH_CACHE, XDG_CACHE_HOME or HOME) has a newline"
[ ! -e "$tmp/rc" ] && [ ! -e "$tmp/c
x" ] && ok "nothing made for a cache path with a newline" || bad "a cache path with a newline made files"
finish
