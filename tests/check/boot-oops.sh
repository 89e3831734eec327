#!/bin/sh
# shellcheck disable=SC2317 # on_signal and the counters run through trap and sum_runs
# make boot-study [N=100] [CONFIGS="multi:max single:max multi:qemu64"]
#                 [KERNELS=mainline-stock] [LOAD=0|1] [CHUNK=10]
#
# The boot oops under TCG (issue 33, docs/reliability.md "Boot oops under
# TCG"): how often a stock kernel's boot hits kernel trouble ("Fatal
# exception in interrupt", "Oops: int3" while it patches its own code) in
# each QEMU configuration, counted over N boots each, with no retry.
#
# A configuration is THREAD:CPU, QEMU's `-accel tcg,thread=THREAD -cpu CPU`
# (KBENCH_QEMU_TCG_THREAD, KBENCH_QEMU_CPU; multi:max is kbench's default).
# Each boot is one iteration of `kbench run --boot-retries 0` with a tiny
# suite (hackbench -g 1 -l 10), so every iteration is a fresh boot and a
# failed boot stays failed. The configurations take turns in chunks of
# CHUNK boots (a run of CHUNK iterations each), round after round, so a
# host whose load drifts over the hours weighs on every configuration
# alike. LOAD=1 runs LOAD_PROCS (default 2) busy shell loops beside the
# whole study, as a busy host would; they end with it (and with this
# script, even after SIGKILL: each checks that the script is alive).
#
# Counted from each run's results.json: boots (iterations, plus any boot
# that was retried, none with --boot-retries 0; an interrupted iteration
# is not a boot), boots with kernel trouble (kernel_trouble: its kinds),
# other failures (no kernel trouble: a boot deadline, a workload that
# failed), the kernel-trouble rate with a 95% Wilson interval, the kinds
# and each kind's first console excerpt, every failure's first "RIP:"
# line, wall time, and each configuration's count against the kernel's
# first configuration's (Fisher's exact test, two-sided). Progress lines as it goes; a summary per configuration
# and a final table (Markdown, for docs/reliability.md) at the end, also
# in OUT/summary.md and OUT/summary.json.
#
# Ctrl-C (or SIGTERM) stops it cleanly: kbench is told to stop (it kills
# its QEMU and saves the run as interrupted), the load loops are killed,
# and the summary of the boots finished so far is printed (exit 130).
#
# Time: a boot of the tiny suite reaches the agent in 5-7 s under TCG on
# an idle 2-core host, about 10 s an iteration with the power-off and
# kbench's own work: 100 boots are about 15-20 minutes per configuration
# and kernel on an idle host (single-threaded TCG boots 2 vCPUs slower),
# two to three times that with LOAD=1. Not part of make test.
#
# Environment: N, CONFIGS, KERNELS (or KERNEL), LOAD, LOAD_PROCS, CHUNK,
# VCPUS (default 2: the race needs two vCPUs), OUT (default
# reports/boot-study/<UTC time>).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
KB="$top/kbench"
n=${N:-100}
configs=${CONFIGS:-multi:max single:max multi:qemu64}
kernels=${KERNELS:-${KERNEL:-mainline-stock}}
load=${LOAD:-0}
load_procs=${LOAD_PROCS:-2}
chunk=${CHUNK:-10}
vcpus=${VCPUS:-2}
out=${OUT:-$top/reports/boot-study/$(date -u +%Y%m%dT%H%M%SZ)}
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3

die() { echo "boot-oops: $*" >&2; exit 2; }
isnum() { case $1 in '' | *[!0-9]*) return 1 ;; esac; [ "$1" -ge 1 ]; }
isnum "$n" || die "N must be a whole number of boots, 1 or more, got '$n'"
isnum "$chunk" || die "CHUNK must be a whole number of boots, 1 or more, got '$chunk'"
isnum "$vcpus" || die "VCPUS must be a whole number, 1 or more, got '$vcpus'"
isnum "$load_procs" || die "LOAD_PROCS must be a whole number, 1 or more, got '$load_procs'"
case $load in 0 | 1) ;; *) die "LOAD must be 0 (idle host) or 1 (busy shell loops beside), got '$load'" ;; esac
[ -x "$KB" ] || die "'$KB' is not built (make all)"
command -v "$py" >/dev/null 2>&1 || die "python3 missing (it counts the results)"
command -v qemu-system-x86_64 >/dev/null 2>&1 || die "qemu-system-x86_64 missing (make deps)"
[ -n "$kernels" ] || die "KERNELS is empty"
. "$top/tests/check/tcg-configs.sh"
# kbench checks them again
check_tcg_configs qemu-system-x86_64 "$configs"
for k in $kernels; do
	case $k in *[!A-Za-z0-9._-]* | '') die "kernel '$k' is not a variant name (./kbench kernels)" ;; esac
done

mkdir -p "$out/logs" || die "cannot make '$out'"
manifest="$out/manifest.tsv"
: >"$manifest"
cat >"$out/suite.ini" <<'SUITE'
[suite]
name = boot-oops
description = the smallest suite: a boot and one short hackbench (boot oops study)
iterations = 1
warmup = 0

[hackbench]
groups = 1
loops = 10
SUITE

kpid=
spid=
loads=
stopped=0
# Ctrl-C, SIGTERM, SIGHUP: tell kbench to stop (QEMU killed, its run saved
# as interrupted), end the load loops; the loop below then summarises
on_signal() {
	stopped=1
	[ -n "$kpid" ] && kill -TERM "$kpid" 2>/dev/null
	[ -n "$spid" ] && kill -TERM "$spid" 2>/dev/null
	stop_load
}
stop_load() {
	for p in $loads; do kill -TERM "$p" 2>/dev/null; done
	for p in $loads; do wait "$p" 2>/dev/null; done
	loads=
}
trap on_signal INT TERM HUP
trap 'stop_load' EXIT

if [ "$load" = 1 ]; then
	i=0
	while [ "$i" -lt "$load_procs" ]; do
		# busy, checking every few thousand turns that the script lives
		sh -c 'while kill -0 "$1" 2>/dev/null; do n=0; while [ $n -lt 5000 ]; do n=$((n+1)); done; done' \
			boot-oops-load $$ &
		loads="$loads $!"
		i=$((i + 1))
	done
	echo "boot-oops: LOAD=1: $load_procs busy shell loops beside the study (pids$loads)"
fi

fmt_s() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
# the finished iterations of run directory $1 (index.jsonl: a line each),
# and how many of them failed
count_done() { if [ -f "$1/index.jsonl" ]; then wc -l <"$1/index.jsonl" | tr -d ' '; else echo 0; fi; }
count_failed() { if [ -f "$1/index.jsonl" ]; then grep -c '"status":"failed"' "$1/index.jsonl"; else echo 0; fi; }
# the boots done and failed so far of kernel $1 in configuration $2:$3
sum_runs() {
	awk -F'\t' -v k="$1" -v t="$2" -v c="$3" '$1 == k && $2 == t && $3 == c { print $4 }' "$manifest" |
		while read -r r; do "$4" "$out/runs/$r"; done | awk '{ s += $1 } END { print s + 0 }'
}

# one chunk: kbench run of $4 iterations of kernel $1 in configuration
# $2:$3, run id $5; its log in logs/; a line in the manifest when done
run_chunk() {
	rk=$1 rth=$2 rcpu=$3 riters=$4 rid=$5
	rdir="$out/runs/$rid"
	rlog="$out/logs/$rid.log"
	rt0=$(date +%s)
	KBENCH_QEMU_TCG_THREAD=$rth KBENCH_QEMU_CPU=$rcpu "$KB" run --kernel "$rk" --suite "$out/suite.ini" \
		--iterations "$riters" --boot-retries 0 --accel tcg --vcpus "$vcpus" --reports "$out" \
		--run-id "$rid" >"$rlog" 2>&1 &
	kpid=$!
	rlast=$rt0 rseen=0
	# wait in steps a signal can interrupt (wait returns at once on a
	# trapped signal; a foreground sleep would hold the trap back)
	while kill -0 "$kpid" 2>/dev/null; do
		sleep 5 &
		spid=$!
		wait "$spid" 2>/dev/null
		spid=
		[ "$stopped" = 1 ] && break
		rdone=$(count_done "$rdir")
		rnow=$(date +%s)
		if [ "$rdone" != "$rseen" ]; then
			# each failure as it comes, from the run's index
			sed -n "$((rseen + 1)),\$p" "$rdir/index.jsonl" |
				sed -n 's/.*"index":\([0-9]*\),"status":"failed".*"error":"\(.*\)"}$/    failed: iteration \1: \2/p' |
				sed 's|\\/|/|g' | cut -c1-220
			rseen=$rdone
		fi
		if [ $((rnow - rlast)) -ge 120 ]; then
			echo "  ... $rid: $rdone/$riters boots done, $(fmt_s $((rnow - rt0)))"
			rlast=$rnow
		fi
	done
	wait "$kpid" 2>/dev/null
	rrc=$?
	# a signal while waiting: wait on until kbench has stopped its QEMU
	while kill -0 "$kpid" 2>/dev/null; do sleep 1; done
	kpid=
	if [ "$rrc" -ge 2 ] && [ "$stopped" = 0 ] && [ ! -f "$rdir/results.json" ]; then
		tail -20 "$rlog"
		die "kbench run $rid refused to start (exit $rrc; log $rlog)"
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$rk" "$rth" "$rcpu" "$rid" $(($(date +%s) - rt0)) "$rrc" >>"$manifest"
}

start=$(date +%s)
nconf=0
for c in $configs; do nconf=$((nconf + 1)); done
nk=0
for k in $kernels; do nk=$((nk + 1)); done
rounds=$(((n + chunk - 1) / chunk))
echo "boot-oops: $n boots per configuration ($configs) and kernel ($kernels), LOAD=$load," \
	"$vcpus vCPUs, chunks of $chunk, $rounds rounds: $((n * nconf * nk)) boots in all"
echo "boot-oops: runs and logs in $out"
round=1
while [ "$round" -le "$rounds" ] && [ "$stopped" = 0 ]; do
	iters=$chunk
	[ $((round * chunk)) -gt "$n" ] && iters=$((n - (round - 1) * chunk))
	for k in $kernels; do
		for c in $configs; do
			[ "$stopped" = 1 ] && break
			th=${c%%:*} cpu=${c#*:}
			tag=$(printf '%s' "$cpu" | tr -c 'A-Za-z0-9._-' '_')
			id=$(printf '%s-%s-%s-r%03d' "$k" "$th" "$tag" "$round")
			run_chunk "$k" "$th" "$cpu" "$iters" "$id"
			echo "boot-oops: round $round/$rounds, $k $th:$cpu: $(sum_runs "$k" "$th" "$cpu" count_done)/$n" \
				"boots, $(sum_runs "$k" "$th" "$cpu" count_failed) failed; study $(fmt_s $(($(date +%s) - start)))"
		done
	done
	round=$((round + 1))
done
stop_load
[ "$stopped" = 1 ] && echo "boot-oops: interrupted: the summary counts the boots finished so far"

PYTHONPATH="$top/tests/check" "$py" - "$out" "$n" "$load" "$load_procs" "$stopped" <<'PY'
import json, os, re, sys
from rates import wilson, fisher

out, n_asked, load, load_procs, stopped = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5] == "1"


def rip(text):
    m = re.search(r"RIP: [0-9a-f]{4}:(\S+)", text or "")
    return m.group(1) if m else None

def console_rip(rundir, rel):
    try:
        with open(os.path.join(rundir, rel), errors="replace") as f:
            return rip(f.read())
    except (OSError, TypeError):
        return None

groups, order = {}, []
for line in open(os.path.join(out, "manifest.tsv")):
    k, th, cpu, rid, wall, rc = line.rstrip("\n").split("\t")
    key = (k, th, cpu)
    if key not in groups:
        groups[key] = {"kernel": k, "tcg_thread": th, "cpu": cpu, "boots": 0, "ok": 0,
                       "trouble": 0, "other": 0, "interrupted": 0, "wall_s": 0, "kinds": {},
                       "first": {}, "failures": [], "mismatch": [], "noise": [], "runs": []}
        order.append(key)
    g = groups[key]
    g["wall_s"] += int(wall)
    g["runs"].append(rid)
    rundir = os.path.join(out, "runs", rid)
    try:
        doc = json.load(open(os.path.join(rundir, "results.json")))
    except (OSError, ValueError) as e:
        g["mismatch"].append("%s: no results.json (%s)" % (rid, e))
        continue
    host = doc.get("host", {})
    # the knob must have taken effect: the run records what QEMU was given
    if host.get("tcg_thread") != th or host.get("guest_cpu") != cpu or host.get("accel") != "tcg":
        g["mismatch"].append("%s: ran with accel %s, tcg_thread %s, guest_cpu %s" % (
            rid, host.get("accel"), host.get("tcg_thread"), host.get("guest_cpu")))
    for it in doc.get("iterations", []):
        if it.get("warmup"):
            continue
        boots = [(b.get("kernel_trouble"), b.get("error"), b.get("console"), "retry %d" % b.get("attempt", 0))
                 for b in it.get("boot_retries") or []]
        if it.get("interrupted"):
            g["interrupted"] += 1
        else:
            boots.append((it.get("kernel_trouble"), it.get("error") if it.get("status") != "ok" else None,
                          it.get("console"), None))
        hn = it.get("host_noise") or {}
        if isinstance(hn.get("other_cpu_pct"), (int, float)):
            g["noise"].append(hn["other_cpu_pct"])
        for trouble, err, con, what in boots:
            g["boots"] += 1
            where = "%s iteration %s%s" % (rid, it.get("index"), " (%s)" % what if what else "")
            if trouble:
                g["trouble"] += 1
                kinds = sorted({t.get("kind", "?") for t in trouble})
                for t in trouble:
                    kd = t.get("kind", "?")
                    g["first"].setdefault(kd, (where, con, t.get("excerpt", "")))
                for kd in kinds:
                    g["kinds"][kd] = g["kinds"].get(kd, 0) + 1
                sig = rip("\n".join(t.get("excerpt", "") for t in trouble)) or console_rip(rundir, con)
                g["failures"].append("%s: %s%s" % (where, ", ".join(kinds), ": RIP " + sig if sig else ""))
            elif err:
                g["other"] += 1
                g["failures"].append("%s: no kernel trouble: %s" % (where, err[:200]))
            else:
                g["ok"] += 1

def pct(x):
    return "%.1f%%" % (100 * x) if x == x else "-"

def mmss(s):
    return "%dm%02ds" % (s // 60, s % 60)

host_desc = "busy (LOAD=1: %s shell loops beside)" % load_procs if load == "1" else "idle (LOAD=0)"
summary, rows = [], []
for key in order:
    g = groups[key]
    lo, hi = wilson(g["trouble"], g["boots"])
    g["rate"] = g["trouble"] / g["boots"] if g["boots"] else None
    g["ci95"] = [lo, hi] if g["boots"] else None
    g["host"] = host_desc
    g["other_cpu_pct_median"] = sorted(g["noise"])[len(g["noise"]) // 2] if g["noise"] else None
    print("\n== %s, -accel tcg,thread=%s -cpu %s, host %s" % (g["kernel"], g["tcg_thread"], g["cpu"], host_desc))
    rate = "%s (95%% CI %s-%s)" % (pct(g["rate"]), pct(lo), pct(hi)) if g["boots"] else "-"
    # against the kernel's first configuration (CONFIGS' first: the default)
    base = groups[next(k for k in order if k[0] == key[0])]
    g["fisher_p_vs_first"] = None if base is g else fisher(g["trouble"], g["boots"], base["trouble"], base["boots"])
    vs = "-" if g["fisher_p_vs_first"] is None or g["fisher_p_vs_first"] != g["fisher_p_vs_first"] else \
        "p = %.3g" % g["fisher_p_vs_first"]
    print("  boots %d of %d asked (ok %d), kernel trouble %d: %s, other failures %d, interrupted %d" % (
        g["boots"], n_asked, g["ok"], g["trouble"], rate, g["other"], g["interrupted"]))
    if base is not g:
        print("  against %s:%s: kernel trouble %d of %d against %d of %d, Fisher's exact test %s" % (
            base["tcg_thread"], base["cpu"], g["trouble"], g["boots"], base["trouble"], base["boots"], vs))
    print("  wall %s (%s a boot)%s" % (mmss(g["wall_s"]), "%.1f s" % (g["wall_s"] / g["boots"]) if g["boots"] else "-",
          "; other processes' CPU while the workloads ran: median %.0f%%" % g["other_cpu_pct_median"]
          if g["other_cpu_pct_median"] is not None else ""))
    for m in g["mismatch"]:
        print("  WARNING: %s" % m)
    if g["kinds"]:
        print("  kinds: " + ", ".join("%s %d" % kv for kv in sorted(g["kinds"].items())))
        for kd, (where, con, ex) in sorted(g["first"].items()):
            print("  first %s: %s (%s)" % (kd, where, con))
            for l in (ex or "").splitlines():
                print("    | " + l)
    if g["failures"]:
        print("  failed boots:")
        for f in g["failures"]:
            print("    " + f)
    rows.append("| %s | %s | %s | %s | %d | %d | %s | %s | %d | %s |" % (
        g["kernel"], g["tcg_thread"], g["cpu"], "busy" if load == "1" else "idle", g["boots"], g["trouble"],
        rate.replace("95% CI ", ""), vs, g["other"], mmss(g["wall_s"])))
    summary.append({k: g[k] for k in ("kernel", "tcg_thread", "cpu", "host", "boots", "ok", "trouble", "other",
                                      "interrupted", "rate", "ci95", "kinds", "failures", "mismatch", "wall_s",
                                      "other_cpu_pct_median", "fisher_p_vs_first", "runs")})

table = ["| kernel | TCG threads | -cpu | host | boots | kernel trouble | rate (95% CI) | vs first (Fisher) "
         "| other failures | wall |", "|---|---|---|---|---|---|---|---|---|---|"] + rows
print("\nboot-oops: %s" % ("interrupted, boots finished so far" if stopped else "done"))
print("\n".join(table))
with open(os.path.join(out, "summary.md"), "w") as f:
    f.write("\n".join(table) + "\n")
with open(os.path.join(out, "summary.json"), "w") as f:
    json.dump({"boots_asked": n_asked, "interrupted": stopped, "configurations": summary}, f, indent=1)
print("(also in %s/summary.md and summary.json)" % out)
if any(g["mismatch"] for g in groups.values()):
    sys.exit("boot-oops: some runs did not record the configuration they were asked for (WARNING above)")
PY
rc=$?
echo "boot-oops: $(fmt_s $(($(date +%s) - start))) in all"
[ "$stopped" = 1 ] && exit 130
exit $rc
