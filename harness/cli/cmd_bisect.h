/* cmd_bisect.h - `kbench bisect`: find the commit that made a metric worse
 * (docs/bisect.md). */
#ifndef KBENCH_CMD_BISECT_H
#define KBENCH_CMD_BISECT_H

#include <json-c/json.h>
#include "core/util.h"

int cmd_bisect(int argc, char **argv);

/* The report of the bisection in DIR from its state STATE (bisect.json,
 * bisect.md, bisect.svg); 0 or -1. In bisect_out.c. */
int bisect_write_report(const char *dir, json_object *state);

#endif
