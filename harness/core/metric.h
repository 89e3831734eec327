/* metric.h - parsed workload metrics, each with its unit and direction. */
#ifndef KBENCH_METRIC_H
#define KBENCH_METRIC_H

#include <stddef.h>
#include <stdarg.h>
#include <json-c/json.h>

enum better {
	BETTER_LOWER = -1,
	BETTER_HIGHER = 1,
};

struct metric {
	char *name;   /* "throughput", "time", "lat_p99_99", ... */
	char *unit;   /* "MB/s", "s", "us", "count" */
	enum better better;
	double value;
};

struct metric_set {
	struct metric *v;
	size_t n, alloc;
	/* Extra structured data kept whole in results.json (e.g. cyclictest's
	 * histogram); owned, may be NULL. */
	json_object *extra;
};

#define METRIC_SET_INIT { NULL, 0, 0, NULL }

void metric_set_add(struct metric_set *ms, const char *name, const char *unit,
		    enum better better, double value);
const struct metric *metric_set_get(const struct metric_set *ms, const char *name);
void metric_set_release(struct metric_set *ms);

/* A parse failure: 1-based line of the input (0 when not line-specific). */
struct parse_error {
	int line;
	char msg[256];
};

/* Helper for parsers: fill ERR and return -1. */
__attribute__((format(printf, 3, 4)))
int parse_fail(struct parse_error *err, int line, const char *fmt, ...);

#endif
