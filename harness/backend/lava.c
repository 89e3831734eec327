/* lava.c - the lava backend: each iteration is a LAVA job on a lab's device
 * (core/lab.h names the lab; docs/lab.md).
 *
 * Per iteration kbench publishes the variant's kernel and a LAVA flavour of
 * its cached initramfs (lava_initrd: kbench's image, unchanged, with
 * /lava-init appended; the image carries virtio_net, BK_CAP_NET_AGENT),
 * both under their content key so nothing is copied twice; it listens on
 * 127.0.0.1 on an ephemeral port and submits a job (lava_job_yaml: the
 * lab's template for the device type, with a test action appended) whose
 * test step brings the device's network up and runs kbench's agent as an
 * ordinary process, --transport=tcp back to kbench. guest.c then drives
 * the agent as it drives a QEMU guest's. While kbench waits for the agent
 * it shows the job's state (queued, on which device, running). On the
 * agent's poweroff the job's test shell ends and the job finishes; a job
 * that is still running when the iteration ends (a deadline, Ctrl-C, a
 * lost agent) is cancelled through the API. The job log's console lines
 * become the iteration's console log, so a panic is found there as with
 * QEMU's serial console, and the job's id, URL and device go into the
 * iteration's results (facts).
 *
 * LAVA's qemu devices put the guest on QEMU's user network, where 10.0.2.2
 * is the host's loopback: kbench listens on 127.0.0.1 only. A lab whose
 * devices sit on a real network needs an address they reach; that is not
 * built (docs/lab.md). Everything the lab answers is untrusted (lava_log.c
 * parses it); the token stays in memory (lava_api.c). */
#include "backend/backend.h"
#include "backend/lava_api.h"
#include "backend/guest.h"
#include "agent/proto.h"
#include "core/jsonutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* The guest's side of QEMU's user network (LAVA's qemu device type). */
#define LAVA_GUEST_ADDR "10.0.2.15"
#define LAVA_HOST_ADDR "10.0.2.2"

struct lava_params {
	char lab[OPT_STR_MAX]; /* configs/labs/NAME.ini or a path (--lab) */
	char device[64];       /* --lab-device: the one device to run on */
};

static const struct lava_params lava_defaults = { "", "" };

static const struct opt_def lava_opts[] = {
	{ "lab", OPT_STRING, offsetof(struct lava_params, lab), 0, 0, NULL,
	  "the LAVA lab: configs/labs/NAME.ini or a path (--lab)" },
	{ "device", OPT_STRING, offsetof(struct lava_params, device), 0, 0, NULL,
	  "the lab's device every job runs on, by a tag only it carries (--lab-device)" },
	OPT_END
};

/* The run's lab (one run per process at a time: setup fills it). */
static struct {
	struct lab lab;
	struct lava_conn conn;
	int connected;
	char template_path[KB_PATH_MAX];
	struct strbuf tmpl;
	char initrd_for[KB_PATH_MAX]; /* the image lava_initrd was made of */
	char initrd[KB_PATH_MAX];     /* ... and the LAVA flavour, in workdir */
	char device[64];              /* --lab-device: jobs pinned to it ... */
	struct strvec tags;           /* ... by the lab's tags and its own tag */
} S = { .tmpl = STRBUF_INIT, .tags = STRVEC_INIT };

struct lava_guest {
	long long job;          /* 0 before the submission */
	int lfd;                /* the listening socket, or -1 */
	int finished;           /* the job is Finished */
	struct lava_job last;   /* its last seen state */
	double next_look;       /* monotonic time of the next look at the job */
	char console_log[KB_PATH_MAX];
	char url[OPT_STR_MAX + 64];
	int resumed;            /* a killed run's job, collected (adopt) */
	char session[33];       /* the job's agent says it in its hello */
	long ahead;             /* jobs ahead of it in LAVA's queue, last said */
	struct strbuf journal;  /* the session as kbench saw it (guest.h) */
	int log_kept;           /* the finished job's log, parsed once: */
	struct strbuf con;      /* ... its console lines */
	struct lava_job_error jerr; /* ... and its own error (LAVA's verdict) */
	json_object *facts;     /* the iteration's "lava" object (a reference
				 * kept so the results block's check joins it) */
};

static int lava_version(char *out, size_t len)
{
	snprintf(out, len, "LAVA REST API v0.2 (%s)", S.lab.url[0] ? S.lab.url : "no lab");
	return 0;
}

static int lava_check_tools(const struct boot_params *p)
{
	(void)p;
	return 0; /* libcurl and libyaml are linked in */
}

/* --lab-device NAME: LAVA schedules by device type and tags only, so a
 * job runs on NAME alone when it asks for a tag only NAME carries. */
static int lava_pin(const char *name, const struct lava_device *d, int n)
{
	const char *tag;
	char why[256];
	int i;
	for (i = 0; i < n && strcmp(d[i].name, name); i++)
		;
	if (i == n)
		return error("lab '%s': no device '%s'%s%s (kbench lab check %s lists them)",
			     S.lab.name, name, S.lab.device_type[0] ? " of type " : "",
			     S.lab.device_type, S.lab.path);
	if (!(tag = lava_device_pin_tag(d, n, i, &S.lab.tags, why, sizeof(why))))
		return error("lab '%s': device '%s' cannot be pinned: %s", S.lab.name, name, why);
	snprintf(S.device, sizeof(S.device), "%s", name);
	for (size_t k = 0; k < S.tags.n; k++)
		if (!strcmp(S.tags.v[k], tag))
			return 0;
	strvec_push(&S.tags, tag);
	return 0;
}

static int lava_setup(void *params, const struct boot_params *probe, struct backend_info *bi)
{
	const struct lava_params *lp = params;
	struct lava_device d[64];
	char err[512];
	const char *tp;
	int n = 0, usable = 0;
	(void)probe;
	if (S.connected)
		lava_disconnect(&S.conn);
	S.connected = 0;
	lab_release(&S.lab);
	sb_reset(&S.tmpl);
	strvec_clear(&S.tags);
	S.initrd_for[0] = '\0';
	S.device[0] = '\0';
	if (!lp->lab[0])
		return error("backend 'lava' needs a lab: give --lab NAME (configs/labs/)");
	if (lab_load(lp->lab, &S.lab))
		return -1;
	if (lava_connect(&S.conn, &S.lab))
		return -1;
	S.connected = 1;
	if (lava_devices(&S.conn, S.lab.device_type, d, 64, &n, err, sizeof(err)))
		return error("lab '%s': %s", S.lab.name, err);
	for (int i = 0; i < n && i < 64; i++)
		usable += d[i].usable;
	for (size_t i = 0; i < S.lab.tags.n; i++)
		strvec_push(&S.tags, S.lab.tags.v[i]);
	if (lp->device[0] && lava_pin(lp->device, d, n < 64 ? n : 64))
		return -1;
	if (!usable)
		return error("lab '%s': no usable device of type '%s' (%d listed): check the lab "
			     "with kbench lab check %s", S.lab.name,
			     S.lab.device_type[0] ? S.lab.device_type : "any", n, S.lab.path);
	tp = lab_template_for(&S.lab, S.lab.device_type[0] ? S.lab.device_type : d[0].type);
	if (!tp)
		return error("lab '%s': no job template for device type '%s' ([templates] in %s)",
			     S.lab.name, S.lab.device_type[0] ? S.lab.device_type : d[0].type,
			     S.lab.path);
	snprintf(S.template_path, sizeof(S.template_path), "%s", tp);
	if (read_file(S.template_path, &S.tmpl, 1u << 20))
		return -1;
	info("kbench: lab %s: %d usable device%s of type %s at %s%s%s", S.lab.name, usable,
	     usable == 1 ? "" : "s", S.lab.device_type[0] ? S.lab.device_type : "any", S.lab.url,
	     S.device[0] ? "; jobs pinned to " : "", S.device);
	snprintf(bi->accel, sizeof(bi->accel), "lava");
	bi->time_scale = 1.0;
	/* the queue, then LAVA's deploy and boot, then the agent's start */
	bi->boot_timeout_s = S.lab.queue_timeout_s + 600;
	return 0;
}

int lava_agent_steps(const char *host, int port, int reconnect_s, int network_up,
		     const char *session, struct strvec *steps)
{
	char buf[320], rc[32];
	struct in_addr a;
	if (inet_pton(AF_INET, host, &a) != 1 || port < 1 || port > 65535 || !session ||
	    strlen(session) > 64 || strspn(session, "0123456789abcdef") != strlen(session))
		return -1;
	/* the modules (virtio_net among them) are loaded by /lava-init */
	if (!network_up) {
		snprintf(buf, sizeof(buf),
			 "ifconfig eth0 %s netmask 255.255.255.0 up && route add default gw %s",
			 LAVA_GUEST_ADDR, host);
		strvec_push(steps, buf);
	}
	snprintf(rc, sizeof(rc), " --reconnect=%d", reconnect_s);
	/* --journal: the session printed as a results block at the end */
	snprintf(buf, sizeof(buf), "/init --transport=tcp:%s:%d --journal%s%s%s; "
		 "echo kbench-agent-exit=$?", host, port, reconnect_s > 0 ? rc : "",
		 *session ? " --session=" : "", session);
	strvec_push(steps, buf);
	return 0;
}

/* A socket listening where the agent connects (the lab's agent_host, or
 * 127.0.0.1 for QEMU's user network), its port into *PORT. */
static int listen_agent(int *port)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	const char *at = S.lab.agent_host[0] ? S.lab.agent_host : "127.0.0.1";
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	inet_pton(AF_INET, at, &sa.sin_addr); /* lab.c checked it */
	/* *PORT > 0: that port again (a killed run's job, resumed). Always
	 * SO_REUSEADDR: the accepted connection inherits it, and a killed
	 * kbench's connection, still closing while the agent finishes a
	 * command, then does not keep --resume from binding the port */
	sa.sin_port = htons((unsigned short)(*port > 0 ? *port : 0));
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 1) ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl)) {
		if (*port > 0) { /* the caller falls back to a new job */
			if (fd >= 0)
				close(fd);
			return -1;
		}
		error("cannot listen for the agent on %s: %s%s", at, strerror(errno),
		      S.lab.agent_host[0] ? " (agent_host must be an address of this machine)" : "");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*port = ntohs(sa.sin_port);
	return fd;
}

/* The job's state into q->last (a look at most every poll interval unless
 * NOW); a change is printed. 0, or -1 with the reason in ERR. */
static int look(struct lava_guest *q, int now, char *err, size_t errlen)
{
	struct lava_job j;
	if (!now && now_mono() < q->next_look)
		return 0;
	q->next_look = now_mono() + S.lab.poll_interval_s;
	if (lava_job_get(&S.conn, q->job, &j, err, errlen))
		return -1;
	if (j.state != q->last.state || strcmp(j.device, q->last.device))
		info("kbench: lab %s: job %lld %s%s%s", S.lab.name, q->job,
		     lava_state_name(j.state), j.device[0] ? " on " : "", j.device);
	/* queued: its place in LAVA's queue (the jobs of its type submitted
	 * before it and not yet scheduled), said when it changes */
	if (j.state == LAVA_SUBMITTED) {
		long ahead;
		char e2[256];
		if (!lava_jobs_ahead(&S.conn, q->job, S.lab.device_type, &ahead, e2, sizeof(e2)) &&
		    ahead != q->ahead)
			info("kbench: lab %s: job %lld queued, %ld job%s ahead of it%s%s", S.lab.name,
			     q->job, ahead, ahead == 1 ? "" : "s", S.lab.device_type[0] ? " for " : "",
			     S.lab.device_type);
		q->ahead = ahead;
	}
	q->last = j;
	q->finished = j.state == LAVA_FINISHED;
	return 0;
}

/* The results block the agent printed at its end (its --journal: every
 * request and reply of the session, raw outputs included), extracted from
 * the job's console and verified (size, SHA-256), then compared with the
 * session as kbench saw it: the same bytes, or kbench's the end of the
 * block's (a resumed job's block begins with the killed run's session).
 * The verdict joins the iteration's "lava" object as "block". */
static void block_check(struct lava_guest *q, const struct strbuf *con)
{
	struct strbuf pay = STRBUF_INIT;
	char err[512], hex[65];
	json_object *b;
	int r = lava_block_extract(con->buf ? con->buf : "", con->len, &pay, err, sizeof(err));
	size_t mine = q->journal.len, extra;
	if (r == 0 || !mine) {
		if (mine) /* the agent ran: it should have printed one */
			warning("lab %s: job %lld: no results block in its log (the agent did not "
				"end normally?)", S.lab.name, q->job);
		goto out;
	}
	b = json_object_new_object();
	if (r < 0) {
		warning("lab %s: job %lld: its results block is broken: %s", S.lab.name, q->job, err);
		json_object_object_add(b, "verified", json_object_new_boolean(0));
		json_object_object_add(b, "error", json_object_new_string(err));
	} else {
		int same = pay.len >= mine && !memcmp(pay.buf + pay.len - mine, q->journal.buf, mine);
		extra = pay.len - (pay.len >= mine ? mine : pay.len);
		sha256_hex(pay.buf, pay.len, hex);
		json_object_object_add(b, "verified", json_object_new_boolean(same));
		json_object_object_add(b, "bytes", json_object_new_int64((int64_t)pay.len));
		json_object_object_add(b, "sha256", json_object_new_string(hex));
		if (same && extra)
			json_object_object_add(b, "earlier_bytes", json_object_new_int64((int64_t)extra));
		if (!same)
			warning("lab %s: job %lld: the results block in its log (%zu bytes) is not the "
				"session kbench had with the agent (%zu bytes)", S.lab.name, q->job,
				pay.len, mine);
		else
			info("kbench: lab %s: job %lld: results block verified (%zu bytes, SHA-256 "
			     "%.12s...): the job log holds every raw output", S.lab.name, q->job,
			     pay.len, hex);
	}
	if (q->facts)
		json_object_object_add(q->facts, "block", b);
	else
		json_object_put(b);
out:
	sb_release(&pay);
}

/* The job's log, fetched and parsed (lava_log_parse: its console lines
 * into q->con, its own error, "Infrastructure: Unable to start
 * libguestfs" or the like, into q->jerr), once for good when the job has
 * finished; that error joins the iteration's "lava" object. 0, or -1 with
 * ERR. */
static int job_log(struct lava_guest *q, char *err, size_t errlen)
{
	struct strbuf log = STRBUF_INIT;
	int r;
	if (q->log_kept)
		return 0;
	sb_reset(&q->con);
	memset(&q->jerr, 0, sizeof(q->jerr));
	r = lava_job_log(&S.conn, q->job, &log, err, errlen) ||
	    lava_log_parse(log.buf ? log.buf : "", log.len, &q->con, &q->jerr, err, errlen);
	q->log_kept = !r && q->finished;
	if (q->facts) /* a job that ended after its facts were taken */
		lava_job_error_json(&q->jerr, q->facts);
	sb_release(&log);
	return r ? -1 : 0;
}

/* The job log's console lines into the console log (the trouble scan and
 * a failure's tail read it there), its results block checked. */
static void console_fetch(struct lava_guest *q)
{
	char err[512];
	if (!q->job || !q->console_log[0])
		return;
	if (job_log(q, err, sizeof(err)))
		warning("lab %s: job %lld: no console from its log: %s", S.lab.name, q->job, err);
	else {
		block_check(q, &q->con); /* before sb_write_atomic, which frees con */
		if (sb_write_atomic(q->console_log, &q->con))
			warning("cannot write the console log '%s'", q->console_log);
	}
}

/* The finished job's own error type ("" when it has none or its log
 * cannot be had), and what LAVA says of it ("; LAVA says: TYPE: MSG", or
 * "") into SAYS. */
static const char *job_error(struct lava_guest *q, char *says, size_t len)
{
	char err[256], text[LAVA_ERROR_MSG_MAX + 96];
	if (job_log(q, err, sizeof(err))) {
		says[0] = '\0';
		return "";
	}
	lava_job_error_text(&q->jerr, text, sizeof(text));
	snprintf(says, len, "%s%s", text[0] ? "; " : "", text);
	return q->jerr.type;
}

static int job_failed(struct guest *g, struct lava_guest *q)
{
	char says[LAVA_ERROR_MSG_MAX + 96];
	int infra = lava_job_labs_fault(&q->last, job_error(q, says, sizeof(says)));
	snprintf(g->err, sizeof(g->err), "%sLAVA job %lld%s%s ended %s before kbench's agent "
		 "connected%s%s%s (%s)", infra ? "the lab failed: " : "", q->job,
		 q->last.device[0] ? " on " : "", q->last.device, lava_health_name(q->last.health),
		 q->last.failure[0] ? ": " : "", q->last.failure, says, q->url);
	return -1;
}

/* A submitted job's id and port, kept beside the iteration's console log
 * (CONSOLE.lava-job: {"job": N, "port": P}) until the job ends under
 * kbench's eyes: a kbench killed during the job finds it there again
 * (kbench run --resume), and its agent, waiting resume_window seconds
 * for kbench to come back, connects to the same port. */
static void pending_path(const struct lava_guest *q, char *out, size_t len)
{
	snprintf(out, len, "%s.lava-job", q->console_log);
}

static void pending_save(const struct lava_guest *q, int port)
{
	char path[KB_PATH_MAX + 16];
	json_object *o;
	if (!q->console_log[0])
		return;
	pending_path(q, path, sizeof(path));
	o = json_object_new_object();
	json_object_object_add(o, "job", json_object_new_int64(q->job));
	json_object_object_add(o, "port", json_object_new_int(port));
	json_object_object_add(o, "session", json_object_new_string(q->session));
	if (json_save(path, o))
		warning("cannot write '%s': a killed kbench could not find job %lld again", path,
			q->job);
	json_object_put(o);
}

/* 0 and *JOB, *PORT when a valid record is there (its own file, so
 * trusted as far as its shape is checked); -1 otherwise. */
static int pending_load(struct lava_guest *q, long long *job, int *port)
{
	char path[KB_PATH_MAX + 16];
	json_object *o, *j, *p;
	int ret = -1;
	if (!q->console_log[0])
		return -1;
	pending_path(q, path, sizeof(path));
	if (!path_exists(path) || !(o = json_object_from_file(path)))
		return -1;
	j = json_object_object_get(o, "job");
	p = json_object_object_get(o, "port");
	if (json_object_is_type(j, json_type_int) && json_object_is_type(p, json_type_int) &&
	    json_object_get_int64(j) > 0 && json_object_get_int(p) > 0 &&
	    json_object_get_int(p) < 65536) {
		const char *se = json_object_get_string(json_object_object_get(o, "session"));
		*job = json_object_get_int64(j);
		*port = json_object_get_int(p);
		/* a record older than sessions: the agent says none */
		snprintf(q->session, sizeof(q->session), "%s",
			 se && strlen(se) < sizeof(q->session) &&
			 strspn(se, "0123456789abcdef") == strlen(se) ? se : "");
		ret = 0;
	}
	json_object_put(o);
	return ret;
}

static void pending_drop(const struct lava_guest *q)
{
	char path[KB_PATH_MAX + 16];
	if (!q->console_log[0])
		return;
	pending_path(q, path, sizeof(path));
	unlink(path);
}

static void job_end(struct lava_guest *q, double timeout_s);

/* A killed run's job of this iteration, found again: 1 when it is still
 * running and kbench listens on its port again (Q->job, Q->lfd set);
 * 0 when there is none to collect (one that is there but cannot be
 * collected is cancelled first). */
/* A new job's session id: 16 random bytes, in hex. */
static int session_new(char out[33])
{
	unsigned char b[16];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC), ok;
	ok = fd >= 0 && read(fd, b, sizeof(b)) == (ssize_t)sizeof(b);
	if (fd >= 0)
		close(fd);
	for (int i = 0; ok && i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	return ok ? 0 : -1;
}

/* Is the agent that connected on g->fd this job's? The hello exchange
 * (guest_hello, within 30 s) gives its "session", which must be the
 * job's: another job's agent (a stale job, another kbench's port reused,
 * anyone on the lab's network when agent_host is set) is turned away, and
 * its exchange leaves the journal. */
static int agent_is_ours(struct guest *g, struct lava_guest *q)
{
	size_t mark = q->journal.len;
	if (guest_hello(g, 30)) {
		if (!kb_interrupted)
			warning("lab %s: job %lld: a connection that did not say an agent's hello (%s): "
				"turned away", S.lab.name, q->job, g->err);
	} else if (strcmp(or_empty(jstr(g->hello, "session")), q->session))
		warning("lab %s: job %lld: an agent of another session connected: turned away",
			S.lab.name, q->job);
	else
		return 1;
	json_object_put(g->hello);
	g->hello = NULL;
	sb_reset(&g->rbuf);
	q->journal.len = mark;
	if (q->journal.buf)
		q->journal.buf[mark] = '\0';
	g->err[0] = '\0';
	return 0;
}

/* The killed run's PORT again, tried for up to 30 s: its connection may
 * take that long to close (an older kbench's lacked SO_REUSEADDR). */
static int listen_again(int port)
{
	double end = now_mono() + 30;
	int fd, p;
	do {
		p = port;
		if ((fd = listen_agent(&p)) >= 0 || kb_interrupted)
			return fd;
		sleep(1);
	} while (now_mono() < end);
	return -1;
}

static int adopt(struct lava_guest *q, int *port)
{
	long long job;
	char err[512];
	int op;
	if (pending_load(q, &job, &op))
		return 0;
	q->job = job;
	if (look(q, 1, err, sizeof(err)) || q->finished) {
		info("kbench: lab %s: job %lld of the killed run is %s: a new job", S.lab.name, job,
		     q->finished ? "finished" : "not to be found");
	} else if ((q->lfd = listen_again(op)) >= 0) {
		*port = op;
		snprintf(q->url, sizeof(q->url), "%sscheduler/job/%lld", S.lab.url, q->job);
		info("kbench: lab %s: job %lld of the killed run is still %s: collecting it, not "
		     "submitting it again (%s)", S.lab.name, q->job, lava_state_name(q->last.state),
		     q->url);
		q->resumed = 1;
		return 1;
	} else {
		info("kbench: lab %s: job %lld of the killed run is running, but its port %d is "
		     "taken: cancelling it for a new job", S.lab.name, job, op);
		job_end(q, 60);
	}
	pending_drop(q);
	q->job = 0;
	q->finished = 0;
	memset(&q->last, 0, sizeof(q->last));
	return 0;
}

/* Q's job: its definition (the template, the artifacts KURL and IURL, the
 * test step back to PORT with a new session) submitted. 0, or -1 with
 * G's error. */
static int submit(struct guest *g, struct lava_guest *q, const struct boot_params *p,
		  const char *kurl, const char *iurl, int port)
{
	struct lava_job_spec spec = { 0 };
	struct strbuf yaml = STRBUF_INIT;
	char err[512], name[160];
	int ret = -1;
	snprintf(name, sizeof(name), "kbench %s", p->release ? p->release : "kernel");
	spec.name = name;
	spec.device_type = S.lab.device_type;
	spec.tags = &S.tags;
	spec.kernel_url = kurl;
	spec.initrd_url = iurl;
	spec.modules_url = "";
	spec.cmdline = p->cmdline ? p->cmdline : "";
	spec.job_timeout_s = S.lab.job_timeout_s;
	if (session_new(q->session)) {
		snprintf(g->err, sizeof(g->err), "cannot read /dev/urandom for the job's session");
		goto out;
	}
	if (lava_agent_steps(S.lab.agent_host[0] ? S.lab.agent_host : LAVA_HOST_ADDR, port,
			     S.lab.resume_window_s, S.lab.network_up, q->session, &spec.steps) ||
	    lava_job_yaml(S.tmpl.buf ? S.tmpl.buf : "", S.tmpl.len, &spec, &yaml, err,
			  sizeof(err))) {
		snprintf(g->err, sizeof(g->err), "%s: %s", S.template_path, err);
		goto out;
	}
	if (lava_submit(&S.conn, yaml.buf, &q->job, err, sizeof(err))) {
		snprintf(g->err, sizeof(g->err), "lab %s: %s", S.lab.name, err);
		goto out;
	}
	ret = 0;
out:
	strvec_clear(&spec.steps);
	sb_release(&yaml);
	return ret;
}

static int lava_start(struct guest *g, const struct boot_params *p)
{
	struct lava_guest *q = xcalloc(1, sizeof(*q));
	char kurl[OPT_STR_MAX + 160], iurl[OPT_STR_MAX + 160], err[512];
	double t0 = now_mono(), running_at = 0;
	int port = 0, copied, ret = -1;
	g->priv = q;
	q->lfd = -1;
	q->ahead = -1;
	q->journal = (struct strbuf)STRBUF_INIT;
	q->con = (struct strbuf)STRBUF_INIT;
	g->journal = &q->journal;
	snprintf(q->console_log, sizeof(q->console_log), "%s", p->console_log ? p->console_log : "");
	if (strcmp(S.initrd_for, p->initrd)) {
		snprintf(S.initrd, sizeof(S.initrd), "%s/lava-initrd.img", p->workdir);
		if (lava_initrd(p->initrd, S.initrd)) {
			snprintf(g->err, sizeof(g->err), "cannot make the LAVA initramfs of '%s'",
				 p->initrd);
			goto out;
		}
		snprintf(S.initrd_for, sizeof(S.initrd_for), "%s", p->initrd);
	}
	if (lava_publish(&S.lab, p->kernel, "kernel", kurl, sizeof(kurl), &copied) ||
	    lava_publish(&S.lab, S.initrd, "initrd", iurl, sizeof(iurl), &copied)) {
		snprintf(g->err, sizeof(g->err), "cannot publish the artifacts in '%s'",
			 S.lab.artifacts);
		goto out;
	}
	if (adopt(q, &port))
		goto wait;
	if ((q->lfd = listen_agent(&port)) < 0) {
		snprintf(g->err, sizeof(g->err), "cannot listen for the agent on %s",
			 S.lab.agent_host[0] ? S.lab.agent_host : "127.0.0.1");
		goto out;
	}
	if (submit(g, q, p, kurl, iurl, port))
		goto out;
	snprintf(q->url, sizeof(q->url), "%sscheduler/job/%lld", S.lab.url, q->job);
	info("kbench: lab %s: job %lld submitted (%s)", S.lab.name, q->job, q->url);
	pending_save(q, port);
wait:
	for (;;) {
		struct pollfd pfd = { q->lfd, POLLIN, 0 };
		double waited = now_mono() - t0;
		int r;
		if (kb_interrupted) {
			snprintf(g->err, sizeof(g->err), "interrupted");
			goto out;
		}
		if (look(q, 0, err, sizeof(err))) {
			snprintf(g->err, sizeof(g->err), "lab %s: job %lld: %s", S.lab.name, q->job,
				 err);
			goto out;
		}
		if (q->finished) {
			job_failed(g, q);
			goto out;
		}
		if (S.device[0] && q->last.device[0] && strcmp(q->last.device, S.device)) {
			snprintf(g->err, sizeof(g->err), "the lab failed: job %lld went to %s, not to "
				 "%s whose own tag it asked for", q->job, q->last.device, S.device);
			goto out;
		}
		if (q->last.state == LAVA_RUNNING && !running_at)
			running_at = now_mono();
		if (!running_at && waited > S.lab.queue_timeout_s) {
			snprintf(g->err, sizeof(g->err), "the lab failed: lab %s: job %lld waited "
				 "%.0f s for a device (queue_timeout %d s): the lab is busy or has "
				 "no usable device", S.lab.name, q->job, waited,
				 S.lab.queue_timeout_s);
			goto out;
		}
		if (running_at && now_mono() - running_at > p->boot_timeout_s) {
			snprintf(g->err, sizeof(g->err), "the agent did not connect within %.0f s of "
				 "job %lld starting on %s", p->boot_timeout_s, q->job,
				 q->last.device);
			goto out;
		}
		r = poll(&pfd, 1, 500);
		if (r < 0 && errno != EINTR) {
			snprintf(g->err, sizeof(g->err), "poll: %s", strerror(errno));
			goto out;
		}
		if (r > 0) {
			int fd = accept4(q->lfd, NULL, NULL, SOCK_CLOEXEC);
			if (fd < 0)
				continue;
			g->fd = fd;
			if (agent_is_ours(g, q))
				break;
			close(fd);
			g->fd = -1;
		}
	}
	close(q->lfd);
	q->lfd = -1;
	ret = 0;
out:
	return ret;
}

static int lava_alive(struct guest *g)
{
	struct lava_guest *q = g->priv;
	char err[512];
	if (!q || g->fd < 0) {
		snprintf(g->err, sizeof(g->err), "the agent is not connected");
		return 0;
	}
	if (look(q, 0, err, sizeof(err)))
		return 1; /* the lab did not answer this once: the socket decides */
	if (q->finished) {
		char says[LAVA_ERROR_MSG_MAX + 96];
		int infra = lava_job_labs_fault(&q->last, job_error(q, says, sizeof(says)));
		snprintf(g->err, sizeof(g->err), "%sLAVA job %lld on %s ended (%s%s%s)%s",
			 infra ? "the lab failed: " : "", q->job, q->last.device,
			 lava_health_name(q->last.health), q->last.failure[0] ? ": " : "",
			 q->last.failure, says);
		return 0;
	}
	return 1;
}

/* Cancel the job unless it finished; wait up to TIMEOUT_S for it. */
static void job_end(struct lava_guest *q, double timeout_s)
{
	char err[512];
	double end = now_mono() + timeout_s;
	int cancelled = 0;
	if (!q->job)
		return;
	look(q, 1, err, sizeof(err));
	while (!q->finished) {
		if (!cancelled) {
			if (lava_job_cancel(&S.conn, q->job, err, sizeof(err)))
				warning("lab %s: cannot cancel job %lld: %s", S.lab.name, q->job, err);
			else
				info("kbench: lab %s: job %lld cancelled", S.lab.name, q->job);
			cancelled = 1;
		}
		if (now_mono() > end) {
			warning("lab %s: job %lld is still %s after %.0f s", S.lab.name, q->job,
				lava_state_name(q->last.state), timeout_s);
			return;
		}
		sleep(1);
		look(q, 1, err, sizeof(err)); /* an unanswered look: the next second's */
	}
}

static int lava_stop(struct guest *g, double timeout_s)
{
	struct lava_guest *q = g->priv;
	double end = now_mono() + timeout_s;
	char err[512];
	if (!q || !q->job)
		return 0;
	/* the agent's poweroff ends LAVA's test shell: the job finishes */
	while (!q->finished && now_mono() < end && !kb_interrupted) {
		usleep(500000);
		look(q, 1, err, sizeof(err));
	}
	return q->finished ? 0 : -1;
}

static void lava_release(struct guest *g)
{
	struct lava_guest *q = g->priv;
	int intr = kb_interrupted;
	if (!q)
		return;
	/* after Ctrl-C too: the job is cancelled before kbench goes */
	kb_interrupted = 0;
	if (q->lfd >= 0)
		close(q->lfd);
	job_end(q, 60);
	if (q->finished || !q->job)
		pending_drop(q);
	console_fetch(q);
	g->journal = NULL;
	sb_release(&q->journal);
	sb_release(&q->con);
	json_object_put(q->facts);
	free(q);
	kb_interrupted = kb_interrupted ? kb_interrupted : intr;
}

/* The iteration's metrics as LAVA test cases, so that LAVA's own UI and
 * API list them with their measurements and units: the agent writes the
 * signals lava-test-case would print to its standard output, which is the
 * test shell's, on the console the dispatcher reads. */
static void lava_results(struct guest *g, json_object *workloads)
{
	struct strbuf sb = STRBUF_INIT;
	int n = lava_test_cases(workloads, &sb);
	if (n && guest_write(g, "/proc/self/fd/1", sb.buf))
		warning("lab %s: the %d metrics did not reach LAVA as test cases: %s", S.lab.name,
			n, g->err[0] ? g->err : "the agent could not write them");
	sb_release(&sb);
}

static json_object *lava_facts(struct guest *g)
{
	struct lava_guest *q = g->priv;
	json_object *o;
	if (!q || !q->job)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "lab", json_object_new_string(S.lab.name));
	json_object_object_add(o, "job_id", json_object_new_int64(q->job));
	json_object_object_add(o, "job_url", json_object_new_string(q->url));
	json_object_object_add(o, "device", json_object_new_string(q->last.device));
	json_object_object_add(o, "device_type", json_object_new_string(q->last.device_type));
	if (q->resumed) /* its boot ran part of the suite for the killed kbench */
		json_object_object_add(o, "resumed", json_object_new_boolean(1));
	/* a job that ended before the agent connected: LAVA's own error */
	lava_job_error_json(&q->jerr, o);
	json_object_put(q->facts);
	q->facts = json_object_get(o); /* block_check adds to it at the job's end */
	return o;
}

const struct backend_ops lava_backend = {
	.name = "lava",
	.description = "a LAVA lab (--lab NAME, configs/labs/): each iteration is a job on one of "
		       "its devices, which boots the variant and runs the agent over TCP",
	.caps = BK_CAP_CONSOLE_LOG | BK_CAP_HARD_RESET | BK_CAP_NET_AGENT | BK_CAP_REMOTE,
	.opts = lava_opts,
	.params_size = sizeof(struct lava_params),
	.defaults = &lava_defaults,
	.side_log = "",
	.version = lava_version,
	.check_tools = lava_check_tools,
	.setup = lava_setup,
	.start = lava_start,
	.alive = lava_alive,
	.stop = lava_stop,
	.release = lava_release,
	.facts = lava_facts,
	.results = lava_results,
};
