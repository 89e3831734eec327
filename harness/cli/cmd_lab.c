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

/* LAB's devices of its type into D (*N of them); 0, or -1 after an error. */
static int lab_list(const char *name, struct lab *l, struct lava_device *d, int *n)
{
	struct lava_conn c;
	char err[512];
	int ret = -1;
	if (lab_load(name, l))
		return -1;
	if (lava_connect(&c, l))
		return -1;
	if (lava_devices(&c, l->device_type, d, LAB_DEVICES_MAX, n, err, sizeof(err)))
		error("lab '%s': %s", l->name, err);
	else
		ret = 0;
	lava_disconnect(&c);
	return ret;
}

int lab_pinnable(const char *name, struct strvec *devices, int *listed)
{
	static struct lava_device d[LAB_DEVICES_MAX];
	struct lab l;
	char why[256];
	int n = 0, ret = -1;
	*listed = 0;
	if (lab_list(name, &l, d, &n))
		goto out;
	*listed = n;
	for (int i = 0; i < n; i++)
		if (lava_device_pin_tag(d, n, i, &l.tags, why, sizeof(why)))
			strvec_push(devices, d[i].name);
	ret = 0;
out:
	lab_release(&l);
	return ret;
}

int lab_device_usable(const char *name, const char *device, char *why, size_t len)
{
	static struct lava_device d[LAB_DEVICES_MAX];
	struct lab l;
	int n = 0, ret = -1;
	snprintf(why, len, "lab '%s' did not answer", name);
	if (lab_list(name, &l, d, &n))
		goto out;
	ret = 0;
	snprintf(why, len, "no longer listed by the lab");
	for (int i = 0; i < n; i++)
		if (!strcmp(d[i].name, device)) {
			snprintf(why, len, "%s, %s", d[i].health, d[i].state);
			ret = d[i].usable;
		}
out:
	lab_release(&l);
	return ret;
}

/* The lab's devices, each with whether campaigns can pin rounds to it. */
static int lab_check(const char *name)
{
	static struct lava_device d[LAB_DEVICES_MAX];
	struct lab l;
	int ret = KB_EXIT_USAGE, usable = 0, n = 0;
	if (lab_list(name, &l, d, &n))
		goto out;
	printf("lab %s: LAVA at %s took the token in %s; %d device%s%s%s\n", l.name, l.url,
	       l.token_file, n, n == 1 ? "" : "s", l.device_type[0] ? " of type " : "",
	       l.device_type);
	for (int i = 0; i < n; i++) {
		char why[256];
		const char *own = lava_device_pin_tag(d, n, i, &l.tags, why, sizeof(why));
		printf("  %s (%s): %s, %s%s; %s%s%s\n", d[i].name, d[i].type, d[i].state,
		       d[i].health, d[i].usable ? "" : " (not usable)",
		       own ? "tag " : "campaigns cannot pin rounds to it: ", own ? own : why,
		       own ? " is its own (campaigns pin rounds to it)" : "");
		usable += d[i].usable;
	}
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
