/* cmd_lab.h - kbench lab (cmd_lab.c). */
#ifndef KBENCH_CMD_LAB_H
#define KBENCH_CMD_LAB_H

/* kbench lab check LAB */
int cmd_lab(int argc, char **argv);

#endif
