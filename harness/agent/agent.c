/* agent.c - kbench's guest agent: PID 1 of the benchmark initramfs.
 *
 * Mounts the pseudo filesystems, loads the kernel modules listed in
 * /etc/kbench/modules (host resolved the order from modules.dep), opens its
 * channel to the host (a transport: the virtio-serial port by default;
 * stdio or a TCP connection, chosen by kbench.transport= on the kernel
 * command line or --transport= as an argument) and then serves requests
 * (see ../proto.h): it runs the
 * commands the host sends under a deadline and returns their output and
 * resource use. It knows nothing about workloads: parsing is the host's job.
 *
 * Built static against json-c (and libmd: the journal's SHA-256), so the
 * image needs no libraries for it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>
#include <sha2.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "agent/proto.h"
#include "core/machine.h"
#include "core/b64.h"

/* The channel to the host: a byte stream, read from in_fd, written to
 * out_fd (one fd for virtio-serial and TCP, two for stdio). */
static int in_fd = -1, out_fd = -1;
static json_object *modules_failed;

static void logmsg(const char *fmt, ...)
{
	va_list ap;
	fputs("kbench-agent: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Where commands' output is collected: /tmp in a guest (ours alone), a
 * private directory under it as an ordinary process (main). */
static char work_dir[64] = "/tmp";

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void setup_mounts(void)
{
	mkdir("/proc", 0755);
	mkdir("/sys", 0755);
	mkdir("/dev", 0755);
	mkdir("/tmp", 01777);
	mkdir("/scratch", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	/* /tmp stays on the initramfs's own root (RAM already): a tmpfs
	 * over it would hide the files a suite names there, such as a
	 * dbench load file under the host's /tmp */
	chmod("/tmp", 01777);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	mkdir("/dev/shm", 01777);
	mount("tmpfs", "/dev/shm", "tmpfs", 0, "mode=1777");
	mkdir("/dev/pts", 0755);
	mount("devpts", "/dev/pts", "devpts", 0, NULL);
}

/* Load modules in the order the host wrote them; record failures. */
static void load_modules(void)
{
	char line[512];
	FILE *f = fopen("/etc/kbench/modules", "r");
	modules_failed = json_object_new_array();
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		int fd;
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		fd = open(line, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || (syscall(SYS_finit_module, fd, "", 0) && errno != EEXIST)) {
			char msg[600];
			snprintf(msg, sizeof(msg), "%s: %s", line, strerror(errno));
			json_object_array_add(modules_failed, json_object_new_string(msg));
			logmsg("module %s", msg);
		}
		if (fd >= 0)
			close(fd);
	}
	fclose(f);
}

/* Find /dev/vportNpM whose sysfs name is KB_PORT_NAME. */
static int open_port(double timeout_s)
{
	double end = mono() + timeout_s;
	while (mono() < end) {
		DIR *d = opendir("/sys/class/virtio-ports");
		struct dirent *e;
		while (d && (e = readdir(d))) {
			char path[300], name[128] = "";
			FILE *f;
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/sys/class/virtio-ports/%s/name", e->d_name);
			f = fopen(path, "r");
			if (!f)
				continue;
			if (fgets(name, sizeof(name), f))
				name[strcspn(name, "\n")] = '\0';
			fclose(f);
			if (!strcmp(name, KB_PORT_NAME)) {
				int fd;
				snprintf(path, sizeof(path), "/dev/%s", e->d_name);
				fd = open(path, O_RDWR | O_CLOEXEC);
				if (fd >= 0) {
					closedir(d);
					return fd;
				}
			}
		}
		if (d)
			closedir(d);
		usleep(50000);
	}
	return -1;
}

/* write(2), but a host gone from a socket is an error, not SIGPIPE (which
 * would end the agent: with --reconnect it waits for the host instead;
 * SIGPIPE itself stays default, for the workloads it execs) */
static ssize_t out_write(const void *buf, size_t len)
{
	ssize_t n = send(out_fd, buf, len, MSG_NOSIGNAL);
	if (n < 0 && errno == ENOTSOCK)
		n = write(out_fd, buf, len);
	return n;
}

/* --journal (the lava backend): the session as "> REQUEST\n" and
 * "< REPLY\n" lines, byte for byte, printed on the console as a results
 * block when the agent ends (journal_print), so that the job's log keeps
 * every raw output whole and checkable even when kbench is gone. The host
 * keeps the same lines (guest.h journal) and compares. */
/* --session=ID (lava: letters and digits, kbench's for the job): echoed
 * in the hello, so kbench takes no other job's agent for its own. */
static char session[65];

#define JOURNAL_MAX (48u << 20) /* under the host's block limit (64 MiB) */
static int journal_on;
static char *journal;
static size_t journal_len, journal_cap;

static void journal_add(char dir, const char *s, size_t n)
{
	if (!journal_on)
		return;
	if (journal_len + n + 3 > JOURNAL_MAX) {
		logmsg("journal: over %u bytes, no results block", JOURNAL_MAX);
		journal_on = 0;
		free(journal);
		journal = NULL;
		journal_len = journal_cap = 0;
		return;
	}
	while (journal_len + n + 3 > journal_cap) {
		char *p;
		journal_cap = journal_cap ? 2 * journal_cap : 1u << 16;
		if (!(p = realloc(journal, journal_cap))) {
			logmsg("journal: out of memory, no results block");
			journal_on = 0;
			return;
		}
		journal = p;
	}
	journal[journal_len++] = dir;
	journal[journal_len++] = ' ';
	memcpy(journal + journal_len, s, n);
	journal_len += n;
	journal[journal_len++] = '\n';
}

/* The journal on standard output (the device's console under LAVA) as
 *   KBENCH-BEGIN v1 BYTES SHA256
 *   KBENCH-DATA SEQ BASE64 (76 characters: 57 bytes a line)
 *   KBENCH-END v1
 * (backend/lava_log.h reads it back; libmd's SHA-256). */
static void journal_print(void)
{
	char hex[SHA256_DIGEST_STRING_LENGTH], line[80];
	long seq = 0;
	if (!journal_on || !journal_len)
		return;
	SHA256Data((const uint8_t *)journal, journal_len, hex);
	printf("KBENCH-BEGIN v1 %zu %s\n", journal_len, hex);
	for (size_t i = 0; i < journal_len; i += 57) {
		b64_encode((const unsigned char *)journal + i, journal_len - i < 57 ? journal_len - i : 57,
			   line);
		printf("KBENCH-DATA %ld %s\n", seq++, line);
	}
	printf("KBENCH-END v1\n");
	fflush(stdout);
	journal_on = 0;
}

static void send_json(json_object *o)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	size_t len = strlen(s);
	journal_add('<', s, len);
	while (len) {
		ssize_t n = out_write(s, len);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN) {
				usleep(1000);
				continue;
			}
			logmsg("write to host failed: %s", strerror(errno));
			return;
		}
		s += n;
		len -= (size_t)n;
	}
	while (out_write("\n", 1) < 0 && (errno == EINTR || errno == EAGAIN))
		usleep(1000);
}

static char *slurp(const char *path, size_t max, int *truncated)
{
	char *buf = malloc(max + 1);
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	*truncated = 0;
	if (!buf)
		return NULL;
	if (fd >= 0) {
		ssize_t n;
		while (len < max && (n = read(fd, buf + len, max - len)) > 0)
			len += (size_t)n;
		if (len == max) {
			char c;
			*truncated = read(fd, &c, 1) > 0;
		}
		close(fd);
	}
	buf[len] = '\0';
	/* json-c strings are C strings: NUL bytes in output become '?' */
	for (size_t i = 0; i < len; i++)
		if (!buf[i])
			buf[i] = '?';
	return buf;
}

/* The last MAX bytes of PATH, from the start of a line. */
static char *slurp_tail(const char *path, size_t max, int *truncated)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf, *p;
	ssize_t n;
	size_t len = 0;
	*truncated = 0;
	if (fd < 0 || fstat(fd, &st) || (size_t)st.st_size <= max) {
		if (fd >= 0)
			close(fd);
		return slurp(path, max, truncated);
	}
	*truncated = 1;
	buf = malloc(max + 1);
	if (!buf || lseek(fd, st.st_size - (off_t)max, SEEK_SET) < 0) {
		close(fd);
		free(buf);
		return NULL;
	}
	while (len < max && (n = read(fd, buf + len, max - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	for (size_t i = 0; i < len; i++)
		if (!buf[i])
			buf[i] = '?';
	p = memchr(buf, '\n', len);
	if (p)
		memmove(buf, p + 1, len - (size_t)(p + 1 - buf) + 1);
	return buf;
}

static void add_str(json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, v ? json_object_new_string(v) : NULL);
}

/* A reply to request ID: {"op": "result", "id", "status"}. */
static json_object *result_new(int id, int status)
{
	json_object *r = json_object_new_object();
	add_str(r, "op", "result");
	json_object_object_add(r, "id", json_object_new_int(id));
	json_object_object_add(r, "status", json_object_new_int(status));
	return r;
}

static void reply_send(json_object *r)
{
	send_json(r);
	json_object_put(r);
}

static void reply_ok(int id)
{
	reply_send(result_new(id, 0));
}

static void reply_error(int id, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	json_object *r = result_new(id, -1);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	add_str(r, "error", msg);
	reply_send(r);
}

static char *read_small(const char *path)
{
	int t;
	char *s = slurp(path, 4096, &t);
	if (s)
		s[strcspn(s, "\n")] = '\0';
	return s;
}

static void do_hello(void)
{
	struct utsname u;
	struct sysinfo si;
	json_object *r = json_object_new_object();
	char *rt = NULL, *cmdline;
	uname(&u);
	sysinfo(&si);
	if (access("/sys/kernel/realtime", R_OK) == 0)
		rt = read_small("/sys/kernel/realtime");
	cmdline = read_small("/proc/cmdline");
	add_str(r, "op", "hello");
	json_object_object_add(r, "proto", json_object_new_int(KB_PROTO_VERSION));
	add_str(r, "kernel", u.release);
	add_str(r, "kernel_version", u.version);
	add_str(r, "machine", u.machine);
	add_str(r, "realtime", rt);
	add_str(r, "cmdline", cmdline);
	json_object_object_add(r, "nproc", json_object_new_int((int)sysconf(_SC_NPROCESSORS_ONLN)));
	json_object_object_add(r, "mem_kb",
			       json_object_new_int64((int64_t)si.totalram * si.mem_unit / 1024));
	json_object_object_add(r, "uptime_s", json_object_new_double((double)si.uptime));
	{
		char *up = read_small("/proc/uptime");
		if (up)
			json_object_object_add(r, "uptime_s", json_object_new_double(atof(up)));
		free(up);
	}
	json_object_object_add(r, "modules_failed", json_object_get(modules_failed));
	json_object_object_add(r, "machine_facts", machine_facts(""));
	/* the reference patch's knobs and counters, when the kernel has them */
	json_object_object_add(r, "lock_stats",
			       json_object_new_boolean(access(KB_LOCK_STATS, R_OK) == 0));
	{
		DIR *d = opendir("/sys/module/rtmutex/parameters");
		struct dirent *e;
		json_object *params = d ? json_object_new_object() : NULL;
		while (d && (e = readdir(d))) {
			char path[300];
			char *val;
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/sys/module/rtmutex/parameters/%s", e->d_name);
			val = read_small(path);
			if (val)
				add_str(params, e->d_name, val);
			free(val);
		}
		if (d)
			closedir(d);
		json_object_object_add(r, "rtmutex_params", params);
	}
	if (session[0]) /* --session: which of kbench's jobs this agent serves */
		add_str(r, "session", session);
	send_json(r);
	json_object_put(r);
	free(rt);
	free(cmdline);
}

/* Build a NULL-terminated argv from a JSON array of strings. */
static char **json_argv(json_object *arr)
{
	size_t n;
	char **v;
	if (!arr || !json_object_is_type(arr, json_type_array))
		return NULL;
	n = json_object_array_length(arr);
	if (!n || n > 4096)
		return NULL;
	v = calloc(n + 1, sizeof(*v));
	for (size_t i = 0; v && i < n; i++) {
		json_object *s = json_object_array_get_idx(arr, i);
		if (!json_object_is_type(s, json_type_string)) {
			free(v);
			return NULL;
		}
		v[i] = (char *)json_object_get_string(s);
	}
	return v;
}

static pid_t spawn(char **argv, const char *root, char **env, const char *cwd, const char *out,
		   const char *err)
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	setsid();
	{
		/* output files first: they are outside the chroot */
		int in = open("/dev/null", O_RDONLY);
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (in < 0 || o < 0 || e < 0)
			_exit(126);
		dup2(in, 0);
		dup2(o, 1);
		dup2(e, 2);
	}
	/* a chroot (kbuild runs the host's toolchain, shared read-only) */
	if (root && *root && (chroot(root) || chdir("/"))) {
		dprintf(2, "kbench-agent: chroot %s: %s\n", root, strerror(errno));
		_exit(126);
	}
	if (cwd && *cwd && chdir(cwd)) {
		dprintf(2, "kbench-agent: cannot enter %s: %s\n", cwd, strerror(errno));
		_exit(126);
	}
	if (env)
		execve(argv[0], argv, env);
	else
		execv(argv[0], argv);
	dprintf(2, "kbench-agent: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Run the main command (and an optional background load) with a deadline. */
static void do_exec(int id, json_object *req)
{
	json_object *o, *r;
	char **argv, **bg = NULL, **env = NULL;
	const char *cwd = NULL, *root = NULL, *bg_root = NULL;
	double timeout = 600, start, end;
	size_t max_out = KB_PROTO_MAX_OUTPUT;
	pid_t pid, bgpid = 0;
	int pidfd, status = 0, done = 0, timed_out = 0, bg_runs = 0, trunc_o, trunc_e;
	struct rusage ru;
	char *sout, *serr, kout[96], kerr[96], bout[96], berr[96];

	argv = json_argv(json_object_object_get_ex(req, "argv", &o) ? o : NULL);
	if (!argv) {
		reply_error(id, "exec needs a non-empty argv of strings");
		return;
	}
	if (json_object_object_get_ex(req, "bg_argv", &o) && json_object_array_length(o) > 0)
		bg = json_argv(o);
	if (json_object_object_get_ex(req, "cwd", &o))
		cwd = json_object_get_string(o);
	if (json_object_object_get_ex(req, "root", &o))
		root = json_object_get_string(o);
	if (json_object_object_get_ex(req, "bg_root", &o))
		bg_root = json_object_get_string(o);
	if (json_object_object_get_ex(req, "env", &o) && json_object_array_length(o) > 0)
		env = json_argv(o);
	if (json_object_object_get_ex(req, "timeout_s", &o))
		timeout = json_object_get_double(o);
	if (json_object_object_get_ex(req, "max_output", &o) && json_object_get_int64(o) > 0)
		max_out = (size_t)json_object_get_int64(o);

	snprintf(kout, sizeof(kout), "%s/kb.out", work_dir);
	snprintf(kerr, sizeof(kerr), "%s/kb.err", work_dir);
	snprintf(bout, sizeof(bout), "%s/kb-bg.out", work_dir);
	snprintf(berr, sizeof(berr), "%s/kb-bg.err", work_dir);
	memset(&ru, 0, sizeof(ru));
	if (bg) {
		bgpid = spawn(bg, bg_root, env, bg_root ? NULL : cwd, bout, berr);
		bg_runs = 1;
	}
	start = mono();
	pid = spawn(argv, root, env, cwd, kout, kerr);
	if (pid < 0) {
		reply_error(id, "fork failed: %s", strerror(errno));
		goto out;
	}
	end = start + timeout;
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	while (!done) {
		int st;
		siginfo_t si;
		if (wait4(pid, &st, WNOHANG, &ru) == pid) {
			status = st;
			done = 1;
			break;
		}
		if (bgpid > 0 && waitpid(bgpid, NULL, WNOHANG) == bgpid) {
			/* background load ended: restart it until the main one ends */
			bgpid = spawn(bg, bg_root, env, bg_root ? NULL : cwd, bout, berr);
			bg_runs++;
		}
		/* PID 1 reaps orphans, but never our own two children */
		memset(&si, 0, sizeof(si));
		while (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid &&
		       si.si_pid != pid && si.si_pid != bgpid) {
			waitpid(si.si_pid, NULL, WNOHANG);
			memset(&si, 0, sizeof(si));
		}
		if (mono() > end) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			timed_out = 1;
			wait4(pid, &status, 0, &ru);
			break;
		}
		if (pidfd >= 0) {
			struct pollfd pfd = { pidfd, POLLIN, 0 };
			poll(&pfd, 1, 100);
		} else {
			usleep(5000);
		}
	}
	end = mono();
	if (pidfd >= 0)
		close(pidfd);
	if (bgpid > 0) {
		kill(-bgpid, SIGKILL);
		kill(bgpid, SIGKILL);
		waitpid(bgpid, NULL, 0);
	}

	sout = slurp(kout, max_out, &trunc_o);
	/* the end of stderr says why a build failed: keep its last 64 KiB */
	serr = slurp_tail(kerr, 65536, &trunc_e);
	r = result_new(id, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	json_object_object_add(r, "signal",
			       json_object_new_int(WIFSIGNALED(status) ? WTERMSIG(status) : 0));
	json_object_object_add(r, "timed_out", json_object_new_boolean(timed_out));
	json_object_object_add(r, "wall_s", json_object_new_double(end - start));
	json_object_object_add(r, "user_s", json_object_new_double(
		(double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6));
	json_object_object_add(r, "sys_s", json_object_new_double(
		(double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6));
	add_str(r, "stdout", sout ? sout : "");
	add_str(r, "stderr", serr ? serr : "");
	json_object_object_add(r, "truncated", json_object_new_boolean(trunc_o));
	json_object_object_add(r, "bg_runs", json_object_new_int(bg_runs));
	reply_send(r);
	free(sout);
	free(serr);
out:
	free(argv);
	free(bg);
	free(env);
}

static const char *jstr(json_object *req, const char *key)
{
	json_object *o;
	if (!json_object_object_get_ex(req, key, &o) || !json_object_is_type(o, json_type_string))
		return NULL;
	return json_object_get_string(o);
}

/* mkdir -p */
static void mkdirs(const char *path)
{
	char p[512];
	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	mkdir(p, 0755);
}

/* The block device whose virtio serial is SERIAL (/sys/block/X/serial). */
static int dev_by_serial(const char *serial, char *dev, size_t n)
{
	DIR *d = opendir("/sys/block");
	struct dirent *e;
	int found = -1;
	while (d && (e = readdir(d))) {
		char path[300];
		char *v;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/serial", e->d_name);
		if (access(path, R_OK))
			continue;
		v = read_small(path);
		if (v && !strcmp(v, serial)) {
			snprintf(dev, n, "/dev/%s", e->d_name);
			found = 0;
		}
		free(v);
		if (!found)
			break;
	}
	if (d)
		closedir(d);
	return found;
}

/* {"dev"|"serial", "dir", "fstype", "options"?, "readonly"?}: the
 * directory is made first (mkdir -p). */
static void do_mount(int id, json_object *req)
{
	const char *dev = jstr(req, "dev"), *dir = jstr(req, "dir"), *fs = jstr(req, "fstype");
	const char *serial = jstr(req, "serial"), *opts = jstr(req, "options");
	json_object *o;
	unsigned long flags = 0;
	char devpath[300];
	if (serial) {
		if (dev_by_serial(serial, devpath, sizeof(devpath))) {
			reply_error(id, "no disk with serial '%s'", serial);
			return;
		}
		dev = devpath;
	}
	if (!dev || !dir || !fs) {
		reply_error(id, "mount needs dev (or serial), dir and fstype");
		return;
	}
	if (json_object_object_get_ex(req, "readonly", &o) && json_object_get_boolean(o))
		flags |= MS_RDONLY;
	mkdirs(dir);
	if (mount(dev, dir, fs, flags, opts)) {
		reply_error(id, "mount %s on %s (%s): %s", dev, dir, fs, strerror(errno));
		return;
	}
	reply_ok(id);
}

/* {"target", "path"}: a symbolic link (the parent is made first). */
static void do_symlink(int id, json_object *req)
{
	const char *target = jstr(req, "target"), *path = jstr(req, "path");
	char parent[512], *slash;
	if (!target || !path) {
		reply_error(id, "symlink needs target and path");
		return;
	}
	snprintf(parent, sizeof(parent), "%s", path);
	slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = '\0';
		mkdirs(parent);
	}
	if (symlink(target, path)) {
		reply_error(id, "symlink %s -> %s: %s", path, target, strerror(errno));
		return;
	}
	reply_ok(id);
}

static void do_read(int id, json_object *req)
{
	const char *path = jstr(req, "path");
	json_object *r;
	char *data;
	int trunc;
	if (!path) {
		reply_error(id, "read needs a path");
		return;
	}
	if (access(path, R_OK)) {
		reply_error(id, "cannot read %s: %s", path, strerror(errno));
		return;
	}
	data = slurp(path, 1u << 20, &trunc);
	r = result_new(id, 0);
	add_str(r, "data", data ? data : "");
	json_object_object_add(r, "truncated", json_object_new_boolean(trunc));
	reply_send(r);
	free(data);
}

static void do_write(int id, json_object *req)
{
	const char *path = jstr(req, "path"), *data = jstr(req, "data");
	int fd;
	ssize_t n;
	if (!path || !data) {
		reply_error(id, "write needs path and data");
		return;
	}
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		reply_error(id, "cannot open %s: %s", path, strerror(errno));
		return;
	}
	n = write(fd, data, strlen(data));
	close(fd);
	if (n < 0) {
		reply_error(id, "cannot write %s: %s", path, strerror(errno));
		return;
	}
	reply_ok(id);
}

static void poweroff(void)
{
	journal_print();
	if (getpid() != 1) {
		/* an ordinary process (stdio): remove what it made, end */
		static const char *const names[] = { "kb.out", "kb.err", "kb-bg.out", "kb-bg.err" };
		char path[128];
		for (size_t i = 0; strcmp(work_dir, "/tmp") && i < 4; i++) {
			snprintf(path, sizeof(path), "%s/%s", work_dir, names[i]);
			unlink(path);
		}
		if (strcmp(work_dir, "/tmp"))
			rmdir(work_dir);
		exit(0);
	}
	sync();
	umount2("/scratch", MNT_DETACH);
	/* the kbuild disk and the host shares under the chroot */
	umount2("/kbroot", MNT_DETACH);
	/* QEMU runs with -no-reboot, so a reboot ends it; unlike a power-off
	 * this needs no ACPI in the guest kernel */
	reboot(RB_AUTOBOOT);
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}

static void handle(const char *line)
{
	json_tokener *tok = json_tokener_new();
	json_object *req = json_tokener_parse_ex(tok, line, (int)strlen(line));
	const char *op;
	json_object *o;
	int id = 0;
	json_tokener_free(tok);
	journal_add('>', line, strlen(line));
	if (!req || !json_object_is_type(req, json_type_object)) {
		reply_error(0, "request is not a JSON object");
		goto out;
	}
	op = jstr(req, "op");
	if (json_object_object_get_ex(req, "id", &o))
		id = json_object_get_int(o);
	if (!op)
		reply_error(id, "request has no op");
	else if (!strcmp(op, "hello"))
		do_hello();
	else if (!strcmp(op, "exec"))
		do_exec(id, req);
	else if (!strcmp(op, "mount"))
		do_mount(id, req);
	else if (!strcmp(op, "symlink"))
		do_symlink(id, req);
	else if (!strcmp(op, "read"))
		do_read(id, req);
	else if (!strcmp(op, "write"))
		do_write(id, req);
	else if (!strcmp(op, "poweroff"))
		poweroff();
	else
		reply_error(id, "unknown op '%s'", op);
out:
	json_object_put(req);
}

static int open_virtio(const char *arg, int *in, int *out)
{
	(void)arg;
	*in = *out = open_port(30.0);
	if (*in < 0) {
		logmsg("virtio-serial port %s not found", KB_PORT_NAME);
		return -1;
	}
	return 0;
}

/* The host's end of the channel is this process's stdin and stdout (the
 * agent run as an ordinary process, or behind a serial line's getty). */
static int open_stdio(const char *arg, int *in, int *out)
{
	(void)arg;
	*in = 0;
	*out = 1;
	return 0;
}

/* --reconnect=S: seconds to try to reach a host that went away (tcp: a
 * killed kbench that comes back with --resume); 0, the agent ends. */
static int reconnect_s;

static int connect_tcp(const char *arg, double seconds, int *in, int *out);

/* "IPv4:PORT": connect to the host's listener, trying for 30 s (the
 * network may come up after the agent starts). */
static int open_tcp(const char *arg, int *in, int *out)
{
	return connect_tcp(arg, 30, in, out);
}

static int connect_tcp(const char *arg, double seconds, int *in, int *out)
{
	struct sockaddr_in sa;
	char host[64];
	const char *colon = arg ? strrchr(arg, ':') : NULL;
	double end = mono() + seconds;
	long port;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	port = colon ? strtol(colon + 1, NULL, 10) : 0;
	if (!colon || (size_t)(colon - arg) >= sizeof(host) || port < 1 || port > 65535) {
		logmsg("transport tcp needs IPv4:PORT, got '%s'", arg ? arg : "");
		return -1;
	}
	snprintf(host, sizeof(host), "%.*s", (int)(colon - arg), arg);
	sa.sin_port = htons((unsigned short)port);
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
		logmsg("transport tcp: '%s' is not an IPv4 address", host);
		return -1;
	}
	while (mono() < end) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			*in = *out = fd;
			return 0;
		}
		if (fd >= 0)
			close(fd);
		usleep(200000);
	}
	logmsg("transport tcp: cannot connect to %s: %s", arg, strerror(errno));
	return -1;
}

static const struct transport {
	const char *name;
	int (*open)(const char *arg, int *in, int *out);
	int eof_ends;   /* end of input: the host is gone for good */
} transports[] = {
	{ "virtio", open_virtio, 0 }, /* an unconnected port reads EOF: wait */
	{ "stdio", open_stdio, 1 },
	{ "tcp", open_tcp, 1 },
};

/* "NAME[:ARG]" from --transport= (first) or kbench.transport= on the
 * kernel command line; virtio when neither says. */
static const struct transport *pick_transport(int argc, char **argv, char *arg, size_t n)
{
	char spec[128] = "virtio";
	char *cmdline = read_small("/proc/cmdline"), *p;
	size_t len;
	if (getpid() == 1 && cmdline && (p = strstr(cmdline, "kbench.transport=")))
		snprintf(spec, sizeof(spec), "%.*s", (int)strcspn(p + 17, " \n"), p + 17);
	free(cmdline);
	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--transport=", 12))
			snprintf(spec, sizeof(spec), "%s", argv[i] + 12);
		if (!strncmp(argv[i], "--reconnect=", 12))
			reconnect_s = atoi(argv[i] + 12);
		if (!strcmp(argv[i], "--journal"))
			journal_on = 1;
		if (!strncmp(argv[i], "--session=", 10) && strlen(argv[i] + 10) < sizeof(session) &&
		    strspn(argv[i] + 10, "0123456789abcdefABCDEF") == strlen(argv[i] + 10))
			snprintf(session, sizeof(session), "%s", argv[i] + 10);
	}
	if (reconnect_s < 0)
		reconnect_s = 0;
	len = strcspn(spec, ":");
	snprintf(arg, n, "%s", spec[len] ? spec + len + 1 : "");
	for (size_t i = 0; i < sizeof(transports) / sizeof(transports[0]); i++)
		if (strlen(transports[i].name) == len && !strncmp(spec, transports[i].name, len))
			return &transports[i];
	logmsg("unknown transport '%s' (virtio, stdio, tcp:IPv4:PORT)", spec);
	return NULL;
}

int main(int argc, char **argv)
{
	static char buf[1 << 20];
	const struct transport *t;
	char arg[128];
	size_t len = 0;

	/* as PID 1 the guest is ours; as an ordinary process (stdio, a
	 * test) it touches no mounts and loads no modules */
	if (getpid() == 1) {
		setup_mounts();
		load_modules();
	} else {
		modules_failed = json_object_new_array();
		/* a host's /tmp is shared (another agent, a user): a private
		 * directory for the commands' output */
		snprintf(work_dir, sizeof(work_dir), "/tmp/kbench-agent.XXXXXX");
		if (!mkdtemp(work_dir))
			snprintf(work_dir, sizeof(work_dir), "/tmp");
	}
	setenv("PATH", "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", 1);
	setenv("HOME", "/tmp", 1);
	t = pick_transport(argc, argv, arg, sizeof(arg));
	if (t && journal_on && strcmp(t->name, "tcp")) {
		logmsg("--journal needs the tcp transport (standard output is the console)");
		journal_on = 0;
	}
	if (!t || t->open(arg, &in_fd, &out_fd))
		poweroff();
	logmsg("ready (%s)", t->name);
	for (;;) {
		ssize_t n = read(in_fd, buf + len, sizeof(buf) - 1 - len);
		char *nl;
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 && t->eof_ends && reconnect_s && !strcmp(t->name, "tcp")) {
			/* the host is gone (killed): it may come back, resumed */
			logmsg("the host is gone: trying to reach it again for %d s", reconnect_s);
			close(in_fd);
			in_fd = out_fd = -1;
			if (connect_tcp(arg, reconnect_s, &in_fd, &out_fd))
				poweroff();
			logmsg("ready again (tcp)");
			len = 0;
			continue;
		}
		if (n <= 0 && t->eof_ends)
			poweroff();
		if (n <= 0) {
			/* host not connected: wait for it */
			usleep(20000);
			continue;
		}
		len += (size_t)n;
		buf[len] = '\0';
		while ((nl = memchr(buf, '\n', len))) {
			*nl = '\0';
			handle(buf);
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len);
		}
		if (len == sizeof(buf) - 1) {
			reply_error(0, "request longer than %zu bytes", sizeof(buf) - 1);
			len = 0;
		}
	}
}
