/* target.c - target files for the ssh backend (target.h). */
#include "core/target.h"
#include "core/config.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What inih hands the handler, before the checks that need every key. */
struct target_raw {
	char host[OPT_STR_MAX], user[OPT_STR_MAX], identity[OPT_STR_MAX];
	char known_hosts[OPT_STR_MAX], power_cycle[OPT_STR_MAX], console[OPT_STR_MAX];
	char scratch[OPT_STR_MAX];
	int port, host_key, boot, boot_timeout, ssh_timeout, initrd_cache, scratch_mkfs;
	int kernel_config;
	int step_timeout[TS_N];
};

const struct target_step_def target_steps[TS_N] = {
	[TS_COPY] = { "copy_timeout", 600,
		      "each file copied to the machine: the agent, the kernel, its config, its "
		      "modules' tar, the GRUB entry" },
	[TS_KBUILD_TREE] = { "kbuild_tree_timeout", 3600,
			     "kbuild's kernel tree (about 1.5 GB) copied and unpacked there, once" },
	[TS_INSTALL] = { "install_timeout", 900,
			 "the modules installed (tar, depmod) and the initrd made (mkinitramfs)" },
	[TS_KEXEC] = { "kexec_timeout", 120, "the variant loaded with kexec -l" },
	[TS_GRUB] = { "grub_timeout", 300,
		      "boot = reboot-once: the kernel and initrd copied to /boot, custom.cfg "
		      "written, grub-reboot" },
	[TS_MKFS] = { "mkfs_timeout", 600,
		      "scratch_mkfs: the scratch device formatted and mounted in the variant" },
	[TS_CLEANUP] = { "cleanup_timeout", 120,
			 "what kbench put there removed, after each iteration" },
};

#define STEP_TIMEOUT_MAX 86400

static const char *const host_keys[] = { "strict", "accept-new", NULL };
static const char *const boots[] = { "kexec", "reboot-once", NULL };
static const char *const mkfses[] = { "no", "ext4", "xfs", NULL };
static const char *const kconfigs[] = { "variant", "localyes", NULL };

#define TO(f) offsetof(struct target_raw, f)
static const struct opt_def target_opts[] = {
	{ "host", OPT_STRING, TO(host), 0, 0, NULL, "ssh destination: a name or address" },
	{ "port", OPT_INT, TO(port), 1, 65535, NULL, "ssh port" },
	{ "user", OPT_STRING, TO(user), 0, 0, NULL, "ssh user (root, or one with sudo-less root)" },
	{ "identity", OPT_STRING, TO(identity), 0, 0, NULL, "ssh private key file" },
	{ "known_hosts", OPT_STRING, TO(known_hosts), 0, 0, NULL, "the machine's host key file" },
	{ "host_key", OPT_ENUM, TO(host_key), 0, 0, host_keys, "host-key policy" },
	{ "boot", OPT_ENUM, TO(boot), 0, 0, boots, "how a variant is booted" },
	{ "power_cycle", OPT_STRING, TO(power_cycle), 0, 0, NULL, "argv that power-cycles it" },
	{ "console", OPT_STRING, TO(console), 0, 0, NULL, "argv whose stdout is its serial console" },
	{ "scratch", OPT_STRING, TO(scratch), 0, 0, NULL, "dbench's directory or block device" },
	{ "scratch_mkfs", OPT_ENUM, TO(scratch_mkfs), 0, 0, mkfses,
	  "the filesystem kbench makes on a scratch block device each iteration" },
	{ "boot_timeout", OPT_INT, TO(boot_timeout), 5, 3600, NULL, "seconds to come back" },
	{ "ssh_timeout", OPT_INT, TO(ssh_timeout), 1, 600, NULL, "seconds per ssh connection" },
	{ "initrd_cache", OPT_INT, TO(initrd_cache), 0, 64, NULL,
	  "initrds kept on the machine between runs (0: none)" },
	{ "kernel_config", OPT_ENUM, TO(kernel_config), 0, 0, kconfigs,
	  "a source-built variant's base: its own (variant), or the machine's running config "
	  "trimmed to its loaded modules, built in (localyes)" },
	OPT_END
};
#undef TO

struct target_ctx {
	struct target_raw raw;
	char err[512];
	int seen;
};

/* The step whose deadline key is NAME, or -1. */
static int step_key(const char *name)
{
	for (int i = 0; i < TS_N; i++)
		if (!strcmp(name, target_steps[i].key))
			return i;
	return -1;
}

/* NAME refused as unknown, with every key a target file may have. */
static void unknown_key(struct target_ctx *c, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	for (const struct opt_def *d = target_opts; d->name; d++)
		sb_addf(&sb, "%s%s", d == target_opts ? "" : ", ", d->name);
	for (int i = 0; i < TS_N; i++)
		sb_addf(&sb, ", %s", target_steps[i].key);
	snprintf(c->err, sizeof(c->err), "unknown key '%.100s' (known: %s)", name, sb.buf);
	sb_release(&sb);
}

/* A host (no leading '-': ssh would take it for an option) or a user. */
static int valid_word(const char *s, const char *extra)
{
	if (!*s || *s == '-')
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return 0;
	return 1;
}

static int target_handler(void *user, const char *section, const char *name, const char *value)
{
	struct target_ctx *c = user;
	const struct opt_def *d;
	/* a step's deadline: whole seconds */
	struct opt_def step = { name, OPT_INT, 0, 1, STEP_TIMEOUT_MAX, NULL, NULL };
	char err[300];
	int i;
	if (!name)
		return 1;
	if (strcmp(section, "target")) {
		snprintf(c->err, sizeof(c->err), "unknown section [%s] (expected [target])", section);
		return 0;
	}
	c->seen = 1;
	if ((i = step_key(name)) >= 0) {
		step.offset = offsetof(struct target_raw, step_timeout) + (size_t)i * sizeof(int);
		d = &step;
	} else if (!(d = opt_find(target_opts, name))) {
		unknown_key(c, name);
		return 0;
	}
	if (opt_set(&c->raw, d, value, err, sizeof(err))) {
		snprintf(c->err, sizeof(c->err), "%s: %s", name, err);
		return 0;
	}
	if ((!strcmp(name, "host") && !valid_word(c->raw.host, ".-:_")) ||
	    (!strcmp(name, "user") && !valid_word(c->raw.user, ".-_"))) {
		snprintf(c->err, sizeof(c->err), "%s: bad %s '%s' (letters, digits, '.', '-', '_'%s; "
			 "not starting with '-')", name, name, value, *name == 'h' ? ", ':'" : "");
		return 0;
	}
	if (!strcmp(name, "scratch") && (c->raw.scratch[0] != '/' ||
					 strpbrk(c->raw.scratch, " \t\n\\'\"$`"))) {
		snprintf(c->err, sizeof(c->err), "scratch: expected an absolute path without spaces "
			 "or quotes, got '%s'", value);
		return 0;
	}
	return 1;
}

static void split_argv(struct strvec *v, const char *s)
{
	char buf[OPT_STR_MAX], *save = NULL;
	snprintf(buf, sizeof(buf), "%s", s);
	for (char *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
		strvec_push(v, t);
}

/* The checks that need every key, and the raw values into T. */
static int target_finish(struct target_ctx *c, const char *path, struct target *t)
{
	const struct target_raw *r = &c->raw;
	char dir[KB_PATH_MAX];
	if (!c->seen)
		return error("target '%s': expected a [target] section", path);
	if (!r->host[0])
		return error("target '%s': [target] needs host (the machine's name or address)", path);
	if (!r->known_hosts[0])
		return error("target '%s': [target] needs known_hosts, the file with the machine's "
			     "host key (host keys are checked: host_key = strict or accept-new)", path);
	config_file_names(path, t->name, dir, sizeof(dir));
	snprintf(t->host, sizeof(t->host), "%s", r->host);
	snprintf(t->user, sizeof(t->user), "%s", r->user[0] ? r->user : "root");
	config_path(t->identity, sizeof(t->identity), r->identity, dir);
	config_path(t->known_hosts, sizeof(t->known_hosts), r->known_hosts, dir);
	snprintf(t->scratch, sizeof(t->scratch), "%s", r->scratch);
	t->port = r->port;
	t->host_key = r->host_key;
	t->boot = r->boot;
	t->boot_timeout_s = r->boot_timeout;
	t->ssh_timeout_s = r->ssh_timeout;
	t->initrd_cache = r->initrd_cache;
	t->scratch_mkfs = r->scratch_mkfs;
	t->kernel_config = r->kernel_config;
	for (int i = 0; i < TS_N; i++)
		t->step_timeout_s[i] = r->step_timeout[i];
	split_argv(&t->power_cycle, r->power_cycle);
	split_argv(&t->console, r->console);
	return 0;
}

int target_parse(const char *buf, size_t len, const char *path, struct target *t)
{
	struct target_ctx c;
	memset(t, 0, sizeof(*t));
	memset(&c, 0, sizeof(c));
	c.raw.port = 22;
	c.raw.boot_timeout = 300;
	c.raw.ssh_timeout = 30;
	c.raw.initrd_cache = 2;
	for (int i = 0; i < TS_N; i++)
		c.raw.step_timeout[i] = target_steps[i].def_s;
	snprintf(t->path, sizeof(t->path), "%s", path);
	if (config_ini_parse(buf, len, "target", path, target_handler, &c, c.err))
		return -1;
	return target_finish(&c, path, t);
}

static int parse_any(const char *buf, size_t len, const char *path, void *t)
{
	return target_parse(buf, len, path, t);
}

int target_load(const char *name, struct target *t)
{
	memset(t, 0, sizeof(*t));
	return config_file_load("target", "configs/targets", name, parse_any, t);
}

void target_release(struct target *t)
{
	strvec_clear(&t->power_cycle);
	strvec_clear(&t->console);
}

/* The end of S (a step's output: the machine's words) into SB: its last
 * 300 bytes, from the start of a line when one begins there, blanks
 * around it cut, control bytes but newlines and tabs as '?'. */
static void add_tail(struct strbuf *sb, const char *s)
{
	const char *end;
	while (*s && isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	if (end - s > 300) {
		const char *nl = memchr(end - 300, '\n', 300);
		s = nl && nl + 1 < end ? nl + 1 : end - 300;
		sb_adds(sb, "...");
	}
	for (; s < end; s++) {
		char ch = isprint((unsigned char)*s) || *s == '\n' || *s == '\t' ? *s : '?';
		sb_add(sb, &ch, 1);
	}
}

void target_step_cause(struct strbuf *out, const char *path, const struct target_step_end *e)
{
	const char *o = e->output ? e->output : "";
	while (*o && isspace((unsigned char)*o))
		o++;
	if (e->timed_out)
		sb_addf(out, "the step '%s' did not finish within %.0f s; give it more time with "
			"%s = N (seconds) in '%s'", e->step, e->limit_s, e->key, path);
	else if (e->interrupted)
		sb_addf(out, "the step '%s' was interrupted", e->step);
	else if (*o)
		add_tail(out, o);
	else if (e->status == 255)
		sb_addf(out, "the step '%s' failed: ssh exited with status 255 and said nothing (the "
			"connection failed or was cut)", e->step);
	else if (e->status < 0)
		sb_addf(out, "the step '%s' failed: ssh could not be started", e->step);
	else
		sb_addf(out, "the step '%s' failed with exit status %d and no output", e->step,
			e->status);
}

const char *target_step_part(struct strbuf *out, const struct target_part *parts,
			     const char *dflt)
{
	const char *name = dflt;
	size_t w = 0, r = 0, ml = strlen(TARGET_PART_MARK);
	if (!out->buf)
		return dflt;
	while (r < out->len) {
		char *line = out->buf + r, *nl = memchr(line, '\n', out->len - r);
		size_t body = nl ? (size_t)(nl - line) : out->len - r, n = body + (nl != NULL);
		if (body >= ml && !memcmp(line, TARGET_PART_MARK, ml)) {
			for (const struct target_part *p = parts; p && p->id; p++)
				if (body - ml == strlen(p->id) && !memcmp(line + ml, p->id, body - ml))
					name = p->name;
		} else {
			memmove(out->buf + w, line, n);
			w += n;
		}
		r += n;
	}
	while (w && isspace((unsigned char)out->buf[w - 1]))
		w--;
	out->len = w;
	out->buf[w] = '\0';
	return name;
}

void sh_quote(struct strbuf *out, const char *s)
{
	sb_add(out, "'", 1);
	for (; *s; s++)
		if (*s == '\'')
			sb_add(out, "'\\''", 4);
		else
			sb_add(out, s, 1);
	sb_add(out, "'", 1);
}
