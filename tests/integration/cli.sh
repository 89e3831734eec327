#!/bin/sh
# lane: beside
# Bad input: clear message, exit 2, and earlier results untouched.
. "$(dirname "$0")/../lib.sh"
export KBENCH_CACHE="$tmp/cache"

expect_exit 0 "$KB" --help
expect_out "usage: kbench"
expect_exit 2 "$KB" frobnicate
expect_out "unknown command 'frobnicate'"
expect_exit 2 "$KB" run --kernel no-such-kernel --reports "$tmp/r"
expect_out "unknown kernel variant 'no-such-kernel' (known variants: .*rt-stock"
expect_exit 2 "$KB" run --kernel rt-stock --suite no-such-suite --reports "$tmp/r"
expect_out "known suites: .*smoke"
expect_exit 2 "$KB" run --iterations 0
expect_out "expects an integer in 1..1000"
expect_exit 2 "$KB" run --accel warp
expect_out "auto, kvm or tcg"

# malformed suites: file, line, what was expected
printf '[suite]\nname = bad\n[hackbench]\nloop = 3\n' >"$tmp/s1.ini"
expect_exit 2 "$KB" run --suite "$tmp/s1.ini" --reports "$tmp/r"
expect_out "s1.ini' line 4: unknown key 'loop' in \[hackbench\] (known: groups"
printf '[suite]\nname = bad\n[hackbench]\ngroups = 100000\n' >"$tmp/s2.ini"
expect_exit 2 "$KB" run --suite "$tmp/s2.ini" --reports "$tmp/r"
expect_out "s2.ini' line 4: 'groups' must be in 1..1000, got 100000"
printf '[suite]\nname = bad\n[hackbench]\ntransport = carrier-pigeon\n' >"$tmp/s3.ini"
expect_exit 2 "$KB" run --suite "$tmp/s3.ini" --reports "$tmp/r"
expect_out "line 4: 'transport' must be one of socket, pipe, got 'carrier-pigeon'"
printf '[suite]\nname = bad\nthis is not ini\n' >"$tmp/s4.ini"
expect_exit 2 "$KB" run --suite "$tmp/s4.ini" --reports "$tmp/r"
expect_out "s4.ini' line 3: "
printf '[suite]\nname = bad\n[warp-drive]\nspeed = 9\n' >"$tmp/s5.ini"
expect_exit 2 "$KB" run --suite "$tmp/s5.ini" --reports "$tmp/r"
expect_out "line 3: unknown workload \[warp-drive\]"
printf '[suite]\nname = bad\n[hackbench]\n[warp-drive]\n' >"$tmp/s7.ini"
expect_exit 2 "$KB" run --suite "$tmp/s7.ini" --reports "$tmp/r"
expect_out "s7.ini' line 4: unknown workload \[warp-drive\]"
printf '[suite]\nname = bad\niterations = many\n[hackbench]\n' >"$tmp/s6.ini"
expect_exit 2 "$KB" run --suite "$tmp/s6.ini" --reports "$tmp/r"
expect_out "line 3: expected an integer for 'iterations', got 'many'"
# a line inih would split in two ("iterations = 7" hidden at its end)
long=$(printf '%0185d' 0)
printf '[suite]\nname = bad\ndescription = %siterations = 7\n[hackbench]\n' "$long" >"$tmp/s8.ini"
expect_exit 2 "$KB" run --suite "$tmp/s8.ini" --reports "$tmp/r"
expect_out "s8.ini' line 3: longer than 198 characters"

# malformed variant
printf '[variant]\nname = x\nsource = floppy\n' >"$tmp/v1.ini"
expect_exit 2 "$KB" run --kernel "$tmp/v1.ini" --reports "$tmp/r"
expect_out "v1.ini' line 3: 'source' must be one of debian-image"
printf '[variant]\nname = x\ncmdline = %spatches = evil.patch\n' "$long" >"$tmp/v2.ini"
expect_exit 2 "$KB" run --kernel "$tmp/v2.ini" --reports "$tmp/r"
expect_out "v2.ini' line 3: longer than 198 characters"

# nothing was written for any of the bad runs
if [ -e "$tmp/r" ] && [ -n "$(ls -A "$tmp/r" 2>/dev/null)" ]; then bad "bad input wrote results"; else ok "no results written"; fi

# results files: corrupt, truncated, wrong schema
printf '{"schema": "kbench-results", "schema_version": 1,\n "run_id": ' >"$tmp/trunc.json"
expect_exit 2 "$KB" validate "$tmp/trunc.json"
expect_out "trunc.json' line 2: not valid JSON"
printf '{"schema": "something-else"}\n' >"$tmp/other.json"
expect_exit 2 "$KB" validate "$tmp/other.json"
expect_out "not a kbench results file"
printf '{"schema": "kbench-results", "schema_version": 99}\n' >"$tmp/future.json"
expect_exit 2 "$KB" validate "$tmp/future.json"
expect_out "schema version 99, this kbench reads 1"
printf '{"schema": "kbench-results"}\n{"schema": "kbench-results"}\n' >"$tmp/two.json"
expect_exit 2 "$KB" validate "$tmp/two.json"
expect_out "two.json' line 2: data after the JSON document"
# ids name directories: plain names only, wherever they come from
expect_exit 2 "$KB" run --run-id ../escape --reports "$tmp/r"
expect_out "run-id '../escape' must be 1 to 127 letters, digits"
expect_exit 2 "$KB" campaign --kernels rt-stock --suite smoke --id ../escape --reports "$tmp/r"
expect_out "id '../escape' must be 1 to 127 letters"
expect_exit 2 "$KB" nightly --night ../escape --history "$tmp/h.sqlite" --reports "$tmp/r"
expect_out "night '../escape' must be 1 to 127 letters"
[ ! -e "$tmp/escape" ] && ok "nothing written outside" || bad "an id escaped its directory"
# --backend NAME on run, campaign and nightly (and make bench BACKEND=)
for c in run campaign nightly; do
	expect_exit 0 "$KB" $c --backend qemu --help
	"$KB" $c --help | grep -q -- "--backend" && ok "$c --help names --backend" || bad "$c --help: no --backend"
done
# an unknown backend is refused at once (exit 2), before any variant is
# fetched, built or booted and before anything is written: the nightly
# used to fail per variant and go on to build rt-upstream from source
for c in run campaign nightly overhead; do
	expect_exit 2 timeout 60 "$KB" $c --backend nosuch --reports "$tmp/nb-$c"
	expect_out "no backend called 'nosuch' (known: qemu"
	[ ! -e "$tmp/nb-$c" ] && ok "$c --backend nosuch wrote nothing" || bad "$c --backend nosuch wrote $tmp/nb-$c"
done
make -n -C "$top" bench KERNEL=k SUITE=s BACKEND=fake | grep -q -- "--backend 'fake'" &&
	ok "make bench BACKEND= passes --backend" || bad "make bench BACKEND="
finish
