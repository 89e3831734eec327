#!/bin/sh
# make bench-kexec [N=3] [KERNEL=mainline-stock]: the time from kexec to
# the agent's hello on the lab machine (tests/tools/labvm.sh, the ssh
# backend) beside QEMU's direct boot to the agent's hello of the same
# kernel on this host: the median of N iterations (each its own boot) and
# the spread (min..max), from results.json's boot_s. Under TCG both are
# the emulator's figures, not a real machine's; on a busy host they are
# not a measurement. Not part of make test (two runs of N boots).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
KB="$top/kbench"
lab="$top/tests/tools/labvm.sh"
n=${N:-3}
kernel=${KERNEL:-mainline-stock}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbench-kexec-bench.XXXXXX")
port=$((20000 + $$ % 20000))
vm="$tmp/lab"
trap 'sh "$lab" stop "$vm"; rm -rf "$tmp"' EXIT
start=$(date +%s)
cat >"$tmp/suite.ini" <<'SUITE'
[suite]
name = boot
description = the smallest suite: a boot and one short hackbench
iterations = 1
warmup = 0

[hackbench]
groups = 1
loops = 10
SUITE
sh "$lab" start "$vm" "$port"
sh "$lab" wait "$vm" "$port" 600
cat >"$tmp/lab.ini" <<TARGET
[target]
host = 127.0.0.1
port = $port
identity = $vm/id
known_hosts = $vm/known_hosts
power_cycle = sh $lab reset $vm/monitor.sock
console = tail -n 0 -F $vm/console.log
boot_timeout = 420
ssh_timeout = 30
TARGET
"$KB" run --kernel "$kernel" --suite "$tmp/suite.ini" --iterations "$n" --reports "$tmp/r" \
	--target "$tmp/lab.ini" --run-id kexec >"$tmp/kexec.log" 2>&1 ||
	{ tail -30 "$tmp/kexec.log"; echo "bench-kexec: the lab run failed"; exit 1; }
"$KB" run --kernel "$kernel" --suite "$tmp/suite.ini" --iterations "$n" --reports "$tmp/r" \
	--run-id qemu >"$tmp/qemu.log" 2>&1 ||
	{ tail -30 "$tmp/qemu.log"; echo "bench-kexec: the QEMU run failed"; exit 1; }
python3 - "$tmp/r/runs/kexec/results.json" "$tmp/r/runs/qemu/results.json" "$n" <<'PY'
import json, statistics, sys
def boots(path):
    d = json.load(open(path))
    b = [it["boot_s"] for it in d["iterations"] if it.get("status") == "ok"]
    if not b:
        sys.exit("bench-kexec: no boot in %s" % path)
    return d, b
(k, kb), (q, qb) = boots(sys.argv[1]), boots(sys.argv[2])
print("bench-kexec: %s (%s), boot to the agent's hello, %s boots each"
      % (k["variant"]["name"], k["variant"]["kernel_release"], sys.argv[3]))
print("  %-36s %10s %18s" % ("", "median s", "spread (min..max)"))
for name, b, d in (("kexec on the lab machine (ssh)", kb, k), ("QEMU direct boot (%s)" % q["host"]["accel"], qb, q)):
    print("  %-36s %10.1f %8.1f..%-8.1f" % (name, statistics.median(b), min(b), max(b)))
print("  lab machine: a Debian 12 VM under TCG (1536 MB, 2 vCPUs); QEMU guest: %s vCPUs, %s MB"
      % (q["guest"]["vcpus"], q["guest"]["mem_mb"]))
PY
echo "bench-kexec: $(($(date +%s) - start)) s"
