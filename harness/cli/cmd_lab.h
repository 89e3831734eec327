/* cmd_lab.h - kbench lab (cmd_lab.c). */
#ifndef KBENCH_CMD_LAB_H
#define KBENCH_CMD_LAB_H

/* kbench lab check LAB */
int cmd_lab(int argc, char **argv);

#include "core/util.h"

/* The devices of lab LAB a campaign can pin its rounds to: usable, with
 * the lab's tags, each with a tag only it carries (LAVA picks devices by
 * type and tags only), pushed onto DEVICES; *LISTED: how many the lab
 * has of its type. 0, or -1 after an error (file, token, server). */
int lab_pinnable(const char *lab, struct strvec *devices, int *listed);
/* Is DEVICE of lab LAB still usable? 1 yes, 0 no (WHY: its health and
 * state), -1 when the lab did not answer (WHY: the error). */
int lab_device_usable(const char *lab, const char *device, char *why, size_t len);

#endif
