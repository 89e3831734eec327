/* targetcfg.c - kernel configs made for a remote machine (targetcfg.h). */
#include "run/targetcfg.h"
#include "backend/backend.h"
#include "core/target.h"
#include "kernel/source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A kernel release as uname prints it: nothing else is taken from the
 * machine for a file name or a message. */
static int release_ok(const char *rel)
{
	return *rel && strlen(rel) <= 100 &&
	       strspn(rel, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-+_") ==
		       strlen(rel);
}

/* The machine's config and modules (fetched) checked, written to OUT.part,
 * trimmed, renamed to OUT: nothing half-written. */
static int config_write(const char *name, const char *rel, const struct strbuf *cfg,
			const struct strbuf *mods, int localyes, const char *out, int *nmods)
{
	char err[300], part[KB_PATH_MAX + 8], lsmod[KB_PATH_MAX + 8];
	int ret = -1;
	if (kconfig_text_check(cfg->buf ? cfg->buf : "", cfg->len, err, sizeof(err)))
		return error("target '%s': its running config (%s) is refused: %s", name, rel, err);
	*nmods = kconfig_modules_check(mods->buf ? mods->buf : "", mods->len, err, sizeof(err));
	if (*nmods < 0)
		return error("target '%s': its /proc/modules is refused: %s", name, err);
	snprintf(part, sizeof(part), "%s.part", out);
	snprintf(lsmod, sizeof(lsmod), "%s.lsmod", out);
	if (write_file_atomic(part, cfg->buf, cfg->len) ||
	    (localyes && write_file_atomic(lsmod, mods->buf ? mods->buf : "", mods->len)) ||
	    kconfig_for_tree(part, localyes ? lsmod : NULL, part) || rename(part, out))
		goto out;
	ret = 0;
out:
	unlink(part);
	unlink(lsmod);
	return ret;
}

/* Fetch NAME's release, config and modules (REL, CFG, MODS). */
static int fetch(const char *name, char *rel, size_t rlen, struct strbuf *cfg, struct strbuf *mods)
{
	if (ssh_running_config(name, rel, rlen, cfg, mods))
		return -1;
	if (!release_ok(rel))
		return error("target '%s': its kernel release '%.60s' is not a release name", name,
			     rel);
	return 0;
}

int target_config_make(const char *name, int localyes, const char *out, char *rel, size_t rlen)
{
	struct strbuf cfg = STRBUF_INIT, mods = STRBUF_INIT;
	int nmods = 0, ret = -1;
	if (fetch(name, rel, rlen, &cfg, &mods) ||
	    config_write(name, rel, &cfg, &mods, localyes, out, &nmods))
		goto out;
	printf("target '%s': the running %s's config, %d modules loaded, made a config of Debian's "
	       "6.12 tree%s: %s\n(use it as a variant's base: base = file, base_config = %s)\n", name,
	       rel, nmods, localyes ? ", trimmed to those modules, built in (localyesconfig)" : "",
	       out, out);
	ret = 0;
out:
	sb_release(&cfg);
	sb_release(&mods);
	return ret;
}

void configs_without_base(const char *configs, char *out, size_t len)
{
	char buf[OPT_STR_MAX], *save = NULL;
	size_t n = 0;
	snprintf(buf, sizeof(buf), "%s", configs);
	out[0] = '\0';
	for (char *w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		if (strcmp(w, "base") && n < len)
			n += (size_t)snprintf(out + n, len - n, "%s%s", n ? " " : "", w);
}

int target_variant(const char *name, struct variant *v)
{
	struct strbuf cfg = STRBUF_INIT, mods = STRBUF_INIT, key = STRBUF_INIT;
	struct target t;
	char rel[256], tree[KB_PATH_MAX], ident[600], cc[256], h[65], dir[KB_PATH_MAX];
	char out[KB_PATH_MAX], tname[64];
	int kc, nmods = 0, ret = -1;
	if (target_load(name, &t))
		return -1;
	kc = t.kernel_config;
	snprintf(tname, sizeof(tname), "%s", t.name);
	target_release(&t);
	if (kc != TKC_LOCALYES || v->source != VSRC_BUILD || v->base == VBASE_FILE)
		return 0;
	/* the key: what the machine runs and has loaded, and the tree the
	 * config is made for */
	if (fetch(name, rel, sizeof(rel), &cfg, &mods) ||
	    kernel_source("linux-source-6.12", "trixie", tree, sizeof(tree), ident, sizeof(ident), cc,
			  sizeof(cc)))
		goto out;
	sb_addf(&key, "kbench target localyes 1\ntree %s\nrelease %s\n", ident, rel);
	sb_add(&key, cfg.buf ? cfg.buf : "", cfg.len);
	sb_adds(&key, "\nmodules\n");
	sb_add(&key, mods.buf ? mods.buf : "", mods.len);
	sha256_hex(key.buf, key.len, h);
	snprintf(dir, sizeof(dir), "%s/targets/%s", cache_root(), tname);
	if (mkdir_p(dir, 0755))
		goto out;
	snprintf(out, sizeof(out), "%s/localyes-%.24s.config", dir, h);
	if (path_exists(out))
		info("kbench: target '%s' (kernel_config = localyes): its config for %s made before "
		     "from the same running config and modules: %s", name, v->name, out);
	else if (config_write(name, rel, &cfg, &mods, 1, out, &nmods))
		goto out;
	else
		info("kbench: target '%s' (kernel_config = localyes): its running %s's config and %d "
		     "loaded modules made %s's base: %s", name, rel, nmods, v->name, out);
	if (strlen(out) >= sizeof(v->base_config)) {
		error("target '%s': the config path '%s' is too long", name, out);
		goto out;
	}
	v->base = VBASE_FILE;
	snprintf(v->base_config, sizeof(v->base_config), "%s", out);
	configs_without_base(v->configs, ident, sizeof(ident));
	snprintf(v->configs, sizeof(v->configs), "%s", ident);
	ret = 1;
out:
	sb_release(&cfg);
	sb_release(&mods);
	sb_release(&key);
	return ret;
}
