/* cmd_campaign.h - `kbench campaign`: variants run interleaved, then
 * compared (for kbench.c's commands[]). */
#ifndef KBENCH_CMD_CAMPAIGN_H
#define KBENCH_CMD_CAMPAIGN_H

#include <json-c/json.h>
#include "run/run.h"

/* kbench campaign --kernels "A B" ...: interleaved runs, then compare */
int cmd_campaign(int argc, char **argv);

/* campaign.json's "guest": the settings every run of the campaign shares
 * (vcpus, mem_mb, boot_timeout_s, accel by name, boot_retries when set,
 * backend when set), so that --resume runs the rest the same way. */
json_object *campaign_guest_json(const struct run_opts *ro);
/* Read G (from PATH) back into RO; strings stay G's. Campaigns written
 * before accel was a name hold the enum's number (0 auto, 1 kvm, 2 tcg):
 * still read; any other value is an error naming PATH. 0 or -1. */
int campaign_guest_read(json_object *g, const char *path, struct run_opts *ro);

#endif
