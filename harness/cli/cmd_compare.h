/* cmd_compare.h - the comparison commands, for kbench.c's commands[]. */
#ifndef KBENCH_CMD_COMPARE_H
#define KBENCH_CMD_COMPARE_H

/* kbench compare RESULTS... [--baseline V] [--out DIR] ... */
int cmd_compare(int argc, char **argv);
/* kbench report DIR: rebuild comparison.json and report.html */
int cmd_report(int argc, char **argv);
/* kbench regress --baseline R --current R ...: exit 0/1/2/3, JUnit, Markdown */
int cmd_regress(int argc, char **argv);
/* kbench campaign --kernels "A B" ...: interleaved runs, then compare */
int cmd_campaign(int argc, char **argv);

#endif
