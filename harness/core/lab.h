/* lab.h - a LAVA lab for the lava backend: configs/labs/NAME.ini (inih),
 * checked like target files (file, line, key, what was expected).
 *
 *   [lab]
 *   url = http://127.0.0.1:18791/     ; LAVA's server (http or https)
 *   token_file = lab.token            ; relative paths: from the lab file
 *   device_type = qemu                ; the devices to run on ...
 *   tags = x86 fast                   ; ... and/or the tags they carry
 *   artifacts = /srv/kbench-artifacts ; where kbench publishes kernels
 *   artifacts_url = file:///srv/kbench-artifacts ; the same, as workers see it
 *   queue_timeout = 3600              ; seconds a job may wait for a device
 *   job_timeout = 1800                ; seconds a job may run
 *   poll_interval = 5                 ; seconds between two looks at a job
 *   resume_window = 600               ; seconds a job's agent waits for a
 *                                     ; killed kbench (--resume); 0: none
 *   agent_host = 192.0.2.10           ; the address devices reach kbench at
 *                                     ; (it listens there); default: QEMU's
 *                                     ; user network (10.0.2.2, kbench on
 *                                     ; 127.0.0.1)
 *   device_network = up               ; qemu-user (default: the test brings
 *                                     ; eth0 up as 10.0.2.15) or up
 *
 *   [templates]
 *   qemu = templates/qemu.yaml        ; per device type: the job's deploy
 *                                     ; and boot parts (kbench adds the test)
 *
 * The token is never in the lab file, argv, logs or results: only the token
 * file names it, and that file must be readable by its owner only.
 */
#ifndef KBENCH_LAB_H
#define KBENCH_LAB_H

#include <stddef.h>
#include "core/opt.h"
#include "core/util.h"

#define LAB_TOKEN_MAX 256
#define LAB_TEMPLATES_MAX 16

struct lab_template {
	char device_type[64];
	char path[KB_PATH_MAX];
};

struct lab {
	char path[KB_PATH_MAX];
	char name[64];                /* the file's base name */
	char url[OPT_STR_MAX];        /* always ends with '/' */
	char token_file[KB_PATH_MAX];
	char device_type[64];         /* "" = any with the tags */
	struct strvec tags;
	char artifacts[KB_PATH_MAX];
	char artifacts_url[OPT_STR_MAX]; /* always ends with '/' */
	int queue_timeout_s;
	int job_timeout_s;
	int poll_interval_s;
	int resume_window_s; /* a job's agent waits this long for a killed kbench */
	char agent_host[64]; /* "" = QEMU's user network: 10.0.2.2, kbench on 127.0.0.1 */
	int network_up;      /* device_network = up: no eth0 set-up in the test */
	struct lab_template templates[LAB_TEMPLATES_MAX];
	int ntemplates;
};

/* Load NAME (configs/labs/NAME.ini) or a path into L. 0, or -1 after an
 * error naming the file, the line and what was expected. */
int lab_load(const char *name, struct lab *l);
/* Parse the INI text BUF (LEN bytes; PATH names it in errors, relative
 * paths are taken from its directory) into L. */
int lab_parse(const char *buf, size_t len, const char *path, struct lab *l);
void lab_release(struct lab *l);
/* The template file for DEVICE_TYPE, or NULL. */
const char *lab_template_for(const struct lab *l, const char *device_type);
/* The token from L's token file into OUT (LEN bytes): one line of letters,
 * digits, '-' and '_', the file readable by its owner only. 0, or -1
 * after an error that names the file but never shows its content. */
int lab_token_read(const struct lab *l, char *out, size_t len);
/* A LAVA name (device type, device, tag): letters, digits, '-', '_', '.',
 * under 64 bytes. */
int lab_name_ok(const char *s);
/* Is BUF (LEN bytes) a token lab_token_read would accept? (Exposed for
 * the tests.) */
int lab_token_valid(const char *buf, size_t len);

#endif
