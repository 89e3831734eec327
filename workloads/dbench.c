/* dbench.c - file system load replaying a Samba NetBench trace (dbench 4.0)
 * on the guest's scratch ext4 disk (or on tmpfs, fs = tmpfs); metrics are
 * its final throughput and maximum latency, and the per-operation table
 * goes to results.json. */
#include "workloads/workloads.h"

#include <stdio.h>
#include <string.h>

#define DBENCH_PATH "/usr/bin/dbench"
#define DBENCH_LOADFILE "/usr/share/dbench/client.txt"
/* fs = tmpfs: the fresh tmpfs the agent mounts as a QEMU guest's init
 * (agent.c); dbench removes its client trees when it ends. Not where the
 * agent runs on a machine's own userspace (dbench_command). */
#define DBENCH_TMPFS "/dev/shm"
/* Operation kinds in the table (dbench 4.0 has about 20). */
#define DB_MAX_OPS 64
#define DB_MAX_OPNAME 31

struct dbench_params {
	int clients;
	int duration;
	char loadfile[OPT_STR_MAX];
	int fs;
};

enum { DB_FS_SCRATCH, DB_FS_TMPFS };
static const char *const db_fs[] = { "scratch", "tmpfs", NULL };

#define P(f) offsetof(struct dbench_params, f)
static const struct opt_def dbench_opts[] = {
	{ "clients", OPT_INT, P(clients), 1, 1024, NULL,
	  "client processes (default: one per vCPU)" },
	{ "duration", OPT_INT, P(duration), 1, 86400, NULL,
	  "run time in seconds (-t); dbench warms up for the first fifth" },
	{ "loadfile", OPT_STRING, P(loadfile), 0, 0, NULL,
	  "load file replayed by every client (-c), copied into the guest" },
	{ "fs", OPT_ENUM, P(fs), 0, 0, db_fs,
	  "where the clients work: scratch (ext4 on the scratch disk, or --scratch DIR) "
	  "or tmpfs (" DBENCH_TMPFS ", no disk: lock and VFS cost without the block layer)" },
	OPT_END
};
#undef P

/* One client per vCPU for 10 s with the packaged NetBench trace. */
static void dbench_defaults(void *params, int vcpus)
{
	struct dbench_params *p = params;
	p->clients = vcpus < 1 ? 1 : vcpus > 1024 ? 1024 : vcpus;
	p->duration = 10;
	snprintf(p->loadfile, sizeof(p->loadfile), "%s", DBENCH_LOADFILE);
}

/* The load file is copied to the same path in the guest and echoed by
 * dbench between quotes: absolute, no spaces or control characters. */
static int dbench_check(const void *params, char *err, size_t errlen)
{
	const struct dbench_params *p = params;

	if (p->loadfile[0] != '/') {
		snprintf(err, errlen, "'loadfile' must be an absolute path, got '%s'", p->loadfile);
		return -1;
	}
	for (const char *c = p->loadfile; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f || *c == '\'') {
			snprintf(err, errlen, "'loadfile' must not hold spaces, quotes or control characters");
			return -1;
		}
	return 0;
}

/* The dbench binary and its load file. */
static int dbench_prepare(const void *params, struct image_needs *needs)
{
	const struct dbench_params *p = params;
	strvec_push(&needs->programs, DBENCH_PATH);
	strvec_push(&needs->files, p->loadfile);
	return 0;
}

/*
 * dbench -t D -c LOADFILE -D DIR N, run in DIR: SCRATCH (the guest's
 * scratch disk, or the local backend's directory in --scratch DIR) or,
 * with fs = tmpfs, DBENCH_TMPFS and no scratch disk (dbench 4.0 needs -D
 * to exist). Deadline: the run (warm-up included) plus the warm-up dbench
 * announces (duration / 5) again as margin, plus 120 s for start-up and
 * the final cleanup of the client trees on a slow TCG disk.
 */
static int dbench_command(const void *params, struct guest_cmd *cmd)
{
	const struct dbench_params *p = params;
	const char *dir = p->fs == DB_FS_TMPFS ? DBENCH_TMPFS : cmd->scratch;

	/* on this host (local) or a remote machine's own userspace (ssh)
	 * /dev/shm is that system's, shared with everything else: kbench
	 * never works in what it did not make */
	if (p->fs == DB_FS_TMPFS && (cmd->native || cmd->target)) {
		error("dbench: fs = tmpfs works in a QEMU guest's own " DBENCH_TMPFS "; here give "
		      "the scratch directory (--scratch, or the target's scratch) on a tmpfs instead");
		return -1;
	}
	strvec_push(&cmd->argv, DBENCH_PATH);
	strvec_push(&cmd->argv, "-t");
	strvec_pushf(&cmd->argv, "%d", p->duration);
	strvec_push(&cmd->argv, "-c");
	strvec_push(&cmd->argv, p->loadfile);
	strvec_push(&cmd->argv, "-D");
	strvec_push(&cmd->argv, dir);
	strvec_pushf(&cmd->argv, "%d", p->clients);
	snprintf(cmd->cwd, sizeof(cmd->cwd), "%s", dir);
	cmd->needs_scratch = p->fs != DB_FS_TMPFS;
	cmd->timeout_s = p->duration + p->duration / 5 + 120;
	return 0;
}

/* "Running for 10 seconds with load '/usr/share/dbench/client.txt' and
 * minimum warmup 2 secs": the run we asked for. */
static int check_running(const struct dbench_params *p, const struct line *ln,
			 struct parse_error *err)
{
	uint64_t secs, warmup;
	struct span load;

	if (line_match(ln, "Running for %u seconds with load '%s' and minimum warmup %u secs",
		       &secs, &load, &warmup))
		return parse_fail(err, ln->no, "malformed line '%.*s'", LINE_SHOW(ln));
	if (secs != (uint64_t)p->duration)
		return parse_fail(err, ln->no, "dbench ran for %llu s, expected %d",
				  (unsigned long long)secs, p->duration);
	if (!span_eq(load, p->loadfile))
		return parse_fail(err, ln->no, "dbench used load '%.*s', expected '%s'",
				  (int)(load.len < 80 ? load.len : 80), load.s, p->loadfile);
	return 0;
}

/* An operation name: a letter, then letters, digits or '_'. */
static int valid_opname(struct span s)
{
	if (!s.len || s.len > DB_MAX_OPNAME)
		return 0;
	for (size_t i = 0; i < s.len; i++) {
		char c = s.s[i];
		int alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
		if (!alpha && !(i && ((c >= '0' && c <= '9') || c == '_')))
			return 0;
	}
	return 1;
}

/* A JSON number that prints with dbench's own digits ("0.029", not
 * "0.029000000000000001"). S passed span_decimal, so it is short and
 * plain; leading zeros ("007.5") are not JSON and get the binary value. */
static json_object *json_decimal(struct span s, double v)
{
	char buf[48];
	if (s.len > 1 && s.s[0] == '0' && s.s[1] != '.')
		return json_object_new_double(v);
	snprintf(buf, sizeof(buf), "%.*s", (int)s.len, s.s);
	return json_object_new_double_s(v, buf);
}

/* Is the span a rule of dashes? */
static int all_dashes(struct span s)
{
	for (size_t i = 0; i < s.len; i++)
		if (s.s[i] != '-')
			return 0;
	return s.len > 0;
}

/* " NTCreateX   23880   0.029   8.321" into OPS[name]. */
static int parse_op_row(const struct line *ln, json_object *ops, struct parse_error *err)
{
	struct span name, cnt, avg, max;
	uint64_t count;
	double avg_ms, max_ms;
	char key[DB_MAX_OPNAME + 1];
	json_object *o;

	if (line_match(ln, "%s %s %s %s", &name, &cnt, &avg, &max))
		return parse_fail(err, ln->no, "malformed operation row '%.*s'", LINE_SHOW(ln));
	if (!valid_opname(name))
		return parse_fail(err, ln->no, "bad operation name in '%.*s'", LINE_SHOW(ln));
	if (span_u64(cnt, (uint64_t)WL_NUM_MAX, &count) ||
	    span_decimal(avg, WL_NUM_MAX, &avg_ms) || span_decimal(max, WL_NUM_MAX, &max_ms))
		return parse_fail(err, ln->no, "bad number in operation row '%.*s'", LINE_SHOW(ln));
	if (avg_ms > max_ms)
		return parse_fail(err, ln->no, "average latency above the maximum in '%.*s'",
				  LINE_SHOW(ln));
	memcpy(key, name.s, name.len);
	key[name.len] = '\0';
	if (json_object_object_get_ex(ops, key, NULL))
		return parse_fail(err, ln->no, "operation '%s' listed twice", key);
	if (json_object_object_length(ops) >= DB_MAX_OPS)
		return parse_fail(err, ln->no, "more than %d operation rows", DB_MAX_OPS);
	o = json_object_new_object();
	json_object_object_add(o, "count", json_object_new_int64((int64_t)count));
	json_object_object_add(o, "avg_lat_ms", json_decimal(avg, avg_ms));
	json_object_object_add(o, "max_lat_ms", json_decimal(max, max_ms));
	json_object_object_add(ops, key, o);
	return 0;
}

enum db_stage {
	DB_BANNER,   /* before "Running for" */
	DB_PROGRESS, /* per-second progress lines, ignored */
	DB_DASHES,   /* after the table header */
	DB_ROWS,     /* operation rows until a blank line */
	DB_SUMMARY,  /* waiting for "Throughput" */
	DB_DONE,     /* only blank lines may follow */
};

/*
 * dbench 4.0 prints a banner, "Running for ...", progress lines, the
 * operation table ("Operation Count AvgLat MaxLat", a dashed rule, one row
 * per operation, a blank line) and "Throughput X MB/sec N clients N procs
 * max_latency=Y ms". Progress lines carry nothing we keep and are skipped;
 * everything else must be there, in order, for the clients we asked for.
 */
/* "Throughput 1234.5 MB/sec 2 clients 2 procs max_latency=12.3 ms": the
 * clients asked for, and a throughput dbench measured. */
static int parse_summary(const struct dbench_params *p, const struct line *ln, double *mbs,
			 double *maxlat, struct parse_error *err)
{
	uint64_t clients, procs;

	if (line_match(ln, "Throughput %f MB/sec %u clients %u procs max_latency=%f ms",
		       mbs, &clients, &procs, maxlat))
		return parse_fail(err, ln->no, "malformed summary '%.*s'", LINE_SHOW(ln));
	if (clients != (uint64_t)p->clients || procs != (uint64_t)p->clients)
		return parse_fail(err, ln->no, "dbench ran %llu clients in %llu procs, expected %d",
				  (unsigned long long)clients, (unsigned long long)procs,
				  p->clients);
	/* dbench's figure is that of its last whole second after the
	 * warm-up; a run that never had one prints 0 (seen with -t 1,
	 * and when slow clients keep it in warm-up to the end) */
	if (*mbs <= 0)
		return parse_fail(err, ln->no, "dbench measured no second after its warm-up "
				  "(throughput 0): the run is too short for this machine, "
				  "raise 'duration'");
	return 0;
}

static int dbench_parse(const void *params, const char *out, size_t len,
			struct metric_set *ms, struct parse_error *err)
{
	const struct dbench_params *p = params;
	struct line_iter it;
	struct line ln;
	enum db_stage stage = DB_BANNER;
	json_object *ops = json_object_new_object();
	double mbs = 0, maxlat = 0;
	int r, ret = -1;

	line_iter_init(&it, out, len);
	while ((r = line_next(&it, &ln, err)) > 0) {
		switch (stage) {
		case DB_BANNER:
			if (line_is_blank(&ln) || line_starts(&ln, "dbench version "))
				continue;
			if (!line_starts(&ln, "Running for ")) {
				parse_fail(err, ln.no, "unexpected line '%.*s'", LINE_SHOW(&ln));
				goto out;
			}
			if (check_running(p, &ln, err))
				goto out;
			stage = DB_PROGRESS;
			break;
		case DB_PROGRESS:
			if (line_starts(&ln, "Throughput")) {
				parse_fail(err, ln.no, "'Throughput' line before the operation table");
				goto out;
			}
			if (!line_match(&ln, "Operation Count AvgLat MaxLat"))
				stage = DB_DASHES;
			break;
		case DB_DASHES: {
			size_t pos = 0;
			struct span t;
			if (!line_token(&ln, &pos, &t) || !all_dashes(t) || line_token(&ln, &pos, &t)) {
				parse_fail(err, ln.no, "expected a dashed rule under the table header");
				goto out;
			}
			stage = DB_ROWS;
			break;
		}
		case DB_ROWS:
			if (line_is_blank(&ln)) {
				if (!json_object_object_length(ops)) {
					parse_fail(err, ln.no, "empty operation table");
					goto out;
				}
				stage = DB_SUMMARY;
				break;
			}
			if (parse_op_row(&ln, ops, err))
				goto out;
			break;
		case DB_SUMMARY:
			if (line_is_blank(&ln))
				continue;
			if (parse_summary(p, &ln, &mbs, &maxlat, err))
				goto out;
			stage = DB_DONE;
			break;
		case DB_DONE:
			if (!line_is_blank(&ln)) {
				parse_fail(err, ln.no, "unexpected line after the summary '%.*s'",
					   LINE_SHOW(&ln));
				goto out;
			}
			break;
		}
	}
	if (r < 0)
		goto out;
	if (stage != DB_DONE) {
		static const char *const why[] = {
			[DB_BANNER] = "no 'Running for' line (dbench did not start)",
			[DB_PROGRESS] = "no operation table (dbench ended early)",
			[DB_DASHES] = "operation table cut short",
			[DB_ROWS] = "operation table cut short",
			[DB_SUMMARY] = "no 'Throughput' line (dbench ended early)",
		};
		parse_fail(err, line_iter_next_no(&it), "%s", why[stage]);
		goto out;
	}
	metric_set_add(ms, "throughput", "MB/s", BETTER_HIGHER, mbs);
	metric_set_add(ms, "max_latency", "ms", BETTER_LOWER, maxlat);
	if (!ms->extra)
		ms->extra = json_object_new_object();
	json_object_object_add(ms->extra, "operations", ops);
	ops = NULL;
	ret = 0;
out:
	json_object_put(ops);
	return ret;
}

static const struct host_tool dbench_tools[] = {
	{ "dbench", "dbench", NULL },
	{ DBENCH_LOADFILE, "dbench", "dbench load file" },
	{ NULL, NULL, NULL },
};

const struct workload_ops dbench_ops = {
	.name = "dbench",
	.description = "file system load: NetBench trace replay on the scratch disk (dbench 4.0)",
	.headline = "throughput",
	.tools = dbench_tools,
	.opts = dbench_opts,
	.params_size = sizeof(struct dbench_params),
	.defaults = dbench_defaults,
	.check = dbench_check,
	.prepare = dbench_prepare,
	.command = dbench_command,
	.parse = dbench_parse,
};
