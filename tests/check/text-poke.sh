#!/bin/sh
# shellcheck disable=SC2317 # on_signal runs through trap
# make text-poke-study [N=100] [FLIPS=20] [CONFIGS="multi:max single:max multi:qemu64"]
#                      [KERNELS=mainline-stock] [QEMU=qemu-system-x86_64]
#
# The boot oops under TCG, made to happen on purpose (issue 33,
# docs/reliability.md "Boot oops under TCG"). The oops seen at boot is an
# int3 trap taken after the kernel finished patching its own code
# (text_poke_bp: an int3 over the first byte, the rest, the first byte,
# each step followed by an IPI that serialises every CPU). At boot that
# patching happens a handful of times (static keys flipped by late
# initcalls), so a rare race shows in 1-2% of boots. Here a busybox
# initramfs (no kbench, no agent: a reproducer anyone can run by hand)
# enables and disables the scheduler's tracepoints FLIPS times while two
# pipelines (`yes | cat`) keep both vCPUs switching tasks, so the patched
# call sites in __schedule run on the other vCPU during every patch.
#
# Each boot ends one of three ways, read from its console:
#   ok       "TEXT-POKE-DONE" (all flips made) and a power-off
#   oops     "Oops: int3" (or any "Oops:" / "Kernel panic"): the race
#   other    neither (a deadline, a boot that never reached init)
# Per configuration (THREAD:CPU: -accel tcg,thread=THREAD -cpu CPU) it
# prints boots, oopses, the rate with a 95% Wilson interval, Fisher's
# exact test against the first configuration, the flips made before the
# first oops (from the guest's progress lines) and the wall time; then a
# Markdown table (OUT/summary.md) for docs/reliability.md. Every console
# is kept in OUT/logs.
#
# QEMU chooses the emulator binary (default: the one on PATH); QEMU_L
# adds -L directories for its firmware, for a QEMU unpacked by hand
# (dpkg -x of bookworm-backports' qemu-system-x86 and seabios).
#
# Time: an oopsing boot ends in 3-5 s; a boot that makes its 20 flips
# takes about 4 s with multi-threaded TCG and 12-15 s single-threaded
# (both vCPUs share one host thread with the two pipelines). Not part of
# make test. Ctrl-C ends the current boot and summarises (exit 130).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
KB="$top/kbench"
n=${N:-100}
flips=${FLIPS:-20}
configs=${CONFIGS:-multi:max single:max multi:qemu64}
kernels=${KERNELS:-${KERNEL:-mainline-stock}}
qemu=${QEMU:-qemu-system-x86_64}
vcpus=${VCPUS:-2}
deadline=${DEADLINE:-300}
out=${OUT:-$top/reports/text-poke/$(date -u +%Y%m%dT%H%M%SZ)}
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3

die() { echo "text-poke: $*" >&2; exit 2; }
isnum() { case $1 in '' | *[!0-9]*) return 1 ;; esac; [ "$1" -ge 1 ]; }
isnum "$n" || die "N must be a whole number of boots, 1 or more, got '$n'"
isnum "$flips" || die "FLIPS must be a whole number, 1 or more, got '$flips'"
isnum "$vcpus" || die "VCPUS must be a whole number, 1 or more, got '$vcpus'"
isnum "$deadline" || die "DEADLINE must be a whole number of seconds, got '$deadline'"
[ -x "$KB" ] || die "'$KB' is not built (make all)"
command -v "$py" >/dev/null 2>&1 || die "python3 missing (it counts the results)"
command -v "$qemu" >/dev/null 2>&1 || die "QEMU '$qemu' not found (make deps, or QEMU=/path/to/qemu-system-x86_64)"
bb=$(command -v busybox) || die "busybox missing (Debian's busybox-static: make deps)"
file -L "$bb" 2>/dev/null | grep -q 'statically linked' || die "'$bb' is not statically linked (Debian's busybox-static)"
command -v cpio >/dev/null 2>&1 || die "cpio missing"
qemu_version=$("$qemu" --version | sed -n '1s/.*version \([^ ]*\).*/\1/p')
[ -n "$qemu_version" ] || die "'$qemu --version' printed no version"

set -- # -L directories for a hand-unpacked QEMU
for d in ${QEMU_L:-}; do
	[ -d "$d" ] || die "QEMU_L: '$d' is not a directory"
	set -- "$@" -L "$d"
done

. "$top/tests/check/tcg-configs.sh"
check_tcg_configs "$qemu" "$configs" "$@"

mkdir -p "$out/logs" "$out/initramfs/bin" "$out/initramfs/proc" "$out/initramfs/sys" "$out/initramfs/dev" ||
	die "cannot make '$out'"
out=$(cd "$out" && pwd) # absolute: the initramfs is packed from inside it

# the kernels: kbench's cache (fetched if missing), their images by variant
images=
for k in $kernels; do
	case $k in *[!A-Za-z0-9._-]* | '') die "kernel '$k' is not a variant name (./kbench kernels)" ;; esac
	line=$("$KB" fetch "$k" 2>&1 | tail -n 1)
	dir=${line##* in }
	img=$(find "$dir/boot" -maxdepth 1 -name 'vmlinuz-*' 2>/dev/null | head -n 1)
	[ -f "$img" ] || die "kernel '$k': no image after 'kbench fetch $k' ($line)"
	images="$images$k=$img
"
done

# the guest: busybox and an init that flips the scheduler's tracepoints
cp "$bb" "$out/initramfs/bin/busybox" || die "cannot copy busybox"
cat >"$out/initramfs/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
ev=/sys/kernel/tracing/events/sched/enable
[ -w $ev ] || { echo "TEXT-POKE-NOTRACE no $ev"; poweroff -f; }
n=$(sed -n 's/.*text_poke_flips=\([0-9]*\).*/\1/p' /proc/cmdline)
(yes | cat >/dev/null) &
(yes | cat >/dev/null) &
i=0
while [ "$i" -lt "$n" ]; do
	echo "TEXT-POKE-FLIP $i"
	echo 1 >$ev
	echo 0 >$ev
	i=$((i + 1))
done
echo "TEXT-POKE-DONE $i flips, guest uptime $(cut -d' ' -f1 /proc/uptime) s"
poweroff -f
INIT
chmod +x "$out/initramfs/init"
(cd "$out/initramfs" && find . | cpio -o -H newc 2>/dev/null | gzip -1 >"$out/initramfs.gz") ||
	die "cannot make the initramfs"

qpid=
stopped=0
on_signal() {
	stopped=1
	[ -n "$qpid" ] && kill -TERM "$qpid" 2>/dev/null
}
trap on_signal INT TERM HUP

results="$out/boots.tsv"
printf 'kernel\tconfig\tboot\toutcome\tflips\tseconds\tlog\n' >"$results"
echo "text-poke: QEMU $qemu_version ($qemu), configurations: $configs; kernels: $kernels;" \
	"$n boots each, $flips flips a boot; in $out"
for k in $kernels; do
	img=$(printf '%s' "$images" | sed -n "s|^$k=||p" | head -n 1)
	for c in $configs; do
		[ "$stopped" = 1 ] && break
		thread=${c%%:*}
		cpu=${c#*:}
		oops=0
		t_conf=$(date +%s)
		i=1
		while [ "$i" -le "$n" ] && [ "$stopped" = 0 ]; do
			log="$out/logs/$k-$thread-$cpu-$i.log"
			t0=$(date +%s.%N)
			# -no-reboot with panic=-1: a panic ends QEMU at once
			timeout -k 5 "$deadline" "$qemu" "$@" -accel "tcg,thread=$thread" -cpu "$cpu" \
				-smp "$vcpus" -m 1024 -display none -serial "file:$log" -monitor none \
				-no-reboot -nodefaults -kernel "$img" -initrd "$out/initramfs.gz" \
				-append "console=ttyS0 panic=-1 quiet text_poke_flips=$flips" </dev/null &
			qpid=$!
			wait "$qpid"
			qpid=
			t1=$(date +%s.%N)
			[ "$stopped" = 1 ] && break
			if grep -q -a -E 'Oops:|Kernel panic' "$log"; then
				outcome=oops
				oops=$((oops + 1))
				echo "text-poke: $k $c boot $i: $(grep -a -o -m1 -E 'Oops: [^[]*|Kernel panic[^[]*' "$log" | tr -d '\r')" \
					"$(grep -a -o -m1 'RIP: 0010:[^ ]*' "$log")"
			elif grep -q -a 'TEXT-POKE-DONE' "$log"; then
				outcome=ok
			else
				outcome=other
				echo "text-poke: $k $c boot $i: neither done nor an oops (see $log)"
			fi
			made=$(grep -a -o 'TEXT-POKE-FLIP [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
			[ "$outcome" = ok ] && made=$flips
			printf '%s\t%s\t%s\t%s\t%s\t%.1f\t%s\n' "$k" "$c" "$i" "$outcome" "${made:-0}" \
				"$(echo "$t1 - $t0" | bc)" "$log" >>"$results"
			i=$((i + 1))
		done
		echo "text-poke: $k $c: $((i - 1)) boots, $oops oopsed, $(($(date +%s) - t_conf)) s"
	done
done

# shellcheck disable=SC2016 # python below, not shell
PYTHONPATH="$top/tests/check" "$py" - "$results" "$out" "$qemu_version" "$flips" <<'PY'
import csv, json, sys
from rates import wilson, fisher
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
out, qv, flips = sys.argv[2], sys.argv[3], int(sys.argv[4])

groups = {}
for r in rows:
    g = groups.setdefault((r["kernel"], r["config"]), {"boots": 0, "oops": 0, "other": 0, "flips_before": [], "seconds": 0.0, "flips": 0})
    g["boots"] += 1
    g["seconds"] += float(r["seconds"])
    g["flips"] += int(r["flips"])
    if r["outcome"] == "oops":
        g["oops"] += 1
        g["flips_before"].append(int(r["flips"]))
    elif r["outcome"] == "other":
        g["other"] += 1
firsts = {}
lines = ["| kernel | QEMU | TCG threads | -cpu | boots | oopsed | rate (95% CI) | vs first (Fisher) | flips made | flips before the oops (median) | other | wall |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|"]
summary = []
for (k, c), g in groups.items():
    base = firsts.setdefault(k, g)
    lo, hi = wilson(g["oops"], g["boots"])
    p = None if base is g else fisher(g["oops"], g["boots"], base["oops"], base["boots"])
    fb = sorted(g["flips_before"])
    med = fb[len(fb) // 2] if fb else None
    thread, cpu = c.split(":", 1)
    lines.append("| %s | %s | %s | %s | %d | %d | %.1f%% (%.1f-%.1f%%) | %s | %d | %s | %d | %dm%02ds |" % (
        k, qv, thread, cpu, g["boots"], g["oops"], 100.0 * g["oops"] / g["boots"], 100 * lo, 100 * hi,
        "-" if p is None else "p = %.3g" % p, g["flips"], "-" if med is None else str(med), g["other"],
        int(g["seconds"]) // 60, int(g["seconds"]) % 60))
    summary.append({"kernel": k, "qemu": qv, "config": c, "boots": g["boots"], "oops": g["oops"],
                    "other": g["other"], "wilson95": [lo, hi], "fisher_p_vs_first": p,
                    "flips_made": g["flips"], "flips_before_oops_median": med, "seconds": g["seconds"]})
md = "\n".join(lines) + "\n"
print(md, end="")
open(out + "/summary.md", "w").write(md)
json.dump({"flips_per_boot": flips, "groups": summary}, open(out + "/summary.json", "w"), indent=1)
PY
rc=$?
[ "$stopped" = 1 ] && exit 130
exit $rc
