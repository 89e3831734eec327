/* hostroot.c - the host's toolchain, shared read-only into the guest.
 *
 * virtme-ng boots a kernel on the host's own root filesystem over 9p; kbench
 * needs less: the compiler, make and their libraries, so it shares /usr
 * (and on a system without merged /usr, /bin, /sbin and /lib*), never
 * /root, /home, /proc or /sys. Of /etc the guest gets a staged copy of
 * the few world-readable files the toolchain reads (etc_allow below),
 * never the host's /etc itself: QEMU reads the shares with its own
 * credentials (security_model=none), root's under the nightly unit or a
 * root shell, so a shared /etc would hand the kernel under test shadow,
 * the ssh host keys and ssl/private. The agent mounts the shares under
 * KB_HOSTROOT on a tmpfs, adds the merged-/usr symlinks, the pseudo
 * filesystems and a tmpfs /tmp, and runs the build chrooted there.
 */
#include "backend/hostroot.h"
#include "agent/proto.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* 9p with the guest's page cache (cache=loose): the toolchain is
 * read-only, so caching it is safe, and after the first exec of cc1 it is
 * read from guest memory like a local file. */
#define NINEP_OPTS "trans=virtio,version=9p2000.L,cache=loose,msize=524288"

static const char *const top_dirs[] = { "usr", "etc", "bin", "sbin", "lib", "lib32", "lib64",
					 "libx32", NULL };

/* What the guest's /etc holds, found by tracing make defconfig prepare
 * kernel/locking/ natively with kbuild's environment (strace -f -e
 * trace=%file: of /etc it opened ld.so.cache, ld.so.conf, ld.so.conf.d/,
 * localtime, and gitconfig and selinux/config, both optional) and by the
 * links it execs through (/usr/bin/awk -> /etc/alternatives/awk; cc, yacc,
 * lex likewise). openssl.cnf: certs/ and sign-file when a config signs
 * modules. A file is copied only when world-readable, a link as it is;
 * passwd and group are written (root and nobody), not copied. */
static const char *const etc_allow[] = { "ld.so.cache", "ld.so.conf", "ld.so.conf.d",
					 "alternatives", "localtime", "ssl/openssl.cnf", NULL };
static const char etc_passwd[] = "root:x:0:0:root:/tmp:/bin/sh\n"
				 "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n";
static const char etc_group[] = "root:x:0:\nnogroup:x:65534:\n";

void hostroot_etc_dir(const char *workdir, char *out, size_t n)
{
	snprintf(out, n, "%s/hostetc", workdir);
}

/* SRC (under /etc) to DST: a link as it is (its target is resolved in the
 * guest, under the shared /usr), a world-readable file copied, a
 * world-readable directory entry by entry (DEPTH levels); anything else
 * left out. */
static int stage_entry(const char *src, const char *dst, int depth)
{
	struct stat st;
	if (lstat(src, &st))
		return errno == ENOENT ? 0 : error("cannot stat '%s': %s", src, strerror(errno));
	if (S_ISLNK(st.st_mode)) {
		char target[KB_PATH_MAX];
		ssize_t l = readlink(src, target, sizeof(target) - 1);
		if (l <= 0)
			return 0;
		target[l] = '\0';
		return symlink(target, dst) ? error("cannot link '%s': %s", dst, strerror(errno)) : 0;
	}
	if (!(st.st_mode & S_IROTH))
		return 0;
	if (S_ISREG(st.st_mode))
		return copy_file(src, dst, 0644);
	if (!S_ISDIR(st.st_mode) || !(st.st_mode & S_IXOTH) || depth <= 0)
		return 0;
	DIR *d = opendir(src);
	struct dirent *de;
	int ret = 0;
	if (!d)
		return error("cannot read '%s': %s", src, strerror(errno));
	if (mkdir(dst, 0755))
		ret = error("cannot create '%s': %s", dst, strerror(errno));
	while (!ret && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *s = xasprintf("%s/%s", src, de->d_name), *t = xasprintf("%s/%s", dst, de->d_name);
		ret = stage_entry(s, t, depth - 1);
		free(s);
		free(t);
	}
	closedir(d);
	return ret;
}

int hostroot_stage_etc(const char *etc, const char *dir)
{
	char src[KB_PATH_MAX], dst[KB_PATH_MAX];
	int ret = -1;
	rm_rf(dir);
	if (mkdir_p(dir, 0755))
		return error("cannot create '%s': %s", dir, strerror(errno));
	for (int i = 0; etc_allow[i]; i++) {
		char *slash;
		snprintf(src, sizeof(src), "%s/%s", etc, etc_allow[i]);
		snprintf(dst, sizeof(dst), "%s/%s", dir, etc_allow[i]);
		if ((slash = strrchr(dst + strlen(dir) + 1, '/'))) {
			*slash = '\0';
			if (mkdir_p(dst, 0755))
				goto out;
			*slash = '/';
		}
		if (stage_entry(src, dst, 2))
			goto out;
	}
	snprintf(dst, sizeof(dst), "%s/passwd", dir);
	if (write_file_atomic(dst, etc_passwd, strlen(etc_passwd)))
		goto out;
	snprintf(dst, sizeof(dst), "%s/group", dir);
	ret = write_file_atomic(dst, etc_group, strlen(etc_group));
out:
	return ret;
}

int hostroot_layout(struct host_entry *e, int max)
{
	int n = 0;
	for (int i = 0; top_dirs[i] && n < max; i++) {
		char path[64];
		struct stat st;
		snprintf(path, sizeof(path), "/%s", top_dirs[i]);
		if (lstat(path, &st))
			continue;
		memset(&e[n], 0, sizeof(e[n]));
		snprintf(e[n].name, sizeof(e[n].name), "%s", top_dirs[i]);
		if (S_ISLNK(st.st_mode)) {
			ssize_t l = readlink(path, e[n].target, sizeof(e[n].target) - 1);
			if (l <= 0)
				continue;
			e[n].target[l] = '\0';
			e[n].is_link = 1;
		} else if (S_ISDIR(st.st_mode)) {
			snprintf(e[n].tag, sizeof(e[n].tag), "kbhost_%s", top_dirs[i]);
		} else {
			continue;
		}
		n++;
	}
	return n;
}

char *qemu_opt_escape(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, "");
	for (const char *c = path; *c; c++)
		sb_add(&sb, *c == ',' ? ",," : c, *c == ',' ? 2 : 1);
	return sb.buf;
}

int qemu_path_ok(const char *path)
{
	return path_has_control(path) ? -1 : 0;
}

void hostroot_qemu_args(struct strvec *argv, const char *workdir)
{
	struct host_entry e[HOSTROOT_MAX];
	int n = hostroot_layout(e, HOSTROOT_MAX);
	char dir[KB_PATH_MAX];
	for (int i = 0; i < n; i++) {
		if (e[i].is_link)
			continue;
		if (!strcmp(e[i].name, "etc"))
			hostroot_etc_dir(workdir, dir, sizeof(dir));
		else
			snprintf(dir, sizeof(dir), "/%s", e[i].name);
		char *path = qemu_opt_escape(dir);
		strvec_push(argv, "-fsdev");
		strvec_pushf(argv, "local,id=fs%d,path=%s,security_model=none,readonly=on,"
			     "multidevs=remap", i, path);
		free(path);
		strvec_push(argv, "-device");
		strvec_pushf(argv, "virtio-9p-pci,fsdev=fs%d,mount_tag=%s", i, e[i].tag);
	}
}

/* One agent request; 0, or -1 with ERR naming WHAT. */
static int call(struct guest *g, json_object *req, const char *what, char *err, size_t errlen)
{
	json_object *resp = NULL, *v;
	int ret = -1;
	if (guest_call(g, req, 60, &resp))
		snprintf(err, errlen, "%s: %s", what, g->err);
	else if (json_object_object_get_ex(resp, "error", &v))
		snprintf(err, errlen, "%s: %s", what, json_object_get_string(v));
	else
		ret = 0;
	json_object_put(req);
	json_object_put(resp);
	return ret;
}

static json_object *mount_req(const char *dev, const char *dir, const char *fstype,
			      const char *options, int readonly)
{
	json_object *req = json_object_new_object();
	json_object_object_add(req, "op", json_object_new_string("mount"));
	json_object_object_add(req, "dev", json_object_new_string(dev));
	json_object_object_add(req, "dir", json_object_new_string(dir));
	json_object_object_add(req, "fstype", json_object_new_string(fstype));
	if (options)
		json_object_object_add(req, "options", json_object_new_string(options));
	if (readonly)
		json_object_object_add(req, "readonly", json_object_new_boolean(1));
	return req;
}

int hostroot_setup(struct guest *g, const char *disk_mount, char *err, size_t errlen)
{
	struct host_entry e[HOSTROOT_MAX];
	int n = hostroot_layout(e, HOSTROOT_MAX);
	char dir[KB_PATH_MAX], what[KB_PATH_MAX + 64];
	static const char *const pseudo[][3] = {
		{ "proc", "proc", "proc" }, { "sysfs", "sys", "sysfs" },
		{ "devtmpfs", "dev", "devtmpfs" }, { "tmpfs", "tmp", "tmpfs" },
		{ "tmpfs", "run", "tmpfs" },
	};

	if (call(g, mount_req("tmpfs", KB_HOSTROOT, "tmpfs", "mode=755", 0),
		 "making the host root's tmpfs", err, errlen))
		return -1;
	for (int i = 0; i < n; i++) {
		snprintf(dir, sizeof(dir), "%s/%s", KB_HOSTROOT, e[i].name);
		if (e[i].is_link) {
			json_object *req = json_object_new_object();
			json_object_object_add(req, "op", json_object_new_string("symlink"));
			json_object_object_add(req, "target", json_object_new_string(e[i].target));
			json_object_object_add(req, "path", json_object_new_string(dir));
			snprintf(what, sizeof(what), "linking %s", dir);
			if (call(g, req, what, err, errlen))
				return -1;
			continue;
		}
		snprintf(what, sizeof(what), "mounting the host's /%s over virtio-9p (the guest "
			 "kernel needs 9P_FS and NET_9P_VIRTIO)", e[i].name);
		if (call(g, mount_req(e[i].tag, dir, "9p", NINEP_OPTS, 1), what, err, errlen))
			return -1;
	}
	for (size_t i = 0; i < sizeof(pseudo) / sizeof(pseudo[0]); i++) {
		snprintf(dir, sizeof(dir), "%s/%s", KB_HOSTROOT, pseudo[i][1]);
		snprintf(what, sizeof(what), "mounting %s in the host root", pseudo[i][1]);
		if (call(g, mount_req(pseudo[i][0], dir, pseudo[i][2],
				      !strcmp(pseudo[i][1], "tmp") ? "mode=1777" : NULL, 0),
			 what, err, errlen))
			return -1;
	}
	if (disk_mount && *disk_mount) {
		json_object *req;
		snprintf(dir, sizeof(dir), "%s%s", KB_HOSTROOT, disk_mount);
		req = mount_req("", dir, "ext4", NULL, 0);
		json_object_object_del(req, "dev");
		json_object_object_add(req, "serial", json_object_new_string(KB_KBUILD_SERIAL));
		if (call(g, req, "mounting the kbuild disk", err, errlen))
			return -1;
	}
	return 0;
}
