#!/bin/sh
# lane: beside
# Golden outputs of the comparison commands: `kbench compare`, `kbench
# report` and `kbench regress` run on the stored runs in
# tests/fixtures/golden/ (nothing boots, under a second) must write exactly
# what is in tests/fixtures/golden/expected/: comparison.json, report.html,
# the JUnit and Markdown files, stdout, stderr and the exit status. It pins
# today's behaviour so that a refactor can show it changed nothing; any
# difference fails with a diff.
#
# The commands, run in a copy of the inputs (relative paths, so the paths
# they print and record are the same everywhere):
#   kbench compare runs --baseline mainline-stock --out compare
#   kbench report campaign --seed 11 --resamples 2000
#   kbench regress --baseline runs/<mainline x2> --current runs/<rt x2>
#          --threshold kbuild.elapsed=10% --max-cv kbuild.sys=20%
#          --junit regress/regress.xml --markdown regress/regress.md
# The bootstrap is seeded (compare and regress: the default seed 2008,
# which comparison.json, the report and the JUnit file record, so a change
# of the default fails too; report: --seed 11), so the numbers are
# deterministic.
#
# Normalised before comparing, because they change legitimately between
# builds and runs, and nothing else (the rest is compared byte for byte):
#   comparison.json  "created" (the time of the run) and the top-level
#                    "kbench" {"version", "commit"} (this build's VERSION
#                    and git commit; the inputs' own kbench version and
#                    commit are data and stay)
#   report.html      the creation time in the page's subtitle
#                    ("&#183; 2026-12-04 11:53 UTC</p>")
#   regress.xml      the testsuite's timestamp="..."
# Each becomes a placeholder (CREATED, VERSION, COMMIT); the patterns only
# match a value of the expected shape, so a change of format still fails.
#
# GOLDEN_UPDATE=1 sh tests/integration/golden.sh rewrites expected/ from
# what this kbench writes. That is only legitimate when the behaviour was
# meant to change (a new field, a fixed bug, new inputs): say so in the
# commit and review the diff of expected/. Never to make a refactor pass:
# a refactor that changes these files changed behaviour. Refused in CI.
. "$(dirname "$0")/../lib.sh"
G="$top/tests/fixtures/golden"
E="$G/expected"
# strict runs (CI) must not skip (lib.sh's skip fails there) or update
[ -x "$KB" ] || skip "kbench not built (make all, or make test builds it)"
if [ -n "${GOLDEN_UPDATE:-}" ] && [ -n "${CI:-}" ]; then
	echo "FAIL: GOLDEN_UPDATE is set in CI: expected outputs are updated by hand, reviewed"
	exit 1
fi

w="$tmp/w"
mkdir -p "$w" "$tmp/got"
cp -R "$G/runs" "$G/campaign" "$w/" || { echo "FAIL: cannot copy the inputs"; exit 1; }

# run NAME CMD...: run in the copy, keep stdout, stderr and the exit status
run() {
	name=$1; shift
	mkdir -p "$tmp/got/$name"
	(cd "$w" && "$@") >"$tmp/got/$name/stdout.txt" 2>"$tmp/got/$name/stderr.txt"
	echo "$name $?" >>"$tmp/got/exit-status.txt"
}
run compare "$KB" compare runs --baseline mainline-stock --out compare
run report "$KB" report campaign --seed 11 --resamples 2000
mkdir -p "$w/regress"
run regress "$KB" regress \
	--baseline runs/20261203T080000Z-mainline-stock-quick \
	--baseline runs/20261204T080000Z-mainline-stock-quick/results.json \
	--current runs/20261203T100000Z-rt-quick --current runs/20261204T100000Z-rt-quick \
	--threshold kbuild.elapsed=10% --max-cv kbuild.sys=20% \
	--junit regress/regress.xml --markdown regress/regress.md

# the normalisation described above
TS='[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]'
norm_json() {
	sed -e "s/^  \"created\": \"${TS}T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z\",\$/  \"created\": \"CREATED\",/" \
	    -e '/^  "kbench": {$/,/^  },$/{
s/^    "version": "[^"]\{1,\}",$/    "version": "VERSION",/
s/^    "commit": "[^"]\{1,\}"$/    "commit": "COMMIT"/
}' "$1"
}
norm_html() {
	sed "s/ &#183; ${TS} [0-9][0-9]:[0-9][0-9] UTC<\/p>/ \&#183; CREATED UTC<\/p>/" "$1"
}
norm_xml() {
	sed "s/ timestamp=\"${TS}T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\"/ timestamp=\"CREATED\"/" "$1"
}
for f in compare/comparison.json compare/report.html campaign/comparison.json campaign/report.html \
	regress/regress.xml regress/regress.md; do
	d=${f%%/*}
	[ "$d" = campaign ] && d=report
	out="$tmp/got/$d/${f##*/}"
	if [ ! -f "$w/$f" ]; then
		bad "$f was not written"
		continue
	fi
	case $f in
	*.json) norm_json "$w/$f" >"$out" ;;
	*.html) norm_html "$w/$f" >"$out" ;;
	*.xml) norm_xml "$w/$f" >"$out" ;;
	*) cp "$w/$f" "$out" ;;
	esac
done

if [ -n "${GOLDEN_UPDATE:-}" ]; then
	rm -rf "$E"
	cp -R "$tmp/got" "$E" || { echo "FAIL: cannot write $E"; exit 1; }
	echo "GOLDEN_UPDATE: rewrote $E from this kbench ($(cd "$E" && find . -type f | wc -l) files)."
	echo "Only legitimate for an intended change of behaviour: review 'git diff -- $E' and say why in the commit."
	exit 0
fi
[ -d "$E" ] || { echo "FAIL: $E missing (GOLDEN_UPDATE=1 creates it)"; exit 1; }

# byte for byte; on a difference a readable diff (report.html is one long
# line: its diff is shown with a line break between tags, the comparison
# itself is of the bytes)
split_tags() { sed 's/></>\
</g' "$1"; }
exp_files=$(cd "$E" && find . -type f | sort)
got_files=$(cd "$tmp/got" && find . -type f | sort)
if [ "$exp_files" != "$got_files" ]; then
	bad "other files than expected"
	echo "$exp_files" >"$tmp/exp.list"
	echo "$got_files" >"$tmp/got.list"
	diff -u "$tmp/exp.list" "$tmp/got.list" | sed 's/^/| /'
fi
for f in $exp_files; do
	f=${f#./}
	[ -f "$tmp/got/$f" ] || continue
	if cmp -s "$E/$f" "$tmp/got/$f"; then
		ok "$f"
		continue
	fi
	bad "$f differs from tests/fixtures/golden/expected/$f (first 80 lines of the diff):"
	case $f in
	*.html)
		split_tags "$E/$f" >"$tmp/exp.split"
		split_tags "$tmp/got/$f" >"$tmp/got.split"
		if cmp -s "$tmp/exp.split" "$tmp/got.split"; then
			cmp "$E/$f" "$tmp/got/$f" # they differ only in line breaks
		else
			diff -u --label "expected/$f" --label "got/$f" "$tmp/exp.split" "$tmp/got.split" | head -80
		fi ;;
	*)
		diff -u --label "expected/$f" --label "got/$f" "$E/$f" "$tmp/got/$f" | head -80 ;;
	esac
done
[ "$fails" = 0 ] || echo "If the change is intended: GOLDEN_UPDATE=1 sh tests/integration/golden.sh, review, and say why in the commit."
finish
