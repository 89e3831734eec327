#!/bin/sh
# Run the libFuzzer targets built by `make fuzz-build` (build/fuzz/bin/).
#
#   run.sh fuzz SECONDS TARGET...   fuzz each target for SECONDS, one after
#                                   the other, one process (no -jobs)
#   run.sh regress 0 TARGET...      replay fuzz/corpus/T and
#                                   tests/fixtures/fuzz/T once through T
#   run.sh have-clang CC            exit 0 if CC links a libFuzzer target
#
# Seeds come from fuzz/corpus/T (kept in git, never written); inputs the
# fuzzer finds go to build/fuzz/T/corpus, crashes to build/fuzz/T/ (commit
# each as tests/fixtures/fuzz/T/NAME, after fixing the bug). Per target one
# line: executions, coverage (edges, features), corpus, and the verdict.
# Exit 1 if any target crashed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:?mode}
secs=${2:-60}

if [ "$mode" = have-clang ]; then
	# its CC is the second argument (was: shifted away, so always clang-14)
	cc=${2:-clang-14}
	command -v "$cc" >/dev/null 2>&1 || exit 1
	tmp=$(mktemp -d) || exit 1
	printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
		>"$tmp/t.c"
	"$cc" -fsanitize=fuzzer,address,undefined -o "$tmp/t" "$tmp/t.c" >/dev/null 2>&1
	rc=$?
	rm -rf "$tmp"
	exit $rc
fi
[ $# -ge 2 ] && shift 2

bad=0
for t in "$@"; do
	bin=$top/build/fuzz/bin/$t
	out=$top/build/fuzz/$t
	seeds=$top/fuzz/corpus/$t
	fixtures=$top/tests/fixtures/fuzz/$t
	dict=$top/fuzz/dict/$t.dict
	if [ ! -x "$bin" ]; then
		echo "fuzz $t: FAIL: no $bin (make fuzz-build)"
		bad=1
		continue
	fi
	mkdir -p "$out/corpus"
	log=$out/$mode.log
	dictarg=
	[ -f "$dict" ] && dictarg=-dict=$dict
	case $mode in
	fuzz)
		# new inputs land in the first directory, never in the seeds
		# shellcheck disable=SC2046
		"$bin" ${dictarg:+"$dictarg"} -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
			-print_final_stats=1 -close_fd_mask=2 -artifact_prefix="$out/" \
			"$out/corpus" "$seeds" $( [ -d "$fixtures" ] && echo "$fixtures" ) \
			>"$log" 2>&1
		rc=$?
		;;
	regress)
		files=$(find "$seeds" "$fixtures" -type f 2>/dev/null | sort)
		# shellcheck disable=SC2086
		"$bin" -timeout=10 -close_fd_mask=2 -artifact_prefix="$out/regress-" $files \
			>"$log" 2>&1
		rc=$?
		;;
	*)
		echo "run.sh: unknown mode '$mode'" >&2
		exit 2
		;;
	esac
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]* ft: [0-9]* corp: [0-9]*/[^ ]*' "$log" | tail -1)
	if [ "$mode" = regress ]; then
		n=$(grep -c '^Running: ' "$log")
		summary="$n inputs replayed"
	else
		summary="${execs:-?} executions, ${cov:-no coverage line}"
	fi
	if [ "$rc" != 0 ]; then
		bad=1
		art=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
		echo "fuzz $t: CRASH after $summary: ${art:-see $log}"
		grep -m1 -E '^(==[0-9]+==ERROR|SUMMARY|fuzz: .*contract)' "$log" | sed 's/^/    /'
	else
		echo "fuzz $t: ok: $summary (log $log)"
	fi
done
exit $bad
