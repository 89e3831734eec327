/* config.c - load suites (configs/suites/NAME.ini) and variants
 * (kernels/NAME.ini) with inih. Every error names file, line and reason. */
#include "core/config.h"

#include <dirent.h>
#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef KB_SRCDIR
#define KB_SRCDIR "."
#endif

const char *kb_home(void)
{
	const char *e = getenv("KBENCH_HOME");
	return e && *e ? e : KB_SRCDIR;
}

static char *list_ini(const char *dir)
{
	struct strbuf sb = STRBUF_INIT;
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		size_t l = strlen(ents[i]->d_name);
		if (l > 4 && !strcmp(ents[i]->d_name + l - 4, ".ini") && ents[i]->d_name[0] != '.') {
			if (sb.len)
				sb_adds(&sb, " ");
			sb_add(&sb, ents[i]->d_name, l - 4);
		}
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
	return sb.buf ? sb.buf : xstrdup("");
}

char *suite_names(void)
{
	char dir[KB_PATH_MAX];
	snprintf(dir, sizeof(dir), "%s/configs/suites", kb_home());
	return list_ini(dir);
}

char *variant_names(void)
{
	char dir[KB_PATH_MAX];
	snprintf(dir, sizeof(dir), "%s/kernels", kb_home());
	return list_ini(dir);
}

/* NAME is a path if it has a slash or ends in .ini, else a name in DIR. */
static int resolve(const char *kind, const char *subdir, const char *name,
		   char *out, size_t outlen)
{
	size_t l = strlen(name);
	if (!l)
		return error("empty %s name", kind);
	if (strchr(name, '/') || (l > 4 && !strcmp(name + l - 4, ".ini")))
		snprintf(out, outlen, "%s", name);
	else
		snprintf(out, outlen, "%s/%s/%s.ini", kb_home(), subdir, name);
	return 0;
}

static int valid_name(const char *s)
{
	if (!*s || strlen(s) >= KB_NAME_MAX)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' || *s == '.'))
			return 0;
	return 1;
}

/* ---- suites ---- */

struct suite_ctx {
	struct suite *s;
	int vcpus;
	char err[512];
	int seen_suite;
};


static struct suite_entry *entry_for(struct suite_ctx *c, const char *section)
{
	struct suite *s = c->s;
	char base[KB_NAME_MAX];
	const struct workload_ops *ops;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->w[i].label, section))
			return &s->w[i];
	if (!valid_name(section)) {
		snprintf(c->err, sizeof(c->err), "bad section name [%s]", section);
		return NULL;
	}
	snprintf(base, sizeof(base), "%s", section);
	base[strcspn(base, ".")] = '\0';
	ops = workload_find(base);
	if (!ops) {
		struct strbuf known = STRBUF_INIT;
		for (const struct workload_ops *const *w = workload_all(); *w; w++)
			sb_addf(&known, "%s%s", known.len ? ", " : "", (*w)->name);
		snprintf(c->err, sizeof(c->err),
			 "unknown workload [%s] (expected [suite] or one of: %s)", section,
			 known.buf ? known.buf : "");
		sb_release(&known);
		return NULL;
	}
	s->w = xrealloc(s->w, (s->n + 1) * sizeof(*s->w));
	memset(&s->w[s->n], 0, sizeof(s->w[s->n]));
	s->w[s->n].ops = ops;
	snprintf(s->w[s->n].label, sizeof(s->w[s->n].label), "%s", section);
	s->w[s->n].repeat = 1;
	s->w[s->n].params = xcalloc(1, ops->params_size);
	ops->defaults(s->w[s->n].params, c->vcpus);
	return &s->w[s->n++];
}

/* The keys every workload section has: timeout (seconds before the agent
 * kills a run) and repeat (runs back to back in one boot). 1 when NAME
 * was one and is set, 0 with C->err set when its value is bad, -1 when
 * NAME is not a common key. */
static int common_key(struct suite_ctx *c, struct suite_entry *e, const char *name,
		      const char *value)
{
	static const struct opt_def tdef = { "timeout", OPT_INT, 0, 1, 86400, NULL, "" };
	static const struct opt_def rdef = { "repeat", OPT_INT, 0, 1, KB_REPEAT_MAX, NULL, "" };
	int is_repeat = !strcmp(name, "repeat");
	char err[300];
	if (!is_repeat && strcmp(name, "timeout"))
		return -1;
	if (opt_set(is_repeat ? &e->repeat : &e->timeout_s, is_repeat ? &rdef : &tdef, value, err,
		    sizeof(err))) {
		snprintf(c->err, sizeof(c->err), "%s", err);
		return 0;
	}
	if (is_repeat && e->repeat > 1 && e->ops->no_repeat) {
		snprintf(c->err, sizeof(c->err), "[%s]: repeat = %d refused: %s", e->label, e->repeat,
			 e->ops->no_repeat);
		return 0;
	}
	return 1;
}

static int suite_handler(void *user, const char *section, const char *name, const char *value)
{
	struct suite_ctx *c = user;
	struct suite *s = c->s;
	char err[300];

	if (!name) /* new section (INI_CALL_HANDLER_ON_NEW_SECTION builds) */
		return 1;
	if (!strcmp(section, "suite")) {
		static const struct opt_def suite_opts[] = {
			{ "name", OPT_STRING, 0, 0, 0, NULL, "suite name" },
			{ "description", OPT_STRING, 0, 0, 0, NULL, "what the suite is for" },
			{ "iterations", OPT_INT, 0, 1, 1000, NULL, "iterations per variant" },
			{ "warmup", OPT_INT, 0, 0, 10, NULL, "discarded warm-up iterations" },
			OPT_END
		};
		const struct opt_def *d = opt_find(suite_opts, name);
		char buf[OPT_STR_MAX];
		int iv;
		c->seen_suite = 1;
		if (!d) {
			snprintf(c->err, sizeof(c->err),
				 "unknown key '%s' in [suite] (known: name, description, iterations, warmup)", name);
			return 0;
		}
		if (d->type == OPT_INT) {
			struct opt_def tmp = *d;
			tmp.offset = 0;
			if (opt_set(&iv, &tmp, value, err, sizeof(err))) {
				snprintf(c->err, sizeof(c->err), "%s", err);
				return 0;
			}
			if (!strcmp(name, "iterations"))
				s->iterations = iv;
			else
				s->warmup = iv;
			return 1;
		}
		if (opt_set(buf, d, value, err, sizeof(err))) {
			snprintf(c->err, sizeof(c->err), "%s", err);
			return 0;
		}
		if (!strcmp(name, "name")) {
			if (!valid_name(buf)) {
				snprintf(c->err, sizeof(c->err), "bad suite name '%s'", buf);
				return 0;
			}
			snprintf(s->name, sizeof(s->name), "%.*s", KB_NAME_MAX - 1, buf);
		} else {
			snprintf(s->description, sizeof(s->description), "%s", buf);
		}
		return 1;
	}
	{
		struct suite_entry *e = entry_for(c, section);
		const struct opt_def *d;
		int r;
		if (!e)
			return 0;
		if ((r = common_key(c, e, name, value)) >= 0)
			return r;
		d = opt_find(e->ops->opts, name);
		if (!d) {
			struct strbuf known = STRBUF_INIT;
			for (const struct opt_def *o = e->ops->opts; o->name; o++)
				sb_addf(&known, "%s%s", known.len ? ", " : "", o->name);
			snprintf(c->err, sizeof(c->err),
				 "unknown key '%s' in [%s] (known: %s, timeout, repeat)", name, section,
				 known.buf ? known.buf : "");
			sb_release(&known);
			return 0;
		}
		if (opt_set(e->params, d, value, err, sizeof(err))) {
			snprintf(c->err, sizeof(c->err), "%s", err);
			return 0;
		}
	}
	return 1;
}

/*
 * inih reads a line into INI_MAX_LINE bytes and takes the rest of a longer
 * one as the next line: "description = <185 x>iterations = 7" would set
 * iterations, and every later line number would be off. Refuse such lines,
 * and NUL bytes (which hide a line's length), before inih sees the file.
 */
#define KB_INI_LINE_MAX (INI_MAX_LINE - 2) /* characters, without the newline */

static int check_lines(FILE *f, const char *kind, const char *path)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int n = 0, ret = 0;

	while ((len = getline(&line, &cap, f)) > 0) {
		n++;
		if (memchr(line, '\0', (size_t)len)) {
			ret = error("%s '%s' line %d: NUL byte (not a text file)", kind, path, n);
			break;
		}
		if (line[len - 1] == '\n')
			len--;
		if (len > KB_INI_LINE_MAX) {
			ret = error("%s '%s' line %d: longer than %d characters", kind, path, n,
				    KB_INI_LINE_MAX);
			break;
		}
	}
	free(line);
	rewind(f);
	return ret;
}

/* inih reports keys, not section headers: check every [section] here so
 * an unknown or empty one is named at its own line. */
static int check_sections(FILE *f, const char *path)
{
	char line[1024];
	int n = 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end, base[KB_NAME_MAX];
		n++;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '[')
			continue;
		end = strchr(p, ']');
		if (!end)
			return error("suite '%s' line %d: expected ']' to close the section name", path, n);
		*end = '\0';
		p++;
		if (!strcmp(p, "suite"))
			continue;
		if (!valid_name(p))
			return error("suite '%s' line %d: bad section name [%s]", path, n, p);
		snprintf(base, sizeof(base), "%s", p);
		base[strcspn(base, ".")] = '\0';
		if (!workload_find(base)) {
			struct strbuf known = STRBUF_INIT;
			for (const struct workload_ops *const *w = workload_all(); *w; w++)
				sb_addf(&known, "%s%s", known.len ? ", " : "", (*w)->name);
			error("suite '%s' line %d: unknown workload [%s] (expected [suite] or one of: %s)",
			      path, n, p, known.buf ? known.buf : "");
			sb_release(&known);
			return -1;
		}
	}
	rewind(f);
	return 0;
}

/* Parse the open INI file F (PATH, a KIND such as "suite") with HANDLER
 * and CTX, and close it; with SECTIONS, sections are checked first. ERR
 * is where the handler leaves its reason. 0, or -1 after an error naming
 * the file and line. */
static int ini_load(FILE *f, const char *kind, const char *path, int sections,
		    ini_handler handler, void *ctx, const char *err)
{
	int line;
	if (check_lines(f, kind, path) || (sections && check_sections(f, path))) {
		fclose(f);
		return -1;
	}
	line = ini_parse_file(f, handler, ctx);
	fclose(f);
	if (line < 0)
		return error("%s '%s': cannot read file", kind, path);
	if (line > 0)
		return error("%s '%s' line %d: %s", kind, path, line,
			     err[0] ? err : "expected '[section]' or 'key = value'");
	return 0;
}

int suite_load(const char *name, int vcpus, struct suite *s)
{
	struct suite_ctx c;
	FILE *f;

	memset(s, 0, sizeof(*s));
	memset(&c, 0, sizeof(c));
	c.s = s;
	c.vcpus = vcpus;
	s->iterations = 3;
	if (resolve("suite", "configs/suites", name, s->path, sizeof(s->path)))
		return -1;
	f = fopen(s->path, "r");
	if (!f) {
		char *names = suite_names();
		error("suite '%s': cannot open '%s': %s (known suites: %s)", name, s->path,
		      strerror(errno), names);
		free(names);
		return -1;
	}
	if (ini_load(f, "suite", s->path, 1, suite_handler, &c, c.err))
		goto fail;
	if (!c.seen_suite) {
		error("suite '%s': missing [suite] section", s->path);
		goto fail;
	}
	if (!s->name[0]) {
		error("suite '%s': [suite] has no name", s->path);
		goto fail;
	}
	if (!s->n) {
		error("suite '%s': no workload sections", s->path);
		goto fail;
	}
	for (size_t i = 0; i < s->n; i++) {
		char err[300];
		if (s->w[i].ops->check && s->w[i].ops->check(s->w[i].params, err, sizeof(err))) {
			error("suite '%s' [%s]: %s", s->path, s->w[i].label, err);
			goto fail;
		}
	}
	return 0;
fail:
	suite_release(s);
	return -1;
}

void suite_release(struct suite *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->w[i].params);
	free(s->w);
	s->w = NULL;
	s->n = 0;
}

/* ---- variants ---- */

struct variant_ctx {
	struct variant *v;
	char err[512];
	int seen;
};

static int variant_handler(void *user, const char *section, const char *name, const char *value)
{
	struct variant_ctx *c = user;
	struct variant *v = c->v;
	static const char *const sources[] = { "debian-image", "build", "image", NULL };
	static const char *const bases[] = { "defconfig", "tinyconfig", "file", NULL };
	static const struct opt_def vopts[] = {
		{ "name", OPT_STRING, offsetof(struct variant, name), 0, 0, NULL, "variant name" },
		{ "description", OPT_STRING, offsetof(struct variant, description), 0, 0, NULL, "" },
		{ "source", OPT_ENUM, offsetof(struct variant, source), 0, 0, sources, "" },
		{ "package", OPT_STRING, offsetof(struct variant, package), 0, 0, NULL, "" },
		{ "release", OPT_STRING, offsetof(struct variant, release), 0, 0, NULL, "" },
		{ "cmdline", OPT_STRING, offsetof(struct variant, cmdline), 0, 0, NULL, "" },
		{ "tree", OPT_STRING, offsetof(struct variant, tree), 0, 0, NULL, "" },
		{ "base", OPT_ENUM, offsetof(struct variant, base), 0, 0, bases, "" },
		{ "base_config", OPT_STRING, offsetof(struct variant, base_config), 0, 0, NULL, "" },
		{ "configs", OPT_STRING, offsetof(struct variant, configs), 0, 0, NULL, "" },
		{ "patches", OPT_STRING, offsetof(struct variant, patches), 0, 0, NULL, "" },
		{ "test_only", OPT_BOOL, offsetof(struct variant, test_only), 0, 0, NULL, "" },
		{ "image", OPT_STRING, offsetof(struct variant, image), 0, 0, NULL, "" },
		{ "modules", OPT_STRING, offsetof(struct variant, modules), 0, 0, NULL, "" },
		{ "config", OPT_STRING, offsetof(struct variant, kconfig), 0, 0, NULL, "" },
		{ "package_file", OPT_STRING, offsetof(struct variant, package_file), 0, 0, NULL, "" },
		{ "modules_file", OPT_STRING, offsetof(struct variant, modules_file), 0, 0, NULL, "" },
		OPT_END
	};
	const struct opt_def *d;
	char err[300], buf[OPT_STR_MAX];

	if (!name)
		return 1;
	if (strcmp(section, "variant")) {
		snprintf(c->err, sizeof(c->err), "unknown section [%s] (expected [variant])", section);
		return 0;
	}
	c->seen = 1;
	d = opt_find(vopts, name);
	if (!d) {
		snprintf(c->err, sizeof(c->err),
			 "unknown key '%s' (known: name, description, source, package, release, cmdline, "
			 "tree, base, base_config, configs, patches, test_only, image, modules, config, "
			 "package_file, modules_file)",
			 name);
		return 0;
	}
	/* name/release fit KB_NAME_MAX; parse into a scratch buffer first */
	if (d->type == OPT_STRING) {
		struct opt_def tmp = *d;
		tmp.offset = 0;
		if (opt_set(buf, &tmp, value, err, sizeof(err)))
			goto bad;
		if ((!strcmp(name, "name") || !strcmp(name, "release")) && !valid_name(buf)) {
			snprintf(err, sizeof(err), "bad %s '%s' (letters, digits, '-', '_', '.')", name, buf);
			goto bad;
		}
		if ((!strcmp(name, "package") || !strcmp(name, "tree")) && !valid_name(buf)) {
			snprintf(err, sizeof(err), "bad package name '%s'", buf);
			goto bad;
		}
		snprintf((char *)v + d->offset,
			 (!strcmp(name, "name") || !strcmp(name, "release")) ? KB_NAME_MAX : OPT_STR_MAX,
			 "%s", buf);
		return 1;
	}
	if (opt_set(v, d, value, err, sizeof(err)))
		goto bad;
	return 1;
bad:
	snprintf(c->err, sizeof(c->err), "%s", err);
	return 0;
}

/* The paths a variant file names made absolute (relative ones are taken
 * from the file's directory); source = image needs an image. */
static int variant_paths(struct variant *v)
{
	char dir[KB_PATH_MAX];
	const char *slash;
	char *const paths[] = { v->image, v->modules, v->kconfig, v->package_file, v->modules_file,
				v->base_config };
	if (v->source == VSRC_IMAGE && !v->image[0])
		return error("variant '%s': source image needs image = PATH (a bzImage)", v->path);
	if ((v->base == VBASE_FILE) != !!v->base_config[0])
		return error("variant '%s': base = file and base_config = PATH (a .config, e.g. from "
			     "`kbench target-config`) go together", v->path);
	if (v->modules_file[0] && !v->package_file[0])
		return error("variant '%s': modules_file goes with package_file", v->path);
	slash = strrchr(v->path, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - v->path) : 1, slash ? v->path : ".");
	for (int i = 0; i < 6; i++) {
		char abs[KB_PATH_MAX];
		if (!paths[i][0] || paths[i][0] == '/')
			continue;
		if ((size_t)snprintf(abs, sizeof(abs), "%s/%s", dir, paths[i]) >= OPT_STR_MAX)
			return error("variant '%s': path '%s/%s' is too long (at most %d bytes)", v->path,
				     dir, paths[i], OPT_STR_MAX - 1);
		snprintf(paths[i], OPT_STR_MAX, "%s", abs);
	}
	return 0;
}

int variant_load(const char *name, struct variant *v)
{
	struct variant_ctx c;
	FILE *f;
	memset(v, 0, sizeof(*v));
	memset(&c, 0, sizeof(c));
	c.v = v;
	snprintf(v->release, sizeof(v->release), "trixie");
	if (resolve("variant", "kernels", name, v->path, sizeof(v->path)))
		return -1;
	f = fopen(v->path, "r");
	if (!f) {
		char *names = variant_names();
		error("unknown kernel variant '%s' (known variants: %s)", name, names);
		free(names);
		return -1;
	}
	if (ini_load(f, "variant", v->path, 0, variant_handler, &c, c.err))
		return -1;
	if (!c.seen || !v->name[0])
		return error("variant '%s': [variant] needs a name", v->path);
	if (v->source == VSRC_DEBIAN_IMAGE && !v->package[0] && !v->package_file[0])
		return error("variant '%s': source debian-image needs a package (or a package_file)",
			     v->path);
	if (variant_paths(v))
		return -1;
	if (v->source == VSRC_BUILD) {
		if (!v->tree[0])
			snprintf(v->tree, sizeof(v->tree), "linux-source-6.12");
		/* every fragment and patch must exist now, not after a download */
		for (int kind = 0; kind < 2; kind++) {
			char list[OPT_STR_MAX], *save = NULL;
			snprintf(list, sizeof(list), "%s", kind ? v->patches : v->configs);
			for (char *t = strtok_r(list, " \t,", &save); t; t = strtok_r(NULL, " \t,", &save)) {
				char path[KB_PATH_MAX];
				if (strchr(t, '/'))
					return error("variant '%s': '%s' must be a file name in %s", v->path, t,
						     kind ? "kernels/patches" : "configs/kernel");
				if (kind)
					snprintf(path, sizeof(path), "%s/kernels/patches/%s", kb_home(), t);
				else
					snprintf(path, sizeof(path), "%s/configs/kernel/%s.config", kb_home(), t);
				if (!path_exists(path))
					return error("variant '%s': %s '%s' not found (expected '%s')", v->path,
						     kind ? "patch" : "config fragment", t, path);
			}
		}
	}
	return 0;
}

int config_ini_load(FILE *f, const char *kind, const char *path,
		    int (*handler)(void *, const char *, const char *, const char *), void *ctx,
		    const char *err)
{
	return ini_load(f, kind, path, 0, handler, ctx, err);
}

int config_resolve(const char *kind, const char *subdir, const char *name, char *out,
		   size_t outlen)
{
	return resolve(kind, subdir, name, out, outlen);
}

int config_ini_parse(const char *buf, size_t len, const char *kind, const char *path,
		     int (*handler)(void *, const char *, const char *, const char *), void *ctx,
		     const char *err)
{
	FILE *f;
	if (!len)
		buf = "\n", len = 1;
	if (!(f = fmemopen((void *)buf, len, "r")))
		return error("%s '%s': cannot read it", kind, path);
	return config_ini_load(f, kind, path, handler, ctx, err);
}

int config_file_load(const char *kind, const char *subdir, const char *name,
		     int (*parse)(const char *, size_t, const char *, void *), void *obj)
{
	struct strbuf sb = STRBUF_INIT;
	char path[KB_PATH_MAX];
	int ret = -1;
	if (resolve(kind, subdir, name, path, sizeof(path)))
		return -1;
	if (read_file(path, &sb, 1 << 20) < 0)
		error("%s '%s': cannot read '%s' (a name in %s/ or a path)", kind, name, path,
		      subdir);
	else
		ret = parse(sb.buf ? sb.buf : "", sb.len, path, obj);
	sb_release(&sb);
	return ret;
}

void config_file_names(const char *path, char *name, char *dir, size_t dirlen)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	size_t bl = strcspn(base, ".");
	snprintf(dir, dirlen, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	snprintf(name, 64, "%.*s", (int)(bl < 63 ? bl : 63), base);
}

void config_path(char *out, size_t len, const char *p, const char *dir)
{
	const char *home = getenv("HOME");
	if (!*p)
		out[0] = '\0';
	else if (p[0] == '~' && p[1] == '/' && home)
		snprintf(out, len, "%s/%s", home, p + 2);
	else if (p[0] == '/')
		snprintf(out, len, "%s", p);
	else
		snprintf(out, len, "%s/%s", dir, p);
}
