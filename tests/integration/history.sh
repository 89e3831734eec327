#!/bin/sh
# lane: beside
# The history database without booting anything (synthetic results from
# build/synth-runs): import and filters, duplicates, a writer killed in the
# middle of a transaction (KBENCH_HISTORY_TEST_CRASH, and a real SIGKILL
# during a large import slowed by KBENCH_HISTORY_TEST_SLOW_MS, proven to
# have landed before its end) loses nothing committed and leaves the database
# intact, a frozen version 1 database is migrated keeping its runs, a
# database from a newer schema and a foreign one are refused.
. "$(dirname "$0")/../lib.sh"
S="$top/build/synth-runs"
[ -x "$S" ] || skip "build/synth-runs missing (make test builds it)"
command -v sqlite3 >/dev/null || skip "sqlite3 missing (make deps test... apt-get install sqlite3)"
db="$tmp/h.sqlite"
export KBENCH_HISTORY="$db"

for i in 1 2 3; do
	"$S" "$tmp/runs/rt-$i" rt "rt-$i" "$i" >/dev/null || bad "synth"
	"$S" "$tmp/runs/ml-$i" mainline "ml-$i" "1$i" >/dev/null || bad "synth"
done
expect_exit 0 "$KB" history import "$tmp/runs"
expect_out "6 runs added, 0 already there"
expect_exit 0 "$KB" history import "$tmp/runs/rt-1"
expect_out "0 runs added, 1 already there"
expect_exit 0 "$KB" history --variant rt
expect_out "^3 runs"
expect_exit 0 "$KB" history --metric hackbench.time --variant mainline
expect_out "^3 runs"
grep -Eq '^2026-12-03T08:00:00Z +testhost +mainline .* [0-9.]+ [0-9.]+ [0-9.]+ [0-9.]+ [0-9.]+ s$' "$tmp/out" &&
	ok "--metric prints every iteration's value" || { bad "metric values"; cat "$tmp/out"; }
expect_exit 0 "$KB" history --since 2030-01-01
expect_out "^0 runs"
expect_exit 0 "$KB" history --metric nosuchmetric
expect_out "^0 runs"
n=$(sqlite3 "$db" "SELECT count(*) FROM samples")
[ "$n" = 120 ] && ok "120 samples (6 runs x 5 iterations x 4 metrics)" || bad "samples: $n"
[ "$(sqlite3 "$db" 'PRAGMA user_version')" = 3 ] && ok "schema version 3" || bad "user_version"

# killed mid-transaction after its 50th sample: the run being written is
# gone, the committed ones are whole
for i in 1 2 3 4 5 6 7 8; do "$S" "$tmp/more/x-$i" rt "x-$i" "2$i" >/dev/null; done
KBENCH_HISTORY_TEST_CRASH=50 "$KB" history import "$tmp/more" >"$tmp/out" 2>&1
rc=$?
[ "$rc" = 137 ] && ok "the writer died of SIGKILL mid-write" || { bad "crash hook exit $rc"; cat "$tmp/out"; }
grep -q "killing myself mid-write" "$tmp/out" && ok "crash hook fired" || bad "crash hook silent"
expect_exit 0 "$KB" history check
expect_out "intact"
runs=$(sqlite3 "$db" "SELECT count(*) FROM runs")
samples=$(sqlite3 "$db" "SELECT count(*) FROM samples")
orphans=$(sqlite3 "$db" "SELECT count(*) FROM runs r WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.run = r.id)")
# 50 samples = 2 whole runs (20 each) committed, the third killed at its 10th
[ "$runs" = 8 ] && [ "$samples" = 160 ] && [ "$orphans" = 0 ] &&
	ok "after the crash: 8 whole runs, 160 samples, no half-written run" ||
	bad "after the crash: $runs runs, $samples samples, $orphans without document"
expect_exit 0 "$KB" history import "$tmp/more"
expect_out "6 runs added, 2 already there"

# a real SIGKILL in the middle of a large import: each run's transaction
# waits 20 ms before its COMMIT (KBENCH_HISTORY_TEST_SLOW_MS; unslowed, the
# 150 runs took 0.3 s and were all in before the kill came), so the import
# takes 3 s or more and the kill, sent at its first commit, lands inside it.
# Proof that it did: the importer died of SIGKILL (137, not 0: it had not
# finished), it never printed its count, and part of the runs are in.
for i in $(seq 1 150); do "$S" "$tmp/big/b-$i" rt "b-$i" "3$i" --iterations 20 >/dev/null; done
before=$(sqlite3 "$db" "SELECT count(*) FROM runs")
KBENCH_HISTORY_TEST_SLOW_MS=20 "$KB" history import "$tmp/big" >"$tmp/big.log" 2>&1 &
pid=$!
# wait until it has committed something, then kill it
k=0
while [ "$k" -lt 200 ]; do
	now=$(sqlite3 "$db" "SELECT count(*) FROM runs" 2>/dev/null || echo 0)
	[ "${now:-0}" -gt "$before" ] && break
	sleep 0.05; k=$((k + 1))
done
kill -9 "$pid"
wait "$pid" 2>/dev/null
rc=$?
[ "$rc" = 137 ] && ok "the import died of the SIGKILL (exit 137)" ||
	{ bad "the killed import exited $rc (137 is SIGKILL's; 0: it finished before the kill)"; cat "$tmp/big.log"; }
grep -q "already there" "$tmp/big.log" && bad "the killed import printed its count: it had finished" ||
	ok "the killed import never got to its count"
expect_exit 0 "$KB" history check
expect_out "intact"
after=$(sqlite3 "$db" "SELECT count(*) FROM runs")
whole=$(sqlite3 "$db" "SELECT count(*) FROM runs r WHERE (SELECT count(*) FROM samples s WHERE s.run = r.id) = 80")
echo "large import killed with $((after - before)) of 150 runs committed"
[ "$((after - before))" -ge 1 ] && [ "$((after - before))" -lt 150 ] &&
	ok "killed mid-import: $((after - before)) of 150 runs committed" ||
	bad "not killed mid-import: $((after - before)) of 150 runs committed"
[ "$whole" = "$((after - before))" ] && ok "every committed run of the killed import is whole" ||
	bad "$whole whole runs of $((after - before))"

# a frozen version 1 database (tests/fixtures/history/history-v1.sqlite,
# made once from the v1 DDL, not by today's code) is migrated on a copy,
# keeping its runs and their samples; the fixture itself is never touched
v1="$top/tests/fixtures/history/history-v1.sqlite"
sum_before=$(sha256sum <"$v1")
[ "$(sqlite3 "$v1" 'PRAGMA user_version')" = 1 ] && ok "the fixture is schema version 1" || bad "fixture version"
cp "$v1" "$tmp/v1.sqlite"
expect_exit 0 env KBENCH_HISTORY="$tmp/v1.sqlite" "$KB" history
expect_out "migrated to schema version 2"
expect_out "^4 runs"
expect_out "run 20261202T012000Z-rt-stock-quick, failed"
expect_exit 0 env KBENCH_HISTORY="$tmp/v1.sqlite" "$KB" history --metric hackbench.time --variant rt-stock
expect_out "2\.262 2\.273 s"
expect_exit 0 env KBENCH_HISTORY="$tmp/v1.sqlite" "$KB" history check
expect_out "intact"
[ "$(sqlite3 "$tmp/v1.sqlite" 'PRAGMA user_version')" -ge 2 ] && ok "migrated copy at version >= 2" || bad "not migrated"
[ "$(sqlite3 "$tmp/v1.sqlite" 'SELECT count(*) FROM samples')" = 13 ] && ok "13 samples kept" || bad "samples lost"
# schema 1 had no nights: no trends, and the message says why
expect_exit 2 env KBENCH_HISTORY="$tmp/v1.sqlite" "$KB" history trends --suite quick
expect_out "its 4 runs of the suite are plain runs, not nights (kbench run, or a history from before nights, schema 1)"
expect_exit 0 env KBENCH_HISTORY="$tmp/v1.sqlite" "$KB" history import "$tmp/runs/rt-1"
expect_out "1 run added, 0 already there"
[ "$(sha256sum <"$v1")" = "$sum_before" ] && ok "fixture unchanged" || bad "the test modified the v1 fixture"

# newer schema, foreign database, missing database
cp "$db" "$tmp/new.sqlite"
sqlite3 "$tmp/new.sqlite" "PRAGMA user_version = 4"
expect_exit 2 env KBENCH_HISTORY="$tmp/new.sqlite" "$KB" history
expect_out "schema version 4, newer than the 3 this kbench knows"
expect_exit 2 env KBENCH_HISTORY="$tmp/new.sqlite" "$KB" history import "$tmp/runs/rt-1"
sqlite3 "$tmp/other.sqlite" "CREATE TABLE t (x)"
expect_exit 2 env KBENCH_HISTORY="$tmp/other.sqlite" "$KB" history
expect_out "is not a kbench history"
expect_exit 2 env KBENCH_HISTORY="$tmp/none.sqlite" "$KB" history
expect_out "does not exist"
[ -e "$tmp/none.sqlite" ] && bad "listing created a database" || ok "listing creates nothing"
expect_exit 2 "$KB" history frobnicate
expect_out "unknown history command"
finish
