/* hostroot.c - the host's toolchain, shared read-only into the guest.
 *
 * virtme-ng boots a kernel on the host's own root filesystem over 9p; kbench
 * needs less: the compiler, make and their libraries and configuration, so
 * it shares /usr and /etc (and on a system without merged /usr, /bin,
 * /sbin and /lib*), never /root, /home, /proc or /sys. The agent mounts
 * them under KB_HOSTROOT on a tmpfs, adds the merged-/usr symlinks, the
 * pseudo filesystems and a tmpfs /tmp, and runs the build chrooted there.
 */
#include "backend/hostroot.h"
#include "agent/proto.h"

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
	for (const unsigned char *c = (const unsigned char *)path; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return -1;
	return 0;
}

void hostroot_qemu_args(struct strvec *argv)
{
	struct host_entry e[HOSTROOT_MAX];
	int n = hostroot_layout(e, HOSTROOT_MAX);
	for (int i = 0; i < n; i++) {
		if (e[i].is_link)
			continue;
		char *name = qemu_opt_escape(e[i].name);
		strvec_push(argv, "-fsdev");
		strvec_pushf(argv, "local,id=fs%d,path=/%s,security_model=none,readonly=on,"
			     "multidevs=remap", i, name);
		free(name);
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
