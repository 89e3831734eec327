/* hostroot.h - the host's toolchain inside the guest (kbuild): /usr and
 * any top-level directory that is not a symlink into /usr, and a staged
 * copy of the part of /etc the toolchain reads (never the host's /etc),
 * shared read-only over virtio-9p and assembled by the agent under
 * KB_HOSTROOT. */
#ifndef KBENCH_HOSTROOT_H
#define KBENCH_HOSTROOT_H

#include "backend/guest.h"

#define HOSTROOT_MAX 16

struct host_entry {
	char name[32];    /* top-level name: "usr", "bin", ... */
	int is_link;      /* a symlink (recreated in the guest) */
	char target[256]; /* its target, when a link */
	char tag[32];     /* 9p mount tag, when shared */
};

/* The entries of the host root the guest needs; count or -1. */
int hostroot_layout(struct host_entry *e, int max);
/* PATH as a value inside QEMU's comma-separated options (-chardev,
 * -drive, -fsdev): each ',' written ',,' (QEMU's rule), so a comma in a
 * path cannot add options. Newly allocated. */
char *qemu_opt_escape(const char *path);
/* 0 if QEMU can take PATH as an option value; -1 if it has a character it
 * cannot (a newline or another control character). */
int qemu_path_ok(const char *path);
/* The staged /etc of a boot whose work directory is WORKDIR. */
void hostroot_etc_dir(const char *workdir, char *out, size_t n);
/* Stage in DIR (emptied first) the guest's /etc from ETC ("/etc"): the
 * loader's cache and configuration, the alternatives links and
 * openssl.cnf, each only if world-readable, and a passwd and group of
 * root and nobody. Nothing else of ETC (no shadow, ssh, ssl/private,
 * sudoers). 0, or -1 with an error printed. */
int hostroot_stage_etc(const char *etc, const char *dir);
/* QEMU arguments that share them (-fsdev/-device pairs), /etc from
 * hostroot_etc_dir(WORKDIR). */
void hostroot_qemu_args(struct strvec *argv, const char *workdir);
/* Assemble the root in a booted guest: tmpfs, 9p shares, links, proc,
 * sys, dev, tmp; then the kbuild disk (serial KB_KBUILD_SERIAL) at
 * DISK_MOUNT when given. 0, or -1 with ERR set. */
int hostroot_setup(struct guest *g, const char *disk_mount, char *err, size_t errlen);

#endif
