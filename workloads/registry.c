/* registry.c - the list of workloads, their self-check, guest commands and
 * the line/number helpers every output parser shares. */
#include "workloads/workloads.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every workload kbench knows, in `kbench workloads` order (list.h). */
static const struct workload_ops *const registry[] = {
#define WORKLOAD(name) &name##_ops,
#include "workloads/list.h"
	NULL,
};

/* Look a workload up by name; NULL when there is none. */
const struct workload_ops *workload_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; registry[i]; i++)
		if (!strcmp(registry[i]->name, name))
			return registry[i];
	return NULL;
}

/* The NULL-terminated registry. */
const struct workload_ops *const *workload_all(void)
{
	return registry;
}

/* A workload's headline metric, or NULL. */
const char *workload_headline(const char *name)
{
	const struct workload_ops *w = workload_find(name);
	return w ? w->headline : NULL;
}

/* Collect the tools of WS, skipping names already collected. */
const struct host_tool **workload_tools(const struct workload_ops *const *ws)
{
	const struct host_tool **v = NULL;
	size_t n = 0;

	for (; *ws; ws++)
		for (const struct host_tool *t = (*ws)->tools; t->name; t++) {
			size_t i = 0;
			while (i < n && strcmp(v[i]->name, t->name))
				i++;
			if (i < n)
				continue;
			v = xrealloc(v, (n + 1) * sizeof(*v));
			v[n++] = t;
		}
	v = xrealloc(v, (n + 1) * sizeof(*v));
	v[n] = NULL;
	return v;
}

/* The path of T in PATH (a program) or T's own (a data file); NULL when
 * it is missing. The caller frees it. */
char *host_tool_find(const struct host_tool *t)
{
	if (!t->what)
		return which(t->name);
	return path_exists(t->name) ? xstrdup(t->name) : NULL;
}

/* Tools named, each with its package; data files absolute with a name;
 * a headline NULL or a name. */
static int check_tools(const struct workload_ops *w)
{
	if (w->headline && !*w->headline)
		return error("workload '%s' has an empty headline (NULL: its first metric)",
			     w->name);
	for (const struct host_tool *t = w->tools; t->name; t++) {
		if (!t->package || !*t->package)
			return error("workload '%s' tool '%s' has no package", w->name, t->name);
		if (!*t->name || (t->name[0] == '/') != (t->what != NULL))
			return error("workload '%s' tool '%s': a data file is an absolute path "
				     "with a 'what', a program neither", w->name, t->name);
	}
	return 0;
}

/* Bytes an option of TYPE occupies in a params struct. */
static size_t opt_size(enum opt_type type)
{
	switch (type) {
	case OPT_INT:
	case OPT_BOOL:
	case OPT_ENUM:
		return sizeof(int);
	case OPT_DOUBLE:
		return sizeof(double);
	case OPT_STRING:
		return OPT_STR_MAX;
	}
	return 0;
}

/* Is the default value of DEF in PARAMS inside its own range? */
static int opt_default_ok(const void *params, const struct opt_def *def)
{
	const char *p = (const char *)params + def->offset;
	int n = 0;

	switch (def->type) {
	case OPT_INT:
		return *(const int *)p >= def->min && *(const int *)p <= def->max;
	case OPT_DOUBLE:
		return isfinite(*(const double *)p) && *(const double *)p >= def->min &&
		       *(const double *)p <= def->max;
	case OPT_BOOL:
		return *(const int *)p == 0 || *(const int *)p == 1;
	case OPT_ENUM:
		while (def->choices[n])
			n++;
		return *(const int *)p >= 0 && *(const int *)p < n;
	case OPT_STRING:
		return memchr(p, '\0', OPT_STR_MAX) != NULL;
	}
	return 0;
}

/* Check one option table against the size of its params struct. */
static int check_opts(const struct workload_ops *w)
{
	for (const struct opt_def *d = w->opts; d->name; d++) {
		size_t sz = opt_size(d->type);
		if (!sz)
			return error("workload '%s' option '%s' has a bad type", w->name, d->name);
		if (d->offset > w->params_size || sz > w->params_size - d->offset)
			return error("workload '%s' option '%s' lies outside its params",
				     w->name, d->name);
		if (d->type == OPT_ENUM && (!d->choices || !d->choices[0]))
			return error("workload '%s' option '%s' has no choices", w->name, d->name);
		if ((d->type == OPT_INT || d->type == OPT_DOUBLE) && d->min > d->max)
			return error("workload '%s' option '%s' has an empty range", w->name, d->name);
		if (!d->help)
			return error("workload '%s' option '%s' has no help", w->name, d->name);
		for (const struct opt_def *e = w->opts; e < d; e++)
			if (!strcmp(e->name, d->name))
				return error("workload '%s' has option '%s' twice", w->name, d->name);
	}
	return 0;
}

/* Defaults (for one vCPU) must be in range and pass the workload's check. */
static int check_defaults(const struct workload_ops *w)
{
	int ret = -1;
	char err[256];
	void *params = xcalloc(1, w->params_size);

	w->defaults(params, 1);
	for (const struct opt_def *d = w->opts; d->name; d++)
		if (!opt_default_ok(params, d)) {
			error("workload '%s' default of '%s' is out of range", w->name, d->name);
			goto out;
		}
	if (w->check && w->check(params, err, sizeof(err))) {
		error("workload '%s' defaults fail its check: %s", w->name, err);
		goto out;
	}
	ret = 0;
out:
	free(params);
	return ret;
}

/* Verify every ops table: callbacks present, names unique, options sound. */
int workload_registry_check(void)
{
	for (size_t i = 0; registry[i]; i++) {
		const struct workload_ops *w = registry[i];
		const char *missing = NULL;

		if (!w->name || !*w->name)
			return error("workload %zu has no name", i);
		if (!w->description)
			missing = "description";
		else if (!w->opts)
			missing = "opts";
		else if (!w->tools)
			missing = "tools";
		else if (!w->params_size)
			missing = "params_size";
		else if (!w->defaults)
			missing = "defaults";
		else if (!w->prepare)
			missing = "prepare";
		else if (!w->command)
			missing = "command";
		else if (!w->parse)
			missing = "parse";
		if (missing)
			return error("workload '%s' has no %s", w->name, missing);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(registry[j]->name, w->name))
				return error("workload '%s' is registered twice", w->name);
		if (check_opts(w) || check_tools(w) || check_defaults(w))
			return -1;
	}
	return 0;
}

/* An empty command: no argv, no background load, cwd "/". */
void guest_cmd_init(struct guest_cmd *c)
{
	memset(c, 0, sizeof(*c));
	c->argv = (struct strvec)STRVEC_INIT;
	c->bg_argv = (struct strvec)STRVEC_INIT;
	c->env = (struct strvec)STRVEC_INIT;
	c->pre_argv = (struct strvec)STRVEC_INIT;
	snprintf(c->scratch, sizeof(c->scratch), "%s", KB_SCRATCH_MOUNT);
}

/* Free the vectors of C and make it empty again. */
void guest_cmd_release(struct guest_cmd *c)
{
	strvec_clear(&c->argv);
	strvec_clear(&c->bg_argv);
	strvec_clear(&c->env);
	strvec_clear(&c->pre_argv);
	guest_cmd_init(c);
}

/* Start reading BUF (LEN bytes) from its first line. */
void line_iter_init(struct line_iter *it, const char *buf, size_t len)
{
	it->too_big = len > WL_OUTPUT_MAX;
	it->p = buf;
	it->end = buf && !it->too_big ? buf + len : buf;
	it->no = 0;
}

/* Hand out the next complete, printable line. */
int line_next(struct line_iter *it, struct line *ln, struct parse_error *err)
{
	const char *nl;
	size_t len;

	if (it->too_big)
		return parse_fail(err, 0, "output is larger than %u bytes", WL_OUTPUT_MAX);
	if (!it->p || it->p >= it->end)
		return 0;
	if (it->no == INT_MAX)
		return parse_fail(err, 0, "output has too many lines");
	it->no++;
	nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
	if (!nl)
		return parse_fail(err, it->no, "output ends mid-line (truncated)");
	len = (size_t)(nl - it->p);
	if (len && it->p[len - 1] == '\r')
		len--;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)it->p[i];
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return parse_fail(err, it->no, "control byte 0x%02x in output (binary junk?)", c);
	}
	ln->s = it->p;
	ln->len = len;
	ln->no = it->no;
	it->p = nl + 1;
	return 1;
}

/* The line number missing content would have had. */
int line_iter_next_no(const struct line_iter *it)
{
	return it->no < INT_MAX ? it->no + 1 : INT_MAX;
}

/* Only spaces and tabs? */
int line_is_blank(const struct line *ln)
{
	for (size_t i = 0; i < ln->len; i++)
		if (ln->s[i] != ' ' && ln->s[i] != '\t')
			return 0;
	return 1;
}

/* Does the line begin with PREFIX? */
int line_starts(const struct line *ln, const char *prefix)
{
	size_t n = strlen(prefix);
	return ln->len >= n && !memcmp(ln->s, prefix, n);
}

/* Split on runs of spaces and tabs. */
int line_token(const struct line *ln, size_t *pos, struct span *tok)
{
	size_t i = *pos, start;

	while (i < ln->len && (ln->s[i] == ' ' || ln->s[i] == '\t'))
		i++;
	if (i >= ln->len) {
		*pos = ln->len;
		return 0;
	}
	start = i;
	while (i < ln->len && ln->s[i] != ' ' && ln->s[i] != '\t')
		i++;
	tok->s = ln->s + start;
	tok->len = i - start;
	*pos = i;
	return 1;
}

/* Is the span exactly LIT? */
int span_eq(struct span t, const char *lit)
{
	return strlen(lit) == t.len && !memcmp(t.s, lit, t.len);
}

/* Unsigned decimal, overflow-checked and bounded by MAX. */
int span_u64(struct span t, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!t.len || t.len > 20)
		return -1;
	for (size_t i = 0; i < t.len; i++) {
		unsigned d = (unsigned char)t.s[i] - '0';
		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

/* Plain decimal "digits[.digits]"; the grammar leaves no room for nan/inf. */
int span_decimal(struct span t, double max, double *out)
{
	char buf[48];
	size_t i = 0, int_digits = 0, frac_digits = 0;
	double v;

	if (!t.len || t.len >= sizeof(buf))
		return -1;
	while (i < t.len && t.s[i] >= '0' && t.s[i] <= '9')
		i++, int_digits++;
	if (i < t.len && t.s[i] == '.') {
		i++;
		while (i < t.len && t.s[i] >= '0' && t.s[i] <= '9')
			i++, frac_digits++;
		if (!frac_digits)
			return -1;
	}
	if (i != t.len || !int_digits)
		return -1;
	memcpy(buf, t.s, t.len);
	buf[t.len] = '\0';
	v = strtod(buf, NULL);
	if (!isfinite(v) || v > max)
		return -1;
	*out = v;
	return 0;
}

/* Match one line token against one pattern token (see workload.h). */
static int match_token(struct span lt, const char *pt, size_t plen, va_list *ap)
{
	const char *pc = memchr(pt, '%', plen);
	size_t pre, suf;
	struct span in;

	if (!pc)
		return lt.len == plen && !memcmp(lt.s, pt, plen) ? 0 : -1;
	pre = (size_t)(pc - pt);
	if (pre + 2 > plen)
		return -1;
	suf = plen - pre - 2;
	if (lt.len < pre + suf + 1 || memcmp(lt.s, pt, pre) ||
	    memcmp(lt.s + lt.len - suf, pc + 2, suf))
		return -1;
	in.s = lt.s + pre;
	in.len = lt.len - pre - suf;
	switch (pc[1]) {
	case 'u':
		return span_u64(in, (uint64_t)WL_NUM_MAX, va_arg(*ap, uint64_t *));
	case 'f':
		return span_decimal(in, WL_NUM_MAX, va_arg(*ap, double *));
	case 's':
		*va_arg(*ap, struct span *) = in;
		return 0;
	}
	return -1;
}

/* Token-wise match of a whole line against a pattern. */
int line_match(const struct line *ln, const char *pat, ...)
{
	va_list ap;
	size_t pos = 0;
	struct span lt;
	int ret = -1;

	va_start(ap, pat);
	for (;;) {
		size_t plen;
		while (*pat == ' ')
			pat++;
		if (!*pat) {
			ret = line_token(ln, &pos, &lt) ? -1 : 0;
			break;
		}
		plen = strcspn(pat, " ");
		if (!line_token(ln, &pos, &lt) || match_token(lt, pat, plen, &ap))
			break;
		pat += plen;
	}
	va_end(ap);
	return ret;
}
