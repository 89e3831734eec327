/* cmd_lab.c - kbench lab check LAB: is a LAVA lab usable (docs/lab.md)?
 * The lab file parses, its token file is private and holds a token, the
 * server answers and takes the token, and it has a usable device of the
 * lab's type (and tags); the artifact directory is writable. Exit 0, or 2
 * with what is wrong. The token is never printed. */
#include "cli/cmd_lab.h"
#include "backend/lava_api.h"
#include "core/lab.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define LAB_DEVICES_MAX 256

/* The devices of L's type; prints them, returns how many are usable or -1. */
static int lab_devices(struct lava_conn *c, const struct lab *l)
{
	static struct lava_device d[LAB_DEVICES_MAX];
	char err[512];
	int n, usable = 0;
	if (lava_devices(c, l->device_type, d, LAB_DEVICES_MAX, &n, err, sizeof(err)))
		return error("lab '%s': %s", l->name, err);
	printf("lab %s: LAVA at %s took the token in %s; %d device%s%s%s\n", l->name, l->url,
	       l->token_file, n, n == 1 ? "" : "s", l->device_type[0] ? " of type " : "",
	       l->device_type);
	for (int i = 0; i < n; i++) {
		printf("  %s (%s): %s, %s%s\n", d[i].name, d[i].type, d[i].state, d[i].health,
		       d[i].usable ? "" : " (not usable)");
		usable += d[i].usable;
	}
	return usable;
}

static int lab_check(const char *name)
{
	struct lava_conn c;
	struct lab l;
	int ret = KB_EXIT_USAGE, usable;
	if (lab_load(name, &l))
		goto out;
	if (lava_connect(&c, &l))
		goto out;
	usable = lab_devices(&c, &l);
	lava_disconnect(&c);
	if (usable < 0)
		goto out;
	if (!usable) {
		error("lab '%s': no usable device%s%s (health Good or Unknown)", l.name,
		      l.device_type[0] ? " of type " : "", l.device_type);
		goto out;
	}
	if (access(l.artifacts, W_OK))
		warning("lab '%s': artifacts '%s' is not a writable directory: kbench cannot "
			"publish kernels there", l.name, l.artifacts);
	ret = KB_EXIT_OK;
out:
	lab_release(&l);
	return ret;
}

int cmd_lab(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "check"))
		return lab_check(argv[2]);
	error("usage: kbench lab check LAB (a name in configs/labs/ or a lab file)");
	return KB_EXIT_USAGE;
}
