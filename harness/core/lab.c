/* lab.c - lab files for the lava backend (lab.h), parsed as target files
 * are (core/target.c). */
#include "core/lab.h"
#include "core/config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What inih hands the handler, before the checks that need every key. */
struct lab_raw {
	char url[OPT_STR_MAX], token_file[OPT_STR_MAX], device_type[OPT_STR_MAX];
	char tags[OPT_STR_MAX], artifacts[OPT_STR_MAX], artifacts_url[OPT_STR_MAX];
	char agent_host[OPT_STR_MAX], device_network[OPT_STR_MAX];
	int queue_timeout, job_timeout, poll_interval, resume_window;
};

#define LO(f) offsetof(struct lab_raw, f)
static const struct opt_def lab_opts[] = {
	{ "url", OPT_STRING, LO(url), 0, 0, NULL, "LAVA's server: http://HOST[:PORT]/[PATH]" },
	{ "token_file", OPT_STRING, LO(token_file), 0, 0, NULL, "file holding the API token" },
	{ "device_type", OPT_STRING, LO(device_type), 0, 0, NULL, "device type to run on" },
	{ "tags", OPT_STRING, LO(tags), 0, 0, NULL, "device tags, separated by spaces" },
	{ "artifacts", OPT_STRING, LO(artifacts), 0, 0, NULL, "directory kbench publishes to" },
	{ "artifacts_url", OPT_STRING, LO(artifacts_url), 0, 0, NULL, "that directory's URL" },
	{ "queue_timeout", OPT_INT, LO(queue_timeout), 10, 7 * 86400, NULL, "seconds queued" },
	{ "job_timeout", OPT_INT, LO(job_timeout), 30, 86400, NULL, "seconds running" },
	{ "poll_interval", OPT_INT, LO(poll_interval), 1, 600, NULL, "seconds between looks" },
	{ "resume_window", OPT_INT, LO(resume_window), 0, 86400, NULL,
	  "seconds a job's agent waits for a killed kbench to come back (--resume)" },
	{ "agent_host", OPT_STRING, LO(agent_host), 0, 0, NULL,
	  "IPv4 address the devices reach kbench at (kbench listens there)" },
	{ "device_network", OPT_STRING, LO(device_network), 0, 0, NULL,
	  "qemu-user (the test brings eth0 up on QEMU's user network) or up" },
	OPT_END
};
#undef LO

struct lab_ctx {
	struct lab_raw raw;
	struct lab *lab; /* templates go straight there */
	char err[512];
	int seen;
};

int lab_name_ok(const char *s)
{
	if (!*s || strlen(s) >= 64)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("-_.", *s))
			return 0;
	return 1;
}

/* SCHEMES' URL with a host and nothing a shell, a header or a YAML
 * scalar would take for syntax; no user:password@ (a secret in a URL
 * ends up in logs). */
static int url_ok(const char *u, const char *const *schemes)
{
	const char *rest = NULL;
	for (; *schemes && !rest; schemes++)
		if (!strncmp(u, *schemes, strlen(*schemes)))
			rest = u + strlen(*schemes);
	if (!rest || (!*rest && strncmp(u, "file://", 7)))
		return 0;
	if (strncmp(u, "file://", 7) && (*rest == '/' || strchr(u, '@')))
		return 0;
	for (; *u; u++)
		if ((unsigned char)*u <= ' ' || (unsigned char)*u >= 0x7f || strchr("\"'`\\<>{}|^#", *u))
			return 0;
	return 1;
}

static const char *const http_schemes[] = { "http://", "https://", NULL };
static const char *const artifact_schemes[] = { "http://", "https://", "file:///", NULL };

static int lab_set_template(struct lab_ctx *c, const char *name, const char *value)
{
	struct lab *l = c->lab;
	if (!lab_name_ok(name)) {
		snprintf(c->err, sizeof(c->err), "[templates]: bad device type '%s' (letters, "
			 "digits, '-', '_', '.')", name);
		return 0;
	}
	if (!*value || strlen(value) >= OPT_STR_MAX) {
		snprintf(c->err, sizeof(c->err), "[templates] %s: expected a template file", name);
		return 0;
	}
	if (lab_template_for(l, name) || l->ntemplates == LAB_TEMPLATES_MAX) {
		snprintf(c->err, sizeof(c->err), "[templates] %s: %s", name,
			 l->ntemplates == LAB_TEMPLATES_MAX ? "too many templates (16 at most)" :
			 "given twice");
		return 0;
	}
	snprintf(l->templates[l->ntemplates].device_type, 64, "%s", name);
	/* made relative to the lab file in lab_finish */
	snprintf(l->templates[l->ntemplates].path, KB_PATH_MAX, "%s", value);
	l->ntemplates++;
	return 1;
}

static int lab_handler(void *user, const char *section, const char *name, const char *value)
{
	struct lab_ctx *c = user;
	const struct opt_def *d;
	char err[300];
	if (!name)
		return 1;
	if (!strcmp(section, "templates"))
		return lab_set_template(c, name, value);
	if (strcmp(section, "lab")) {
		snprintf(c->err, sizeof(c->err), "unknown section [%s] (expected [lab] or [templates])",
			 section);
		return 0;
	}
	c->seen = 1;
	if (!strcmp(name, "token")) {
		snprintf(c->err, sizeof(c->err), "token: a token is never written in the lab file: "
			 "put it in a file of its own (chmod 600) and name that file in token_file");
		return 0;
	}
	if (!(d = opt_find(lab_opts, name))) {
		snprintf(c->err, sizeof(c->err),
			 "unknown key '%s' (known: url, token_file, device_type, tags, artifacts, "
			 "artifacts_url, queue_timeout, job_timeout, poll_interval, resume_window, "
			 "agent_host, device_network)",
			 name);
		return 0;
	}
	if (opt_set(&c->raw, d, value, err, sizeof(err))) {
		snprintf(c->err, sizeof(c->err), "%s: %s", name, err);
		return 0;
	}
	if (!strcmp(name, "url") && !url_ok(value, http_schemes)) {
		snprintf(c->err, sizeof(c->err), "url: expected http://HOST[:PORT]/[PATH] or https://"
			 " without user or password, quotes or spaces, got '%s'", value);
		return 0;
	}
	if (!strcmp(name, "artifacts_url") && !url_ok(value, artifact_schemes)) {
		snprintf(c->err, sizeof(c->err), "artifacts_url: expected http://, https:// or "
			 "file:///PATH without user or password, quotes or spaces, got '%s'", value);
		return 0;
	}
	if (!strcmp(name, "agent_host")) {
		struct in_addr a;
		if (inet_pton(AF_INET, value, &a) != 1) {
			snprintf(c->err, sizeof(c->err), "agent_host: expected the IPv4 address the "
				 "devices reach this machine at (e.g. 192.0.2.10), got '%s'", value);
			return 0;
		}
	}
	if (!strcmp(name, "device_network") && strcmp(value, "qemu-user") && strcmp(value, "up")) {
		snprintf(c->err, sizeof(c->err), "device_network: expected qemu-user (kbench's test "
			 "step brings eth0 up on QEMU's user network) or up (the device's network is "
			 "up when the test starts), got '%s'", value);
		return 0;
	}
	if (!strcmp(name, "device_type") && !lab_name_ok(value)) {
		snprintf(c->err, sizeof(c->err), "device_type: expected a LAVA device type (letters, "
			 "digits, '-', '_', '.'), got '%s'", value);
		return 0;
	}
	return 1;
}

/* The tags, each a LAVA name. */
static int lab_tags(struct lab *l, const char *s, const char *path)
{
	char buf[OPT_STR_MAX], *save = NULL;
	snprintf(buf, sizeof(buf), "%s", s);
	for (char *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (!lab_name_ok(t))
			return error("lab '%s': tags: bad tag '%s' (letters, digits, '-', '_', '.')",
				     path, t);
		strvec_push(&l->tags, t);
	}
	return 0;
}

static void slash_end(char *s, size_t len)
{
	size_t n = strlen(s);
	if (n && s[n - 1] != '/' && n + 1 < len)
		s[n] = '/', s[n + 1] = '\0';
}

/* The checks that need every key, and the raw values into L. */
static int lab_finish(struct lab_ctx *c, const char *path, struct lab *l)
{
	const struct lab_raw *r = &c->raw;
	char dir[KB_PATH_MAX], tmp[KB_PATH_MAX];
	if (!c->seen)
		return error("lab '%s': expected a [lab] section", path);
	if (!r->url[0] || !r->token_file[0] || !r->artifacts[0] || !r->artifacts_url[0])
		return error("lab '%s': [lab] needs url, token_file, artifacts and artifacts_url "
			     "(missing: %s)", path, !r->url[0] ? "url" : !r->token_file[0] ?
			     "token_file" : !r->artifacts[0] ? "artifacts" : "artifacts_url");
	if (!r->device_type[0] && !r->tags[0])
		return error("lab '%s': [lab] needs device_type or tags (which devices to run on)",
			     path);
	if (r->artifacts[0] != '/')
		return error("lab '%s': artifacts: expected an absolute directory, got '%s'", path,
			     r->artifacts);
	config_file_names(path, l->name, dir, sizeof(dir));
	snprintf(l->url, sizeof(l->url), "%s", r->url);
	slash_end(l->url, sizeof(l->url));
	config_path(l->token_file, sizeof(l->token_file), r->token_file, dir);
	snprintf(l->device_type, sizeof(l->device_type), "%s", r->device_type);
	snprintf(l->artifacts, sizeof(l->artifacts), "%s", r->artifacts);
	snprintf(l->artifacts_url, sizeof(l->artifacts_url), "%s", r->artifacts_url);
	slash_end(l->artifacts_url, sizeof(l->artifacts_url));
	l->queue_timeout_s = r->queue_timeout;
	l->job_timeout_s = r->job_timeout;
	l->poll_interval_s = r->poll_interval;
	l->resume_window_s = r->resume_window;
	snprintf(l->agent_host, sizeof(l->agent_host), "%s", r->agent_host);
	l->network_up = !strcmp(r->device_network, "up");
	if (l->network_up && !l->agent_host[0])
		return error("lab '%s': device_network = up needs agent_host (the address the devices "
			     "reach this machine at)", path);
	for (int i = 0; i < l->ntemplates; i++) {
		snprintf(tmp, sizeof(tmp), "%s", l->templates[i].path);
		config_path(l->templates[i].path, KB_PATH_MAX, tmp, dir);
	}
	if (l->device_type[0] && !lab_template_for(l, l->device_type))
		return error("lab '%s': [templates] has no template for device_type %s (a line "
			     "'%s = FILE': the job's deploy and boot parts)", path, l->device_type,
			     l->device_type);
	return lab_tags(l, r->tags, path);
}

int lab_parse(const char *buf, size_t len, const char *path, struct lab *l)
{
	struct lab_ctx c;
	memset(l, 0, sizeof(*l));
	memset(&c, 0, sizeof(c));
	c.lab = l;
	c.raw.queue_timeout = 3600;
	c.raw.job_timeout = 1800;
	c.raw.poll_interval = 5;
	c.raw.resume_window = 600;
	snprintf(l->path, sizeof(l->path), "%s", path);
	if (config_ini_parse(buf, len, "lab", path, lab_handler, &c, c.err))
		return -1;
	return lab_finish(&c, path, l);
}

static int parse_any(const char *buf, size_t len, const char *path, void *l)
{
	return lab_parse(buf, len, path, l);
}

int lab_load(const char *name, struct lab *l)
{
	memset(l, 0, sizeof(*l));
	return config_file_load("lab", "configs/labs", name, parse_any, l);
}

void lab_release(struct lab *l)
{
	strvec_clear(&l->tags);
}

const char *lab_template_for(const struct lab *l, const char *device_type)
{
	for (int i = 0; i < l->ntemplates; i++)
		if (!strcmp(l->templates[i].device_type, device_type))
			return l->templates[i].path;
	return NULL;
}

int lab_token_valid(const char *buf, size_t len)
{
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		len--;
	if (!len || len >= LAB_TOKEN_MAX)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)buf[i]) && buf[i] != '-' && buf[i] != '_')
			return 0;
	return 1;
}

int lab_token_read(const struct lab *l, char *out, size_t len)
{
	char buf[LAB_TOKEN_MAX + 2];
	struct stat st;
	ssize_t n;
	int fd = open(l->token_file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return error("lab '%s': cannot open its token file '%s': %s", l->path, l->token_file,
			     strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (st.st_mode & 077)) {
		close(fd);
		return error("lab '%s': token file '%s' must be a regular file readable by its "
			     "owner only (chmod 600 '%s')", l->path, l->token_file, l->token_file);
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0 || !lab_token_valid(buf, (size_t)n) || (size_t)n >= len)
		return error("lab '%s': token file '%s' does not hold a token (one line of letters, "
			     "digits, '-' and '_', under %d characters)", l->path, l->token_file,
			     LAB_TOKEN_MAX);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	memcpy(out, buf, (size_t)n);
	out[n] = '\0';
	return 0;
}
