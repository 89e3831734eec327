/* cmd_nightly.h - unattended nightly runs and the history (for kbench.c's
 * commands[]; docs/nightly.md). */
#ifndef KBENCH_CMD_NIGHTLY_H
#define KBENCH_CMD_NIGHTLY_H

/* kbench nightly --config configs/nightly.ini: run, record, judge; exits
 * with kbench regress's status (0, 1 regression, 2 error, 3 too noisy) */
int cmd_nightly(int argc, char **argv);
/* kbench history [list|import|nights|trends|check] */
int cmd_history(int argc, char **argv);
/* kbench merge DIR... --out DIR [--pool-hosts]: one report from several
 * machines' runs or nights, exit the worst night's status */
int cmd_merge(int argc, char **argv);

/* The more serious of two regress exit codes: 2, then 1, then 3, then 0. */
int nightly_worst(int a, int b);

#endif
