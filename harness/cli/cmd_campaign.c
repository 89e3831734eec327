/* cmd_campaign.c - `kbench campaign`: every variant run interleaved
 * (iteration i of all before iteration i+1 of any, in a seeded shuffled
 * order per round), recorded in campaign.json so --resume can finish it,
 * then compared. Phases: parse, resume or check, create, rounds, finish. */
#include "cli/cmd_campaign.h"
#include "cli/cmd_compare.h"
#include "cli/cmd_lab.h"
#include "cli/runopts.h"
#include "core/config.h"
#include "core/hostnoise.h"
#include "core/ids.h"
#include "core/jsonutil.h"
#include "core/spawn.h"
#include "history/history.h"
#include "kernel/kernel.h"
#include "run/results.h"
#include "run/sweep.h"
#include "report/sweep_report.h"
#include "stats/compare.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static const char campaign_usage[] =
	"usage: kbench campaign [--kernels \"A B ...\"] [--suite SUITE] [--iterations N]\n"
	"         [--warmup N] [--seed N] [--baseline VARIANT] [--id ID] [--reports DIR]\n"
	"         [--vcpus N] [--memory MiB] [--accel auto|kvm|tcg] [--timing wall|instructions|auto]\n"
	"         [--boot-timeout S] [--boot-retries N]\n"
	"         [--backend NAME] [--busy-threshold PCT] [--busy-host flag|wait|refuse]\n"
	"         [--busy-wait S] [--target NAME [--keep] | --lab NAME] [--scratch DIR]\n"
	"       kbench campaign --resume ID|DIR   finish an interrupted campaign\n"
	"  runs every variant interleaved: iteration i of every variant before\n"
	"  iteration i+1 of any, in an order shuffled per round (seeded, recorded);\n"
	"  --warmup N discarded rounds first. Writes REPORTS/compare/ID/ with each\n"
	"  run's results, campaign.json, comparison.json and report.html.\n"
	"  default --kernels: every variant whose kernel can be had (prebuilt\n"
	"  packages, and source-built variants already built); default suite quick\n"
	"  before each run the host is watched for 3 s: when other processes use\n"
	"  --busy-threshold %% (default 10) of its CPU or more, --busy-host flag (the\n"
	"  default) warns and goes on, wait waits up to --busy-wait S (600) for it to\n"
	"  quieten, refuse stops the campaign (exit 2; --resume finishes it later);\n"
	"  every iteration is sampled and flagged busy in results.json either way\n"
	"  --lab NAME: every device of the lab that carries a tag of its own runs all\n"
	"  the rounds, the devices in parallel (--lab-device NAME: that one only); a\n"
	"  device that goes bad hands its rounds to the others (docs/lab.md)\n";

static const char sweep_usage[] =
	"usage: kbench sweep --kernel VARIANT --param module.param=V1,V2,... [--param ...]\n"
	"         [--suite SUITE] [--rounds N] [--warmup N] [--seed N] [--id ID] [--reports DIR]\n"
	"         [--vcpus N] [--memory MiB] [--accel auto|kvm|tcg] [--timing wall|instructions|auto]\n"
	"         [--boot-timeout S] [--boot-retries N] [--busy-threshold PCT] [--busy-host flag|wait|refuse]\n"
	"       kbench sweep --resume ID|DIR   finish an interrupted sweep\n"
	"  every point of the knobs' cartesian product is VARIANT's binary booted with\n"
	"  its command line, each knob set to the point's value (replacing the\n"
	"  variant's own setting), run as one campaign: interleaved, seeded, resumable\n"
	"  rounds (see kbench campaign --help). Writes REPORTS/sweep/ID/ with the\n"
	"  runs, campaign.json, comparison.json, report.html, sweep.json, sweep.html\n";

enum { K_KERNELS = RO_END, K_WARMUP, K_SEED, K_BASELINE, K_ID, K_BUSY_HOST, K_BUSY_WAIT, K_HELP,
       K_KERNEL, K_PARAM, K_ROUNDS };

struct campaign {
	json_object *doc;          /* campaign.json */
	char dir[KB_PATH_MAX];
	char path[KB_PATH_MAX];
	int resume;                /* finish runs already there, skip complete ones */
	struct run_opts ro;        /* what every run shares; ro.suite, ro.reports given */
	struct strvec kernels;     /* the variants, baseline first once created;
				    * a sweep's point labels */
	struct sweep *sw;          /* kbench sweep: the knobs; NULL for a campaign */
	struct strvec cmdlines;    /* a sweep's: each point's whole command line */
	const char *kind;          /* "compare" or "sweep": REPORTS/KIND/ID */
	const char *id, *baseline;
	char idbuf[KB_ID_MAX + 1];
	int iterations, warmup;
	enum busy_host busy;       /* --busy-host */
	int busy_wait;             /* --busy-wait seconds */
	int instructions;          /* a run so far had instructions timing: the
				    * host's load does not enter its figures, so
				    * the gate neither waits nor refuses */
	uint32_t seed;
	struct suite s;
	int failed, stop;
	struct strvec devices;     /* --lab: the devices rounds are pinned to
				    * (campaign.json lab.devices); empty: one
				    * run at a time, wherever LAVA puts it */
	int lab_listed;            /* the lab's devices of its type */
};

json_object *campaign_guest_json(const struct run_opts *ro)
{
	json_object *g = json_object_new_object();
	json_object_object_add(g, "vcpus", json_object_new_int(ro->vcpus));
	json_object_object_add(g, "mem_mb", json_object_new_int(ro->mem_mb));
	json_object_object_add(g, "boot_timeout_s", json_object_new_int(ro->boot_timeout_s));
	json_object_object_add(g, "accel", json_object_new_string(accel_name(ro->accel)));
	if (ro->timing != TIMING_DEFAULT) /* --resume keeps the clock */
		json_object_object_add(g, "timing", json_object_new_string(timing_name(ro->timing)));
	if (ro->boot_retries_set)
		json_object_object_add(g, "boot_retries", json_object_new_int(ro->boot_retries));
	if (ro->backend)
		json_object_object_add(g, "backend", json_object_new_string(ro->backend));
	/* where: --resume runs on the same machine */
	if (ro->target)
		json_object_object_add(g, "target", json_object_new_string(ro->target));
	if (ro->keep)
		json_object_object_add(g, "keep", json_object_new_boolean(1));
	if (ro->lab)
		json_object_object_add(g, "lab", json_object_new_string(ro->lab));
	if (ro->scratch)
		json_object_object_add(g, "scratch", json_object_new_string(ro->scratch));
	return g;
}

int campaign_guest_read(json_object *g, const char *path, struct run_opts *ro)
{
	json_object *a = jget(g, "accel");
	ro->vcpus = json_object_get_int(jget(g, "vcpus"));
	ro->mem_mb = json_object_get_int(jget(g, "mem_mb"));
	ro->boot_timeout_s = json_object_get_int(jget(g, "boot_timeout_s"));
	if (json_object_is_type(a, json_type_int)) {
		int n = json_object_get_int(a); /* before accel was a name */
		if (n < ACCEL_AUTO || n > ACCEL_TCG)
			return error("'%s': guest accel %d is not 0 (auto), 1 (kvm) or 2 (tcg)", path, n);
		ro->accel = (enum accel)n;
	} else if (a && (!json_object_is_type(a, json_type_string) ||
			 accel_parse(json_object_get_string(a), &ro->accel))) {
		return error("'%s': guest accel must be \"auto\", \"kvm\" or \"tcg\"", path);
	}
	if (jget(g, "timing") && (!json_object_is_type(jget(g, "timing"), json_type_string) ||
				  timing_parse(jstr(g, "timing"), &ro->timing)))
		return error("'%s': guest timing must be \"wall\", \"instructions\" or \"auto\"", path);
	if (jget(g, "boot_retries")) {
		ro->boot_retries = json_object_get_int(jget(g, "boot_retries"));
		ro->boot_retries_set = 1;
	}
	ro->backend = jstr(g, "backend");
	ro->target = jstr(g, "target");
	ro->keep = json_object_get_boolean(jget(g, "keep"));
	ro->lab = jstr(g, "lab");
	ro->scratch = jstr(g, "scratch");
	return 0;
}

static int campaign_save(struct campaign *cp)
{
	return results_save(cp->doc, cp->path);
}

/* Variants that can be had without a long build: Debian images (fetched
 * on demand) and source-built variants already in the build cache. */
static void default_kernels(struct strvec *out)
{
	char *names = variant_names(), *save = NULL;
	for (char *n = strtok_r(names, " ", &save); n; n = strtok_r(NULL, " ", &save)) {
		struct variant v;
		struct kernel_image k;
		if (variant_load(n, &v) || v.test_only)
			continue;
		if (v.source == VSRC_DEBIAN_IMAGE || kernel_cached(&v, &k) == 0)
			strvec_push(out, v.name);
	}
	free(names);
}

/* Parse: KB_EXIT_OK to go on, else the exit status (--help: -1 then 0). */
static int campaign_parse(int argc, char **argv, struct campaign *cp)
{
	static const struct option longopts[] = {
		{ "kernels", required_argument, NULL, K_KERNELS },
		RUNOPTS_SUITE,
		RUNOPTS_WHERE,
		RUNOPTS_GUEST,
		{ "warmup", required_argument, NULL, K_WARMUP },
		{ "seed", required_argument, NULL, K_SEED },
		{ "baseline", required_argument, NULL, K_BASELINE },
		{ "id", required_argument, NULL, K_ID },
		{ "busy-host", required_argument, NULL, K_BUSY_HOST },
		{ "busy-wait", required_argument, NULL, K_BUSY_WAIT },
		{ "help", no_argument, NULL, K_HELP },
		{ "kernel", required_argument, NULL, K_KERNEL },
		{ "param", required_argument, NULL, K_PARAM },
		{ "rounds", required_argument, NULL, K_ROUNDS },
		{ NULL, 0, NULL, 0 },
	};
	const char *usage = cp->sw ? sweep_usage : campaign_usage;
	int c, r;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		int bad = 0;
		if ((r = runopts_parse(c, optarg, &cp->ro)) != 0) {
			if (r < 0)
				return KB_EXIT_USAGE;
			continue;
		}
		if ((!cp->sw && c >= K_KERNEL) || (cp->sw && c == K_KERNELS))
			return error("%s", cp->sw ? "kbench sweep takes one --kernel VARIANT and --param, "
				     "not --kernels" : "--kernel, --param and --rounds are kbench sweep's"),
			       KB_EXIT_USAGE;
		switch (c) {
		case K_KERNEL: snprintf(cp->sw->variant, sizeof(cp->sw->variant), "%s", optarg); break;
		case K_PARAM: bad = sweep_param_parse(cp->sw, optarg) != 0; break;
		case K_ROUNDS: bad = parse_int_opt("--rounds", optarg, 1, 1000, &cp->ro.iterations); break;
		case K_KERNELS: {
			char *list = xstrdup(optarg), *save = NULL;
			for (char *t = strtok_r(list, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
				strvec_push(&cp->kernels, t);
			free(list);
			break;
		}
		case K_WARMUP: bad = parse_int_opt("--warmup", optarg, 0, 100, &cp->warmup); break;
		case K_SEED: bad = parse_u32_opt("--seed", optarg, &cp->seed); break;
		case K_BASELINE: cp->baseline = optarg; break;
		case K_ID: cp->id = optarg; break;
		case K_BUSY_HOST: bad = busy_host_parse(optarg, &cp->busy); break;
		case K_BUSY_WAIT: bad = parse_int_opt("--busy-wait", optarg, 1, 86400, &cp->busy_wait); break;
		case K_HELP:
			fputs(usage, stdout);
			return -1;
		default:
			runopts_unknown(argv, "");
			fputs(usage, stderr);
			return KB_EXIT_USAGE;
		}
		if (bad)
			return KB_EXIT_USAGE;
	}
	if (optind < argc)
		return error("unexpected argument '%s' (%s)", argv[optind], cp->sw ?
			     "the knobs go in --param" : "the variants go in --kernels"), KB_EXIT_USAGE;
	cp->iterations = cp->ro.iterations;
	return KB_EXIT_OK;
}

/* --resume: everything as the campaign recorded it: variants, suite,
 * rounds, seed (so the shuffled order comes out the same) and guest. */
static int campaign_load(struct campaign *cp)
{
	const char *resume = cp->ro.resume, *reports = cp->ro.reports;
	json_object *vs, *g;
	if (cp->kernels.n || cp->id || cp->baseline || (cp->sw && (cp->sw->variant[0] || cp->sw->nknobs)))
		return error("--resume takes the %s's own %s, id and baseline", cp->sw ? "sweep" : "campaign",
			     cp->sw ? "variant, knobs" : "variants");
	if (strchr(resume, '/'))
		snprintf(cp->dir, sizeof(cp->dir), "%s", resume);
	else if (reports)
		snprintf(cp->dir, sizeof(cp->dir), "%s/%s/%s", reports, cp->kind, resume);
	else
		snprintf(cp->dir, sizeof(cp->dir), "%s/reports/%s/%s", kb_home(), cp->kind, resume);
	snprintf(cp->path, sizeof(cp->path), "%s/campaign.json", cp->dir);
	if (!path_exists(cp->path))
		return error("--resume: '%s' has no campaign.json", cp->dir);
	cp->doc = json_object_from_file(cp->path);
	if (!cp->doc)
		return error("'%s': not readable JSON (%s)", cp->path, json_util_get_last_err());
	if (strcmp(or_empty(jstr(cp->doc, "schema")), "kbench-campaign") ||
	    !json_object_is_type(vs = jget(cp->doc, "variants"), json_type_array) ||
	    !jstr(cp->doc, "suite_path"))
		return error("--resume: '%s' is not a campaign this kbench can resume (no variants or "
			     "suite_path)", cp->path);
	if (!cp->sw != !jget(cp->doc, "sweep"))
		return error("--resume: '%s' is %s: resume it with kbench %s --resume", cp->path,
			     cp->sw ? "a campaign, not a sweep" : "a sweep", cp->sw ? "campaign" : "sweep");
	if (cp->sw && sweep_from_json(jget(cp->doc, "sweep"), cp->path, cp->sw))
		return -1;
	for (size_t i = 0; !cp->sw && i < json_object_array_length(vs); i++)
		strvec_push(&cp->kernels, or_empty(json_object_get_string(json_object_array_get_idx(vs, i))));
	cp->ro.suite = jstr(cp->doc, "suite_path");
	cp->iterations = json_object_get_int(jget(cp->doc, "iterations"));
	cp->warmup = json_object_get_int(jget(cp->doc, "warmup_rounds"));
	cp->seed = (uint32_t)json_object_get_int64(jget(cp->doc, "seed"));
	cp->id = jstr(cp->doc, "id");
	if ((g = jget(cp->doc, "guest")) && campaign_guest_read(g, cp->path, &cp->ro))
		return -1;
	cp->resume = 1;
	return 0;
}

/* A sweep's points: labels into cp->kernels, command lines beside them. */
static int sweep_points(struct campaign *cp)
{
	struct variant v;
	char label[KB_ID_MAX + 1], line[OPT_STR_MAX * 2];
	if (!cp->sw->variant[0] || !cp->sw->nknobs)
		return error("kbench sweep needs --kernel VARIANT and at least one --param");
	if (variant_load(cp->sw->variant, &v))
		return -1;
	for (size_t i = 0; i < sweep_npoints(cp->sw); i++) {
		sweep_label(cp->sw, i, label, sizeof(label));
		if (sweep_cmdline(cp->sw, i, v.cmdline, line, sizeof(line)))
			return -1;
		strvec_push(&cp->kernels, label);
		strvec_push(&cp->cmdlines, line);
	}
	return 0;
}

/* --lab: the devices that carry a tag of their own, so each can run
 * rounds of its own in parallel with the others. None: the campaign runs
 * as on one machine, each run wherever LAVA puts it (said, not silent). */
static int lab_devices_pick(struct campaign *cp)
{
	if (runopts_where_loads(NULL, cp->ro.lab) ||
	    lab_pinnable(cp->ro.lab, &cp->devices, &cp->lab_listed))
		return -1;
	if (cp->ro.lab_device) { /* --lab-device: that one device only */
		size_t i;
		for (i = 0; i < cp->devices.n && strcmp(cp->devices.v[i], cp->ro.lab_device); i++)
			;
		if (i == cp->devices.n)
			return error("--lab-device %s: not a usable device of lab '%s' with a tag of "
				     "its own (kbench lab check %s)", cp->ro.lab_device, cp->ro.lab,
				     cp->ro.lab);
		strvec_clear(&cp->devices);
		strvec_push(&cp->devices, cp->ro.lab_device);
	}
	if (!cp->devices.n)
		warning("lab '%s': none of its %d usable devices has a tag of its own (kbench lab "
			"check lists them): the campaign runs one job at a time on whichever device "
			"LAVA picks, and the comparison blocks by device where it can; tag each "
			"device to run them in parallel", cp->ro.lab, cp->lab_listed);
	return 0;
}

/* Every name, the baseline, the suite and the id, before booting anything. */
static int campaign_check(struct campaign *cp)
{
	if (cp->sw && sweep_points(cp))
		return -1;
	if (!cp->kernels.n)
		default_kernels(&cp->kernels);
	if (!cp->kernels.n)
		return error("no kernel variant can be had (see kbench kernels)");
	for (size_t i = 0; !cp->sw && i < cp->kernels.n; i++) {
		struct variant v;
		if (variant_load(cp->kernels.v[i], &v))
			return -1;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(cp->kernels.v[j], cp->kernels.v[i]))
				return error("variant '%s' named twice in --kernels", cp->kernels.v[i]);
	}
	if (cp->baseline) {
		size_t i;
		for (i = 0; i < cp->kernels.n && strcmp(cp->kernels.v[i], cp->baseline); i++)
			;
		if (i == cp->kernels.n)
			return error("baseline '%s' is not in --kernels", cp->baseline);
	}
	if (suite_load(cp->ro.suite, cp->ro.vcpus > 0 ? cp->ro.vcpus : 1, &cp->s))
		return -1;
	if (!cp->iterations)
		cp->iterations = cp->s.iterations;
	if (cp->s.warmup)
		warning("suite '%s' has warmup = %d: run_bench repeats it before every round's "
			"iteration (use --warmup for one discarded round instead)", cp->s.name, cp->s.warmup);
	if (!cp->id) {
		id_make(cp->idbuf, sizeof(cp->idbuf), cp->s.name, NULL);
		cp->id = cp->idbuf;
	}
	if (id_check("--id", cp->id))
		return -1;
	return cp->ro.lab && !cp->sw && !cp->resume ? lab_devices_pick(cp) : 0;
}

/* A lab campaign's plan (campaign.json lab): every device its own warm-up
 * and measured rounds, each round's order shuffled from SEED + the
 * device's index (device 0's orders are those of a campaign on one
 * machine); each run an entry {device, round, warmup, variant, run_id,
 * state: todo, done or moved}. */
static void lab_plan(struct campaign *cp)
{
	json_object *lab = json_object_new_object(), *plan = json_object_new_array(),
		    *devs = json_object_new_array(), *od = json_object_new_array();
	size_t n = cp->kernels.n;
	int rounds = cp->warmup + cp->iterations;
	for (size_t d = 0; d < cp->devices.n; d++) {
		size_t *all = campaign_order(cp->seed + (uint32_t)d, n, rounds);
		json_object_array_add(devs, json_object_new_string(cp->devices.v[d]));
		for (int r = 0; r < rounds; r++) {
			json_object *ord = json_object_new_array();
			int warm = r < cp->warmup, round = warm ? r + 1 : r + 1 - cp->warmup;
			for (size_t i = 0; i < n; i++) {
				const char *v = cp->kernels.v[all[(size_t)r * n + i]];
				json_object *e = json_object_new_object();
				char id[KB_ID_MAX + 1];
				snprintf(id, sizeof(id), "%s-%s%02d-%s", cp->devices.v[d], warm ? "w" : "r",
					 round, v);
				jset_str(e, "device", cp->devices.v[d]);
				jset_int(e, "round", round);
				jset_bool(e, "warmup", warm);
				jset_str(e, "variant", v);
				jset_str(e, "run_id", id);
				jset_str(e, "state", "todo");
				json_object_array_add(plan, e);
				json_object_array_add(ord, json_object_new_string(v));
			}
			json_object_array_add(json_object_object_get(cp->doc, "order"), ord);
			json_object_array_add(od, json_object_new_string(cp->devices.v[d]));
		}
		free(all);
	}
	json_object_object_add(lab, "devices", devs);
	json_object_object_add(lab, "bad", json_object_new_object());
	json_object_object_add(lab, "plan", plan);
	json_object_object_add(cp->doc, "lab", lab);
	json_object_object_add(cp->doc, "order_devices", od);
}

/* A new campaign: its directory and campaign.json (baseline first: the
 * comparison's order follows the campaign's). */
static int campaign_create(struct campaign *cp)
{
	json_object *ord = json_object_new_array();
	char ts[32];
	if (cp->ro.reports)
		snprintf(cp->dir, sizeof(cp->dir), "%s/%s/%s", cp->ro.reports, cp->kind, cp->id);
	else
		snprintf(cp->dir, sizeof(cp->dir), "%s/reports/%s/%s", kb_home(), cp->kind, cp->id);
	if (path_exists(cp->dir)) {
		json_object_put(ord);
		return error("campaign directory '%s' already exists", cp->dir);
	}
	if (mkdir_p(cp->dir, 0755)) {
		json_object_put(ord);
		return -1;
	}
	snprintf(cp->path, sizeof(cp->path), "%s/campaign.json", cp->dir);
	if (cp->baseline)
		for (size_t i = 1; i < cp->kernels.n; i++)
			if (!strcmp(cp->kernels.v[i], cp->baseline)) {
				char *t = cp->kernels.v[i];
				memmove(&cp->kernels.v[1], &cp->kernels.v[0], i * sizeof(char *));
				cp->kernels.v[0] = t;
			}
	iso8601_now(ts, sizeof(ts));
	cp->doc = json_object_new_object();
	json_object_object_add(cp->doc, "schema", json_object_new_string("kbench-campaign"));
	json_object_object_add(cp->doc, "schema_version", json_object_new_int(1));
	json_object_object_add(cp->doc, "id", json_object_new_string(cp->id));
	json_object_object_add(cp->doc, "started", json_object_new_string(ts));
	json_object_object_add(cp->doc, "finished", NULL);
	json_object_object_add(cp->doc, "suite", json_object_new_string(cp->s.name));
	json_object_object_add(cp->doc, "suite_path", json_object_new_string(cp->s.path));
	json_object_object_add(cp->doc, "guest", campaign_guest_json(&cp->ro));
	json_object_object_add(cp->doc, "iterations", json_object_new_int(cp->iterations));
	json_object_object_add(cp->doc, "warmup_rounds", json_object_new_int(cp->warmup));
	json_object_object_add(cp->doc, "seed", json_object_new_int64(cp->seed));
	json_object_object_add(cp->doc, "shuffle", json_object_new_string(
		"gsl_ran_shuffle, gsl mt19937 seeded with seed, one shuffle per round (warm-up first)"));
	for (size_t i = 0; i < cp->kernels.n; i++)
		json_object_array_add(ord, json_object_new_string(cp->kernels.v[i]));
	json_object_object_add(cp->doc, "variants", ord);
	if (cp->sw)
		json_object_object_add(cp->doc, "sweep", sweep_to_json(cp->sw));
	json_object_object_add(cp->doc, "order", json_object_new_array());
	json_object_object_add(cp->doc, "runs", json_object_new_array());
	if (cp->devices.n)
		lab_plan(cp);
	return campaign_save(cp);
}

/* A resumed campaign: when, and the order drawn again from the seed. */
static int campaign_reopen(struct campaign *cp)
{
	json_object *rs = jget(cp->doc, "resumed");
	char ts[32];
	if (!rs) {
		rs = json_object_new_array();
		json_object_object_add(cp->doc, "resumed", rs);
	}
	iso8601_now(ts, sizeof(ts));
	json_object_array_add(rs, json_object_new_string(ts));
	if (!jget(cp->doc, "lab")) /* a lab campaign's orders are in its plan */
		json_object_object_add(cp->doc, "order", json_object_new_array());
	json_object_object_add(cp->doc, "status", json_object_new_string("running"));
	return campaign_save(cp);
}

/* --resume: the same (round, variant) run as before: 1 if done, else 0
 * with O set to finish it, or (never started) run it afresh. */
static int campaign_run_done(struct campaign *cp, struct run_opts *o, const char *id,
			     char *dir, size_t dirlen)
{
	char res[KB_PATH_MAX + 320];
	json_object *runs = json_object_object_get(cp->doc, "runs"), *old;
	int done;
	snprintf(dir, dirlen, "%s/runs/%s", o->reports, id);
	snprintf(res, sizeof(res), "%s/results.json", dir);
	for (size_t i = 0; i < json_object_array_length(runs); i++)
		if (!strcmp(or_empty(jstr(json_object_array_get_idx(runs, i), "run_id")), id)) {
			json_object_array_del_idx(runs, i, 1);
			break;
		}
	if (!path_exists(res)) {
		if (path_exists(dir)) /* killed before its first save: start it afresh */
			rm_rf(dir);
		return 0;
	}
	old = results_load(res);
	done = old && !strcmp(or_empty(jstr(old, "status")), "complete");
	json_object_put(old);
	if (!done)
		o->resume = dir;
	return done;
}

/* One (variant, round) run: iterations = 1, results in DIR/runs/RUN_ID;
 * recorded in campaign.json. The run's exit status, or -1 when
 * campaign.json could not be saved (--resume would redo or miss runs). */
static int campaign_run(struct campaign *cp, size_t k, int round, int rounds, int warm,
			int pos, int npos)
{
	const char *variant = cp->kernels.v[k];
	struct run_opts o = cp->ro;
	struct run_result r;
	char id[256], reports[KB_PATH_MAX], dir[KB_PATH_MAX + 300];
	const char *what = warm ? "warm-up round" : "round";
	json_object *e;
	int rc;
	snprintf(id, sizeof(id), "%s%02d-%s", warm ? "w" : "r", round, variant);
	for (char *p = id; *p; p++) /* a sweep's label: '@', '=' and ',' */
		if (!isalnum((unsigned char)*p) && !strchr("._-", *p))
			*p = '_';
	snprintf(reports, sizeof(reports), "%s%s", cp->dir, warm ? "/warmup" : "");
	o.kernel = cp->sw ? cp->sw->variant : variant;
	if (cp->sw) {
		o.cmdline = cp->cmdlines.v[k];
		o.cmdline_whole = 1;
	}
	o.iterations = 1;
	o.run_id = id;
	o.reports = reports;
	o.resume = NULL;
	o.no_latest = 1;
	o.quiet_summary = 1;
	if (cp->resume && campaign_run_done(cp, &o, id, dir, sizeof(dir))) {
		printf("kbench campaign: %s %d/%d: %s done\n", what, round, rounds, variant);
		rc = KB_EXIT_OK;
	} else {
		printf("kbench campaign: %s %d/%d, run %d/%d: %s\n", what, round, rounds, pos, npos,
		       variant);
		if (!cp->instructions && o.timing != TIMING_INSTRUCTIONS &&
		    hostnoise_gate(cp->busy, o.busy_threshold > 0 ? o.busy_threshold :
					     HOSTNOISE_THRESHOLD_PCT, cp->busy_wait))
			return -1;
		rc = run_bench(&o, &r);
		if (r.doc && !strcmp(results_timing(r.doc), "instructions"))
			cp->instructions = 1;
		run_result_release(&r);
	}
	e = json_object_new_object();
	jset_int(e, "round", round);
	jset_bool(e, "warmup", warm);
	jset_int(e, "position", pos);
	jset_str(e, "variant", variant);
	jset_str(e, "run_id", id);
	jset_int(e, "exit", rc);
	json_object_array_add(json_object_object_get(cp->doc, "runs"), e);
	if (campaign_save(cp)) {
		error("campaign stopped: '%s' could not be saved (--resume needs it)", cp->path);
		return -1;
	}
	return rc;
}

size_t *campaign_order(uint32_t seed, size_t n, int rounds)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	size_t *order = xcalloc(n * (size_t)(rounds > 0 ? rounds : 1), sizeof(size_t));
	gsl_rng_set(rng, seed);
	for (int r = 0; r < rounds; r++) {
		size_t *o = order + (size_t)r * n;
		for (size_t i = 0; i < n; i++)
			o[i] = i;
		gsl_ran_shuffle(rng, o, n, sizeof(size_t));
	}
	gsl_rng_free(rng);
	return order;
}

/* The rounds, warm-up first, each in its own shuffled order. */
static int campaign_rounds(struct campaign *cp)
{
	size_t n = cp->kernels.n, *all = campaign_order(cp->seed, n, cp->warmup + cp->iterations);
	int ret = KB_EXIT_OK;
	for (int round = 1 - cp->warmup; round <= cp->iterations && !cp->stop && !kb_interrupted;
	     round++) {
		int warm = round <= 0;
		size_t *order = all + (size_t)(round - 1 + cp->warmup) * n;
		json_object *ro_json = json_object_new_array();
		for (size_t i = 0; i < n; i++)
			json_object_array_add(ro_json, json_object_new_string(cp->kernels.v[order[i]]));
		json_object_array_add(json_object_object_get(cp->doc, "order"), ro_json);
		for (size_t i = 0; i < n && !kb_interrupted; i++) {
			const char *v = cp->kernels.v[order[i]];
			int rc = campaign_run(cp, order[i], warm ? round + cp->warmup : round,
					      warm ? cp->warmup : cp->iterations, warm, (int)i + 1, (int)n);
			if (rc < 0 || (rc == KB_EXIT_USAGE && !kb_interrupted)) {
				if (rc >= 0)
					error("campaign stopped: %s could not run (see above)", v);
				cp->stop = 1;
				ret = KB_EXIT_USAGE;
				break;
			}
			if (rc)
				cp->failed = 1;
		}
	}
	free(all);
	return ret;
}

/* A lab campaign's runs: one `kbench run --lab-device` child per device at
 * a time, the devices in parallel (kbench only waits on LAVA there, so a
 * process per device costs nothing); each child's output in
 * DIR/logs/RUN_ID.log. */
struct lab_slot {
	const char *device;
	int bad;               /* went bad: takes no more runs */
	struct child c;        /* running while c.pid > 0 */
	json_object *e;        /* its plan entry */
	double t0;
	char log[KB_PATH_MAX + 300];
};

static json_object *lab_next(struct campaign *cp, const char *device)
{
	json_object *plan = jget(jget(cp->doc, "lab"), "plan");
	for (size_t i = 0; i < json_object_array_length(plan); i++) {
		json_object *e = json_object_array_get_idx(plan, i);
		if (!strcmp(or_empty(jstr(e, "device")), device) &&
		    !strcmp(or_empty(jstr(e, "state")), "todo"))
			return e;
	}
	return NULL;
}

/* Start the next run of slot S's device; 0 started, 1 nothing left, -1 error. */
static int lab_start(struct campaign *cp, struct lab_slot *sl, const char *self, int *pos)
{
	json_object *e = lab_next(cp, sl->device);
	const char *id, *v;
	char reports[KB_PATH_MAX], dir[KB_PATH_MAX + 300], res[KB_PATH_MAX + 320], n[16];
	int warm;
	if (!e)
		return 1;
	id = jstr(e, "run_id");
	v = jstr(e, "variant");
	warm = json_object_get_boolean(jget(e, "warmup"));
	snprintf(reports, sizeof(reports), "%s%s", cp->dir, warm ? "/warmup" : "");
	snprintf(dir, sizeof(dir), "%s/runs/%s", reports, id);
	snprintf(res, sizeof(res), "%s/results.json", dir);
	snprintf(sl->log, sizeof(sl->log), "%s/logs", cp->dir);
	if (mkdir_p(sl->log, 0755))
		return -1;
	snprintf(sl->log, sizeof(sl->log), "%s/logs/%s.log", cp->dir, id);
	sl->c = (struct child)CHILD_INIT;
	strvec_push(&sl->c.argv, self);
	strvec_push(&sl->c.argv, "run");
	if (path_exists(res)) { /* --resume of the campaign: finish that run */
		json_object *old = results_load(res);
		int done = old && !strcmp(or_empty(jstr(old, "status")), "complete");
		json_object_put(old);
		if (done) {
			printf("kbench campaign: %s: %s done\n", sl->device, id);
			jset_str(e, "state", "done");
			return campaign_save(cp) ? -1 : 0;
		}
		strvec_push(&sl->c.argv, "--resume");
		strvec_push(&sl->c.argv, dir);
	} else {
		if (path_exists(dir)) /* killed before its first save */
			rm_rf(dir);
		snprintf(n, sizeof(n), "1");
		const char *a[] = { "--kernel", v, "--suite", cp->s.path, "--iterations", n,
				    "--reports", reports, "--run-id", id };
		for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++)
			strvec_push(&sl->c.argv, a[i]);
		if (cp->ro.boot_retries_set)
			strvec_pushf(&sl->c.argv, "--boot-retries=%d", cp->ro.boot_retries);
		if (cp->ro.boot_timeout_s)
			strvec_pushf(&sl->c.argv, "--boot-timeout=%d", cp->ro.boot_timeout_s);
	}
	strvec_push(&sl->c.argv, "--lab");
	strvec_push(&sl->c.argv, cp->ro.lab);
	strvec_push(&sl->c.argv, "--lab-device");
	strvec_push(&sl->c.argv, sl->device);
	strvec_push(&sl->c.argv, "--no-latest");
	sl->c.stdout_path = sl->c.stderr_path = sl->log;
	if (child_start(&sl->c)) {
		child_release(&sl->c);
		return -1;
	}
	sl->e = e;
	sl->t0 = now_mono();
	jset_str(e, "state", "running");
	printf("kbench campaign: %s: %sround %d: %s (run %d; log %s)\n", sl->device,
	       warm ? "warm-up " : "", json_object_get_int(jget(e, "round")), v, ++*pos, sl->log);
	return 0;
}

/* Why run E failed: its first failed iteration's error (results.json),
 * else the last line of its LOG. */
static void lab_run_error(struct campaign *cp, json_object *e, const char *log, char *buf,
			  size_t len)
{
	char res[KB_PATH_MAX + 320];
	json_object *doc, *its;
	snprintf(res, sizeof(res), "%s%s/runs/%s/results.json", cp->dir,
		 json_object_get_boolean(jget(e, "warmup")) ? "/warmup" : "", or_empty(jstr(e, "run_id")));
	file_last_line(log, buf, len);
	if (!path_exists(res) || !(doc = results_load(res)))
		return;
	its = jget(doc, "iterations");
	for (size_t i = 0; json_object_is_type(its, json_type_array) &&
			   i < json_object_array_length(its); i++) {
		const char *err = jstr(json_object_array_get_idx(its, i), "error");
		if (err) {
			snprintf(buf, len, "%s", err);
			break;
		}
	}
	json_object_put(doc);
}

/* The device of a failed run is no longer usable: it takes no more runs,
 * and its unfinished rounds go, whole, to the devices still good (a round
 * keeps all its variants on one device: the comparison blocks by device). */
static int lab_device_bad(struct campaign *cp, struct lab_slot *slots, size_t ns,
			  struct lab_slot *sl, const char *why)
{
	json_object *lab = jget(cp->doc, "lab"), *plan = jget(lab, "plan"), *moved;
	size_t good = 0, k = 0;
	int last_round = -1;
	struct lab_slot *to = NULL;
	sl->bad = 1;
	json_object_object_add(jget(lab, "bad"), sl->device, json_object_new_string(why));
	for (size_t i = 0; i < ns; i++)
		good += !slots[i].bad;
	warning("campaign: lab device %s went bad (%s): it takes no more runs%s", sl->device, why,
		good ? "; its unfinished rounds move to the others" : "");
	if (!good)
		return error("campaign stopped: no device of lab '%s' is usable", cp->ro.lab);
	moved = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(plan); i++) {
		json_object *e = json_object_array_get_idx(plan, i);
		if (strcmp(or_empty(jstr(e, "device")), sl->device) ||
		    strcmp(or_empty(jstr(e, "state")), "todo"))
			continue;
		jset_str(e, "state", "moved");
		if (json_object_get_boolean(jget(e, "warmup")))
			continue; /* a warm-up is the device's own */
		if (json_object_get_int(jget(e, "round")) != last_round) {
			last_round = json_object_get_int(jget(e, "round"));
			do
				to = &slots[k++ % ns];
			while (to->bad);
		}
		json_object *ne = json_object_new_object();
		char id[KB_ID_MAX + 1];
		snprintf(id, sizeof(id), "%s-r%02d-%s-from-%s", to->device, last_round,
			 or_empty(jstr(e, "variant")), sl->device);
		jset_str(ne, "device", to->device);
		jset_int(ne, "round", last_round);
		jset_bool(ne, "warmup", 0);
		jset_str(ne, "variant", or_empty(jstr(e, "variant")));
		jset_str(ne, "run_id", id);
		jset_str(ne, "state", "todo");
		jset_str(ne, "moved_from", sl->device);
		json_object_array_add(moved, ne);
		info("campaign: %s round %d: %s moves to %s", sl->device, last_round,
		     or_empty(jstr(e, "variant")), to->device);
	}
	for (size_t i = 0; i < json_object_array_length(moved); i++)
		json_object_array_add(plan, json_object_get(json_object_array_get_idx(moved, i)));
	json_object_put(moved);
	return 0;
}

/* A run that failed because its device went bad: moved from runs/ to
 * lab-failed/ (kept to read, never compared). */
static int lab_set_aside(struct campaign *cp, json_object *e)
{
	char from[KB_PATH_MAX + 300], to[KB_PATH_MAX + 300];
	int warm = json_object_get_boolean(jget(e, "warmup"));
	snprintf(from, sizeof(from), "%s%s/runs/%s", cp->dir, warm ? "/warmup" : "",
		 or_empty(jstr(e, "run_id")));
	snprintf(to, sizeof(to), "%s/lab-failed", cp->dir);
	if (!path_exists(from))
		return 0;
	if (mkdir_p(to, 0755))
		return -1;
	snprintf(to, sizeof(to), "%s/lab-failed/%s", cp->dir, or_empty(jstr(e, "run_id")));
	rm_rf(to);
	if (rename(from, to))
		return error("cannot move '%s' to '%s': %s", from, to, strerror(errno));
	info("campaign: %s set aside in %s (the lab's fault, not the variant's)",
	     or_empty(jstr(e, "run_id")), to);
	return 0;
}

/* Slot SL's run ended with status ST: recorded, and its device checked. */
static int lab_finish(struct campaign *cp, struct lab_slot *slots, size_t ns, struct lab_slot *sl,
		      int st)
{
	json_object *e = sl->e, *r = json_object_new_object();
	char last[400], why[200];
	int ret = 0;
	jset_int(r, "round", json_object_get_int(jget(e, "round")));
	jset_bool(r, "warmup", json_object_get_boolean(jget(e, "warmup")));
	jset_str(r, "variant", or_empty(jstr(e, "variant")));
	jset_str(r, "run_id", or_empty(jstr(e, "run_id")));
	jset_str(r, "device", sl->device);
	jset_int(r, "exit", st);
	json_object_array_add(json_object_object_get(cp->doc, "runs"), r);
	jset_str(e, "state", kb_interrupted ? "todo" : "done");
	last[0] = '\0';
	if (st)
		lab_run_error(cp, e, sl->log, last, sizeof(last));
	printf("kbench campaign: %s: %s exit %d after %.0f s%s%s\n", sl->device,
	       or_empty(jstr(e, "run_id")), st, now_mono() - sl->t0, st ? ": " : "", st ? last : "");
	if (st && !kb_interrupted &&
	    !lab_device_usable(cp->ro.lab, sl->device, why, sizeof(why))) {
		/* the device's fault, not the variant's (a job that waited for
		 * it, or a run that refused it at its start): the run is set
		 * aside (lab-failed/, not compared) and done again elsewhere */
		jset_bool(r, "lab_failed", 1);
		jset_str(e, "state", "todo");
		if (lab_set_aside(cp, e) || lab_device_bad(cp, slots, ns, sl, why)) {
			cp->stop = 1;
			ret = -1;
		}
	} else if (st == KB_EXIT_USAGE && !kb_interrupted) {
		error("campaign stopped: %s could not run on %s (log %s)", jstr(e, "variant"),
		      sl->device, sl->log);
		cp->stop = 1;
		ret = -1;
	} else if (st && !kb_interrupted) {
		cp->failed = 1;
	}
	child_release(&sl->c);
	sl->e = NULL;
	if (campaign_save(cp)) {
		error("campaign stopped: '%s' could not be saved (--resume needs it)", cp->path);
		cp->stop = 1;
		ret = -1;
	}
	return ret;
}

static int lab_rounds(struct campaign *cp)
{
	json_object *devs = jget(jget(cp->doc, "lab"), "devices"), *bad = jget(jget(cp->doc, "lab"), "bad");
	size_t ns = json_object_array_length(devs), running;
	struct lab_slot *slots = xcalloc(ns, sizeof(*slots));
	char self[KB_PATH_MAX];
	ssize_t sn = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int ret = KB_EXIT_OK, pos = 0;
	if (sn <= 0) {
		free(slots);
		return error("cannot find kbench's own executable (/proc/self/exe)"), KB_EXIT_USAGE;
	}
	self[sn] = '\0';
	for (size_t i = 0; i < ns; i++) {
		slots[i].device = json_object_get_string(json_object_array_get_idx(devs, i));
		slots[i].c = (struct child)CHILD_INIT;
		slots[i].bad = jget(bad, slots[i].device) != NULL;
	}
	/* runs left running by a killed campaign start again (--resume) */
	for (size_t i = 0; i < json_object_array_length(jget(jget(cp->doc, "lab"), "plan")); i++) {
		json_object *e = json_object_array_get_idx(jget(jget(cp->doc, "lab"), "plan"), i);
		if (!strcmp(or_empty(jstr(e, "state")), "running"))
			jset_str(e, "state", "todo");
	}
	printf("kbench campaign: on lab %s, %zu devices in parallel, each its own rounds\n",
	       cp->ro.lab, ns);
	do {
		running = 0;
		for (size_t i = 0; i < ns; i++) {
			struct lab_slot *sl = &slots[i];
			int r;
			if (sl->c.pid > 0) {
				running++;
				continue;
			}
			if (sl->bad || cp->stop || kb_interrupted)
				continue;
			if ((r = lab_start(cp, sl, self, &pos)) < 0) {
				cp->stop = 1;
				ret = KB_EXIT_USAGE;
			} else if (r == 0 && sl->c.pid > 0) {
				running++;
			} else if (r == 0) {
				i--; /* a run already done: the next one */
			}
		}
		if (kb_interrupted) /* each run cancels its LAVA job on SIGTERM */
			for (size_t i = 0; i < ns; i++)
				if (slots[i].c.pid > 0)
					child_kill(&slots[i].c, 60);
		for (size_t i = 0; i < ns; i++) {
			struct lab_slot *sl = &slots[i];
			if (sl->e && child_poll(&sl->c) == 1)
				lab_finish(cp, slots, ns, sl, sl->c.status); /* failing, it stops cp */
		}
		if (running)
			usleep(200000);
	} while (running);
	if (cp->stop && ret == KB_EXIT_OK)
		ret = KB_EXIT_USAGE;
	free(slots);
	return ret;
}

/* The finished runs go into the history (docs/nightly.md). */
static int campaign_record(const struct cmp_inputs *in, const char *reports)
{
	json_object **docs = xcalloc(in->n + 1, sizeof(*docs));
	char **dirs = xcalloc(in->n + 1, sizeof(*dirs));
	int ret = 0;
	for (size_t i = 0; i < in->n; i++) {
		docs[i] = in->v[i].doc;
		dirs[i] = xstrdup(in->v[i].path);
		dirname(dirs[i]);
	}
	if (history_record_default(reports, docs, (const char *const *)dirs, in->n))
		ret = -1;
	for (size_t i = 0; i < in->n; i++)
		free(dirs[i]);
	free(dirs);
	free(docs);
	return ret;
}

/* A sweep's finished runs, each grouped under its point's label. */
static int sweep_inputs(struct campaign *cp, struct cmp_inputs *in)
{
	json_object *runs = jget(cp->doc, "runs");
	char path[KB_PATH_MAX + 300];
	for (size_t i = 0; i < json_object_array_length(runs); i++) {
		json_object *e = json_object_array_get_idx(runs, i);
		if (json_object_get_boolean(jget(e, "warmup")))
			continue;
		snprintf(path, sizeof(path), "%s/runs/%s/results.json", cp->dir, or_empty(jstr(e, "run_id")));
		if (path_exists(path) && cmp_inputs_add(in, path, or_empty(jstr(e, "variant"))))
			return -1;
	}
	return in->n ? 0 : error("no run of the sweep finished: nothing to compare");
}

/* Status saved, runs recorded, then the comparison and report. */
static int campaign_finish(struct campaign *cp, int ret)
{
	struct cmp_opts co;
	struct cmp_inputs in = { NULL, 0 };
	char ts[32], runs[KB_PATH_MAX];
	int r;
	if (jget(jget(cp->doc, "lab"), "bad")) {
		json_object_object_foreach(jget(jget(cp->doc, "lab"), "bad"), dev, why)
			warning("campaign: lab device %s went bad during the campaign (%s): its "
				"unfinished rounds ran on the others, the run it failed is in "
				"%s/lab-failed/", dev, json_object_get_string(why), cp->dir);
	}
	iso8601_now(ts, sizeof(ts));
	json_object_object_add(cp->doc, "finished", json_object_new_string(ts));
	json_object_object_add(cp->doc, "status", json_object_new_string(
		kb_interrupted ? "interrupted" : cp->stop ? "stopped" : "complete"));
	if (campaign_save(cp))
		ret = KB_EXIT_USAGE;
	snprintf(runs, sizeof(runs), "%s/runs", cp->dir);
	if (!path_exists(runs))
		return error("no run finished: nothing to compare"), KB_EXIT_USAGE;
	if (cp->sw ? sweep_inputs(cp, &in) : cmp_inputs_add(&in, cp->dir, NULL)) {
		cmp_inputs_release(&in);
		return KB_EXIT_USAGE;
	}
	if (campaign_record(&in, cp->ro.reports))
		ret = KB_EXIT_USAGE;
	cmp_opts_init(&co);
	co.order = (const char *const *)cp->kernels.v;
	co.norder = cp->kernels.n;
	co.baseline = cp->kernels.v[0];
	if ((r = compare_and_write(&in, &co, cp->dir, json_object_get(cp->doc))))
		ret = r;
	else if (cp->sw && sweep_report_write(&in, &co, cp->sw, cp->dir))
		ret = KB_EXIT_USAGE;
	if (ret == KB_EXIT_OK && (cp->failed || kb_interrupted))
		ret = KB_EXIT_FAILED;
	cmp_inputs_release(&in);
	cmp_opts_release(&co);
	return ret;
}

/* campaign and sweep: SW NULL for a campaign, else an empty sweep. */
static int campaign_main(int argc, char **argv, struct sweep *sw)
{
	struct campaign cp;
	int ret;

	memset(&cp, 0, sizeof(cp));
	cp.kernels = (struct strvec)STRVEC_INIT;
	cp.cmdlines = (struct strvec)STRVEC_INIT;
	cp.sw = sw;
	cp.kind = sw ? "sweep" : "compare";
	cp.ro.suite = "quick";
	cp.seed = (uint32_t)time(NULL) ^ (uint32_t)getpid();
	cp.busy = BUSY_FLAG;
	cp.busy_wait = 600;
	ret = campaign_parse(argc, argv, &cp);
	if (ret) {
		ret = ret < 0 ? KB_EXIT_OK : ret;
		goto out;
	}
	ret = KB_EXIT_USAGE;
	if ((cp.ro.resume && campaign_load(&cp)) || campaign_check(&cp))
		goto out;
	if (cp.resume ? campaign_reopen(&cp) : campaign_create(&cp))
		goto out;
	printf("kbench %s %s: %zu %s, suite %s, %d round%s%s, seed %u\n", sw ? "sweep" : "campaign",
	       cp.id, cp.kernels.n, sw ? "points" : "variants", cp.s.name, cp.iterations,
	       cp.iterations == 1 ? "" : "s",
	       cp.warmup ? " after warm-up" : "", (unsigned)cp.seed);
	ret = campaign_finish(&cp, jget(cp.doc, "lab") ? lab_rounds(&cp) : campaign_rounds(&cp));
out:
	json_object_put(cp.doc);
	suite_release(&cp.s);
	strvec_clear(&cp.kernels);
	strvec_clear(&cp.cmdlines);
	return ret;
}

int cmd_campaign(int argc, char **argv)
{
	return campaign_main(argc, argv, NULL);
}

int cmd_sweep(int argc, char **argv)
{
	struct sweep sw;
	memset(&sw, 0, sizeof(sw));
	return campaign_main(argc, argv, &sw);
}
