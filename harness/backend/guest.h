/* guest.h - a booted guest, whatever runs it, and the agent protocol. */
#ifndef KBENCH_GUEST_H
#define KBENCH_GUEST_H

#include <json-c/json.h>
#include "core/spawn.h"

enum accel {
	ACCEL_AUTO,
	ACCEL_KVM,
	ACCEL_TCG,
};
const char *accel_name(enum accel a);
/* "auto", "kvm" or "tcg" into *A; else an error naming --accel and -1. */
int accel_parse(const char *s, enum accel *a);

struct boot_params {
	const char *kernel;      /* bzImage / vmlinuz */
	const char *initrd;
	const char *scratch;     /* raw disk image, or NULL (serial "scratch") */
	const char *kbuild_disk; /* qcow2 copy of the kbuild tree disk, or NULL */
	int hostroot;            /* share the host's toolchain over 9p (kbuild) */
	const char *cmdline;     /* extra kernel command line */
	const char *console_log; /* where the serial console goes */
	const char *workdir;     /* for sockets and temporary files */
	int vcpus;
	int mem_mb;
	enum accel accel;        /* KVM or TCG (AUTO resolved by the caller) */
	double boot_timeout_s;   /* QEMU start to agent hello */
};

struct guest;

/* A way to run guests (one file per backend). */
struct backend_ops {
	const char *name;
	/* Start the guest and connect to its agent's channel (no handshake). */
	int (*start)(struct guest *g, const struct boot_params *p);
	/* Is it still running? 1 yes, 0 no. */
	int (*alive)(struct guest *g);
	/* Wait up to TIMEOUT_S for it to end by itself, then kill it.
	 * Returns 0 if it ended by itself. */
	int (*stop)(struct guest *g, double timeout_s);
	/* Describe the backend's version for results (e.g. QEMU version). */
	int (*version)(char *out, size_t len);
};

extern const struct backend_ops qemu_backend;

struct guest {
	const struct backend_ops *ops;
	struct child proc;      /* QEMU for the qemu backend */
	int fd;                 /* agent channel */
	char sock[KB_PATH_MAX];
	struct strbuf rbuf;     /* bytes read but not yet a full line */
	double t_start;         /* monotonic time at start */
	double t_ready;         /* monotonic time at hello */
	json_object *hello;     /* the agent's hello, owned */
	int next_id;
	char err[512];          /* why the last call failed */
	int timed_out;          /* the last call hit its deadline */
};

void guest_init(struct guest *g, const struct backend_ops *ops);
/* Start and handshake: 0, or -1 with g->err set. */
int guest_boot(struct guest *g, const struct boot_params *p);
/* Send REQ (an "id" is added), wait for its result. *RESP is owned by the
 * caller. 0 on a result, -1 with g->err (and g->timed_out) otherwise. */
int guest_call(struct guest *g, json_object *req, double timeout_s, json_object **resp);
/* Ask the agent to power off and wait; kill on deadline. */
int guest_shutdown(struct guest *g, double timeout_s);
void guest_release(struct guest *g);

/*
 * Parse one line the agent sent (LEN bytes, without its '\n'; untrusted):
 * exactly one JSON object with a string "op". Returns 0 with the object in
 * *OUT (owned by the caller), or -1 with a reason in ERR.
 */
int proto_parse_line(const char *buf, size_t len, json_object **out, char *err, size_t errlen);

/* Probe whether KVM really boots (cached for a day); AUTO resolves here.
 * A line saying which accelerator runs is printed. */
enum accel accel_resolve(enum accel want, const struct boot_params *probe);

#endif
