/* lava_api.h - LAVA's REST API (v0.2) over libcurl, and the job
 * definitions kbench submits, built with libyaml's document API (never by
 * pasting strings).
 *
 * The token is read from the lab's token file into memory, sent only in
 * the Authorization header, and wiped after each request: it is never in
 * argv, in an error message, a log or a result. Only http:// and https://
 * are spoken; redirects are not followed (they could carry the header
 * elsewhere).
 */
#ifndef KBENCH_LAVA_API_H
#define KBENCH_LAVA_API_H

#include <stddef.h>
#include "backend/lava_log.h"
#include "core/lab.h"
#include <json-c/json.h>

#define LAVA_ANSWER_MAX (64u << 20) /* an answer's bytes at most (a job log) */

struct lava_conn {
	const struct lab *lab;
	char token[LAB_TOKEN_MAX];
	double timeout_s; /* per request */
};

/* Read L's token into C. 0, or -1 after an error. */
int lava_connect(struct lava_conn *c, const struct lab *l);
/* Wipe the token. */
void lava_disconnect(struct lava_conn *c);

/* METHOD ("GET", "POST") of PATH (under the lab's url, e.g.
 * "api/v0.2/jobs/12/") with BODY (JSON, or NULL): the answer into OUT, its
 * HTTP status into *STATUS. 0 when an answer came (any status), -1 with
 * ERR when none did (the server unreachable, a timeout, an answer over
 * LAVA_ANSWER_MAX). */
int lava_request(struct lava_conn *c, const char *method, const char *path, const char *body,
		 struct strbuf *out, long *status, char *err, size_t errlen);

/* Submit the job definition YAML: its id into *ID. 0, or -1 with ERR (a
 * refused token says so, naming the token file, never the token). */
int lava_submit(struct lava_conn *c, const char *yaml, long long *id, char *err, size_t errlen);
/* The job ID's state. 0, or -1 with ERR. */
int lava_job_get(struct lava_conn *c, long long id, struct lava_job *j, char *err,
		 size_t errlen);
/* The job ID's log (YAML, lava_log_parse reads it) into OUT. */
int lava_job_log(struct lava_conn *c, long long id, struct strbuf *out, char *err,
		 size_t errlen);
/* The devices of DEVICE_TYPE ("" = all), at most MAX into D, their
 * number into *N. 0, or -1 with ERR (the server unreachable, the token
 * refused). */
int lava_devices(struct lava_conn *c, const char *device_type, struct lava_device *d, int max,
		 int *n, char *err, size_t errlen);
/* How many jobs (of DEVICE_TYPE, when not "") are Submitted with a lower
 * id than JOB: its place in LAVA's queue, into *AHEAD. 0, or -1 with ERR. */
int lava_jobs_ahead(struct lava_conn *c, long long job, const char *device_type, long *ahead,
		    char *err, size_t errlen);
/* Ask LAVA to cancel job ID. 0, or -1 with ERR. */
int lava_job_cancel(struct lava_conn *c, long long id, char *err, size_t errlen);

/* Publish the file PATH (a kernel, an initramfs, a modules archive) in L's
 * artifact directory under its content key, KIND-SHA256PREFIX, so the same
 * bytes are never published twice; its URL for the lab's workers into
 * URL. *COPIED says whether it was copied now. Only L->artifacts is
 * written (made if missing, its parent must exist). 0, or -1 after an
 * error. */
int lava_publish(const struct lab *l, const char *path, const char *kind, char *url,
		 size_t urllen, int *copied);

/* kbench's initramfs BASE followed by a newc archive holding /lava-init
 * (a shell for LAVA on the console, the modules of kbench's list, the
 * by-uuid links of LAVA's overlay disk) into OUT; the job's kernel command
 * line says rdinit=/lava-init. 0, or -1 after an error. (lava_initrd.c) */
int lava_initrd(const char *base, const char *out);
/* That archive alone, appended to OUT; and /lava-init's text. */
void lava_init_cpio(struct strbuf *out);
extern const char lava_init_script[];

/* What a job definition gets besides its template. */
struct lava_job_spec {
	const char *name;        /* job_name */
	const char *device_type; /* "" = the template's */
	const struct strvec *tags;
	const char *kernel_url;  /* replaces a scalar "@kernel@" in the template */
	const char *initrd_url;  /* "@initrd@" */
	const char *modules_url; /* "@modules@" ("" = none may be asked for) */
	const char *cmdline;     /* the variant's kernel command line: replaces
				  * "@cmdline@" inside any scalar (a template
				  * without it refuses a non-empty one) */
	int job_timeout_s;
	struct strvec steps;     /* the test's shell steps (kbench's agent) */
};

/* Can CMDLINE go into a template's scalar (letters, digits, space and
 * . _ , = : / + - only: LAVA formats image_arg with Python's str.format
 * and hands it to a shell-like split)? */
int lava_cmdline_ok(const char *cmdline);

/* The job definition: the template TEMPLATE (YAML text, TLEN bytes; a
 * mapping with at least "actions", a list holding its deploy and boot)
 * with the spec's name, device type, tags, timeouts and URLs set, and a
 * test action that runs STEPS appended; emitted into OUT. 0, or -1 with
 * ERR (the template is not such a mapping, or names a placeholder the spec
 * leaves empty). */
int lava_job_yaml(const char *tmpl, size_t tlen, const struct lava_job_spec *s,
		  struct strbuf *out, char *err, size_t errlen);

/* An iteration's workloads (results.json's "workloads" array) as LAVA test
 * case signals, one line each, appended to OUT, as lava-test-case prints
 * them: "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=LABEL.METRIC RESULT=pass
 * UNITS=U MEASUREMENT=V>" per metric of a workload that ran, one
 * "TEST_CASE_ID=LABEL RESULT=fail" per workload that did not. Names and
 * units keep to letters, digits and . _ - / % (anything else becomes '_':
 * LAVA splits a signal at spaces and '=' and ends it at '>'); a value that
 * is not finite goes without a measurement. Returns the number of cases. */
int lava_test_cases(json_object *workloads, struct strbuf *out);

#endif
