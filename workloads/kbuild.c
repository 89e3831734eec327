/* kbuild.c - a real kernel compile inside the guest, timed like kernbench
 * and rteval's kcompile: `make -jN <targets>` on Debian's linux-source-6.12.
 *
 * How the guest gets a toolchain and a tree (see README, "kbuild"):
 *   - the host's /usr (and /bin, /lib... where they are not symlinks) and
 *     a staged /etc of the loader's files and the alternatives links
 *     (hostroot.c, docs/security.md) are shared read-only over virtio-9p,
 *     the way virtme-ng boots kernels, and the agent chroots into them
 *     (KB_HOSTROOT): the guest compiles with the very gcc the native
 *     comparison uses, so the guest/native ratio is the cost of the
 *     kernel and the emulation only;
 *   - the tree and the object directory live on an ext4 disk image made
 *     once per cache (mkfs.ext4 -d) and attached copy-on-write, so every
 *     iteration starts from the same pristine state and nothing is read
 *     from or written to 9p during the build but the toolchain itself.
 * Kbuild writes absolute paths into the object directory, so the disk is
 * mounted in the guest at the host path it was prepared at. With
 * prepare=host (the default) the configure and `make prepare` steps run
 * natively when the disk is made (under TCG they alone take 10+ minutes);
 * prepare=guest runs them in the guest before the timer, prepare=timed
 * inside it (a from-scratch kernbench).
 *
 * Metrics: elapsed, user and sys seconds of make, measured by the agent
 * (wait4 rusage of make and every compiler it waited for).
 */
#include "workloads/workloads.h"
#include "kernel/source.h"
#include "agent/proto.h"
#include "core/spawn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#define KBUILD_FORMAT "kbench-kbuild 2"
#define KBUILD_MARK "kbench kbuild tree\n" /* ROOT/prepared: the tree is whole */
#define KBUILD_TREE_PKG "linux-source-6.12"
#define KBUILD_RELEASE "trixie"
#define KBUILD_DISK_MB 8192
#define MAKE_PATH "/usr/bin/make"
#define KB_MAX_TARGETS 32
/* CPU seconds (native, one core) a piece of the build costs, for
 * deadlines: generous, the deadline only has to catch a hang. */
#define EST_DIR_S 60
#define EST_OBJ_S 5
#define EST_VMLINUX_S 3000
#define EST_TINY_VMLINUX_S 400
#define EST_PREPARE_S 60

static const char *const prepares[] = { "host", "guest", "timed", NULL };

struct kbuild_params {
	int jobs;
	char config[OPT_STR_MAX];
	char target[OPT_STR_MAX];
	int clean;
	int prepare; /* enum kbuild_prepare */
};

#define P(f) offsetof(struct kbuild_params, f)
static const struct opt_def kbuild_opts[] = {
	{ "jobs", OPT_INT, P(jobs), 1, 1024, NULL, "make -j (default: one per vCPU)" },
	{ "config", OPT_STRING, P(config), 0, 0, NULL,
	  "defconfig, tinyconfig, allnoconfig, or an absolute path to a .config" },
	{ "target", OPT_STRING, P(target), 0, 0, NULL,
	  "vmlinux, or a space-separated list of directories (kernel/locking/) and "
	  "objects (mm/slub.o) for a scaled-down build" },
	{ "clean", OPT_BOOL, P(clean), 0, 0, NULL,
	  "start every iteration from the pristine tree (yes), or keep the build "
	  "output of the previous iteration (no: later iterations are incremental)" },
	{ "prepare", OPT_ENUM, P(prepare), 0, 0, prepares,
	  "where configure + make prepare run: on the host when the disk is made "
	  "(host), in the guest before the timer (guest), or timed (timed)" },
	OPT_END
};
#undef P

static void kbuild_defaults(void *params, int vcpus)
{
	struct kbuild_params *p = params;
	p->jobs = vcpus < 1 ? 1 : vcpus > 1024 ? 1024 : vcpus;
	snprintf(p->config, sizeof(p->config), "defconfig");
	snprintf(p->target, sizeof(p->target), "vmlinux");
	p->clean = 1;
	p->prepare = KB_PREP_HOST;
}

static int is_named_config(const char *c)
{
	return !strcmp(c, "defconfig") || !strcmp(c, "tinyconfig") || !strcmp(c, "allnoconfig");
}

/* The make goal that configures: the named one, or olddefconfig over the
 * user's file (copied to the object directory when the disk is made). */
static const char *config_goal(const char *config)
{
	return is_named_config(config) ? config : "olddefconfig";
}

int kbuild_targets_check(const char *targets, char *err, size_t errlen)
{
	char buf[OPT_STR_MAX], *save = NULL;
	int n = 0;
	snprintf(buf, sizeof(buf), "%s", targets);
	for (char *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		size_t len = strlen(t);
		int dir = t[len - 1] == '/';
		int obj = len > 2 && t[len - 2] == '.' && strchr("osi", t[len - 1]);
		if (++n > KB_MAX_TARGETS) {
			snprintf(err, errlen, "'target' lists more than %d goals", KB_MAX_TARGETS);
			return -1;
		}
		if (t[0] == '/' || t[0] == '-' || strstr(t, "..") ||
		    strspn(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./") != len) {
			snprintf(err, errlen, "'target' goal '%s' must be a relative path of letters, "
				 "digits, '_', '-', '.' and '/'", t);
			return -1;
		}
		if (strcmp(t, "vmlinux") && !dir && !obj) {
			snprintf(err, errlen, "'target' goal '%s' is not vmlinux, a directory ending "
				 "in '/' or an object (.o, .s, .i)", t);
			return -1;
		}
	}
	if (!n) {
		snprintf(err, errlen, "'target' is empty: name vmlinux or directories/objects");
		return -1;
	}
	return 0;
}

static int kbuild_check(const void *params, char *err, size_t errlen)
{
	const struct kbuild_params *p = params;
	if (!is_named_config(p->config)) {
		struct stat st;
		if (p->config[0] != '/') {
			snprintf(err, errlen, "'config' must be defconfig, tinyconfig, allnoconfig or an "
				 "absolute path to a .config, got '%s'", p->config);
			return -1;
		}
		if (stat(p->config, &st)) {
			snprintf(err, errlen, "'config' file '%s': %s", p->config, strerror(errno));
			return -1;
		}
		if (!S_ISREG(st.st_mode)) {
			snprintf(err, errlen, "'config' file '%s' is not a regular file", p->config);
			return -1;
		}
	}
	return kbuild_targets_check(p->target, err, errlen);
}


#define step_fail(step, log, what) step_failed("kbuild disk", step, log, "%s", what)

/* An interrupted `kbench kbuild-native` leaves the pristine object
 * directory beside the used one: put it back. */
static int restore_pristine(const char *root)
{
	char obj[KB_PATH_MAX], saved[KB_PATH_MAX];
	snprintf(obj, sizeof(obj), "%s/obj", root);
	snprintf(saved, sizeof(saved), "%s/obj.pristine", root);
	if (!path_exists(saved))
		return 0;
	if (rm_rf(obj) || rename(saved, obj))
		return error("cannot restore '%s' from '%s': %s", obj, saved, strerror(errno));
	return 0;
}

/* prepare=host: configure and `make prepare` the tree at SRC into OBJ on
 * the host, logging to LOG. */
static int prepare_natively(const char *config, const char *src, const char *obj,
			    const char *log)
{
	struct strvec argv = STRVEC_INIT;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int ret = 0;

	info("kbench: kbuild: configuring (%s) and running make prepare natively, log %s",
	     config_goal(config), log);
	/* the guest's environment, not ours: kconfig records tools it
	 * finds (rustc in a user's PATH) and would re-run in the guest */
	strvec_push(&argv, "env");
	strvec_push(&argv, "-i");
	kbuild_env(&argv);
	strvec_push(&argv, "make");
	strvec_push(&argv, "-C");
	strvec_push(&argv, src);
	strvec_pushf(&argv, "O=%s", obj);
	strvec_pushf(&argv, "-j%ld", ncpu > 0 ? ncpu : 1);
	strvec_push(&argv, config_goal(config));
	strvec_push(&argv, "prepare");
	if (run_logged((const char *const *)argv.v, NULL, log, 3600))
		ret = step_fail("prepare", log, "configuring or `make prepare` failed");
	strvec_clear(&argv);
	return ret;
}

/* Write the tree under ROOT into the ext4 image IMG (via IMG.tmp). */
static int write_image(const char *root, const char *img, const char *log)
{
	struct strvec argv = STRVEC_INIT;
	char tmp[KB_PATH_MAX];
	int ret = -1;

	snprintf(tmp, sizeof(tmp), "%s.tmp", img);
	unlink(tmp);
	info("kbench: kbuild: writing the tree into an ext4 image (mkfs.ext4 -d)");
	strvec_push(&argv, "mkfs.ext4");
	strvec_push(&argv, "-q");
	strvec_push(&argv, "-F");
	strvec_push(&argv, "-L");
	strvec_push(&argv, "kbuild");
	strvec_push(&argv, "-d");
	strvec_push(&argv, root);
	strvec_push(&argv, tmp);
	strvec_pushf(&argv, "%dM", KBUILD_DISK_MB);
	if (run_logged((const char *const *)argv.v, NULL, log, 1800)) {
		unlink(tmp);
		step_fail("image", log, "mkfs.ext4 -d failed (is the disk full?)");
		goto out;
	}
	if (rename(tmp, img)) {
		error("cannot rename '%s': %s", tmp, strerror(errno));
		unlink(tmp);
		goto out;
	}
	ret = 0;
out:
	strvec_clear(&argv);
	return ret;
}

/* kbuild_disk (IMAGE: the ext4 image too, or only the prepared tree, for
 * the local backend), keeping the disk's lock when LOCKFD is not NULL.
 * ROOT/prepared marks a tree made (and prepared when asked) in full. */
static int disk_locked(const char *config, enum kbuild_prepare prep, int image,
		       struct image_needs *needs, char *src, size_t srclen, char *obj, size_t objlen,
		       int *lockfd)
{
	char tree[KB_PATH_MAX], ident[600], cc[256], cfgkey[80], h[65], dir[KB_PATH_MAX];
	char root[KB_PATH_MAX], img[KB_PATH_MAX], log[KB_PATH_MAX], mark[KB_PATH_MAX];
	char locks[KB_PATH_MAX];
	struct strbuf key = STRBUF_INIT;
	struct strvec argv = STRVEC_INIT;
	int lock = -1, ret = -1, host = prep == KB_PREP_HOST;
	double t0 = now_mono();

	if (kernel_source(KBUILD_TREE_PKG, KBUILD_RELEASE, tree, sizeof(tree), ident, sizeof(ident),
			  cc, sizeof(cc)))
		return -1;
	if (is_named_config(config)) {
		snprintf(cfgkey, sizeof(cfgkey), "%s", config);
	} else {
		if (sha256_file_hex(config, h))
			return -1;
		snprintf(cfgkey, sizeof(cfgkey), "file:%.32s", h);
	}
	sb_addf(&key, "%s\nsource %s\nconfig %s\nprepared %s\ncompiler %s\n", KBUILD_FORMAT, ident,
		cfgkey, host ? "host" : "no", cc);
	sha256_hex(key.buf, key.len, h);
	sb_release(&key);
	snprintf(dir, sizeof(dir), "%s/kbuild/%.24s", cache_root(), h);
	snprintf(root, sizeof(root), "%s/root", dir);
	snprintf(img, sizeof(img), "%s/disk.img", dir);
	snprintf(log, sizeof(log), "%s/prepare.log", dir);
	snprintf(mark, sizeof(mark), "%s/prepared", root);
	snprintf(locks, sizeof(locks), "%s/kbuild/locks", cache_root());
	snprintf(src, srclen, "%s/linux", root);
	snprintf(obj, objlen, "%s/obj", root);
	if (needs->disk[0] && strcmp(needs->disk, img)) {
		error("a suite can use one kbuild disk, but two kbuild sections need different ones "
		      "(config or prepare differ): give them the same config and prepare");
		return -1;
	}
	if (mkdir_p(dir, 0755))
		return -1;
	lock = lock_file(locks, h, "the same kbuild disk");
	if (lock < 0)
		return -1;
	if (restore_pristine(root))
		goto out;
	if (path_exists(img) || (!image && path_exists(mark)))
		goto done;
	if (path_exists(mark)) { /* made for the local backend: the image only */
		if (write_image(root, img, log))
			goto out;
		goto done;
	}

	info("kbench: kbuild: making the tree disk (%s, %s, prepare %s) in %s", ident, config,
	     prepares[prep], dir);
	rm_rf(root);
	unlink(log);
	if (mkdir_p(root, 0755))
		goto out;
	/* hard links: the object directory is separate, the tree is never
	 * written (make O=), and this costs no copy */
	strvec_push(&argv, "cp");
	strvec_push(&argv, "-al");
	strvec_push(&argv, tree);
	strvec_push(&argv, src);
	if (run_logged((const char *const *)argv.v, NULL, log, 1800)) {
		step_fail("tree", log, "cannot link the source tree");
		goto out;
	}
	strvec_clear(&argv);
	if (mkdir_p(obj, 0755))
		goto out;
	if (!is_named_config(config)) {
		char dst[KB_PATH_MAX];
		snprintf(dst, sizeof(dst), "%s/.config", obj);
		if (copy_file(config, dst, 0644))
			goto out;
	}
	if ((host && prepare_natively(config, src, obj, log)) ||
	    write_file_atomic(mark, KBUILD_MARK, strlen(KBUILD_MARK)) ||
	    (image && write_image(root, img, log)))
		goto out;
	info("kbench: kbuild: tree %s in %.0f s", image ? "disk ready" : "ready", now_mono() - t0);
done:
	if (!image) {
		ret = 0;
		goto out;
	}
	needs->hostroot = 1;
	snprintf(needs->disk, sizeof(needs->disk), "%s", img);
	snprintf(needs->disk_mount, sizeof(needs->disk_mount), "%s", root);
	ret = 0;
out:
	strvec_clear(&argv);
	if (ret == 0 && lockfd)
		*lockfd = lock;
	else if (lock >= 0)
		close(lock);
	return ret;
}

int kbuild_disk(const char *config, enum kbuild_prepare prep, struct image_needs *needs,
		char *src, size_t srclen, char *obj, size_t objlen)
{
	return disk_locked(config, prep, 1, needs, src, srclen, obj, objlen, NULL);
}

/*
 * On a remote machine (an ssh target: image_needs.target, guest_cmd.target)
 * kbuild compiles with the machine's own toolchain, the way mmtests'
 * kernbench and rteval's kcompile do on the machine under test: its
 * compiler is the one the machine's users have, and a target of another
 * distribution or architecture gets objects its tools can run. What the
 * machine needs from the host is the source tree only: its backend copies
 * it once per machine (KB_TARGET_KBUILD_DIR/KEY/linux, KEY from the
 * tree's identity) and keeps it there. Configuring and `make prepare` run
 * there too, untimed, once per tree, config and toolchain (their key is
 * the compiler's, the linker's and make's versions: an upgraded compiler
 * prepares anew), kept beside the tree; every iteration copies that
 * prepared object directory (cp -a keeps the times: make rebuilds nothing
 * of it) into the iteration's fresh scratch directory and builds there.
 */
int kbuild_target_tree(struct image_needs *needs, char *tree, size_t len)
{
	char ident[600], cc[256], h[65];
	struct strbuf key = STRBUF_INIT;
	if (kernel_source(KBUILD_TREE_PKG, KBUILD_RELEASE, needs->tree, sizeof(needs->tree), ident,
			  sizeof(ident), cc, sizeof(cc)))
		return -1;
	sb_addf(&key, "kbench target tree 1\nsource %s\n", ident);
	sha256_hex(key.buf, key.len, h);
	sb_release(&key);
	snprintf(needs->tree_key, sizeof(needs->tree_key), "%.24s", h);
	snprintf(tree, len, "%s/%s/linux", KB_TARGET_KBUILD_DIR, needs->tree_key);
	return 0;
}

/* The machine's untimed step: the tree there ($1, complete), configured
 * with goal $2 and prepared (-j$3) once per toolchain beside it, copied
 * to $4 (new); with $5 = timed, $4 is made empty and nothing prepared.
 * A constant script: the values are its arguments, never spliced in. */
static const char target_pre_script[] =
	"t=$1 c=$2 j=$3 o=$4\n"
	"[ -f \"${t%/linux}/tree-complete\" ] || { echo \"kbuild: no complete kernel tree at $t on the machine\"; exit 3; }\n"
	"rm -rf \"$o\" || exit 3\n"
	"[ \"$5\" = timed ] && { mkdir -p \"$o\"; exit; }\n"
	"k=$( { echo \"$c\"; gcc --version | head -n 1; ld --version | head -n 1; make --version | head -n 1; } | sha256sum | cut -c1-16)\n"
	"p=${t%/linux}/obj-$c-$k\n"
	"if [ ! -f \"$p.prepared\" ]; then\n"
	"  rm -rf \"$p\" && mkdir -p \"$p\" || exit 3\n"
	"  echo \"kbuild: configuring ($c) and make prepare on the machine, once for its toolchain: $p\"\n"
	"  make -C \"$t\" O=\"$p\" -j\"$j\" \"$c\" prepare >\"$p.log\" 2>&1 ||\n"
	"    { grep -m 5 -E ' error:|Error|not found' \"$p.log\" >&2; tail -n 5 \"$p.log\" >&2; echo \"kbuild: configuring ($c) or make prepare failed on the machine (log $p.log)\" >&2; exit 1; }\n"
	"  touch \"$p.prepared\"\n"
	"else echo \"kbuild: $c prepared on the machine before (reused): $p\"; fi\n"
	"cp -a \"$p\" \"$o\"\n";

void kbuild_target_pre(const char *tree, const char *config, int timed, int jobs, const char *obj,
		       struct strvec *pre)
{
	strvec_push(pre, "/bin/sh");
	strvec_push(pre, "-c");
	strvec_push(pre, target_pre_script);
	strvec_push(pre, "kbuild-prepare");
	strvec_push(pre, tree);
	strvec_push(pre, config);
	strvec_pushf(pre, "%d", jobs);
	strvec_push(pre, obj);
	strvec_push(pre, timed ? "timed" : "");
}

static int kbuild_prepare(const void *params, struct image_needs *needs)
{
	const struct kbuild_params *p = params;
	char src[KB_PATH_MAX], obj[KB_PATH_MAX];
	if (needs->target) {
		if (!is_named_config(p->config))
			return error("kbuild: config = %s: a remote machine builds defconfig, tinyconfig "
				     "or allnoconfig (a config file of this host is not copied there)",
				     p->config);
		if (!p->clean)
			return error("kbuild: clean = no cannot be kept on a remote machine: the scratch "
				     "directory is made fresh for every iteration (use clean = yes)");
		return kbuild_target_tree(needs, src, sizeof(src));
	}
	if (kbuild_disk(p->config, (enum kbuild_prepare)p->prepare, needs, src, sizeof(src), obj,
			sizeof(obj)))
		return -1;
	if (!p->clean)
		needs->disk_keep = 1;
	return 0;
}

/* CPU seconds (one native core) the goals cost, for the deadline. */
static double estimate_cpu_s(const struct kbuild_params *p)
{
	char buf[OPT_STR_MAX], *save = NULL;
	double s = p->prepare == KB_PREP_HOST ? 0 : EST_PREPARE_S;
	snprintf(buf, sizeof(buf), "%s", p->target);
	for (char *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (!strcmp(t, "vmlinux"))
			s += strcmp(p->config, "defconfig") && p->config[0] != '/' ?
				EST_TINY_VMLINUX_S : EST_VMLINUX_S;
		else
			s += t[strlen(t) - 1] == '/' ? EST_DIR_S : EST_OBJ_S;
	}
	return s;
}

static void make_argv(const struct kbuild_params *p, const char *src, const char *obj,
		      struct strvec *argv)
{
	strvec_push(argv, MAKE_PATH);
	strvec_push(argv, "-C");
	strvec_push(argv, src);
	strvec_pushf(argv, "O=%s", obj);
	strvec_pushf(argv, "-j%d", p->jobs);
}

/* The environment of make in the guest (and natively): nothing of the
 * caller's, so both sides build alike. */
void kbuild_env(struct strvec *env)
{
	strvec_push(env, "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
	strvec_push(env, "HOME=/tmp");
	strvec_push(env, "TMPDIR=/tmp");
	strvec_push(env, "LC_ALL=C");
	strvec_push(env, "TERM=dumb");
	strvec_push(env, "KBUILD_BUILD_TIMESTAMP=kbench");
	strvec_push(env, "KBUILD_BUILD_USER=kbench");
	strvec_push(env, "KBUILD_BUILD_HOST=kbench");
}

/* The timed command: make -C SRC O=OBJ -jN [config goal] goals. */
int kbuild_make_argv(const void *params, const char *src, const char *obj, struct strvec *argv)
{
	const struct kbuild_params *p = params;
	char buf[OPT_STR_MAX], *save = NULL;
	make_argv(p, src, obj, argv);
	if (p->prepare == KB_PREP_TIMED)
		strvec_push(argv, config_goal(p->config));
	snprintf(buf, sizeof(buf), "%s", p->target);
	for (char *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
		strvec_push(argv, t);
	return 0;
}

/* 8x the native CPU time spread over the jobs, plus start-up: the main
 * command's deadline (the harness scales it again for TCG) */
static double make_deadline_s(const struct kbuild_params *p)
{
	return 120 + estimate_cpu_s(p) * 8 / p->jobs;
}

/* Paths of the tree and objects, as kbuild_disk names them (IMAGE: with
 * the disk image, or the tree alone, for the local backend), without
 * making anything (command() must be cheap: it runs per iteration). */
static int disk_paths(const struct kbuild_params *p, int image, char *src, size_t sl, char *obj,
		      size_t ol)
{
	struct image_needs n = IMAGE_NEEDS_INIT;
	/* a cache hit costs a hash of the inputs and a stat */
	int r = disk_locked(p->config, (enum kbuild_prepare)p->prepare, image, &n, src, sl, obj, ol,
			    NULL);
	strvec_clear(&n.programs);
	strvec_clear(&n.files);
	return r;
}

/*
 * On this host (the local backend): the cached tree as it is, its pristine
 * object directory copied into the iteration's scratch directory by the
 * untimed step (cp -a keeps the times, so make rebuilds nothing of the
 * preparation) and built there with O=, the host's own toolchain, no
 * chroot. prepare=guest means prepare=host here (both run natively,
 * untimed); clean=no cannot be kept, since the scratch directory is fresh
 * every iteration.
 */
static int native_command(const struct kbuild_params *p, struct guest_cmd *cmd)
{
	struct kbuild_params q = *p;
	char src[KB_PATH_MAX], obj[KB_PATH_MAX], build[KB_PATH_MAX];

	if (!p->clean)
		return error("kbuild: clean = no cannot be kept on this host: the scratch directory "
			     "is made fresh for every iteration (use clean = yes)");
	if (q.prepare == KB_PREP_GUEST)
		q.prepare = KB_PREP_HOST;
	if (disk_paths(&q, 0, src, sizeof(src), obj, sizeof(obj)))
		return -1;
	snprintf(build, sizeof(build), "%s/kbuild-obj", cmd->scratch);
	strvec_push(&cmd->pre_argv, "/bin/cp");
	strvec_push(&cmd->pre_argv, "-a");
	strvec_push(&cmd->pre_argv, obj);
	strvec_push(&cmd->pre_argv, build);
	cmd->pre_timeout_s = 600;
	kbuild_make_argv(&q, src, build, &cmd->argv);
	kbuild_env(&cmd->env);
	cmd->needs_scratch = 1; /* the local backend's --scratch DIR */
	snprintf(cmd->cwd, sizeof(cmd->cwd), "%s", cmd->scratch);
	cmd->report_times = 1;
	cmd->timeout_s = (int)make_deadline_s(&q);
	return 0;
}

/* On a remote machine (see kbuild_target_tree): the machine's toolchain,
 * no chroot; prepare = host or guest both mean before the timer there. */
static int target_command(const struct kbuild_params *p, struct guest_cmd *cmd)
{
	struct image_needs n = IMAGE_NEEDS_INIT;
	char tree[KB_PATH_MAX], build[KB_PATH_MAX];
	int r = kbuild_target_tree(&n, tree, sizeof(tree));
	strvec_clear(&n.programs);
	strvec_clear(&n.files);
	if (r)
		return -1;
	snprintf(build, sizeof(build), "%s/kbuild-obj", cmd->scratch);
	kbuild_target_pre(tree, config_goal(p->config), p->prepare == KB_PREP_TIMED, p->jobs, build,
			  &cmd->pre_argv);
	/* once per toolchain, natively: EST_PREPARE_S, generously */
	cmd->pre_timeout_s = 600 + EST_PREPARE_S * 8;
	kbuild_make_argv(p, tree, build, &cmd->argv);
	kbuild_env(&cmd->env);
	cmd->needs_scratch = 1;
	snprintf(cmd->cwd, sizeof(cmd->cwd), "%s", cmd->scratch);
	cmd->report_times = 1;
	cmd->timeout_s = (int)make_deadline_s(p);
	return 0;
}

static int kbuild_command(const void *params, struct guest_cmd *cmd)
{
	const struct kbuild_params *p = params;
	char src[KB_PATH_MAX], obj[KB_PATH_MAX];

	if (cmd->target)
		return target_command(p, cmd);
	if (cmd->native)
		return native_command(p, cmd);
	if (disk_paths(p, 1, src, sizeof(src), obj, sizeof(obj)))
		return -1;
	kbuild_make_argv(p, src, obj, &cmd->argv);
	if (p->prepare == KB_PREP_GUEST) {
		make_argv(p, src, obj, &cmd->pre_argv);
		strvec_push(&cmd->pre_argv, config_goal(p->config));
		strvec_push(&cmd->pre_argv, "prepare");
		cmd->pre_timeout_s = 120 + EST_PREPARE_S * 8;
	}
	kbuild_env(&cmd->env);
	cmd->in_root = 1;
	cmd->report_times = 1;
	cmd->timeout_s = (int)make_deadline_s(p);
	return 0;
}

/* kbuild's quiet step lines: two spaces, an upper-case command word
 * ("  CC      kernel/fork.o", "  LD [M]  ..."). */
static int is_step(const struct line *ln, const char *word)
{
	size_t wl = strlen(word);
	return ln->len > 2 + wl && ln->s[0] == ' ' && ln->s[1] == ' ' &&
	       !memcmp(ln->s + 2, word, wl) && (ln->s[2 + wl] == ' ' || ln->s[2 + wl] == '\t');
}

/*
 * make's stdout: kbuild step lines, make's "Entering directory" lines,
 * kconfig chatter. The times come from the agent; the parser checks that
 * a build really happened (no "fast success": with clean=yes something
 * must have been compiled) and counts the steps. make's errors go to
 * stderr and fail the workload through make's exit status.
 */
static int kbuild_parse(const void *params, const char *out, size_t len, struct metric_set *ms,
			struct parse_error *err)
{
	const struct kbuild_params *p = params;
	struct line_iter it;
	struct line ln;
	uint64_t cc = 0, as = 0, ld = 0, other = 0;
	int r;
	line_iter_init(&it, out, len);
	while ((r = line_next(&it, &ln, err)) > 0) {
		if (is_step(&ln, "CC"))
			cc++;
		else if (is_step(&ln, "AS"))
			as++;
		else if (is_step(&ln, "LD") || is_step(&ln, "AR"))
			ld++;
		else if (ln.len > 3 && ln.s[0] == ' ' && ln.s[1] == ' ' && ln.s[2] >= 'A' &&
			 ln.s[2] <= 'Z')
			other++;
	}
	if (r < 0)
		return -1;
	if (p->clean && cc + as == 0)
		return parse_fail(err, line_iter_next_no(&it),
				  "make compiled nothing although the build started clean: "
				  "the goals '%s' do not name anything to build", p->target);
	if (!ms->extra)
		ms->extra = json_object_new_object();
	json_object_object_add(ms->extra, "compiled", json_object_new_int64((int64_t)cc));
	json_object_object_add(ms->extra, "assembled", json_object_new_int64((int64_t)as));
	json_object_object_add(ms->extra, "linked", json_object_new_int64((int64_t)ld));
	json_object_object_add(ms->extra, "other_steps", json_object_new_int64((int64_t)other));
	return 0;
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static int run_argv(const char *const *argv, const char *log)
{
	struct strvec v = STRVEC_INIT;
	int r;
	for (int i = 0; argv[i]; i++)
		strvec_push(&v, argv[i]);
	r = run_logged((const char *const *)v.v, NULL, log, 3600);
	strvec_clear(&v);
	return r;
}

/*
 * The same build natively on the host, for the emulation-cost ratio: the
 * prepared tree of the disk, the same make command and environment, the
 * same paths (kbuild's object directory holds absolute ones). The pristine
 * object directory is set aside during each build and put back after it
 * (under the disk's lock; an interrupted run is repaired by the next use).
 */
int kbuild_native(const void *params, int iterations, json_object *runs)
{
	const struct kbuild_params *p = params;
	struct image_needs n = IMAGE_NEEDS_INIT;
	char src[KB_PATH_MAX], obj[KB_PATH_MAX], saved[KB_PATH_MAX], log[KB_PATH_MAX];
	char errlog[KB_PATH_MAX + 8];
	int lock = -1, ret = -1;

	if (p->prepare != KB_PREP_HOST) {
		error("kbuild-native needs prepare = host (the prepared tree is what both sides build)");
		return -1;
	}
	if (disk_locked(p->config, KB_PREP_HOST, 1, &n, src, sizeof(src), obj, sizeof(obj), &lock))
		goto out;
	snprintf(saved, sizeof(saved), "%s.pristine", obj);
	for (int i = 1; i <= iterations && !kb_interrupted; i++) {
		const char *cp[] = { "cp", "-a", obj, saved, NULL };
		struct strvec argv = STRVEC_INIT;
		struct strbuf outb = STRBUF_INIT;
		struct rusage r0, r1;
		struct child c = CHILD_INIT;
		struct metric_set ms = METRIC_SET_INIT;
		struct parse_error perr = { 0, "" };
		json_object *it;
		double t0, wall;
		int st;

		snprintf(log, sizeof(log), "%s/../native-%d.log", src, i);
		snprintf(errlog, sizeof(errlog), "%s.err", log);
		unlink(log);
		unlink(errlog);
		if (run_argv(cp, log)) {
			error("cannot copy '%s' aside; see %s", obj, log);
			goto out;
		}
		strvec_push(&c.argv, "env");
		strvec_push(&c.argv, "-i");
		kbuild_env(&c.argv);
		kbuild_make_argv(p, src, obj, &argv);
		strvec_push(&c.argv, "make"); /* /usr/bin/make through env's PATH */
		for (size_t k = 1; k < argv.n; k++)
			strvec_push(&c.argv, argv.v[k]);
		strvec_clear(&argv);
		c.stdout_path = log;
		c.stderr_path = errlog;
		c.append = 1;
		c.timeout_s = make_deadline_s(p);
		getrusage(RUSAGE_CHILDREN, &r0);
		t0 = now_mono();
		st = child_run(&c);
		wall = now_mono() - t0;
		getrusage(RUSAGE_CHILDREN, &r1);
		child_release(&c);
		if (rm_rf(obj) || rename(saved, obj)) {
			error("cannot put the pristine '%s' back: %s", obj, strerror(errno));
			goto out;
		}
		if (st) {
			error("native make failed (status %d); log %s", st, log);
			goto out;
		}
		if (read_file(log, &outb, WL_OUTPUT_MAX) ||
		    kbuild_parse(p, outb.buf ? outb.buf : "", outb.len, &ms, &perr)) {
			error("%s:%d: %s", log, perr.line, perr.msg);
			sb_release(&outb);
			metric_set_release(&ms);
			goto out;
		}
		it = json_object_new_object();
		json_object_object_add(it, "elapsed", json_object_new_double(wall));
		json_object_object_add(it, "user", json_object_new_double(
			tv_s(r1.ru_utime) - tv_s(r0.ru_utime)));
		json_object_object_add(it, "sys", json_object_new_double(
			tv_s(r1.ru_stime) - tv_s(r0.ru_stime)));
		json_object_object_add(it, "compiled", json_object_get(
			json_object_object_get(ms.extra, "compiled")));
		json_object_array_add(runs, it);
		info("kbench: native kbuild %d/%d: %.2f s elapsed, %.2f s user, %.2f s sys", i,
		     iterations, wall, tv_s(r1.ru_utime) - tv_s(r0.ru_utime),
		     tv_s(r1.ru_stime) - tv_s(r0.ru_stime));
		sb_release(&outb);
		metric_set_release(&ms);
	}
	ret = kb_interrupted ? -1 : 0;
out:
	strvec_clear(&n.programs);
	strvec_clear(&n.files);
	if (lock >= 0)
		close(lock);
	return ret;
}

/* The host's toolchain runs the build (natively for prepare=host, shared
 * into the guest otherwise); qemu-img layers the cached disk. */
static const struct host_tool kbuild_tools[] = {
	{ "qemu-img", "qemu-utils", NULL },
	{ "make", "make", NULL },
	{ "gcc", "gcc", NULL },
	{ "flex", "flex", NULL },
	{ "bison", "bison", NULL },
	{ "bc", "bc", NULL },
	{ "/usr/include/gelf.h", "libelf-dev", "libelf headers (objtool)" },
	{ "/usr/include/openssl/evp.h", "libssl-dev", "OpenSSL headers (certs, sign-file)" },
	{ NULL, NULL, NULL },
};

const struct workload_ops kbuild_ops = {
	.name = "kbuild",
	.description = "kernel compile in the guest: make -jN on linux-source-6.12 with the host's "
		       "gcc (kernbench, rteval kcompile)",
	/* the agent's wall time of make (report_times); compare.c's old map
	 * said "time", which kbuild never had, so kbuild never counted in a
	 * comparison's score (test_headline_is_produced) */
	.headline = "elapsed",
	.no_repeat = "a second build in the same boot would find the first one's objects "
		     "(an incremental build, not a repeat); run more iterations instead",
	.tools = kbuild_tools,
	.opts = kbuild_opts,
	.params_size = sizeof(struct kbuild_params),
	.defaults = kbuild_defaults,
	.check = kbuild_check,
	.prepare = kbuild_prepare,
	.command = kbuild_command,
	.parse = kbuild_parse,
};
