/* runopts.c - the shared run options (runopts.h). */
#include "cli/runopts.h"
#include "backend/backend.h"
#include "core/ids.h"
#include "core/lab.h"
#include "core/target.h"
#include "core/util.h"

int runopts_parse(int c, const char *arg, struct run_opts *o)
{
	int bad = 0;
	switch (c) {
	case RO_KERNEL:
		o->kernel = arg;
		o->kernel_given = 1;
		break;
	case RO_KIMAGE: o->kernel_image = arg; break;
	case RO_KMODULES: o->kernel_modules = arg; break;
	case RO_KCONFIG: o->kernel_config = arg; break;
	case RO_SUITE: o->suite = arg; break;
	case RO_RESUME: o->resume = arg; break;
	case RO_CMDLINE: o->cmdline = arg; break;
	case RO_REPORTS:
		/* the console logs under it are QEMU options: refused before
		 * anything is written, not at the first boot */
		if (path_has_control(arg))
			bad = error("--reports '%s' has a newline or another control character: QEMU "
				    "cannot take such a path (it names the console log)", arg);
		o->reports = arg;
		break;
	case RO_BACKEND:
		/* refused here, before any command fetches, builds or boots */
		bad = !backend_lookup(arg);
		o->backend = arg;
		break;
	case RO_SCRATCH: o->scratch = arg; break;
	case RO_TARGET: o->target = arg; break;
	case RO_KEEP: o->keep = 1; break;
	case RO_LAB: o->lab = arg; break;
	case RO_LAB_DEVICE:
		if (!lab_name_ok(arg))
			bad = error("--lab-device '%s': a LAVA device name is letters, digits, '-', "
				    "'_' and '.'", arg);
		o->lab_device = arg;
		break;
	case RO_NO_LATEST: o->no_latest = 1; break;
	case RO_RUNID:
		bad = id_check("--run-id", arg);
		o->run_id = arg;
		break;
	case RO_ITER: bad = parse_int_opt("--iterations", arg, 1, 1000, &o->iterations); break;
	case RO_VCPUS: bad = parse_int_opt("--vcpus", arg, 1, 256, &o->vcpus); break;
	case RO_MEM: bad = parse_int_opt("--memory", arg, 256, 1 << 20, &o->mem_mb); break;
	case RO_ACCEL: bad = accel_parse(arg, &o->accel); break;
	case RO_TIMING: bad = timing_parse(arg, &o->timing); break;
	case RO_BOOT_TIMEOUT:
		bad = parse_int_opt("--boot-timeout", arg, 1, 3600, &o->boot_timeout_s);
		break;
	case RO_BUSY_THRESHOLD: {
		int pct;
		bad = parse_int_opt("--busy-threshold", arg, 1, 100, &pct);
		o->busy_threshold = pct;
		break;
	}
	case RO_BOOT_RETRIES:
		bad = parse_int_opt("--boot-retries", arg, 0, 10, &o->boot_retries);
		o->boot_retries_set = 1;
		break;
	default:
		return 0;
	}
	return bad ? -1 : 1;
}

int runopts_unknown(char **argv, const char *hint)
{
	return error("unknown option '%s'%s", argv[optind - 1], hint ? hint : "");
}

int runopts_where_loads(const char *target, const char *lab)
{
	if (target && *target) {
		struct target t;
		if (target_load(target, &t))
			return -1;
		target_release(&t);
	}
	if (lab && *lab) {
		struct lab l;
		if (lab_load(lab, &l))
			return -1;
		lab_release(&l);
	}
	return 0;
}
