/* lava_initrd.c - kbench's initramfs made usable by LAVA (lava_api.h).
 *
 * LAVA logs into a shell on the device's console and runs its test shell
 * from an overlay disk it adds (mounted by /dev/disk/by-uuid); kbench's
 * initramfs has the agent as /init and no shell on the console. The kernel
 * unpacks concatenated cpio archives one after the other, so the lava
 * flavour is kbench's initramfs, unchanged, followed by a small newc
 * archive holding /lava-init, and the job's command line says
 * rdinit=/lava-init. */
#include "backend/lava_api.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* /lava-init: the mounts the agent makes as PID 1 (debugfs for the lock
 * counters, a fresh tmpfs on /dev/shm for dbench's fs = tmpfs), the
 * modules kbench's guest loads (/etc/kbench/modules, the list the agent
 * reads as PID 1: virtio_blk, ext4 and, for the lava backend,
 * virtio_net among them), the
 * by-uuid links LAVA mounts its overlay by (from the ext4 superblock:
 * busybox has no blkid), then a login shell on the console. */
const char lava_init_script[] =
	"#!/bin/sh\n"
	"# kbench's initramfs under LAVA (harness/backend/lava_initrd.c)\n"
	"export PATH=/bin:/sbin:/usr/bin:/usr/sbin\n"
	"mount -t proc proc /proc\n"
	"mount -t sysfs sys /sys\n"
	"mount -t devtmpfs dev /dev\n"
	"mkdir -p /tmp /dev/disk/by-uuid /dev/shm /dev/pts\n"
	"mount -t debugfs debugfs /sys/kernel/debug\n"
	"mount -t tmpfs -o mode=1777 tmpfs /dev/shm\n"
	"mount -t devpts devpts /dev/pts\n"
	"if [ -f /etc/kbench/modules ]; then\n"
	"\twhile read -r m; do\n"
	"\t\tcase \"$m\" in '' | '#'*) continue ;; esac\n"
	"\t\tinsmod \"$m\" 2>/dev/null\n"
	"\tdone </etc/kbench/modules\n"
	"fi\n"
	"sleep 1\n"
	"for b in /sys/class/block/*; do\n"
	"\tn=${b##*/}\n"
	"\tm=$(dd if=/dev/$n bs=1 skip=1080 count=2 2>/dev/null | od -An -tx1 | tr -d ' \\n')\n"
	"\t[ \"$m\" = 53ef ] || continue\n"
	"\tx=$(dd if=/dev/$n bs=1 skip=1128 count=16 2>/dev/null | od -An -tx1 | tr -d ' \\n')\n"
	"\tu=$(echo $x | sed 's/^\\(.\\{8\\}\\)\\(.\\{4\\}\\)\\(.\\{4\\}\\)\\(.\\{4\\}\\)/\\1-\\2-\\3-\\4-/')\n"
	"\tln -sf ../../$n /dev/disk/by-uuid/$u\n"
	"done\n"
	"echo 'kbench: LAVA shell ready'\n"
	"exec setsid cttyhack sh -l\n";

/* One newc entry: header, NAME (with its NUL) padded to 4, DATA padded. */
static void newc_entry(struct strbuf *out, unsigned ino, unsigned mode, const char *name,
		       const char *data, size_t len)
{
	static const char zeros[4];
	size_t namesize = strlen(name) + 1;
	sb_addf(out, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X", ino, mode, 0u,
		0u, 1u, 0u, (unsigned)len, 0u, 0u, 0u, 0u, (unsigned)namesize, 0u);
	sb_add(out, name, namesize);
	sb_add(out, zeros, (4 - (110 + namesize) % 4) % 4);
	sb_add(out, data, len);
	sb_add(out, zeros, (4 - len % 4) % 4);
}

void lava_init_cpio(struct strbuf *out)
{
	newc_entry(out, 1, 0100755, "lava-init", lava_init_script, strlen(lava_init_script));
	newc_entry(out, 0, 0, "TRAILER!!!", "", 0);
	/* the kernel reads archives on 4-byte boundaries; tools like 512 */
	while (out->len % 512)
		sb_add(out, "", 1);
}

int lava_initrd(const char *base, const char *out)
{
	struct strbuf tail = STRBUF_INIT;
	char tmp[KB_PATH_MAX];
	int ret = -1, fd = -1, bad;
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", out, (long)getpid());
	if (copy_file(base, tmp, 0644))
		goto out;
	lava_init_cpio(&tail);
	fd = open(tmp, O_WRONLY | O_APPEND | O_CLOEXEC);
	bad = fd < 0 || write(fd, tail.buf, tail.len) != (ssize_t)tail.len || fsync(fd);
	/* closed whatever happened; a failed close is a failed write too */
	if ((fd >= 0 && close(fd)) || bad) {
		error("cannot append /lava-init to '%s'", tmp);
		goto out;
	}
	if (rename(tmp, out)) {
		error("cannot write '%s'", out);
		goto out;
	}
	ret = 0;
out:
	if (ret)
		unlink(tmp);
	sb_release(&tail);
	return ret;
}
