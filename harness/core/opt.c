/* opt.c - parse, check and render declarative option tables. */
#include "core/opt.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const struct opt_def *opt_find(const struct opt_def *tab, const char *name)
{
	for (; tab && tab->name; tab++)
		if (!strcmp(tab->name, name))
			return tab;
	return NULL;
}

static int parse_bool(const char *v, int *out)
{
	static const char *const yes[] = { "1", "true", "yes", "on", NULL };
	static const char *const no[] = { "0", "false", "no", "off", NULL };
	for (int i = 0; yes[i]; i++)
		if (!strcasecmp(v, yes[i]))
			return *out = 1, 0;
	for (int i = 0; no[i]; i++)
		if (!strcasecmp(v, no[i]))
			return *out = 0, 0;
	return -1;
}

int opt_set(void *params, const struct opt_def *def, const char *value,
	    char *err, size_t errlen)
{
	char *p = (char *)params + def->offset;
	char *end;

	switch (def->type) {
	case OPT_INT: {
		long v;
		errno = 0;
		v = strtol(value, &end, 10);
		if (errno || end == value || *end) {
			snprintf(err, errlen, "expected an integer for '%s', got '%s'", def->name, value);
			return -1;
		}
		if ((double)v < def->min || (double)v > def->max) {
			snprintf(err, errlen, "'%s' must be in %.0f..%.0f, got %ld",
				 def->name, def->min, def->max, v);
			return -1;
		}
		*(int *)p = (int)v;
		return 0;
	}
	case OPT_DOUBLE: {
		double v;
		errno = 0;
		v = strtod(value, &end);
		if (errno || end == value || *end || !isfinite(v)) {
			snprintf(err, errlen, "expected a number for '%s', got '%s'", def->name, value);
			return -1;
		}
		if (v < def->min || v > def->max) {
			snprintf(err, errlen, "'%s' must be in %g..%g, got %g",
				 def->name, def->min, def->max, v);
			return -1;
		}
		*(double *)p = v;
		return 0;
	}
	case OPT_BOOL:
		if (parse_bool(value, (int *)p)) {
			snprintf(err, errlen, "expected true or false for '%s', got '%s'", def->name, value);
			return -1;
		}
		return 0;
	case OPT_ENUM: {
		struct strbuf_lite { char s[256]; size_t n; } list = { "", 0 };
		for (int i = 0; def->choices[i]; i++) {
			if (!strcmp(def->choices[i], value)) {
				*(int *)p = i;
				return 0;
			}
			list.n += (size_t)snprintf(list.s + list.n, sizeof(list.s) - list.n, "%s%s",
						   i ? ", " : "", def->choices[i]);
			if (list.n >= sizeof(list.s))
				list.n = sizeof(list.s) - 1;
		}
		snprintf(err, errlen, "'%s' must be one of %s, got '%s'", def->name, list.s, value);
		return -1;
	}
	case OPT_STRING:
		if (strlen(value) >= OPT_STR_MAX) {
			snprintf(err, errlen, "'%s' is longer than %d characters", def->name, OPT_STR_MAX - 1);
			return -1;
		}
		snprintf(p, OPT_STR_MAX, "%s", value);
		return 0;
	}
	snprintf(err, errlen, "internal: bad option type for '%s'", def->name);
	return -1;
}

json_object *opt_to_json(const void *params, const struct opt_def *def)
{
	const char *p = (const char *)params + def->offset;
	switch (def->type) {
	case OPT_INT:
		return json_object_new_int(*(const int *)p);
	case OPT_DOUBLE:
		return json_object_new_double(*(const double *)p);
	case OPT_BOOL:
		return json_object_new_boolean(*(const int *)p);
	case OPT_ENUM:
		return json_object_new_string(def->choices[*(const int *)p]);
	case OPT_STRING:
		return json_object_new_string(p);
	}
	return NULL;
}

json_object *opts_to_json(const void *params, const struct opt_def *tab)
{
	json_object *o = json_object_new_object();
	for (; tab && tab->name; tab++)
		json_object_object_add(o, tab->name, opt_to_json(params, tab));
	return o;
}

int opts_from_json(void *params, const struct opt_def *tab, json_object *obj,
		   char *err, size_t errlen)
{
	if (!json_object_is_type(obj, json_type_object)) {
		snprintf(err, errlen, "parameters are not an object");
		return -1;
	}
	json_object_object_foreach(obj, key, val) {
		const struct opt_def *def = opt_find(tab, key);
		char buf[64];
		const char *s;
		if (!def) {
			snprintf(err, errlen, "unknown parameter '%s'", key);
			return -1;
		}
		switch (json_object_get_type(val)) {
		case json_type_boolean:
			s = json_object_get_boolean(val) ? "true" : "false";
			break;
		case json_type_int:
			snprintf(buf, sizeof(buf), "%lld", (long long)json_object_get_int64(val));
			s = buf;
			break;
		case json_type_double:
			snprintf(buf, sizeof(buf), "%.17g", json_object_get_double(val));
			s = buf;
			break;
		case json_type_string:
			s = json_object_get_string(val);
			break;
		default:
			snprintf(err, errlen, "parameter '%s' has an unexpected type", key);
			return -1;
		}
		if (opt_set(params, def, s, err, errlen))
			return -1;
	}
	return 0;
}
