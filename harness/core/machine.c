/* machine.c - the machine's facts from /proc and /sys (see machine.h). */
#include "core/machine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MF_MAX (1u << 20)

/* ROOT/PATH's first LEN - 1 bytes, trailing white space cut; NULL if it
 * cannot be read. */
static char *mf_read(const char *root, const char *path, char *buf, size_t len)
{
	char full[4096];
	FILE *f;
	size_t n;
	snprintf(full, sizeof(full), "%s%s", root, path);
	if (!(f = fopen(full, "r")))
		return NULL;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		buf[--n] = '\0';
	return buf;
}

static json_object *mf_str(const char *root, const char *path)
{
	char buf[4096];
	return mf_read(root, path, buf, sizeof(buf)) ? json_object_new_string(buf) : NULL;
}

/* How many CPUs a list like "0-3,8,10-11" names; -1 if malformed. */
static int cpulist_count(const char *s)
{
	int n = 0;
	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b = a;
		if (end == s || a < 0)
			return -1;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a || b - a > 65536)
				return -1;
		}
		n += (int)(b - a + 1);
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return n;
}

/* The value of "KEY<spaces>: value" line P, or NULL. */
static const char *cpuinfo_value(const char *p, const char *key)
{
	size_t k = strlen(key);
	if (strncmp(p, key, k) || (p[k] != ' ' && p[k] != '\t' && p[k] != ':'))
		return NULL;
	p = strchr(p, ':');
	if (!p)
		return NULL;
	p++;
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* /proc/cpuinfo: model, logical CPUs, sockets (distinct physical ids)
 * and cores (distinct physical id / core id pairs). */
static void mf_cpuinfo(const char *root, json_object *m)
{
	char *buf = malloc(MF_MAX), model[256] = "";
	long pkg = -1, ids[1024];
	int threads = 0, nids = 0, sockets = 0;
	unsigned long long seen_pkg[16] = { 0 };
	if (!buf || !mf_read(root, "/proc/cpuinfo", buf, MF_MAX)) {
		free(buf);
		return;
	}
	for (char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *v;
		int len = (int)strcspn(p, "\n");
		if (cpuinfo_value(p, "processor"))
			threads++;
		else if ((v = cpuinfo_value(p, "model name")) && !model[0])
			snprintf(model, sizeof(model), "%.*s", len - (int)(v - p), v);
		else if ((v = cpuinfo_value(p, "physical id"))) {
			pkg = strtol(v, NULL, 10);
			if (pkg >= 0 && pkg < 1024 && !(seen_pkg[pkg / 64] & (1ull << (pkg % 64)))) {
				seen_pkg[pkg / 64] |= 1ull << (pkg % 64);
				sockets++;
			}
		} else if ((v = cpuinfo_value(p, "core id")) && pkg >= 0 && nids < 1024) {
			long id = pkg * 65536 + strtol(v, NULL, 10);
			int i;
			for (i = 0; i < nids && ids[i] != id; i++)
				;
			if (i == nids)
				ids[nids++] = id;
		}
	}
	free(buf);
	json_object_object_add(m, "cpu_model", model[0] ? json_object_new_string(model) : NULL);
	json_object_object_add(m, "sockets", json_object_new_int(sockets ? sockets : 1));
	json_object_object_add(m, "cores", json_object_new_int(nids ? nids : threads));
	json_object_object_add(m, "threads", json_object_new_int(threads));
}

/* MemTotal in kB, -1 if unreadable. */
static long long mf_mem_kb(const char *root)
{
	char *buf = malloc(MF_MAX), *p;
	long long kb = -1;
	if (buf && mf_read(root, "/proc/meminfo", buf, MF_MAX) && (p = strstr(buf, "MemTotal:")))
		kb = strtoll(p + 9, NULL, 10);
	free(buf);
	return kb;
}

/* Turbo/boost: cpufreq/boost "1", or intel_pstate/no_turbo "0"; null if
 * neither says. */
static json_object *mf_boost(const char *root)
{
	char buf[16];
	if (mf_read(root, "/sys/devices/system/cpu/cpufreq/boost", buf, sizeof(buf)))
		return json_object_new_boolean(!strcmp(buf, "1"));
	if (mf_read(root, "/sys/devices/system/cpu/intel_pstate/no_turbo", buf, sizeof(buf)))
		return json_object_new_boolean(!strcmp(buf, "0"));
	return NULL;
}

json_object *machine_facts(const char *root)
{
	json_object *m = json_object_new_object();
	char buf[4096];
	long long kb;
	int n;
	mf_cpuinfo(root, m);
	json_object_object_add(m, "smt", mf_str(root, "/sys/devices/system/cpu/smt/control"));
	n = mf_read(root, "/sys/devices/system/node/online", buf, sizeof(buf)) ? cpulist_count(buf) : -1;
	json_object_object_add(m, "numa_nodes", n > 0 ? json_object_new_int(n) : NULL);
	kb = mf_mem_kb(root);
	json_object_object_add(m, "mem_kb", kb > 0 ? json_object_new_int64(kb) : NULL);
	json_object_object_add(m, "governor",
			       mf_str(root, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"));
	json_object_object_add(m, "boost", mf_boost(root));
	json_object_object_add(m, "isolated", mf_str(root, "/sys/devices/system/cpu/isolated"));
	/* "(null)": a kernel with nohz_full support but no nohz_full= */
	if (mf_read(root, "/sys/devices/system/cpu/nohz_full", buf, sizeof(buf)))
		json_object_object_add(m, "nohz_full",
				       json_object_new_string(strcmp(buf, "(null)") ? buf : ""));
	else
		json_object_object_add(m, "nohz_full", NULL);
	json_object_object_add(m, "cmdline", mf_str(root, "/proc/cmdline"));
	json_object_object_add(m, "dmi_vendor", mf_str(root, "/sys/class/dmi/id/sys_vendor"));
	json_object_object_add(m, "dmi_product", mf_str(root, "/sys/class/dmi/id/product_name"));
	return m;
}

static const char *mf_get_str(json_object *m, const char *key)
{
	json_object *v;
	return json_object_object_get_ex(m, key, &v) && json_object_is_type(v, json_type_string) ?
		       json_object_get_string(v) : NULL;
}

static long long mf_get_int(json_object *m, const char *key)
{
	json_object *v;
	return json_object_object_get_ex(m, key, &v) && json_object_is_type(v, json_type_int) ?
		       json_object_get_int64(v) : -1;
}

/* Memory class: GiB rounded to the nearest power of two (23.5 -> 32). */
static int mem_class(long long kb)
{
	return kb > 0 ? (int)lround(log2((double)kb / (1 << 20))) : -1000;
}

int machine_differs(json_object *a, json_object *b, char *why, size_t whylen)
{
	static const char *const counts[] = { "cores", "threads" };
	const char *ma, *mb;
	if (!a || !b || !json_object_is_type(a, json_type_object) ||
	    !json_object_is_type(b, json_type_object) || !(ma = mf_get_str(a, "cpu_model")) ||
	    !(mb = mf_get_str(b, "cpu_model")))
		return 0;
	if (strcmp(ma, mb)) {
		snprintf(why, whylen, "CPU model '%s' vs '%s'", ma, mb);
		return 1;
	}
	for (int i = 0; i < 2; i++)
		if (mf_get_int(a, counts[i]) != mf_get_int(b, counts[i])) {
			snprintf(why, whylen, "%lld vs %lld %s", mf_get_int(a, counts[i]),
				 mf_get_int(b, counts[i]), counts[i]);
			return 1;
		}
	if (mem_class(mf_get_int(a, "mem_kb")) != mem_class(mf_get_int(b, "mem_kb"))) {
		snprintf(why, whylen, "memory %.1f GiB vs %.1f GiB",
			 (double)mf_get_int(a, "mem_kb") / (1 << 20),
			 (double)mf_get_int(b, "mem_kb") / (1 << 20));
		return 1;
	}
	return 0;
}

void machine_line(json_object *m, char *out, size_t len)
{
	const char *model = m ? mf_get_str(m, "cpu_model") : NULL;
	long long s, c, t, kb;
	if (len)
		out[0] = '\0';
	if (!model)
		return;
	s = mf_get_int(m, "sockets"), c = mf_get_int(m, "cores"), t = mf_get_int(m, "threads");
	kb = mf_get_int(m, "mem_kb");
	snprintf(out, len, "%s, %lld socket%s, %lld cores, %lld threads, %.1f GiB", model, s,
		 s == 1 ? "" : "s", c, t, kb > 0 ? (double)kb / (1 << 20) : 0.0);
}
