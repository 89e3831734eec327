#!/bin/sh
# make bisect-test: kbench bisect on a real kernel history (too slow for
# make test: docs/bisect.md gives its time; .ci/run calls it). A scratch git repository on
# a hard-linked copy of the cached linux-source-6.12 tree gets six commits:
# two unrelated, one that does not build, its fix, one that puts a 100 us
# delay into every unix stream sendmsg (hackbench's socket path), one
# unrelated. kbench bisect must name the delay commit, skip the broken one,
# write the report and leave the tree reset. Then good..good-ish (two
# commits that differ in a comment only) must refuse to bisect (exit 1).
. "$(dirname "$0")/../lib.sh"
need_tool qemu-system-x86_64 "the guest"
need_tool git "the scratch kernel history"
# the variant built once: fetches and unpacks linux-source-6.12 on a fresh
# machine, warms ccache and the object directory the steps rebuild in
"$KB" build rt-adaptive-test >"$tmp/build" 2>&1 || { tail -20 "$tmp/build"; bad "kbench build rt-adaptive-test"; finish; }
cache=${KBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kbench}
src=$(ls -d "$cache"/sources/linux-source-6.12_*/tree 2>/dev/null | head -1)
[ -n "$src" ] || { bad "no linux-source-6.12 tree in $cache/sources after kbench build"; finish; }

t=$(date +%s)
cp -al "$src" "$tmp/linux"
g() { git -C "$tmp/linux" -c user.name=kbench -c user.email=kbench@example.invalid "$@"; }
# the Debian tree ignores everything ("/*" in .gitignore): add -f
# edit FILE: replace the hard link by a copy first, so the cache stays pristine
own() { cp "$tmp/linux/$1" "$tmp/linux/$1.new" && mv "$tmp/linux/$1.new" "$tmp/linux/$1"; }
g init -q && g add -f -A . && g commit -q -m "linux-source-6.12 as cached" || { bad "scratch repository"; finish; }
echo "scratch repository: $(( $(date +%s) - t )) s"
own README; echo "kbench bisect test" >>"$tmp/linux/README"
g commit -q -am "README: an unrelated change"
own Documentation/admin-guide/README.rst; echo "" >>"$tmp/linux/Documentation/admin-guide/README.rst"
g commit -q -am "docs: another unrelated change"
own kernel/sys.c; echo "int kbench_broken = ;" >>"$tmp/linux/kernel/sys.c"
g commit -q -am "kernel/sys.c: does not build"
g revert --no-edit HEAD >/dev/null
own net/unix/af_unix.c
sed -i 's|^#include <linux/module.h>$|#include <linux/module.h>\n#include <linux/delay.h>|; /^static int unix_stream_sendmsg(struct socket \*sock, struct msghdr \*msg,$/,/^{$/ s|^{$|{\n\tudelay(100); /* kbench bisect test: the injected slowdown */|' "$tmp/linux/net/unix/af_unix.c"
grep -q "udelay(100)" "$tmp/linux/net/unix/af_unix.c" || { bad "the slowdown was not injected"; finish; }
g commit -q -am "af_unix: slow down stream sendmsg"
culprit=$(g rev-parse HEAD)
own MAINTAINERS; echo "" >>"$tmp/linux/MAINTAINERS"
g commit -q -am "MAINTAINERS: an unrelated change"
g log --oneline | head -7

cat >"$tmp/suite.ini" <<'INI'
[suite]
name = bisect-test
iterations = 3
warmup = 0
[hackbench]
groups = 1
loops = 50
transport = socket
mode = process
INI
t=$(date +%s)
expect_exit 0 "$KB" bisect --tree "$tmp/linux" --good HEAD~6 --bad HEAD --variant rt-adaptive-test \
	--suite "$tmp/suite.ini" --metric hackbench.time --threshold 20% --iterations 3 \
	--max-iterations 6 --id synth --reports "$tmp/r"
cat "$tmp/out"
echo "bisection: $(( $(date +%s) - t )) s"
/usr/bin/python3 - "$tmp/r/bisect/synth/bisect.json" "$culprit" <<'PY' && ok "culprit named, broken commit skipped" || bad "bisect.json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["first_bad"]["commit"] == sys.argv[2], d.get("first_bad")
assert "slow down" in d["first_bad"]["subject"] and "af_unix.c" in d["first_bad"]["diffstat"]
v = {s.get("subject"): s["verdict"] for s in d["steps"]}
print("steps:", v)
assert any(s["verdict"] == "skip" and "build" in s["reason"] for s in d["steps"]), "no skipped build"
for s in d["steps"]:
    if s["verdict"] in ("good", "bad") and s.get("role") != "good":
        assert s["p"] is not None and s["ci_lo"] is not None, s
print("kbench runs (builds + boots): %d, minutes: %.1f" % (d["runs_started"], d["minutes"]))
PY
for f in bisect.md bisect.svg bisect.log state.json; do
	[ -s "$tmp/r/bisect/synth/$f" ] && ok "$f written" || bad "$f missing"
done
[ -z "$(g status --porcelain --untracked-files=no)" ] && [ "$(g rev-parse HEAD)" = "$(g rev-parse main 2>/dev/null || g rev-parse master)" ] &&
	! g bisect log >/dev/null 2>&1 && ok "tree reset and clean" || bad "tree not reset"

# resume: every step recorded, nothing rebuilt or remeasured
n=$(ls "$tmp/r/runs" | wc -l)
rm "$tmp/r/bisect/synth/bisect.json"
expect_exit 0 "$KB" bisect --resume synth --reports "$tmp/r"
[ "$(ls "$tmp/r/runs" | wc -l)" = "$n" ] && ok "resume reran nothing" || bad "resume measured again"

# no difference: two unrelated commits must not be bisected
expect_exit 1 "$KB" bisect --tree "$tmp/linux" --good HEAD~6 --bad HEAD~4 --variant rt-adaptive-test \
	--suite "$tmp/suite.ini" --metric hackbench.time --threshold 20% --iterations 3 \
	--max-iterations 3 --id same --reports "$tmp/r"
expect_out "refusing to bisect"
finish
