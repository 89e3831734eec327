#!/bin/sh
# lane: beside
# A real campaign of mainline-stock, an A/A copy of it and rt-stock
# (smoke suite, 2 rounds, booted under QEMU here): the interleaved order,
# the summary table,
# comparison.json, `kbench compare` of the stored runs, `kbench report`,
# `kbench regress` with its JUnit file checked against the schema, mixed
# and corrupt inputs refused; then render report.html in headless
# Chromium, check the screenshot is not blank and that the page asks for
# nothing from any network. The screenshot is kept in the test log
# directory (compare-report.png). The A/A check: mainline-aa is
# mainline-stock under another name (a variant file in the temp dir, given
# to --kernels as a file), so kbench regress of the two must not call a
# regression.
. "$(dirname "$0")/../lib.sh"
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 missing (make deps)"
py=/usr/bin/python3
[ -x "$py" ] || skip "python3 missing"
for v in mainline-stock rt-stock; do
	"$KB" fetch "$v" >"$tmp/fetch-$v" 2>&1 || { cat "$tmp/fetch-$v"; skip "cannot fetch $v (no mirror?)"; }
done
logdir=${TEST_LOG_DIR:-$top/build/test-logs}
mkdir -p "$logdir"
# the smoke suite without its kernel compile (smoke_stock.sh covers
# that): this test is about the comparison, and CI time is finite
awk '/^\[/ { skip = ($0 == "[kbuild]") } !skip' "$top/configs/suites/smoke.ini" >"$tmp/smoke.ini"

# the A/A variant: the same kernel (same package, same cached image) and
# command line as mainline-stock under another name
aa="$tmp/mainline-aa.ini"
sed 's/^name = mainline-stock$/name = mainline-aa/' "$top/kernels/mainline-stock.ini" >"$aa"
grep -q '^name = mainline-aa$' "$aa" && ok "A/A variant file" || bad "A/A variant file not renamed"

# a real campaign: 2 rounds, interleaved, seeded
d="$tmp/r/compare/camp"
# (run in $tmp: a name ending in .ini is a file, and its run ids
# r01-mainline-aa.ini ... stay short)
cd "$tmp" || exit 1
expect_exit 0 "$KB" campaign --kernels "mainline-stock mainline-aa.ini rt-stock" --suite "$tmp/smoke.ini" \
	--iterations 2 --seed 5 --reports "$tmp/r" --id camp
cd "$top" || exit 1
cat "$tmp/out"
expect_out "kbench campaign camp: 3 variants, suite smoke, 2 rounds, seed 5"
expect_out "kbench compare: suite smoke"
expect_out "mainline-stock \[baseline\] (2 iterations)"
expect_out " mainline-aa (2 iterations)"
expect_out " rt-stock (2 iterations)"
expect_out "^hackbench time  *s "
expect_out "^dbench throughput  *MB/s "
expect_out "cyclictest.load: histogram merged"
$py - "$d/campaign.json" <<'EOF' && ok "campaign.json: interleaved, seeded, recorded" || bad "campaign.json"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["schema"] == "kbench-campaign" and c["seed"] == 5 and c["status"] == "complete"
assert c["variants"] == ["mainline-stock", "mainline-aa.ini", "rt-stock"], c["variants"]
assert len(c["order"]) == 2 and all(sorted(o) == sorted(c["variants"]) for o in c["order"])
rounds = [r["round"] for r in c["runs"]]
assert rounds == sorted(rounds) == [1, 1, 1, 2, 2, 2], rounds   # round i of all before i+1 of any
assert [r["variant"] for r in c["runs"]] == c["order"][0] + c["order"][1]
assert all(r["exit"] == 0 for r in c["runs"])
EOF
[ -s "$d/report.html" ] && [ -s "$d/comparison.json" ] && ok "campaign wrote the report" || bad "no report"
# the report shows comparison.json's figures (check_report.sh: its negative controls)
$py "$top/tests/integration/check_report.py" "$d/report.html" "$d/comparison.json" &&
	ok "report.html agrees with comparison.json" || bad "report.html differs from comparison.json"
# the campaign's runs are recorded in the history
expect_exit 0 env KBENCH_HISTORY="$tmp/r/history.sqlite" "$KB" history --suite smoke
expect_out "^6 runs"

# A/A: the same kernel as two variants; at the default threshold regress
# must not call a regression. Exit 0 (nothing worse) or 3 (nothing worse,
# some metric undecided: 2 values a side under TCG can be too noisy) are
# both "no call"; 1 (a regression called) is the failure, 2 an error.
"$KB" regress --baseline "$d/runs/r01-mainline-stock" --baseline "$d/runs/r02-mainline-stock" \
	--current "$d/runs/r01-mainline-aa.ini" --current "$d/runs/r02-mainline-aa.ini" >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
case $rc in
0|3) ok "A/A: regress calls no regression (exit $rc)" ;;
1) bad "A/A: regress called a regression of a kernel against itself" ;;
*) bad "A/A: regress exit $rc" ;;
esac

# compare stored runs (files and run directories; runs of a variant pooled)
expect_exit 0 "$KB" compare "$d/runs/r01-mainline-stock" "$d/runs/r02-mainline-stock/results.json" \
	"$d/runs/r01-rt-stock" "$d/runs/r02-rt-stock" --out "$tmp/cmp"
expect_out "guests ran under TCG" # smoke tests run under TCG here; harmless under KVM
$py - "$tmp/cmp/comparison.json" <<'EOF' && ok "comparison.json well formed" || bad "comparison.json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "kbench-comparison" and d["schema_version"] == 1, "envelope"
assert [v["name"] for v in d["variants"]] == ["mainline-stock", "rt-stock"], "variants"
assert d["baseline"] == "mainline-stock"
names = {(m["label"], m["metric"]) for m in d["metrics"]}
for need in [("hackbench", "time"), ("dbench", "throughput"), ("cyclictest", "lat_p99_99"),
             ("cyclictest.load", "lat_max")]:
    assert need in names, need
for m in d["metrics"]:
    rt = m["variants"]["rt-stock"]
    assert rt["n"] == 2, (m["metric"], rt["n"])
    assert rt["vs_baseline"]["verdict"] in ("same", "better", "worse", "missing", "undecided")
lat = {l["label"]: l for l in d["latency"]}
h = lat["cyclictest"]["variants"]["rt-stock"]
assert h["histograms"] == 4, h["histograms"]
assert h["samples"] == sum(h["counts"]) + h["overflows"], "overflows counted"
assert h["max"] >= h["p99_99"] >= h["p50"]
assert d["settings"]["bootstrap_seed"] == 2008
EOF

# report DIR: rebuild the campaign's report with another baseline
expect_exit 0 "$KB" report "$d" --baseline rt-stock
grep -q '"baseline": "rt-stock"' "$d/comparison.json" && ok "report honours --baseline" ||
	bad "baseline not rt-stock"

# regress: a real pair is never a harness error; the JUnit file validates
"$KB" regress --baseline "$d/runs/r01-mainline-stock" --baseline "$d/runs/r02-mainline-stock" \
	--current "$d/runs/r01-rt-stock" --current "$d/runs/r02-rt-stock" >"$tmp/out" 2>&1
rc=$?
case $rc in 0|1|3) ok "regress exit $rc" ;; *) bad "regress exit $rc"; cat "$tmp/out" ;; esac
[ -s "$d/runs/r01-rt-stock/regress.xml" ] && [ -s "$d/runs/r01-rt-stock/regress.md" ] &&
	ok "regress.xml and regress.md beside the current run" || bad "regress outputs missing"
if command -v xmllint >/dev/null; then
	xmllint --noout --schema "$top/tests/fixtures/junit/junit.xsd" "$d/runs/r01-rt-stock/regress.xml" &&
		ok "JUnit valid" || bad "JUnit invalid"
else
	bad "xmllint missing: JUnit not validated (make test installs libxml2-utils)"
fi

# bad input: a corrupt file and a different suite
head -c 3000 "$d/runs/r01-rt-stock/results.json" >"$tmp/cut.json"
expect_exit 2 "$KB" compare "$d/runs/r01-mainline-stock" "$tmp/cut.json"
expect_out "cut.json' line [0-9]*: not valid JSON"
$py - "$d/runs/r01-rt-stock/results.json" "$tmp/other.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["suite"]["name"] = "quick"
json.dump(d, open(sys.argv[2], "w"))
EOF
expect_exit 2 "$KB" compare "$d/runs/r01-mainline-stock" "$tmp/other.json"
expect_out "other.json': suite name 'quick' differs from 'smoke'"
expect_exit 0 "$KB" compare "$d/runs/r01-mainline-stock" "$tmp/other.json" --force
expect_out "mixed inputs (--force)"

# the page asks for nothing from anywhere
html="$d/report.html"
if grep -Eio '(src|href)[[:space:]]*=[[:space:]]*"[^"]*"|url\([^)]*\)' "$html" | grep -Eiq 'https?:|//'; then
	bad "report.html references something external"
else
	ok "no external reference in src, href or url()"
fi
grep -qi '<script' "$html" && bad "report.html has a script" || ok "no script"
grep -q '<svg' "$html" && ok "SVG charts" || bad "no SVG"

# render it in headless Chromium
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$chrome" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	echo "installing chromium (apt-get install chromium)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y chromium >"$tmp/apt.log" 2>&1 || tail -5 "$tmp/apt.log"
	chrome=$(command -v chromium || true)
fi
if [ -z "$chrome" ]; then
	[ "$fails" = 0 ] || finish
	skip "chromium cannot be had: the report was not rendered (everything else passed)"
fi
shot="$logdir/compare-report.png"
rm -f "$shot"
timeout 180 "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$(mktemp -d "$tmp/chrome.XXXXXX")" --screenshot="$shot" \
	--window-size=1280,4000 "file://$html" >"$tmp/chrome.log" 2>&1
[ -s "$shot" ] && ok "screenshot $shot" || { bad "no screenshot"; tail -20 "$tmp/chrome.log"; }
if [ -s "$shot" ]; then
	if $py -c 'import PIL' 2>/dev/null; then
		$py - "$shot" <<'EOF' && ok "screenshot is not blank" || bad "screenshot blank"
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
colours = im.getcolors(1 << 24)
bg = max(colours)[1]
busy = sum(n for n, c in colours if c != bg) / (im.width * im.height)
print(f"{len(colours)} colours, {busy:.0%} of pixels not background")
assert len(colours) > 200 and busy > 0.10
EOF
	elif command -v convert >/dev/null; then
		n=$(convert "$shot" -format %k info:)
		echo "$n colours"
		[ "$n" -gt 200 ] && ok "screenshot is not blank" || bad "screenshot blank ($n colours)"
	else
		bad "neither python3-pil nor imagemagick: screenshot colours not counted (make test installs python3-pil)"
	fi
fi
finish
