/* kbench.c - the command line: one table of subcommands (after git.c). */
#include <getopt.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/config.h"
#include "workloads/workloads.h"
#include "backend/backend.h"
#include "backend/guest.h"
#include "kernel/source.h"
#include "backend/image.h"
#include "kernel/kernel.h"
#include "kernel/needs.h"
#include "run/results.h"
#include "run/run.h"
#include "run/targetcfg.h"
#include "core/spawn.h"
#include "cli/cmd_compare.h"
#include "cli/cmd_nightly.h"
#include "cli/cmd_lab.h"
#include "cli/cmd_campaign.h"
#include "cli/cmd_bisect.h"
#include "cli/runopts.h"
#include "history/history.h"


static void usage(FILE *f)
{
	fprintf(f,
		"usage: kbench <command> [options]\n"
		"\n"
		"commands:\n"
		"  run       boot a kernel variant and run a suite in it\n"
		"              --kernel VARIANT (default rt-stock)  --suite SUITE (default quick)\n"
		"              --kernel-image BZIMAGE [--kernel-config FILE] [--kernel-modules DIR]\n"
		"              (a kernel you built; its config is found beside it in a tree)\n"
		"              --iterations N  --vcpus N (default: host cores)  --memory MiB (2048)\n"
		"              --accel auto|kvm|tcg (default auto)  --reports DIR  --run-id ID\n"
		"              --timing wall|instructions|auto (the guest's clock; default wall;\n"
		"              instructions: QEMU's instruction counter under TCG, figures that\n"
		"              repeat on a busy host but are path lengths: docs/timing.md)\n"
		"              --backend NAME (how the guest runs; default qemu), --lab NAME (a LAVA lab)\n"
		"              --lab-device NAME (every job on that device of the lab, by a tag\n"
		"              only it carries)\n"
		"              --scratch DIR (local backend: an empty directory for dbench)\n"
		"              --busy-threshold PCT (other processes' share of the host's CPU\n"
		"              that flags an iteration busy; default 10)\n"
		"              --boot-timeout S (QEMU start to agent ready; default 180 TCG, 60 KVM)\n"
		"              --boot-retries N (boot again after a failed boot, which stays\n"
		"              in results.json; default 1, 0 = never)\n"
		"              --cmdline ARGS (added to the variant's kernel command line)\n"
		"              --resume RUN-ID|DIR: finish an interrupted run (its missing and\n"
		"              interrupted iterations; same variant, suite and settings)\n"
		"  overhead  boot time and harness overhead over several runs\n"
		"              --kernel VARIANT  --suite SUITE (smoke)  --runs N (3)\n"
		"  kernels   list kernel variants and whether they are cached\n"
		"  fetch     fetch or build a variant's kernel into the cache: fetch VARIANT [--refresh]\n"
		"  build     the same as fetch (reads better for source-built variants);\n"
		"            --rebuild runs make again in the kept object directory\n"
		"  kconfig   write a source-built variant's merged config: kconfig [--target NAME]\n"
		"            VARIANT FILE (as built for that machine: its kernel_config)\n"
		"  target-config  a remote machine's running config made a config of the 6.12\n"
		"            tree, for a variant's base = file: target-config --target NAME\n"
		"            [--localyes] FILE (localyes: only the modules it has loaded, built in)\n"
		"  workloads list workloads and their parameters\n"
		"  show      print the summary of a run: show RUN-DIR|results.json\n"
		"  validate  check results files against the schema: validate FILE...\n"
		"  doctor    check dependencies, KVM and the cache; doctor --kernel VARIANT: what\n"
		"            kbench's guest needs of that kernel, and whether it has it;\n"
		"            doctor --target NAME: a remote machine (ssh, kexec, space, scratch, tools)\n"
		"  compare   compare variants from stored results: compare RESULTS... [--baseline V]\n"
		"              [--out DIR] (comparison.json + report.html); see kbench compare --help\n"
		"  report    rebuild comparison.json and report.html of a compare directory: report DIR\n"
		"  regress   baseline against current for CI: regress --baseline R --current R\n"
		"              [--threshold METRIC=PCT]... (exit 0 ok, 1 regressed, 2 error, 3 too noisy)\n"
		"  bisect    the commit that made a metric worse: bisect --tree DIR --good REF --bad REF\n"
		"              --variant V --metric W.M [--threshold 5%%] (exit 0 named, 1 none); --help\n"
		"  campaign  run variants interleaved, then compare: campaign --kernels \"A B\"\n"
		"              [--suite S] [--iterations N] [--warmup N] [--seed N]\n"
		"  sweep     kernel parameters swept on one variant, run as a campaign: sweep\n"
		"              --kernel V --param rtmutex.spin_max_loops=0,100,10000 [--rounds N]\n"
		"  kbuild-native  the suite's kbuild natively on the host (JSON on stdout), to set\n"
		"              against the guest's: --suite S (smoke) [--iterations N]\n"
		"  nightly   one night: run configs/nightly.ini's variants, record, judge against the\n"
		"              last good night and the pinned baseline (exit as regress); --help\n"
		"  history   the run history: list [--variant V] [--metric M] [--since DATE],\n"
		"              import DIR..., nights, trends --suite S, check\n"
		"  merge     several machines' runs or nights in one report: merge DIR... --out DIR\n"
		"              [--pool-hosts]\n"
		"  lab       a LAVA lab (docs/lab.md): check LAB (the file, the token, the devices)\n"
		"\n"
		"environment: KBENCH_CACHE (cache, default $XDG_CACHE_HOME/kbench or ~/.cache/kbench),\n"
		"  KBENCH_MIRROR (Debian mirror), KBENCH_HOME (kbench's data directory),\n"
		"  KBENCH_HISTORY (history database, default REPORTS/history.sqlite; off: none)\n"
		"exit status: 0 ok, 1 an iteration failed, 2 bad input or harness error\n");
}

enum { O_RUNS = RO_END, O_HELP };

static const struct option run_longopts[] = {
	RUNOPTS_RUN,
	RUNOPTS_SUITE,
	RUNOPTS_WHERE,
	RUNOPTS_GUEST,
	{ "runs", required_argument, NULL, O_RUNS },
	{ "help", no_argument, NULL, O_HELP },
	{ NULL, 0, NULL, 0 },
};

static int parse_run_opts(int argc, char **argv, struct run_opts *o, int *runs)
{
	int c, r;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", run_longopts, NULL)) != -1) {
		if ((r = runopts_parse(c, optarg, o)) < 0)
			return -1;
		if (r)
			continue;
		switch (c) {
		case O_RUNS:
			if (!runs)
				return error("unknown option '--runs' (see kbench --help)");
			if (parse_int_opt("--runs", optarg, 1, 100, runs))
				return -1;
			break;
		case O_HELP:
			usage(stdout);
			exit(0);
		default:
			return runopts_unknown(argv, " (see kbench --help)");
		}
	}
	if (optind < argc)
		return error("unexpected argument '%s' (see kbench --help)", argv[optind]);
	return 0;
}

/* Refuse a guest bigger than the host can hold, before any work. */
static int check_memory(int mem_mb)
{
	long pages = sysconf(_SC_AVPHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	long long avail = pages > 0 && psz > 0 ? (long long)pages * psz >> 20 : 0;
	if (mem_mb > 0 && avail > 0 && mem_mb > avail)
		return error("--memory %d MiB is more than the %lld MiB free on this host", mem_mb, avail);
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	struct run_opts o = { .kernel = "rt-stock", .suite = "quick" };
	struct run_result r;
	int ret;
	if (parse_run_opts(argc, argv, &o, NULL) || check_memory(o.mem_mb))
		return KB_EXIT_USAGE;
	ret = run_bench(&o, &r);
	/* a finished run goes into the history (docs/nightly.md); --no-latest:
	 * a campaign's run, which the campaign records where it keeps them */
	if (r.doc && !o.no_latest && history_record_default(r.reports[0] ? r.reports : o.reports, &r.doc,
					    (const char *const[]){ r.dir }, 1))
		ret = KB_EXIT_USAGE;
	run_result_release(&r);
	return ret;
}

static double median_of(double *v, size_t n)
{
	gsl_sort(v, 1, n);
	return gsl_stats_median_from_sorted_data(v, 1, n);
}

/* Run the suite RUNS times; print boot time per boot and the harness
 * overhead ratio (wall - workload) / wall, median and spread. */
static int cmd_overhead(int argc, char **argv)
{
	struct run_opts o = { .kernel = "rt-stock", .suite = "smoke", .no_latest = 1,
			      .quiet_summary = 1 };
	int runs = 3, ret = KB_EXIT_OK;
	double boots[1000], ratios[100], walls[100];
	size_t nb = 0, nr = 0;
	if (parse_run_opts(argc, argv, &o, &runs))
		return KB_EXIT_USAGE;
	if (!o.iterations)
		o.iterations = 1;
	printf("kbench overhead: %s, suite %s, %d run%s of %d iteration%s\n", o.kernel, o.suite, runs,
	       runs == 1 ? "" : "s", o.iterations, o.iterations == 1 ? "" : "s");
	for (int i = 0; i < runs && !kb_interrupted; i++) {
		struct run_result r;
		double wall = 0, work = 0;
		json_object *its;
		int rr = run_bench(&o, &r);
		if (rr == KB_EXIT_USAGE) {
			run_result_release(&r);
			return rr;
		}
		if (rr)
			ret = rr;
		its = r.doc ? json_object_object_get(r.doc, "iterations") : NULL;
		for (size_t j = 0; its && j < json_object_array_length(its); j++) {
			json_object *it = json_object_array_get_idx(its, j), *x;
			if (strcmp(json_object_get_string(json_object_object_get(it, "status")), "ok"))
				continue;
			if ((x = json_object_object_get(it, "boot_s")) && nb < 1000) {
				boots[nb++] = json_object_get_double(x);
				printf("  run %d iteration %zu: QEMU start to agent ready %.2f s\n", i + 1, j + 1,
				       json_object_get_double(x));
			}
			wall += json_object_get_double(json_object_object_get(it, "wall_s"));
			work += json_object_get_double(json_object_object_get(it, "workload_s"));
		}
		if (wall > 0) {
			ratios[nr] = (wall - work) / wall;
			walls[nr++] = wall;
			printf("  run %d: wall %.1f s, workloads %.1f s, overhead ratio %.3f\n", i + 1, wall,
			       work, (wall - work) / wall);
		}
		run_result_release(&r);
	}
	if (!nb || !nr) {
		error("no successful iteration to measure");
		return KB_EXIT_FAILED;
	}
	{
		double bmin, bmax, rmin, rmax;
		gsl_stats_minmax(&bmin, &bmax, boots, 1, nb);
		gsl_stats_minmax(&rmin, &rmax, ratios, 1, nr);
		printf("boot to agent ready: median %.2f s, min %.2f s, max %.2f s (%zu boots)\n",
		       median_of(boots, nb), bmin, bmax, nb);
		printf("harness overhead ratio (wall - workload) / wall: median %.3f, min %.3f, max %.3f "
		       "(%zu runs, median wall %.1f s)\n",
		       median_of(ratios, nr), rmin, rmax, nr, median_of(walls, nr));
	}
	return ret;
}

static int cmd_kernels(int argc, char **argv)
{
	char *names = variant_names(), *save = NULL;
	int ret = KB_EXIT_OK;
	(void)argc;
	(void)argv;
	printf("%-18s %-8s %-32s %s\n", "variant", "cached", "kernel", "description");
	for (char *n = strtok_r(names, " ", &save); n; n = strtok_r(NULL, " ", &save)) {
		struct variant v;
		struct kernel_image k;
		int c;
		if (variant_load(n, &v)) {
			ret = KB_EXIT_USAGE;
			continue;
		}
		c = kernel_cached(&v, &k);
		printf("%-18s %-8s %-32s %s\n", v.name, c == 0 ? "yes" : c == 1 ? "no" : "broken",
		       c == 0 ? k.release : "-", v.description);
		if (c == 0)
			printf("%-18s %-8s %s %s\n", "", "", k.package, k.version);
	}
	free(names);
	return ret;
}

static int cmd_fetch(int argc, char **argv)
{
	struct variant v;
	struct kernel_image k;
	int refresh = 0;
	const char *name = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--refresh") || !strcmp(argv[i], "--rebuild"))
			refresh = 1;
		else if (argv[i][0] == '-')
			return error("unknown option '%s'", argv[i]), KB_EXIT_USAGE;
		else
			name = argv[i];
	}
	if (!name)
		return error("usage: kbench fetch VARIANT [--refresh]"), KB_EXIT_USAGE;
	if (variant_load(name, &v))
		return KB_EXIT_USAGE;
	if (v.source == VSRC_BUILD) {
		struct build_info bi;
		double t0 = now_mono();
		memset(&bi, 0, sizeof(bi));
		bi.rebuild = refresh;
		if (kernel_build(&v, &k, &bi))
			return KB_EXIT_USAGE;
		printf("%s: kernel %s, %s in %.2f s (key %s)\n", v.name, k.release,
		       bi.hit ? "cache hit" : "built", now_mono() - t0, bi.key);
		return KB_EXIT_OK;
	}
	if (kernel_get(&v, refresh, &k))
		return KB_EXIT_USAGE;
	printf("%s: %s %s (kernel %s) in %s\n", v.name, k.package, k.version, k.release, k.dir);
	return KB_EXIT_OK;
}

/* Merge a source-built variant's config and write it (no build); with
 * --target NAME, as a run on that machine builds it (its kernel_config). */
static int cmd_kconfig(int argc, char **argv)
{
	struct variant v;
	struct kernel_image k;
	struct build_info bi;
	const char *target = NULL;
	if (argc == 5 && !strcmp(argv[1], "--target")) {
		target = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc != 3)
		return error("usage: kbench kconfig [--target NAME] VARIANT OUTFILE"), KB_EXIT_USAGE;
	if (variant_load(argv[1], &v))
		return KB_EXIT_USAGE;
	if (v.source != VSRC_BUILD)
		return error("variant '%s' is not built from source", v.name), KB_EXIT_USAGE;
	if (target && target_variant(target, &v) < 0)
		return KB_EXIT_FAILED;
	memset(&bi, 0, sizeof(bi));
	snprintf(bi.config_out, sizeof(bi.config_out), "%s", argv[2]);
	if (kernel_build(&v, &k, &bi))
		return KB_EXIT_USAGE;
	printf("%s: merged config written to %s\n", v.name, argv[2]);
	return 0;
}

/* kbench target-config --target NAME [--localyes] OUT: a machine's
 * running config, as ktest and localmodconfig start from. */
static int cmd_target_config(int argc, char **argv)
{
	const char *name = NULL, *out = NULL;
	char rel[256];
	int localyes = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--target") && i + 1 < argc)
			name = argv[++i];
		else if (!strcmp(argv[i], "--localyes"))
			localyes = 1;
		else if (argv[i][0] != '-' && !out)
			out = argv[i];
		else
			name = out = NULL, i = argc;
	}
	if (!name || !out)
		return error("usage: kbench target-config --target NAME [--localyes] OUTFILE"),
		       KB_EXIT_USAGE;
	return target_config_make(name, localyes, out, rel, sizeof(rel)) ? KB_EXIT_FAILED : KB_EXIT_OK;
}

static int cmd_workloads(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	for (const struct workload_ops *const *w = workload_all(); *w; w++) {
		void *p = xcalloc(1, (*w)->params_size);
		json_object *def;
		(*w)->defaults(p, 2);
		def = opts_to_json(p, (*w)->opts);
		printf("[%s] %s\n", (*w)->name, (*w)->description);
		for (const struct opt_def *o = (*w)->opts; o->name; o++)
			printf("  %-14s default %-28s %s\n", o->name,
			       json_object_to_json_string_ext(json_object_object_get(def, o->name), JSON_C_TO_STRING_NOSLASHESCAPE), o->help);
		json_object_put(def);
		free(p);
	}
	return 0;
}

static int load_run(const char *arg, json_object **doc)
{
	char path[KB_PATH_MAX];
	size_t l = strlen(arg);
	if (l > 5 && !strcmp(arg + l - 5, ".json"))
		snprintf(path, sizeof(path), "%s", arg);
	else
		snprintf(path, sizeof(path), "%s/results.json", arg);
	*doc = results_load(path);
	return *doc ? 0 : -1;
}

static int cmd_show(int argc, char **argv)
{
	json_object *doc;
	if (argc != 2)
		return error("usage: kbench show RUN-DIR|results.json"), KB_EXIT_USAGE;
	if (load_run(argv[1], &doc))
		return KB_EXIT_USAGE;
	print_summary(doc, stdout);
	json_object_put(doc);
	return 0;
}

static int cmd_validate(int argc, char **argv)
{
	int ret = 0;
	if (argc < 2)
		return error("usage: kbench validate FILE..."), KB_EXIT_USAGE;
	for (int i = 1; i < argc; i++) {
		json_object *doc;
		if (load_run(argv[i], &doc)) {
			ret = KB_EXIT_USAGE;
			continue;
		}
		printf("%s: valid (schema %s v%d)\n", argv[i], RESULTS_SCHEMA, RESULTS_SCHEMA_VERSION);
		json_object_put(doc);
	}
	return ret;
}

/* One line of kbench doctor for host tool T; 1 if it is missing. */
static int doctor_tool(const struct host_tool *t)
{
	char *p = host_tool_find(t);
	int missing = !p;
	printf("  %-20s %s\n", t->what ? t->what : t->name, p ? p : "MISSING");
	if (missing)
		printf("    install with: apt-get install %s (or: make deps)\n", t->package);
	free(p);
	return missing;
}

/* kbench doctor --kernel VARIANT: the guest's needs against that
 * variant's cached kernel (its config and modules), one line each. */
static int doctor_kernel(const char *name)
{
	static const char *const states[] = { "built in", "module", "MISSING", "unknown" };
	struct variant v;
	struct kernel_image k;
	struct kneed_result *res;
	size_t n = kneeds_count();
	int r, missing, base;
	if (variant_load(name, &v))
		return KB_EXIT_USAGE;
	if ((r = kernel_cached(&v, &k)) != 0) {
		if (r > 0)
			error("kernel %s is not cached yet (kbench fetch %s, or run it once)", name, name);
		return KB_EXIT_USAGE;
	}
	res = xcalloc(n + 1, sizeof(*res));
	base = kernel_needs_check(&k, 0, res);
	missing = kernel_needs_check(&k, KNEED_HOSTROOT, res);
	printf("kernel %s: %s\n  config: %s\n  modules: %s\n", name, k.release,
	       k.config[0] ? k.config : "none (needs not checkable by config)",
	       k.moddir[0] ? k.moddir : "none");
	for (size_t i = 0; i < n; i++) {
		const struct kneed *nd = res[i].need;
		printf("  CONFIG_%-20s %-9s %s%s%s%s\n", nd->option, states[res[i].state], nd->what,
		       nd->flags & KNEED_OPTIONAL ? " [optional]" : "",
		       nd->flags & KNEED_HOSTROOT ? " [kbuild only]" : "",
		       nd->flags & KNEED_NET ? " [lava only]" : "");
		if (res[i].why[0])
			printf("    %s\n", res[i].why);
	}
	free(res);
	if (missing < 0 || base < 0)
		return KB_EXIT_USAGE;
	if (base)
		printf("this kernel cannot run kbench's guest: enable the options marked MISSING\n");
	else if (missing)
		printf("this kernel runs kbench's guest, but not kbuild: enable the options marked "
		       "MISSING [kbuild only] for suites with kbuild\n");
	else
		printf("this kernel has what kbench's guest needs\n");
	return base ? KB_EXIT_USAGE : KB_EXIT_OK;
}

/* kbench doctor --target NAME: the machine, checked over ssh, with the
 * tools of the workloads; kbuild's toolchain (the machine's own: its
 * qemu-img is this host's, for QEMU's tree disk) only as notes, since a
 * machine that never builds needs none. */
static int doctor_target(const char *name)
{
	const struct workload_ops *const *all = workload_all();
	const struct workload_ops **ws, *kb[] = { workload_find("kbuild"), NULL };
	const struct host_tool **tools, **build;
	size_t n = 0;
	int r;
	while (all[n])
		n++;
	ws = xcalloc(n + 1, sizeof(*ws));
	n = 0;
	for (size_t i = 0; all[i]; i++)
		if (all[i] != kb[0])
			ws[n++] = all[i];
	tools = workload_tools(ws);
	build = workload_tools(kb);
	for (size_t i = 0, j = 0;; i++)
		if (!build[i] || strcmp(build[i]->name, "qemu-img"))
			if (!(build[j++] = build[i]))
				break;
	r = ssh_doctor(name, tools, build);
	free(tools);
	free(build);
	free(ws);
	return r;
}

static int cmd_doctor(int argc, char **argv)
{
	const struct host_tool **wt = workload_tools(workload_all());
	int bad = 0;
	if (argc == 3 && !strcmp(argv[1], "--kernel")) {
		free(wt);
		return doctor_kernel(argv[2]);
	}
	free(wt);
	if (argc == 3 && !strcmp(argv[1], "--target"))
		return doctor_target(argv[2]);
	if (argc > 1)
		return error("usage: kbench doctor [--kernel VARIANT | --target NAME]"), KB_EXIT_USAGE;
	wt = workload_tools(workload_all());
	printf("kbench %s\n", KB_VERSION);
	for (const struct host_tool *t = run_host_tools; t->name; t++)
		bad |= doctor_tool(t);
	for (size_t i = 0; wt[i]; i++)
		bad |= doctor_tool(wt[i]);
	free(wt);
	printf("cache: %s (%s)\n", cache_root(),
	       access(cache_root(), W_OK) == 0 ? "writable" : path_exists(cache_root()) ?
	       "NOT writable" : "not created yet");
	cmd_kernels(0, NULL);
	/* A fresh KVM probe needs a kernel: use a cached stock one. */
	{
		struct variant v;
		struct kernel_image k;
		if (access("/dev/kvm", R_OK | W_OK)) {
			printf("KVM: /dev/kvm not usable here: guests run under TCG\n");
		} else if (variant_load("mainline-stock", &v) == 0 && kernel_cached(&v, &k) == 0 &&
			   is_executable(agent_path())) {
			struct image_needs needs = IMAGE_NEEDS_INIT;
			char initrd[KB_PATH_MAX], probe[KB_PATH_MAX], dir[KB_PATH_MAX], con[KB_PATH_MAX];
			snprintf(dir, sizeof(dir), "%s/tmp/doctor-%ld", cache_root(), (long)getpid());
			snprintf(con, sizeof(con), "%s/console.log", dir);
			snprintf(probe, sizeof(probe), "%s/kvm-probe", cache_root());
			if (mkdir_p(dir, 0755) == 0 &&
			    image_build(&k, &needs, agent_path(), initrd, sizeof(initrd)) == 0) {
				struct boot_params bp = { .kernel = k.vmlinuz, .initrd = initrd,
							  .console_log = con, .workdir = dir, .vcpus = 1,
							  .mem_mb = 512, .boot_timeout_s = 30 };
				unlink(probe); /* probe afresh */
				printf("KVM: %s\n", accel_resolve(ACCEL_AUTO, &bp) == ACCEL_KVM ?
				       "a real KVM boot works" : "a KVM guest did not boot: guests run under TCG");
			}
			rm_rf(dir);
		} else {
			printf("KVM: /dev/kvm present; not probed (no kernel cached yet: kbench fetch mainline-stock)\n");
		}
	}
	return bad ? KB_EXIT_USAGE : KB_EXIT_OK;
}

/* The suite's kbuild natively on the host: the other half of the
 * emulation-cost ratio (make kbuild-bench). JSON on stdout. */
static int cmd_kbuild_native(int argc, char **argv)
{
	struct run_opts o = { .suite = "smoke" };
	struct suite s;
	json_object *doc, *runs;
	int ret = KB_EXIT_USAGE;
	memset(&s, 0, sizeof(s));
	if (parse_run_opts(argc, argv, &o, NULL))
		return KB_EXIT_USAGE;
	if (suite_load(o.suite, (int)sysconf(_SC_NPROCESSORS_ONLN), &s))
		return KB_EXIT_USAGE;
	for (size_t i = 0; i < s.n; i++) {
		if (strcmp(s.w[i].ops->name, "kbuild"))
			continue;
		doc = json_object_new_object();
		runs = json_object_new_array();
		json_object_object_add(doc, "suite", json_object_new_string(s.name));
		json_object_object_add(doc, "label", json_object_new_string(s.w[i].label));
		json_object_object_add(doc, "params", opts_to_json(s.w[i].params, s.w[i].ops->opts));
		json_object_object_add(doc, "host", host_info());
		json_object_object_add(doc, "runs", runs);
		if (kbuild_native(s.w[i].params, o.iterations > 0 ? o.iterations : s.iterations, runs) == 0) {
			printf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY));
			ret = KB_EXIT_OK;
		}
		json_object_put(doc);
		goto out;
	}
	error("suite '%s' has no kbuild section", s.name);
out:
	suite_release(&s);
	return ret;
}

static const struct {
	const char *name;
	int (*fn)(int, char **);
} commands[] = {
	{ "kbuild-native", cmd_kbuild_native },
	{ "run", cmd_run },         { "overhead", cmd_overhead }, { "kernels", cmd_kernels },
	{ "fetch", cmd_fetch },     { "workloads", cmd_workloads }, { "show", cmd_show },
	{ "validate", cmd_validate }, { "doctor", cmd_doctor },   { "kconfig", cmd_kconfig },
	{ "target-config", cmd_target_config },
	{ "build", cmd_fetch },
	{ "compare", cmd_compare }, { "report", cmd_report }, { "regress", cmd_regress },
	{ "bisect", cmd_bisect },
	{ "campaign", cmd_campaign },
	{ "sweep", cmd_sweep },
	{ "nightly", cmd_nightly }, { "history", cmd_history }, { "merge", cmd_merge },
	{ "lab", cmd_lab },
};

int main(int argc, char **argv)
{
	int ret;
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? KB_EXIT_USAGE : 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("kbench %s\n", KB_VERSION);
		return 0;
	}
	if (workload_registry_check())
		return KB_EXIT_USAGE;
	spawn_install_signal_handlers();
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			ret = commands[i].fn(argc - 1, argv + 1);
			spawn_kill_all();
			return ret;
		}
	}
	error("unknown command '%s' (see kbench --help)", argv[1]);
	return KB_EXIT_USAGE;
}
