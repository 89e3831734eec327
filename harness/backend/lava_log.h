/* lava_log.h - what kbench reads from a LAVA job (untrusted input, like
 * guest output): the job log (GET /api/v0.2/jobs/N/logs/: YAML, one flow
 * mapping {dt, lvl, msg} per line, with tags such as `! "613"`: parsed
 * with libyaml, never by hand), the REST API's JSON answers (json-c), and
 * the results block the test in the device prints on its console:
 *
 *   KBENCH-BEGIN v1 BYTES SHA256
 *   KBENCH-DATA 0 BASE64...          (at most LAVA_DATA_CHARS per line)
 *   KBENCH-DATA 1 BASE64...
 *   KBENCH-END v1
 *
 * Kernel messages may come between those lines (the serial console is
 * shared) and are skipped; a line they cut in two fails the check of
 * BYTES and SHA256, so a block is whole and verified or it is refused.
 */
#ifndef KBENCH_LAVA_LOG_H
#define KBENCH_LAVA_LOG_H

#include <stddef.h>
#include "core/util.h"
#include <json-c/json.h>

#define LAVA_DATA_CHARS 76
#define LAVA_BLOCK_MAX (64u << 20) /* a results block's bytes at most */

/* The job's own verdict, as LAVA's dispatcher (lava-run) records it when
 * the job fails: the log's results entry of definition lava, case job,
 * carries error_type ("Infrastructure", "Job", "Test", "Bug", "Canceled",
 * "LAVATimeout", "Configuration", ...) and error_msg (the exception's
 * text: "Unable to start libguestfs", or a kernel panic's lines). Both
 * untrusted: one line of printable ASCII (tabs and line breaks become a
 * space, other control bytes are dropped, each run of other bytes becomes
 * one '?'), cut with "..." to fit. "" when the job has none. */
#define LAVA_ERROR_TYPE_MAX 64
#define LAVA_ERROR_MSG_MAX 256
struct lava_job_error {
	char type[LAVA_ERROR_TYPE_MAX];
	char msg[LAVA_ERROR_MSG_MAX];
};

/* The device's console: every "target" line of the log LOG (LEN bytes),
 * control bytes but tabs dropped, each ended by '\n', into CONSOLE; and
 * the job's own error (above) into JE (may be NULL). 0, or -1 with the
 * reason in ERR (not YAML, not a LAVA log). */
int lava_log_parse(const char *log, size_t len, struct strbuf *console,
		   struct lava_job_error *je, char *err, size_t errlen);
/* JE as kbench says it: "LAVA says: TYPE: MSG" ("LAVA says: TYPE" without
 * a message), or "" when JE has neither. */
void lava_job_error_text(const struct lava_job_error *je, char *out, size_t len);
/* JE's non-empty fields into the JSON object O as "error_type" and
 * "error_msg" (an iteration's "lava" object in results.json). */
void lava_job_error_json(const struct lava_job_error *je, json_object *o);

/* The results block in CONSOLE (lava_log_parse's output): its payload
 * into OUT. 1 found and verified; 0 no block (no KBENCH-BEGIN line); -1 a
 * block that is cut, out of order, or whose size or SHA-256 differ, with
 * the reason in ERR. The last complete block wins. */
int lava_block_extract(const char *console, size_t len, struct strbuf *out, char *err,
		       size_t errlen);

/* The block for PAYLOAD (LEN bytes) as the device prints it (the agent's
 * side; tests). */
void lava_block_write(const void *payload, size_t len, struct strbuf *out);

/* The last N lines of CONSOLE (a failure's tail) into OUT. */
void lava_console_tail(const char *console, size_t len, int n, struct strbuf *out);

/* A job's state, from GET /api/v0.2/jobs/N/. */
enum lava_state {
	LAVA_SUBMITTED,
	LAVA_SCHEDULING,
	LAVA_SCHEDULED,
	LAVA_RUNNING,
	LAVA_CANCELING,
	LAVA_FINISHED,
};
enum lava_health {
	LAVA_HEALTH_UNKNOWN,
	LAVA_HEALTH_COMPLETE,
	LAVA_HEALTH_INCOMPLETE,
	LAVA_HEALTH_CANCELED,
};
struct lava_job {
	long long id;
	enum lava_state state;
	enum lava_health health;
	char device[64];      /* actual_device, "" before it is scheduled */
	char device_type[64]; /* requested_device_type */
	char failure[256];    /* failure_comment (printable bytes only) or "" */
};
const char *lava_state_name(enum lava_state s);
const char *lava_health_name(enum lava_health h);

/* Did job J end by the lab's fault, not the kernel's: an infrastructure
 * error (its log's error type, lava_log_parse's JE->type, or LAVA's
 * failure comment says so) or a cancellation (kbench cancels only its own jobs, which it
 * does not then wait on)? ERROR_TYPE may be NULL. */
int lava_job_labs_fault(const struct lava_job *j, const char *error_type);
/* BUF (LEN bytes) as a job; 0, or -1 with the reason in ERR. */
int lava_job_parse(const char *buf, size_t len, struct lava_job *j, char *err, size_t errlen);
/* The one job id of a submit answer ({"job_ids": [N], ...}); 0, or -1. */
int lava_submit_parse(const char *buf, size_t len, long long *id, char *err, size_t errlen);
/* An error answer's "detail" or "message" (printable bytes only, cut to
 * OUTLEN) into OUT, or "" when it has neither. */
void lava_error_message(const char *buf, size_t len, char *out, size_t outlen);

/* A device, from GET /api/v0.2/devices/. */
#define LAVA_DEVICE_TAGS 16
struct lava_device {
	char name[64], type[64], state[16], health[16];
	int usable; /* health Good or Unknown, and not Retired/Maintenance */
	char tags[LAVA_DEVICE_TAGS][64]; /* its tags' names (the first 16) */
	int ntags;
};
/* The "count" of a list answer ({"count": N, ...}) into *N. 0, or -1
 * with ERR. */
int lava_count_parse(const char *buf, size_t len, long *n, char *err, size_t errlen);
/* LAVA 2023.01 lists a device's tags by id ("#ID" in tags until resolved):
 * do any of the N devices D have such? */
int lava_tags_pending(const struct lava_device *d, int n);
/* The ids replaced by their names from a tags answer ({"results": [{"id",
 * "name"}]}); ids it lacks and unsafe names dropped. 0, or -1 with ERR. */
int lava_tags_resolve(const char *buf, size_t len, struct lava_device *d, int n, char *err,
		      size_t errlen);
/* A tag that D[I] carries and no other of the N devices D does: a job
 * asking for it can run on that device only. NULL when it has none. */
const char *lava_device_own_tag(const struct lava_device *d, int n, int i);
/* Can a job be pinned to D[I] (of N): usable, carrying every tag of
 * LAB_TAGS (which every job of the lab asks for), and a tag of its own?
 * That tag, or NULL with the reason in WHY. One answer for kbench
 * campaign --lab and kbench run --lab-device. */
const char *lava_device_pin_tag(const struct lava_device *d, int n, int i,
				const struct strvec *lab_tags, char *why, size_t len);
/* The devices of a devices answer ({"count": N, "results": [...]}), at
 * most MAX into D, their number into *N. 0, or -1 with ERR. */
int lava_devices_parse(const char *buf, size_t len, struct lava_device *d, int max, int *n,
		       char *err, size_t errlen);

#endif
