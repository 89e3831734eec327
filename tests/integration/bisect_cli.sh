#!/bin/sh
# lane: beside
# kbench bisect's checks before anything is built, and its cleanup: no VM.
# A tiny git repository that looks like a kernel tree (its builds fail at
# once) stands in for the kernel; the real bisection is tests/check/bisect.sh
# (make bisect-test).
. "$(dirname "$0")/../lib.sh"
need_tool git "kbench bisect drives git"
L="$tmp/linux"
g() { git -C "$L" -c user.name=kbench -c user.email=kbench@example.invalid "$@"; }
mkdir -p "$L/kernel/locking" "$L/scripts/kconfig"
echo "all:; @false" >"$L/Makefile"
echo "/* rtmutex */" >"$L/kernel/locking/rtmutex.c"
echo "#!/bin/sh" >"$L/scripts/kconfig/merge_config.sh"
g init -q && g add -A && g commit -q -m one
echo x >>"$L/Makefile" && g commit -q -am two
args="--variant rt-adaptive-test --metric hackbench.time --reports $tmp/r"

expect_exit 2 "$KB" bisect --tree "$tmp" --good HEAD~1 --bad HEAD $args --id a
expect_out "not a git work tree"
expect_exit 2 "$KB" bisect --tree "$L" --good nosuchref --bad HEAD $args --id b
expect_out "--good 'nosuchref': not a commit"
expect_exit 2 "$KB" bisect --tree "$L" --good --output=/tmp/x --bad HEAD $args --id c
expect_out "not a commit"
expect_exit 2 "$KB" bisect --tree "$L" --good HEAD~1 --bad HEAD $args --id '../x'
expect_out "bisection id '../x'"
expect_exit 2 "$KB" bisect --tree "$L" --good HEAD~1 $args --id d
expect_out "are needed"
expect_exit 2 "$KB" bisect --resume nosuch --reports "$tmp/r"
expect_out "no bisection state"
# where the steps run: a target or a lab that does not load, or both
expect_exit 2 "$KB" bisect --tree "$L" --good HEAD~1 --bad HEAD $args --id e --target "$tmp/nosuch.ini"
expect_out "nosuch.ini"
expect_exit 2 "$KB" bisect --tree "$L" --good HEAD~1 --bad HEAD $args --id f --lab "$tmp/nosuchlab.ini"
expect_out "lab '$tmp/nosuchlab.ini': cannot read"
expect_exit 2 "$KB" bisect --tree "$L" --good HEAD~1 --bad HEAD $args --id g --target a --lab b
expect_out "the steps run on one machine or on a lab, not both"
[ -e "$tmp/r/bisect/e" ] || [ -e "$tmp/r/bisect/f" ] || [ -e "$tmp/r/bisect/g" ] &&
	bad "a refused --target/--lab left a bisection directory" || ok "refused --target/--lab: no bisection directory"

echo y >>"$L/Makefile"
expect_exit 2 "$KB" bisect --tree "$L" --good HEAD~1 --bad HEAD $args --id e
expect_out "has uncommitted changes"
g checkout -q Makefile

# the good end does not build: a harness error, the tree as it was
head=$(g rev-parse HEAD)
expect_exit 2 "$KB" bisect --tree "$L" --good HEAD~1 --bad HEAD $args --id f --iterations 2
expect_out "the good end HEAD~1 could not be measured"
[ "$(g rev-parse HEAD)" = "$head" ] && [ -z "$(g status --porcelain)" ] && g symbolic-ref -q HEAD >/dev/null &&
	! g bisect log >/dev/null 2>&1 && ok "tree as it was: same branch, no bisection" || bad "tree changed"
[ -s "$tmp/r/bisect/f/bisect.md" ] && [ -s "$tmp/r/bisect/f/state.json" ] && ok "report written" || bad "no report"
expect_exit 2 "$KB" bisect --tree "$L" --good HEAD~1 --bad HEAD $args --id f
expect_out "bisection 'f' exists"
finish
