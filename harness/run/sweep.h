/* sweep.h - the points of a knob sweep (`kbench sweep`): one variant, one
 * or more kernel parameters each given as a list of integers, every point
 * of their cartesian product a command line on the variant's binary. */
#ifndef KBENCH_SWEEP_H
#define KBENCH_SWEEP_H

#include <stddef.h>
#include <json-c/json.h>
#include "core/config.h"

#define SWEEP_KNOBS_MAX 4
#define SWEEP_VALUES_MAX 16

struct sweep_knob {
	char name[KB_NAME_MAX];        /* "rtmutex.spin_max_loops" */
	size_t n;
	long long v[SWEEP_VALUES_MAX]; /* in the order given */
};

struct sweep {
	char variant[KB_NAME_MAX];
	size_t nknobs;
	struct sweep_knob k[SWEEP_KNOBS_MAX];
};

/* Add "module.param=V1,V2,..." (integers >= 0, no knob twice); an error
 * saying what was expected and -1 on bad input. */
int sweep_param_parse(struct sweep *s, const char *arg);
/* Points in the cartesian product (the last knob varies fastest). */
size_t sweep_npoints(const struct sweep *s);
/* Point I's value of knob K. */
long long sweep_value(const struct sweep *s, size_t i, size_t k);
/* "VARIANT@spin_max_loops=10,lateral_steal=0": point I's label. */
void sweep_label(const struct sweep *s, size_t i, char *out, size_t len);
/* BASE (the variant's command line) with every knob set to point I's
 * value: a token setting a knob (module.param=..., '-' and '_' alike as
 * the kernel reads them) is dropped, the knobs appended. -1 if too long. */
int sweep_cmdline(const struct sweep *s, size_t i, const char *base, char *out, size_t len);
/* campaign.json's "sweep": variant and knobs (name, values). */
json_object *sweep_to_json(const struct sweep *s);
/* Back from J (PATH names it in errors); 0 or -1. */
int sweep_from_json(json_object *j, const char *path, struct sweep *s);

#endif
