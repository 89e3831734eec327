/* testhook.c - fault injection for the tests (testhook.h). */
#include "run/testhook.h"
#include "agent/proto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void inject_boot_panic(struct test_ctx *c)
{
	static int injected;
	const char *n = getenv("KBENCH_TEST_BOOT_PANICS");
	if (!n || injected >= atoi(n))
		return;
	snprintf(c->cmdline, sizeof(c->cmdline), "%s rdinit=/bin/false",
		 c->bp->cmdline ? c->bp->cmdline : "");
	c->bp->cmdline = c->cmdline;
	injected++;
}

static void inject_kmsg(struct test_ctx *c)
{
	const char *kmsg = getenv("KBENCH_TEST_KMSG");
	struct strbuf sb = STRBUF_INIT;
	char *save = NULL;
	if (!kmsg || !*kmsg || read_file(kmsg, &sb, 1u << 20) || !sb.buf)
		goto out;
	for (char *l = strtok_r(sb.buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char rec[1100];
		snprintf(rec, sizeof(rec), "<4>%.1000s", l);
		if (guest_write(c->g, "/dev/kmsg", rec))
			warning("KBENCH_TEST_KMSG: cannot write to the guest's /dev/kmsg");
	}
out:
	sb_release(&sb);
}

/* What the guest sees of the host's files under the toolchain share: the
 * agent (root in the guest) reads each path under KB_HOSTROOT. */
static void probe_guest_reads(struct test_ctx *c)
{
	const char *paths = getenv("KBENCH_TEST_GUEST_READ");
	char *list, *save = NULL, where[KB_PATH_MAX];
	if (!paths || !*paths)
		return;
	list = xstrdup(paths);
	for (char *p = strtok_r(list, ":", &save); p; p = strtok_r(NULL, ":", &save)) {
		snprintf(where, sizeof(where), "%s%s", KB_HOSTROOT, p);
		char *data = guest_read(c->g, where);
		if (data)
			info("kbench test: the guest read %s (%zu bytes)", p, strlen(data));
		else
			info("kbench test: the guest cannot read %s", p);
		free(data);
	}
	free(list);
}

void test_hook(enum test_point pt, struct test_ctx *c)
{
	switch (pt) {
	case TEST_BEFORE_BOOT:
		inject_boot_panic(c);
		break;
	case TEST_AFTER_WORKLOADS:
		inject_kmsg(c);
		probe_guest_reads(c);
		break;
	}
}
