/* cmd_compare.h - the comparison commands, for kbench.c's commands[]. */
#ifndef KBENCH_CMD_COMPARE_H
#define KBENCH_CMD_COMPARE_H

#include <json-c/json.h>

/* kbench compare RESULTS... [--baseline V] [--out DIR] ... */
int cmd_compare(int argc, char **argv);
/* kbench report DIR: rebuild comparison.json and report.html */
int cmd_report(int argc, char **argv);
/* kbench regress --baseline R --current R ...: exit 0/1/2/3, JUnit, Markdown */
int cmd_regress(int argc, char **argv);

struct cmp_inputs;
struct cmp_opts;
/* Build and print the comparison of IN; with DIR, write DIR/comparison.json
 * and DIR/report.html. CAMPAIGN (owned; may be NULL) goes into the
 * comparison. KB_EXIT_OK or KB_EXIT_USAGE. */
int compare_and_write(const struct cmp_inputs *in, const struct cmp_opts *o, const char *dir,
		      json_object *campaign);

#endif
