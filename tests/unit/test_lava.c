/* test_lava.c - the lava backend's parsers on what a real LAVA 2023.01 lab
 * answered (tests/fixtures/lava, captured from tests/tools/lavalab.sh):
 * lab files (core/lab.c) and their token file; job logs, LAVA's own error
 * of a failed job, the verified results block and the REST API's answers
 * (backend/lava_log.c); that error and a failed boot's job in
 * results.json (run/results.c) and the run summary's retried boots. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/lava_api.h"
#include "backend/lava_log.h"
#include "core/jsonutil.h"
#include "core/lab.h"
#include "core/spawn.h"
#include "run/results.h"
#include "run/run.h"
#include <yaml.h>

#define FIX KB_SRCDIR "/tests/fixtures/lava/"

/* A fixture's bytes; curl -w's "\nHTTP NNN" line, if any, cut off into
 * *STATUS. */
static char *fixture(const char *name, size_t *len, int *status)
{
	struct strbuf sb = STRBUF_INIT;
	char path[4096], *http;
	snprintf(path, sizeof(path), FIX "%s", name);
	assert_true(read_file(path, &sb, 1 << 26) >= 0);
	if (status)
		*status = 200;
	if ((http = strstr(sb.buf, "\nHTTP ")) != NULL) {
		if (status)
			*status = atoi(http + 6);
		*http = '\0';
		sb.len = (size_t)(http - sb.buf);
	}
	*len = sb.len;
	return sb.buf;
}

static void test_lab_file(void **state)
{
	struct lab l;
	(void)state;
	assert_int_equal(lab_load(FIX "labs/lab.ini", &l), 0);
	assert_string_equal(l.name, "lab");
	assert_string_equal(l.url, "http://127.0.0.1:18791/"); /* a '/' added */
	assert_string_equal(l.token_file, FIX "labs/lab.token");
	assert_string_equal(l.device_type, "qemu");
	assert_int_equal(l.tags.n, 2);
	assert_string_equal(l.tags.v[1], "x86");
	assert_string_equal(l.artifacts, "/srv/kbench-artifacts");
	assert_string_equal(l.artifacts_url, "file:///srv/kbench-artifacts/");
	assert_int_equal(l.queue_timeout_s, 600);
	assert_int_equal(l.job_timeout_s, 900);
	assert_int_equal(l.poll_interval_s, 2);
	assert_int_equal(l.resume_window_s, 600); /* the default */
	assert_string_equal(l.agent_host, ""); /* QEMU's user network */
	assert_int_equal(l.network_up, 0);
	assert_string_equal(lab_template_for(&l, "qemu"),
			    FIX "labs/../../../tools/lava/probe-job.yaml");
	assert_null(lab_template_for(&l, "x86-server"));
	lab_release(&l);
	/* devices on a real network: kbench's address, their network up */
	{
		static const char up[] = "[lab]\nurl = http://127.0.0.1:1/\ntoken_file = t\n"
			"device_type = qemu\nartifacts = /a\nartifacts_url = file:///a\n"
			"agent_host = 192.0.2.10\ndevice_network = up\n[templates]\nqemu = q.yaml\n";
		assert_int_equal(lab_parse(up, strlen(up), "/x/up.ini", &l), 0);
		assert_string_equal(l.agent_host, "192.0.2.10");
		assert_int_equal(l.network_up, 1);
		lab_release(&l);
	}
	/* the shipped example, by name (configs/labs/) */
	assert_int_equal(lab_load("example", &l), 0);
	assert_string_equal(l.device_type, "qemu");
	assert_string_equal(lab_template_for(&l, "qemu"), KB_SRCDIR "/configs/labs/qemu-tcg.yaml");
	lab_release(&l);
}

/* Each bad lab file: refused, stderr naming the file and what was wrong. */
static void test_bad_lab_files(void **state)
{
	static const struct {
		const char *file, *says;
	} bad[] = {
		{ "bad-token-inline.ini", "never written in the lab file" },
		{ "bad-url-userinfo.ini", "without user or password" },
		{ "bad-no-template.ini", "no template for device_type qemu" },
		{ "bad-tag.ini", "bad tag 'b@d'" },
		{ "bad-artifacts-relative.ini", "absolute directory" },
		{ "bad-missing-token-file.ini", "missing: token_file" },
		{ "bad-artifacts-url.ini", "file:///PATH" },
		{ "bad-section.ini", "unknown section [device]" },
		{ "bad-job-timeout.ini", "job_timeout" },
		{ "bad-agent-host.ini", "agent_host: expected the IPv4 address" },
		{ "bad-device-network.ini", "device_network: expected qemu-user" },
		{ "bad-network-up-no-host.ini", "device_network = up needs agent_host" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char path[4096], log[] = "/tmp/kbench-test-lava.XXXXXX";
		struct strbuf err = STRBUF_INIT;
		struct lab l;
		int fd = mkstemp(log), saved = dup(2);
		assert_true(fd >= 0);
		snprintf(path, sizeof(path), FIX "labs/%s", bad[i].file);
		dup2(fd, 2);
		assert_int_equal(lab_load(path, &l), -1);
		dup2(saved, 2);
		close(saved);
		close(fd);
		assert_true(read_file(log, &err, 1 << 16) >= 0);
		unlink(log);
		if (!strstr(err.buf ? err.buf : "", bad[i].says) ||
		    !strstr(err.buf ? err.buf : "", bad[i].file))
			fail_msg("%s: expected '%s' in: %s", bad[i].file, bad[i].says, err.buf);
		lab_release(&l);
		sb_release(&err);
	}
}

static void test_token_file(void **state)
{
	struct lab l;
	char dir[] = "/tmp/kbench-test-lava.XXXXXX", tok[LAB_TOKEN_MAX];
	(void)state;
	assert_non_null(mkdtemp(dir));
	memset(&l, 0, sizeof(l));
	snprintf(l.path, sizeof(l.path), "lab.ini");
	snprintf(l.token_file, sizeof(l.token_file), "%s/token", dir);
	/* missing */
	assert_int_equal(lab_token_read(&l, tok, sizeof(tok)), -1);
	/* readable by others: refused */
	assert_int_equal(write_file_atomic(l.token_file, "abcDEF123_-\n", 12), 0);
	chmod(l.token_file, 0644);
	assert_int_equal(lab_token_read(&l, tok, sizeof(tok)), -1);
	chmod(l.token_file, 0600);
	assert_int_equal(lab_token_read(&l, tok, sizeof(tok)), 0);
	assert_string_equal(tok, "abcDEF123_-");
	/* a header's worth of anything else: refused */
	assert_int_equal(write_file_atomic(l.token_file, "abc\r\nX-Evil: 1\n", 16), 0);
	chmod(l.token_file, 0600);
	assert_int_equal(lab_token_read(&l, tok, sizeof(tok)), -1);
	assert_false(lab_token_valid("", 0));
	assert_false(lab_token_valid("a b", 3));
	assert_true(lab_token_valid("lGU8R4ilFhlmZqbddL30UAOmqpq47ftP", 32));
	unlink(l.token_file);
	rmdir(dir);
}

static void test_log_complete(void **state)
{
	struct strbuf con = STRBUF_INIT, out = STRBUF_INIT;
	char err[256];
	size_t len;
	char *log = fixture("log-complete.yaml", &len, NULL);
	(void)state;
	assert_int_equal(lava_log_parse(log, len, &con, NULL, err, sizeof(err)), 0);
	assert_non_null(strstr(con.buf, "\nLinux (none) 6.12.117+deb13-amd64 #1 SMP"));
	assert_non_null(strstr(con.buf, "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=hackbench.time "
					"RESULT=pass UNITS=s MEASUREMENT=2.25>"));
	/* LAVA keeps the printable rest of SeaBIOS's escapes */
	assert_non_null(strstr(con.buf, "c[?7l[2J[0mSeaBIOS (version 1.16.2"));
	/* the probe's bare "KBENCH-BEGIN" is no block */
	assert_int_equal(lava_block_extract(con.buf, con.len, &out, err, sizeof(err)), 0);
	free(log);
	sb_release(&con);
	sb_release(&out);
}

static void test_log_panic(void **state)
{
	struct strbuf con = STRBUF_INIT, tail = STRBUF_INIT;
	char err[256];
	size_t len;
	char *log = fixture("log-oops-int3.yaml", &len, NULL);
	(void)state;
	assert_int_equal(lava_log_parse(log, len, &con, NULL, err, sizeof(err)), 0);
	lava_console_tail(con.buf, con.len, 3, &tail);
	assert_non_null(strstr(tail.buf, "end Kernel panic - not syncing: Fatal exception"));
	assert_int_equal(strchr(tail.buf, '\n') - tail.buf > 0, 1);
	free(log);
	sb_release(&con);
	sb_release(&tail);
	/* control bytes a YAML escape hides are dropped, tabs kept; entries
	 * other than target lines (results mappings too) are not console */
	{
		static const char ctl[] = "- {\"lvl\": \"target\", \"msg\": \"a\\x1b[0m\\tb\\rc\\0d\"}\n"
					  "- {\"lvl\": \"results\", \"msg\": {\"case\": \"x\"}}\n"
					  "- {\"lvl\": \"debug\", \"msg\": \"not console\"}\n";
		assert_int_equal(lava_log_parse(ctl, strlen(ctl), &con, NULL, err, sizeof(err)), 0);
		assert_int_equal(con.len, 9);
		assert_memory_equal(con.buf, "a[0m\tbcd\n", 9);
		sb_reset(&con);
	}
	/* not YAML, or not a list: a reason */
	assert_int_equal(lava_log_parse("- {a: [", 7, &con, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not YAML"));
	assert_int_equal(lava_log_parse("a: b\n", 5, &con, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "list of entries"));
	sb_release(&con);
}

/* LAVA's own error of a failed job (lava-run's results entry of definition
 * lava, case job: error_type, error_msg), from real job logs; what kbench
 * says of it and keeps in results.json. */
static void test_job_error(void **state)
{
	static const struct {
		const char *log, *type, *msg;
	} logs[] = {
		{ "log-infra-guestfs.yaml", "Infrastructure", "Unable to start libguestfs" },
		{ "log-panic-canceled.yaml", "Canceled", "The job was canceled" },
		{ "log-complete.yaml", "", "" },   /* result pass: no error */
		{ "log-oops-int3.yaml", "", "" },  /* cut before the job's end */
	};
	struct strbuf con = STRBUF_INIT;
	struct lava_job_error je;
	char err[256], text[LAVA_ERROR_MSG_MAX + 96];
	json_object *o;
	size_t len;
	char *buf;
	(void)state;
	for (size_t i = 0; i < sizeof(logs) / sizeof(logs[0]); i++) {
		buf = fixture(logs[i].log, &len, NULL);
		sb_reset(&con);
		assert_int_equal(lava_log_parse(buf, len, &con, &je, err, sizeof(err)), 0);
		free(buf);
		assert_string_equal(je.type, logs[i].type);
		assert_string_equal(je.msg, logs[i].msg);
	}
	/* the terminal's words and results.json's keys */
	buf = fixture("log-infra-guestfs.yaml", &len, NULL);
	assert_int_equal(lava_log_parse(buf, len, &con, &je, err, sizeof(err)), 0);
	free(buf);
	lava_job_error_text(&je, text, sizeof(text));
	assert_string_equal(text, "LAVA says: Infrastructure: Unable to start libguestfs");
	o = json_object_new_object();
	lava_job_error_json(&je, o);
	assert_string_equal(jstr(o, "error_type"), "Infrastructure");
	assert_string_equal(jstr(o, "error_msg"), "Unable to start libguestfs");
	json_object_put(o);
	/* none: nothing said, no key */
	memset(&je, 0, sizeof(je));
	lava_job_error_text(&je, text, sizeof(text));
	assert_string_equal(text, "");
	o = json_object_new_object();
	lava_job_error_json(&je, o);
	assert_int_equal(json_object_object_length(o), 0);
	json_object_put(o);
	/* a type without a message; a buffer too small is cut, not overrun */
	snprintf(je.type, sizeof(je.type), "Bug");
	lava_job_error_text(&je, text, sizeof(text));
	assert_string_equal(text, "LAVA says: Bug");
	lava_job_error_text(&je, text, 8);
	assert_string_equal(text, "LAVA sa");
	sb_release(&con);
}

/* A hostile job log (tests/fixtures/lava/log-hostile-error.yaml: the
 * infrastructure error's log with its message made of control bytes,
 * escapes, non-ASCII bytes and 1000 more characters, and a device's
 * results entry shaped to be misread after it): LAVA's error comes out as
 * one bounded line of printable ASCII, and the device's entry claims
 * nothing. */
static void test_job_error_hostile(void **state)
{
	struct strbuf con = STRBUF_INIT;
	struct lava_job_error je;
	char err[256], text[LAVA_ERROR_MSG_MAX + 96];
	static const char want[] = "Unable to start libguestfs: [2J supermin ? failed! AAAA";
	size_t len;
	char *buf = fixture("log-hostile-error.yaml", &len, NULL);
	(void)state;
	assert_int_equal(lava_log_parse(buf, len, &con, &je, err, sizeof(err)), 0);
	free(buf);
	/* the dispatcher's own entry, not the device's "Bug" after it */
	assert_string_equal(je.type, "Infrastructure");
	assert_int_equal(strlen(je.msg), LAVA_ERROR_MSG_MAX - 1);
	assert_memory_equal(je.msg, want, sizeof(want) - 1);
	assert_string_equal(je.msg + strlen(je.msg) - 4, "A...");
	for (const char *p = je.msg; *p; p++)
		assert_true(*p >= 0x20 && *p < 0x7f);
	lava_job_error_text(&je, text, sizeof(text));
	assert_memory_equal(text, "LAVA says: Infrastructure: Unable to start libguestfs: ", 55);
	assert_non_null(strstr(con.buf, "hostile [31mline\n"));
	/* a type with line breaks and control bytes, null values, an
	 * overlong type */
	{
		static const char odd[] = "- {\"lvl\": \"results\", \"msg\": {\"case\": \"job\", "
			"\"definition\": \"lava\", \"error_msg\": null, \"error_type\": "
			"\" Bug\\r\\n\\u0007X-Forged: 1 \", \"result\": \"fail\"}}\n";
		static const char nul[] = "- {\"lvl\": \"results\", \"msg\": {\"case\": \"job\", "
			"\"definition\": \"lava\", \"error_msg\": ~, \"error_type\": null}}\n";
		char big[300];
		struct strbuf log = STRBUF_INIT;
		sb_reset(&con);
		assert_int_equal(lava_log_parse(odd, sizeof(odd) - 1, &con, &je, err, sizeof(err)), 0);
		assert_string_equal(je.type, "Bug X-Forged: 1");
		assert_string_equal(je.msg, "");
		assert_int_equal(lava_job_labs_fault(&(struct lava_job){
					 .health = LAVA_HEALTH_INCOMPLETE }, je.type), 0);
		assert_int_equal(lava_log_parse(nul, sizeof(nul) - 1, &con, &je, err, sizeof(err)), 0);
		assert_string_equal(je.type, "");
		assert_string_equal(je.msg, "");
		memset(big, 'T', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		sb_addf(&log, "- {\"lvl\": \"results\", \"msg\": {\"case\": \"job\", \"definition\": "
			"\"lava\", \"error_type\": \"%s\"}}\n", big);
		assert_int_equal(lava_log_parse(log.buf, log.len, &con, &je, err, sizeof(err)), 0);
		assert_int_equal(strlen(je.type), LAVA_ERROR_TYPE_MAX - 1);
		assert_string_equal(je.type + LAVA_ERROR_TYPE_MAX - 5, "T...");
		sb_release(&log);
	}
	sb_release(&con);
}

/* A results document kbench keeps (tests/fixtures/results/rt-smoke.json)
 * whose only iteration we reshape. */
static json_object *results_fixture(void)
{
	struct strbuf sb = STRBUF_INIT;
	json_object *doc;
	assert_int_equal(read_file(KB_SRCDIR "/tests/fixtures/results/rt-smoke.json", &sb, 1 << 24),
			 0);
	doc = results_parse(sb.buf, sb.len, "rt-smoke.json");
	assert_non_null(doc);
	sb_release(&sb);
	return doc;
}

/* The iteration's "lava" object of a job that failed before the agent
 * connected: its job and LAVA's error, as lava.c keeps them. */
static json_object *failed_job_facts(long long id)
{
	struct strbuf con = STRBUF_INIT;
	struct lava_job_error je;
	json_object *l = json_object_new_object();
	char err[256], url[96];
	size_t len;
	char *buf = fixture("log-infra-guestfs.yaml", &len, NULL);
	assert_int_equal(lava_log_parse(buf, len, &con, &je, err, sizeof(err)), 0);
	free(buf);
	sb_release(&con);
	snprintf(url, sizeof(url), "http://127.0.0.1:18791/scheduler/job/%lld", id);
	json_object_object_add(l, "lab", json_object_new_string("lab"));
	json_object_object_add(l, "job_id", json_object_new_int64(id));
	json_object_object_add(l, "job_url", json_object_new_string(url));
	json_object_object_add(l, "device", json_object_new_string("qemu-02"));
	json_object_object_add(l, "device_type", json_object_new_string("qemu"));
	lava_job_error_json(&je, l);
	return l;
}

/* results.json keeps LAVA's error under the iteration's "lava" object, and
 * kbench validate checks it: strings of printable ASCII, bounded. */
static void test_results_job_error(void **state)
{
	json_object *doc = results_fixture(), *it, *l;
	char err[256] = "", big[LAVA_ERROR_MSG_MAX + 1];
	(void)state;
	it = json_object_array_get_idx(jget(doc, "iterations"), 0);
	json_object_object_add(it, "lava", l = failed_job_facts(18791001));
	assert_int_equal(results_validate(doc, err, sizeof(err)), 0);
	json_object_object_add(l, "error_msg", json_object_new_string("a\nb"));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "iteration 1: lava 'error_msg' should be a string of printable ASCII"));
	memset(big, 'm', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	json_object_object_add(l, "error_msg", json_object_new_string(big));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	big[LAVA_ERROR_MSG_MAX - 1] = '\0';
	json_object_object_add(l, "error_msg", json_object_new_string(big));
	assert_int_equal(results_validate(doc, err, sizeof(err)), 0);
	json_object_object_add(l, "error_type", json_object_new_int(3));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "lava 'error_type'"));
	json_object_object_add(l, "error_type", json_object_new_string("Infra\xc3\xa9"));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	json_object_put(doc);
}

/* A failed boot tried again (any backend; lava: a new job): boot_retries
 * keeps that boot's error, console and its own backend facts (the failed
 * job and LAVA's error), the retry's facts are the iteration's, kbench
 * validate checks the entries, and the run's summary says how many boots
 * were retried. */
static void test_boot_retries(void **state)
{
	json_object *doc = results_fixture(), *its, *it, *a, *br, *it2;
	char err[256] = "", *out = NULL;
	size_t outlen = 0;
	FILE *f;
	(void)state;
	its = jget(doc, "iterations");
	it = json_object_array_get_idx(its, 0);
	/* boot 1 failed: the iteration as run.c leaves it then */
	json_object_object_add(it, "status", json_object_new_string("failed"));
	json_object_object_add(it, "error", json_object_new_string(
		"boot failed: the lab failed: LAVA job 18791001 on qemu-02 ended Incomplete before "
		"kbench's agent connected; LAVA says: Infrastructure: Unable to start libguestfs "
		"(http://127.0.0.1:18791/scheduler/job/18791001)"));
	json_object_object_add(it, "console_tail", json_object_new_string("tail"));
	json_object_object_add(it, "lava", failed_job_facts(18791001));
	a = results_boot_retry(it, 1, "console/iter-1.boot-1.log", NULL, "lava");
	assert_int_equal(json_object_get_int(jget(a, "attempt")), 1);
	assert_non_null(strstr(jstr(a, "error"), "LAVA says: Infrastructure: Unable to start libguestfs"));
	assert_string_equal(jstr(a, "console"), "console/iter-1.boot-1.log");
	assert_int_equal(json_object_get_int64(jget(jget(a, "lava"), "job_id")), 18791001);
	assert_string_equal(jstr(jget(a, "lava"), "error_type"), "Infrastructure");
	assert_null(jget(it, "lava"));
	assert_null(jget(it, "error"));
	assert_null(jget(it, "status"));
	assert_null(jget(it, "console_tail"));
	/* boot 2, a new job, ran the iteration */
	json_object_object_add(it, "lava", failed_job_facts(18791002));
	json_object_object_del(jget(it, "lava"), "error_type");
	json_object_object_del(jget(it, "lava"), "error_msg");
	json_object_object_add(it, "status", json_object_new_string("ok"));
	assert_int_equal(results_validate(doc, err, sizeof(err)), 0);
	f = open_memstream(&out, &outlen);
	print_summary(doc, f);
	fclose(f);
	assert_non_null(strstr(out, "iterations: 1 ok, 0 failed; 1 boot retried (1 failed boot tried "
				    "again, in iteration 1: boot_retries in results.json)"));
	free(out);
	/* a backend without facts (qemu): no key moved; two iterations */
	it2 = NULL;
	assert_int_equal(json_object_deep_copy(it, &it2, NULL), 0);
	json_object_object_add(it2, "index", json_object_new_int(2));
	json_object_object_del(it2, "boot_retries");
	json_object_object_add(it2, "error", json_object_new_string("boot failed: no hello"));
	a = results_boot_retry(it2, 1, "console/iter-2.boot-1.log", NULL, NULL);
	assert_null(jget(a, "lava"));
	assert_non_null(jget(it2, "lava"));
	json_object_object_add(it2, "status", json_object_new_string("ok"));
	json_object_array_add(its, it2);
	assert_int_equal(results_validate(doc, err, sizeof(err)), 0);
	f = open_memstream(&out, &outlen);
	print_summary(doc, f);
	fclose(f);
	assert_non_null(strstr(out, "iterations: 2 ok, 0 failed; 2 boots retried (2 failed boots tried "
				    "again, in iterations 1, 2: boot_retries in results.json)"));
	free(out);
	/* what kbench validate refuses */
	br = jget(it2, "boot_retries");
	a = json_object_array_get_idx(br, 0);
	json_object_object_add(a, "attempt", json_object_new_int(0));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "iteration 2 boot_retries 1: 'attempt' should be 1 or more"));
	json_object_object_add(a, "attempt", json_object_new_int(1));
	json_object_object_add(a, "kernel_trouble", json_object_new_string("panic"));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	json_object_object_add(a, "kernel_trouble", NULL);
	json_object_object_add(a, "lava", failed_job_facts(18791003));
	json_object_object_add(jget(a, "lava"), "error_type", json_object_new_string("In\tfra"));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "iteration 2 boot_retries 1: lava 'error_type'"));
	json_object_object_del(a, "lava");
	json_object_object_del(a, "error");
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	json_object_object_add(it2, "boot_retries", json_object_new_string("1"));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'boot_retries' should be a list"));
	json_object_put(doc);
}

/* A console that is not NUL-terminated and ends where memory does (the
 * fuzz target passes the raw input; a fuzzer found sscanf reading a data
 * line's number past the end): lava_block_extract reads LEN bytes only.
 * The text is put at the end of a page followed by an inaccessible one,
 * so a read past it crashes in every build. */
static void test_block_unterminated(void **state)
{
	static const char *const texts[] = {
		"KBENCH-BEGIN v1 3 ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n"
		"KBENCH-DATA 0",
		"KBENCH-BEGIN v1 3 ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n"
		"KBENCH-DATA 0 YWJj\nKBENCH-END v1",
		"KBENCH-DATA 12345",
	};
	long pg = sysconf(_SC_PAGESIZE);
	char *mem = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	struct strbuf out = STRBUF_INIT;
	char err[256];
	(void)state;
	assert_true(mem != MAP_FAILED);
	assert_int_equal(mprotect(mem + pg, (size_t)pg, PROT_NONE), 0);
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		size_t n = strlen(texts[i]);
		char *at = mem + pg - n;
		memcpy(at, texts[i], n);
		sb_reset(&out);
		assert_true(lava_block_extract(at, n, &out, err, sizeof(err)) >= -1);
	}
	/* the whole block, unterminated, still verified */
	{
		size_t n = strlen(texts[1]);
		memcpy(mem + pg - n, texts[1], n);
		assert_int_equal(lava_block_extract(mem + pg - n, n, &out, err, sizeof(err)), 1);
		assert_int_equal(out.len, 3);
		assert_memory_equal(out.buf, "abc", 3);
	}
	munmap(mem, (size_t)pg * 2);
	sb_release(&out);
}

/* The block survives kernel lines in between; any damage is refused. */
static void test_block(void **state)
{
	struct strbuf blk = STRBUF_INIT, con = STRBUF_INIT, out = STRBUF_INIT;
	char payload[1000], err[256];
	const char *p, *q;
	(void)state;
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (char)(i * 7 + 3);
	lava_block_write(payload, sizeof(payload), &blk);
	/* a kernel message after the second line */
	p = strchr(strchr(blk.buf, '\n') + 1, '\n') + 1;
	sb_addf(&con, "noise\n%.*s[   12.5] rcu: INFO: stall\n%s", (int)(p - blk.buf), blk.buf, p);
	assert_int_equal(lava_block_extract(con.buf, con.len, &out, err, sizeof(err)), 1);
	assert_int_equal(out.len, sizeof(payload));
	assert_memory_equal(out.buf, payload, sizeof(payload));
	/* one character changed */
	q = strstr(con.buf, "KBENCH-DATA 3 ");
	assert_non_null(q);
	con.buf[q - con.buf + 20] ^= 1;
	assert_int_equal(lava_block_extract(con.buf, con.len, &out, err, sizeof(err)), -1);
	/* a line lost */
	sb_reset(&con);
	q = strstr(blk.buf, "KBENCH-DATA 2 ");
	sb_add(&con, blk.buf, (size_t)(q - blk.buf));
	sb_addf(&con, "%s", strchr(q, '\n') + 1);
	assert_int_equal(lava_block_extract(con.buf, con.len, &out, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "out of order"));
	/* cut short */
	assert_int_equal(lava_block_extract(blk.buf, blk.len - 15, &out, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cut short"));
	/* an empty payload */
	sb_reset(&blk);
	lava_block_write("", 0, &blk);
	assert_int_equal(lava_block_extract(blk.buf, blk.len, &out, err, sizeof(err)), 1);
	assert_int_equal(out.len, 0);
	sb_release(&blk);
	sb_release(&con);
	sb_release(&out);
}

static void test_api_answers(void **state)
{
	static const struct {
		const char *file;
		enum lava_state state;
		enum lava_health health;
		const char *device;
		int labs_fault; /* an infrastructure error or a cancellation */
	} jobs[] = {
		{ "job-complete.json", LAVA_FINISHED, LAVA_HEALTH_COMPLETE, "qemu-01", 0 },
		/* its failure comment is null: its log says Infrastructure (below) */
		{ "job-incomplete-infra.json", LAVA_FINISHED, LAVA_HEALTH_INCOMPLETE, "qemu-02", 0 },
		{ "job-canceled.json", LAVA_FINISHED, LAVA_HEALTH_CANCELED, "qemu-02", 1 },
		{ "job-running.txt", LAVA_SUBMITTED, LAVA_HEALTH_UNKNOWN, "", 0 },
	};
	struct lava_job j;
	char err[256], msg[128];
	long long id = 0;
	size_t len;
	int status;
	char *buf;
	(void)state;
	for (size_t i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
		buf = fixture(jobs[i].file, &len, &status);
		assert_int_equal(lava_job_parse(buf, len, &j, err, sizeof(err)), 0);
		assert_int_equal(j.state, jobs[i].state);
		assert_int_equal(j.health, jobs[i].health);
		assert_string_equal(j.device, jobs[i].device);
		assert_string_equal(j.device_type, "qemu");
		assert_int_equal(lava_job_labs_fault(&j, NULL), jobs[i].labs_fault);
		free(buf);
	}
	/* the job's own error, from its log (the dispatcher's results entry
	 * of definition lava): the infrastructure's fault */
	{
		struct strbuf con = STRBUF_INIT;
		struct lava_job_error je;
		buf = fixture("job-incomplete-infra.json", &len, NULL);
		assert_int_equal(lava_job_parse(buf, len, &j, err, sizeof(err)), 0);
		free(buf);
		buf = fixture("log-infra-guestfs.yaml", &len, NULL);
		assert_int_equal(lava_log_parse(buf, len, &con, &je, err, sizeof(err)), 0);
		free(buf);
		assert_string_equal(je.type, "Infrastructure");
		assert_int_equal(lava_job_labs_fault(&j, je.type), 1);
		sb_reset(&con);
		buf = fixture("log-complete.yaml", &len, NULL);
		assert_int_equal(lava_log_parse(buf, len, &con, &je, err, sizeof(err)), 0);
		free(buf);
		assert_string_equal(je.type, "");
		assert_string_equal(je.msg, "");
		/* a device's own signal cannot claim it: only definition lava counts */
		{
			static const char forged[] = "- {\"dt\": \"x\", \"lvl\": \"results\", \"msg\": "
				"{\"case\": \"job\", \"definition\": \"0_kbench\", \"error_type\": "
				"\"Infrastructure\", \"result\": \"fail\"}}\n";
			assert_int_equal(lava_log_parse(forged, sizeof(forged) - 1, &con, &je, err,
							sizeof(err)), 0);
			assert_string_equal(je.type, "");
		}
		sb_release(&con);
	}
	buf = fixture("submit-ok.json", &len, NULL);
	assert_int_equal(lava_submit_parse(buf, len, &id, err, sizeof(err)), 0);
	assert_int_equal(id, 1);
	free(buf);
	buf = fixture("submit-badtoken.txt", &len, &status);
	assert_int_equal(status, 403);
	assert_int_equal(lava_submit_parse(buf, len, &id, err, sizeof(err)), -1);
	lava_error_message(buf, len, msg, sizeof(msg));
	assert_string_equal(msg, "Invalid token.");
	free(buf);
	buf = fixture("submit-invalid.txt", &len, &status);
	assert_int_equal(status, 400);
	lava_error_message(buf, len, msg, sizeof(msg));
	assert_non_null(strstr(msg, "required key not provided @ data['actions']"));
	free(buf);
	buf = fixture("job-missing.txt", &len, &status);
	assert_int_equal(status, 404);
	assert_int_equal(lava_job_parse(buf, len, &j, err, sizeof(err)), -1);
	free(buf);
	assert_int_equal(lava_job_parse("{\"id\":1}x", 9, &j, err, sizeof(err)), -1);
	assert_int_equal(lava_job_parse("[]", 2, &j, err, sizeof(err)), -1);
	{
		struct lava_device d[4];
		int n;
		buf = fixture("devices.json", &len, NULL);
		assert_int_equal(lava_devices_parse(buf, len, d, 4, &n, err, sizeof(err)), 0);
		assert_int_equal(n, 2);
		assert_string_equal(d[1].name, "qemu-01");
		assert_string_equal(d[1].state, "Running");
		assert_string_equal(d[1].health, "Good");
		assert_int_equal(d[1].usable, 1);
		assert_int_equal(lava_devices_parse(buf, len, d, 1, &n, err, sizeof(err)), 0);
		assert_int_equal(n, 1);
		free(buf);
		buf = fixture("submit-ok.json", &len, NULL);
		assert_int_equal(lava_devices_parse(buf, len, d, 4, &n, err, sizeof(err)), -1);
		free(buf);
		/* tagged devices (the tests' lab): LAVA lists tag ids, the tags
		 * answer names them; each device's own tag pins jobs to it */
		assert_null(lava_device_own_tag(d, 1, 0));
		buf = fixture("devices-tags.json", &len, NULL);
		assert_int_equal(lava_devices_parse(buf, len, d, 4, &n, err, sizeof(err)), 0);
		free(buf);
		assert_int_equal(n, 2);
		assert_int_equal(lava_tags_pending(d, n), 1);
		assert_string_equal(d[0].tags[0], "#1");
		buf = fixture("tags.json", &len, NULL);
		assert_int_equal(lava_tags_resolve(buf, len, d, n, err, sizeof(err)), 0);
		free(buf);
		assert_int_equal(lava_tags_pending(d, n), 0);
		assert_string_equal(d[0].name, "qemu-01");
		assert_int_equal(d[0].ntags, 1);
		assert_string_equal(lava_device_own_tag(d, n, 0), "qemu-01");
		assert_string_equal(lava_device_own_tag(d, n, 1), "qemu-02");
		/* pinnable: usable, the lab's tags, a tag of its own; one
		 * answer for campaigns and --lab-device */
		{
			struct strvec lt = STRVEC_INIT;
			char why[256];
			assert_string_equal(lava_device_pin_tag(d, n, 0, &lt, why, sizeof(why)),
					    "qemu-01");
			strvec_push(&lt, "x86");
			assert_null(lava_device_pin_tag(d, n, 0, &lt, why, sizeof(why)));
			assert_non_null(strstr(why, "lacks the lab's tag 'x86'"));
			strvec_clear(&lt);
			strvec_push(&lt, "qemu-02");
			assert_string_equal(lava_device_pin_tag(d, n, 1, &lt, why, sizeof(why)),
					    "qemu-02");
			strvec_clear(&lt);
			d[1].usable = 0;
			assert_null(lava_device_pin_tag(d, n, 1, NULL, why, sizeof(why)));
			assert_non_null(strstr(why, "not usable"));
			d[1].usable = 1;
		}
		/* a tag both carry pins neither */
		snprintf(d[1].tags[0], sizeof(d[1].tags[0]), "qemu-01");
		assert_null(lava_device_own_tag(d, n, 0));
		assert_null(lava_device_own_tag(d, n, 1));
		{
			char why[256];
			assert_null(lava_device_pin_tag(d, n, 0, NULL, why, sizeof(why)));
			assert_non_null(strstr(why, "no tag of its own"));
		}
		assert_int_equal(lava_tags_resolve("{}", 2, d, n, err, sizeof(err)), -1);
		/* a job's place in the queue: the count of the jobs ahead */
		{
			long ahead = -1;
			buf = fixture("jobs-ahead.json", &len, NULL);
			assert_int_equal(lava_count_parse(buf, len, &ahead, err, sizeof(err)), 0);
			free(buf);
			assert_int_equal(ahead, 1);
			assert_int_equal(lava_count_parse("{\"count\":-1}", 12, &ahead, err,
							  sizeof(err)), -1);
			assert_int_equal(lava_count_parse("[]", 2, &ahead, err, sizeof(err)), -1);
		}
	}
	assert_string_equal(lava_state_name(LAVA_CANCELING), "Canceling");
	assert_string_equal(lava_health_name(LAVA_HEALTH_INCOMPLETE), "Incomplete");
}

/* The node at PATH ("actions/-1/test/timeout/seconds": keys, and list
 * indexes from the end when negative) of document D, or NULL. */
static yaml_node_t *node_at(yaml_document_t *d, const char *path)
{
	yaml_node_t *n = yaml_document_get_root_node(d);
	char buf[256], *save = NULL;
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, "/", &save); n && k; k = strtok_r(NULL, "/", &save)) {
		yaml_node_t *next = NULL;
		if (n->type == YAML_SEQUENCE_NODE) {
			long i = atol(k), len = n->data.sequence.items.top - n->data.sequence.items.start;
			if (i < 0)
				i += len;
			if (i >= 0 && i < len)
				next = yaml_document_get_node(d, n->data.sequence.items.start[i]);
		} else if (n->type == YAML_MAPPING_NODE) {
			for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
			     p < n->data.mapping.pairs.top; p++) {
				yaml_node_t *key = yaml_document_get_node(d, p->key);
				if (key->type == YAML_SCALAR_NODE && !strcmp((char *)key->data.scalar.value, k))
					next = yaml_document_get_node(d, p->value);
			}
		}
		n = next;
	}
	return n;
}

static const char *scalar_at(yaml_document_t *d, const char *path)
{
	yaml_node_t *n = node_at(d, path);
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* The example lab's template made a job: every value set as a node (a
 * step full of YAML syntax stays one string), placeholders replaced. */
static void test_job_yaml(void **state)
{
	struct strbuf tmpl = STRBUF_INIT, out = STRBUF_INIT;
	struct strvec tags = STRVEC_INIT;
	struct lava_job_spec s;
	yaml_parser_t p;
	yaml_document_t d;
	char err[256];
	const char *evil = "echo 'x: y' # {a: [b]}\n- test: {}";
	(void)state;
	assert_true(read_file(KB_SRCDIR "/configs/labs/qemu-tcg.yaml", &tmpl, 1 << 20) >= 0);
	memset(&s, 0, sizeof(s));
	s.name = "kbench run-1 mainline-stock iteration 1";
	s.tags = &tags;
	strvec_push(&tags, "tcg");
	s.kernel_url = "file:///srv/a/kernel-0123abcd";
	s.initrd_url = "file:///srv/a/initrd-4567ef";
	s.job_timeout_s = 900;
	strvec_push(&s.steps, "/kbench/agent --batch /kbench/requests");
	strvec_push(&s.steps, evil);
	assert_int_equal(lava_job_yaml(tmpl.buf, tmpl.len, &s, &out, err, sizeof(err)), 0);
	assert_true(yaml_parser_initialize(&p));
	yaml_parser_set_input_string(&p, (unsigned char *)out.buf, out.len);
	assert_true(yaml_parser_load(&p, &d));
	assert_string_equal(scalar_at(&d, "job_name"), s.name);
	assert_string_equal(scalar_at(&d, "device_type"), "qemu");
	assert_string_equal(scalar_at(&d, "tags/0"), "tcg");
	assert_string_equal(scalar_at(&d, "timeouts/job/seconds"), "900");
	assert_string_equal(scalar_at(&d, "timeouts/connection/minutes"), "2");
	assert_string_equal(scalar_at(&d, "actions/0/deploy/images/kernel/url"), s.kernel_url);
	assert_string_equal(scalar_at(&d, "actions/0/deploy/images/ramdisk/url"), s.initrd_url);
	assert_string_equal(scalar_at(&d, "actions/1/boot/method"), "qemu");
	assert_string_equal(scalar_at(&d, "actions/-1/test/definitions/0/from"), "inline");
	assert_string_equal(scalar_at(&d, "actions/-1/test/timeout/seconds"), "900");
	assert_string_equal(scalar_at(&d, "actions/-1/test/definitions/0/repository/run/steps/1"),
			    evil);
	assert_null(node_at(&d, "actions/3"));
	assert_null(strstr(out.buf, "@kernel@"));
	/* no command line: the template's own, @cmdline@ gone */
	assert_string_equal(scalar_at(&d, "actions/0/deploy/images/kernel/image_arg"),
			    "-kernel {kernel} -append \"console=ttyS0 rdinit=/lava-init \"");
	yaml_document_delete(&d);
	yaml_parser_delete(&p);
	/* the variant's command line (the lock knobs) inside the value */
	s.cmdline = "rtmutex.spin_max_loops=100 rtmutex.lateral_steal=0";
	sb_reset(&out);
	assert_int_equal(lava_job_yaml(tmpl.buf, tmpl.len, &s, &out, err, sizeof(err)), 0);
	assert_true(yaml_parser_initialize(&p));
	yaml_parser_set_input_string(&p, (unsigned char *)out.buf, out.len);
	assert_true(yaml_parser_load(&p, &d));
	assert_string_equal(scalar_at(&d, "actions/0/deploy/images/kernel/image_arg"),
			    "-kernel {kernel} -append \"console=ttyS0 rdinit=/lava-init "
			    "rtmutex.spin_max_loops=100 rtmutex.lateral_steal=0\"");
	yaml_document_delete(&d);
	yaml_parser_delete(&p);
	/* one LAVA's str.format or its split would misread: refused */
	s.cmdline = "a={kernel}";
	assert_int_equal(lava_job_yaml(tmpl.buf, tmpl.len, &s, &out, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "kernel command line"));
	s.cmdline = "a=\" -hda /etc/shadow";
	assert_int_equal(lava_job_yaml(tmpl.buf, tmpl.len, &s, &out, err, sizeof(err)), -1);
	assert_true(lava_cmdline_ok("quiet x.y=1,2 a/b:c+d-e_f"));
	assert_false(lava_cmdline_ok("a;b"));
	assert_false(lava_cmdline_ok("a\nb"));
	/* a template without @cmdline@ cannot carry the knobs: refused, not
	 * silently measured without them */
	s.cmdline = "rtmutex.lateral_steal=0";
	sb_reset(&out);
	{
		const char *bare = "device_type: qemu\nactions: [{boot: {method: qemu}}]\n";
		assert_int_equal(lava_job_yaml(bare, strlen(bare), &s, &out, err, sizeof(err)), -1);
	}
	assert_non_null(strstr(err, "no @cmdline@"));
	s.cmdline = NULL;
	/* a placeholder kbench has nothing for */
	s.initrd_url = "";
	sb_reset(&out);
	assert_int_equal(lava_job_yaml(tmpl.buf, tmpl.len, &s, &out, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "@initrd@"));
	/* not a job */
	assert_int_equal(lava_job_yaml("- a\n", 4, &s, &out, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'actions'"));
	assert_int_equal(lava_job_yaml("a: [", 4, &s, &out, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not YAML"));
	strvec_clear(&tags);
	strvec_clear(&s.steps);
	sb_release(&tmpl);
	sb_release(&out);
}

/* A one-request HTTP server on 127.0.0.1 (a child process): it keeps the
 * request it got in REQFILE and answers ANSWER. Its port in *PORT. */
static pid_t http_once(const char *answer, const char *reqfile, int *port)
{
	struct sockaddr_in a;
	socklen_t al = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM, 0), c;
	pid_t pid;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(s, 1), 0);
	assert_int_equal(getsockname(s, (struct sockaddr *)&a, &al), 0);
	*port = ntohs(a.sin_port);
	if ((pid = fork()) != 0) {
		close(s);
		return pid;
	}
	if ((c = accept(s, NULL, NULL)) >= 0) {
		struct strbuf req = STRBUF_INIT;
		char buf[4096], *hend;
		ssize_t n;
		size_t want = 0;
		while ((n = read(c, buf, sizeof(buf))) > 0) {
			sb_add(&req, buf, (size_t)n);
			if ((hend = strstr(req.buf, "\r\n\r\n")) != NULL) {
				char *cl = strcasestr(req.buf, "Content-Length: ");
				want = (size_t)(hend + 4 - req.buf) + (cl && cl < hend ? (size_t)atol(cl + 16) : 0);
				if (req.len >= want)
					break;
			}
		}
		write_file_atomic(reqfile, req.buf, req.len);
		if (write(c, answer, strlen(answer)) < 0)
			_exit(1);
		close(c);
	}
	_exit(0);
}

static void http_done(pid_t pid)
{
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
}

/* The REST client against a server of the test's own: the token only in
 * the Authorization header, never in an error; no redirect followed; a
 * dead server named. */
/* The lava backend's test steps: the network of QEMU's user net, then the
 * agent back to kbench over TCP. */
/* The metrics of a real run (tests/fixtures/results/rt-smoke.json) as
 * LAVA test case signals, a failed workload as one failed case, names and
 * units that LAVA could misread made safe. */
static void test_test_cases(void **state)
{
	json_object *d = json_object_from_file(KB_SRCDIR "/tests/fixtures/results/rt-smoke.json");
	json_object *w, *bad;
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	assert_non_null(d);
	w = json_object_object_get(json_object_array_get_idx(json_object_object_get(d, "iterations"), 0),
				   "workloads");
	bad = json_object_new_object();
	json_object_object_add(bad, "label", json_object_new_string("dbench nfs>x"));
	json_object_object_add(bad, "status", json_object_new_string("failed"));
	json_object_array_add(w, bad);
	/* 1 + 2 + 9 + 9 + 3 metrics, one failure */
	assert_int_equal(lava_test_cases(w, &sb), 25);
	assert_non_null(strstr(sb.buf, "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=hackbench.time RESULT=pass "
				       "UNITS=s MEASUREMENT=2.938000>\n"));
	assert_non_null(strstr(sb.buf, "\n<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=dbench.throughput "
				       "RESULT=pass UNITS=MB/s MEASUREMENT=26.522300>\n"));
	assert_non_null(strstr(sb.buf, "TEST_CASE_ID=cyclictest.load.lat_max RESULT=pass UNITS=us "
				       "MEASUREMENT=714533.000000>"));
	assert_non_null(strstr(sb.buf, "\n<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=dbench_nfs_x RESULT=fail>\n"));
	json_object_put(d);
	sb_release(&sb);
}

static void test_agent_steps(void **state)
{
	struct strvec v = STRVEC_INIT;
	(void)state;
	assert_int_equal(lava_agent_steps("10.0.2.2", 40123, 0, 0, "", &v), 0);
	assert_int_equal(v.n, 2);
	assert_string_equal(v.v[0], "ifconfig eth0 10.0.2.15 netmask 255.255.255.0 up && "
				    "route add default gw 10.0.2.2");
	assert_string_equal(v.v[1], "/init --transport=tcp:10.0.2.2:40123 --journal; "
				    "echo kbench-agent-exit=$?");
	assert_int_equal(lava_agent_steps("10.0.2.2; rm -rf /", 1, 0, 0, "", &v), -1);
	assert_int_equal(lava_agent_steps("10.0.2.2", 0, 0, 0, "", &v), -1);
	assert_int_equal(lava_agent_steps("10.0.2.2", 65536, 0, 0, "", &v), -1);
	assert_int_equal(lava_agent_steps("10.0.2.2", 1, 0, 0, "ab; reboot", &v), -1);
	assert_int_equal(v.n, 2);
	/* the agent waits 600 s for a killed kbench (--resume), says its session */
	assert_int_equal(lava_agent_steps("10.0.2.2", 40123, 600, 0, "0a1b2c", &v), 0);
	assert_string_equal(v.v[3], "/init --transport=tcp:10.0.2.2:40123 --journal --reconnect=600 "
				    "--session=0a1b2c; echo kbench-agent-exit=$?");
	/* device_network = up, agent_host: no eth0 set-up, the lab's address */
	strvec_clear(&v);
	assert_int_equal(lava_agent_steps("192.0.2.10", 40123, 0, 1, "ff", &v), 0);
	assert_int_equal(v.n, 1);
	assert_string_equal(v.v[0], "/init --transport=tcp:192.0.2.10:40123 --journal --session=ff; "
				    "echo kbench-agent-exit=$?");
	strvec_clear(&v);
}

static void test_http(void **state)
{
	static const char ok_devices[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
		"Connection: close\r\n\r\n{\"count\":1,\"results\":[{\"hostname\":\"d1\","
		"\"device_type\":\"qemu\",\"state\":\"Idle\",\"health\":\"Good\"}]}";
	static const char denied[] = "HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n"
		"{\"detail\":\"Invalid token.\"}";
	static const char moved[] = "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:1/x\r\n"
		"Connection: close\r\nContent-Length: 0\r\n\r\n";
	static const char created[] = "HTTP/1.1 201 Created\r\nConnection: close\r\n\r\n"
		"{\"message\":\"ok\",\"job_ids\":[7]}";
	char dir[] = "/tmp/kbench-test-lava.XXXXXX", req[4200], err[512];
	struct strbuf got = STRBUF_INIT;
	struct lava_device d[2];
	struct lava_conn c;
	struct lava_job j;
	struct lab l;
	long long id = 0;
	int port, n;
	pid_t pid;
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(req, sizeof(req), "%s/request", dir);
	memset(&l, 0, sizeof(l));
	snprintf(l.path, sizeof(l.path), "%s/lab.ini", dir);
	snprintf(l.token_file, sizeof(l.token_file), "%s/token", dir);
	assert_int_equal(write_file_atomic(l.token_file, "tok123SECRET\n", 13), 0);
	chmod(l.token_file, 0600);

	pid = http_once(ok_devices, req, &port);
	snprintf(l.url, sizeof(l.url), "http://127.0.0.1:%d/", port);
	assert_int_equal(lava_connect(&c, &l), 0);
	assert_int_equal(lava_devices(&c, "qemu", d, 2, &n, err, sizeof(err)), 0);
	http_done(pid);
	assert_int_equal(n, 1);
	assert_string_equal(d[0].name, "d1");
	assert_int_equal(read_file(req, &got, 1 << 16), 0);
	assert_non_null(strstr(got.buf, "GET /api/v0.2/devices/?limit=500&device_type=qemu HTTP/1.1\r\n"));
	assert_non_null(strstr(got.buf, "\r\nAuthorization: Token tok123SECRET\r\n"));

	pid = http_once(denied, req, &port);
	snprintf(l.url, sizeof(l.url), "http://127.0.0.1:%d/", port);
	assert_int_equal(lava_job_get(&c, 5, &j, err, sizeof(err)), -1);
	http_done(pid);
	assert_non_null(strstr(err, "refused the token in"));
	assert_non_null(strstr(err, "HTTP 403: Invalid token."));
	assert_null(strstr(err, "tok123"));

	pid = http_once(moved, req, &port);
	snprintf(l.url, sizeof(l.url), "http://127.0.0.1:%d/", port);
	assert_int_equal(lava_job_get(&c, 5, &j, err, sizeof(err)), -1);
	http_done(pid);
	assert_non_null(strstr(err, "job 5: HTTP 302"));

	pid = http_once(created, req, &port);
	snprintf(l.url, sizeof(l.url), "http://127.0.0.1:%d/", port);
	assert_int_equal(lava_submit(&c, "device_type: qemu\njob_name: 'a \"b\"'\n", &id, err,
				     sizeof(err)), 0);
	http_done(pid);
	assert_int_equal(id, 7);
	sb_reset(&got);
	assert_int_equal(read_file(req, &got, 1 << 16), 0);
	assert_non_null(strstr(got.buf, "POST /api/v0.2/jobs/ HTTP/1.1\r\n"));
	assert_non_null(strstr(got.buf, "\r\n\r\n{\"definition\":\"device_type: qemu\\njob_name: 'a \\\"b\\\"'\\n\"}"));

	/* nothing listens there any more */
	assert_int_equal(lava_job_get(&c, 5, &j, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot reach LAVA at http://127.0.0.1:"));
	lava_disconnect(&c);
	assert_string_equal(c.token, "");
	unlink(req);
	unlink(l.token_file);
	rmdir(dir);
	sb_release(&got);
}

/* Artifacts by content key: published once, named by their bytes. */
static void test_publish(void **state)
{
	char dir[] = "/tmp/kbench-test-lava.XXXXXX", src[4200], url[600], url2[600], dst[4300];
	struct lab l;
	int copied = -1;
	(void)state;
	assert_non_null(mkdtemp(dir));
	memset(&l, 0, sizeof(l));
	snprintf(l.name, sizeof(l.name), "t");
	snprintf(l.artifacts, sizeof(l.artifacts), "%s/art", dir);
	snprintf(l.artifacts_url, sizeof(l.artifacts_url), "file://%s/art/", dir);
	snprintf(src, sizeof(src), "%s/bzImage", dir);
	assert_int_equal(write_file_atomic(src, "abc", 3), 0);
	assert_int_equal(lava_publish(&l, src, "kernel", url, sizeof(url), &copied), 0);
	assert_int_equal(copied, 1);
	/* sha256("abc") */
	snprintf(dst, sizeof(dst), "file://%s/art/kernel-ba7816bf8f01cfea414140de", dir);
	assert_string_equal(url, dst);
	assert_int_equal(lava_publish(&l, src, "kernel", url2, sizeof(url2), &copied), 0);
	assert_int_equal(copied, 0);
	assert_string_equal(url, url2);
	/* other bytes, another name */
	assert_int_equal(write_file_atomic(src, "abd", 3), 0);
	assert_int_equal(lava_publish(&l, src, "kernel", url2, sizeof(url2), &copied), 0);
	assert_int_equal(copied, 1);
	assert_string_not_equal(url, url2);
	snprintf(dst, sizeof(dst), "%s/art/kernel-ba7816bf8f01cfea414140de", dir);
	assert_int_equal(access(dst, R_OK), 0);
	assert_int_equal(lava_publish(&l, "/nonexistent", "kernel", url2, sizeof(url2), &copied), -1);
	rm_rf(dir);
}

/* The lava initramfs: kbench's bytes first, then an archive cpio reads
 * back as /lava-init with the script, executable. */
static void test_initrd(void **state)
{
	char dir[] = "/tmp/kbench-test-lava.XXXXXX", base[4200], out[4200], tail[4200];
	struct strbuf got = STRBUF_INIT, a = STRBUF_INIT;
	const char *list[] = { "cpio", "-i", "--quiet", "-t", "-v", NULL };
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(base, sizeof(base), "%s/base.cpio", dir);
	snprintf(out, sizeof(out), "%s/lava.cpio", dir);
	snprintf(tail, sizeof(tail), "%s/tail.cpio", dir);
	assert_int_equal(write_file_atomic(base, "kbench initramfs bytes", 22), 0);
	assert_int_equal(lava_initrd(base, out), 0);
	assert_int_equal(read_file(out, &got, 1 << 20), 0);
	assert_int_equal((got.len - 22) % 512, 0);
	assert_memory_equal(got.buf, "kbench initramfs bytes", 22);
	assert_int_equal(write_file_atomic(tail, got.buf + 22, got.len - 22), 0);
	/* cpio itself lists the archive: one executable file, lava-init */
	{
		struct child c = CHILD_INIT;
		struct strbuf listing = STRBUF_INIT;
		char lst[4300];
		snprintf(lst, sizeof(lst), "%s/list", dir);
		for (int i = 0; list[i]; i++)
			strvec_push(&c.argv, list[i]);
		c.stdin_path = tail;
		c.stdout_path = lst;
		c.timeout_s = 30;
		assert_int_equal(child_run(&c), 0);
		child_release(&c);
		assert_int_equal(read_file(lst, &listing, 1 << 16), 0);
		assert_non_null(strstr(listing.buf, "-rwxr-xr-x"));
		assert_non_null(strstr(listing.buf, " lava-init\n"));
		sb_release(&listing);
	}
	/* the script is valid shell */
	{
		const char *argv[] = { "sh", "-n", tail, NULL };
		snprintf(tail, sizeof(tail), "%s/lava-init", dir);
		assert_int_equal(write_file_atomic(tail, lava_init_script, strlen(lava_init_script)), 0);
		assert_int_equal(run_capture(argv, 30, &a), 0);
		sb_reset(&a);
	}
	lava_init_cpio(&a);
	assert_non_null(memmem(a.buf, a.len, lava_init_script, strlen(lava_init_script)));
	assert_non_null(strstr(lava_init_script, "exec setsid cttyhack sh -l\n"));
	assert_int_equal(lava_initrd(KB_SRCDIR "/nonexistent", out), -1);
	sb_release(&got);
	sb_release(&a);
	rm_rf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lab_file),    cmocka_unit_test(test_bad_lab_files),
		cmocka_unit_test(test_token_file),  cmocka_unit_test(test_log_complete),
		cmocka_unit_test(test_log_panic),   cmocka_unit_test(test_block),
		cmocka_unit_test(test_api_answers), cmocka_unit_test(test_job_yaml),
		cmocka_unit_test(test_http),        cmocka_unit_test(test_publish),
		cmocka_unit_test(test_initrd),      cmocka_unit_test(test_agent_steps),
		cmocka_unit_test(test_test_cases),  cmocka_unit_test(test_job_error),
		cmocka_unit_test(test_job_error_hostile), cmocka_unit_test(test_results_job_error),
		cmocka_unit_test(test_boot_retries), cmocka_unit_test(test_block_unterminated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
