#!/bin/sh
# lane: background
# The ssh backend on a lab machine (tests/tools/labvm.sh: a Debian 12 VM
# under TCG, ssh forwarded to 127.0.0.1 only, its console in a file, its
# monitor on a socket for the power-cycle command), driven exactly as a
# remote bare-metal machine:
#  - refused before anything is installed, each with a clear message and
#    exit 2: ssh refused (a closed port), a changed host key, a scratch
#    that is the mounted root (/ and the root device, also with
#    scratch_mkfs), a scratch device without scratch_mkfs, scratch_mkfs
#    with a directory;
#  - and nothing of kbench's left on it, its default kernel running (nor,
#    after any case, a shared ssh connection's socket on this host);
#  - kbench doctor --target: the lab passes; a bad scratch and a changed
#    host key fail with what to do;
#  - kbench target-config: the lab's running config for the 6.12 tree,
#    whole and --localyes, and an rt variant's config over it;
#  - a campaign of two variants on it (kbench campaign --target), the
#    first a variant that panics after the kexec (init=/bin/false
#    panic=0): the power-cycle command brings the machine back, that
#    iteration fails with the panic in its console excerpt, and the run
#    goes on (no boot retry here: faults.sh checks retries, which are the
#    same for every backend, and two more boots of the lab cost CI 90 s): the second, Debian 13's 6.12, gives valid results with the
#    lab's facts in host.machine (compare refuses it beside a captured
#    QEMU run on this host; the report names the lab), with the initrd
#    the first made and its modules' tar (the machine's cache: copied
#    and made once, reused); its kbuild compiles with the lab's gcc on
#    the 6.12 tree kbench copied there (KSRC: the cached source with
#    drivers/ and sound/ cut to Kconfig and Makefiles; before the
#    panicking variant's kexec), tinyconfig prepared there before the
#    timer;
#    after it the machine is on its default kernel, nothing left but the
#    cache;
#  - a remote step past its deadline (install_timeout = 30, mkinitramfs
#    running): exit 1, the iteration failed saying which step, after how
#    long and which key gives it more; the step stopped there, no
#    mkinitramfs left running and none of its temporary files, nothing of
#    kbench's but the cache as it was (no boot: it fails before the kexec);
#  - boot = reboot-once (the lab boots through GRUB from its disk): a
#    custom.cfg that is not kbench's refused; then a nightly on the lab
#    (kbench nightly --target) whose variant GRUB boots once by its
#    one-time entry, its dbench on the lab's second disk formatted by
#    kbench (scratch = /dev/vdb, scratch_mkfs = ext4) and so its kbuild,
#    which reuses the tree and the prepared tinyconfig: results valid, the
#    night in the history under the lab's name, and the machine back on
#    its default entry with kbench's /boot directory, custom.cfg,
#    next_entry and scratch mount point gone;
#  - Ctrl-C while a workload runs: exit 1, the run "interrupted", the
#    machine back on its default kernel (its way back hangs and is
#    power-cycled; that console kept apart from the variant's), nothing
#    left, both locks free;
#  - a machine that does not come back and has no power_cycle: a warning
#    that it needs a hand, the later iterations failed at once without
#    touching it; powered on by hand, the next run takes over the lock of
#    that earlier run of this host and removes what it left;
#  - the machine back on the wrong kernel (KBENCH_TEST_SSH_NO_KEXEC makes
#    it reboot instead of kexec): a failed iteration that says so, and no
#    reboot on the way back (it is on its own kernel already); with
#    initrd_cache = 0 the cache is used, then removed: nothing left.
# One lab VM boot is shared by every case.
. "$(dirname "$0")/../lib.sh"
start=$(date +%s)
[ -x "$top/build/kbench-agent" ] || skip "build/kbench-agent missing: run make"
need_tool mmdebstrap "the lab machine's root filesystem"
need_tool qemu-system-x86_64 "the lab machine"
need_tool qemu-img "the lab machine's disk"
need_tool ssh "the ssh backend"
need_tool ssh-keygen "the lab machine's key"
need_tool python3 "the lab machine's power-cycle command"
lab="$top/tests/tools/labvm.sh"
port=$((20000 + $$ % 20000))
vm="$tmp/lab"
trap 'sh "$lab" stop "$vm"; rm -rf "$tmp"' EXIT
sh "$lab" start "$vm" "$port" || { bad "the lab machine did not start"; finish; }
sh "$lab" wait "$vm" "$port" 600 || { bad "no ssh on the lab machine"; tail -20 "$vm/console.log"; finish; }
echo "lab machine up after $(($(date +%s) - start)) s"
on_lab() {
	ssh -o BatchMode=yes -o StrictHostKeyChecking=yes -o "UserKnownHostsFile=$vm/known_hosts" \
		-i "$vm/id" -p "$port" root@127.0.0.1 "$@"
}
default=$(on_lab uname -r)

# target FILE [KEY=VALUE | KEY ...]: the lab's target file with changes
target() {
	f=$1; shift
	{
		echo "[target]"
		echo "host = 127.0.0.1"
		echo "port = $port"
		echo "identity = $vm/id"
		echo "known_hosts = $vm/known_hosts"
		echo "power_cycle = sh $lab reset $vm/monitor.sock"
		echo "console = tail -n 0 -F $vm/console.log"
		echo "scratch = /srv/kbench-scratch"
		echo "boot_timeout = 420"
		echo "ssh_timeout = 30"
	} >"$f"
	for kv in "$@"; do # KEY=VALUE sets KEY, KEY alone removes it
		k=${kv%%=*}
		sed -i "/^$k = /d" "$f"
		case $kv in *=*) echo "$k = ${kv#*=}" >>"$f" ;; esac
	done
}
cat >"$tmp/suite.ini" <<'EOF'
[suite]
name = sshsmoke
description = the ssh backend's smoke: small hackbench, short dbench and cyclictest
iterations = 1
warmup = 0

[hackbench]
groups = 2
loops = 50

[dbench]
duration = 5

[cyclictest]
duration = 5
interval = 1000
EOF
# the smoke with kbuild on the machine (its toolchain, the tree kbench
# copies there once, tinyconfig prepared there once), for the campaign
# and the nightly
{ cat "$tmp/suite.ini"; printf '\n[kbuild]\nconfig = tinyconfig\ntarget = kernel/locking/\n'; } >"$tmp/suitekb.ini"
# nothing of kbench's on the lab machine (with "kept": but its initrd
# cache, one initrd, and kbuild's tree), and its default kernel runs
clean_lab() {
	left=$(on_lab 'ls -d /var/tmp/kbench* /var/tmp/mkinitramfs* /lib/modules/6.12* /boot/config-6.12* /srv/kbench-scratch/* /boot/kbench* /boot/grub/custom.cfg* 2>/dev/null; grub-editenv - list | grep "^next_entry=."')
	cached=$(on_lab 'ls /var/tmp/kbench-cache/*/initrd.img 2>/dev/null | wc -l')
	want=0
	[ "${2:-}" = kept ] && { left=$(echo "$left" | grep -vx -e /var/tmp/kbench-cache -e /var/tmp/kbench-kbuild); want=1; }
	now=$(on_lab uname -r)
	# and on this host no shared connection's socket directory (the
	# master, kbench's child, is in run.sh's leftover check)
	mux=$(find /tmp -maxdepth 1 -name 'kbench-ssh.*' -newer "$tmp/suite.ini" 2>/dev/null)
	if [ -z "$left" ] && [ "$now" = "$default" ] && [ "$cached" = "$want" ] && [ -z "$mux" ]; then
		ok "$1: lab machine on $now, nothing of kbench's left${2:+ but its initrd cache and kbuild tree}"
	else
		bad "$1: lab machine on $now (default $default); left: $left; cached initrds: $cached; on this host: $mux"
	fi
}
run() { "$KB" run --kernel mainline-stock --suite "$tmp/suite.ini" --reports "$tmp/r" --boot-retries 0 "$@"; }

# refused before anything is installed: refused ID MESSAGE [KEY=VALUE...]
# runs with the lab's target file changed so ($tmp/ID.ini, run id ID)
refused() {
	id=$1 msg=$2
	shift 2
	target "$tmp/$id.ini" "$@"
	expect_exit 2 run --target "$tmp/$id.ini" --run-id "$id"
	expect_out "$msg"
}
free=$((port + 1))
refused closed "Connection refused" "port=$free"
expect_out "ssh failed"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/other" >/dev/null
echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$tmp/other.pub")" >"$tmp/other_hosts"
refused hostkey "Host key verification failed" "known_hosts=$tmp/other_hosts"
refused root "scratch / is the mounted root filesystem" "scratch=/"
refused rootdev "scratch /dev/vda is a device in use: mounted at /" "scratch=/dev/vda"
refused rootdevfs "scratch /dev/vda is a device in use: mounted at /" "scratch=/dev/vda" "scratch_mkfs=ext4"
refused vdb "scratch /dev/vdb is a block device: set scratch_mkfs = ext4" "scratch=/dev/vdb"
refused notdev "scratch_mkfs = ext4: scratch /srv/kbench-scratch is not a block device" "scratch_mkfs=ext4"
expect_exit 2 run --backend ssh --run-id notarget
expect_out "needs --target NAME"
clean_lab "refusals"

# kbench doctor --target: every check of the lab passes; a bad scratch
# and a changed host key are FAIL lines saying what to do, exit 1
target "$tmp/lab.ini"
expect_exit 0 "$KB" doctor --target "$tmp/lab.ini"
expect_out "^ok   kexec support: the running kernel $default can load kernels"
expect_out "^ok   scratch: /srv/kbench-scratch"
expect_out "^ok   workload tool: cyclictest"
expect_out "^ok   kbuild toolchain: gcc"
expect_out "^ok   kbuild tree: none copied yet"
expect_out "this machine is ready for kbench"
expect_exit 1 "$KB" doctor --target "$tmp/root.ini"
expect_out "^FAIL scratch / is the mounted root filesystem /"
expect_out "not ready for kbench"
expect_exit 1 "$KB" doctor --target "$tmp/hostkey.ini"
expect_out "^FAIL ssh .*Host key verification failed"
expect_out "host key is not the one in known_hosts"

# kbench target-config: the lab's running config (Debian 12's 6.1) made a
# config of the 6.12 tree, whole and trimmed to its loaded modules, built
# in (localyesconfig: virtio_net, loaded, is =y; e1000e, not loaded, goes);
# a PREEMPT_RT variant over it keeps its fragment and loses the distro's
# certificate files; kernel_config = localyes does both in one step.
# Nothing is changed on the machine.
t1=$(date +%s)
expect_exit 0 "$KB" target-config --target "$tmp/lab.ini" "$tmp/lab.base"
expect_out "the running $default's config, [0-9]* modules loaded"
expect_exit 0 "$KB" target-config --target "$tmp/lab.ini" --localyes "$tmp/lab.local"
expect_out "trimmed to those modules, built in (localyesconfig)"
grep -qx 'CONFIG_VIRTIO_NET=[ym]' "$tmp/lab.base" && grep -qx 'CONFIG_E1000E=[ym]' "$tmp/lab.base" &&
	grep -qx 'CONFIG_VIRTIO_NET=y' "$tmp/lab.local" && ! grep -q '^CONFIG_E1000E=' "$tmp/lab.local" &&
	ok "target-config: $(grep -c '=[ym]$' "$tmp/lab.base") options, $(grep -c '=[ym]$' "$tmp/lab.local") with --localyes" ||
	bad "target-config: virtio_net/e1000e not as expected"
expect_exit 2 "$KB" target-config --target "$tmp/lab.ini"
expect_out "usage: kbench target-config"
printf '[variant]\nname = lab-rt\nsource = build\ntree = linux-source-6.12\nbase = file\nbase_config = lab.local\nconfigs = rt\n' \
	>"$tmp/lab-rt.ini"
expect_exit 0 "$KB" kconfig "$tmp/lab-rt.ini" "$tmp/lab-rt.config"
grep -qx 'CONFIG_PREEMPT_RT=y' "$tmp/lab-rt.config" && grep -qx 'CONFIG_VIRTIO_NET=[ym]' "$tmp/lab-rt.config" &&
	grep -qx 'CONFIG_SYSTEM_TRUSTED_KEYS=""' "$tmp/lab-rt.config" && grep -qx 'CONFIG_MODULES=y' "$tmp/lab-rt.config" &&
	ok "an rt variant over the lab's config: PREEMPT_RT, virtio_net, no distro certificates" ||
	bad "the rt variant's config over the lab's"
# in one step: a target file with kernel_config = localyes makes a
# source-built variant's base the machine's localyes config (made once
# per content, then reused) and drops QEMU's guest fragment (base: 9p,
# virtio console); what `kbench kconfig --target` writes is what a run on
# the machine builds
target "$tmp/local.ini" "kernel_config=localyes"
expect_exit 0 "$KB" kconfig --target "$tmp/local.ini" rt-adaptive "$tmp/rta-lab.config"
expect_out "its running $default's config and [0-9]* loaded modules made rt-adaptive's base"
expect_exit 0 "$KB" kconfig --target "$tmp/local.ini" rt-adaptive "$tmp/rta-lab2.config"
expect_out "its config for rt-adaptive made before from the same running config and modules"
grep -qx 'CONFIG_PREEMPT_RT=y' "$tmp/rta-lab.config" && grep -qx 'CONFIG_VIRTIO_NET=y' "$tmp/rta-lab.config" &&
	! grep -q '^CONFIG_E1000E=' "$tmp/rta-lab.config" && ! grep -qx 'CONFIG_9P_FS=y' "$tmp/rta-lab.config" &&
	cmp -s "$tmp/rta-lab.config" "$tmp/rta-lab2.config" &&
	ok "kernel_config = localyes: rt-adaptive for the lab has PREEMPT_RT, virtio_net built in, no e1000e, no 9p" ||
	bad "kernel_config = localyes: rt-adaptive's config for the lab"
echo "target-config and kconfig: $(($(date +%s) - t1)) s"
clean_lab "target-config"

# a campaign on the lab machine, the user's case of a run that goes on
# after a panic: a variant that panics after the kexec (init=/bin/false
# is a real init that exits, "Attempted to kill init!", and panic=0 never
# reboots) and Debian 13's 6.12 (the lab runs Debian 12's 6.1), seed 1
# running the panicking one first, no boot retry (faults.sh checks
# retries; each one here is two boots of the lab, about 90 s of CI). Its
# boot panics and the power-cycle command (logged) resets the lab; its
# iteration fails with the panic in its console excerpt. Then the stock
# one runs the suite through the agent over ssh (a kexec that goes wrong
# once, an oops early in a kexec'd kernel seen once in CI, is noted):
# results valid with the machine's facts, and its initrd is the one the
# panicking run made there (same kernel and modules: the machine's
# initrd cache). The machine ends on its default kernel with nothing of
# kbench's left but that cache.
cat >"$tmp/panicky.ini" <<'EOF'
[variant]
name = panicky
description = Debian 13's 6.12 whose init exits at once: a kernel panic that never reboots
source = debian-image
package = linux-image-amd64
release = trixie
cmdline = init=/bin/false panic=0
EOF
printf 'echo cycled >>"%s"\nexec sh "%s" reset "%s"\n' "$tmp/cycled" "$lab" "$vm/monitor.sock" >"$tmp/cycle.sh"
# kbuild's tree (KSRC, for the campaign and the nightly): the cached 6.12
# source target-config used, with drivers/ and sound/ cut to their
# Kconfig and Makefiles. A real tree for tinyconfig, make prepare and
# kernel/locking/ (none of them reads a driver's source), 405 MiB to copy
# instead of 1485: the copy is what is tested, and the other 1.1 GB cost
# the lab about 90 s of CPU (ssh and tar under TCG) in CI's time budget.
cache=${KBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kbench}
src=$(ls -d "$cache"/sources/linux-source-6.12_*/tree 2>/dev/null | head -1)
ktree=$tmp/ktree
if [ -n "$src" ] && { cp -al "$src" "$ktree" 2>/dev/null || cp -a "$src" "$ktree"; } &&
	find "$ktree/drivers" "$ktree/sound" -type f ! -name 'Kconfig*' ! -name 'Makefile*' ! -name 'Kbuild*' -delete; then
	ok "kbuild's tree: $(du -sm --apparent-size "$ktree" | cut -f1) MiB (drivers/ and sound/ cut to Kconfig and Makefiles)"
else
	bad "no cached 6.12 source tree in $cache/sources to make kbuild's tree from"
fi
target "$tmp/camp.ini" "power_cycle=sh $tmp/cycle.sh"
t1=$(date +%s)
expect_exit 1 env KSRC="$ktree" "$KB" campaign --kernels "mainline-stock $tmp/panicky.ini" --baseline mainline-stock \
	--suite "$tmp/suitekb.ini" --iterations 1 --seed 1 --id lab --reports "$tmp/r" --boot-retries 0 \
	--target "$tmp/camp.ini"
expect_out "panicked after the kexec (.Kernel panic - not syncing. on its console"
expect_out "power-cycled with 'sh'"
expect_out "initrd made there"
expect_out "initrd reused from the machine's cache"
expect_out "copied in [0-9]* s (its modules from the machine's cache)"
expect_out "copying the kernel tree for kbuild ([0-9]* MiB, once"
expect_out "kernel tree at /var/tmp/kbench-kbuild/[0-9a-f]*/linux after [0-9]* s"
expect_out "kbuild: untimed step done in [0-9]* s: kbuild: configuring (tinyconfig) and make prepare on the machine"
[ -s "$tmp/cycled" ] && ok "the power-cycle command ran" || bad "the power-cycle command did not run"
camp="$tmp/r/compare/lab"
python3 - "$camp" "$default" "$tmp/camp.ini" >"$tmp/o" 2>&1 <<'PY'
import glob, json, os, sys
camp, default, target = sys.argv[1:]
cj = json.load(open(camp + "/campaign.json"))
assert cj["guest"].get("target") == target, cj["guest"]
runs = [(r["variant"], r["exit"]) for r in cj["runs"]]
docs = {}
for f in glob.glob(camp + "/runs/*/results.json"):
    d = json.load(open(f))
    docs[d["variant"]["name"]] = (d, f)
def note_console(what, text):
    # a failed boot's console from its first trouble on, as note: lines
    # (CI's summary of a test keeps those)
    lines = (text or "(none)").splitlines()
    first = next((i for i, l in enumerate(lines) if "Oops" in l or "BUG" in l or
                  "panic" in l or "fault" in l), 0)
    for l in lines[max(0, first - 5):first + 25]:
        print("note: %s console: %s" % (what, l[:200]))
for it in docs.get("mainline-stock", ({"iterations": []},))[0]["iterations"]:
    for a in it.get("boot_retries") or []:
        print("note: mainline-stock boot %d failed, tried again: %s" % (a["attempt"], a["error"]))
        note_console("that boot's", open(camp + "/runs/r01-mainline-stock/" + a["console"],
                                         errors="replace").read())
    if it.get("status") != "ok":
        print("note: mainline-stock iteration:", it.get("status"), it.get("error"))
        note_console("its", it.get("console_tail"))
assert len(runs) == 2 and runs[0][0].endswith("panicky.ini") and runs[0][1] == 1 and \
    runs[1] == ("mainline-stock", 0), runs
p = docs["panicky"][0]["iterations"][0]
err = p.get("error") or ""
assert p["status"] == "failed" and "panicked after the kexec" in err and \
    "kernel trouble on the console: panic" in err, p
assert "Kernel panic - not syncing" in (p.get("console_tail") or ""), p.get("console_tail")
assert not p.get("workloads"), p["workloads"]
assert not p.get("boot_retries"), p["boot_retries"]
assert "panic" in [t["kind"] for t in p["kernel_trouble"]], p["kernel_trouble"]
d, f = docs["mainline-stock"]
here = int(open("/proc/meminfo").read().split()[1])
assert d["host"]["backend"] == "ssh", d["host"]["backend"]
rel = d["variant"]["kernel_release"]
assert rel.startswith("6.12.") and rel != default, rel
it = d["iterations"][0]
assert it["status"] == "ok", it.get("error")
assert it["workloads"] and all(w["status"] == "ok" for w in it["workloads"]), it["workloads"]
kb = [w for w in it["workloads"] if w["workload"] == "kbuild"][0]
assert kb["extra"]["compiled"] > 0 and "/var/tmp/kbench-kbuild/" in kb["command"], kb
mf = it["guest"]["machine_facts"]
for k in ("cpu_model", "threads", "mem_kb", "cmdline"):
    assert mf.get(k) not in (None, ""), k
# host.machine: the machine that ran the workloads (the lab), not this host
hm = d["host"].get("machine")
assert hm == mf, ("host.machine is not the lab's facts", hm, mf)
assert hm["mem_kb"] != here, ("host.machine has this host's memory", hm["mem_kb"])
# the report shows the lab (the panicked run, which has no facts, first)
html = open(camp + "/report.html").read()
assert "machine <b>" in html and mf["cpu_model"] in html, "report.html does not show the lab"
print("a panic, then kexec'd into", rel, "on", mf["cpu_model"], mf["threads"],
      "CPUs,", mf["mem_kb"], "kB; prepare_s (copies, modules, initrd): %.0f s for the "
      "panicking one, %.0f s for the stock one (its initrd reused); kexec to agent "
      "%.0f s; kbuild on the lab %.1f s, %d compiled" %
      (p["prepare_s"], it["prepare_s"], it["boot_s"], kb["metrics"]["elapsed"]["value"],
       kb["extra"]["compiled"]))
print(f)
PY
[ $? = 0 ] && { grep '^note:' "$tmp/o"; ok "$(grep '^a panic' "$tmp/o")"; } ||
	{ bad "campaign results"; cat "$tmp/o"; }
res=$(tail -1 "$tmp/o")
expect_exit 0 "$KB" validate "$res"
expect_exit 0 /usr/bin/python3 "$top/tests/integration/check_results.py" --expect-rt no --exit-status 0 "$res"
echo "campaign (a panic, then the stock run) on the lab machine: $(($(date +%s) - t1)) s"
clean_lab "campaign" kept
[ "$(on_lab 'ls /var/tmp/kbench-kbuild/*/tree-complete | wc -l')" = 1 ] && ok "kbuild's tree kept on the lab" ||
	bad "kbuild's tree on the lab: $(on_lab 'ls -R /var/tmp/kbench-kbuild | head')"
# beside a QEMU run on this host (a captured one): another machine
expect_exit 2 "$KB" compare "$top/tests/fixtures/results/rt-smoke.json" "$res" --out "$tmp/cmp"
expect_out "machine: CPU model"

# a remote step past its deadline (issue 33: a busy host took the install
# step past its fixed 900 s, and the run said "cannot install the kernel: "
# with nothing after the colon, mkinitramfs's temporary directories left
# in /var/tmp). The lab gets the 6.12 modules in /lib/modules from its
# cache's tars (as a machine with the variant's modules installed), so
# the install step copies none, runs no depmod and starts mkinitramfs a
# few seconds in; mkinitramfs takes about a minute there under TCG, and
# install_timeout = 30 cuts it. Exit 1 (the iteration failed, before any
# kexec: no boot) with the step, the time and the key; the step stopped
# on the lab: no mkinitramfs running, none of its temporary files, the
# cache as it was (one entry), nothing else of kbench's.
t1=$(date +%s)
rel=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["variant"]["kernel_release"])' "$res" 2>/dev/null)
if [ -z "$rel" ] || ! on_lab "set -e; e=\$(ls -d /var/tmp/kbench-cache/*/ | head -n 1); mkdir /lib/modules/$rel; tar -xf \$e/modules.tar -C /lib/modules/$rel; tar -xf \$e/depmod.tar -C /lib/modules/$rel"; then
	bad "install_timeout: the 6.12 modules ($rel) not put in the lab's /lib/modules from its cache"
fi
target "$tmp/slow.ini" "install_timeout=30"
expect_exit 1 run --target "$tmp/slow.ini" --run-id slow
expect_out "kernel copied in [0-9]* s$"
expect_out "cannot install the kernel: the step 'making the initrd (mkinitramfs)' did not finish within 30 s; give it more time with install_timeout = N (seconds) in '$tmp/slow.ini'"
python3 -c 'import json, sys; it = json.load(open(sys.argv[1]))["iterations"][0]; e = it.get("error") or ""; assert it["status"] == "failed" and "install_timeout = N" in e and "did not finish within 30 s" in e, it; assert not it.get("workloads"), it' \
	"$tmp/r/runs/slow/results.json" && ok "install_timeout: the iteration failed naming the step, the time and the key" ||
	bad "install_timeout: results.json"
running=$(on_lab "pgrep -af 'mkinitr[a]mfs'")
entries=$(on_lab 'ls -d /var/tmp/kbench-cache/*/ | wc -l')
[ -z "$running" ] && [ "$entries" = 1 ] && ok "install_timeout: the step stopped on the lab, its cache as it was" ||
	bad "install_timeout: still running on the lab: '$running'; cache entries: $entries (want 1)"
on_lab "rm -rf /lib/modules/$rel"
clean_lab "install_timeout" kept
echo "install_timeout case: $(($(date +%s) - t1)) s"

# boot = reboot-once, for a machine where kexec fails: kbench copies the
# kernel and the cached initrd to /boot/kbench-XXXXXXXX, writes a
# one-entry /boot/grub/custom.cfg (the lab's grub.cfg sources it, as
# Debian's 41_custom does) and grub-reboot's it; GRUB boots it once
# (BOOT_IMAGE in the variant's /proc/cmdline names that directory) and
# the reboot after the run is back on the default entry. A custom.cfg of
# the user's is never overwritten: refused before anything is installed.
# Its dbench runs on the lab's second disk (scratch = /dev/vdb,
# scratch_mkfs = ext4): formatted and mounted in the booted variant.
target "$tmp/grub.ini" "boot=reboot-once" "scratch=/dev/vdb" "scratch_mkfs=ext4"
expect_exit 0 "$KB" doctor --target "$tmp/grub.ini"
expect_out "^ok   boot = reboot-once: GRUB's one-time entry"
expect_out "^ok   free space: /boot has"
expect_out "^ok   scratch: /dev/vdb, a block device not in use (formatted ext4 each iteration)"
on_lab 'echo "menuentry mine {}" >/boot/grub/custom.cfg'
expect_exit 2 run --target "$tmp/grub.ini" --run-id grubmine
expect_out "custom.cfg is not kbench's"
on_lab 'rm /boot/grub/custom.cfg'
# It runs as a nightly on the target (kbench nightly --target): the night
# is recorded in a history under the lab's identity (host.target), not
# this host's, and judged (the first night: exit 0).
printf '[nightly]\nsuite = %s\nrefresh = no\nvariants = mainline-stock\n' "$tmp/suitekb.ini" >"$tmp/nightly.ini"
t1=$(date +%s)
expect_exit 0 env KSRC="$ktree" "$KB" nightly --config "$tmp/nightly.ini" --target "$tmp/grub.ini" --iterations 1 \
	--boot-retries 1 --reports "$tmp/r" --history "$tmp/history.sqlite" --night lab1
expect_out "GRUB entry kbench-once: /boot/kbench-[A-Za-z0-9]*/vmlinuz; rebooting into it once"
expect_out "scratch /dev/vdb: ext4 made and mounted at /var/tmp/kbench.scratch"
expect_out "kbuild: tinyconfig prepared on the machine before (reused)"
expect_out "kbuild: /usr/bin/make -C /var/tmp/kbench-kbuild/[0-9a-f]*/linux O=/var/tmp/kbench.scratch/kbench-scratch/kbuild-obj"
[ "$(on_lab blkid -s LABEL -o value /dev/vdb)" = kbench-scratch ] && ok "the scratch device has kbench's ext4" ||
	bad "the scratch device: $(on_lab blkid /dev/vdb)"
python3 - "$tmp/r/nightly/lab1/nightly.json" "$default" >"$tmp/o" 2>&1 <<'PY'
import json, os, sys
n = json.load(open(sys.argv[1]))
assert n["exit"] == 0, n["exit"]
assert [(r["variant"], r["exit"]) for r in n["runs"]] == [("mainline-stock", 0)], n["runs"]
assert all(v["state"] == "ok" for v in n["verdicts"]), n["verdicts"]
d = json.load(open(os.path.join(n["runs"][0]["dir"], "results.json")))
assert d["host"]["backend"] == "ssh" and d["host"]["target"] == "grub", d["host"]
it = d["iterations"][0]
assert it["status"] == "ok", it.get("error")
assert [w["status"] for w in it["workloads"]] == ["ok"] * 4, it["workloads"]
assert "host_noise" not in it, "this host's noise sampled for a remote machine"
rel = d["variant"]["kernel_release"]
assert rel.startswith("6.12.") and rel != sys.argv[2], rel
cl = it["guest"]["machine_facts"]["cmdline"]
assert "BOOT_IMAGE=/boot/kbench-" in cl and "root=/dev/vda" in cl, cl
print("reboot-once, a nightly on the lab: GRUB booted", rel, "(" + cl.split()[0] + "), boot to agent %.0f s" % it["boot_s"])
print(os.path.join(n["runs"][0]["dir"], "results.json"))
PY
[ $? = 0 ] && ok "$(head -1 "$tmp/o")" || { bad "reboot-once nightly"; cat "$tmp/o"; }
expect_exit 0 "$KB" validate "$(tail -1 "$tmp/o")"
expect_exit 0 env KBENCH_HISTORY="$tmp/history.sqlite" "$KB" history nights
expect_out "^lab1 .* mainline-stock"
clean_lab "reboot-once nightly" kept
echo "reboot-once nightly case: $(($(date +%s) - t1)) s"

# Ctrl-C while a workload runs on the lab machine: kbench stops at once
# (exit 1), the run is "interrupted" with what finished kept, the machine
# is back on its default kernel with nothing of kbench's left but its
# initrd cache, and both locks are free (doctor, the next case's run).
# Its way back hangs (KBENCH_TEST_SSH_HUNG_REBOOT=5: no reboot, 5 s
# waited; once here the default kernel soft-locked after the reboot and
# never answered): the power-cycle command brings it back; that console
# is the side log iter-1.log.release, not the variant's iter-1.log
t1=$(date +%s)
# kbench itself in the background ($! its pid: a function or subshell
# would take the signal, and a background job's SIGINT is ignored)
KBENCH_TEST_SSH_HUNG_REBOOT=5 "$KB" run --kernel mainline-stock --suite "$tmp/suite.ini" \
	--reports "$tmp/r" --boot-retries 1 --target "$tmp/lab.ini" --run-id ctrlc --iterations 2 \
	>"$tmp/ctrlc.log" 2>&1 &
pid=$!
for i in $(seq 1 600); do
	grep -q '^kbench:   hackbench: ' "$tmp/ctrlc.log" 2>/dev/null && break
	kill -0 $pid 2>/dev/null || break
	sleep 1
done
grep -q '^kbench:   hackbench: ' "$tmp/ctrlc.log" || { bad "Ctrl-C: the workload never started"; cat "$tmp/ctrlc.log"; }
kill -INT $pid
t2=$(date +%s)
wait $pid
rc=$?
[ $rc = 1 ] && ok "Ctrl-C on the lab: exit 1 after $(($(date +%s) - t2)) s (machine rebooted to its default)" ||
	{ bad "Ctrl-C on the lab: exit $rc"; tail -20 "$tmp/ctrlc.log"; }
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["status"]=="interrupted", d["status"]; assert len(d["iterations"]) <= 1, d["iterations"]' \
	"$tmp/r/runs/ctrlc/results.json" && ok "Ctrl-C: results.json says interrupted" || bad "Ctrl-C: results.json"
expect_exit 0 "$KB" validate "$tmp/r/runs/ctrlc/results.json"
grep -q "did not come back to its default kernel within [0-9]* s; power-cycling it with 'sh'" "$tmp/ctrlc.log" &&
	grep -q "back on its default kernel after the power cycle" "$tmp/ctrlc.log" &&
	ok "Ctrl-C: a way back that hangs is power-cycled" ||
	{ bad "Ctrl-C: the hung way back was not power-cycled"; tail -20 "$tmp/ctrlc.log"; }
con=$tmp/r/runs/ctrlc/console/iter-1.log
# GRUB's line is the way back's (a kexec passes no boot loader)
grep -q "Booting .Debian GNU/Linux" "$con.release" && grep -q "kbench-agent: ready" "$con" &&
	! grep -q "Booting .Debian GNU/Linux" "$con" &&
	ok "Ctrl-C: the way back's console in iter-1.log.release, the variant's alone in iter-1.log" ||
	{ bad "Ctrl-C: consoles"; grep -H "Booting\|kbench-agent" "$con" "$con.release"; }
clean_lab "Ctrl-C" kept
expect_exit 0 "$KB" doctor --target "$tmp/lab.ini"
expect_out "^ok   .*lock"
echo "Ctrl-C case: $(($(date +%s) - t1)) s"

# a machine that does not come back and has no power_cycle: the run
# warns that it needs a hand, and its later iterations fail at once
# without touching it (it stays on the variant: KBENCH_TEST_SSH_HUNG_REBOOT
# sends no reboot; kbench's directory of iteration 1 is the only one
# there); a hand powers it on (the lab's reset); the next run (the wrong
# kernel case below) finds the lock of this host's earlier run, which is
# gone, removes what that run left and takes the lock
target "$tmp/nopc.ini" power_cycle
printf '[suite]\nname = hb\niterations = 1\n[hackbench]\ngroups = 2\nloops = 50\n' >"$tmp/hb.ini"
t1=$(date +%s)
expect_exit 1 env KBENCH_TEST_SSH_HUNG_REBOOT=5 "$KB" run --kernel mainline-stock --suite "$tmp/hb.ini" \
	--reports "$tmp/r" --boot-retries 0 --target "$tmp/nopc.ini" --run-id lost --iterations 3
expect_out "did not come back to its default kernel: it needs a hand"
python3 - "$tmp/r/runs/lost/results.json" <<'PY' && ok "needs a hand: iteration 1 ok, 2 and 3 failed at once saying so" || { bad "needs a hand: results"; tail -20 "$tmp/out"; }
import json, sys
its = json.load(open(sys.argv[1]))["iterations"]
assert [it["status"] for it in its] == ["ok", "failed", "failed"], [(it["status"], it.get("error")) for it in its]
for it in its[1:]:
    assert "needs a hand (power it on; then run again)" in it["error"], it["error"]
PY
now=$(on_lab uname -r)
ours=$(on_lab 'ls -d /var/tmp/kbench-* | grep -v -e kbench-cache -e kbench-kbuild | wc -l')
[ "$now" != "$default" ] && [ "$ours" = 1 ] &&
	ok "needs a hand: the machine untouched after it was lost (still on $now, one directory of kbench's)" ||
	bad "needs a hand: the machine on $now, $ours directories of kbench's"
sh "$lab" reset "$vm/monitor.sock" && sh "$lab" wait "$vm" "$port" 600 && [ "$(on_lab uname -r)" = "$default" ] &&
	ok "needs a hand: powered on by hand, back on $default" || bad "needs a hand: the lab did not come back"
echo "needs-a-hand case: $(($(date +%s) - t1)) s"

# the machine comes back on the wrong kernel (a kexec that silently
# falls back to a reboot): a failed iteration saying so, never a result;
# that kernel is the one it ran before, so no reboot takes it back there;
# initrd_cache = 0: the cached initrd is used, then the cache removed
target "$tmp/once.ini" "initrd_cache=0"
t1=$(date +%s)
expect_exit 1 env KBENCH_TEST_SSH_NO_KEXEC=1 "$KB" run --kernel mainline-stock --suite "$tmp/suite.ini" \
	--reports "$tmp/r" --boot-retries 0 --target "$tmp/once.ini" --run-id wrong
expect_out "its lock is an earlier run's from this host (.* pid [0-9]*), which is gone"
expect_out "initrd reused from the machine's cache"
expect_out "booted the wrong kernel: $default is running, the variant is 6.12"
# it rebooted into its own kernel: no second reboot to get it back there
expect_out "is back on its own kernel ($default): no reboot needed"
if grep -q "Booting .Debian GNU/Linux" "$tmp/r/runs/wrong/console/iter-1.log.release" 2>/dev/null; then
	bad "wrong kernel: the machine was rebooted again on the way back"
else
	ok "wrong kernel: no reboot on the way back"
fi
python3 -c 'import json,sys; it=json.load(open(sys.argv[1]))["iterations"][0]; assert it["status"]!="ok" and "booted the wrong kernel" in (it.get("error") or ""), it; assert not it.get("workloads")' \
	"$tmp/r/runs/wrong/results.json" && ok "wrong kernel: a failed iteration, no workload results" ||
	bad "wrong kernel: results.json"
echo "wrong kernel case: $(($(date +%s) - t1)) s"
clean_lab "wrong kernel, initrd_cache = 0"

echo "ssh_backend: $(($(date +%s) - start)) s"
finish
