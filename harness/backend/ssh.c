/* ssh.c - the ssh backend: a remote machine described by a target file
 * (core/target.h), driven as ktest drives one. Per iteration: the
 * variant's kernel, its modules (under /lib/modules/RELEASE only when that
 * is absent) go into a fresh /var/tmp/kbench-XXXXXXXX, and an initrd is
 * made by the machine's own mkinitramfs into its cache (/var/tmp/kbench-
 * cache/KEY, KEY the sha256 of the kernel, modules and config; the target
 * file's initrd_cache most recent kept, reused while what mkinitramfs
 * read there is unchanged); the kernel is loaded with kexec
 * and executed; kbench waits for the machine to come back (a new boot id),
 * checks the kernel release and command line, and runs the static agent
 * over ssh (its stdio transport) with the machine's own userspace. After
 * the iteration (also after an error or Ctrl-C) the machine is rebooted
 * into its default kernel and what kbench put there is removed (unless
 * the backend option keep is set).
 *
 * boot = reboot-once, for machines where kexec fails: the kernel and the
 * initrd are copied to a fresh /boot/kbench-XXXXXXXX (the filesystem GRUB
 * already reads kernels from), a one-entry /boot/grub/custom.cfg (which
 * Debian's grub.cfg sources, /etc/grub.d/41_custom) names them, and
 * grub-reboot makes that entry the next boot's only: GRUB clears it as it
 * boots, so the default entry is never changed and any later reboot or
 * power cycle is back on the default kernel. Both files go after the run.
 *
 * ssh, the power-cycle and the console commands run as argv through
 * core/spawn with deadlines; every remote argument is single-quoted
 * (sh_quote), and the remote scripts are constants of this file that
 * take target-file values only as positional arguments. */
#include "backend/backend.h"
#include "core/target.h"
#include "core/workload.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOCK_DIR "/var/tmp/kbench.lock"

struct ssh_params {
	char target[OPT_STR_MAX]; /* name in configs/targets/ or a path */
	int keep;                 /* leave the variant booted and its files */
};

static const struct ssh_params ssh_defaults = { "", 0 };

static const struct opt_def ssh_opts[] = {
	{ "target", OPT_STRING, offsetof(struct ssh_params, target), 0, 0, NULL,
	  "the machine: configs/targets/NAME.ini or a path (--target)" },
	{ "keep", OPT_BOOL, offsetof(struct ssh_params, keep), 0, 0, NULL,
	  "leave the variant booted and kbench's files on the machine (--keep)" },
	OPT_END
};

/* The run's machine (one run per process at a time: setup fills it). */
static struct {
	struct target t;
	int keep;
	int host_lock;        /* flock'ed file under the cache, or -1 */
	int lost;             /* did not come back and has no power_cycle */
	char dir[128];        /* this iteration's /var/tmp/kbench-XXXXXXXX */
	char release[128];    /* the variant's kernel release there */
	char scratch[OPT_STR_MAX]; /* the scratch directory, "" = none */
	char initrd[200];     /* this iteration's initrd there */
	char tar_sha[65];     /* the run's modules tar's sha256 ("": not yet) */
} S = { .host_lock = -1 };

struct ssh_guest {
	struct child agent;   /* ssh running the agent */
	struct child console; /* the target's console command */
	int kexeced;          /* the machine left its default kernel */
	int down;             /* ... and is not known to be back */
	char boot_id[64];     /* the boot the agent runs in */
	char home[128];       /* the release it ran before the kexec */
	const char *console_log; /* the console command's output, or NULL */
	off_t console_off;    /* its size at the kexec */
};

/*
 * One ssh connection shared by the commands of a boot (OpenSSH's
 * ControlMaster): a connection costs the machine a key exchange, an
 * authentication and sshd's re-exec, about 1.1 s of CPU each on the test
 * lab's VM under TCG against 0.13 s for a command over a shared one, and
 * an iteration runs dozens. The master is kbench's own child (ssh -M -N,
 * stdio on /dev/null, not -f: a master that forks itself away can be
 * caught in the group kill that reaps its parent, and would outlive a
 * killed kbench), so it dies with kbench like every child; its socket is
 * in a 0700 directory of its own. Commands use it while it runs
 * (ControlMaster=no: without it each connects as before). It is closed
 * before kbench takes the machine away (kexec, reboot, power cycle) and
 * started again once the machine is back.
 */
static struct {
	struct child master;
	char dir[64];  /* mkdtemp'd, "" until first used */
	char path[80]; /* the control socket */
	int open;      /* the master runs, its socket is there */
	int away;      /* the machine is going or gone: no master until it is back */
	int failed;    /* starting one failed: direct connections until it is back */
	int exit_hook; /* atexit registered */
} M = { .master = CHILD_INIT };

static void ssh_argv_mode(struct strvec *v, double timeout_s, int master);
static void mux_exit(void);

/* The master stopped (SIGTERM: it closes its connection) and forgotten,
 * its socket removed. */
static void mux_drop(void)
{
	child_kill(&M.master, 2.0);
	child_release(&M.master);
	M.master = (struct child)CHILD_INIT;
	if (M.path[0])
		unlink(M.path);
	M.open = 0;
}

/* Start the master, when none runs and the machine is there; wait for
 * its socket (the connection made and authenticated). */
static void mux_open(void)
{
	double end;
	if (M.open && child_poll(&M.master) == 0)
		return;
	if (M.open) /* it ended (the machine went away): connect anew */
		mux_drop();
	if (M.away || M.failed || kb_interrupted)
		return;
	if (!M.exit_hook)
		M.exit_hook = !atexit(mux_exit);
	if (!M.dir[0]) {
		char d[] = "/tmp/kbench-ssh.XXXXXX";
		if (!mkdtemp(d)) {
			M.failed = 1;
			return;
		}
		snprintf(M.dir, sizeof(M.dir), "%s", d);
		snprintf(M.path, sizeof(M.path), "%s/master", M.dir);
	}
	unlink(M.path);
	M.master = (struct child)CHILD_INIT;
	ssh_argv_mode(&M.master.argv, S.t.ssh_timeout_s, 1);
	M.master.stdout_path = M.master.stderr_path = "/dev/null";
	if (child_start(&M.master)) {
		child_release(&M.master);
		M.failed = 1;
		return;
	}
	end = now_mono() + S.t.ssh_timeout_s + 2;
	while (!path_exists(M.path) && child_poll(&M.master) == 0 && now_mono() < end &&
	       !kb_interrupted)
		usleep(20000);
	if (path_exists(M.path) && child_poll(&M.master) == 0) {
		M.open = 1;
		return;
	}
	mux_drop();
	M.failed = 1;
}

/* Stop the master; AWAY: the machine is going away, no new master until
 * it is back (mux_back). */
static void mux_close(int away)
{
	if (away)
		M.away = 1;
	if (M.open)
		mux_drop();
}

/* The machine answered after a boot: a master may be started again. */
static void mux_back(void)
{
	M.away = M.failed = 0;
}

static void mux_exit(void)
{
	mux_close(0);
	if (M.dir[0])
		rmdir(M.dir);
}

/* ssh's argv up to the destination (-- follows), strict host keys; over
 * the shared connection when one runs. */
static void ssh_argv(struct strvec *v, double timeout_s)
{
	ssh_argv_mode(v, timeout_s, 0);
}

/* MASTER: the argv that starts the shared connection (no command). */
static void ssh_argv_mode(struct strvec *v, double timeout_s, int master)
{
	const struct target *t = &S.t;
	strvec_push(v, "ssh");
	strvec_push(v, "-o");
	strvec_push(v, "BatchMode=yes");
	strvec_push(v, "-o");
	strvec_push(v, t->host_key == TK_ACCEPT_NEW ? "StrictHostKeyChecking=accept-new" :
						      "StrictHostKeyChecking=yes");
	strvec_push(v, "-o");
	strvec_pushf(v, "UserKnownHostsFile=%s", t->known_hosts);
	strvec_push(v, "-o");
	strvec_pushf(v, "ConnectTimeout=%d", (int)(timeout_s < t->ssh_timeout_s ? timeout_s :
						   t->ssh_timeout_s) + 1);
	strvec_push(v, "-o");
	strvec_push(v, "LogLevel=ERROR");
	strvec_push(v, "-o");
	strvec_push(v, "ServerAliveInterval=5");
	if (t->identity[0]) {
		strvec_push(v, "-o");
		strvec_push(v, "IdentitiesOnly=yes");
		strvec_push(v, "-i");
		strvec_push(v, t->identity);
	}
	strvec_push(v, "-p");
	strvec_pushf(v, "%d", t->port);
	if (master) {
		strvec_push(v, "-o");
		strvec_push(v, "ControlMaster=yes");
		strvec_push(v, "-o");
		strvec_pushf(v, "ControlPath=%s", M.path);
		strvec_push(v, "-N");
	} else if (M.open) {
		strvec_push(v, "-o");
		strvec_push(v, "ControlMaster=no");
		strvec_push(v, "-o");
		strvec_pushf(v, "ControlPath=%s", M.path);
	}
	strvec_pushf(v, "%s@%s", t->user, t->host);
	if (!master)
		strvec_push(v, "--");
}

/* ARGV (NULL-terminated) as one remote command line, each word quoted. */
static void remote_cmdline(struct strvec *v, const char *const *argv)
{
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; argv[i]; i++) {
		if (i)
			sb_add(&sb, " ", 1);
		sh_quote(&sb, argv[i]);
	}
	strvec_push(v, sb.buf);
	sb_release(&sb);
}

/* The ssh child running ARGV there (remote_run). */
static void remote_child(struct child *c, const char *const *argv, const char *in, double timeout_s,
			 int whole)
{
	*c = (struct child)CHILD_INIT;
	ssh_argv(&c->argv, timeout_s);
	remote_cmdline(&c->argv, argv);
	c->stdin_path = in;
	c->capture = 1;
	c->capture_max = 1 << 20;
	c->timeout_s = timeout_s;
	c->whole = whole;
}

/* Run ARGV on the machine with IN (NULL: nothing) as its stdin; its
 * output (stdout and stderr, trailing blanks cut) in OUT when non-NULL.
 * WHOLE: Ctrl-C waits for it rather than cutting it (spawn's whole: a
 * cleanup); the deadline applies all the same. The exit status (255: ssh
 * itself failed), or -1 on the deadline (and *TIMED_OUT set, when
 * non-NULL) or when ssh could not start. */
static int remote_run(const char *const *argv, const char *in, double timeout_s, int whole,
		      struct strbuf *out, int *timed_out)
{
	struct child c;
	int r;
	mux_open();
	remote_child(&c, argv, in, timeout_s, whole);
	r = child_run(&c);
	if (r == 255 && M.open && c.out.buf &&
	    (strstr(c.out.buf, "mux_client") || strstr(c.out.buf, "Session open refused"))) {
		/* the machine's sshd refused a session over the shared
		 * connection (MaxSessions): connect directly from now on */
		mux_close(0);
		M.failed = 1;
		child_release(&c);
		remote_child(&c, argv, in, timeout_s, whole);
		r = child_run(&c);
	}
	if (timed_out)
		*timed_out = c.timed_out;
	if (c.timed_out)
		r = -1;
	if (out) {
		sb_add(out, c.out.buf ? c.out.buf : "", c.out.len);
		while (out->len && strchr(" \t\r\n", out->buf[out->len - 1]))
			out->buf[--out->len] = '\0';
	}
	child_release(&c);
	return r;
}

/* remote_run as Ctrl-C cuts it, no deadline flag. */
static int remote(const char *const *argv, const char *in, double timeout_s, struct strbuf *out)
{
	return remote_run(argv, in, timeout_s, 0, out, NULL);
}

/* "user@host:port" for messages. */
static const char *machine(void)
{
	static char m[OPT_STR_MAX * 2 + 80];
	snprintf(m, sizeof(m), "target '%s' (%s@%s port %d)", S.t.name, S.t.user, S.t.host,
		 S.t.port);
	return m;
}

/* The target's boot method, as its file spells it. */
static const char *boot_name(void)
{
	return S.t.boot == TB_REBOOT_ONCE ? "reboot-once" : "kexec";
}

/* scratch_mkfs's filesystem, or "" for a scratch directory. */
static const char *mkfs_name(void)
{
	return S.t.scratch_mkfs == TM_EXT4 ? "ext4" : S.t.scratch_mkfs == TM_XFS ? "xfs" : "";
}

/* What took the machine away from its default kernel, for messages. */
static const char *boot_how(void)
{
	return S.t.boot == TB_REBOOT_ONCE ? "the reboot into the variant" : "the kexec";
}

/* ARGV (room for SH_ARGV_MAX) runs SCRIPT (a constant of this file) with
 * PRE (NULL: none) and then ARGS as $1.. */
#define SH_ARGV_MAX 16
static void sh_argv(const char **argv, const char *script, const char *pre,
		    const char *const *args)
{
	int n = 0;
	argv[n++] = "sh";
	argv[n++] = "-c";
	argv[n++] = script;
	argv[n++] = "kbench";
	if (pre)
		argv[n++] = pre;
	for (int i = 0; args && args[i] && n < SH_ARGV_MAX - 1; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
}

/* A remote script (a constant of this file) with ARGS as $1.. */
static int remote_sh(const char *script, const char *const *args, const char *in,
		     double timeout_s, struct strbuf *out)
{
	const char *argv[SH_ARGV_MAX];
	sh_argv(argv, script, NULL, args);
	return remote(argv, in, timeout_s, out);
}

/* The running step's pid file on the machine: kbench's lock directory
 * holds it from the lock to the cleanup. */
#define STEP_PID LOCK_DIR "/step.pid"

/* A step ($1, a script of this file; $2.. its arguments) run in a session
 * of its own, so that everything it starts can be killed as one
 * (step_kill_script): its pid (the session's and its process group's id)
 * and the boot's id in STEP_PID while it runs. setsid does not fork here
 * (an asynchronous command of a shell without job control is not a
 * process group leader), so $! is the step. Its stdin is the script's: an
 * asynchronous command's would be /dev/null. */
static const char step_script[] =
	"exec 3<&0\n"
	"setsid sh -c '\n"
	"  echo \"$$ $(cat /proc/sys/kernel/random/boot_id)\" >\"$0.new\" && mv \"$0.new\" \"$0\"\n"
	"  s=$1; shift; exec sh -c \"$s\" kbench \"$@\"' " STEP_PID " \"$@\" <&3 3<&- &\n"
	"wait $!\n"
	"r=$?\n"
	"rm -f " STEP_PID "\n"
	"exit $r\n";

/* The step cut off (at its deadline, or by Ctrl-C) stopped: its session
 * sent SIGTERM (mkinitramfs then removes its temporary files), SIGKILL
 * 5 s later, and waited for until none of it is left. A step still
 * starting gets 2 s to write its pid file; a pid file of an earlier boot,
 * or whose process is not the leader of its own session, names none. */
static const char step_kill_script[] =
	"p=" STEP_PID "\n"
	"[ -f $p ] || sleep 2\n"
	"[ -f $p ] || { echo 'no step running'; exit 0; }\n"
	"read -r k b <$p\n"
	"case $k in '' | *[!0-9]* | 0* | 1) rm -f $p; echo 'no step running'; exit 0 ;; esac\n"
	"l=$(sed 's/.*) //' /proc/$k/stat 2>/dev/null | cut -d' ' -f4)\n"
	"if [ \"$b\" != \"$(cat /proc/sys/kernel/random/boot_id)\" ] || [ \"$l\" != \"$k\" ]; then\n"
	"  rm -f $p; echo 'no step running'; exit 0\n"
	"fi\n"
	"kill -s TERM -- -$k 2>/dev/null\n"
	"i=0\n"
	"while kill -s 0 -- -$k 2>/dev/null; do\n"
	"  i=$((i + 1))\n"
	"  [ $i = 10 ] && kill -s KILL -- -$k 2>/dev/null\n"
	"  [ $i = 30 ] && { echo \"step $k is still running after SIGKILL\"; exit 3; }\n"
	"  sleep 0.5\n"
	"done\n"
	"rm -f $p\n"
	"echo \"step $k stopped\"\n";

/* The step NAME, cut off here, stopped on the machine over a second ssh
 * (step_kill_script), which Ctrl-C does not cut. */
static void step_kill(const char *name)
{
	struct strbuf out = STRBUF_INIT, cause = STRBUF_INIT;
	const char *argv[] = { "sh", "-c", step_kill_script, NULL };
	struct target_step_end e = { .step = "stopping it", .key = "ssh_timeout",
				     .limit_s = S.t.ssh_timeout_s + 30.0 };
	if ((e.status = remote_run(argv, NULL, e.limit_s, 1, &out, &e.timed_out))) {
		e.output = out.buf;
		target_step_cause(&cause, S.t.path, &e);
		warning("%s: the step '%s' was cut off here and may still run there: %s", machine(),
			name, cause.buf);
	}
	sb_release(&out);
	sb_release(&cause);
}

/* A remote step: SCRIPT (a constant of this file) with ARGS as $1.. and IN
 * (NULL: nothing) as its stdin, in a session of its own on the machine
 * (step_script), within the target file's deadline for STEP. Its output
 * in OUT, the parts it announces (PARTS, or NULL) taken out. 0, or -1
 * with CAUSE saying why, never empty (target_step_cause, naming NAME or
 * the part it was in); a step cut off, at its deadline or by Ctrl-C, is
 * stopped there first (step_kill). */
static int remote_step(enum target_step step, const char *name, const struct target_part *parts,
		       const char *script, const char *const *args, const char *in,
		       struct strbuf *out, struct strbuf *cause)
{
	const char *argv[SH_ARGV_MAX];
	struct target_step_end e = { .key = target_steps[step].key,
				     .limit_s = S.t.step_timeout_s[step] };
	sh_argv(argv, step_script, script, args);
	e.status = remote_run(argv, in, e.limit_s, 0, out, &e.timed_out);
	e.step = target_step_part(out, parts, name);
	if (!e.status)
		return 0;
	e.interrupted = !e.timed_out && kb_interrupted;
	if (e.timed_out || e.interrupted)
		step_kill(e.step);
	e.output = out->buf;
	target_step_cause(cause, S.t.path, &e);
	return -1;
}

/* A scratch block device $s refused (a message and exit 4) when it or a
 * partition of it is mounted, swap, held (LVM, md, dm-crypt) or the root
 * filesystem's disk; $f the mkfs (ext4, xfs) that must be there. */
#define DEVICE_CHECK \
	"v=$(readlink -f \"$s\") n=${v##*/}\n" \
	"[ -e \"/sys/class/block/$n\" ] || { echo \"scratch $s ($v) is not a disk the kernel lists in /sys/class/block\"; exit 4; }\n" \
	"for p in \"$n\" $(cd \"/sys/class/block/$n\" && for x in *; do [ -e \"$x/partition\" ] && echo \"$x\"; done); do\n" \
	"  m=$(while read -r a b rest; do [ \"$(readlink -f \"$a\" 2>/dev/null)\" = \"/dev/$p\" ] && { echo \"$b\"; break; }; done </proc/mounts)\n" \
	"  [ -n \"$m\" ] && { echo \"scratch $s is a device in use: /dev/$p is mounted at $m\"; exit 4; }\n" \
	"  grep -q \"^/dev/$p \" /proc/swaps && { echo \"scratch $s is a device in use: /dev/$p is swap\"; exit 4; }\n" \
	"  [ -n \"$(ls \"/sys/class/block/$p/holders\" 2>/dev/null)\" ] && { echo \"scratch $s is a device in use: /dev/$p is held by $(ls \"/sys/class/block/$p/holders\" | tr '\\n' ' ')(LVM, md or dm)\"; exit 4; }\n" \
	"done\n" \
	"command -v \"mkfs.$f\" >/dev/null || { echo \"scratch_mkfs = $f: no mkfs.$f on the machine\"; exit 4; }\n"

/* The scratch $s refused (a message and exit 4) unless it is an empty
 * directory, none, or ($f, scratch_mkfs, set) a block device not in use:
 * the run's probe and kbench doctor --target. */
#define SCRATCH_CHECK \
	"if [ -n \"$s\" ] && [ -b \"$s\" ]; then\n" \
	"  m=$(awk -v d=\"$s\" '$1 == d { print $2; exit }' /proc/mounts)\n" \
	"  [ -n \"$m\" ] && { echo \"scratch $s is a device in use: mounted at $m\"; exit 4; }\n" \
	"  [ -n \"$f\" ] || { echo \"scratch $s is a block device: set scratch_mkfs = ext4 (or xfs) in the target file to let kbench format it each iteration (everything on it is lost), or name an empty directory\"; exit 4; }\n" \
	DEVICE_CHECK \
	"elif [ -n \"$f\" ]; then\n" \
	"  echo \"scratch_mkfs = $f: scratch $s is not a block device\"; exit 4\n" \
	"elif [ -n \"$s\" ]; then\n" \
	"  [ -d \"$s\" ] || { echo \"scratch $s is not an existing directory\"; exit 4; }\n" \
	"  [ \"$(cd \"$s\" && pwd -P)\" = / ] && { echo \"scratch $s is the mounted root filesystem /\"; exit 4; }\n" \
	"  for f in \"$s\"/* \"$s\"/.[!.]*; do\n" \
	"    [ -e \"$f\" ] || continue\n" \
	"    [ \"$f\" = \"$s/kbench-scratch\" ] && continue\n" \
	"    echo \"scratch $s holds '${f##*/}', which kbench did not make: name an empty directory\"; exit 4\n" \
	"  done\n" \
	"fi\n"

/* boot = reboot-once: GRUB with grub-reboot, a grub.cfg that honours its
 * one-time entry and sources custom.cfg, and no custom.cfg but kbench's
 * (a message and exit 3 otherwise). */
#define GRUB_DIR "/boot/grub"
#define ONCE_ENTRY "kbench-once"
#define ONCE_MARK "# kbench one-time entry"
#define GRUB_CHECK \
	"command -v grub-reboot >/dev/null || { echo 'boot = reboot-once: no grub-reboot on the machine (it needs GRUB and grub2-common)'; exit 3; }\n" \
	"[ -f " GRUB_DIR "/grub.cfg ] || { echo 'boot = reboot-once: no " GRUB_DIR "/grub.cfg (the machine must boot with GRUB)'; exit 3; }\n" \
	"grep -q next_entry " GRUB_DIR "/grub.cfg || { echo 'boot = reboot-once: " GRUB_DIR "/grub.cfg has no one-time entry (next_entry): run update-grub there'; exit 3; }\n" \
	"grep -q custom.cfg " GRUB_DIR "/grub.cfg || { echo 'boot = reboot-once: " GRUB_DIR "/grub.cfg does not read custom.cfg (/etc/grub.d/41_custom): run update-grub there'; exit 3; }\n" \
	"grub-editenv - list >/dev/null 2>&1 || { echo 'boot = reboot-once: grub-editenv cannot read " GRUB_DIR "/grubenv'; exit 3; }\n" \
	"if [ -e " GRUB_DIR "/custom.cfg ] && [ \"$(head -n 1 " GRUB_DIR "/custom.cfg)\" != '" ONCE_MARK "' ]; then\n" \
	"  echo 'boot = reboot-once: " GRUB_DIR "/custom.cfg is not kbench'\\''s: kbench puts its one-time entry there; move those entries to /etc/grub.d/40_custom and run update-grub'; exit 3\n" \
	"fi\n"

/* What the machine must have and may give, and nobody else's run on it
 * (a lock of this host's, $4, is an earlier run's: the first iteration's
 * lock step tells whether it is gone, take_stale_lock). $1 the scratch or
 * "", $2 the boot method, $3 scratch_mkfs's filesystem. */
static const char probe_script[] =
	"if [ \"$2\" = reboot-once ]; then\n"
	GRUB_CHECK
	"else command -v kexec >/dev/null || { echo 'no kexec on the machine (install kexec-tools)'; exit 3; }; fi\n"
	"command -v mkinitramfs >/dev/null || { echo 'no mkinitramfs on the machine (install initramfs-tools)'; exit 3; }\n"
	"command -v setsid >/dev/null || { echo 'no setsid on the machine (install util-linux)'; exit 3; }\n"
	"s=$1 f=$3\n"
	SCRATCH_CHECK
	"if [ -d " LOCK_DIR " ]; then\n"
	"  o=$(cat " LOCK_DIR "/run 2>/dev/null)\n"
	"  case $o in \"$4 pid \"*) ;; *) echo \"the machine is in use by kbench run $o (" LOCK_DIR "; remove it if that run is gone)\"; exit 5 ;; esac\n"
	"fi\n"
	"echo ok\n";

/* This host's name, as the machine's lock records it ("NAME pid N"). */
static void this_host(char *out, size_t n)
{
	if (gethostname(out, n - 1))
		snprintf(out, n, "unknown");
	out[n - 1] = '\0';
}

/* The host's end of the lock: one run per target from this host. */
static int host_lock(void)
{
	char path[KB_PATH_MAX];
	snprintf(path, sizeof(path), "%s/locks", cache_root());
	if (mkdir_p(path, 0755))
		return -1;
	snprintf(path, sizeof(path), "%s/locks/target-%s.lock", cache_root(), S.t.name);
	if (S.host_lock >= 0)
		close(S.host_lock);
	S.host_lock = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (S.host_lock < 0)
		return error("cannot open the lock '%s': %s", path, strerror(errno));
	if (flock(S.host_lock, LOCK_EX | LOCK_NB))
		return error("%s is in use by another kbench on this host (lock %s)", machine(), path);
	return 0;
}

static int ssh_version(char *out, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	const char *argv[] = { "ssh", "-V", NULL };
	run_capture(argv, 10, &sb);
	snprintf(out, len, "%.*s", (int)strcspn(sb.buf ? sb.buf : "", "\n"), sb.buf ? sb.buf : "");
	sb_release(&sb);
	return 0;
}

static int ssh_setup(void *params, const struct boot_params *probe, struct backend_info *info)
{
	const struct ssh_params *sp = params;
	struct strbuf out = STRBUF_INIT;
	char host[256];
	const char *args[] = { probe->scratch_dir ? probe->scratch_dir : "", NULL, NULL, host, NULL };
	int r;
	mux_close(0);
	mux_back();
	target_release(&S.t);
	S.lost = 0;
	S.keep = sp->keep;
	S.tar_sha[0] = '\0';
	if (!sp->target[0])
		return error("backend 'ssh' needs a machine: give --target NAME (configs/targets/)");
	if (target_load(sp->target, &S.t) || host_lock())
		return -1;
	args[1] = boot_name();
	args[2] = mkfs_name();
	this_host(host, sizeof(host));
	if (S.t.scratch_mkfs != TM_NO) /* the device, not where it is mounted */
		args[0] = S.t.scratch;
	r = remote_sh(probe_script, args, NULL, S.t.ssh_timeout_s * 2.0, &out);
	if (r) {
		error("%s: %s", machine(), r == 255 ? "ssh failed" : r < 0 ? "ssh timed out" :
					   "not usable");
		fprintf(stderr, "%s\n", out.buf && *out.buf ? out.buf : "(no output)");
		sb_release(&out);
		return -1;
	}
	sb_release(&out);
	snprintf(info->accel, sizeof(info->accel), "none");
	info->time_scale = 1.0;
	/* back from kexec, then the agent's start over ssh */
	info->boot_timeout_s = S.t.boot_timeout_s + 30;
	return 0;
}

static int ssh_check_tools(const struct boot_params *p)
{
	static const struct host_tool ssh_tool = { "ssh", "openssh-client", NULL };
	char *path = host_tool_find(&ssh_tool);
	(void)p;
	if (!path)
		return error("'ssh' not found: install the Debian package openssh-client");
	free(path);
	return 0;
}

/* The initrd cache on the machine: one directory per content key (the
 * kernel, its modules and config: the host's sha256), holding initrd.img,
 * "machine", the fingerprint of what mkinitramfs read there, and the
 * modules' tar kbench copied (so later iterations and runs copy none). */
#define CACHE_DIR "/var/tmp/kbench-cache"

/* Lock the machine and make this iteration's directory there; whether
 * the variant's modules are there, whether the cache entry $3 (the key
 * with kbench's modules) holds their tar, and whether kbuild's tree $4
 * is there in full. */
static const char lock_script[] =
	/* a lock of this host's ($5) is an earlier run's that is gone or
	 * alive: kbench tells (exit 5: its directory, then its owner) */
	"mkdir " LOCK_DIR " 2>/dev/null || {\n"
	"  o=$(cat " LOCK_DIR "/run 2>/dev/null)\n"
	"  case $o in \"$5 pid \"*) echo \"stale $(cat " LOCK_DIR "/dir 2>/dev/null)\"; echo \"$o\"; exit 5 ;; esac\n"
	"  echo \"the machine is in use by kbench run $o\"; exit 3; }\n"
	"echo \"$1\" >" LOCK_DIR "/run\n"
	"d=$(mktemp -d /var/tmp/kbench-XXXXXXXX) || exit 4\n"
	"echo \"$d\" >" LOCK_DIR "/dir\n"
	"echo \"$d\"\n"
	"[ -e \"/lib/modules/$2\" ] && echo present || echo absent\n"
	"[ -f " CACHE_DIR "/$3/modules.tar ] && echo modules-cached\n"
	"[ -n \"$4\" ] && [ -f " KB_TARGET_KBUILD_DIR "/$4/tree-complete ] && echo tree-cached\n"
	"exit 0\n";

/* kbuild's source tree from stdin (a tar) into KB_TARGET_KBUILD_DIR/$1/
 * linux, marked complete when it is; the trees of other keys go (one
 * kept: a tree is 1.5 GB as a tar). */
static const char tree_script[] =
	"k=$1 b=" KB_TARGET_KBUILD_DIR "\n"
	"case $k in '' | *[!0-9a-f]*) exit 3 ;; esac\n"
	"mkdir -p \"$b\" || exit 3\n"
	"for x in \"$b\"/*; do [ ! -e \"$x\" ] || [ \"$x\" = \"$b/$k\" ] || rm -rf \"$x\"; done\n"
	"rm -rf \"$b/$k\" && mkdir -p \"$b/$k/linux\" || exit 3\n"
	"if tar -xf - -C \"$b/$k/linux\"; then touch \"$b/$k/tree-complete\"; echo \"$b/$k/linux\"\n"
	"else rm -rf \"$b/$k\"; echo \"cannot unpack the kernel tree into $b/$k: is /var/tmp full? ($(df -Pm /var/tmp | awk 'NR == 2 { print $4 }') MiB free)\"; exit 3; fi\n";

/* The modules (when kbench put them there), the initrd, the scratch
 * directory. $1 dir, $2 release, $3 scratch or "", $4 the content key,
 * $5 initrds kept after the run. Its last line: "initrd made|cached PATH".
 * It announces its parts (install_parts). mkinitramfs makes the initrd
 * in the iteration's directory, its temporary files there too (TMPDIR):
 * a mkinitramfs stopped half-way (install_timeout, Ctrl-C) leaves
 * nothing in /var/tmp that the cleanup does not remove. */
static const char install_script[] =
	"d=$1 r=$2 s=$3 k=$4 n=$5 c=" CACHE_DIR " e=" CACHE_DIR "/$4\n"
	"chmod 755 \"$d/kbench-agent\" || exit 3\n"
	/* the modules' tar from the cache, when none was copied: it goes
	 * back there after use */
	"[ -f \"$d/modules.tar\" ] || [ -e \"/lib/modules/$r\" ] || [ ! -f \"$e/modules.tar\" ] ||\n"
	"  mv \"$e/modules.tar\" \"$d/modules.tar\" || exit 3\n"
	"mk() {\n"
	"  mkdir -p \"$d/tmp\" && TMPDIR=\"$d/tmp\" mkinitramfs -o \"$d/initrd.new\" \"$r\" >\"$d/mkinitramfs.log\" 2>&1 &&\n"
	"    mv \"$d/initrd.new\" \"$1\" || { tail -5 \"$d/mkinitramfs.log\"; echo 'mkinitramfs failed'; exit 4; }\n"
	"}\n"
	/* what mkinitramfs reads on the machine: its packages, its config,
	 * and modules kbench does not put there */
	"f=$( { dpkg-query -W initramfs-tools initramfs-tools-core busybox klibc-utils udev kmod 2>/dev/null\n"
	"  find /etc/initramfs-tools -type f -exec sha256sum {} + 2>/dev/null | sort\n"
	"  [ -f \"$d/modules.tar\" ] || find \"/lib/modules/$r\" -name '*.ko*' -printf '%P %s %T@\\n' 2>/dev/null | sort\n"
	"} | sha256sum | cut -c1-64)\n"
	"hit=\n"
	"[ -f \"$e/initrd.img\" ] && [ \"$(cat \"$e/machine\" 2>/dev/null)\" = \"$f\" ] && hit=1\n"
	"[ -n \"$hit\" ] || { rm -rf \"$e\"; mkdir -p \"$e\" || exit 4; }\n"
	/* the modules, and depmod's output for them (in the key) made once */
	"if [ -f \"$d/modules.tar\" ]; then\n"
	"  echo '" TARGET_PART_MARK "modules'\n"
	"  mkdir \"/lib/modules/$r\" && echo \"$r\" >\"$d/modules-created\" &&\n"
	"  tar -xf \"$d/modules.tar\" -C \"/lib/modules/$r\" && mv \"$d/modules.tar\" \"$e/modules.tar\" &&\n"
	"  if [ -n \"$hit\" ] && [ -f \"$e/depmod.tar\" ]; then tar -xf \"$e/depmod.tar\" -C \"/lib/modules/$r\"\n"
	"  else depmod \"$r\" && tar -cf \"$e/depmod.tar\" -C \"/lib/modules/$r\" $(cd \"/lib/modules/$r\" && ls -d modules.*); fi ||\n"
	"    { echo 'cannot install the modules'; exit 3; }\n"
	"fi\n"
	"if [ -f \"$d/config\" ] && [ ! -e \"/boot/config-$r\" ]; then\n"
	"  cp \"$d/config\" \"/boot/config-$r\" && echo \"$r\" >\"$d/config-created\" || exit 3\n"
	"fi\n"
	"[ -z \"$s\" ] || mkdir -p \"$s/kbench-scratch\"\n"
	"if [ -n \"$hit\" ]; then touch \"$e\"; w=cached\n"
	"else echo '" TARGET_PART_MARK "initrd'; mk \"$e/initrd.img\"; echo \"$f\" >\"$e/machine\"; w=made; fi\n"
	/* the N most recently used kept (this one at least: with 0, the
	 * cleanup removes the cache) */
	"i=0\n"
	"for x in $(ls -1dt \"$c\"/*/); do i=$((i + 1)); [ $i -le \"$n\" ] || [ $i = 1 ] || rm -rf \"$x\"; done\n"
	"echo \"initrd $w $e/initrd.img\"\n";

/* install_script's parts, as its messages name them. */
static const struct target_part install_parts[] = {
	{ "modules", "installing the modules (tar, depmod)" },
	{ "initrd", "making the initrd (mkinitramfs)" },
	{ NULL, NULL },
};

/* Everything kbench made there. $1 dir, $2 release, $3 scratch or "",
 * $4 initrds kept (0: the cache goes too). */
static const char remove_script[] =
	"d=$1 r=$2 s=$3 n=$4\n"
	"case \"$d\" in /var/tmp/kbench-*) ;; *) exit 3 ;; esac\n"
	/* an earlier run's directory (a stale lock): the release it installed */
	"[ -n \"$r\" ] || r=$(cat \"$d/modules-created\" \"$d/config-created\" 2>/dev/null | head -n 1)\n"
	"case \"$r\" in *[!A-Za-z0-9._+-]* | .*) r= ;; esac\n"
	/* reboot-once: its /boot directory, its custom.cfg, and a one-time
	 * entry GRUB never took (the machine did not reboot) */
	"b=$(cat \"$d/boot-dir\" 2>/dev/null)\n"
	"case \"$b\" in *..* | /boot/kbench-*/*) ;; /boot/kbench-*) rm -rf \"$b\" ;; esac\n"
	"if [ -f \"$d/custom-created\" ]; then\n"
	"  [ \"$(head -n 1 " GRUB_DIR "/custom.cfg 2>/dev/null)\" = '" ONCE_MARK "' ] && rm -f " GRUB_DIR "/custom.cfg\n"
	"  grub-editenv - list 2>/dev/null | grep -qx 'next_entry=" ONCE_ENTRY "' && grub-editenv - unset next_entry\n"
	"fi\n"
	"[ -n \"$r\" ] && [ -f \"$d/modules-created\" ] && [ \"$(cat \"$d/modules-created\")\" = \"$r\" ] && rm -rf \"/lib/modules/$r\"\n"
	"[ -n \"$r\" ] && [ -f \"$d/config-created\" ] && [ \"$(cat \"$d/config-created\")\" = \"$r\" ] && rm -f \"/boot/config-$r\"\n"
	"rm -rf \"$d\"\n"
	/* what a step stopped half-way left in the cache (install_timeout,
	 * kbuild_tree_timeout, Ctrl-C): an entry with neither an initrd nor
	 * a modules' tar, a kbuild tree never completed */
	"for x in " CACHE_DIR "/*/; do\n"
	"  [ ! -d \"$x\" ] || [ -f \"$x/initrd.img\" ] || [ -f \"$x/modules.tar\" ] || rm -rf \"$x\"\n"
	"done\n"
	"for x in " KB_TARGET_KBUILD_DIR "/*/; do [ ! -d \"$x\" ] || [ -f \"$x/tree-complete\" ] || rm -rf \"$x\"; done\n"
	"[ \"$n\" != 0 ] || rm -rf " CACHE_DIR " " KB_TARGET_KBUILD_DIR "\n"
	"if [ \"$s\" = " TARGET_SCRATCH_MNT " ]; then\n"
	"  ! mountpoint -q \"$s\" || umount \"$s\"\n"
	"  rm -rf \"$s/kbench-scratch\"; rmdir \"$s\" 2>/dev/null\n"
	"elif [ -n \"$s\" ]; then rm -rf \"$s/kbench-scratch\"; fi\n"
	"rm -rf " LOCK_DIR "\n";

/* Copy the local file FROM to the machine as TO. 0, or -1 with ERR. */
static int upload(const char *from, const char *to, char *err, size_t errlen)
{
	struct strbuf out = STRBUF_INIT, cause = STRBUF_INIT;
	const char *args[] = { to, NULL }, *base = strrchr(to, '/');
	char name[160];
	int r;
	snprintf(name, sizeof(name), "copying %s there", base ? base + 1 : to);
	r = remote_step(TS_COPY, name, NULL, "cat >\"$1\"", args, from, &out, &cause);
	if (r)
		snprintf(err, errlen, "cannot copy %s to %s:%s: %s", from, machine(), to, cause.buf);
	sb_release(&out);
	sb_release(&cause);
	return r;
}

/* The variant's modules as one tar file under the workdir; an empty one
 * for a kernel with everything built in (a source build: the machine
 * still gets /lib/modules/RELEASE, for depmod and mkinitramfs). Made
 * once a run (the workdir goes with the run), and hashed once. */
static int modules_tar(const struct boot_params *p, char *tar, size_t len, char *err, size_t errlen)
{
	char none[KB_PATH_MAX];
	const char *argv[] = { "tar", "-C", p->moddir, "-cf", tar, ".", NULL };
	snprintf(tar, len, "%s/modules.tar", p->workdir);
	argv[4] = tar;
	if (S.tar_sha[0] && path_exists(tar))
		return 0;
	S.tar_sha[0] = '\0';
	if (!p->moddir || !*p->moddir) {
		snprintf(none, sizeof(none), "%s/no-modules", p->workdir);
		if (mkdir_p(none, 0755)) {
			snprintf(err, errlen, "cannot make %s", none);
			return -1;
		}
		argv[2] = none;
	}
	if (run_capture(argv, 600, NULL) || sha256_file_hex(tar, S.tar_sha)) {
		S.tar_sha[0] = '\0';
		snprintf(err, errlen, "cannot pack the modules of %s (%s)", p->release, p->moddir);
		return -1;
	}
	return 0;
}

/* What a run put on the machine in DIR (its RELEASE's modules and
 * config; "": those DIR records) removed, and the lock (remove_script;
 * a DIR that is not kbench's: the lock alone); the initrd cache too
 * when INITRD_CACHE is 0. Ctrl-C does not cut it
 * (it is what leaves the machine clean after one), and it is not stopped
 * there at its deadline either: the rest of it had better run to its
 * end. */
static void remove_run(const char *dir, const char *release, int initrd_cache)
{
	static const char unlock_script[] = "rm -rf " LOCK_DIR "\n";
	struct strbuf out = STRBUF_INIT, cause = STRBUF_INIT;
	char n[16];
	const char *args[] = { dir, release, S.scratch, n, NULL }, *argv[SH_ARGV_MAX];
	struct target_step_end e = { .step = "removing what kbench put there",
				     .key = target_steps[TS_CLEANUP].key,
				     .limit_s = S.t.step_timeout_s[TS_CLEANUP] };
	snprintf(n, sizeof(n), "%d", initrd_cache);
	sh_argv(argv, strncmp(dir, "/var/tmp/kbench-", 16) ? unlock_script : remove_script, NULL, args);
	if ((e.status = remote_run(argv, NULL, e.limit_s, 1, &out, &e.timed_out))) {
		e.output = out.buf;
		target_step_cause(&cause, S.t.path, &e);
		warning("%s: cannot remove %s and the lock %s: %s", machine(), *dir ? dir : "(none)",
			LOCK_DIR, cause.buf);
	}
	sb_release(&out);
	sb_release(&cause);
}

/* This run's files removed (remove_run), and the lock. */
static void remove_ours(void)
{
	if (!S.dir[0])
		return;
	remove_run(S.dir, S.release, S.t.initrd_cache);
	S.dir[0] = '\0';
}

/* Is PID a kbench on this host (alive, and named so: a pid reused by
 * another program is not)? */
static int kbench_alive(long pid)
{
	char path[64], comm[32] = "";
	FILE *f;
	if (kill((pid_t)pid, 0) && errno != EPERM)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	if (!(f = fopen(path, "re")))
		return 1; /* alive, name unknown: not taken over */
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return !strncmp(comm, "kbench", 6);
}

/* The lock on the machine is this host's, of an earlier run (lock_script
 * exit 5; OUT: "stale DIR", then "HOST pid N"). This host's lock on the
 * target (host_lock) says no other kbench here runs on it, so the run is
 * gone unless its pid still lives (another target file naming the same
 * machine): then -1 with ERR. Else what it left is removed (a run whose
 * machine needed a hand, powered on since) and the lock is free: 0. */
static int take_stale_lock(const char *out, char *err, size_t errlen)
{
	char dir[128] = "", owner[300] = "";
	const char *nl = strchr(out, '\n'), *pid;
	long n;
	if (sscanf(out, "stale %127s", dir) != 1 || strchr(dir, '\''))
		dir[0] = '\0';
	if (nl)
		snprintf(owner, sizeof(owner), "%.*s", (int)strcspn(nl + 1, "\n"), nl + 1);
	pid = strstr(owner, " pid ");
	n = pid ? strtol(pid + 5, NULL, 10) : 0;
	if (n > 0 && n != (long)getpid() && kbench_alive(n)) {
		snprintf(err, errlen, "%s is in use by kbench run %.200s, still running on this host "
			 "(another target file naming the same machine?)", machine(), owner);
		return -1;
	}
	warning("%s: its lock is an earlier run's from this host (%.200s), which is gone (a machine "
		"that needed a hand?): removing what that run left there (%s) and taking the lock",
		machine(), owner, *dir ? dir : "no directory");
	remove_run(dir, "", 1); /* the cache is not that run's: this run decides */
	return 0;
}

/* The initrd's content key: the kernel, its modules (the tar kbench
 * copies there; "machine" when the machine's own are used) and config. */
static int initrd_key(const struct boot_params *p, const char *tar, char key[65], char *err,
		      size_t errlen)
{
	char k[65], m[65] = "machine", c[65] = "none";
	struct strbuf sb = STRBUF_INIT;
	if (tar[0])
		snprintf(m, sizeof(m), "%s", S.tar_sha);
	if (sha256_file_hex(p->kernel, k) || (tar[0] && !m[0]) ||
	    (p->kconfig && *p->kconfig && sha256_file_hex(p->kconfig, c))) {
		snprintf(err, errlen, "cannot read the kernel, modules or config of %s (its initrd's key)",
			 p->release);
		return -1;
	}
	sb_addf(&sb, "kbench initrd 1\nkernel %s\nmodules %s\nconfig %s\n", k, m, c);
	sha256_hex(sb.buf, sb.len, key);
	sb_release(&sb);
	return 0;
}

/* Modules, config, scratch and the initrd there (made, or reused from the
 * machine's cache); its path into S.initrd. */
static int install(const struct boot_params *p, const char *tar, double t0, char *err,
		   size_t errlen)
{
	struct strbuf out = STRBUF_INIT, cause = STRBUF_INIT;
	char key[65], n[16], how[16] = "", *last;
	/* a scratch device is mounted after the boot (scratch_format) */
	const char *args[] = { S.dir, p->release,
			       p->scratch_dir && S.t.scratch_mkfs == TM_NO ? p->scratch_dir : "", key,
			       n, NULL };
	int r = -1;
	snprintf(n, sizeof(n), "%d", S.t.initrd_cache);
	if (initrd_key(p, tar, key, err, errlen))
		return -1;
	if (remote_step(TS_INSTALL, "installing the kernel (its modules and initrd)", install_parts,
			install_script, args, NULL, &out, &cause)) {
		snprintf(err, errlen, "%s: cannot install the kernel: %s", machine(), cause.buf);
		goto out;
	}
	last = strrchr(out.buf ? out.buf : "", '\n');
	last = last ? last + 1 : out.buf ? out.buf : "";
	if (sscanf(last, "initrd %15s %199s", how, S.initrd) != 2 ||
	    strncmp(S.initrd, "/var/tmp/kbench-", 16) || strchr(S.initrd, '\'')) {
		snprintf(err, errlen, "%s: no initrd made: %.300s", machine(), out.buf ? out.buf : "");
		goto out;
	}
	info("kbench: %s: initrd %s (%s); ready to boot %s after %.0f s", machine(),
	     strcmp(how, "cached") ? "made there" : "reused from the machine's cache", S.initrd,
	     p->release, now_mono() - t0);
	r = 0;
out:
	sb_release(&out);
	sb_release(&cause);
	return r;
}

/* kbuild's source tree onto the machine (once: it keeps it), through a
 * tar of it in the workdir. */
static int ship_tree(const struct boot_params *p, char *err, size_t errlen)
{
	struct strbuf out = STRBUF_INIT, cause = STRBUF_INIT;
	char tar[KB_PATH_MAX];
	const char *pack[] = { "tar", "--exclude=.git", "-C", p->build_tree, "-cf", tar, ".", NULL };
	const char *args[] = { p->build_tree_key, NULL };
	struct stat st;
	double t0 = now_mono();
	int r = -1;
	snprintf(tar, sizeof(tar), "%s/tree.tar", p->workdir);
	if (run_capture(pack, 1800, NULL) || stat(tar, &st)) {
		snprintf(err, errlen, "cannot pack the kernel tree %s for kbuild (into %s)",
			 p->build_tree, tar);
		goto out;
	}
	info("kbench: %s: copying the kernel tree for kbuild (%lld MiB, once: the machine keeps it "
	     "in " KB_TARGET_KBUILD_DIR ")", machine(), (long long)(st.st_size >> 20));
	if (remote_step(TS_KBUILD_TREE, "copying kbuild's kernel tree there", NULL, tree_script,
			args, tar, &out, &cause)) {
		snprintf(err, errlen, "%s: cannot copy the kernel tree for kbuild: %s", machine(),
			 cause.buf);
		goto out;
	}
	info("kbench: %s: kernel tree at %.200s after %.0f s", machine(), out.buf, now_mono() - t0);
	r = 0;
out:
	unlink(tar);
	sb_release(&out);
	sb_release(&cause);
	return r;
}

/* Lock, directory, agent, kernel, modules, initrd. */
static int ssh_prepare(const struct boot_params *p, char *err, size_t errlen)
{
	struct strbuf out = STRBUF_INIT, cause = STRBUF_INIT;
	char owner[300], key[65], host[256];
	const char *largs[] = { owner, p->release ? p->release : "", key,
				p->build_tree_key ? p->build_tree_key : "", host, NULL };
	const char *argv[SH_ARGV_MAX];
	struct target_step_end le = { .step = "locking the machine", .key = "ssh_timeout",
				      .limit_s = S.t.ssh_timeout_s * 2.0 };
	char to[256], tar[KB_PATH_MAX] = "";
	int absent, cached, r = -1;
	double t0 = now_mono();
	if (S.lost) {
		snprintf(err, errlen, "%s did not come back and has no power_cycle command: it needs "
			 "a hand (power it on; then run again)", machine());
		return -1;
	}
	if (!p->release) {
		snprintf(err, errlen, "the variant has no kernel release");
		return -1;
	}
	if (p->console_log)
		close(open(p->console_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
	this_host(host, sizeof(host));
	snprintf(owner, sizeof(owner), "%s pid %ld", host, (long)getpid());
	snprintf(S.release, sizeof(S.release), "%s", p->release);
	snprintf(S.scratch, sizeof(S.scratch), "%s", p->scratch_dir ? p->scratch_dir : "");
	/* the modules' tar and the cache key it makes, before anything is
	 * copied: the machine's cache may hold that tar already */
	if (modules_tar(p, tar, sizeof(tar), err, errlen) ||
	    initrd_key(p, tar, key, err, errlen))
		goto out;
	sh_argv(argv, lock_script, NULL, largs);
	le.status = remote_run(argv, NULL, le.limit_s, 0, &out, &le.timed_out);
	if (le.status == 5 && !le.timed_out) { /* this host's earlier run's lock */
		if (take_stale_lock(out.buf ? out.buf : "", err, errlen))
			goto out;
		sb_reset(&out);
		le.status = remote_run(argv, NULL, le.limit_s, 0, &out, &le.timed_out);
	}
	if (le.status || sscanf(out.buf ? out.buf : "", "%127s", S.dir) != 1 ||
	    strncmp(S.dir, "/var/tmp/kbench-", 16) || strchr(S.dir, '\'')) {
		le.output = out.buf;
		target_step_cause(&cause, S.t.path, &le);
		snprintf(err, errlen, "%s: cannot lock it or make its directory: %s", machine(),
			 cause.buf);
		S.dir[0] = '\0';
		goto out;
	}
	absent = strstr(out.buf, "\nabsent") != NULL;
	cached = absent && strstr(out.buf, "\nmodules-cached") != NULL;
	if (!absent) /* the machine's own modules: the key says "machine" */
		tar[0] = '\0';
	snprintf(to, sizeof(to), "%s/kbench-agent", S.dir);
	if (upload(p->agent, to, err, errlen))
		goto out;
	snprintf(to, sizeof(to), "%s/vmlinuz", S.dir);
	if (upload(p->kernel, to, err, errlen))
		goto out;
	snprintf(to, sizeof(to), "%s/config", S.dir);
	if (p->kconfig && *p->kconfig && upload(p->kconfig, to, err, errlen))
		goto out;
	snprintf(to, sizeof(to), "%s/modules.tar", S.dir);
	if (absent && !cached && upload(tar, to, err, errlen))
		goto out;
	info("kbench: %s: kernel%s copied in %.0f s%s", machine(),
	     absent && !cached ? " and modules" : "", now_mono() - t0,
	     cached ? " (its modules from the machine's cache)" : "");
	if (p->build_tree && !strstr(out.buf, "\ntree-cached") && ship_tree(p, err, errlen))
		goto out;
	r = install(p, tar, t0, err, errlen);
out:
	if (r)
		remove_ours();
	sb_release(&out);
	sb_release(&cause);
	return r;
}

/* The first word of the machine's file PATH (a /proc one) into OUT. */
static int remote_word(const char *path, char *out, size_t len, double timeout_s)
{
	struct strbuf sb = STRBUF_INIT;
	const char *argv[] = { "cat", path, NULL };
	int r = remote(argv, NULL, timeout_s, &sb);
	if (!r)
		snprintf(out, len, "%.*s", (int)strcspn(sb.buf ? sb.buf : "", " \t\n"),
			 sb.buf ? sb.buf : "");
	sb_release(&sb);
	return r ? -1 : 0;
}

/* The machine's boot id, or -1 when ssh does not answer. */
static int boot_id(char *out, size_t len, double timeout_s)
{
	return remote_word("/proc/sys/kernel/random/boot_id", out, len, timeout_s);
}

/* The release the machine runs (uname -r) into OUT. */
static int running_release(char *out, size_t len)
{
	return remote_word("/proc/sys/kernel/osrelease", out, len, S.t.ssh_timeout_s);
}

#define PANIC_MARK "Kernel panic - not syncing"

/* Has the console (PATH, from offset OFF) shown a kernel panic? */
static int console_panicked(const char *path, off_t off)
{
	char buf[8192 + sizeof(PANIC_MARK)];
	size_t keep = 0;
	ssize_t n;
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1, hit = 0;
	if (fd < 0)
		return 0;
	/* chunks overlapping by the mark's length; NULs (serial junk) cut
	 * nothing: memmem */
	while (!hit && (n = pread(fd, buf + keep, sizeof(buf) - keep, off)) > 0) {
		off += n;
		n += keep;
		hit = memmem(buf, n, PANIC_MARK, strlen(PANIC_MARK)) != NULL;
		keep = (size_t)n < strlen(PANIC_MARK) - 1 ? (size_t)n : strlen(PANIC_MARK) - 1;
		memmove(buf, buf + n - keep, keep);
	}
	close(fd);
	return hit;
}

/* How long one try of a machine that is rebooting may take: a port
 * forwarded by NAT (QEMU's user network, a lab's gateway) accepts the
 * connection while the machine is down, and ssh then waits out its whole
 * ConnectTimeout for a banner that never comes; with ssh_timeout (30 s)
 * a boot was seen 15-30 s late (kexec to agent 45 s where the kernel and
 * systemd took 18 s) and a panic on the console noticed only after the
 * try. A machine that is up sends its banner within a second. */
#define WAIT_TRY_S 8

/* Wait until the machine answers with a boot id other than OLD (a new
 * boot), until DEADLINE (monotonic). The new id in NEW. -2 as soon as Q's
 * console shows a kernel panic (Q NULL: not watched). */
static int wait_back(const char *old, double deadline, char *new, size_t len,
		     const struct ssh_guest *q)
{
	while (now_mono() < deadline && !kb_interrupted) {
		double left = deadline - now_mono(), try = S.t.ssh_timeout_s;
		if (try > WAIT_TRY_S)
			try = WAIT_TRY_S;
		if (!boot_id(new, len, left < try ? left : try) && strcmp(new, old)) {
			mux_back();
			return 0;
		}
		if (q && console_panicked(q->console_log, q->console_off))
			return -2;
		sleep(2);
	}
	return -1;
}

/* The machine's command line without its boot loader's words, with the
 * variant's; into OUT. */
static int kexec_cmdline(const struct boot_params *p, struct strbuf *out)
{
	struct strbuf cur = STRBUF_INIT;
	const char *argv[] = { "cat", "/proc/cmdline", NULL };
	char *save = NULL;
	int r = remote(argv, NULL, S.t.ssh_timeout_s, &cur);
	for (char *w = r ? NULL : strtok_r(cur.buf, " \t\n", &save); w;
	     w = strtok_r(NULL, " \t\n", &save))
		if (strncmp(w, "BOOT_IMAGE=", 11) && strncmp(w, "initrd=", 7))
			sb_addf(out, "%s%s", out->len ? " " : "", w);
	if (p->cmdline && *p->cmdline)
		sb_addf(out, "%s%s", out->len ? " " : "", p->cmdline);
	sb_release(&cur);
	return r ? -1 : 0;
}

/* boot = reboot-once: the kernel and initrd into a fresh /boot/kbench-
 * XXXXXXXX, $1/custom.cfg (the entry, @DIR@ standing for that directory
 * as GRUB sees it: from the root of its filesystem) made the machine's
 * custom.cfg, and grub-reboot. $1 dir, $2 initrd. */
static const char reboot_once_script[] =
	"d=$1 i=$2\n"
	"case \"$d\" in /var/tmp/kbench-*) ;; *) exit 3 ;; esac\n"
	GRUB_CHECK
	"b=$(mktemp -d /boot/kbench-XXXXXXXX) || { echo 'cannot make a directory in /boot'; exit 3; }\n"
	"echo \"$b\" >\"$d/boot-dir\"\n"
	"cp \"$d/vmlinuz\" \"$b/vmlinuz\" && cp \"$i\" \"$b/initrd.img\" ||\n"
	"  { echo \"cannot copy the kernel and initrd to $b: is /boot full? ($(df -Pm /boot | awk 'NR == 2 { print $4 }') MiB free)\"; exit 3; }\n"
	"m=$(stat -c %m \"$b\") || exit 3\n"
	"g=${b#\"${m%/}\"}\n"
	"echo " ONCE_ENTRY " >\"$d/custom-created\"\n"
	"sed \"s|@DIR@|$g|g\" \"$d/custom.cfg\" >" GRUB_DIR "/custom.cfg.kbench &&\n"
	"  mv " GRUB_DIR "/custom.cfg.kbench " GRUB_DIR "/custom.cfg || { echo 'cannot write " GRUB_DIR "/custom.cfg'; exit 3; }\n"
	"grub-reboot " ONCE_ENTRY " || { echo 'grub-reboot failed'; exit 3; }\n"
	"sync\n"
	"echo \"GRUB entry " ONCE_ENTRY ": $g/vmlinuz\"\n";

int ssh_grub_entry(const char *release, const char *cl, struct strbuf *cfg)
{
	for (const char *c = cl; *c; c++)
		if (!isprint((unsigned char)*c))
			return -1;
	/* a word an argument, each quoted as in sh (GRUB's quoting is the
	 * same): GRUB joins them with spaces into the command line, after
	 * BOOT_IMAGE= (one argument with spaces in it it would pass on in
	 * double quotes: one kernel parameter, "root=... console=...") */
	sb_addf(cfg, ONCE_MARK "\n# removed after the run; %s\n"
		"menuentry '" ONCE_ENTRY "' --id " ONCE_ENTRY " {\n"
		"\tinsmod part_msdos\n\tinsmod part_gpt\n\tinsmod ext2\n"
		"\tsearch --no-floppy --file --set=root @DIR@/vmlinuz\n\tlinux @DIR@/vmlinuz",
		release);
	for (const char *w = cl; *w;) {
		size_t n = strcspn(w, " ");
		if (n) {
			char *word = xasprintf("%.*s", (int)n, w);
			sb_adds(cfg, " ");
			sh_quote(cfg, word);
			free(word);
		}
		w += n + (w[n] == ' ');
	}
	sb_addf(cfg, "\n\tinitrd @DIR@/initrd.img\n}\n");
	return 0;
}

/* The one-time GRUB entry for the command line CL into the workdir's
 * custom.cfg, then on the machine with the kernel and initrd it boots
 * (reboot_once_script's output in OUT). */
static int reboot_once_prepare(const struct boot_params *p, const char *cl, struct strbuf *out,
			       char *err, size_t errlen)
{
	struct strbuf cfg = STRBUF_INIT, cause = STRBUF_INIT;
	char path[KB_PATH_MAX], to[200];
	const char *args[] = { S.dir, S.initrd, NULL };
	int r = -1;
	if (ssh_grub_entry(p->release, cl, &cfg)) {
		snprintf(err, errlen, "%s: the command line for the variant has a control byte: not "
			 "put in a GRUB entry", machine());
		goto out;
	}
	snprintf(path, sizeof(path), "%s/custom.cfg", p->workdir);
	snprintf(to, sizeof(to), "%s/custom.cfg", S.dir);
	if (write_file_atomic(path, cfg.buf, cfg.len)) {
		snprintf(err, errlen, "cannot write %s", path);
		goto out;
	}
	if (upload(path, to, err, errlen))
		goto out;
	if (remote_step(TS_GRUB, "setting up GRUB's one-time entry (copies to /boot, grub-reboot)",
			NULL, reboot_once_script, args, NULL, out, &cause)) {
		snprintf(err, errlen, "%s: cannot set up the one-time GRUB entry: %s", machine(),
			 cause.buf);
		goto out;
	}
	r = 0;
out:
	sb_release(&cfg);
	sb_release(&cause);
	return r;
}

/* Load the variant and execute it, or (reboot-once) make it GRUB's next
 * boot and reboot (KBENCH_TEST_SSH_NO_KEXEC: reboot instead of the kexec,
 * as a machine whose kexec silently fails back to a reboot). */
static int boot_variant(struct ssh_guest *q, const struct boot_params *p, struct guest *g)
{
	struct strbuf cl = STRBUF_INIT, out = STRBUF_INIT, cause = STRBUF_INIT;
	char kernel[200], initrd[220], *append = NULL;
	const char *load[] = { kernel, initrd, NULL, NULL };
	const char *exec[] = { "systemctl", "kexec", NULL };
	const char *reboot[] = { "systemctl", "reboot", NULL };
	const char *skip = getenv("KBENCH_TEST_SSH_NO_KEXEC");
	int r;
	snprintf(kernel, sizeof(kernel), "%s/vmlinuz", S.dir);
	snprintf(initrd, sizeof(initrd), "--initrd=%s", S.initrd);
	if (kexec_cmdline(p, &cl) || boot_id(q->boot_id, sizeof(q->boot_id), S.t.ssh_timeout_s) ||
	    running_release(q->home, sizeof(q->home))) {
		sb_release(&cl);
		snprintf(g->err, sizeof(g->err), "%s: no answer over ssh before the kexec", machine());
		return -1;
	}
	if (S.t.boot == TB_REBOOT_ONCE) {
		r = reboot_once_prepare(p, cl.buf ? cl.buf : "", &out, g->err, sizeof(g->err));
		if (!r)
			info("kbench: %s: %s; rebooting into it once", machine(), out.buf);
		skip = "reboot";
	} else {
		load[2] = append = xasprintf("--append=%s", cl.buf ? cl.buf : "");
		if ((r = skip && *skip ? 0 : remote_step(TS_KEXEC, "loading the variant (kexec -l)", NULL,
							 "exec kexec -l \"$@\"", load, NULL, &out,
							 &cause)))
			snprintf(g->err, sizeof(g->err), "%s: kexec -l failed: %s", machine(), cause.buf);
	}
	if (!r) {
		/* the connection may drop as the machine goes down */
		mux_close(1);
		remote(skip && *skip ? reboot : exec, NULL, S.t.ssh_timeout_s, NULL);
	}
	q->kexeced = q->down = !r;
	free(append);
	sb_release(&cl);
	sb_release(&out);
	sb_release(&cause);
	return r ? -1 : 0;
}

/* Is the variant what runs: its release, and its command line words? */
static int verify_kernel(const struct boot_params *p, struct guest *g)
{
	struct ssh_guest *q = g->priv;
	struct strbuf out = STRBUF_INIT;
	const char *argv[] = { "sh", "-c", "uname -r; cat /proc/cmdline", NULL };
	char *nl, *save = NULL, words[OPT_STR_MAX * 2];
	int bad = 0;
	if (remote(argv, NULL, S.t.ssh_timeout_s, &out) || !(nl = strchr(out.buf, '\n'))) {
		snprintf(g->err, sizeof(g->err), "%s: no answer after %s", machine(), boot_how());
		sb_release(&out);
		return -1;
	}
	*nl = '\0';
	if (strcmp(out.buf, p->release))
		bad = snprintf(g->err, sizeof(g->err), "%s booted the wrong kernel: %.100s is running, "
			       "the variant is %s (%s)", machine(), out.buf, p->release,
			       S.t.boot == TB_REBOOT_ONCE ? "GRUB did not boot the one-time entry" :
			       "kexec failed or the machine rebooted");
	if (bad && q->home[0] && !strcmp(out.buf, q->home)) {
		/* it rebooted into the kernel it ran before: where kbench's
		 * way back would take it, so no second reboot (minutes of
		 * firmware on real hardware) */
		q->kexeced = q->down = 0;
		info("kbench: %s is back on its own kernel (%s): no reboot needed", machine(), q->home);
	}
	snprintf(words, sizeof(words), "%s", p->cmdline ? p->cmdline : "");
	for (char *w = strtok_r(words, " \t", &save); !bad && w; w = strtok_r(NULL, " \t", &save))
		if (!strstr(nl + 1, w))
			bad = snprintf(g->err, sizeof(g->err), "%s booted without the variant's "
				       "command line: '%s' is not in /proc/cmdline (%.200s)", machine(),
				       w, nl + 1);
	sb_release(&out);
	return bad ? -1 : 0;
}

/* Q's console: the target's console command (if it has one) appending
 * to PATH. 0, or -1 when it cannot start. */
static int console_start(struct ssh_guest *q, const char *path)
{
	q->console = (struct child)CHILD_INIT;
	for (size_t i = 0; i < S.t.console.n; i++)
		strvec_push(&q->console.argv, S.t.console.v[i]);
	q->console.stdout_path = q->console.stderr_path = path;
	q->console.append = 1;
	return S.t.console.n && child_start(&q->console) ? -1 : 0;
}

/* The target's power_cycle command (it has one), run with a deadline; a
 * failure is a warning: the wait for the machine that follows decides. */
static void power_cycle(void)
{
	struct child c = CHILD_INIT;
	mux_close(1);
	for (size_t i = 0; i < S.t.power_cycle.n; i++)
		strvec_push(&c.argv, S.t.power_cycle.v[i]);
	c.timeout_s = 120;
	c.stdout_path = c.stderr_path = "/dev/null";
	if (child_run(&c))
		warning("%s: the power_cycle command %s failed (status %d)", machine(), c.argv.v[0],
			c.status);
	child_release(&c);
}

/* The machine is not back (PANICKED: its console showed a kernel panic):
 * power-cycle it when the target says how. */
static void not_back(struct guest *g, double waited, int panicked)
{
	char why[120];
	if (panicked)
		snprintf(why, sizeof(why), "panicked after %s (\"" PANIC_MARK "\" on its "
			 "console, %.0f s)", boot_how(), waited);
	else
		snprintf(why, sizeof(why), "did not come back within %.0f s after %s", waited,
			 boot_how());
	if (!S.t.power_cycle.n) {
		S.lost = 1;
		snprintf(g->err, sizeof(g->err), "%s %s and has no power_cycle command: it needs a "
			 "hand; the run stops here", machine(), why);
		return;
	}
	power_cycle();
	snprintf(g->err, sizeof(g->err), "%s %s; power-cycled with '%s'", machine(), why,
		 S.t.power_cycle.v[0]);
}

/* In the booted variant: the scratch device $1 checked again (the
 * variant's kernel may name disks otherwise), formatted with mkfs.$2 and
 * mounted at $3, with the workloads' directory in it. */
static const char scratch_format_script[] =
	"s=$1 f=$2 d=$3\n"
	"[ -b \"$s\" ] || { echo \"scratch $s is not a block device under this kernel\"; exit 4; }\n"
	DEVICE_CHECK
	"case $f in xfs) o=-f ;; *) o=-F ;; esac\n"
	"mkfs.\"$f\" -q $o -L kbench-scratch \"$s\" >\"$d.mkfs.log\" 2>&1 || { tail -5 \"$d.mkfs.log\"; rm -f \"$d.mkfs.log\"; echo \"mkfs.$f $s failed\"; exit 4; }\n"
	"rm -f \"$d.mkfs.log\"\n"
	"mkdir -p \"$d\" && mount \"$s\" \"$d\" && mkdir \"$d/kbench-scratch\" || { echo \"cannot mount $s at $d\"; exit 4; }\n"
	"echo \"scratch $s: $f made and mounted at $d\"\n";

/* scratch_mkfs: the device formatted and mounted in the booted variant. */
static int scratch_format(const struct boot_params *p, struct guest *g)
{
	struct strbuf out = STRBUF_INIT, cause = STRBUF_INIT;
	const char *args[] = { S.t.scratch, mkfs_name(), p->scratch_dir, NULL };
	char name[80];
	double t0 = now_mono();
	int r;
	snprintf(name, sizeof(name), "formatting and mounting the scratch device (mkfs.%s)",
		 mkfs_name());
	r = remote_step(TS_MKFS, name, NULL, scratch_format_script, args, NULL, &out, &cause);
	if (r)
		snprintf(g->err, sizeof(g->err), "%s: the scratch device: %s", machine(), cause.buf);
	else
		info("kbench: %s: %s (%.0f s)", machine(), out.buf, now_mono() - t0);
	sb_release(&out);
	sb_release(&cause);
	return r;
}

static int ssh_start(struct guest *g, const struct boot_params *p)
{
	struct ssh_guest *q = xcalloc(1, sizeof(*q));
	double t0 = now_mono(), deadline = t0 + (p->boot_timeout_s > 40 ? p->boot_timeout_s - 20 :
						  p->boot_timeout_s);
	char agent[160], id[64];
	struct stat st;
	int r;
	g->priv = q;
	q->agent = (struct child)CHILD_INIT;
	if (console_start(q, p->console_log))
		warning("%s: cannot start the console command %s", machine(), S.t.console.v[0]);
	else if (S.t.console.n && p->console_log && !stat(p->console_log, &st))
		q->console_log = p->console_log, q->console_off = st.st_size;
	if (boot_variant(q, p, g))
		return -1;
	if ((r = wait_back(q->boot_id, deadline, id, sizeof(id), q))) {
		not_back(g, now_mono() - t0, r == -2);
		return -1;
	}
	snprintf(q->boot_id, sizeof(q->boot_id), "%s", id);
	q->down = 0;
	if (verify_kernel(p, g))
		return -1;
	if (S.t.scratch_mkfs != TM_NO && p->scratch_dir && scratch_format(p, g))
		return -1;
	ssh_argv(&q->agent.argv, S.t.ssh_timeout_s);
	snprintf(agent, sizeof(agent), "%s/kbench-agent", S.dir);
	remote_cmdline(&q->agent.argv, (const char *const[]){ agent, "--transport=stdio", NULL });
	q->agent.stderr_path = p->console_log;
	q->agent.append = 1;
	return guest_spawn_agent(g, &q->agent);
}

static int ssh_alive(struct guest *g)
{
	struct ssh_guest *q = g->priv;
	if (q && q->agent.pid > 0 && child_poll(&q->agent) == 0)
		return 1;
	snprintf(g->err, sizeof(g->err), "the agent's ssh connection to %s ended (status %d)",
		 machine(), q ? q->agent.status : -1);
	return 0;
}

static int ssh_stop(struct guest *g, double timeout_s)
{
	struct ssh_guest *q = g->priv;
	double end = now_mono() + timeout_s;
	while (now_mono() < end && ssh_alive(g))
		usleep(20000);
	if (!q || q->agent.pid <= 0)
		return 0;
	child_kill(&q->agent, 2.0);
	return -1;
}

/* Back to the default kernel (a reboot: kexec never touched the boot
 * entry), then nothing of kbench's left, unless keep. */
static void ssh_release(struct guest *g)
{
	struct ssh_guest *q = g->priv;
	char id[64];
	double deadline = now_mono() + S.t.boot_timeout_s;
	const char *reboot[] = { "systemctl", "reboot", NULL };
	char *rel_log = NULL;
	const char *hung;
	double t0;
	int intr = kb_interrupted;
	if (!q)
		return;
	/* after Ctrl-C too: spawn kills children while kb_interrupted is set,
	 * so it is held back until the machine is clean (a second Ctrl-C
	 * still stops this) */
	kb_interrupted = 0;
	child_kill(&q->agent, 1.0);
	if (q->kexeced && !S.keep && !S.lost) {
		/* the way back to the default kernel is not the variant's: its
		 * console goes to the side log (CONSOLE.release), so trouble
		 * there is not blamed on the variant's iteration */
		if (q->console_log) {
			child_kill(&q->console, 1.0);
			child_release(&q->console);
			rel_log = xasprintf("%s%s", q->console_log, ssh_backend.side_log);
			if (console_start(q, rel_log))
				warning("%s: cannot start the console command %s", machine(),
					S.t.console.v[0]);
		}
		/* KBENCH_TEST_SSH_HUNG_REBOOT=N: no reboot, and N seconds'
		 * wait for it (tests/integration/ssh_backend.sh's Ctrl-C case:
		 * the power cycle below, without waiting out boot_timeout) */
		t0 = now_mono();
		if ((hung = getenv("KBENCH_TEST_SSH_HUNG_REBOOT")) && atoi(hung) > 0)
			deadline = now_mono() + atoi(hung);
		else if (!q->down) {
			mux_close(1);
			remote(reboot, NULL, S.t.ssh_timeout_s, NULL);
		}
		/* a machine that does not come back (seen once here: the lab
		 * VM's default kernel soft-locked 41 s after this reboot and
		 * never answered ssh) gets the power_cycle command and another
		 * boot_timeout, as a boot that hangs does */
		int back = !wait_back(q->boot_id, deadline, id, sizeof(id), NULL);
		if (!back && S.t.power_cycle.n && !kb_interrupted) {
			warning("%s did not come back to its default kernel within %.0f s; power-cycling "
				"it with '%s'", machine(), now_mono() - t0, S.t.power_cycle.v[0]);
			power_cycle();
			deadline = now_mono() + S.t.boot_timeout_s;
			back = !wait_back(q->boot_id, deadline, id, sizeof(id), NULL);
			if (back)
				info("kbench: %s: back on its default kernel after the power cycle",
				     machine());
		}
		if (!back) {
			S.lost = 1;
			warning("%s did not come back to its default kernel%s: it needs a hand%s%s%s",
				machine(), S.t.power_cycle.n ? ", also after its power cycle" : "",
				rel_log ? " (its console: " : "", rel_log ? rel_log : "",
				rel_log ? ")" : "");
		}
	}
	if (!S.lost && !S.keep)
		remove_ours();
	child_kill(&q->console, 1.0);
	child_release(&q->agent);
	child_release(&q->console);
	free(rel_log);
	free(q);
	kb_interrupted = kb_interrupted ? kb_interrupted : intr;
}

/* What a boot that never started left (release removes the rest). */
static void ssh_cleanup(const struct boot_params *p)
{
	(void)p;
	if (S.dir[0] && !S.lost && !S.keep)
		remove_ours();
}

/* kbench doctor --target: one "ok ..." or "FAIL ...: what to do" line a
 * check ("note ..." for kbuild's toolchain). $1 the scratch or "", $2
 * "NAME:PACKAGE ..." (the tools), $3 the boot method, $4 scratch_mkfs's
 * filesystem or "", $5 kbuild's tools as $2. */
static const char doctor_script[] =
	"ok() { echo \"ok   $*\"; }\n"
	"bad() { echo \"FAIL $*\"; }\n"
	"s=$1 f=$4 k=$(uname -r)\n"
	"if [ \"$3\" = reboot-once ]; then\n"
	"  if m=$( (" GRUB_CHECK ") 2>&1); then ok \"boot = reboot-once: GRUB's one-time entry (grub-reboot, " GRUB_DIR "/custom.cfg)\"\n"
	"  else bad \"$m\"; fi\n"
	"  m=$(df -Pk /boot 2>/dev/null | awk 'NR == 2 { print int($4 / 1024) }')\n"
	"  if [ \"${m:-0}\" -ge 256 ]; then ok \"free space: /boot has $m MiB\"\n"
	"  else bad \"free space: /boot has ${m:-no} MiB free; reboot-once puts a kernel and an initrd there (up to 256 MiB): free some\"; fi\n"
	"elif command -v kexec >/dev/null; then ok \"kexec: $(command -v kexec)\"\n"
	"else bad 'kexec: not found: install kexec-tools on the machine'; fi\n"
	"if [ \"$3\" = reboot-once ]; then :\n"
	"elif [ ! -e /sys/kernel/kexec_loaded ]; then\n"
	"  bad \"kexec support: the running kernel $k has none (no /sys/kernel/kexec_loaded): boot a kernel with CONFIG_KEXEC\"\n"
	"elif [ \"$(cat /proc/sys/kernel/kexec_load_disabled 2>/dev/null)\" = 1 ]; then\n"
	"  bad \"kexec support: kernel.kexec_load_disabled is set on $k (it stays set until a reboot): boot without it\"\n"
	"else ok \"kexec support: the running kernel $k can load kernels\"; fi\n"
	"if command -v mkinitramfs >/dev/null; then ok \"mkinitramfs: $(command -v mkinitramfs)\"\n"
	"else bad 'mkinitramfs: not found: install initramfs-tools on the machine'; fi\n"
	"if command -v setsid >/dev/null; then ok \"setsid: $(command -v setsid) (a step cut off at its deadline is stopped whole)\"\n"
	"else bad 'setsid: not found: install util-linux on the machine'; fi\n"
	"for d in /var/tmp /lib/modules; do\n"
	"  m=$(df -Pk \"$d\" 2>/dev/null | awk 'NR == 2 { print int($4 / 1024) }')\n"
	"  if [ \"${m:-0}\" -ge 1024 ]; then ok \"free space: $d has $m MiB\"\n"
	"  else bad \"free space: $d has ${m:-no} MiB free; kbench puts up to 1024 MiB there (kernel, modules, initrd): free some\"; fi\n"
	"done\n"
	"if [ -z \"$s\" ]; then ok 'scratch: none named (a suite with dbench needs scratch = DIR in the target file)'\n"
	"elif m=$( (" SCRATCH_CHECK ") 2>&1); then\n"
	"  if [ -n \"$f\" ]; then ok \"scratch: $s, a block device not in use (formatted $f each iteration)\"\n"
	"  else ok \"scratch: $s (an empty directory)\"; fi\n"
	"else bad \"$m\"; fi\n"
	"for t in $2; do\n"
	"  n=${t%:*} p=${t##*:}\n"
	"  case $n in /*) [ -e \"$n\" ] ;; *) command -v \"$n\" >/dev/null ;; esac &&\n"
	"    ok \"workload tool: $n\" || bad \"workload tool: $n not found: install $p on the machine\"\n"
	"done\n"
	"m=\n"
	"for t in $5; do\n"
	"  n=${t%:*} p=${t##*:}\n"
	"  case $n in /*) [ -e \"$n\" ] ;; *) command -v \"$n\" >/dev/null ;; esac || m=\"$m $p\"\n"
	"done\n"
	"if [ -z \"$m\" ]; then ok \"kbuild toolchain: $(gcc --version | head -n 1)\"\n"
	"else echo \"note kbuild toolchain: missing; to run kbuild (or cyclictest's load = kbuild) there, install:$m\"; fi\n"
	"if [ -d " CACHE_DIR " ]; then ok \"initrd cache: $(ls " CACHE_DIR " | wc -l) initrd(s), $(du -sm " CACHE_DIR " | cut -f1) MiB in " CACHE_DIR "\"\n"
	"else ok 'initrd cache: empty'; fi\n"
	"if [ -d " KB_TARGET_KBUILD_DIR " ]; then ok \"kbuild tree: $(ls -d " KB_TARGET_KBUILD_DIR "/*/tree-complete 2>/dev/null | wc -l) tree(s), $(du -sm " KB_TARGET_KBUILD_DIR " | cut -f1) MiB in " KB_TARGET_KBUILD_DIR "\"\n"
	"else ok 'kbuild tree: none copied yet (kbuild copies one, about 1.5 GB, to " KB_TARGET_KBUILD_DIR ")'; fi\n"
	"if [ -d " LOCK_DIR " ]; then bad \"lock: in use by kbench run $(cat " LOCK_DIR "/run 2>/dev/null) (" LOCK_DIR "; remove it if that run is gone)\"\n"
	"else ok 'lock: no kbench run on the machine'; fi\n";

/* What to do when ssh (OUT: its messages) fails with the target file's
 * settings. */
static const char *ssh_advice(const char *out)
{
	if (strstr(out, "Host key verification failed") || strstr(out, "REMOTE HOST IDENTIFICATION"))
		return "the machine's host key is not the one in known_hosts: check the new key out "
		       "of band, then replace its line there (or set host_key = accept-new for a "
		       "machine seen the first time)";
	if (strstr(out, "Permission denied"))
		return "the key is not accepted: add the identity's .pub to the user's "
		       "~/.ssh/authorized_keys on the machine (kbench runs ssh with BatchMode: no "
		       "passwords)";
	return "is the machine up, and sshd listening on that port?";
}

int ssh_doctor(const char *name, const struct host_tool *const *tools,
	       const struct host_tool *const *build)
{
	struct strbuf out = STRBUF_INIT, tl = STRBUF_INIT, bl = STRBUF_INIT;
	const char *args[] = { NULL, NULL, NULL, NULL, NULL, NULL };
	const char *argv[] = { "true", NULL };
	int r, bad = 0;
	target_release(&S.t);
	if (target_load(name, &S.t))
		return KB_EXIT_USAGE;
	printf("%s\n", machine());
	r = remote(argv, NULL, S.t.ssh_timeout_s * 2.0, &out);
	if (r) {
		/* ssh's last line says it ("Host key verification failed."),
		 * the lines before it follow */
		const char *last = out.buf ? strrchr(out.buf, '\n') : NULL;
		printf("FAIL ssh (BatchMode, host key %s, known_hosts %s): %s\n     %s\n",
		       S.t.host_key == TK_ACCEPT_NEW ? "accept-new" : "strict", S.t.known_hosts,
		       r < 0 ? "timed out" : last ? last + 1 : out.buf && *out.buf ? out.buf : "failed",
		       ssh_advice(out.buf ? out.buf : ""));
		if (last)
			printf("     ssh said:\n%.*s\n", (int)(last - out.buf), out.buf);
		sb_release(&out);
		return KB_EXIT_FAILED;
	}
	printf("ok   ssh: BatchMode, host key %s (known_hosts %s)\n",
	       S.t.host_key == TK_ACCEPT_NEW ? "accept-new" : "strict", S.t.known_hosts);
	for (size_t i = 0; tools && tools[i]; i++)
		sb_addf(&tl, "%s%s:%s", i ? " " : "", tools[i]->name, tools[i]->package);
	args[0] = S.t.scratch;
	args[1] = tl.buf ? tl.buf : "";
	args[2] = boot_name();
	args[3] = mkfs_name();
	for (size_t i = 0; build && build[i]; i++)
		sb_addf(&bl, "%s%s:%s", i ? " " : "", build[i]->name, build[i]->package);
	args[4] = bl.buf ? bl.buf : "";
	sb_reset(&out);
	r = remote_sh(doctor_script, args, NULL, S.t.ssh_timeout_s * 4.0, &out);
	/* the machine's output: printable bytes only */
	for (size_t i = 0; out.buf && i < out.len; i++)
		if (!isprint((unsigned char)out.buf[i]) && out.buf[i] != '\n')
			out.buf[i] = '?';
	printf("%s\n", out.buf ? out.buf : "");
	bad = r != 0 || !out.buf || !strncmp(out.buf, "FAIL", 4) || strstr(out.buf, "\nFAIL");
	if (r)
		printf("FAIL the checks on the machine did not finish (status %d)\n", r);
	printf("%s\n", bad ? "this machine is not ready for kbench: see the FAIL lines" :
			     "this machine is ready for kbench");
	sb_release(&out);
	sb_release(&tl);
	sb_release(&bl);
	target_release(&S.t);
	return bad ? KB_EXIT_FAILED : KB_EXIT_OK;
}

/* The running kernel's release, config and loaded modules, in three
 * parts a marker line apart; nothing is changed on the machine. */
#define CONFIG_MARK "--kbench-config--"
#define MODULES_MARK "--kbench-modules--"
static const char running_config_script[] =
	"uname -r\n"
	"echo " CONFIG_MARK "\n"
	"if [ -r /proc/config.gz ]; then gzip -dc /proc/config.gz || exit 3\n"
	"elif [ -r \"/boot/config-$(uname -r)\" ]; then cat \"/boot/config-$(uname -r)\"\n"
	"else echo \"no running config: neither /proc/config.gz nor /boot/config-$(uname -r)\"; exit 3; fi\n"
	"echo " MODULES_MARK "\n"
	"cat /proc/modules\n";

int ssh_running_config_split(const char *out, char *release, size_t rlen, struct strbuf *config,
			     struct strbuf *modules)
{
	const char *c = strstr(out, "\n" CONFIG_MARK "\n"), *m;
	if (!c)
		return -1;
	snprintf(release, rlen, "%.*s", (int)(c - out), out);
	c += sizeof("\n" CONFIG_MARK);       /* the config's first line */
	m = strstr(c - 1, "\n" MODULES_MARK "\n"); /* its '\n' ends the last */
	if (!m)
		return -1;
	sb_add(config, c, (size_t)(m + 1 - c)); /* with its last newline; none when empty */
	m += sizeof("\n" MODULES_MARK "\n") - 1;
	sb_add(modules, m, strlen(m));
	sb_add(modules, "\n", 1);
	return 0;
}

int ssh_running_config(const char *name, char *release, size_t rlen, struct strbuf *config,
		       struct strbuf *modules)
{
	struct strbuf out = STRBUF_INIT;
	int r, ret = -1;
	target_release(&S.t);
	if (target_load(name, &S.t))
		return -1;
	r = remote_sh(running_config_script, NULL, NULL, S.t.ssh_timeout_s * 4.0, &out);
	if (r || ssh_running_config_split(out.buf ? out.buf : "", release, rlen, config, modules)) {
		const char *last = out.buf ? strrchr(out.buf, '\n') : NULL;
		error("%s: cannot read its running config (status %d): %.300s", machine(), r,
		      last ? last + 1 : out.buf ? out.buf : "");
		goto out;
	}
	ret = 0;
out:
	sb_release(&out);
	target_release(&S.t);
	return ret;
}

const struct backend_ops ssh_backend = {
	.name = "ssh",
	.description = "a remote machine (--target NAME, configs/targets/): each iteration "
		       "kexecs the variant there (or reboots into it once) and runs the agent over ssh",
	.caps = BK_CAP_SCRATCH_DIR | BK_CAP_CONSOLE_LOG | BK_CAP_HARD_RESET | BK_CAP_TARGET |
		BK_CAP_REMOTE,
	.opts = ssh_opts,
	.params_size = sizeof(struct ssh_params),
	.defaults = &ssh_defaults,
	.side_log = ".release", /* the console of the way back to the default kernel */
	.version = ssh_version,
	.check_tools = ssh_check_tools,
	.setup = ssh_setup,
	.prepare = ssh_prepare,
	.cleanup = ssh_cleanup,
	.start = ssh_start,
	.alive = ssh_alive,
	.stop = ssh_stop,
	.release = ssh_release,
};
