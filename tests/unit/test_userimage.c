/* test_userimage.c - a kernel image the user built (kernel/userimage.c):
 * the boot header of real images (tests/fixtures/bzimage/: the setup code
 * of kbench's test build, Debian 12's 6.1 and Debian 13's 6.12 RT, up to
 * their version strings), broken and foreign ones, and how the variant,
 * its config and its modules are found. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "kernel/userimage.h"

#define FIX KB_SRCDIR "/tests/fixtures/bzimage/"

static unsigned char *load(const char *name, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	char path[KB_PATH_MAX];
	snprintf(path, sizeof(path), FIX "%s", name);
	assert_int_equal(read_file(path, &sb, 1 << 20), 0);
	*len = sb.len;
	return (unsigned char *)sb.buf;
}

static void test_real_headers(void **state)
{
	static const struct {
		const char *file, *release, *has;
	} cases[] = {
		{ "test-6.12-rt.head", "6.12.117", "#1 SMP PREEMPT_RT kbench" },
		{ "debian-6.1.head", "6.1.0-50-amd64", "PREEMPT_DYNAMIC Debian 6.1.176-1" },
		{ "debian-6.12-rt.head", "6.12.117+deb13-rt-amd64", "PREEMPT_RT Debian 6.12.117-1" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len;
		unsigned char *b = load(cases[i].file, &len);
		struct bzimage_info bi;
		char err[300] = "";
		assert_int_equal(bzimage_parse(b, len, &bi, err, sizeof(err)), 0);
		assert_string_equal(bi.release, cases[i].release);
		assert_non_null(strstr(bi.version, cases[i].has));
		assert_int_equal(bi.x86_64, 1);
		assert_true(bi.protocol >= 0x20c);
		free(b);
	}
}

static void expect_refused(const unsigned char *b, size_t len, const char *why)
{
	struct bzimage_info bi;
	char err[300] = "";
	assert_int_equal(bzimage_parse(b, len, &bi, err, sizeof(err)), -1);
	if (!strstr(err, why))
		fail_msg("error '%s' lacks '%s'", err, why);
}

static void test_broken(void **state)
{
	size_t len;
	unsigned char *b = load("debian-6.1.head", &len);
	unsigned off = (unsigned)(b[0x20e] | b[0x20f] << 8) + 0x200;
	unsigned char *c = malloc(len);
	(void)state;
	/* cut before the version string ends: refused, not read past the end */
	expect_refused(b, off + 3, "runs past the boot header");
	expect_refused(b, off, "outside the boot header");
	expect_refused(b, 0x100, "not an x86 boot image");
	/* a 32-bit kernel (xloadflags without XLF_KERNEL_64) */
	memcpy(c, b, len);
	c[0x236] &= (unsigned char)~1u;
	expect_refused(c, len, "a 32-bit kernel");
	/* a control character in the version string */
	memcpy(c, b, len);
	c[off + 2] = 0x1b;
	expect_refused(c, len, "non-printable byte (0x1b)");
	/* no version string */
	memcpy(c, b, len);
	c[0x20e] = c[0x20f] = 0;
	expect_refused(c, len, "no version string");
	/* an ELF vmlinux and an arm64 Image */
	memset(c, 0, len);
	memcpy(c, "\177ELF\2\1\1", 7);
	expect_refused(c, len, "an ELF file (vmlinux?)");
	memset(c, 0, len);
	memcpy(c + 0x38, "ARM\x64", 4);
	expect_refused(c, len, "an arm64 Image");
	free(c);
	free(b);
}

/* The tree's .config beside TREE/arch/x86/boot/bzImage; modules from an
 * INSTALL_MOD_PATH root; the variant named by its release. */
static void test_variant_from_tree(void **state)
{
	char tmpl[] = "/tmp/kbench-uimg.XXXXXX", p[KB_PATH_MAX];
	struct variant v;
	struct kernel_image k;
	size_t len;
	unsigned char *b = load("test-6.12-rt.head", &len);
	(void)state;
	assert_non_null(mkdtemp(tmpl));
	snprintf(p, sizeof(p), "%s/linux/arch/x86/boot", tmpl);
	assert_int_equal(mkdir_p(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/linux/arch/x86/boot/bzImage", tmpl);
	assert_int_equal(write_file_atomic(p, (const char *)b, len), 0);
	snprintf(p, sizeof(p), "%s/linux/.config", tmpl);
	assert_int_equal(write_file_atomic(p, "CONFIG_PREEMPT_RT=y\n", 20), 0);
	snprintf(p, sizeof(p), "%s/mods/lib/modules/6.12.117", tmpl);
	assert_int_equal(mkdir_p(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/mods/lib/modules/6.12.117/modules.dep", tmpl);
	assert_int_equal(write_file_atomic(p, "", 0), 0);

	snprintf(p, sizeof(p), "%s/linux/arch/x86/boot/bzImage", tmpl);
	{
		char mods[KB_PATH_MAX];
		snprintf(mods, sizeof(mods), "%s/mods", tmpl);
		assert_int_equal(image_variant(p, mods, NULL, &v), 0);
	}
	assert_string_equal(v.name, "image-6.12.117");
	assert_int_equal(v.source, VSRC_IMAGE);
	assert_int_equal(kernel_from_image(&v, &k), 0);
	assert_string_equal(k.release, "6.12.117");
	assert_non_null(strstr(k.config, "/linux/.config"));
	assert_non_null(strstr(k.moddir, "/mods/lib/modules/6.12.117"));
	assert_int_equal(strlen(k.image_sha256), 64);
	assert_string_equal(k.package, "image");
	/* modules without modules.dep: refused, saying how to make one */
	snprintf(p, sizeof(p), "%s/mods/lib/modules/6.12.117/modules.dep", tmpl);
	unlink(p);
	assert_int_equal(kernel_from_image(&v, &k), -1);
	/* a path that does not exist */
	snprintf(p, sizeof(p), "%s/nope/bzImage", tmpl);
	assert_int_equal(image_variant(p, NULL, NULL, &v), -1);
	rm_rf(tmpl);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_headers),
		cmocka_unit_test(test_broken),
		cmocka_unit_test(test_variant_from_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
