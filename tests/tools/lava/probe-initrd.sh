#!/bin/sh
# probe-initrd.sh KERNEL_DIR RELEASE OUT: a busybox initramfs that LAVA's
# qemu test shell can use with a Debian kernel (KERNEL_DIR holds
# lib/modules/RELEASE): the modules of LAVA's overlay disk (virtio_blk,
# ext4 and what they need, decompressed: busybox's insmod reads no .xz)
# and /dev/disk/by-uuid links made from the ext4 superblock (Debian's
# busybox-static has no blkid), then a shell on the console. For
# tests/tools/lava/probe-job.yaml, kept for diagnosing a lab by hand (docs/lab.md;
# no test runs it).
set -eu
KD=$1 V=$2 OUT=$3
r=$(mktemp -d)
mkdir -p $r/bin $r/proc $r/sys $r/dev $r/lib/mod $r/tmp $r/root
cp /bin/busybox $r/bin/busybox
for a in $(/bin/busybox --list); do [ "$a" = busybox ] || ln -sf busybox $r/bin/$a; done
mkdir -p $r/sbin $r/usr/bin $r/usr/sbin
i=0
modprobe -S $V -d $KD -a --show-depends virtio_blk ext4 | while read -r _ p _; do
	i=$((i + 1)); n=$(printf '%02d' $i)-$(basename $p .xz)
	xz -dc $p > $r/lib/mod/$n
done
cat > $r/init <<'EOI'
#!/bin/sh
export PATH=/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for m in /lib/mod/*; do insmod $m; done
sleep 1
mkdir -p /dev/disk/by-uuid
for b in /sys/class/block/*; do
	n=${b##*/}
	# an ext4 superblock: magic ef53 at 1080, UUID at 1128 (no blkid here)
	m=$(dd if=/dev/$n bs=1 skip=1080 count=2 2>/dev/null | od -An -tx1 | tr -d ' \n')
	[ "$m" = 53ef ] || continue
	x=$(dd if=/dev/$n bs=1 skip=1128 count=16 2>/dev/null | od -An -tx1 | tr -d ' \n')
	u=$(echo $x | sed 's/^\(.\{8\}\)\(.\{4\}\)\(.\{4\}\)\(.\{4\}\)/\1-\2-\3-\4-/')
	ln -sf ../../$n /dev/disk/by-uuid/$u
done
echo "kbench-lab initramfs ready"
exec setsid cttyhack sh -l
EOI
chmod 755 $r/init
(cd $r && find . | cpio -o -H newc 2>/dev/null | gzip -1) > $OUT
rm -rf $r
