#!/bin/sh
# dbench_study.sh - where does dbench's lock contention live? (issue 14)
# Run for docs/comparison.md "The dbench study" (2 vCPUs, 2 and 8 clients,
# both filesystems, 3 rounds of 15 s; never on a busy host: it distorts
# TCG figures 4-10x). For every filesystem, vCPU count and client count
# it runs one interleaved campaign of the seed trio (mainline, rt,
# rt-adaptive; make seed's variants), then tabulates per point dbench
# MB/s per variant, RT and adaptive relative to mainline and the gap
# recovered with their intervals (comparison.json "seed"), and the
# reference patch's dbench lock counters per variant, as Markdown.
#
#   sh tests/tools/dbench_study.sh [-v "1 2 4"] [-c "1 2 4 8 16"] [-f "scratch tmpfs"]
#        [-r ROUNDS] [-t SECONDS] [-k "mainline rt rt-adaptive"] [-l LOADFILE] [-o DIR]
#        [-x "CAMPAIGN ARGS"]
#
# -x: more kbench campaign options, for instance "--busy-host wait".
#
# -f: where dbench's clients work (the dbench workload's fs option):
# scratch is ext4 on the guest's virtio scratch disk, tmpfs is /dev/shm.
# Every kbench command's exit status is checked; the first failure stops
# the study (campaigns resume: run the same command again).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
KB="$top/kbench"
vcpus="1 2 4"; clients="1 2 4 8 16"; fss="scratch tmpfs"; rounds=5; secs=20
kernels="mainline rt rt-adaptive"; loadfile=""; out="$top/reports/dbench-study"; extra=""
while getopts v:c:f:r:t:k:l:o:x: o; do
	case $o in
	v) vcpus=$OPTARG ;; c) clients=$OPTARG ;; f) fss=$OPTARG ;; r) rounds=$OPTARG ;; t) secs=$OPTARG ;;
	k) kernels=$OPTARG ;; l) loadfile=$OPTARG ;; o) out=$OPTARG ;; x) extra=$OPTARG ;;
	*) echo "usage: see the head of $0" >&2; exit 2 ;;
	esac
done
mkdir -p "$out" || exit 1
start=$(date +%s)
for f in $fss; do
for v in $vcpus; do
	for c in $clients; do
		id="$f-v${v}-c${c}"
		suite="$out/$id.ini"
		{
			printf '[suite]\nname = dbench-study\niterations = 1\nwarmup = 0\n'
			printf '[dbench]\nclients = %s\nduration = %s\nfs = %s\n' "$c" "$secs" "$f"
			[ -n "$loadfile" ] && printf 'loadfile = %s\n' "$loadfile"
		} >"$suite"
		if [ -f "$out/compare/$id/campaign.json" ]; then
			"$KB" campaign --resume "$id" --reports "$out"
		else
			"$KB" campaign --kernels "$kernels" --baseline "${kernels%% *}" --suite "$suite" \
				--iterations "$rounds" --vcpus "$v" --id "$id" --reports "$out" $extra
		fi
		rc=$?
		[ "$rc" = 0 ] || { echo "dbench_study: campaign $id exited $rc" >&2; exit "$rc"; }
		echo "dbench_study: $id done ($(( $(date +%s) - start )) s so far)"
	done
done
done
/usr/bin/python3 - "$out" "$vcpus" "$clients" "$fss" >"$out/study.md" <<'PY' || exit 1
import json, sys
out, vcpus, clients, fss = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4].split()
f = lambda x: "-" if x is None else ("%.3g" % x)
print("| fs | vCPUs | clients | MB/s per variant | RT / mainline | adaptive / mainline | gap recovered | dbench lock counters (mean per run, per variant) |")
print("|---|---|---|---|---|---|---|---|")
for fs in fss:
  for v in vcpus:
    for c in clients:
        d = json.load(open("%s/compare/%s-v%s-c%s/comparison.json" % (out, fs, v, c)))
        m = [x for x in d["metrics"] if x["label"] == "dbench" and x["metric"] == "throughput"][0]
        mbs = ", ".join("%s %s" % (n, f(cell.get("center"))) for n, cell in m["variants"].items())
        seed = d.get("seed") or {}
        row = [r for r in seed.get("rows", []) if r["label"] == "dbench"]
        if row:
            r = row[0]
            rt = "%s [%s, %s]" % (f(r["rt"]["relative"]), f(r["rt"]["lo"]), f(r["rt"]["hi"]))
            ad = "%s [%s, %s]" % (f(r["adaptive"]["relative"]), f(r["adaptive"]["lo"]), f(r["adaptive"]["hi"]))
            gap = "%s [%s, %s]" % (f(r["gap_recovered"]), f(r["gap_recovered_lo"]), f(r["gap_recovered_hi"]))
        else:
            rt = ad = gap = "-"
        locks = "; ".join("%s %s" % (k.split(".", 1)[1], "/".join(f(x) for x in vals))
                          for k, vals in seed.get("lock_stats", {}).items() if k.startswith("dbench."))
        print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (fs, v, c, mbs, rt, ad, gap, locks or "-"))
PY
echo "dbench_study: $out/study.md ($(( $(date +%s) - start )) s)"
