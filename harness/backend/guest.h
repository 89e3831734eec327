/* guest.h - a booted guest, whatever runs it, and the agent protocol. */
#ifndef KBENCH_GUEST_H
#define KBENCH_GUEST_H

#include <json-c/json.h>
#include "core/spawn.h"

/* The qemu backend's accelerators (qemu.c; its "accel" option), here
 * because run_opts carries --accel. */
enum accel {
	ACCEL_AUTO,
	ACCEL_KVM,
	ACCEL_TCG,
};
const char *accel_name(enum accel a);
/* "auto", "kvm" or "tcg" into *A; else an error naming --accel and -1. */
int accel_parse(const char *s, enum accel *a);

/* The guest's clock under the qemu backend (its "timing" option, --timing;
 * docs/timing.md): WALL, the host's (figures are wall time, as on
 * hardware, and move with the host's load); INSTRUCTIONS, QEMU's
 * instruction counter (-icount shift=N,sleep=off under single-threaded
 * TCG: guest time is the instructions the guest ran, so figures repeat
 * from boot to boot whatever else the host runs, but they are path
 * lengths, not hardware times); AUTO, INSTRUCTIONS when the run is under
 * TCG, else WALL (nightlies and bisections default to it). DEFAULT is
 * run_opts' "not given": the command's own default applies. */
enum timing {
	TIMING_DEFAULT,
	TIMING_WALL,
	TIMING_INSTRUCTIONS,
	TIMING_AUTO,
};
const char *timing_name(enum timing t);
/* "wall", "instructions" (or "icount") or "auto" into *T; else an error
 * naming --timing and -1. */
int timing_parse(const char *s, enum timing *t);

/* What a boot needs, whatever runs it. A backend without the capability
 * for a resource the guest asks for refuses it (run.c checks the caps). */
struct boot_params {
	const char *kernel;      /* bzImage / vmlinuz */
	const char *initrd;
	const char *cmdline;     /* extra kernel command line */
	const char *console_log; /* where the kernel console goes */
	const char *workdir;     /* for sockets, disks and temporary files */
	int vcpus;
	int mem_mb;
	double boot_timeout_s;   /* start to agent hello */
	int scratch_mb;          /* an empty ext4 disk of this size (serial
				  * "scratch"), 0 = none (BK_CAP_SCRATCH_DISK) */
	const char *scratch_dir; /* the user's scratch directory (--scratch),
				  * or NULL (BK_CAP_SCRATCH_DIR) */
	const char *build_disk;  /* the kbuild tree disk (raw, never written:
				  * the guest writes to a copy-on-write layer),
				  * or NULL (BK_CAP_BUILD_DISK) */
	int build_disk_keep;     /* keep that layer across boots */
	int hostroot;            /* share the host's toolchain (BK_CAP_HOSTROOT) */
	const char *build_tree;  /* kbuild on a remote machine: the source tree
				  * it gets (once: BK_CAP_TARGET), or NULL */
	const char *build_tree_key; /* ... and its directory's name there, under
				     * KB_TARGET_KBUILD_DIR */
	const char *release;     /* the kernel's release (uname -r) */
	const char *kconfig;     /* its .config ("" = none) */
	const char *moddir;      /* its modules directory ("" = none); a
				  * backend that boots a machine's own
				  * userspace installs them (ssh.c) */
	int cpus_as_sockets;     /* give each vCPU its own socket: a kernel
				  * without ACPI reads the BIOS MP table, where
				  * SeaBIOS lists one CPU per socket */
	const char *agent;       /* the agent program (a backend that boots
				  * nothing runs it as a host process) */
	const void *bparams;     /* the backend's own parameters, NULL = its
				  * defaults (backend.h) */
};

struct backend_ops;

struct guest {
	const struct backend_ops *ops;
	void *priv;             /* the backend's state (its process, socket) */
	int fd;                 /* agent channel: a connected byte stream */
	struct strbuf rbuf;     /* bytes read but not yet a full line */
	double t_start;         /* monotonic time at start */
	double t_ready;         /* monotonic time at hello */
	json_object *hello;     /* the agent's hello, owned */
	int next_id;
	char err[512];          /* why the last call failed */
	int timed_out;          /* the last call hit its deadline */
	struct strbuf *journal; /* set by a backend: every line sent ("> LINE\n")
				 * and received ("< LINE\n"), as the agent's
				 * --journal keeps them (lava: checked against
				 * the job log's results block) */
};

void guest_init(struct guest *g, const struct backend_ops *ops);
/* Start C (its argv set: the agent with --transport=stdio, or ssh running
 * it) with one end of a socket pair as its stdin and stdout, and the
 * other end in g->fd. 0, or -1 with g->err. (local.c, ssh.c) */
int guest_spawn_agent(struct guest *g, struct child *c);
/* Start and handshake: 0, or -1 with g->err set. A backend's start may
 * say hello itself (guest_hello), to know whose agent connected. */
int guest_boot(struct guest *g, const struct boot_params *p);
/* Say hello on g->fd and wait up to TIMEOUT_S for the agent's, which goes
 * into g->hello (its protocol version is guest_boot's to check). 0, or -1
 * with g->err. */
int guest_hello(struct guest *g, double timeout_s);
/* Send REQ (an "id" is added), wait for its result. *RESP is owned by the
 * caller. 0 on a result, -1 with g->err (and g->timed_out) otherwise. */
int guest_call(struct guest *g, json_object *req, double timeout_s, json_object **resp);
/* The agent's write op: DATA into PATH in the guest. 0, or -1. */
int guest_write(struct guest *g, const char *path, const char *data);
/* The agent's read op: PATH in the guest, owned by the caller, or NULL. */
char *guest_read(struct guest *g, const char *path);
/* Ask the agent to power off and wait; kill on deadline. */
int guest_shutdown(struct guest *g, double timeout_s);
void guest_release(struct guest *g);

/*
 * Parse one line the agent sent (LEN bytes, without its '\n'; untrusted):
 * exactly one JSON object with a string "op". Returns 0 with the object in
 * *OUT (owned by the caller), or -1 with a reason in ERR.
 */
int proto_parse_line(const char *buf, size_t len, json_object **out, char *err, size_t errlen);

/* Probe whether KVM really boots (cached for a day) with a qemu boot of
 * PROBE; AUTO resolves here. A line saying which accelerator runs is
 * printed. (The qemu backend's; qemu.c.) */
enum accel accel_resolve(enum accel want, const struct boot_params *probe);

#endif
