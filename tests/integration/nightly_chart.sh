#!/bin/sh
# lane: beside
# The trend charts of a long history (docs/nightly.md, "Trend charts"),
# rendered in headless Chromium: build/nightly-bench-seed writes 2 hosts x
# 4 variants x 450 nights (nothing boots) with an 8% step in rt's
# hackbench time from night 380 on (its verdicts "regressed" for 30
# nights), a person accepts it at night 410; kbench history trends --html
# draws a section per host. The page must be self-contained, the charts
# must carry the whole history, the change point, the regressed span and
# the accept (with who and why); the screenshot must not be blank, the
# series must span the page's width, and the shading and the accept mark
# must be visible.
. "$(dirname "$0")/../lib.sh"
SEED="$top/build/nightly-bench-seed"
py=/usr/bin/python3
logdir=${TEST_LOG_DIR:-$top/build/test-logs}
mkdir -p "$logdir"
[ -x "$SEED" ] || skip "build/nightly-bench-seed missing (make test builds it)"
need_tool chromium "the charts are rendered in headless Chromium"
$py -c 'import PIL' 2>/dev/null || skip "python3-pil missing: the screenshot is not measured (make test installs it)"
export KBENCH_HISTORY="$tmp/history.sqlite"
expect_exit 0 "$SEED" "$KBENCH_HISTORY" 2 450 --step 380:8
expect_exit 0 "$KB" history accept h00-d0410 --variant rt --metric hackbench.time \
	--reason "rt lock rework: deliberate" --by alice
html="$tmp/trends.html"
expect_exit 0 "$KB" history trends --suite quick --html "$html"
expect_out "^host host01 ([0-9a-f]*):"
expect_out "^host host00 ([0-9a-f]*):"
expect_out "change point: rt hackbench time between nights h00-d0379 and h00-d0380"

# the page: self-contained, every night in each chart, the marks there
grep -Eio '(src|href)[[:space:]]*=[[:space:]]*"[^"]*"|url\([^)]*\)' "$html" | grep -Eiq 'https?:|//' &&
	bad "the page references something external" || ok "no external reference"
grep -qi '<script' "$html" && bad "the page has a script" || ok "no script"
n=$(grep -o 'id="trends-host0[01]"' "$html" | sort -u | wc -l)
[ "$n" = 2 ] && ok "a section per host" || bad "$n host sections (want 2)"
grep -q '<svg class="trend" data-points="450" data-changes="[0-9]*" style="width:100%;height:auto"' "$html" &&
	ok "charts as wide as the page, over all 450 nights" || bad "no full-width chart of 450 nights"
grep -q '<rect class="regressed"[^>]*><title>regressed from night h00-d0380 to h00-d0409' "$html" &&
	ok "the regressed span is shaded" || bad "no regressed span h00-d0380 .. h00-d0409"
grep -q '<title>accepted at night h00-d0410 by alice on [0-9-]* (rt, hackbench.time): rt lock rework: deliberate</title>' "$html" &&
	ok "the accept is marked with who and why" || bad "no accept mark with who and why"
grep -q '<line class="cp"[^>]*><title>change point before night h01-d0380' "$html" &&
	ok "the change point is marked" || bad "no change point mark"

shot="$logdir/nightly-chart.png"
rm -f "$shot"
timeout 180 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$(mktemp -d "$tmp/chrome.XXXXXX")" --screenshot="$shot" \
	--window-size=1400,1400 "file://$html" >"$tmp/chrome.log" 2>&1
[ -s "$shot" ] && ok "screenshot $shot" || { bad "no screenshot"; tail -20 "$tmp/chrome.log"; finish; }
if $py - "$shot" <<'PY'; then ok "the screenshot shows the charts across the page"; else bad "the screenshot (above)"; fi
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
W, H = im.size
px = im.load()
colours = im.getcolors(1 << 24)
bg = max(colours)[1]
busy = sum(n for n, c in colours if c != bg) / (W * H)
near = lambda c, t, d: all(abs(a - b) <= d for a, b in zip(c, t))
series = [x for x in range(W) if any(near(px[x, y], (0, 114, 178), 40) for y in range(0, H, 2))]
span = (series[-1] - series[0] + 1) / W if series else 0
# the regressed shading (#cf222e at 13% on white) and the accept (#1a7f37)
shade = sum(n for n, c in colours if near(c, (249, 226, 227), 8))
green = sum(n for n, c in colours if near(c, (26, 127, 55), 30))
print(f"{W}x{H}: {len(colours)} colours, {busy:.0%} not background; the series spans "
      f"{span:.0%} of the width (x {series[0] if series else '-'}..{series[-1] if series else '-'}); "
      f"{shade} shaded pixels, {green} accept-green pixels")
ok = len(colours) > 100 and busy > 0.05 and span > 0.85 and shade > 500 and green > 50
sys.exit(0 if ok else 1)
PY
finish
