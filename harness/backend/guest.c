/* guest.c - boot a guest through its backend and talk to its agent.
 *
 * Everything the guest sends is untrusted: lines are bounded by
 * KB_PROTO_MAX_LINE, parsed by json-c, and checked for the fields we use.
 */
#include "backend/guest.h"
#include "backend/backend.h"
#include "agent/proto.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <unistd.h>

void guest_init(struct guest *g, const struct backend_ops *ops)
{
	memset(g, 0, sizeof(*g));
	g->ops = ops;
	g->fd = -1;
	g->next_id = 1;
}

static int gerr(struct guest *g, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(g->err, sizeof(g->err), fmt, ap);
	va_end(ap);
	return -1;
}

static int send_line(struct guest *g, json_object *o)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	struct strbuf sb = STRBUF_INIT;
	size_t off = 0;
	sb_adds(&sb, s);
	sb_adds(&sb, "\n");
	if (g->journal) {
		sb_adds(g->journal, "> ");
		sb_add(g->journal, sb.buf, sb.len);
	}
	while (off < sb.len) {
		ssize_t n = write(g->fd, sb.buf + off, sb.len - off);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN) {
				usleep(1000);
				continue;
			}
			sb_release(&sb);
			return gerr(g, "cannot write to the agent: %s", strerror(errno));
		}
		off += (size_t)n;
	}
	sb_release(&sb);
	return 0;
}

/* Read one line (without '\n') by DEADLINE. 1 = got line in LINE, 0 =
 * deadline, -1 = error/EOF. */
static int read_line(struct guest *g, double deadline, struct strbuf *line)
{
	for (;;) {
		char *nl = g->rbuf.len ? memchr(g->rbuf.buf, '\n', g->rbuf.len) : NULL;
		struct pollfd pfd = { g->fd, POLLIN, 0 };
		double left;
		int pr;
		if (nl) {
			size_t n = (size_t)(nl - g->rbuf.buf);
			sb_reset(line);
			sb_add(line, g->rbuf.buf, n);
			if (g->journal) {
				sb_adds(g->journal, "< ");
				sb_add(g->journal, g->rbuf.buf, n + 1);
			}
			memmove(g->rbuf.buf, nl + 1, g->rbuf.len - n - 1);
			g->rbuf.len -= n + 1;
			g->rbuf.buf[g->rbuf.len] = '\0';
			return 1;
		}
		if (g->rbuf.len > KB_PROTO_MAX_LINE)
			return gerr(g, "agent sent a line longer than %u bytes", KB_PROTO_MAX_LINE);
		left = deadline - now_mono();
		if (left <= 0)
			return 0;
		if (kb_interrupted)
			return gerr(g, "interrupted");
		pr = poll(&pfd, 1, left > 0.2 ? 200 : (int)(left * 1000) + 1);
		if (pr < 0 && errno != EINTR)
			return gerr(g, "poll: %s", strerror(errno));
		if (pr > 0) {
			char buf[65536];
			ssize_t n = read(g->fd, buf, sizeof(buf));
			if (n == 0)
				return gerr(g, "the agent channel closed (guest gone)");
			if (n < 0 && errno != EINTR && errno != EAGAIN)
				return gerr(g, "cannot read from the agent: %s", strerror(errno));
			if (n > 0)
				sb_add(&g->rbuf, buf, (size_t)n);
			continue;
		}
		if (g->ops->alive && !g->ops->alive(g))
			return -1; /* the backend said why */
	}
}

/* Up to 60 bytes of BUF for a message, anything unprintable as '?'. */
static void show_bytes(char *out, size_t outlen, const char *buf, size_t len)
{
	size_t n = len < 60 ? len : 60, i;
	if (!outlen)
		return;
	if (n > outlen - 1)
		n = outlen - 1;
	for (i = 0; i < n; i++)
		out[i] = buf[i] >= 0x20 && buf[i] < 0x7f ? buf[i] : '?';
	out[i] = '\0';
}

int proto_parse_line(const char *buf, size_t len, json_object **out, char *err, size_t errlen)
{
	json_tokener *tok = json_tokener_new();
	json_object *o = NULL, *v;
	char show[64];
	size_t end;
	int ret = -1;

	*out = NULL;
	show_bytes(show, sizeof(show), buf, len);
	if (len > KB_PROTO_MAX_LINE) {
		snprintf(err, errlen, "the agent sent a line longer than %u bytes", KB_PROTO_MAX_LINE);
		goto out;
	}
	o = json_tokener_parse_ex(tok, buf, (int)len);
	if (json_tokener_get_error(tok) != json_tokener_success || !o ||
	    !json_object_is_type(o, json_type_object)) {
		snprintf(err, errlen, "the agent sent a line that is not a JSON object: '%s'", show);
		goto out;
	}
	/* one object per line: nothing but white space after it */
	for (end = json_tokener_get_parse_end(tok); end < len; end++)
		if (buf[end] != ' ' && buf[end] != '\t' && buf[end] != '\r') {
			snprintf(err, errlen, "the agent sent bytes after its JSON object: '%s'", show);
			goto out;
		}
	if (!json_object_object_get_ex(o, "op", &v) || !json_object_is_type(v, json_type_string)) {
		snprintf(err, errlen, "the agent sent a message without op");
		goto out;
	}
	*out = o;
	o = NULL;
	ret = 0;
out:
	json_object_put(o);
	json_tokener_free(tok);
	return ret;
}

/* Wait for a message with op WANT_OP (and id WANT_ID if > 0). */
static int wait_msg(struct guest *g, const char *want_op, int want_id, double timeout_s,
		    json_object **resp)
{
	double deadline = now_mono() + timeout_s;
	struct strbuf line = STRBUF_INIT;
	int ret = -1;
	g->timed_out = 0;
	for (;;) {
		json_object *o, *v;
		int r = read_line(g, deadline, &line);
		if (r == 0) {
			g->timed_out = 1;
			gerr(g, "no answer from the agent within %.0f s", timeout_s);
			break;
		}
		if (r < 0)
			break;
		if (proto_parse_line(line.buf ? line.buf : "", line.len, &o, g->err, sizeof(g->err)))
			break;
		v = json_object_object_get(o, "op");
		if (strcmp(json_object_get_string(v), want_op)) {
			json_object_put(o); /* stale or unrelated: skip */
			continue;
		}
		if (want_id > 0) {
			if (!json_object_object_get_ex(o, "id", &v) ||
			    !json_object_is_type(v, json_type_int) || json_object_get_int(v) != want_id) {
				json_object_put(o);
				continue;
			}
		}
		*resp = o;
		ret = 0;
		break;
	}
	sb_release(&line);
	return ret;
}

int guest_spawn_agent(struct guest *g, struct child *c)
{
	int sv[2], r;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return gerr(g, "socketpair: %s", strerror(errno));
	r = child_start_fds(c, sv[1], sv[1]);
	close(sv[1]);
	if (r) {
		close(sv[0]);
		return gerr(g, "cannot run '%s'", c->argv.n ? c->argv.v[0] : "?");
	}
	g->fd = sv[0];
	return 0;
}

int guest_hello(struct guest *g, double timeout_s)
{
	json_object *req = json_object_new_object(), *resp = NULL;
	int r;
	json_object_object_add(req, "op", json_object_new_string("hello"));
	r = send_line(g, req);
	json_object_put(req);
	if (r || wait_msg(g, "hello", 0, timeout_s, &resp))
		return -1;
	g->t_ready = now_mono();
	json_object_put(g->hello);
	g->hello = resp;
	return 0;
}

int guest_boot(struct guest *g, const struct boot_params *p)
{
	json_object *v;
	double left;
	g->t_start = now_mono();
	if (g->ops->start(g, p))
		return -1;
	left = p->boot_timeout_s - (now_mono() - g->t_start);
	/* a backend that had to know whose agent connected said hello */
	if (!g->hello && guest_hello(g, left > 1 ? left : 1)) {
		if (g->timed_out)
			gerr(g, "the guest did not boot to the agent within %.0f s", p->boot_timeout_s);
		return -1;
	}
	if (!json_object_object_get_ex(g->hello, "proto", &v) ||
	    json_object_get_int(v) != KB_PROTO_VERSION) {
		json_object_put(g->hello);
		g->hello = NULL;
		return gerr(g, "the agent speaks another protocol version");
	}
	return 0;
}

int guest_call(struct guest *g, json_object *req, double timeout_s, json_object **resp)
{
	int id = g->next_id++;
	*resp = NULL;
	json_object_object_add(req, "id", json_object_new_int(id));
	if (send_line(g, req))
		return -1;
	return wait_msg(g, "result", id, timeout_s, resp);
}

int guest_shutdown(struct guest *g, double timeout_s)
{
	json_object *req;
	if (g->fd >= 0) {
		req = json_object_new_object();
		json_object_object_add(req, "op", json_object_new_string("poweroff"));
		send_line(g, req);
		json_object_put(req);
	}
	return g->ops->stop(g, timeout_s);
}

void guest_release(struct guest *g)
{
	if (g->ops && g->ops->alive && g->ops->alive(g))
		g->ops->stop(g, 0);
	if (g->fd >= 0)
		close(g->fd);
	g->fd = -1;
	if (g->ops && g->ops->release)
		g->ops->release(g);
	g->priv = NULL;
	sb_release(&g->rbuf);
	if (g->hello)
		json_object_put(g->hello);
	g->hello = NULL;
}

int guest_write(struct guest *g, const char *path, const char *data)
{
	json_object *req = json_object_new_object(), *resp = NULL;
	int ret;
	json_object_object_add(req, "op", json_object_new_string("write"));
	json_object_object_add(req, "path", json_object_new_string(path));
	json_object_object_add(req, "data", json_object_new_string(data));
	ret = guest_call(g, req, 30, &resp);
	if (ret == 0 && json_object_object_get(resp, "error"))
		ret = -1;
	json_object_put(req);
	json_object_put(resp);
	return ret;
}

char *guest_read(struct guest *g, const char *path)
{
	json_object *req = json_object_new_object(), *resp = NULL, *v;
	char *data = NULL;
	json_object_object_add(req, "op", json_object_new_string("read"));
	json_object_object_add(req, "path", json_object_new_string(path));
	if (guest_call(g, req, 30, &resp) == 0 && json_object_object_get_ex(resp, "data", &v) &&
	    json_object_is_type(v, json_type_string))
		data = xstrdup(json_object_get_string(v));
	json_object_put(req);
	json_object_put(resp);
	return data;
}
