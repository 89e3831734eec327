/* cmd_campaign.h - `kbench campaign`: variants run interleaved, then
 * compared (for kbench.c's commands[]). */
#ifndef KBENCH_CMD_CAMPAIGN_H
#define KBENCH_CMD_CAMPAIGN_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>
#include "run/run.h"

/* kbench campaign --kernels "A B" ...: interleaved runs, then compare */
int cmd_campaign(int argc, char **argv);
/* kbench sweep --kernel V --param m.p=1,2 ...: a campaign over knob points */
int cmd_sweep(int argc, char **argv);

/* campaign.json's "guest": the settings every run of the campaign shares
 * (vcpus, mem_mb, boot_timeout_s, accel by name, boot_retries when set,
 * backend when set), so that --resume runs the rest the same way. */
json_object *campaign_guest_json(const struct run_opts *ro);
/* Read G (from PATH) back into RO; strings stay G's. Campaigns written
 * before accel was a name hold the enum's number (0 auto, 1 kvm, 2 tcg):
 * still read; any other value is an error naming PATH. 0 or -1. */
int campaign_guest_read(json_object *g, const char *path, struct run_opts *ro);

/* The order of a campaign's (or sweep's) runs: ROUNDS rounds (warm-up
 * rounds first) of N entries, each round a permutation of 0..N-1 drawn
 * with gsl_ran_shuffle from an mt19937 seeded with SEED, so --resume draws
 * the same order. ROUNDS * N indices, the caller frees them. */
size_t *campaign_order(uint32_t seed, size_t n, int rounds);

#endif
