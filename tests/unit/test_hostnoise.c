/* test_hostnoise.c - the host-noise guard (core/hostnoise.c): the /proc
 * parsers on texts captured on the development host (tests/fixtures/proc),
 * the figures between two samples, the own process tree's time, the
 * results.json checks and the comparison's busy-host warning. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/hostnoise.h"
#include "core/jsonutil.h"
#include "stats/compare.h"
#include "run/results.h"
#include "synth.h"

static char *fixture(const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	char path[KB_PATH_MAX];
	snprintf(path, sizeof(path), "%s/tests/fixtures/proc/%s", KB_SRCDIR, name);
	if (read_file(path, &sb, 1 << 20))
		fail_msg("cannot read %s", path);
	return sb.buf;
}

static void test_stat(void **state)
{
	unsigned long long busy, irq, total;
	char *t = fixture("stat");
	(void)state;
	assert_int_equal(hostnoise_parse_stat(t, &busy, &irq, &total), 0);
	/* cpu  1174070 383 309816 992135 17867 0 11687 0 0 0 */
	assert_int_equal(busy, 1174070ULL + 383 + 309816 + 11687);
	assert_int_equal(irq, 11687);
	assert_int_equal(total, busy + 992135 + 17867);
	assert_int_equal(hostnoise_parse_stat(strchr(t, '\n') + 1, &busy, &irq, &total), -1); /* cpu0 */
	assert_int_equal(hostnoise_parse_stat("cpu  1 2 3\n", &busy, &irq, &total), -1);
	assert_int_equal(hostnoise_parse_stat("cpu  1 2 3 4 5 6 x\n", &busy, &irq, &total), -1);
	assert_int_equal(hostnoise_parse_stat("", &busy, &irq, &total), -1);
	free(t);
}

static void test_pidstat(void **state)
{
	long pid, ppid;
	unsigned long long ticks;
	char *t = fixture("pid-stat");
	(void)state;
	assert_int_equal(hostnoise_parse_pidstat(t, &pid, &ppid, &ticks), 0);
	assert_int_equal(pid, 1);
	assert_int_equal(ppid, 0);
	assert_int_equal(ticks, 1362ULL + 3789 + 1150108 + 281450);
	free(t);
	/* a command named "x) (y z": the last ')' ends it */
	t = fixture("pid-stat-comm");
	assert_int_equal(hostnoise_parse_pidstat(t, &pid, &ppid, &ticks), 0);
	assert_int_equal(pid, 25886);
	assert_int_equal(ppid, 25885);
	assert_int_equal(ticks, 0);
	free(t);
	assert_int_equal(hostnoise_parse_pidstat("1 (x) S 0 0 0\n", &pid, &ppid, &ticks), -1);
	assert_int_equal(hostnoise_parse_pidstat("1 x S 0 0 0\n", &pid, &ppid, &ticks), -1);
	assert_int_equal(hostnoise_parse_pidstat("", &pid, &ppid, &ticks), -1);
}

/* A process's name: between the first '(' and the last ')', whatever it
 * holds; bytes that are not printable ASCII never reach results. */
static void test_comm(void **state)
{
	char comm[16];
	char *t = fixture("pid-stat");
	(void)state;
	assert_int_equal(hostnoise_parse_comm(t, comm, sizeof(comm)), 0);
	assert_string_equal(comm, "process_api");
	free(t);
	t = fixture("pid-stat-comm");
	assert_int_equal(hostnoise_parse_comm(t, comm, sizeof(comm)), 0);
	assert_string_equal(comm, "x) (y z");
	free(t);
	assert_int_equal(hostnoise_parse_comm("7 (\x1b[2Jevil\n) R 1", comm, sizeof(comm)), 0);
	assert_string_equal(comm, "?[2Jevil?");
	assert_int_equal(hostnoise_parse_comm("7 (a-very-long-process-name) R 1", comm, 8), 0);
	assert_string_equal(comm, "a-very-");
	assert_int_equal(hostnoise_parse_comm("7 x R 1", comm, sizeof(comm)), -1);
	assert_int_equal(hostnoise_parse_comm("7 )x( R 1", comm, sizeof(comm)), -1);
}

static void test_psi_loadavg(void **state)
{
	double avg10, load1;
	unsigned long long us;
	char *t = fixture("pressure-cpu");
	(void)state;
	assert_int_equal(hostnoise_parse_psi(t, &avg10, &us), 0);
	assert_true(fabs(avg10 - 95.56) < 1e-9);
	assert_int_equal(us, 3059480933ULL);
	/* the "full" line alone is not the "some" line */
	assert_int_equal(hostnoise_parse_psi(strchr(t, '\n') + 1, &avg10, &us), -1);
	assert_int_equal(hostnoise_parse_psi("some avg10=x\n", &avg10, &us), -1);
	assert_int_equal(hostnoise_parse_psi("nosome avg10=1.00 avg60=0 avg300=0 total=1\n", &avg10,
					     &us), -1);
	free(t);
	t = fixture("loadavg");
	assert_int_equal(hostnoise_parse_loadavg(t, &load1), 0);
	assert_true(fabs(load1 - 10.74) < 1e-9);
	assert_int_equal(hostnoise_parse_loadavg("-1 0 0", &load1), -1);
	assert_int_equal(hostnoise_parse_loadavg("", &load1), -1);
	free(t);
}

/* 10 s, 1000 ticks of capacity: 750 busy, 100 of them ours, 150 the
 * kernel's own (50 interrupts, 100 kernel threads). */
static void test_figures(void **state)
{
	struct host_sample a = { .t = 5, .busy = 100, .irq = 10, .total = 1000, .own = 50,
				 .kthreads = 400, .psi_us = 1000, .have_psi = 1, .load1 = 1, .ok = 1 };
	struct host_sample b = { .t = 15, .busy = 850, .irq = 60, .total = 2000, .own = 150,
				 .kthreads = 500, .psi_us = 1000 + 5000000, .have_psi = 1,
				 .load1 = 2.5, .ok = 1 };
	json_object *o = hostnoise_json(&a, &b, 10);
	(void)state;
	assert_non_null(o);
	assert_true(fabs(json_object_get_double(jget(o, "other_cpu_pct")) - 50) < 1e-9);
	assert_true(fabs(json_object_get_double(jget(o, "own_cpu_pct")) - 10) < 1e-9);
	assert_true(fabs(json_object_get_double(jget(o, "kernel_cpu_pct")) - 15) < 1e-9);
	assert_true(fabs(json_object_get_double(jget(o, "psi_cpu_some_pct")) - 50) < 1e-9);
	assert_true(fabs(json_object_get_double(jget(o, "load1")) - 2.5) < 1e-9);
	assert_true(json_object_get_boolean(jget(o, "busy")));
	json_object_put(o);
	o = hostnoise_json(&a, &b, 51); /* under the threshold: quiet */
	assert_false(json_object_get_boolean(jget(o, "busy")));
	json_object_put(o);
	b.have_psi = 0; /* no PSI on the host: no key */
	o = hostnoise_json(&a, &b, 10);
	assert_null(jget(o, "psi_cpu_some_pct"));
	json_object_put(o);
	b.ok = 0;
	assert_null(hostnoise_json(&a, &b, 10));
	b.ok = 1, b.total = a.total;
	assert_null(hostnoise_json(&a, &b, 10));
}

/* The busiest other processes between two samples: the largest growth
 * first, three at most, none under 1% of the span; a pid that is new, or
 * whose name changed (reused), is charged its whole count. */
static void test_busiest(void **state)
{
	struct host_proc pa[] = { { 10, 500, "make", 1 }, { 20, 100, "postgres", 1 }, { 30, 7, "sshd", 1 },
				  { 40, 900, "old", 1 }, { 50, 50, "cron", 1 } };
	struct host_proc pb[] = { { 10, 900, "make", 1 }, { 20, 105, "postgres", 1 }, { 30, 57, "sshd", 1 },
				  { 40, 30, "cc1", 1 }, { 50, 60, "cron", 1 }, { 60, 200, "qemu-system-x86", 1 } };
	struct host_sample a = { .t = 5, .busy = 100, .total = 1000, .ok = 1, .procs = pa, .nprocs = 5 };
	struct host_sample b = { .t = 15, .busy = 900, .total = 2000, .ok = 1, .procs = pb, .nprocs = 6 };
	json_object *o = hostnoise_json(&a, &b, 10), *top = jget(o, "busiest");
	char text[256];
	(void)state;
	assert_int_equal(json_object_array_length(top), 3);
	assert_string_equal(json_object_get_string(jget(json_object_array_get_idx(top, 0), "comm")), "make");
	assert_int_equal(json_object_get_int(jget(json_object_array_get_idx(top, 0), "pid")), 10);
	assert_true(fabs(json_object_get_double(jget(json_object_array_get_idx(top, 0), "cpu_pct")) - 40) < 1e-9);
	assert_string_equal(json_object_get_string(jget(json_object_array_get_idx(top, 1), "comm")),
			    "qemu-system-x86");
	assert_string_equal(json_object_get_string(jget(json_object_array_get_idx(top, 2), "comm")), "sshd");
	hostnoise_busiest_text(top, text, sizeof(text));
	assert_string_equal(text, "; busiest: make (pid 10) 40.0%, qemu-system-x86 (pid 60) 20.0%, "
			    "sshd (pid 30) 5.0%");
	json_object_put(o);
	/* under 1% each: no key, no text */
	pb[0].ticks = 505, pb[5].ticks = 9, pb[2].ticks = 9, pb[3].ticks = 9, pb[4].ticks = 55;
	o = hostnoise_json(&a, &b, 10);
	assert_null(jget(o, "busiest"));
	hostnoise_busiest_text(jget(o, "busiest"), text, sizeof(text));
	assert_string_equal(text, "");
	json_object_put(o);
}

/* SECS of this process's CPU time (not wall time: the host may be busy) */
static void spin(double secs)
{
	struct timespec ts;
	do
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	while (ts.tv_sec + ts.tv_nsec / 1e9 < secs);
}

/* A live child's time is ours, and stays ours once it is reaped. */
static void test_own_tree(void **state)
{
	struct host_sample a, b, c;
	int fds[2], st;
	char x;
	pid_t p;
	(void)state;
	assert_int_equal(pipe(fds), 0);
	hostnoise_sample(&a);
	assert_true(a.ok);
	p = fork();
	assert_true(p >= 0);
	if (p == 0) {
		spin(0.4);
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	assert_int_equal(read(fds[0], &x, 1), 1);
	hostnoise_sample(&b); /* the child alive, 0.4 s of CPU */
	assert_true(b.own >= a.own + (unsigned long long)(0.25 * sysconf(_SC_CLK_TCK)));
	kill(p, SIGKILL);
	waitpid(p, &st, 0);
	hostnoise_sample(&c); /* reaped: in our cutime */
	assert_true(c.own >= b.own);
	/* ours, so never among the others */
	for (size_t i = 0; i < b.nprocs; i++)
		assert_true(b.procs[i].pid != p && b.procs[i].pid != getpid());
	hostnoise_release(&a);
	hostnoise_release(&b);
	hostnoise_release(&c);
	close(fds[0]);
	close(fds[1]);
}

/* A process outside kbench's tree that burns CPU is named the busiest:
 * a grandchild made an orphan (reparented away from this process, as a
 * daemon is), spinning between the samples. */
static void test_other_named(void **state)
{
	struct host_sample a, b;
	int pidp[2], ready[2], st, found = 0;
	pid_t mid, orphan = 0;
	json_object *o, *top;
	char x;
	(void)state;
	/* two pipes: the orphan's pid from the middle child, the orphan's
	 * "spinning" from the orphan (one pipe would interleave them) */
	assert_int_equal(pipe(pidp), 0);
	assert_int_equal(pipe(ready), 0);
	mid = fork();
	assert_true(mid >= 0);
	if (mid == 0) {
		pid_t g = fork();
		if (g == 0) {
			prctl(PR_SET_NAME, "kbench-spinner");
			if (write(ready[1], "x", 1) != 1)
				_exit(1);
			spin(0.5);
			pause();
			_exit(0);
		}
		if (write(pidp[1], &g, sizeof(g)) != sizeof(g))
			_exit(1);
		_exit(0);
	}
	assert_int_equal(read(pidp[0], &orphan, sizeof(orphan)), sizeof(orphan));
	waitpid(mid, &st, 0);
	assert_true(orphan > 0);
	assert_int_equal(read(ready[0], &x, 1), 1);
	hostnoise_sample(&a);
	usleep(700000);
	hostnoise_sample(&b);
	kill(orphan, SIGKILL);
	o = hostnoise_json(&a, &b, 10);
	assert_non_null(o);
	top = jget(o, "busiest");
	assert_non_null(top);
	for (size_t i = 0; i < json_object_array_length(top); i++)
		found += json_object_get_int(jget(json_object_array_get_idx(top, i), "pid")) == orphan &&
			 !strcmp(json_object_get_string(jget(json_object_array_get_idx(top, i), "comm")),
				 "kbench-spinner");
	assert_int_equal(found, 1);
	json_object_put(o);
	hostnoise_release(&a);
	hostnoise_release(&b);
	close(pidp[0]);
	close(pidp[1]);
	close(ready[0]);
	close(ready[1]);
}

/* HN's busiest: one process, which is returned */
static json_object *set_busiest(json_object *hn, int pid, const char *comm, double pct)
{
	json_object *top = json_object_new_array(), *p = json_object_new_object();
	jset_int(p, "pid", pid);
	jset_str(p, "comm", comm);
	jset_num(p, "cpu_pct", pct);
	json_object_array_add(top, p);
	jset(hn, "busiest", top);
	return p;
}

/* results.json: a host_noise that is not the documented shape is refused. */
static void test_validate(void **state)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct synth_opts so = { .variant = "a", .iterations = 2 };
	json_object *doc, *it, *hn;
	char err[512] = "";
	(void)state;
	gsl_rng_set(r, 3);
	doc = synth_doc(&so, synth_quick, SYNTH_QUICK_N, r);
	it = json_object_array_get_idx(jget(doc, "iterations"), 0);
	hn = json_object_new_object();
	jset_num(hn, "other_cpu_pct", 40);
	jset_num(hn, "threshold_pct", 10);
	jset_bool(hn, "busy", 1);
	jset(it, "host_noise", hn);
	assert_int_equal(results_validate(doc, err, sizeof(err)), 0);
	results_host_noise(doc);
	assert_int_equal(json_object_get_int(jget(jget(doc, "host_noise"), "busy")), 1);
	assert_int_equal(json_object_get_int(jget(jget(doc, "host_noise"), "iterations")), 1);
	jset_num(hn, "other_cpu_pct", 140);
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "percentage"));
	jset_num(hn, "other_cpu_pct", 40);
	jset_str(hn, "busy", "yes");
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "host_noise"));
	jset_bool(hn, "busy", 1);
	/* the busiest processes: each {pid, comm, cpu_pct}, three at most */
	json_object *p = set_busiest(hn, 812, "make", 31.5), *top = jget(hn, "busiest");
	assert_int_equal(results_validate(doc, err, sizeof(err)), 0);
	results_host_noise(doc);
	assert_string_equal(json_object_get_string(jget(json_object_array_get_idx(
			    jget(jget(doc, "host_noise"), "busiest"), 0), "comm")), "make");
	jset_num(p, "cpu_pct", 131.5);
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "busiest 1"));
	jset_num(p, "cpu_pct", 31.5);
	json_object_object_del(p, "comm");
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "comm"));
	jset_str(p, "comm", "make");
	for (int i = 0; i < 3; i++)
		json_object_array_add(top, json_object_get(p));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "at most 3"));
	jset(it, "host_noise", json_object_new_int(3));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	json_object_put(doc);
	gsl_rng_free(r);
}

/* results.json: an iteration's "lava" facts (the lava backend: where it
 * ran) are checked like the rest of what a run writes. */
static void test_validate_lava(void **state)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct synth_opts so = { .variant = "a", .iterations = 1 };
	json_object *doc, *it, *l;
	char err[512] = "";
	(void)state;
	gsl_rng_set(r, 5);
	doc = synth_doc(&so, synth_quick, SYNTH_QUICK_N, r);
	it = json_object_array_get_idx(jget(doc, "iterations"), 0);
	l = json_object_new_object();
	jset_str(l, "lab", "example");
	jset(l, "job_id", json_object_new_int64(18791001));
	jset_str(l, "job_url", "http://127.0.0.1:18791/scheduler/job/18791001");
	jset_str(l, "device", "qemu-01");
	jset_str(l, "device_type", "qemu");
	jset(it, "lava", l);
	assert_int_equal(results_validate(doc, err, sizeof(err)), 0);
	jset(l, "resumed", json_object_new_boolean(1)); /* a killed run's job, collected */
	assert_int_equal(results_validate(doc, err, sizeof(err)), 0);
	jset_str(l, "resumed", "yes");
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "resumed"));
	json_object_object_del(l, "resumed");
	jset(l, "job_id", json_object_new_int(0));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "job_id"));
	jset(l, "job_id", json_object_new_int(7));
	jset_str(l, "device", "qemu-01\x1b[2J");
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "control character"));
	json_object_object_del(l, "device");
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	jset(it, "lava", json_object_new_string("qemu-01"));
	assert_int_equal(results_validate(doc, err, sizeof(err)), -1);
	json_object_put(doc);
	gsl_rng_free(r);
}

/* Busy iterations are warned about; results without host noise give no
 * warning and no new key (the golden outputs stay byte for byte). */
static void test_compare_warns(void **state)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	struct synth_opts sa = { .variant = "a", .iterations = 3 };
	struct synth_opts sb = { .variant = "b", .iterations = 3 };
	struct cmp_inputs in = { NULL, 0 };
	struct cmp_opts o;
	struct comparison c;
	json_object *doc, *hn;
	int found = 0;
	(void)state;
	gsl_rng_set(r, 5);
	cmp_opts_init(&o);
	doc = synth_doc(&sb, synth_quick, SYNTH_QUICK_N, r);
	hn = json_object_new_object();
	jset_num(hn, "other_cpu_pct", 62.6);
	jset_num(hn, "threshold_pct", 10);
	jset_bool(hn, "busy", 1);
	set_busiest(hn, 4242, "cc1", 48.2);
	jset(json_object_array_get_idx(jget(doc, "iterations"), 1), "host_noise", hn);
	in.v = xcalloc(2, sizeof(*in.v));
	in.v[0] = (struct cmp_input){ xstrdup("a.json"), xstrdup("a"),
				      synth_doc(&sa, synth_quick, SYNTH_QUICK_N, r) };
	in.v[1] = (struct cmp_input){ xstrdup("b.json"), xstrdup("b"), doc };
	in.n = 2;
	assert_int_equal(comparison_build(&c, &in, &o), 0);
	for (size_t i = 0; i < c.warnings.n; i++) {
		if (!strncmp(c.warnings.v[i], "a: ", 3))
			assert_null(strstr(c.warnings.v[i], "BUSY"));
		found += !strncmp(c.warnings.v[i], "b: 1 of 1 iterations ran on a BUSY HOST", 39) &&
			 strstr(c.warnings.v[i], "63%") != NULL &&
			 strstr(c.warnings.v[i], "busiest: cc1 (pid 4242) 48.2%") != NULL;
	}
	assert_int_equal(found, 1);
	assert_int_equal(c.g[0].sampled, 0);
	assert_int_equal(c.g[1].busy, 1);
	comparison_release(&c);
	cmp_inputs_release(&in);
	cmp_opts_release(&o);
	gsl_rng_free(r);
}

/* A process that exits while the sampler walks /proc is no error: the
 * sampler printed "error: cannot open '/proc/N/stat'" for each (seen in
 * sweep runs); its own /proc/self/stat still reads. */
static void test_vanished_pid(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char path[64], err[256] = "";
	FILE *tmp = tmpfile();
	int saved = dup(2);
	pid_t pid = fork();
	(void)state;
	assert_true(pid >= 0);
	if (!pid)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	fflush(stderr);
	dup2(fileno(tmp), 2);
	assert_int_equal(hostnoise_read_pidstat(path, &sb), -1);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	if (!fgets(err, sizeof(err), tmp))
		err[0] = 0;
	fclose(tmp);
	assert_string_equal(err, "");
	assert_int_equal(hostnoise_read_pidstat("/proc/self/stat", &sb), 0);
	assert_non_null(strstr(sb.buf, ") "));
	sb_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat),
		cmocka_unit_test(test_pidstat),
		cmocka_unit_test(test_comm),
		cmocka_unit_test(test_busiest),
		cmocka_unit_test(test_psi_loadavg),
		cmocka_unit_test(test_figures),
		cmocka_unit_test(test_own_tree),
		cmocka_unit_test(test_other_named),
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_validate_lava),
		cmocka_unit_test(test_compare_warns),
		cmocka_unit_test(test_vanished_pid),
	};
	kb_quiet = 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
