/* qemu.c - the QEMU backend: direct kernel boot, no graphics, console to a
 * log file, the agent on a virtio-serial port behind a UNIX socket. */
#include "backend/guest.h"
#include "backend/hostroot.h"
#include "agent/proto.h"

#include <errno.h>
#include <fcntl.h>
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

static int qemu_start(struct guest *g, const struct boot_params *p)
{
	struct child *c = &g->proc;
	char *bin = which(QEMU_BIN);
	struct sockaddr_un sa;
	double deadline;
	int fd;

	if (!bin) {
		snprintf(g->err, sizeof(g->err), "%s not found (install qemu-system-x86: make deps)",
			 QEMU_BIN);
		return -1;
	}
	snprintf(g->sock, sizeof(g->sock), "%s/agent.sock", p->workdir);
	if (strlen(g->sock) >= sizeof(sa.sun_path)) {
		/* UNIX socket paths are short: fall back to /tmp */
		snprintf(g->sock, sizeof(g->sock), "/tmp/kbench-%ld-%ld.sock", (long)getpid(),
			 (long)time(NULL));
	}
	unlink(g->sock);
	strvec_push(&c->argv, bin);
	free(bin);
	strvec_push(&c->argv, "-nodefaults");
	strvec_push(&c->argv, "-no-user-config");
	strvec_push(&c->argv, "-display");
	strvec_push(&c->argv, "none");
	strvec_push(&c->argv, "-no-reboot");
	strvec_push(&c->argv, "-machine");
	strvec_push(&c->argv, "q35");
	if (p->accel == ACCEL_KVM) {
		strvec_push(&c->argv, "-accel");
		strvec_push(&c->argv, "kvm");
		strvec_push(&c->argv, "-cpu");
		strvec_push(&c->argv, "host");
	} else {
		strvec_push(&c->argv, "-accel");
		strvec_push(&c->argv, "tcg,thread=multi");
		strvec_push(&c->argv, "-cpu");
		strvec_push(&c->argv, "max");
	}
	strvec_push(&c->argv, "-smp");
	strvec_pushf(&c->argv, "%d", p->vcpus);
	strvec_push(&c->argv, "-m");
	strvec_pushf(&c->argv, "%d", p->mem_mb);
	strvec_push(&c->argv, "-kernel");
	strvec_push(&c->argv, p->kernel);
	strvec_push(&c->argv, "-initrd");
	strvec_push(&c->argv, p->initrd);
	strvec_push(&c->argv, "-append");
	/* panic=-1: a panic reboots at once, and -no-reboot ends QEMU */
	strvec_pushf(&c->argv, "console=ttyS0 panic=-1 loglevel=5 %s", p->cmdline ? p->cmdline : "");
	strvec_push(&c->argv, "-chardev");
	strvec_pushf(&c->argv, "file,id=con,path=%s", p->console_log);
	strvec_push(&c->argv, "-serial");
	strvec_push(&c->argv, "chardev:con");
	strvec_push(&c->argv, "-device");
	strvec_push(&c->argv, "virtio-serial-pci,id=vser");
	strvec_push(&c->argv, "-chardev");
	strvec_pushf(&c->argv, "socket,id=agent,path=%s,server=on,wait=off", g->sock);
	strvec_push(&c->argv, "-device");
	strvec_push(&c->argv, "virtserialport,bus=vser.0,chardev=agent,name=" KB_PORT_NAME);
	if (p->scratch) {
		strvec_push(&c->argv, "-drive");
		strvec_pushf(&c->argv, "file=%s,if=none,id=scratch,format=raw,cache=unsafe",
			     p->scratch);
		strvec_push(&c->argv, "-device");
		strvec_push(&c->argv, "virtio-blk-pci,drive=scratch,serial=scratch");
	}
	if (p->kbuild_disk) {
		strvec_push(&c->argv, "-drive");
		strvec_pushf(&c->argv, "file=%s,if=none,id=kbuild,format=qcow2,cache=unsafe",
			     p->kbuild_disk);
		strvec_push(&c->argv, "-device");
		strvec_push(&c->argv, "virtio-blk-pci,drive=kbuild,serial=" KB_KBUILD_SERIAL);
	}
	if (p->hostroot)
		hostroot_qemu_args(&c->argv);
	{
		/* QEMU's own messages go beside the console log */
		char *qlog = xasprintf("%s.qemu", p->console_log);
		c->stdout_path = qlog;
		c->stderr_path = qlog;
		if (child_start(c)) {
			free(qlog);
			return -1;
		}
		c->stdout_path = c->stderr_path = NULL;
		free(qlog);
	}
	/* connect to the agent socket once QEMU has created it */
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", g->sock);
	deadline = now_mono() + 30;
	for (;;) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return snprintf(g->err, sizeof(g->err), "socket: %s", strerror(errno)), -1;
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			break;
		close(fd);
		if (child_poll(c) != 0) {
			snprintf(g->err, sizeof(g->err),
				 "QEMU exited at start (status %d); see '%s.qemu'", c->status,
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

static int qemu_alive(struct guest *g)
{
	return g->proc.pid > 0 && child_poll(&g->proc) == 0;
}

static int qemu_stop(struct guest *g, double timeout_s)
{
	double end = now_mono() + timeout_s;
	while (now_mono() < end) {
		if (!qemu_alive(g))
			return 0;
		usleep(20000);
	}
	if (g->proc.pid > 0) {
		child_kill(&g->proc, 1.0);
		return -1;
	}
	return 0;
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

const struct backend_ops qemu_backend = {
	.name = "qemu",
	.start = qemu_start,
	.alive = qemu_alive,
	.stop = qemu_stop,
	.version = qemu_version,
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
		info("kbench: probing KVM with a real boot (deadline %.0f s)...", p.boot_timeout_s);
		p.accel = ACCEL_KVM;
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
