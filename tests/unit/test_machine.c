/* test_machine.c - the machine facts (core/machine.c) on /proc and /sys
 * captured from a real machine (tests/fixtures/machine/), the comparison
 * of two machines, and the running-kernel check of the local backend. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/machine.h"
#include "core/util.h"
#include "run/running.h"

#define FIX KB_SRCDIR "/tests/fixtures/machine/amd-2cpu-vm"

static const char *str(json_object *m, const char *k)
{
	json_object *v = json_object_object_get(m, k);
	return v ? json_object_get_string(v) : NULL;
}

static void test_facts_fixture(void **state)
{
	json_object *m = machine_facts(FIX);
	(void)state;
	assert_string_equal(str(m, "cpu_model"), "AMD EPYC");
	assert_int_equal(json_object_get_int(json_object_object_get(m, "sockets")), 1);
	assert_int_equal(json_object_get_int(json_object_object_get(m, "cores")), 2);
	assert_int_equal(json_object_get_int(json_object_object_get(m, "threads")), 2);
	assert_string_equal(str(m, "smt"), "notsupported");
	assert_int_equal(json_object_get_int(json_object_object_get(m, "numa_nodes")), 1);
	assert_int_equal(json_object_get_int64(json_object_object_get(m, "mem_kb")), 24683756);
	assert_string_equal(str(m, "isolated"), "");
	assert_non_null(strstr(str(m, "cmdline"), "mitigations=auto"));
	/* absent here: null, not an error */
	assert_null(json_object_object_get(m, "governor"));
	assert_null(json_object_object_get(m, "boost"));
	assert_null(json_object_object_get(m, "nohz_full"));
	assert_null(json_object_object_get(m, "dmi_vendor"));
	json_object_put(m);
}

static void put(const char *root, const char *rel, const char *text)
{
	char path[4096], dir[4096];
	snprintf(path, sizeof(path), "%s%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	assert_int_equal(mkdir_p(dir, 0755), 0);
	assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
}

/* A tuned machine: governor, boost, nohz_full, two nodes, DMI; then
 * intel_pstate's no_turbo and a malformed node list. */
static void test_facts_tuned(void **state)
{
	char root[] = "/tmp/kbench-machine-XXXXXX";
	json_object *m;
	(void)state;
	assert_non_null(mkdtemp(root));
	put(root, "/proc/cpuinfo", "processor\t: 0\nmodel name\t: X\nphysical id\t: 0\ncore id\t: 0\n"
				   "processor\t: 1\nmodel name\t: X\nphysical id\t: 1\ncore id\t: 0\n");
	put(root, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
	put(root, "/sys/devices/system/cpu/cpufreq/boost", "0\n");
	put(root, "/sys/devices/system/cpu/nohz_full", "1-3\n");
	put(root, "/sys/devices/system/node/online", "0-1\n");
	put(root, "/sys/class/dmi/id/sys_vendor", "Acme\n");
	m = machine_facts(root);
	assert_int_equal(json_object_get_int(json_object_object_get(m, "sockets")), 2);
	assert_int_equal(json_object_get_int(json_object_object_get(m, "cores")), 2);
	assert_string_equal(str(m, "governor"), "performance");
	assert_false(json_object_get_boolean(json_object_object_get(m, "boost")));
	assert_string_equal(str(m, "nohz_full"), "1-3");
	assert_int_equal(json_object_get_int(json_object_object_get(m, "numa_nodes")), 2);
	assert_string_equal(str(m, "dmi_vendor"), "Acme");
	assert_null(json_object_object_get(m, "mem_kb"));
	json_object_put(m);
	rm_rf(root);
	assert_non_null(mkdtemp(strcpy(root, "/tmp/kbench-machine-XXXXXX")));
	put(root, "/sys/devices/system/cpu/intel_pstate/no_turbo", "0\n");
	put(root, "/sys/devices/system/node/online", "0-x\n");
	put(root, "/sys/devices/system/cpu/nohz_full", "(null)\n");
	m = machine_facts(root);
	assert_true(json_object_get_boolean(json_object_object_get(m, "boost")));
	assert_null(json_object_object_get(m, "numa_nodes"));
	assert_null(json_object_object_get(m, "cpu_model"));
	assert_string_equal(str(m, "nohz_full"), ""); /* what a QEMU guest's kernel says */
	json_object_put(m);
	rm_rf(root);
}

static void test_differs(void **state)
{
	json_object *a = machine_facts(FIX), *b = machine_facts(FIX);
	char why[256], line[256];
	(void)state;
	assert_int_equal(machine_differs(a, b, why, sizeof(why)), 0);
	assert_int_equal(machine_differs(a, NULL, why, sizeof(why)), 0);
	/* 24 GiB and 32 GiB are one memory class, 8 GiB another */
	json_object_object_add(b, "mem_kb", json_object_new_int64(32LL << 20));
	assert_int_equal(machine_differs(a, b, why, sizeof(why)), 0);
	json_object_object_add(b, "mem_kb", json_object_new_int64(8LL << 20));
	assert_int_equal(machine_differs(a, b, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "memory"));
	json_object_object_add(b, "mem_kb", json_object_new_int64(24683756));
	json_object_object_add(b, "cores", json_object_new_int(4));
	assert_int_equal(machine_differs(a, b, why, sizeof(why)), 1);
	assert_string_equal(why, "2 vs 4 cores");
	json_object_object_add(b, "cpu_model", json_object_new_string("Intel Xeon"));
	assert_int_equal(machine_differs(a, b, why, sizeof(why)), 1);
	assert_string_equal(why, "CPU model 'AMD EPYC' vs 'Intel Xeon'");
	/* untrusted: a wrong type is no facts, not a crash */
	json_object_object_add(b, "cpu_model", json_object_new_int(3));
	assert_int_equal(machine_differs(a, b, why, sizeof(why)), 0);
	machine_line(a, line, sizeof(line));
	assert_string_equal(line, "AMD EPYC, 1 socket, 2 cores, 2 threads, 23.5 GiB");
	machine_line(NULL, line, sizeof(line));
	assert_string_equal(line, "");
	json_object_put(a);
	json_object_put(b);
}

static void test_running_matches(void **state)
{
	const char *cl = "BOOT_IMAGE=/vmlinuz quiet isolcpus=1 rtmutex.adaptive=0";
	char why[256];
	(void)state;
	assert_int_equal(running_matches("6.12-rt", cl, "6.12-rt", "", why, sizeof(why)), 0);
	assert_int_equal(running_matches("6.12-rt", cl, "6.12-rt", " isolcpus=1  quiet ", why,
					 sizeof(why)), 0);
	assert_int_equal(running_matches("6.12", cl, "6.12-rt", "", why, sizeof(why)), -1);
	assert_string_equal(why, "the running kernel is 6.12, the variant's is 6.12-rt");
	assert_int_equal(running_matches("6.12-rt", cl, "6.12-rt", "rtmutex.adaptive=1", why,
					 sizeof(why)), -1);
	assert_string_equal(why, "the running kernel's command line lacks 'rtmutex.adaptive=1'");
	/* whole words only */
	assert_int_equal(running_matches("6.12-rt", cl, "6.12-rt", "quie", why, sizeof(why)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_facts_fixture), cmocka_unit_test(test_facts_tuned),
		cmocka_unit_test(test_differs), cmocka_unit_test(test_running_matches),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
