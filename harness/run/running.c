/* running.c - the running kernel as a run's variant (running.h). */
#include "run/running.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

/* Is PARAM one of the space-separated words of LINE? */
static int has_word(const char *line, const char *param, size_t len)
{
	for (const char *p = line; *p;) {
		size_t n;
		p += strspn(p, " \t\n");
		n = strcspn(p, " \t\n");
		if (n == len && !strncmp(p, param, len))
			return 1;
		p += n;
	}
	return 0;
}

int running_matches(const char *release, const char *running_cmdline, const char *want_release,
		    const char *want_params, char *why, size_t whylen)
{
	if (strcmp(release, want_release)) {
		snprintf(why, whylen, "the running kernel is %s, the variant's is %s", release,
			 want_release);
		return -1;
	}
	for (const char *p = want_params; *p;) {
		size_t n;
		p += strspn(p, " \t\n");
		n = strcspn(p, " \t\n");
		if (n && !has_word(running_cmdline, p, n)) {
			snprintf(why, whylen, "the running kernel's command line lacks '%.*s'", (int)n, p);
			return -1;
		}
		p += n;
	}
	return 0;
}

/* The running kernel as variant "running". */
static void running_self(const struct utsname *u, struct variant *v, struct kernel_image *k)
{
	snprintf(v->name, sizeof(v->name), "running");
	snprintf(v->description, sizeof(v->description), "the running kernel (%s)", u->release);
	v->source = VSRC_RUNNING;
	snprintf(v->package, sizeof(v->package), "running");
	snprintf(k->release, sizeof(k->release), "%s", u->release);
	snprintf(k->package, sizeof(k->package), "running");
	snprintf(k->version, sizeof(k->version), "%s", u->release);
	snprintf(k->config, sizeof(k->config), "/boot/config-%s", u->release);
	if (!path_exists(k->config) || sha256_file_hex(k->config, k->config_hash))
		k->config[0] = k->config_hash[0] = '\0';
}

int running_variant(const char *name, const char *cmdline, struct variant *v,
		    struct kernel_image *k)
{
	struct strbuf pc = STRBUF_INIT;
	struct utsname u;
	char why[512], want[OPT_STR_MAX * 2 + 2];
	int r, ret = 0;
	memset(v, 0, sizeof(*v));
	memset(k, 0, sizeof(*k));
	uname(&u);
	if (!strcmp(name, "running")) {
		running_self(&u, v, k);
		return 0;
	}
	if (variant_load(name, v))
		return -1;
	if ((r = kernel_cached(v, k)) < 0)
		return -1;
	if (r > 0)
		return error("variant '%s' is not in the kernel cache, so whether it is the running "
			     "kernel (%s) cannot be checked: with --backend local nothing is fetched "
			     "or built; boot it first and use --kernel running, or run it on a remote "
			     "target (--backend qemu)", v->name, u.release);
	snprintf(want, sizeof(want), "%s %s", v->cmdline, cmdline ? cmdline : "");
	if (read_file("/proc/cmdline", &pc, 1 << 16) == 0 &&
	    running_matches(u.release, pc.buf ? pc.buf : "", k->release, want, why, sizeof(why)))
		ret = error("variant '%s' is not the running kernel: %s. Boot it first (with its "
			    "command line), or run it on a remote target (--backend qemu)", v->name, why);
	sb_release(&pc);
	return ret;
}
