/* needs.c - what the guest needs of a kernel (needs.h). */
#include "kernel/needs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The order is the modules' load order; with Debian 13's 6.12 images the
 * first two are built in and the list of modules stays what it was. */
const struct kneed kernel_needs[] = {
	{ "VIRTIO_PCI", "virtio_pci", "the virtio devices (QEMU's virtio-pci transport)", 0 },
	{ "VIRTIO_CONSOLE", "virtio_console", "the channel to kbench's agent (virtio-serial)", 0 },
	{ "BLK_DEV_INITRD", NULL, "kbench's initramfs (the agent is its init)", 0 },
	{ "DEVTMPFS", NULL, "/dev in the guest (the agent mounts devtmpfs)", 0 },
	{ "CRYPTO_CRC32C", "crc32c_generic", "ext4's metadata checksums (a softdep)",
	  KNEED_OPTIONAL },
	{ "VIRTIO_BLK", "virtio_blk", "the scratch disk (dbench) and kbuild's tree", 0 },
	{ "EXT4_FS", "ext4", "the scratch disk's filesystem", 0 },
	{ "NET_9P_VIRTIO", "9pnet_virtio", "the host's toolchain share (kbuild)", KNEED_HOSTROOT },
	{ "9P_FS", "9p", "the host's toolchain share (kbuild)", KNEED_HOSTROOT },
	{ "SERIAL_8250_CONSOLE", NULL, "the console log (kernel trouble scan)", KNEED_OPTIONAL },
	{ "DEBUG_FS", NULL, "the adaptive-lock counters (debugfs)", KNEED_OPTIONAL },
	{ "VIRTIO_NET", "virtio_net", "the agent's TCP channel on a LAVA device (lava backend)",
	  KNEED_NET },
	{ NULL, NULL, NULL, 0 },
};

size_t kneeds_count(void)
{
	size_t n = 0;
	while (kernel_needs[n].option)
		n++;
	return n;
}

/* 'y', 'm' or 'n' for CONFIG_OPT in the config text CFG, '?' without one.
 * A symbol the config does not mention is not set. */
static char config_state(const char *cfg, const char *opt)
{
	size_t ol = strlen(opt);
	if (!cfg)
		return '?';
	for (const char *p = cfg; p && *p;) {
		const char *eol = strchr(p, '\n');
		if (!strncmp(p, "CONFIG_", 7) && !strncmp(p + 7, opt, ol) && p[7 + ol] == '=')
			return p[8 + ol] == 'y' ? 'y' : p[8 + ol] == 'm' ? 'm' : 'n';
		p = eol ? eol + 1 : NULL;
	}
	return 'n';
}

/* The line of LIST (modules.dep: "path: deps"; modules.builtin: "path")
 * naming module NAME, or NULL. Compressed names (.ko.xz, .zst, .gz) count. */
static const char *module_line(const char *list, const char *name)
{
	char key[128];
	size_t kl = (size_t)snprintf(key, sizeof(key), "/%s.ko", name);
	for (const char *p = list; p && *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		const char *colon = memchr(p, ':', len);
		const char *end = colon ? colon : p + len;
		/* the file name: after the last '/' before END */
		const char *base = end;
		while (base > p && base[-1] != '/')
			base--;
		if (base > p && (size_t)(end - base) >= kl - 1 && !strncmp(base - 1, key, kl)) {
			const char *tail = base - 1 + kl;
			if (tail == end || (end - tail == 3 && !strncmp(tail, ".xz", 3)) ||
			    (end - tail == 4 && !strncmp(tail, ".zst", 4)) ||
			    (end - tail == 3 && !strncmp(tail, ".gz", 3)))
				return p;
		}
		p = eol ? eol + 1 : NULL;
	}
	return NULL;
}

static void eval_one(const struct kneed *n, const char *config, const char *dep,
		     const char *builtin, struct kneed_result *r)
{
	char c = config_state(config, n->option);
	r->need = n;
	r->why[0] = '\0';
	if (c == 'y' || (n->module && builtin && module_line(builtin, n->module))) {
		r->state = KNEED_BUILTIN;
	} else if (n->module && dep && module_line(dep, n->module)) {
		r->state = KNEED_MODULE;
	} else if (c == 'm') {
		r->state = KNEED_MISSING;
		snprintf(r->why, sizeof(r->why), "CONFIG_%s=m, but %s.ko is not among its modules%s",
			 n->option, n->module ? n->module : "?", dep ? "" : " (no modules found)");
	} else if (c == 'n') {
		r->state = KNEED_MISSING;
		snprintf(r->why, sizeof(r->why), "CONFIG_%s is not set", n->option);
	} else {
		r->state = KNEED_UNKNOWN; /* no config, and no module of it seen */
	}
}

char kernel_config_state(const struct kernel_image *k, const char *option)
{
	struct strbuf cfg = STRBUF_INIT;
	char c = '?';
	if (k->config[0] && read_file(k->config, &cfg, 16u << 20) == 0)
		c = config_state(cfg.buf ? cfg.buf : "", option);
	sb_release(&cfg);
	return c;
}

/* Does need ND apply to a run with the conditional needs WHICH (a mask of
 * KNEED_COND's flags)? */
static int kneed_applies(const struct kneed *nd, int which)
{
	return !(nd->flags & KNEED_COND & ~(unsigned)which);
}

int kneeds_eval(const char *config, const char *dep, const char *builtin, int hostroot,
		struct kneed_result *res)
{
	int missing = 0;
	for (size_t i = 0; kernel_needs[i].option; i++) {
		eval_one(&kernel_needs[i], config, dep, builtin, &res[i]);
		if (res[i].state == KNEED_MISSING && !(kernel_needs[i].flags & KNEED_OPTIONAL) &&
		    kneed_applies(&kernel_needs[i], hostroot))
			missing++;
	}
	return missing;
}

/* Read FILE into SB when it exists; 1 if it does not, -1 on error. */
static int read_opt(const char *dir, const char *name, struct strbuf *sb)
{
	char path[KB_PATH_MAX];
	if (!dir || !dir[0])
		return 1;
	snprintf(path, sizeof(path), "%s%s%s", dir, name ? "/" : "", name ? name : "");
	if (!path_exists(path))
		return 1;
	return read_file(path, sb, 64u << 20) ? -1 : 0;
}

int kernel_needs_check(const struct kernel_image *k, int hostroot, struct kneed_result *res)
{
	struct strbuf cfg = STRBUF_INIT, dep = STRBUF_INIT, bi = STRBUF_INIT;
	int rc, rd, rb, ret = -1;
	if ((rc = read_opt(k->config, NULL, &cfg)) < 0 ||
	    (rd = read_opt(k->moddir, "modules.dep", &dep)) < 0 ||
	    (rb = read_opt(k->moddir, "modules.builtin", &bi)) < 0)
		goto out;
	ret = kneeds_eval(rc ? NULL : cfg.buf ? cfg.buf : "", rd ? NULL : dep.buf ? dep.buf : "",
			  rb ? NULL : bi.buf ? bi.buf : "", hostroot, res);
out:
	sb_release(&cfg);
	sb_release(&dep);
	sb_release(&bi);
	return ret;
}

/* One error per required need missing in RES (the kbuild ones with
 * HOSTROOT): kernel NAME (WHAT) lacks it; BUILT: kbench builds it (no
 * modules), else someone else did. */
static void refuse_each(const char *name, const char *what, const struct kneed_result *res,
			int hostroot, int built)
{
	for (size_t i = 0; kernel_needs[i].option; i++) {
		const struct kneed *nd = res[i].need;
		if (res[i].state != KNEED_MISSING || (nd->flags & KNEED_OPTIONAL) ||
		    !kneed_applies(nd, hostroot))
			continue;
		if (built)
			error("kernel %s (%s) lacks %s (%s): kbench needs it for %s; add CONFIG_%s=y "
			      "to a fragment in configs/kernel/ (kbench builds the bzImage alone, no "
			      "modules)", name, what, nd->module ? nd->module : nd->option, res[i].why,
			      nd->what, nd->option);
		else
			error("kernel %s (%s) has %s neither built in nor as a module (%s): kbench needs "
			      "it for %s; build the kernel with CONFIG_%s=y%s%s", name, what,
			      nd->module ? nd->module : nd->option, res[i].why, nd->what, nd->option,
			      nd->module ? " (or =m with its modules)" : "",
			      strstr(res[i].why, "=m,") ? ", or, where a distribution ships modules in a "
			      "second package, name it in the variant file (modules_file = PATH)" : "");
	}
}

int kernel_needs_refuse(const char *name, const struct kernel_image *k, int hostroot)
{
	struct kneed_result *res = xcalloc(kneeds_count() + 1, sizeof(*res));
	int missing = kernel_needs_check(k, hostroot, res);
	if (missing > 0)
		refuse_each(name, k->release[0] ? k->release : k->vmlinuz, res, hostroot, 0);
	free(res);
	return missing ? -1 : 0;
}

int kneeds_refuse_config(const char *name, const char *config)
{
	struct strbuf cfg = STRBUF_INIT;
	struct kneed_result *res = xcalloc(kneeds_count() + 1, sizeof(*res));
	int missing = -1;
	if (read_file(config, &cfg, 16u << 20) == 0) {
		/* kbench builds the bzImage alone: a module would not exist */
		missing = kneeds_eval(cfg.buf ? cfg.buf : "", NULL, NULL, 0, res);
		if (missing > 0)
			refuse_each(name, "its merged .config, before the build", res, 0, 1);
	}
	sb_release(&cfg);
	free(res);
	return missing ? -1 : 0;
}

static void push_once(struct strvec *v, const char *s)
{
	for (size_t j = 0; j < v->n; j++)
		if (!strcmp(v->v[j], s))
			return;
	strvec_push(v, s);
}

int kneeds_modules(const char *dep, const struct kneed_result *res, int hostroot,
		   struct strvec *order)
{
	for (size_t i = 0; kernel_needs[i].option; i++) {
		const char *line;
		char *copy, *colon, *save = NULL;
		struct strvec deps = STRVEC_INIT;
		if (res[i].state != KNEED_MODULE || !dep ||
		    !kneed_applies(res[i].need, hostroot) ||
		    !(line = module_line(dep, res[i].need->module)))
			continue;
		copy = xasprintf("%.*s", (int)strcspn(line, "\n"), line);
		if (!(colon = strchr(copy, ':'))) {
			error("modules.dep: no ':' in '%s'", copy);
			free(copy);
			return -1;
		}
		*colon = '\0';
		for (char *t = strtok_r(colon + 1, " ", &save); t; t = strtok_r(NULL, " ", &save))
			strvec_push(&deps, t);
		/* dependencies are listed with the deepest last: load in reverse */
		for (size_t d = deps.n; d-- > 0;)
			push_once(order, deps.v[d]);
		push_once(order, copy);
		strvec_clear(&deps);
		free(copy);
	}
	return 0;
}
