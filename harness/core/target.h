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
 *   install_timeout = 900      ; and the other remote steps' deadlines,
 *                              ; seconds each (target_steps[])
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

/* The ssh backend's remote steps that run with a deadline of their own,
 * each set by a target-file key (whole seconds, 1..86400): the key, its
 * default and what it covers are in target_steps[]. */
enum target_step {
	TS_COPY,        /* copy_timeout: each file copied to the machine */
	TS_KBUILD_TREE, /* kbuild_tree_timeout: kbuild's kernel tree copied */
	TS_INSTALL,     /* install_timeout: the modules, depmod, mkinitramfs */
	TS_KEXEC,       /* kexec_timeout: kexec -l */
	TS_GRUB,        /* grub_timeout: reboot-once's /boot copies, grub-reboot */
	TS_MKFS,        /* mkfs_timeout: the scratch device formatted, mounted */
	TS_CLEANUP,     /* cleanup_timeout: what kbench put there removed */
	TS_N
};

struct target_step_def {
	const char *key; /* its key in the target file */
	int def_s;       /* its default, seconds */
	const char *what; /* what the deadline covers (docs, help) */
};
extern const struct target_step_def target_steps[TS_N];

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
	int step_timeout_s[TS_N];   /* each remote step's deadline (target_steps) */
};

/* Load NAME (configs/targets/NAME.ini) or a path into T. 0, or -1 after an
 * error naming the file, the line and what was expected. */
int target_load(const char *name, struct target *t);
/* Parse the INI text BUF (LEN bytes; PATH names it in errors; relative
 * paths are taken from DIR) into T: what target_load does after reading. */
int target_parse(const char *buf, size_t len, const char *path, struct target *t);
void target_release(struct target *t);

/* How a remote step ended, for target_step_cause. */
struct target_step_end {
	const char *step;   /* its name in messages: "making the initrd (mkinitramfs)" */
	const char *key;    /* the target-file key that sets its deadline */
	double limit_s;     /* that deadline */
	int timed_out;      /* cut off at the deadline */
	int interrupted;    /* cut off by Ctrl-C */
	int status;         /* otherwise its exit status (255: ssh's own failure) */
	const char *output; /* what it printed (the machine's words: untrusted), or NULL */
};

/* Why the step E failed, never empty, into OUT (for "cannot ...: CAUSE"):
 * a step cut off at its deadline says which step, after how long, and the
 * key that gives it more in the target file PATH; a failed one what it
 * printed (its last 300 bytes, control bytes as '?'), or, when it printed
 * nothing, its exit status. */
void target_step_cause(struct strbuf *out, const char *path, const struct target_step_end *e);

/* A remote step's script announces each part of it as it starts it, on a
 * line of its own: TARGET_PART_MARK ID. */
#define TARGET_PART_MARK "@kbench-step "
struct target_part {
	const char *id;   /* what the script prints after the mark */
	const char *name; /* the part in messages */
};
/* The name of the part last announced in OUT (a step's output: the
 * machine's, untrusted) among PARTS (ended by a NULL id; an id not there
 * is ignored), or DFLT when none was; every announcement line is taken
 * out of OUT. */
const char *target_step_part(struct strbuf *out, const struct target_part *parts,
			     const char *dflt);

/* S quoted for a POSIX shell on the far side of ssh: 'S' with each ' as
 * '\'' (every byte else is literal inside single quotes). */
void sh_quote(struct strbuf *out, const char *s);

#endif
