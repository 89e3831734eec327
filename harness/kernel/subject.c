/* subject.c - what a source-built variant is made of (subject.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "core/jsonutil.h"
#include "core/util.h"
#include "kernel/source.h"
#include "kernel/subject.h"

#define PATCH_MAX (8u << 20)

void subject_line(const char *text, char *out, size_t len)
{
	const char *p = text, *s = NULL, *tag;
	size_t n, o = 0;
	out[0] = '\0';
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (!strncmp(l, "Subject: ", 9)) {
			s = l + 9;
			break;
		}
		if (!strncmp(l, "diff ", 5) || !strncmp(l, "--- ", 4))
			break;
	}
	if (!s) {
		while (*p == '\n' || *p == ' ' || *p == '\t')
			p++;
		s = p;
	}
	n = strcspn(s, "\n");
	if (*s == '[' && (tag = memchr(s, ']', n))) {
		n -= (size_t)(tag + 1 - s);
		s = tag + 1;
	}
	/* the header and its folded continuation lines, one space apart */
	for (;;) {
		while (n && *s == ' ') {
			s++;
			n--;
		}
		if (o + 1 < len)
			o += (size_t)snprintf(out + o, len - o, "%s%.*s", o ? " " : "", (int)n, s);
		if (o >= len)
			o = len - 1;
		if (s[n] != '\n' || (s[n + 1] != ' ' && s[n + 1] != '\t'))
			break;
		s += n + 1;
		n = strcspn(s, "\n");
	}
}

/* "@@ -a[,b] +c[,d] @@": the old and new line counts (1 when omitted) */
static int hunk_counts(const char *l, long *old, long *new)
{
	char *e;
	const char *p = l + 3;
	if (*p != '-')
		return -1;
	strtol(p + 1, &e, 10);
	*old = *e == ',' ? strtol(e + 1, &e, 10) : 1;
	if (*e != ' ' || e[1] != '+')
		return -1;
	strtol(e + 2, &e, 10);
	*new = *e == ',' ? strtol(e + 1, &e, 10) : 1;
	return *old < 0 || *new < 0 ? -1 : 0;
}

static json_object *stat_file(json_object *files, const char *l)
{
	json_object *f = json_object_new_object();
	const char *p = l + 4;
	size_t n = strcspn(p, "\t\n");
	if (!strncmp(p, "b/", 2) || !strncmp(p, "a/", 2)) {
		p += 2;
		n -= 2;
	}
	json_object_object_add(f, "path", json_object_new_string_len(p, (int)n));
	json_object_object_add(f, "added", json_object_new_int(0));
	json_object_object_add(f, "removed", json_object_new_int(0));
	json_object_array_add(files, f);
	return f;
}

static void bump(json_object *f, const char *k)
{
	if (f)
		json_object_object_add(f, k, json_object_new_int(json_object_get_int(jget(f, k)) + 1));
}

json_object *subject_diffstat(const char *text)
{
	json_object *files = json_object_new_array(), *f = NULL;
	const char *minus = NULL;
	long old = 0, new = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if ((old > 0 || new > 0) && (!strncmp(l, "@@ -", 4) || !strncmp(l, "diff ", 5)))
			old = new = 0; /* a hunk shorter than its header said */
		if (old > 0 || new > 0) {
			if (*l == '-' && old > 0) {
				old--;
				bump(f, "removed");
			} else if (*l == '+' && new > 0) {
				new--;
				bump(f, "added");
			} else if (*l == ' ' || *l == '\n') {
				old -= old > 0;
				new -= new > 0;
			}
			continue;
		}
		if (!strncmp(l, "--- ", 4))
			minus = l;
		else if (!strncmp(l, "+++ ", 4))
			f = stat_file(files, strncmp(l + 4, "/dev/null", 9) || !minus ? l : minus);
		else if (!strncmp(l, "@@ -", 4) && hunk_counts(l, &old, &new))
			old = new = 0;
	}
	return files;
}

static json_object *patch_json(const char *name)
{
	char path[KB_PATH_MAX], h[65], subj[512];
	struct strbuf sb = STRBUF_INIT;
	json_object *o;
	snprintf(path, sizeof(path), "%s/kernels/patches/%s", kb_home(), name);
	if (read_file(path, &sb, PATCH_MAX) || !sb.buf) {
		sb_release(&sb);
		error("cannot read the patch '%s'", path);
		return NULL;
	}
	sha256_hex(sb.buf, sb.len, h);
	subject_line(sb.buf, subj, sizeof(subj));
	o = json_object_new_object();
	json_object_object_add(o, "file", json_object_new_string(name));
	json_object_object_add(o, "subject", json_object_new_string(subj));
	json_object_object_add(o, "sha256", json_object_new_string(h));
	json_object_object_add(o, "diffstat", subject_diffstat(sb.buf));
	json_object_object_add(o, "text", json_object_new_string_len(sb.buf, (int)sb.len));
	sb_release(&sb);
	return o;
}

/* configs/kernel/NAME.config: its CONFIG_ lines (set, or "is not set") */
static json_object *fragment_json(const char *name)
{
	char path[KB_PATH_MAX];
	struct strbuf sb = STRBUF_INIT;
	json_object *o, *opts;
	snprintf(path, sizeof(path), "%s/configs/kernel/%s.config", kb_home(), name);
	if (read_file(path, &sb, 1u << 20) || !sb.buf) {
		sb_release(&sb);
		error("cannot read the config fragment '%s'", path);
		return NULL;
	}
	o = json_object_new_object();
	opts = json_object_new_array();
	for (const char *l = sb.buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		int n = (int)strcspn(l, "\n");
		if (!strncmp(l, "CONFIG_", 7) ||
		    (!strncmp(l, "# CONFIG_", 9) && n > 11 && !strncmp(l + n - 11, " is not set", 11)))
			json_object_array_add(opts, json_object_new_string_len(l, n));
	}
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "options", opts);
	sb_release(&sb);
	return o;
}

/* the command line's rtmutex.* settings, in order (a later one wins) */
static json_object *lock_knobs(const char *cmdline)
{
	json_object *o = json_object_new_object();
	const char *p = cmdline ? cmdline : "";
	while (*p) {
		size_t n;
		p += strspn(p, " \t");
		n = strcspn(p, " \t");
		if (n > 8 && !strncmp(p, "rtmutex.", 8) && memchr(p, '=', n)) {
			const char *eq = memchr(p, '=', n);
			char key[128];
			snprintf(key, sizeof(key), "%.*s", (int)(eq - p), p);
			json_object_object_add(o, key, json_object_new_string_len(eq + 1,
										  (int)(p + n - eq - 1)));
		}
		p += n;
	}
	return o;
}

/* each name of the space- or comma-separated LIST through ONE into an array */
static json_object *each(const char *list, json_object *(*one)(const char *))
{
	char buf[OPT_STR_MAX], *save = NULL;
	json_object *a = json_object_new_array();
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *t = strtok_r(buf, " \t,", &save); t; t = strtok_r(NULL, " \t,", &save)) {
		json_object *x = one(t);
		if (!x) {
			json_object_put(a);
			return NULL;
		}
		json_object_array_add(a, x);
	}
	return a;
}

json_object *subject_json(const struct variant *v, const char *cmdline)
{
	json_object *o, *patches, *frags;
	if (v->source != VSRC_BUILD)
		return NULL;
	if (!(patches = each(v->patches, patch_json)))
		return NULL;
	if (!(frags = each(v->configs, fragment_json))) {
		json_object_put(patches);
		return NULL;
	}
	o = json_object_new_object();
	json_object_object_add(o, "tree", json_object_new_string(v->tree));
	json_object_object_add(o, "base", json_object_new_string(variant_base_name(v)));
	if (v->base == VBASE_FILE)
		json_object_object_add(o, "base_config", json_object_new_string(v->base_config));
	json_object_object_add(o, "config_fragments", frags);
	json_object_object_add(o, "patches", patches);
	json_object_object_add(o, "lock_knobs", lock_knobs(cmdline));
	return o;
}
