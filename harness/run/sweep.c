/* sweep.c - knob sweep points: parsing, the cartesian product, labels and
 * command lines. */
#include "run/sweep.h"
#include "core/jsonutil.h"
#include "core/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ident.ident, identifiers of letters, digits and '_' (not first: digit) */
static int knob_name_ok(const char *s, size_t n)
{
	size_t dots = 0, start = 0;
	if (!n || n >= KB_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '.') {
			if (i == start)
				return 0;
			dots++;
			start = i + 1;
		} else if (!(isalnum((unsigned char)s[i]) || s[i] == '_') ||
			   (i == start && isdigit((unsigned char)s[i]))) {
			return 0;
		}
	}
	return dots == 1 && start < n;
}

static int value_parse(const char *arg, const char *t, long long *v)
{
	char *end;
	errno = 0;
	if (!isdigit((unsigned char)*t))
		return error("--param '%s': '%s' is not an integer >= 0", arg, t);
	*v = strtoll(t, &end, 10);
	if (*end || errno)
		return error("--param '%s': '%s' is not an integer >= 0", arg, t);
	return 0;
}

int sweep_param_parse(struct sweep *s, const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct sweep_knob *k;
	char *list, *save = NULL;
	int ret = 0;
	if (!eq || !knob_name_ok(arg, (size_t)(eq - arg)))
		return error("--param '%s': expected module.param=V1,V2,... (a kernel parameter such "
			     "as rtmutex.spin_max_loops, then integers)", arg);
	if (s->nknobs == SWEEP_KNOBS_MAX)
		return error("--param '%s': at most %d knobs", arg, SWEEP_KNOBS_MAX);
	k = &s->k[s->nknobs];
	memset(k, 0, sizeof(*k));
	memcpy(k->name, arg, (size_t)(eq - arg));
	for (size_t i = 0; i < s->nknobs; i++)
		if (!strcmp(s->k[i].name, k->name))
			return error("--param: knob '%s' given twice", k->name);
	list = xstrdup(eq + 1);
	for (char *t = strtok_r(list, ",", &save); t && !ret; t = strtok_r(NULL, ",", &save)) {
		if (k->n == SWEEP_VALUES_MAX)
			ret = error("--param '%s': at most %d values", arg, SWEEP_VALUES_MAX);
		else
			ret = value_parse(arg, t, &k->v[k->n++]);
	}
	free(list);
	if (!ret && !k->n)
		ret = error("--param '%s': no values after '='", arg);
	if (!ret)
		s->nknobs++;
	return ret;
}

size_t sweep_npoints(const struct sweep *s)
{
	size_t n = s->nknobs ? 1 : 0;
	for (size_t k = 0; k < s->nknobs; k++)
		n *= s->k[k].n;
	return n;
}

long long sweep_value(const struct sweep *s, size_t i, size_t k)
{
	for (size_t j = s->nknobs; j-- > k + 1;)
		i /= s->k[j].n;
	return s->k[k].v[i % s->k[k].n];
}

void sweep_label(const struct sweep *s, size_t i, char *out, size_t len)
{
	size_t o = (size_t)snprintf(out, len, "%s@", s->variant);
	for (size_t k = 0; k < s->nknobs && o < len; k++) {
		const char *p = strchr(s->k[k].name, '.') + 1;
		o += (size_t)snprintf(out + o, len - o, "%s%s=%lld", k ? "," : "", p,
				      sweep_value(s, i, k));
	}
}

/* The token T (up to '=' or its end) names knob NAME, '-' as '_'. */
static int names_knob(const char *t, const char *name)
{
	for (; *name; t++, name++)
		if (*t != *name && !(*t == '-' && *name == '_'))
			return 0;
	return *t == '=' || *t == '\0';
}

int sweep_cmdline(const struct sweep *s, size_t i, const char *base, char *out, size_t len)
{
	char *copy = xstrdup(base ? base : ""), *save = NULL;
	size_t o = 0;
	out[0] = '\0';
	for (char *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		size_t k;
		for (k = 0; k < s->nknobs && !names_knob(t, s->k[k].name); k++)
			;
		if (k == s->nknobs)
			o += (size_t)snprintf(out + o, o < len ? len - o : 0, "%s%s", o ? " " : "", t);
	}
	free(copy);
	for (size_t k = 0; k < s->nknobs; k++)
		o += (size_t)snprintf(out + o, o < len ? len - o : 0, "%s%s=%lld", o ? " " : "",
				      s->k[k].name, sweep_value(s, i, k));
	if (o >= len)
		return error("sweep: the command line of point %zu is longer than %zu bytes", i, len - 1);
	return 0;
}

json_object *sweep_to_json(const struct sweep *s)
{
	json_object *j = json_object_new_object(), *ks = json_object_new_array();
	jset_str(j, "variant", s->variant);
	for (size_t k = 0; k < s->nknobs; k++) {
		json_object *o = json_object_new_object(), *vs = json_object_new_array();
		jset_str(o, "name", s->k[k].name);
		for (size_t v = 0; v < s->k[k].n; v++)
			json_object_array_add(vs, json_object_new_int64(s->k[k].v[v]));
		json_object_object_add(o, "values", vs);
		json_object_array_add(ks, o);
	}
	json_object_object_add(j, "knobs", ks);
	return j;
}

int sweep_from_json(json_object *j, const char *path, struct sweep *s)
{
	json_object *ks = jget(j, "knobs");
	memset(s, 0, sizeof(*s));
	if (!jstr(j, "variant") || !json_object_is_type(ks, json_type_array) ||
	    !json_object_array_length(ks) || json_object_array_length(ks) > SWEEP_KNOBS_MAX)
		return error("'%s': sweep needs a variant and 1 to %d knobs", path, SWEEP_KNOBS_MAX);
	snprintf(s->variant, sizeof(s->variant), "%s", jstr(j, "variant"));
	for (size_t k = 0; k < json_object_array_length(ks); k++) {
		json_object *o = json_object_array_get_idx(ks, k), *vs = jget(o, "values");
		struct sweep_knob *kn = &s->k[k];
		const char *name = jstr(o, "name");
		if (!name || !knob_name_ok(name, strlen(name)) ||
		    !json_object_is_type(vs, json_type_array) || !json_object_array_length(vs) ||
		    json_object_array_length(vs) > SWEEP_VALUES_MAX)
			return error("'%s': sweep knob %zu needs a name (module.param) and 1 to %d "
				     "values", path, k + 1, SWEEP_VALUES_MAX);
		snprintf(kn->name, sizeof(kn->name), "%s", name);
		kn->n = json_object_array_length(vs);
		for (size_t v = 0; v < kn->n; v++)
			kn->v[v] = json_object_get_int64(json_object_array_get_idx(vs, v));
		s->nknobs++;
	}
	return 0;
}
