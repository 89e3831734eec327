/* target.h - a remote machine for the ssh backend: configs/targets/NAME.ini
 * (inih), checked like suites (file, line, key, what was expected).
 *
 *   [target]
 *   host = 192.0.2.10          ; ssh destination (no leading '-')
 *   port = 22
 *   user = root
 *   identity = ~/.ssh/id_lab   ; relative paths: from the target file
 *   known_hosts = lab.known_hosts
 *   host_key = strict          ; or accept-new
 *   boot = kexec               ; or reboot-once
 *   power_cycle = ipmitool -H bmc -U admin chassis power cycle
 *   console = ipmitool -H bmc -U admin sol activate
 *   scratch = /srv/kbench-scratch  ; or a block device, with:
 *   scratch_mkfs = no          ; ext4, xfs: formatted each iteration
 *   boot_timeout = 300
 *   ssh_timeout = 30
 *   initrd_cache = 2           ; initrds kept on it between runs
 *   kernel_config = variant    ; or localyes: source-built variants get
 *                              ; the machine's running config as base
 *
 * power_cycle and console are argv lists split at spaces and tabs, as
 * suites split their lists: no shell and no quoting.
 */
#ifndef KBENCH_TARGET_H
#define KBENCH_TARGET_H

/* Where the ssh backend mounts a scratch block device (scratch_mkfs) on
 * the machine, made and removed by kbench. */
#define TARGET_SCRATCH_MNT "/var/tmp/kbench.scratch"

#include "core/opt.h"
#include "core/util.h"

enum target_host_key { TK_STRICT, TK_ACCEPT_NEW };
enum target_boot { TB_KEXEC, TB_REBOOT_ONCE };
enum target_mkfs { TM_NO, TM_EXT4, TM_XFS };
enum target_kconfig { TKC_VARIANT, TKC_LOCALYES };

struct target {
	char path[KB_PATH_MAX];
	char name[64];              /* the file's base name */
	char host[OPT_STR_MAX];
	int port;
	char user[OPT_STR_MAX];
	char identity[KB_PATH_MAX]; /* "" = ssh's default */
	char known_hosts[KB_PATH_MAX];
	int host_key;               /* enum target_host_key */
	int boot;                   /* enum target_boot */
	struct strvec power_cycle;  /* empty = none */
	struct strvec console;      /* empty = none */
	char scratch[OPT_STR_MAX];  /* a directory or a block device */
	int scratch_mkfs;           /* 0 no, 1 ext4, 2 xfs: scratch is a device */
	int boot_timeout_s;
	int ssh_timeout_s;
	int initrd_cache;           /* initrds kept in its /var/tmp/kbench-cache */
	int kernel_config;          /* enum target_kconfig (run/targetcfg.h) */
};

/* Load NAME (configs/targets/NAME.ini) or a path into T. 0, or -1 after an
 * error naming the file, the line and what was expected. */
int target_load(const char *name, struct target *t);
/* Parse the INI text BUF (LEN bytes; PATH names it in errors; relative
 * paths are taken from DIR) into T: what target_load does after reading. */
int target_parse(const char *buf, size_t len, const char *path, struct target *t);
void target_release(struct target *t);

/* S quoted for a POSIX shell on the far side of ssh: 'S' with each ' as
 * '\'' (every byte else is literal inside single quotes). */
void sh_quote(struct strbuf *out, const char *s);

#endif
