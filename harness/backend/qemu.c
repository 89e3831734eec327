/* qemu.c - the QEMU backend: direct kernel boot, no graphics, console to a
 * log file, the agent on a virtio-serial port behind a UNIX socket. Its
 * own parameters (accelerator, deadlines under emulation, TCG's threading
 * and CPU model) are its option table; its process and socket are its
 * private state. */
#include "backend/backend.h"
#include "backend/hostroot.h"
#include "backend/image.h"
#include "agent/proto.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define QEMU_BIN "qemu-system-x86_64"

/* -icount shift= under instructions timing (docs/timing.md, "Choosing the
 * settings", has the measurement behind it). */
#define ICOUNT_SHIFT_DEFAULT 3

/* The qemu backend's parameters (its option table below). */
struct qemu_params {
	int accel;           /* enum accel; AUTO is resolved by setup */
	double tcg_scale;    /* workload deadlines under TCG */
	int boot_timeout_kvm;
	int boot_timeout_tcg;
	int tcg_thread;      /* index into tcg_thread_choices */
	char tcg_cpu[OPT_STR_MAX]; /* -cpu under TCG (KVM: host) */
	int timing;          /* index into timing_choices; setup resolves auto */
	int icount_shift;    /* -icount shift= under instructions timing */
	double icount_scale; /* ... and deadlines this many times longer again */
};

static const char *const accel_choices[] = { "auto", "kvm", "tcg", NULL };
static const char *const tcg_thread_choices[] = { "multi", "single", NULL };
/* the order of enum timing after TIMING_DEFAULT */
static const char *const timing_choices[] = { "wall", "instructions", "auto", NULL };
enum { TM_WALL, TM_INSTRUCTIONS, TM_AUTO };

/* The longest -cpu value taken from KBENCH_QEMU_CPU (it is recorded in
 * backend_info.cpu). */
#define QEMU_CPU_MAX 127
_Static_assert(sizeof(((struct backend_info *)0)->cpu) > QEMU_CPU_MAX, "backend_info.cpu");

#define P(f) offsetof(struct qemu_params, f)
static const struct opt_def qemu_opts[] = {
	{ "accel", OPT_ENUM, P(accel), 0, 0, accel_choices,
	  "accelerator: auto probes KVM with a real boot, else TCG (--accel)" },
	{ "tcg_scale", OPT_DOUBLE, P(tcg_scale), 1, 100, NULL,
	  "workload deadlines are this many times longer under TCG" },
	{ "boot_timeout_kvm", OPT_INT, P(boot_timeout_kvm), 1, 3600, NULL,
	  "seconds from start to the agent's hello under KVM" },
	{ "boot_timeout_tcg", OPT_INT, P(boot_timeout_tcg), 1, 3600, NULL,
	  "seconds from start to the agent's hello under TCG (boots take seconds "
	  "there, much longer on a busy host)" },
	{ "tcg_thread", OPT_ENUM, P(tcg_thread), 0, 0, tcg_thread_choices,
	  "TCG's threading: multi (a host thread per vCPU) or single (the vCPUs take "
	  "turns on one thread) (KBENCH_QEMU_TCG_THREAD)" },
	{ "tcg_cpu", OPT_STRING, P(tcg_cpu), 0, 0, NULL,
	  "the CPU model QEMU emulates under TCG (KBENCH_QEMU_CPU)" },
	{ "timing", OPT_ENUM, P(timing), 0, 0, timing_choices,
	  "the guest's clock: wall (the host's), instructions (QEMU's instruction "
	  "counter under single-threaded TCG: figures repeat whatever the host's load; "
	  "docs/timing.md) or auto (instructions under TCG, else wall) (--timing)" },
	{ "icount_shift", OPT_INT, P(icount_shift), 0, 10, NULL,
	  "instructions timing: one guest instruction is 2^shift ns of guest time" },
	{ "icount_scale", OPT_DOUBLE, P(icount_scale), 1, 100, NULL,
	  "instructions timing: workload and boot deadlines this many times longer "
	  "again than under plain TCG (the vCPUs take turns on one host thread)" },
	OPT_END
};
#undef P

static const struct qemu_params qemu_defaults = {
	.accel = ACCEL_AUTO,
	.tcg_scale = 3.0,
	.boot_timeout_kvm = 60,
	.boot_timeout_tcg = 180,
	.tcg_thread = 0,
	.tcg_cpu = "max",
	.timing = TM_WALL,
	.icount_shift = ICOUNT_SHIFT_DEFAULT,
	.icount_scale = 2.0,
};

/* A running guest's QEMU. */
struct qemu_guest {
	struct child proc;
	char sock[KB_PATH_MAX];
};

static const struct qemu_params *qparams(const struct boot_params *p)
{
	return p->bparams ? p->bparams : &qemu_defaults;
}


/* A virtio disk of the image PATH (FORMAT), whose serial (the guest's
 * /dev/disk/by-id name) is also its drive id. */
static void virtio_disk(struct strvec *a, const char *path, const char *format, const char *serial)
{
	char *e = qemu_opt_escape(path);
	strvec_push(a, "-drive");
	strvec_pushf(a, "file=%s,if=none,id=%s,format=%s,cache=unsafe", e, serial, format);
	free(e);
	strvec_push(a, "-device");
	strvec_pushf(a, "virtio-blk-pci,drive=%s,serial=%s", serial, serial);
}

/* The disks of a boot live in its work directory. */
static void scratch_path(const struct boot_params *p, char *out, size_t n)
{
	snprintf(out, n, "%s/scratch.img", p->workdir);
}

static void overlay_path(const struct boot_params *p, char *out, size_t n)
{
	snprintf(out, n, "%s/kbuild.qcow2", p->workdir);
}

const char *accel_name(enum accel a)
{
	switch (a) {
	case ACCEL_KVM:
		return "kvm";
	case ACCEL_TCG:
		return "tcg";
	default:
		return "auto";
	}
}

int accel_parse(const char *s, enum accel *a)
{
	if (!strcmp(s, "auto"))
		*a = ACCEL_AUTO;
	else if (!strcmp(s, "kvm"))
		*a = ACCEL_KVM;
	else if (!strcmp(s, "tcg"))
		*a = ACCEL_TCG;
	else
		return error("--accel expects auto, kvm or tcg, got '%s'", s);
	return 0;
}

const char *timing_name(enum timing t)
{
	switch (t) {
	case TIMING_WALL:
		return "wall";
	case TIMING_INSTRUCTIONS:
		return "instructions";
	case TIMING_AUTO:
		return "auto";
	default:
		return "default";
	}
}

int timing_parse(const char *s, enum timing *t)
{
	if (!strcmp(s, "wall"))
		*t = TIMING_WALL;
	else if (!strcmp(s, "instructions") || !strcmp(s, "icount"))
		*t = TIMING_INSTRUCTIONS;
	else if (!strcmp(s, "auto"))
		*t = TIMING_AUTO;
	else
		return error("--timing expects wall (the host's clock), instructions (QEMU's "
			     "instruction counter, TCG only) or auto (instructions under TCG), got '%s'", s);
	return 0;
}

/* S's first N bytes for a message: control and non-ASCII bytes as '?'. */
static void shown(const char *s, char *out, size_t n)
{
	size_t i;
	for (i = 0; s[i] && i + 1 < n; i++)
		out[i] = s[i] >= ' ' && s[i] < 127 ? s[i] : '?';
	if (n)
		out[i] = '\0';
}

/* Is S one -cpu value and nothing else: MODEL[,PROP]..., MODEL a word
 * [A-Za-z0-9][A-Za-z0-9._-]*, each PROP +NAME, -NAME or NAME[=VALUE] of
 * such words (max,-la57; qemu64,+ssse3; Skylake-Client-v4,pmu=off)? The
 * model's length into *MODEL_LEN. One argument QEMU reads as the CPU, never
 * a second option. */
static int cpu_value_ok(const char *s, size_t *model_len)
{
	static const char word[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				   "0123456789._-";
	size_t n = strlen(s), k;
	if (n < 1 || n > QEMU_CPU_MAX || !isalnum((unsigned char)s[0]))
		return 0;
	*model_len = strspn(s, word);
	s += *model_len;
	while (*s == ',') {
		int sign = s[1] == '+' || s[1] == '-';
		s += 1 + sign;
		if (!(k = strspn(s, word)))
			return 0;
		s += k;
		if (*s == '=' && !sign) {
			if (!(k = strspn(s + 1, word)))
				return 0;
			s += 1 + k;
		}
	}
	return *s == '\0';
}

int qemu_env_params(void *params, char *err, size_t errlen)
{
	struct qemu_params *qp = params;
	const char *t = getenv("KBENCH_QEMU_TCG_THREAD"), *c = getenv("KBENCH_QEMU_CPU");
	const char *sh = getenv("KBENCH_QEMU_ICOUNT_SHIFT");
	char show[80];
	size_t ml = 0;
	if (sh && *sh) {
		char *end;
		long v = strtol(sh, &end, 10);
		if (*end || end == sh || v < 0 || v > 10) {
			shown(sh, show, sizeof(show));
			snprintf(err, errlen, "KBENCH_QEMU_ICOUNT_SHIFT expects 0-10 (one guest instruction "
				 "is 2^shift ns under instructions timing), got '%s'", show);
			return -1;
		}
		qp->icount_shift = (int)v;
	}
	if (t && *t) {
		if (!strcmp(t, "multi") || !strcmp(t, "single")) {
			qp->tcg_thread = !strcmp(t, "single");
		} else {
			shown(t, show, sizeof(show));
			snprintf(err, errlen, "KBENCH_QEMU_TCG_THREAD expects multi or single (TCG's "
				 "threading), got '%s'", show);
			return -1;
		}
	}
	if (!c || !*c)
		return 0;
	shown(c, show, sizeof(show));
	if (!cpu_value_ok(c, &ml)) {
		snprintf(err, errlen, "KBENCH_QEMU_CPU expects a QEMU CPU model, optionally with "
			 "properties (max, qemu64, Skylake-Client-v4, max,-la57: letters, digits, "
			 "'._-', ',+=', at most %d characters), got '%s'", QEMU_CPU_MAX, show);
		return -1;
	}
	if ((ml == 4 && !strncmp(c, "host", 4)) || (ml == 4 && !strncmp(c, "help", 4))) {
		snprintf(err, errlen, "KBENCH_QEMU_CPU is the CPU model QEMU emulates under TCG; "
			 "'%.4s' is not one (host needs KVM): give max, qemu64 or a named model "
			 "(qemu-system-x86_64 -cpu help lists them)", c);
		return -1;
	}
	snprintf(qp->tcg_cpu, sizeof(qp->tcg_cpu), "%s", c);
	return 0;
}

/* Does this QEMU know CPU model MODEL (its first LEN bytes)? 1 yes, 0 no,
 * -1 when `-cpu help` cannot tell (it failed, or its list is not the
 * "x86 NAME  description" lines QEMU 7 prints). */
static int qemu_knows_cpu(const char *model, size_t len)
{
	const char *argv[] = { QEMU_BIN, "-cpu", "help", NULL };
	struct strbuf sb = STRBUF_INIT;
	int found = -1;
	if (run_capture(argv, 20, &sb) == 0 && sb.buf) {
		for (char *l = sb.buf, *nl; l; l = nl) {
			const char *name;
			if ((nl = strchr(l, '\n')))
				*nl++ = '\0';
			if (!strncmp(l, "Recognized", 10))
				break; /* the CPUID flags follow */
			if (strncmp(l, "x86 ", 4))
				continue;
			name = l + 4 + strspn(l + 4, " ");
			if (found < 0)
				found = 0;
			if (!strncmp(name, model, len) && (!name[len] || isspace((unsigned char)name[len])))
				found = 1;
		}
	}
	sb_release(&sb);
	return found;
}

static void push_machine(struct strvec *a, const struct boot_params *p)
{
	const struct qemu_params *qp = qparams(p);
	strvec_push(a, "-nodefaults");
	strvec_push(a, "-no-user-config");
	strvec_push(a, "-display");
	strvec_push(a, "none");
	strvec_push(a, "-no-reboot");
	strvec_push(a, "-machine");
	strvec_push(a, "q35");
	strvec_push(a, "-accel");
	if (qp->accel == ACCEL_KVM) {
		strvec_push(a, "kvm");
	} else if (qp->timing == TM_INSTRUCTIONS) {
		/* the guest's clock is its instruction count: the vCPUs take
		 * turns on one thread (QEMU refuses icount with MTTCG),
		 * sleep=off lets guest time jump over idle periods instead of
		 * waiting for the host's, and the RTC follows guest time */
		strvec_push(a, "tcg,thread=single");
		strvec_push(a, "-icount");
		strvec_pushf(a, "shift=%d,sleep=off", qp->icount_shift);
		strvec_push(a, "-rtc");
		strvec_push(a, "clock=vm");
	} else {
		strvec_pushf(a, "tcg,thread=%s", tcg_thread_choices[qp->tcg_thread ? 1 : 0]);
	}
	strvec_push(a, "-cpu");
	strvec_push(a, qp->accel == ACCEL_KVM ? "host" : qp->tcg_cpu);
	strvec_push(a, "-smp");
	if (p->cpus_as_sockets)
		strvec_pushf(a, "%d,sockets=%d,cores=1,threads=1", p->vcpus, p->vcpus);
	else
		strvec_pushf(a, "%d", p->vcpus);
	strvec_push(a, "-m");
	strvec_pushf(a, "%d", p->mem_mb);
	strvec_push(a, "-kernel");
	strvec_push(a, p->kernel);
	strvec_push(a, "-initrd");
	strvec_push(a, p->initrd);
	strvec_push(a, "-append");
	/* panic=-1: a panic reboots at once, and -no-reboot ends QEMU */
	strvec_pushf(a, "console=ttyS0 panic=-1 loglevel=5 %s", p->cmdline ? p->cmdline : "");
	char *con = qemu_opt_escape(p->console_log);
	strvec_push(a, "-chardev");
	strvec_pushf(a, "file,id=con,path=%s", con);
	free(con);
	strvec_push(a, "-serial");
	strvec_push(a, "chardev:con");
}

static void push_devices(struct strvec *a, const struct boot_params *p, const char *sock)
{
	char path[KB_PATH_MAX], *e = qemu_opt_escape(sock);
	strvec_push(a, "-device");
	strvec_push(a, "virtio-serial-pci,id=vser");
	strvec_push(a, "-chardev");
	strvec_pushf(a, "socket,id=agent,path=%s,server=on,wait=off", e);
	free(e);
	strvec_push(a, "-device");
	strvec_push(a, "virtserialport,bus=vser.0,chardev=agent,name=" KB_PORT_NAME);
	if (p->scratch_mb) {
		scratch_path(p, path, sizeof(path));
		virtio_disk(a, path, "raw", "scratch");
	}
	if (p->build_disk) {
		overlay_path(p, path, sizeof(path));
		virtio_disk(a, path, "qcow2", KB_KBUILD_SERIAL);
	}
	if (p->hostroot)
		hostroot_qemu_args(a, p->workdir);
}

/* Connect to the agent socket once QEMU has created it. */
static int qemu_connect(struct guest *g, const struct boot_params *p)
{
	struct qemu_guest *q = g->priv;
	struct sockaddr_un sa;
	double deadline = now_mono() + 30;
	int fd;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", q->sock);
	for (;;) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return snprintf(g->err, sizeof(g->err), "socket: %s", strerror(errno)), -1;
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			break;
		close(fd);
		if (child_poll(&q->proc) != 0) {
			snprintf(g->err, sizeof(g->err),
				 "QEMU exited at start (status %d); see '%s.qemu'", q->proc.status,
				 p->console_log);
			return -1;
		}
		if (now_mono() > deadline) {
			snprintf(g->err, sizeof(g->err), "QEMU did not open its agent socket in 30 s");
			return -1;
		}
		usleep(20000);
	}
	g->fd = fd;
	return 0;
}

int qemu_sock_path(const char *workdir, char *out, size_t n, char *err, size_t errlen)
{
	struct sockaddr_un sa;
	char dir[] = "/tmp/kbench-sock.XXXXXX";
	snprintf(out, n, "%s/agent.sock", workdir);
	if (strlen(out) < sizeof(sa.sun_path))
		return 0;
	/* UNIX socket paths are short: fall back to a private directory
	 * under /tmp (mkdtemp: not a predictable name, mode 700) */
	if (!mkdtemp(dir)) {
		snprintf(err, errlen, "mkdtemp %s: %s", dir, strerror(errno));
		return -1;
	}
	snprintf(out, n, "%s/agent.sock", dir);
	return 0;
}

void qemu_sock_remove(const char *sock)
{
	char dir[KB_PATH_MAX];
	unlink(sock);
	if (!strncmp(sock, "/tmp/kbench-sock.", 17)) {
		snprintf(dir, sizeof(dir), "%s", sock);
		*strrchr(dir, '/') = 0; /* the mkdtemp directory */
		rmdir(dir);
	}
}

void qemu_args(struct strvec *a, const struct boot_params *p, const char *sock)
{
	push_machine(a, p);
	push_devices(a, p, sock);
}

static int qemu_start(struct guest *g, const struct boot_params *p)
{
	struct qemu_guest *q = xmalloc(sizeof(*q));
	char *bin = which(QEMU_BIN), *qlog;
	int r;

	memset(q, 0, sizeof(*q));
	q->proc = (struct child)CHILD_INIT;
	g->priv = q;
	if (!bin) {
		snprintf(g->err, sizeof(g->err), "%s not found (install qemu-system-x86: make deps)",
			 QEMU_BIN);
		return -1;
	}
	if (qemu_path_ok(p->workdir) || qemu_path_ok(p->console_log) ||
	    (p->kernel && qemu_path_ok(p->kernel)) || (p->initrd && qemu_path_ok(p->initrd))) {
		snprintf(g->err, sizeof(g->err),
			 "a path given to QEMU has a newline or control character (work directory "
			 "'%s', console log '%s'): QEMU cannot take it", p->workdir, p->console_log);
		free(bin);
		return -1;
	}
	if (qemu_sock_path(p->workdir, q->sock, sizeof(q->sock), g->err, sizeof(g->err))) {
		q->sock[0] = '\0';
		free(bin);
		return -1;
	}
	unlink(q->sock);
	strvec_push(&q->proc.argv, bin);
	free(bin);
	qemu_args(&q->proc.argv, p, q->sock);
	/* QEMU's own messages go beside the console log */
	qlog = xasprintf("%s%s", p->console_log, qemu_backend.side_log);
	q->proc.stdout_path = q->proc.stderr_path = qlog;
	r = child_start(&q->proc);
	q->proc.stdout_path = q->proc.stderr_path = NULL;
	free(qlog);
	if (r) {
		snprintf(g->err, sizeof(g->err), "cannot start %s", QEMU_BIN);
		return -1;
	}
	return qemu_connect(g, p);
}

static int qemu_alive(struct guest *g)
{
	struct qemu_guest *q = g->priv;
	if (q && q->proc.pid > 0 && child_poll(&q->proc) == 0)
		return 1;
	snprintf(g->err, sizeof(g->err), "the guest exited (QEMU status %d)",
		 q ? q->proc.status : -1);
	return 0;
}

static int qemu_stop(struct guest *g, double timeout_s)
{
	struct qemu_guest *q = g->priv;
	double end = now_mono() + timeout_s;
	if (!q)
		return 0;
	while (now_mono() < end) {
		if (!qemu_alive(g))
			return 0;
		usleep(20000);
	}
	if (q->proc.pid > 0) {
		child_kill(&q->proc, 1.0);
		return -1;
	}
	return 0;
}

static void qemu_release(struct guest *g)
{
	struct qemu_guest *q = g->priv;
	if (!q)
		return;
	if (q->sock[0])
		qemu_sock_remove(q->sock);
	child_release(&q->proc);
	free(q);
}

static int qemu_version(char *out, size_t len)
{
	const char *argv[] = { QEMU_BIN, "--version", NULL };
	struct strbuf sb = STRBUF_INIT;
	int r = run_capture(argv, 20, &sb);
	if (r == 0 && sb.buf) {
		char *nl = strchr(sb.buf, '\n');
		if (nl)
			*nl = '\0';
		snprintf(out, len, "%s", sb.buf);
	} else {
		snprintf(out, len, "unknown");
	}
	sb_release(&sb);
	return r == 0 ? 0 : -1;
}

int qemu_tcg_smc_race(const char *version_line)
{
	const char *v = version_line ? strstr(version_line, "version ") : NULL;
	int major, minor;
	if (!v || sscanf(v + 8, "%d.%d", &major, &minor) != 2 || major < 0 || minor < 0)
		return -1;
	return major < 8 || (major == 8 && minor < 1);
}

/* Multi-threaded TCG in a QEMU before 8.1 with two vCPUs or more: a vCPU
 * can translate a code page while another writes it and keep the stale
 * translation, so a kernel patching its own text (text_poke_bp: static
 * keys, tracepoints) dies with an int3 its handler no longer claims.
 * Measured with tests/check/text-poke.sh (docs/reliability.md). */
static void smc_race_note(const struct qemu_params *qp, const struct boot_params *probe,
			  struct backend_info *bi)
{
	char qv[128], ver[24] = "";
	const char *v;
	if (qp->accel != ACCEL_TCG || qp->tcg_thread || probe->vcpus < 2)
		return;
	qemu_version(qv, sizeof(qv));
	if (qemu_tcg_smc_race(qv) != 1)
		return;
	v = strstr(qv, "version ");
	sscanf(v + 8, "%23s", ver);
	snprintf(bi->trouble_match, sizeof(bi->trouble_match), "Oops: int3");
	snprintf(bi->trouble_cause, sizeof(bi->trouble_cause),
		 "QEMU before 8.1 (this is %s) with multi-threaded TCG can keep a stale translation "
		 "of code the kernel is patching (fixed by QEMU commit deba787, in 8.1), so the "
		 "kernel takes an int3 it no longer expects: not the kernel's fault; QEMU 8.1 or "
		 "later (Debian 12: bookworm-backports) or KBENCH_QEMU_TCG_THREAD=single avoids it "
		 "(docs/reliability.md, 'Boot oops under TCG')", ver);
	info("kbench: QEMU %s has multi-threaded TCG's code-patching race (fixed in QEMU 8.1): "
	     "about 1 boot in 60 on a busy host dies with 'Oops: int3' and is booted again; QEMU "
	     "8.1 or later (Debian 12: bookworm-backports) or KBENCH_QEMU_TCG_THREAD=single "
	     "avoids it (docs/reliability.md)", ver);
}

static int qemu_check_tools(const struct boot_params *p)
{
	struct qemu_params qp = *qparams(p);
	char err[512], *qi;
	size_t ml = 0;
	/* the TCG knobs refused before anything is built or booted */
	if (qemu_env_params(&qp, err, sizeof(err)))
		return error("%s", err);
	if (strcmp(qp.tcg_cpu, qemu_defaults.tcg_cpu) && cpu_value_ok(qp.tcg_cpu, &ml) &&
	    qemu_knows_cpu(qp.tcg_cpu, ml) == 0)
		return error("KBENCH_QEMU_CPU: this QEMU has no CPU model '%.*s' (qemu-system-x86_64 "
			     "-cpu help lists them)", (int)ml, qp.tcg_cpu);
	if (!p->build_disk)
		return 0;
	qi = which("qemu-img");
	if (!qi)
		return error("'qemu-img' not found: install the Debian package qemu-utils (make deps does)");
	free(qi);
	return 0;
}

/* The kbuild disk's copy-on-write layer over the cached image (kept
 * across boots only when the suite asks for no clean). */
static int kbuild_overlay(const struct boot_params *p, char *err, size_t errlen)
{
	char overlay[KB_PATH_MAX];
	const char *argv[] = { "qemu-img", "create", "-q", "-f", "qcow2", "-F", "raw", "-b",
			       p->build_disk, overlay, NULL };
	struct strbuf out = STRBUF_INIT;
	int r;
	overlay_path(p, overlay, sizeof(overlay));
	if (p->build_disk_keep && path_exists(overlay))
		return 0;
	unlink(overlay);
	r = run_capture(argv, 60, &out);
	if (r) {
		error("qemu-img create of the kbuild disk layer failed (status %d): %s", r,
		      out.buf ? out.buf : "");
		snprintf(err, errlen, "cannot create the kbuild disk's copy-on-write layer");
	}
	sb_release(&out);
	return r ? -1 : 0;
}

static int qemu_prepare(const struct boot_params *p, char *err, size_t errlen)
{
	char path[KB_PATH_MAX];
	scratch_path(p, path, sizeof(path));
	if (p->scratch_mb && scratch_create(path, p->scratch_mb)) {
		snprintf(err, errlen, "cannot create the scratch disk");
		return -1;
	}
	if (p->build_disk && kbuild_overlay(p, err, errlen))
		return -1;
	hostroot_etc_dir(p->workdir, path, sizeof(path));
	if (p->hostroot && hostroot_stage_etc("/etc", path)) {
		snprintf(err, errlen, "cannot stage the guest's /etc in '%s'", path);
		return -1;
	}
	return 0;
}

static void qemu_cleanup(const struct boot_params *p)
{
	char path[KB_PATH_MAX];
	scratch_path(p, path, sizeof(path));
	if (p->scratch_mb)
		unlink(path);
	overlay_path(p, path, sizeof(path));
	if (p->build_disk && !p->build_disk_keep)
		unlink(path);
	hostroot_etc_dir(p->workdir, path, sizeof(path));
	if (p->hostroot)
		rm_rf(path);
}

static int qemu_setup(void *params, const struct boot_params *probe, struct backend_info *bi)
{
	struct qemu_params *qp = params;
	const char *t = getenv("KBENCH_QEMU_TCG_THREAD"), *c = getenv("KBENCH_QEMU_CPU");
	char err[512];
	size_t ml;
	if (qemu_env_params(qp, err, sizeof(err)))
		return error("%s", err);
	if (!cpu_value_ok(qp->tcg_cpu, &ml))
		return error("backend 'qemu' option tcg_cpu: '%.60s' is not a QEMU CPU model", qp->tcg_cpu);
	if (qp->timing == TM_INSTRUCTIONS && qp->accel == ACCEL_KVM)
		return error("--timing instructions is QEMU's instruction counter, which runs "
			     "under TCG only: give --accel tcg (or auto), or --timing wall for KVM");
	qp->accel = accel_resolve((enum accel)qp->accel, probe);
	snprintf(bi->accel, sizeof(bi->accel), "%s", accel_name((enum accel)qp->accel));
	if (qp->timing == TM_AUTO)
		qp->timing = qp->accel == ACCEL_TCG ? TM_INSTRUCTIONS : TM_WALL;
	if (qp->timing == TM_INSTRUCTIONS && qp->accel == ACCEL_KVM)
		return error("--timing instructions runs under TCG only, and this run found KVM: "
			     "give --accel tcg, or --timing wall (or auto)");
	if (qp->timing == TM_INSTRUCTIONS && t && !strcmp(t, "multi"))
		return error("KBENCH_QEMU_TCG_THREAD=multi and --timing instructions do not go "
			     "together: QEMU's instruction counter runs the vCPUs on one thread");
	snprintf(bi->timing, sizeof(bi->timing), "%s", timing_choices[qp->timing]);
	bi->icount_shift = qp->timing == TM_INSTRUCTIONS ? qp->icount_shift : -1;
	if (qp->timing == TM_INSTRUCTIONS)
		qp->tcg_thread = 1;
	if (qp->accel == ACCEL_KVM) {
		if ((t && *t) || (c && *c))
			warning("KBENCH_QEMU_TCG_THREAD and KBENCH_QEMU_CPU apply under TCG only: "
				"this run is under KVM (-cpu host)");
		snprintf(bi->cpu, sizeof(bi->cpu), "host");
	} else {
		snprintf(bi->cpu, sizeof(bi->cpu), "%s", qp->tcg_cpu);
		snprintf(bi->tcg_thread, sizeof(bi->tcg_thread), "%s",
			 tcg_thread_choices[qp->tcg_thread ? 1 : 0]);
		if ((t && *t) || (c && *c))
			info("kbench: TCG as KBENCH_QEMU_TCG_THREAD and KBENCH_QEMU_CPU say: -accel "
			     "tcg,thread=%s -cpu %s", bi->tcg_thread, bi->cpu);
		smc_race_note(qp, probe, bi);
	}
	bi->time_scale = qp->accel == ACCEL_TCG ? qp->tcg_scale : 1.0;
	bi->boot_timeout_s = qp->accel == ACCEL_TCG ? qp->boot_timeout_tcg : qp->boot_timeout_kvm;
	if (qp->timing == TM_INSTRUCTIONS) {
		bi->time_scale *= qp->icount_scale;
		bi->boot_timeout_s *= qp->icount_scale;
		info("kbench: timing: instructions (QEMU -icount shift=%d,sleep=off, one guest "
		     "instruction is %d ns of guest time): figures repeat from boot to boot whatever "
		     "the host's load, and they are path lengths, not hardware times (docs/timing.md)",
		     qp->icount_shift, 1 << qp->icount_shift);
	}
	return 0;
}

const struct backend_ops qemu_backend = {
	.name = "qemu",
	.description = "QEMU (KVM, or TCG emulation): direct kernel boot, the agent over "
		       "virtio-serial",
	.caps = BK_CAP_SCRATCH_DISK | BK_CAP_BUILD_DISK | BK_CAP_HOSTROOT | BK_CAP_CONSOLE_LOG |
		BK_CAP_HARD_RESET,
	.opts = qemu_opts,
	.params_size = sizeof(struct qemu_params),
	.defaults = &qemu_defaults,
	.side_log = ".qemu",
	.version = qemu_version,
	.check_tools = qemu_check_tools,
	.setup = qemu_setup,
	.prepare = qemu_prepare,
	.cleanup = qemu_cleanup,
	.start = qemu_start,
	.alive = qemu_alive,
	.stop = qemu_stop,
	.release = qemu_release,
};

/* ---- accelerator probe ---- */

static void probe_key(char *out, size_t n)
{
	struct utsname u;
	char qv[128];
	uname(&u);
	qemu_version(qv, sizeof(qv));
	snprintf(out, n, "%s|%s|%s", u.release, u.version, qv);
}

/* 1 = KVM boots, 0 = it does not, -1 = unknown (no cached answer). */
static int probe_cached(const char *key)
{
	char path[KB_PATH_MAX];
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	int ret = -1;
	snprintf(path, sizeof(path), "%s/kvm-probe", cache_root());
	if (stat(path, &st) || time(NULL) - st.st_mtime > 24 * 3600)
		return -1;
	if (read_file(path, &sb, 4096) == 0 && sb.buf) {
		char *nl = strchr(sb.buf, '\n');
		if (nl && !strncmp(nl + 1, key, strlen(key)))
			ret = sb.buf[0] == '1';
	}
	sb_release(&sb);
	return ret;
}

static void probe_store(const char *key, int ok)
{
	char path[KB_PATH_MAX];
	char *s = xasprintf("%d\n%s\n", ok, key);
	snprintf(path, sizeof(path), "%s", cache_root());
	if (mkdir_p(path, 0755) == 0) {
		snprintf(path, sizeof(path), "%s/kvm-probe", cache_root());
		write_file_atomic(path, s, strlen(s));
	}
	free(s);
}

enum accel accel_resolve(enum accel want, const struct boot_params *probe)
{
	char key[512];
	int ok;
	if (want != ACCEL_AUTO)
		return want;
	if (access("/dev/kvm", R_OK | W_OK)) {
		info("kbench: /dev/kvm is not usable here: running under TCG (software emulation, "
		     "several times slower; figures are not comparable with KVM or bare metal)");
		return ACCEL_TCG;
	}
	probe_key(key, sizeof(key));
	ok = probe_cached(key);
	if (ok < 0 && probe) {
		struct guest g;
		struct boot_params p = *probe;
		struct qemu_params qp = qemu_defaults;
		info("kbench: probing KVM with a real boot (deadline %.0f s)...", p.boot_timeout_s);
		qp.accel = ACCEL_KVM;
		p.bparams = &qp;
		guest_init(&g, &qemu_backend);
		ok = guest_boot(&g, &p) == 0;
		guest_shutdown(&g, ok ? 10 : 0);
		guest_release(&g);
		probe_store(key, ok);
	}
	if (ok == 1) {
		info("kbench: KVM boots a guest here: using KVM");
		return ACCEL_KVM;
	}
	info("kbench: /dev/kvm exists but a KVM guest did not boot (nested KVM?): running under TCG "
	     "(software emulation, several times slower; figures are not comparable with KVM or "
	     "bare metal)");
	return ACCEL_TCG;
}
