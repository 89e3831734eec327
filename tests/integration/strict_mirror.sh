#!/bin/sh
# lane: beside
# With Debian's mirror out of reach (a bad KBENCH_MIRROR, an empty cache)
# and CI set, `make test` fails and says why; a local run skips with the
# reason. Runs tests/run.sh on compare.sh, the first QEMU test to fetch a
# kernel, which stops at its fetch step (about 10 s; no VM boots).
. "$(dirname "$0")/../lib.sh"
need_tool apt-get "kbench fetch resolves packages with apt"
blocked() {
	env KBENCH_CACHE="$tmp/cache" KBENCH_MIRROR=http://127.0.0.1:9/nowhere TEST_LOG_DIR="$tmp/logs" \
		TESTS_FILTER=compare "$@" sh "$top/tests/run.sh"
}
expect_exit 1 blocked env CI=true
expect_out "FAIL: cannot fetch mainline-stock (no mirror?) (strict: CI or KBENCH_TEST_STRICT=1 is set"
expect_out "^failed: integration/compare"
expect_out "^test: 0 passed, 1 failed, 0 skipped"
expect_exit 0 blocked env -u CI -u KBENCH_TEST_STRICT
expect_out "SKIP: cannot fetch mainline-stock (no mirror?)"
expect_out "^test: 0 passed, 0 failed, 1 skipped"
finish
