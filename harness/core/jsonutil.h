/* jsonutil.h - small json-c helpers: look-ups for the readers of stored
 * results (untrusted: a missing key or a wrong type gives NULL), and
 * setters and number constructors for the writers.
 *
 * Numbers: kbench writes two formats, and this is the one place that
 * decides them (both write null for NaN and infinities: JSON has none).
 *   jnum()   json-c's own double format (shortest text that reads back
 *            the same double): results.json, the trends in nightly.json
 *            and history output. Measured values are stored exactly.
 *   jnum10() 10 significant digits ("%.10g"): comparison.json only. Its
 *            numbers are derived statistics (means, intervals, p values);
 *            10 digits are far beyond their precision and keep the file
 *            stable across libm and summation-order noise in the last
 *            bits, so comparisons of two comparison.json files (and the
 *            golden test) see real changes only.
 * Unifying them would change one of the two outputs, so both stay. */
#ifndef KBENCH_JSONUTIL_H
#define KBENCH_JSONUTIL_H

#include <json-c/json.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "core/util.h"

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

/* ---- numbers (see the head of this file) ---- */

static inline json_object *jnum(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static inline json_object *jnum10(double v)
{
	char buf[40];
	if (!isfinite(v))
		return NULL;
	snprintf(buf, sizeof(buf), "%.10g", v);
	return json_object_new_double_s(v, buf);
}

/* ---- setters: O[K] = a new value (V NULL: JSON null) ---- */

static inline void jset(json_object *o, const char *k, json_object *v)
{
	json_object_object_add(o, k, v);
}

static inline void jset_str(json_object *o, const char *k, const char *s)
{
	jset(o, k, s ? json_object_new_string(s) : NULL);
}

static inline void jset_int(json_object *o, const char *k, int v)
{
	jset(o, k, json_object_new_int(v));
}

static inline void jset_i64(json_object *o, const char *k, int64_t v)
{
	jset(o, k, json_object_new_int64(v));
}

static inline void jset_bool(json_object *o, const char *k, int v)
{
	jset(o, k, json_object_new_boolean(v));
}

static inline void jset_num(json_object *o, const char *k, double v)
{
	jset(o, k, jnum(v));
}

static inline void jset_num10(json_object *o, const char *k, double v)
{
	jset(o, k, jnum10(v));
}

/* DOC pretty-printed (spaced, slashes as they are) with a final newline,
 * written atomically to PATH: how results.json and comparison.json are
 * stored. 0, or -1 after an error. */
static inline int json_save(const char *path, json_object *doc)
{
	const char *s = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
							    JSON_C_TO_STRING_SPACED |
							    JSON_C_TO_STRING_NOSLASHESCAPE);
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, s);
	sb_adds(&sb, "\n");
	return sb_write_atomic(path, &sb);
}

#endif
