/* jsonutil.h - small json-c look-ups shared by the readers of stored
 * results (untrusted: a missing key or a wrong type gives NULL). */
#ifndef KBENCH_JSONUTIL_H
#define KBENCH_JSONUTIL_H

#include <json-c/json.h>

static inline json_object *jget(json_object *o, const char *key)
{
	json_object *v;
	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static inline const char *jstr(json_object *o, const char *key)
{
	json_object *v = jget(o, key);
	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static inline const char *or_empty(const char *s)
{
	return s ? s : "";
}

#endif
