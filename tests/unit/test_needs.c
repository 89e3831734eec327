/* test_needs.c - the guest's needs of a kernel (kernel/needs.c) on the
 * config, modules.dep and modules.builtin of real Debian packages
 * (tests/fixtures/needs/: the relevant lines of bookworm's 6.1, where
 * virtio_console and virtio_pci are modules in /lib/modules, and trixie's
 * 6.12, where they are built in and modules live in /usr/lib/modules),
 * on synthetic package trees of both layouts, and on broken kernels;
 * and the kernel's identity in results (realtime and where it came from,
 * the summary line of a run whose guest never came up). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "core/jsonutil.h"
#include "kernel/kernel.h"
#include "run/results.h"
#include "run/run.h"
#include "kernel/needs.h"

#define FIX KB_SRCDIR "/tests/fixtures/needs/"

static char *slurp(const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	char path[KB_PATH_MAX];
	snprintf(path, sizeof(path), FIX "%s", name);
	assert_int_equal(read_file(path, &sb, 1 << 20), 0);
	return sb.buf ? sb.buf : xasprintf("%s", "");
}

static const struct kneed_result *find(const struct kneed_result *res, const char *opt)
{
	for (size_t i = 0; kernel_needs[i].option; i++)
		if (!strcmp(res[i].need->option, opt))
			return &res[i];
	fail_msg("no need %s", opt);
	return NULL;
}

static void test_bookworm(void **state)
{
	char *cfg = slurp("bookworm-6.1.config"), *dep = slurp("bookworm-6.1.modules.dep");
	struct kneed_result res[32];
	struct strvec order = STRVEC_INIT;
	(void)state;
	assert_int_equal(kneeds_eval(cfg, dep, "", 1, res), 0);
	assert_int_equal(find(res, "VIRTIO_CONSOLE")->state, KNEED_MODULE);
	assert_int_equal(find(res, "VIRTIO_PCI")->state, KNEED_MODULE);
	assert_int_equal(find(res, "DEVTMPFS")->state, KNEED_BUILTIN);
	/* the agent's channel loads with its dependencies first, in need order */
	assert_int_equal(kneeds_modules(dep, res, 0, &order), 0);
	assert_true(order.n >= 8);
	assert_string_equal(order.v[0], "kernel/drivers/virtio/virtio.ko");
	assert_string_equal(order.v[1], "kernel/drivers/virtio/virtio_ring.ko");
	for (size_t i = 0; i < order.n; i++) {
		assert_null(strstr(order.v[i], "9p")); /* not without kbuild */
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(order.v[i], order.v[j]);
	}
	{
		size_t pci = order.n, con = order.n, ring = order.n;
		for (size_t i = 0; i < order.n; i++) {
			if (strstr(order.v[i], "/virtio_pci.ko"))
				pci = i;
			if (strstr(order.v[i], "/virtio_console.ko"))
				con = i;
			if (strstr(order.v[i], "/virtio_ring.ko"))
				ring = i;
		}
		assert_true(ring < pci && pci < con && con < order.n);
	}
	strvec_clear(&order);
	assert_int_equal(kneeds_modules(dep, res, 1, &order), 0);
	assert_string_equal(order.v[order.n - 1], "kernel/fs/9p/9p.ko");
	strvec_clear(&order);
	free(cfg);
	free(dep);
}

static void test_trixie(void **state)
{
	char *cfg = slurp("trixie-6.12.config"), *dep = slurp("trixie-6.12.modules.dep");
	char *bi = slurp("trixie-6.12.modules.builtin");
	struct kneed_result res[32];
	struct strvec order = STRVEC_INIT;
	(void)state;
	assert_int_equal(kneeds_eval(cfg, dep, bi, 1, res), 0);
	assert_int_equal(find(res, "VIRTIO_CONSOLE")->state, KNEED_BUILTIN);
	assert_int_equal(find(res, "VIRTIO_BLK")->state, KNEED_MODULE);
	/* the list kbench always loaded for these kernels, unchanged */
	assert_int_equal(kneeds_modules(dep, res, 0, &order), 0);
	assert_int_equal(order.n, 6);
	assert_string_equal(order.v[0], "kernel/crypto/crc32c_generic.ko.xz");
	assert_string_equal(order.v[1], "kernel/drivers/block/virtio_blk.ko.xz");
	assert_string_equal(order.v[5], "kernel/fs/ext4/ext4.ko.xz");
	strvec_clear(&order);
	/* the lava backend's agent talks TCP: virtio_net after its
	 * dependencies, and only for it */
	assert_int_equal(find(res, "VIRTIO_NET")->state, KNEED_MODULE);
	assert_int_equal(kneeds_modules(dep, res, KNEED_NET, &order), 0);
	assert_int_equal(order.n, 9);
	assert_string_equal(order.v[6], "kernel/net/core/failover.ko.xz");
	assert_string_equal(order.v[7], "kernel/drivers/net/net_failover.ko.xz");
	assert_string_equal(order.v[8], "kernel/drivers/net/virtio_net.ko.xz");
	strvec_clear(&order);
	assert_int_equal(kneeds_modules(dep, res, KNEED_HOSTROOT, &order), 0);
	for (size_t i = 0; i < order.n; i++)
		assert_null(strstr(order.v[i], "virtio_net"));
	strvec_clear(&order);
	free(cfg);
	free(dep);
	free(bi);
}

/* A kernel without virtio_console: refused, with the option named. */
static void test_missing(void **state)
{
	char *cfg = slurp("trixie-6.12.config"), *dep = slurp("trixie-6.12.modules.dep");
	struct strbuf sb = STRBUF_INIT;
	struct kneed_result res[32];
	char *p;
	(void)state;
	sb_adds(&sb, cfg);
	p = strstr(sb.buf, "CONFIG_VIRTIO_CONSOLE=y");
	assert_non_null(p);
	memcpy(p, "CONFIG_VIRTIO_CONSOLX", 21);
	/* no builtin list: the config alone decides */
	assert_int_equal(kneeds_eval(sb.buf, dep, NULL, 0, res), 1);
	assert_int_equal(find(res, "VIRTIO_CONSOLE")->state, KNEED_MISSING);
	assert_string_equal(find(res, "VIRTIO_CONSOLE")->why, "CONFIG_VIRTIO_CONSOLE is not set");
	/* =m without the module: missing, and says so */
	memcpy(p, "CONFIG_VIRTIO_CONSOLE=m", 23);
	assert_int_equal(kneeds_eval(sb.buf, dep, NULL, 0, res), 1);
	assert_non_null(strstr(find(res, "VIRTIO_CONSOLE")->why, "virtio_console.ko is not among"));
	/* optional and kbuild-only needs never count without kbuild */
	assert_int_equal(kneeds_eval("CONFIG_VIRTIO_PCI=y\nCONFIG_VIRTIO_CONSOLE=y\n"
				     "CONFIG_BLK_DEV_INITRD=y\nCONFIG_DEVTMPFS=y\n"
				     "CONFIG_VIRTIO_BLK=y\nCONFIG_EXT4_FS=y\n", NULL, NULL, 0, res), 0);
	assert_int_equal(kneeds_eval("CONFIG_VIRTIO_PCI=y\nCONFIG_VIRTIO_CONSOLE=y\n"
				     "CONFIG_BLK_DEV_INITRD=y\nCONFIG_DEVTMPFS=y\n"
				     "CONFIG_VIRTIO_BLK=y\nCONFIG_EXT4_FS=y\n", NULL, NULL, 1, res), 2);
	/* nothing known (a bare image): unknown, not refused */
	assert_int_equal(kneeds_eval(NULL, NULL, NULL, 1, res), 0);
	assert_int_equal(find(res, "VIRTIO_CONSOLE")->state, KNEED_UNKNOWN);
	sb_release(&sb);
	free(cfg);
	free(dep);
}

/* Synthetic package trees of both layouts through kernel_moddir and
 * kernel_needs_check, as a cached image is read. */
static void tree(const char *root, const char *moddir_rel, const char *cfg, const char *dep,
		 const char *bi, struct kernel_image *k)
{
	char path[KB_PATH_MAX];
	memset(k, 0, sizeof(*k));
	snprintf(k->release, sizeof(k->release), "9.9.9-test");
	snprintf(path, sizeof(path), "%s/%s/9.9.9-test", root, moddir_rel);
	assert_int_equal(mkdir_p(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%s/9.9.9-test/modules.dep", root, moddir_rel);
	assert_int_equal(write_file_atomic(path, dep, strlen(dep)), 0);
	snprintf(path, sizeof(path), "%s/%s/9.9.9-test/modules.builtin", root, moddir_rel);
	assert_int_equal(write_file_atomic(path, bi, strlen(bi)), 0);
	snprintf(path, sizeof(path), "%s/boot", root);
	assert_int_equal(mkdir_p(path, 0755), 0);
	snprintf(k->config, sizeof(k->config), "%s/boot/config-9.9.9-test", root);
	assert_int_equal(write_file_atomic(k->config, cfg, strlen(cfg)), 0);
	assert_int_equal(kernel_moddir(root, k->release, k->moddir, sizeof(k->moddir)), 0);
	assert_non_null(strstr(k->moddir, moddir_rel));
}

static void test_layouts(void **state)
{
	char tmpl[] = "/tmp/kbench-needs.XXXXXX", root[KB_PATH_MAX], out[KB_PATH_MAX];
	char *cfgb = slurp("bookworm-6.1.config"), *depb = slurp("bookworm-6.1.modules.dep");
	char *cfgt = slurp("trixie-6.12.config"), *dept = slurp("trixie-6.12.modules.dep");
	char *bit = slurp("trixie-6.12.modules.builtin");
	struct kernel_image k;
	struct kneed_result res[32];
	(void)state;
	assert_non_null(mkdtemp(tmpl));
	snprintf(root, sizeof(root), "%s/bookworm", tmpl);
	tree(root, "lib/modules", cfgb, depb, "", &k);
	assert_int_equal(kernel_needs_check(&k, 1, res), 0);
	assert_int_equal(find(res, "VIRTIO_CONSOLE")->state, KNEED_MODULE);
	snprintf(root, sizeof(root), "%s/trixie", tmpl);
	tree(root, "usr/lib/modules", cfgt, dept, bit, &k);
	assert_int_equal(kernel_needs_check(&k, 1, res), 0);
	assert_int_equal(find(res, "VIRTIO_CONSOLE")->state, KNEED_BUILTIN);
	/* a package without modules: none, and the config alone decides */
	snprintf(root, sizeof(root), "%s/none", tmpl);
	assert_int_equal(mkdir_p(root, 0755), 0);
	assert_int_equal(kernel_moddir(root, "9.9.9-test", out, sizeof(out)), 1);
	assert_string_equal(out, "");
	k.moddir[0] = '\0';
	snprintf(root, sizeof(root), "%s/bookworm/boot/config-9.9.9-test", tmpl);
	snprintf(k.config, sizeof(k.config), "%s", root);
	/* virtio_pci, virtio_console, virtio_blk and ext4: =m, no modules */
	assert_int_equal(kernel_needs_check(&k, 0, res), 4);
	rm_rf(tmpl);
	free(cfgb);
	free(depb);
	free(cfgt);
	free(dept);
	free(bit);
}

/* realtime: sysfs where the kernel has it, else uname -v, else config */
static void test_realtime_source(void **state)
{
	json_object *doc = json_tokener_parse("{\"variant\": {\"realtime\": \"0\", "
					      "\"realtime_source\": \"config\"}}");
	json_object *hello = json_tokener_parse(
		"{\"guest\": {\"kernel\": \"6.12.0\", \"realtime\": null, "
		"\"kernel_version\": \"#1 SMP PREEMPT_RT Thu Jan  1\"}}");
	json_object *v = json_object_object_get(doc, "variant");
	(void)state;
	results_note_guest(doc, hello);
	assert_string_equal(jstr(v, "realtime"), "1");
	assert_string_equal(jstr(v, "realtime_source"), "uname");
	json_object_put(hello);
	hello = json_tokener_parse("{\"guest\": {\"realtime\": \"1\", "
				   "\"kernel_version\": \"#1 SMP PREEMPT_DYNAMIC\"}}");
	results_note_guest(doc, hello);
	assert_string_equal(jstr(v, "realtime"), "1");
	assert_string_equal(jstr(v, "realtime_source"), "sysfs");
	json_object_put(hello);
	json_object_put(doc);
}

/* A run whose guest never came up: no "(null)" in its summary line. */
static void test_summary_never_booted(void **state)
{
	json_object *doc = json_tokener_parse(
		"{\"variant\": {\"name\": \"old\", \"kernel_release\": null, "
		"\"image_release\": \"6.1.0-50-amd64\", \"package_version\": \"6.1.176-1\"}, "
		"\"suite\": {\"name\": \"tiny\"}, \"host\": {\"accel\": \"tcg\"}, "
		"\"summary\": {}, \"iterations\": []}");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	(void)state;
	print_summary(doc, f);
	fclose(f);
	assert_null(strstr(buf, "(null)"));
	assert_non_null(strstr(buf, "old on 6.1.0-50-amd64 (never booted) (6.1.176-1), suite tiny"));
	free(buf);
	json_object_put(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bookworm),
		cmocka_unit_test(test_trixie),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_realtime_source),
		cmocka_unit_test(test_summary_never_booted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
