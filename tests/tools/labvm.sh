#!/bin/sh
# labvm.sh - a lab machine for the ssh backend: a small Debian 12 VM that
# kbench drives exactly as a remote bare-metal machine.
#
#   labvm.sh build            make (or find) the cached image; prints its dir
#   labvm.sh start DIR PORT   boot it (TCG) with ssh on 127.0.0.1:PORT and an
#                             empty second disk (/dev/vdb); DIR
#                             gets the console log (console.log), the monitor
#                             socket (monitor.sock), the pid (qemu.pid), a
#                             copy-on-write disk, known_hosts and the key
#   labvm.sh wait DIR PORT S  wait up to S seconds for ssh to answer
#   labvm.sh stop DIR         stop it
#   labvm.sh reset SOCK       power-cycle: system_reset on the monitor socket
#
# It has a compiler (make, gcc, flex, bison, bc, libelf and libssl
# headers): kbuild runs there on the tree kbench copies to it.
#
# It boots as a machine does: firmware (SeaBIOS), then GRUB from its disk
# (grub.lnx, GRUB's core image behind lnxboot.img, is QEMU's -kernel: the
# disk is one ext4 filesystem, no MBR to install GRUB into), which reads
# /boot/grub/grub.cfg and grubenv there. grub.cfg does what Debian's
# update-grub makes it do that kbench relies on: a one-time entry from
# grub-reboot (next_entry) and /boot/grub/custom.cfg (41_custom).
#
# The image (mmdebstrap from KBENCH_MIRROR, Debian's mirror by default) is
# cached by content under ~/.cache/kbench/labvm/HASH: the hash of the
# package list, the suite, the mirror and this script's setup steps. Only
# 127.0.0.1 is ever connected to.
set -eu
suite=bookworm
mirror=${KBENCH_MIRROR:-http://deb.debian.org/debian}
pkgs="openssh-server,kexec-tools,grub-pc-bin,grub2-common,systemd-sysv,udev,kmod,initramfs-tools,linux-image-amd64,rt-tests,dbench,procps,iproute2,zstd,make,gcc,libc6-dev,flex,bison,bc,libelf-dev,libssl-dev"
cache=${KBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kbench}/labvm
# the setup the image gets (part of the cache key)
setup_version=5
self=$(readlink -f "$0")

die() { echo "labvm: $*" >&2; exit 2; }

image_dir() {
	h=$(printf '%s\n' "$suite" "$mirror" "$pkgs" "$setup_version" | sha256sum | cut -c1-16)
	echo "$cache/$h"
}

# customize: runs with the root directory as $1 (mmdebstrap hook)
customize() {
	r=$1
	echo kbench-lab >"$r/etc/hostname"
	printf '/dev/vda / ext4 rw,errors=remount-ro 0 1\n' >"$r/etc/fstab"
	mkdir -p "$r/etc/systemd/network" "$r/root/.ssh" "$r/srv/kbench-scratch"
	printf '[Match]\nName=e*\n[Network]\nDHCP=yes\n' >"$r/etc/systemd/network/50-dhcp.network"
	chroot "$r" systemctl enable systemd-networkd ssh >/dev/null 2>&1
	# reboots are real reboots (kexec-tools must not turn them into kexecs)
	printf 'LOAD_KEXEC=false\n' >"$r/etc/default/kexec"
	# the initrd holds the drivers this machine uses (mkinitramfs is fast)
	sed -i 's/^MODULES=.*/MODULES=dep/' "$r/etc/initramfs-tools/initramfs.conf"
	echo 'PermitRootLogin prohibit-password' >"$r/etc/ssh/sshd_config.d/kbench-lab.conf"
	chroot "$r" passwd -d root >/dev/null
	# GRUB, as grub-install and update-grub would leave it
	mkdir -p "$r/boot/grub"
	cp -r "$r/usr/lib/grub/i386-pc" "$r/boot/grub/"
	chroot "$r" grub-editenv /boot/grub/grubenv create
	cat >"$r/boot/grub/grub.cfg" <<'EOF'
# the lab machine's grub.cfg: what Debian's update-grub writes, in short
serial --unit=0 --speed=115200
terminal_input serial console
terminal_output serial console
if [ -s $prefix/grubenv ]; then
  set have_grubenv=true
  load_env
fi
if [ "${next_entry}" ] ; then
  set default="${next_entry}"
  set next_entry=
  save_env next_entry
  set boot_once=true
else
  set default="0"
fi
set timeout=0
menuentry 'Debian GNU/Linux' --id debian {
  insmod part_msdos
  insmod ext2
  linux /vmlinuz root=/dev/vda rw console=ttyS0 net.ifnames=0 quiet
  initrd /initrd.img
}
### BEGIN /etc/grub.d/41_custom ###
if [ -f  ${config_directory}/custom.cfg ]; then
  source ${config_directory}/custom.cfg
elif [ -z "${config_directory}" -a -f  $prefix/custom.cfg ]; then
  source $prefix/custom.cfg
fi
### END /etc/grub.d/41_custom ###
EOF
	chroot "$r" grub-mkimage -O i386-pc -o /boot/grub/core.img -p '(hd0)/boot/grub' \
		biosdisk ext2 linux normal configfile loadenv search test echo serial terminal
}

build() {
	d=$(image_dir)
	if [ -f "$d/root.img" ]; then echo "$d"; return 0; fi
	command -v mmdebstrap >/dev/null || die "mmdebstrap missing (harness/deps.sh test installs it)"
	mkdir -p "$d"
	rm -rf "$d/rootfs" "$d/root.img.tmp"
	t0=$(date +%s)
	mmdebstrap --mode=root --variant=minbase --include="$pkgs" \
		--customize-hook="sh $self customize \"\$1\"" \
		"$suite" "$d/rootfs" "$mirror" >"$d/mmdebstrap.log" 2>&1 ||
		{ tail -20 "$d/mmdebstrap.log" >&2; die "mmdebstrap failed (log: $d/mmdebstrap.log)"; }
	rm -f "$d/id_ed25519" "$d/id_ed25519.pub"
	ssh-keygen -q -t ed25519 -N '' -C kbench-lab -f "$d/id_ed25519"
	install -m 600 "$d/id_ed25519.pub" "$d/rootfs/root/.ssh/authorized_keys"
	cp "$d/rootfs/etc/ssh/ssh_host_ed25519_key.pub" "$d/host_key.pub"
	cp -L "$d/rootfs/vmlinuz" "$d/vmlinuz"
	cp -L "$d/rootfs/initrd.img" "$d/initrd.img"
	cat "$d/rootfs/usr/lib/grub/i386-pc/lnxboot.img" "$d/rootfs/boot/grub/core.img" >"$d/grub.lnx"
	# mke2fs says "Creating regular file" on stdout even with -q: stdout is
	# the image directory here
	mkfs.ext4 -q -F -L kbench-lab -d "$d/rootfs" "$d/root.img.tmp" 6G >&2 ||
		die "mkfs.ext4 of the lab image failed"
	rm -rf "$d/rootfs"
	mv "$d/root.img.tmp" "$d/root.img"
	echo "labvm: image built in $(($(date +%s) - t0)) s: $d" >&2
	echo "$d"
}

start() {
	dir=$1 port=$2
	img=$(build)
	mkdir -p "$dir"
	qemu-img create -q -f qcow2 -b "$img/root.img" -F raw "$dir/disk.qcow2"
	# an empty second disk (/dev/vdb), for a scratch device kbench formats
	qemu-img create -q -f qcow2 "$dir/scratch.qcow2" 1G
	cp "$img/id_ed25519" "$dir/id" && chmod 600 "$dir/id"
	echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$img/host_key.pub")" >"$dir/known_hosts"
	: >"$dir/console.log"
	qemu-system-x86_64 -accel tcg -m 1536 -smp 2 -display none -no-user-config \
		-kernel "$img/grub.lnx" \
		-drive "file=$dir/disk.qcow2,if=virtio,format=qcow2" \
		-drive "file=$dir/scratch.qcow2,if=virtio,format=qcow2" \
		-nic "user,model=virtio-net-pci,hostfwd=tcp:127.0.0.1:$port-:22" \
		-serial "file:$dir/console.log" \
		-monitor "unix:$dir/monitor.sock,server,nowait" \
		-pidfile "$dir/qemu.pid" -daemonize
}

wait_ssh() {
	dir=$1 port=$2 secs=$3
	end=$(($(date +%s) + secs))
	while [ "$(date +%s)" -lt "$end" ]; do
		if ssh -o BatchMode=yes -o StrictHostKeyChecking=yes -o "UserKnownHostsFile=$dir/known_hosts" \
			-o ConnectTimeout=5 -i "$dir/id" -p "$port" root@127.0.0.1 true 2>/dev/null; then
			return 0
		fi
		sleep 2
	done
	die "no ssh on 127.0.0.1:$port within $secs s (console: $dir/console.log)"
}

stop() {
	dir=$1
	[ -f "$dir/qemu.pid" ] || return 0
	pid=$(cat "$dir/qemu.pid")
	kill "$pid" 2>/dev/null || true
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	kill -9 "$pid" 2>/dev/null || true
	rm -f "$dir/qemu.pid"
}

# QEMU greets a monitor client first; a command sent before the greeting
# and closed at once can be dropped (the greeting's write fails, input
# discarded): wait for the prompt, send, wait for the next prompt
reset() {
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(30)
s.connect(sys.argv[1])
def prompt():
    buf = b""
    while b"(qemu)" not in buf:
        d = s.recv(4096)
        if not d:
            sys.exit("labvm: the monitor closed before its prompt")
        buf += d
prompt()
s.sendall(b"system_reset\n")
prompt()
s.close()' "$1"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
build) build ;;
customize) customize "$1" ;;
start) start "$1" "$2" ;;
wait) wait_ssh "$1" "$2" "$3" ;;
stop) stop "$1" ;;
reset) reset "$1" ;;
*) die "usage: labvm.sh build | start DIR PORT | wait DIR PORT SECS | stop DIR | reset SOCK" ;;
esac
