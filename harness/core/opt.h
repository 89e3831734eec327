/* opt.h - declarative option tables (after fio's options.c).
 *
 * Each workload describes its parameters once, as a table of opt_def; the
 * same table drives suite parsing, range checks, defaults in results.json
 * and `kbench workloads` help.
 */
#ifndef KBENCH_OPT_H
#define KBENCH_OPT_H

#include <stddef.h>
#include <json-c/json.h>

#define OPT_STR_MAX 256

enum opt_type {
	OPT_INT,    /* int, range [min, max] */
	OPT_DOUBLE, /* double, range [min, max] */
	OPT_BOOL,   /* int 0/1; accepts true/false/yes/no/on/off/1/0 */
	OPT_ENUM,   /* int index into choices[] */
	OPT_STRING, /* char[OPT_STR_MAX] */
};

struct opt_def {
	const char *name;
	enum opt_type type;
	size_t offset;              /* offsetof(params struct, field) */
	double min, max;            /* OPT_INT / OPT_DOUBLE */
	const char *const *choices; /* OPT_ENUM, NULL-terminated */
	const char *help;
};

#define OPT_END { NULL, 0, 0, 0, 0, NULL, NULL }

/* Find an option by name; NULL when the table has none. */
const struct opt_def *opt_find(const struct opt_def *tab, const char *name);

/*
 * Parse VALUE for option DEF into PARAMS. On error writes a lowercase
 * reason ("expected an integer in 1..1000, got 'x'") into ERR and returns -1.
 */
int opt_set(void *params, const struct opt_def *def, const char *value,
	    char *err, size_t errlen);

/* Render the current value of DEF in PARAMS as a JSON value. */
json_object *opt_to_json(const void *params, const struct opt_def *def);

/* All options of TAB as one JSON object. */
json_object *opts_to_json(const void *params, const struct opt_def *tab);

/* Set every option of TAB from a JSON object (stored results). */
int opts_from_json(void *params, const struct opt_def *tab, json_object *obj,
		   char *err, size_t errlen);

#endif
