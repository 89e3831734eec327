/* backend.h - the ways to run a guest (one file per backend) and their
 * registry.
 *
 * A backend boots a kernel with an initramfs whose /init is the kbench
 * agent, and hands guest.c a connected byte stream to the agent
 * (g->fd: a virtio-serial UNIX socket for QEMU; a TCP or serial stream
 * fits the same). What else it can give a guest it says in caps; what
 * only it can be told goes in its option table (core/opt.h) and its own
 * parameter struct, which run.c fills by option name.
 */
#ifndef KBENCH_BACKEND_H
#define KBENCH_BACKEND_H

#include <stddef.h>
#include "backend/guest.h"
#include "core/opt.h"

/* What a backend can give a guest. */
#define BK_CAP_SCRATCH_DISK (1u << 0) /* an empty ext4 disk, serial "scratch" */
#define BK_CAP_BUILD_DISK   (1u << 1) /* the kbuild tree disk, copy-on-write */
#define BK_CAP_HOSTROOT     (1u << 2) /* the host's toolchain, shared read-only */
#define BK_CAP_CONSOLE_LOG  (1u << 3) /* the kernel console in a host file */
#define BK_CAP_HARD_RESET   (1u << 4) /* a hung guest can be killed */
#define BK_CAP_SCRATCH_DIR  (1u << 5) /* the user's --scratch DIR instead of
				       * a scratch disk */
#define BK_CAP_RUNNING_KERNEL (1u << 6) /* runs on this machine's running
					 * kernel: nothing fetched, built or
					 * booted */
#define BK_CAP_TARGET (1u << 7) /* runs on a remote machine named by
				 * --target (configs/targets/, core/target.h) */
#define BK_CAP_NATIVE (1u << 8) /* the workloads run on this host, with its
				 * tools and kbench's cache at their paths
				 * (guest_cmd.native) */
#define BK_CAP_NET_AGENT (1u << 9) /* the agent reaches kbench over the
				    * guest's network (TCP): the image carries
				    * the network driver (virtio_net) */
#define BK_CAP_REMOTE (1u << 10) /* the workloads run on another machine
				  * (a target, a lab's device): host.machine
				  * is the facts its agent reports, not this
				  * host's (run.c bench_record) */

/* What kbench makes (and removes) in a --scratch DIR: the workloads'
 * scratch directory, and the mark that DIR is kbench's to use. */
#define BK_SCRATCH_SUBDIR "kbench-scratch"
#define BK_SCRATCH_MARK ".kbench-scratch"

/* What setup settled for the run. */
struct backend_info {
	char accel[16];        /* what really runs ("kvm", "tcg"), for results */
	char cpu[128];         /* the CPU model the guest is given (qemu: -cpu,
				* "host" under KVM), for results; "" when the
				* backend does not choose one */
	char tcg_thread[8];    /* qemu under TCG: "multi" or "single"
				* (-accel tcg,thread=), else "" */
	char timing[16];       /* the guest's clock: "wall" (the host's), or
				* "instructions" (qemu under TCG with
				* -icount: guest time is instructions run);
				* "" = wall (backends that run in real time) */
	int icount_shift;      /* "instructions": one instruction is 2^shift ns */
	double time_scale;     /* workload deadlines are multiplied by this */
	double boot_timeout_s; /* boot deadline unless the user gave one */
	/* A guest crash this setup is known to cause now and then (qemu:
	 * QEMU before 8.1 with multi-threaded TCG), not the kernel's fault:
	 * console text that marks it ("" = none known) and its cause, for
	 * the kernel-trouble message and results.json's kernel_trouble */
	char trouble_match[32];
	char trouble_cause[640];
};

struct backend_ops {
	const char *name;
	const char *description;
	unsigned caps;                /* BK_CAP_* */
	const struct opt_def *opts;   /* options only this backend has */
	size_t params_size;           /* its parameter struct ... */
	const void *defaults;         /* ... and that struct's defaults */
	/* Suffix of the backend's own log beside the console log ("" = none). */
	const char *side_log;
	/* The backend's version for results ("QEMU emulator version 7.2.0"). */
	int (*version)(char *out, size_t len);
	/* The host tools P needs; errors printed, -1 if any is missing. */
	int (*check_tools)(const struct boot_params *p);
	/* Once per run, with the images built: settle what PARAMS leave open
	 * (qemu probes KVM with a boot of PROBE) and fill INFO. */
	int (*setup)(void *params, const struct boot_params *probe, struct backend_info *info);
	/* Before each boot: what P asks for (scratch disk, build disk layer),
	 * under p->workdir. 0, or -1 with the reason in ERR. */
	int (*prepare)(const struct boot_params *p, char *err, size_t errlen);
	/* After each boot: remove what prepare made (but what is kept). */
	void (*cleanup)(const struct boot_params *p);
	/* Start the guest and connect g->fd to its agent (no handshake);
	 * g->priv is the backend's. 0, or -1 with g->err. */
	int (*start)(struct guest *g, const struct boot_params *p);
	/* Is it still running? 1 yes; 0 no, with why in g->err. */
	int (*alive)(struct guest *g);
	/* Wait up to TIMEOUT_S for it to end by itself, then kill it.
	 * Returns 0 if it ended by itself. */
	int (*stop)(struct guest *g, double timeout_s);
	/* Free g->priv (the guest is stopped). */
	void (*release)(struct guest *g);
	/* What the iteration's results say of where it ran (lava: the lab,
	 * job id and URL, device), or NULL; called before release, after a
	 * failed boot too. May be NULL. */
	json_object *(*facts)(struct guest *g);
	/* The iteration's workloads as results.json holds them (metrics
	 * parsed), before the power-off, the agent still there (lava: LAVA
	 * test cases). May be NULL. */
	void (*results)(struct guest *g, json_object *workloads);
};

extern const struct backend_ops qemu_backend;
extern const struct backend_ops local_backend;
extern const struct backend_ops ssh_backend;
extern const struct backend_ops lava_backend;
/* QEMU's arguments after its binary for boot P, the agent's socket at
 * SOCK: everything the guest gets of the host is here (test_harness
 * test_qemu_args checks it against docs/security.md). (qemu.c) */
void qemu_args(struct strvec *a, const struct boot_params *p, const char *sock);
/* KBENCH_QEMU_TCG_THREAD (multi or single) and KBENCH_QEMU_CPU (a CPU
 * model QEMU emulates, optionally with properties: max, qemu64,
 * max,-la57) and KBENCH_QEMU_ICOUNT_SHIFT (0-10) into PARAMS, the qemu
 * backend's parameters (its tcg_thread, tcg_cpu and icount_shift options;
 * unset or empty variables leave them). 0, or -1
 * with ERR naming the variable and what it expects. (qemu.c) */
int qemu_env_params(void *params, char *err, size_t errlen);
/* Does the QEMU of VERSION_LINE ("QEMU emulator version 7.2.22 (Debian
 * ...)") have multi-threaded TCG's cross-modifying-code race, fixed by
 * QEMU commit deba787 ("accel/tcg: Always lock pages before
 * translation", 8.1.0)? 1 yes (before 8.1), 0 no, -1 when the line has no
 * version. (qemu.c; docs/reliability.md "Boot oops under TCG") */
int qemu_tcg_smc_race(const char *version_line);
/* The agent's socket of a boot in WORKDIR, into OUT: WORKDIR/agent.sock,
 * or, when that is too long for a UNIX socket, agent.sock in a private
 * mkdtemp directory /tmp/kbench-sock.XXXXXX. 0, or -1 with ERR. (qemu.c) */
int qemu_sock_path(const char *workdir, char *out, size_t n, char *err, size_t errlen);
/* Remove SOCK, and its directory when it is a /tmp/kbench-sock.* one. */
void qemu_sock_remove(const char *sock);
/* The test steps of a LAVA job that run kbench's agent back to HOST:PORT
 * (IPv4), appended to STEPS: first eth0 brought up on QEMU's user network
 * unless NETWORK_UP (the lab file's device_network = up); an agent whose
 * host goes away tries to reach it again for RECONNECT_S seconds (0: it
 * ends); SESSION (hex) comes back in its hello. -1 for a bad HOST, PORT or
 * SESSION. (lava.c) */
int lava_agent_steps(const char *host, int port, int reconnect_s, int network_up,
		     const char *session, struct strvec *steps);
/* One /dev/kmsg record (LEN bytes) as a console line ("[   12.345678]
 * text") appended to OUT; -1 if it is not a record. (local.c) */
int local_kmsg_line(const char *rec, size_t len, struct strbuf *out);

/* kbench doctor --target NAME: ssh, kexec support, free space, the
 * scratch and TOOLS (NULL-terminated) on the machine, one ok/FAIL line
 * each. KB_EXIT_OK, KB_EXIT_FAILED, or KB_EXIT_USAGE (a bad target file).
 * (ssh.c) */
struct host_tool;
int ssh_doctor(const char *name, const struct host_tool *const *tools,
	       const struct host_tool *const *build);
/* Target NAME's running kernel: its release, its config (/proc/config.gz
 * or /boot/config-RELEASE) and /proc/modules, as the machine sent them
 * (untrusted: check them, kconfig_text_check). 0, or -1 with an error. */
int ssh_running_config(const char *name, char *release, size_t rlen, struct strbuf *config,
		       struct strbuf *modules);
/* boot = reboot-once: the one-time GRUB entry (custom.cfg's text) booting
 * RELEASE with the command line CL, @DIR@ standing for the directory of
 * its vmlinuz and initrd.img as GRUB sees it, into CFG. -1 (nothing
 * added) when CL has a control byte. */
int ssh_grub_entry(const char *release, const char *cl, struct strbuf *cfg);
/* The machine's answer OUT split at its marker lines: 0, or -1 when a
 * marker is missing (nothing checked beyond that). */
int ssh_running_config_split(const char *out, char *release, size_t rlen, struct strbuf *config,
			     struct strbuf *modules);

/* The backend called NAME (NULL = "qemu"), or NULL. */
const struct backend_ops *backend_find(const char *name);
/* Every registered backend, NULL-terminated. */
const struct backend_ops *const *backend_all(void);
/* "qemu, ..." into OUT. */
void backend_names(char *out, size_t len);
/* backend_find, or an error naming --backend and the known ones. */
const struct backend_ops *backend_lookup(const char *name);
/* A copy of B's defaults (free it). */
void *backend_params_new(const struct backend_ops *b);
/* Set option NAME of B to VALUE in PARAMS; an error naming the backend
 * and the option (and -1) when B has no such option or VALUE is bad. */
int backend_param_set(const struct backend_ops *b, void *params, const char *name,
		      const char *value);
/* Has B an option NAME? */
int backend_has_param(const struct backend_ops *b, const char *name);
/* B's parameters as a JSON object (results). */
json_object *backend_params_json(const struct backend_ops *b, const void *params);
/* Move the console log FROM to TO, with the backend's side log beside it.
 * Both are tried; -1 (warnings printed) if either move failed. */
int backend_logs_move(const struct backend_ops *b, const char *from, const char *to);

#endif
