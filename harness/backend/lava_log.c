/* lava_log.c - LAVA job logs, results blocks and API answers (lava_log.h).
 * Everything here is untrusted input. */
#include "backend/lava_log.h"
#include "core/lab.h"
#include "core/b64.h"
#include "core/jsonutil.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* ---- the job log ---- */

/* Where the parser is in one log entry {dt, lvl, msg}. */
struct entry {
	int depth;        /* mapping/sequence nesting inside the entry */
	int want;         /* 1: the next scalar is a value of the entry */
	char key[8];      /* the entry's key being read ("lvl", "msg") */
	int is_target;    /* lvl: target */
	int is_results;   /* lvl: results */
	struct strbuf msg;/* msg, when a scalar */
	/* msg, when a mapping (a results entry): its keys and values */
	int want2;        /* 1: the next scalar in msg is a value */
	char key2[16];
	char def[16], kase[16];     /* definition, case */
	struct lava_job_error je;   /* error_type, error_msg */
	struct lava_job_error *out; /* out: the job's own error (lava_log_parse) */
};

/* V (N bytes, untrusted) as one line of printable ASCII into OUT (OUTLEN
 * at least 4): tabs, line breaks and runs of spaces become one space
 * (none at either end), other control bytes are dropped, each run of
 * bytes outside ASCII becomes one '?'; cut with "..." when it does not
 * fit. */
static void clean_line(char *out, size_t outlen, const char *v, size_t n)
{
	size_t o = 0;
	int space = 0, high = 0, cut = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)v[i];
		char c;
		if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
			space = o > 0, high = 0;
			continue;
		}
		if (ch < 0x20 || ch == 0x7f)
			continue;
		if (ch >= 0x80 && high)
			continue;
		high = ch >= 0x80;
		c = high ? '?' : (char)ch;
		if (o + (size_t)space + 1 > outlen - 1) {
			cut = 1;
			break;
		}
		if (space)
			out[o++] = ' ';
		space = 0;
		out[o++] = c;
	}
	if (cut) {
		if (o > outlen - 4)
			o = outlen - 4;
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
}

/* A scalar that YAML reads as null (error_msg: null): no value. */
static int yaml_null(const yaml_event_t *ev)
{
	const char *v = (const char *)ev->data.scalar.value;
	return ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!ev->data.scalar.length || !strcmp(v, "~") || !strcmp(v, "null") ||
		!strcmp(v, "Null") || !strcmp(v, "NULL"));
}

/* MSG's printable bytes and tabs, then '\n', onto CONSOLE. */
static void console_add(struct strbuf *console, const char *msg, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)msg[i];
		if (ch >= 0x20 || ch == '\t')
			sb_add(console, &msg[i], 1);
	}
	sb_add(console, "\n", 1);
}

/* One scalar of an entry: a top-level key, or its value. */
static void entry_scalar(struct entry *e, const yaml_event_t *ev)
{
	const char *v = (const char *)ev->data.scalar.value;
	size_t n = ev->data.scalar.length;
	if (e->depth == 2 && !strcmp(e->key, "msg")) { /* a results entry's fields */
		if (!e->want2) {
			snprintf(e->key2, sizeof(e->key2), "%.*s", (int)(n < 15 ? n : 15), v);
			e->want2 = 1;
			return;
		}
		e->want2 = 0;
		if (!strcmp(e->key2, "definition"))
			snprintf(e->def, sizeof(e->def), "%.*s", (int)(n < 15 ? n : 15), v);
		else if (!strcmp(e->key2, "case"))
			snprintf(e->kase, sizeof(e->kase), "%.*s", (int)(n < 15 ? n : 15), v);
		else if (!strcmp(e->key2, "error_type") && !yaml_null(ev))
			clean_line(e->je.type, sizeof(e->je.type), v, n);
		else if (!strcmp(e->key2, "error_msg") && !yaml_null(ev))
			clean_line(e->je.msg, sizeof(e->je.msg), v, n);
		return;
	}
	if (e->depth != 1)
		return; /* deeper: not console */
	if (!e->want) {
		snprintf(e->key, sizeof(e->key), "%.*s", (int)(n < 7 ? n : 7), v);
		e->want = 1;
		return;
	}
	e->want = 0;
	if (!strcmp(e->key, "lvl")) {
		e->is_target = n == 6 && !memcmp(v, "target", 6);
		e->is_results = n == 7 && !memcmp(v, "results", 7);
	}
	else if (!strcmp(e->key, "msg"))
		sb_add(&e->msg, v, n);
}

/* The events of the document: a sequence of entries (mappings). */
static int log_events(yaml_parser_t *p, struct strbuf *console, struct lava_job_error *je,
		      char *err, size_t errlen)
{
	struct entry e;
	yaml_event_t ev;
	int level = 0, done = 0, ret = -1; /* level: 0 stream, 1 in the sequence */
	memset(&e, 0, sizeof(e));
	e.out = je;
	if (je)
		memset(je, 0, sizeof(*je));
	while (!done) {
		if (!yaml_parser_parse(p, &ev)) {
			snprintf(err, errlen, "job log: not YAML (line %zu: %s)",
				 p->problem_mark.line + 1, p->problem ? p->problem : "parse error");
			goto out;
		}
		switch (ev.type) {
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (level == 0 && ev.type == YAML_SEQUENCE_START_EVENT)
				level = 1;
			else if (level == 0) {
				snprintf(err, errlen, "job log: expected a list of entries");
				yaml_event_delete(&ev);
				goto out;
			} else if (e.depth++ == 0) {
				if (ev.type != YAML_MAPPING_START_EVENT) {
					snprintf(err, errlen, "job log: an entry is not a mapping");
					yaml_event_delete(&ev);
					goto out;
				}
				e.want = 0, e.is_target = 0, e.is_results = 0, sb_reset(&e.msg);
				e.want2 = 0, e.def[0] = e.kase[0] = '\0';
				memset(&e.je, 0, sizeof(e.je));
			} else if (e.depth == 2 && e.want)
				e.want = 0; /* a value that is a collection */
			else if (e.depth == 3 && e.want2)
				e.want2 = 0; /* msg's value that is a collection (extra):
					      * the next scalar is a key again */
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			if (level == 1 && e.depth == 0)
				level = 0;
			else if (--e.depth == 0 && e.is_target)
				console_add(console, e.msg.buf ? e.msg.buf : "", e.msg.len);
			else if (e.depth == 0 && e.is_results && e.out &&
				 (e.je.type[0] || e.je.msg[0]) && !strcmp(e.def, "lava") &&
				 !strcmp(e.kase, "job"))
				/* the dispatcher's verdict on the job itself (the
				 * device's signals go under their own definition) */
				*e.out = e.je;
			break;
		case YAML_SCALAR_EVENT:
			if (level == 0) {
				snprintf(err, errlen, "job log: expected a list of entries");
				yaml_event_delete(&ev);
				goto out;
			}
			entry_scalar(&e, &ev);
			break;
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	ret = 0;
out:
	sb_release(&e.msg);
	return ret;
}

int lava_log_parse(const char *log, size_t len, struct strbuf *console,
		   struct lava_job_error *je, char *err, size_t errlen)
{
	yaml_parser_t p;
	int ret;
	if (!yaml_parser_initialize(&p)) {
		snprintf(err, errlen, "job log: out of memory");
		return -1;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)log, len);
	ret = log_events(&p, console, je, err, errlen);
	yaml_parser_delete(&p);
	return ret;
}

void lava_job_error_text(const struct lava_job_error *je, char *out, size_t len)
{
	int both = je->type[0] && je->msg[0];
	if (!je->type[0] && !je->msg[0]) {
		if (len)
			out[0] = '\0';
	} else
		snprintf(out, len, "LAVA says: %s%s%s", je->type, both ? ": " : "", je->msg);
}

void lava_job_error_json(const struct lava_job_error *je, json_object *o)
{
	if (je->type[0])
		json_object_object_add(o, "error_type", json_object_new_string(je->type));
	if (je->msg[0])
		json_object_object_add(o, "error_msg", json_object_new_string(je->msg));
}

/* ---- the results block ---- */

/* Decode S (N characters, a multiple of 4, '=' padding only at the end)
 * onto OUT; -1 if it is not base64. */
static int b64_decode(const char *s, size_t n, struct strbuf *out)
{
	if (n % 4)
		return -1;
	for (size_t i = 0; i < n; i += 4) {
		int v[4], pad = 0;
		unsigned char o[3];
		for (int k = 0; k < 4; k++) {
			if (s[i + k] == '=' && i + 4 == n && k >= 2) {
				v[k] = 0, pad++;
				continue;
			}
			if (pad || (v[k] = b64_digit(s[i + k])) < 0)
				return -1;
		}
		o[0] = (unsigned char)(v[0] << 2 | v[1] >> 4);
		o[1] = (unsigned char)((v[1] & 15) << 4 | v[2] >> 2);
		o[2] = (unsigned char)((v[2] & 3) << 6 | v[3]);
		sb_add(out, o, (size_t)(3 - pad));
	}
	return 0;
}

void lava_block_write(const void *payload, size_t len, struct strbuf *out)
{
	const unsigned char *p = payload;
	char hex[65], line[LAVA_DATA_CHARS + 1];
	long seq = 0;
	sha256_hex(payload, len, hex);
	sb_addf(out, "KBENCH-BEGIN v1 %zu %s\n", len, hex);
	/* 57 bytes a line: 76 base64 characters, padding only at the end */
	for (size_t i = 0; i < len; i += LAVA_DATA_CHARS / 4 * 3) {
		size_t n = len - i < LAVA_DATA_CHARS / 4 * 3 ? len - i : LAVA_DATA_CHARS / 4 * 3;
		b64_encode(p + i, n, line);
		sb_addf(out, "KBENCH-DATA %ld %s\n", seq++, line);
	}
	sb_addf(out, "KBENCH-END v1\n");
}

/* The block being read. */
struct block {
	int open;
	size_t bytes;
	char sha[65];
	long next;
	struct strbuf data;
};

/* One console line L (N bytes) in a block: 1 the block ended, 0 go on,
 * -1 broken (ERR). */
static int block_line(struct block *b, const char *l, size_t n, char *err, size_t errlen)
{
	long seq;
	int off = 0;
	char num[24];
	if (n == 13 && !memcmp(l, "KBENCH-END v1", 13))
		return 1;
	if (n < 12 || memcmp(l, "KBENCH-DATA ", 12))
		return 0; /* a kernel message in between */
	/* the number from a copy: L is not NUL-terminated (sscanf on it read
	 * to the next NUL, past the console's end: found by the fuzzer) */
	snprintf(num, sizeof(num), "%.*s", (int)(n - 12 < sizeof(num) - 1 ? n - 12 : sizeof(num) - 1),
		 l + 12);
	if (sscanf(num, "%ld %n", &seq, &off) != 1 || !off || seq != b->next) {
		snprintf(err, errlen, "results block: data line %ld missing or out of order",
			 b->next);
		return -1;
	}
	b->next++;
	if (n - 12 - (size_t)off > LAVA_DATA_CHARS ||
	    b64_decode(l + 12 + off, n - 12 - (size_t)off, &b->data) || b->data.len > b->bytes) {
		snprintf(err, errlen, "results block: data line %ld is not %s", seq,
			 b->data.len > b->bytes ? "within the announced size" : "base64");
		return -1;
	}
	return 0;
}

/* A KBENCH-BEGIN line: the block's size and digest. */
static int block_begin(struct block *b, const char *l, size_t n, char *err, size_t errlen)
{
	char line[128];
	unsigned long long bytes;
	int off = 0;
	snprintf(line, sizeof(line), "%.*s", (int)(n < 127 ? n : 127), l);
	if (sscanf(line, "KBENCH-BEGIN v1 %llu %64[0-9a-f]%n", &bytes, b->sha, &off) != 2 ||
	    (size_t)off != n || strlen(b->sha) != 64 || bytes > LAVA_BLOCK_MAX) {
		snprintf(err, errlen, "results block: bad first line (expected 'KBENCH-BEGIN v1 "
			 "BYTES SHA256', at most %u bytes)", LAVA_BLOCK_MAX);
		return -1;
	}
	b->open = 1, b->bytes = (size_t)bytes, b->next = 0;
	sb_reset(&b->data);
	return 0;
}

/* The block just ended: verified into OUT, or -1. */
static int block_close(struct block *b, struct strbuf *out, char *err, size_t errlen)
{
	char hex[65];
	b->open = 0;
	sha256_hex(b->data.buf ? b->data.buf : "", b->data.len, hex);
	if (b->data.len != b->bytes || strcmp(hex, b->sha)) {
		snprintf(err, errlen, "results block: %zu bytes with SHA-256 %.12s..., announced "
			 "%zu bytes with %.12s...", b->data.len, hex, b->bytes, b->sha);
		return -1;
	}
	sb_reset(out);
	sb_add(out, b->data.buf ? b->data.buf : "", b->data.len);
	return 1;
}

int lava_block_extract(const char *console, size_t len, struct strbuf *out, char *err,
		       size_t errlen)
{
	struct block b;
	const char *p = console, *end = console + len;
	int found = 0, bad = 0, r;
	memset(&b, 0, sizeof(b));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (n >= 13 && !memcmp(p, "KBENCH-BEGIN ", 13)) {
			bad = block_begin(&b, p, n, err, errlen) ? 1 : 0;
		} else if (b.open) {
			r = block_line(&b, p, n, err, errlen);
			if (r < 0)
				b.open = 0, bad = 1;
			else if (r > 0) {
				r = block_close(&b, out, err, errlen);
				found = r > 0 ? 1 : found;
				bad = r < 0;
			}
		}
		p += n + (nl ? 1 : 0);
	}
	if (b.open && !bad)
		snprintf(err, errlen, "results block: cut short (no KBENCH-END line: %zu of %zu bytes)",
			 b.data.len, b.bytes), bad = 1;
	sb_release(&b.data);
	return bad ? -1 : found;
}

void lava_console_tail(const char *console, size_t len, int n, struct strbuf *out)
{
	size_t i = len;
	if (i && console[i - 1] == '\n')
		i--;
	while (i > 0 && n > 0)
		if (console[--i] == '\n' && --n == 0)
			i++;
	sb_add(out, console + i, len - i);
}

/* ---- API answers ---- */

static json_object *parse_obj(const char *buf, size_t len, char *err, size_t errlen)
{
	json_tokener *tok = json_tokener_new();
	json_object *o = tok ? json_tokener_parse_ex(tok, buf, (int)(len < 1u << 30 ? len : 1u << 30)) :
			       NULL;
	if (tok && (!o || json_tokener_get_error(tok) != json_tokener_success ||
		    json_tokener_get_parse_end(tok) < len)) {
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	if (o && !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		o = NULL;
	}
	if (!o)
		snprintf(err, errlen, "LAVA's answer is not a JSON object");
	return o;
}

/* S's printable bytes, cut to LEN. */
static void printable(char *out, size_t len, const char *s)
{
	size_t o = 0;
	for (; s && *s && o + 1 < len; s++)
		if ((unsigned char)*s >= 0x20 && (unsigned char)*s != 0x7f)
			out[o++] = *s;
	out[o] = '\0';
}

static const char *const state_names[] = { "Submitted", "Scheduling", "Scheduled", "Running",
					   "Canceling", "Finished", NULL };
static const char *const health_names[] = { "Unknown", "Complete", "Incomplete", "Canceled",
					    NULL };

const char *lava_state_name(enum lava_state s)
{
	return (unsigned)s < 6 ? state_names[s] : "?";
}

const char *lava_health_name(enum lava_health h)
{
	return (unsigned)h < 4 ? health_names[h] : "?";
}

static int name_index(const char *const *names, const char *s)
{
	for (int i = 0; s && names[i]; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

int lava_job_parse(const char *buf, size_t len, struct lava_job *j, char *err, size_t errlen)
{
	json_object *o = parse_obj(buf, len, err, errlen), *id;
	int st, he, ret = -1;
	memset(j, 0, sizeof(*j));
	if (!o)
		return -1;
	id = jget(o, "id");
	st = name_index(state_names, jstr(o, "state"));
	he = name_index(health_names, jstr(o, "health"));
	if (!id || !json_object_is_type(id, json_type_int) || json_object_get_int64(id) <= 0 ||
	    st < 0 || he < 0) {
		snprintf(err, errlen, "LAVA's job answer lacks %s", !id ? "its id" : st < 0 ?
			 "a known state" : he < 0 ? "a known health" : "a positive integer id");
		goto out;
	}
	j->id = json_object_get_int64(id);
	j->state = (enum lava_state)st;
	j->health = (enum lava_health)he;
	printable(j->device, sizeof(j->device), jstr(o, "actual_device"));
	printable(j->device_type, sizeof(j->device_type), jstr(o, "requested_device_type"));
	printable(j->failure, sizeof(j->failure), jstr(o, "failure_comment"));
	ret = 0;
out:
	json_object_put(o);
	return ret;
}

int lava_submit_parse(const char *buf, size_t len, long long *id, char *err, size_t errlen)
{
	json_object *o = parse_obj(buf, len, err, errlen), *ids, *v;
	int ret = -1;
	if (!o)
		return -1;
	ids = jget(o, "job_ids");
	if (!ids || !json_object_is_type(ids, json_type_array) ||
	    json_object_array_length(ids) != 1 || !(v = json_object_array_get_idx(ids, 0)) ||
	    !json_object_is_type(v, json_type_int) || json_object_get_int64(v) <= 0)
		snprintf(err, errlen, "LAVA's submit answer lacks one job id (job_ids)");
	else
		*id = json_object_get_int64(v), ret = 0;
	json_object_put(o);
	return ret;
}

void lava_error_message(const char *buf, size_t len, char *out, size_t outlen)
{
	char err[64];
	json_object *o = parse_obj(buf, len, err, sizeof(err));
	const char *m = o ? jstr(o, "detail") : NULL;
	if (o && !m)
		m = jstr(o, "message");
	printable(out, outlen, m);
	json_object_put(o);
}

int lava_devices_parse(const char *buf, size_t len, struct lava_device *d, int max, int *n,
		       char *err, size_t errlen)
{
	json_object *o = parse_obj(buf, len, err, errlen), *res;
	size_t count;
	*n = 0;
	if (!o)
		return -1;
	res = jget(o, "results");
	if (!res || !json_object_is_type(res, json_type_array)) {
		snprintf(err, errlen, "LAVA's devices answer lacks its results list");
		json_object_put(o);
		return -1;
	}
	count = json_object_array_length(res);
	for (size_t i = 0; i < count && *n < max; i++) {
		json_object *e = json_object_array_get_idx(res, i), *tags;
		struct lava_device *x = &d[*n];
		printable(x->name, sizeof(x->name), jstr(e, "hostname"));
		printable(x->type, sizeof(x->type), jstr(e, "device_type"));
		printable(x->state, sizeof(x->state), jstr(e, "state"));
		printable(x->health, sizeof(x->health), jstr(e, "health"));
		if (!x->name[0])
			continue; /* not a device */
		x->usable = !strcmp(x->health, "Good") || !strcmp(x->health, "Unknown");
		x->ntags = 0;
		/* LAVA 2023.01 lists tag ids (lava_tags_resolve names them); a
		 * name, or an object with a name, is taken too */
		for (size_t t = 0; json_object_is_type(tags = jget(e, "tags"), json_type_array) &&
				   t < json_object_array_length(tags) && x->ntags < LAVA_DEVICE_TAGS; t++) {
			json_object *tg = json_object_array_get_idx(tags, t);
			const char *tn = json_object_is_type(tg, json_type_string) ?
					 json_object_get_string(tg) : jstr(tg, "name");
			if (json_object_is_type(tg, json_type_int)) /* an id: lava_tags_resolve */
				snprintf(x->tags[x->ntags++], sizeof(x->tags[0]), "#%d",
					 json_object_get_int(tg));
			else if (tn && *tn && strlen(tn) < sizeof(x->tags[0]) && lab_name_ok(tn))
				snprintf(x->tags[x->ntags++], sizeof(x->tags[0]), "%s", tn);
		}
		(*n)++;
	}
	json_object_put(o);
	return 0;
}

int lava_job_labs_fault(const struct lava_job *j, const char *error_type)
{
	return j->health == LAVA_HEALTH_CANCELED ||
	       (j->health == LAVA_HEALTH_INCOMPLETE &&
		((error_type && !strcmp(error_type, "Infrastructure")) ||
		 strstr(j->failure, "InfrastructureError")));
}

int lava_count_parse(const char *buf, size_t len, long *n, char *err, size_t errlen)
{
	json_object *o = parse_obj(buf, len, err, errlen), *c;
	if (!o)
		return -1;
	c = jget(o, "count");
	if (!json_object_is_type(c, json_type_int) || json_object_get_int64(c) < 0) {
		snprintf(err, errlen, "LAVA's answer has no count");
		json_object_put(o);
		return -1;
	}
	*n = (long)json_object_get_int64(c);
	json_object_put(o);
	return 0;
}

int lava_tags_pending(const struct lava_device *d, int n)
{
	for (int i = 0; i < n; i++)
		for (int t = 0; t < d[i].ntags; t++)
			if (d[i].tags[t][0] == '#')
				return 1;
	return 0;
}

int lava_tags_resolve(const char *buf, size_t len, struct lava_device *d, int n, char *err,
		      size_t errlen)
{
	json_object *o = parse_obj(buf, len, err, errlen), *res;
	if (!o)
		return -1;
	res = jget(o, "results");
	if (!res || !json_object_is_type(res, json_type_array)) {
		snprintf(err, errlen, "LAVA's tags answer lacks its results list");
		json_object_put(o);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		int k = 0;
		for (int t = 0; t < d[i].ntags; t++) {
			const char *name = NULL;
			if (d[i].tags[t][0] != '#') {
				memmove(d[i].tags[k++], d[i].tags[t], sizeof(d[i].tags[0]));
				continue;
			}
			for (size_t j = 0; j < json_object_array_length(res) && !name; j++) {
				json_object *e = json_object_array_get_idx(res, j);
				if (json_object_get_int(jget(e, "id")) == atoi(d[i].tags[t] + 1))
					name = jstr(e, "name");
			}
			/* an unknown id or an unsafe name: not a tag kbench asks for */
			if (name && strlen(name) < sizeof(d[i].tags[0]) && lab_name_ok(name))
				snprintf(d[i].tags[k++], sizeof(d[i].tags[0]), "%s", name);
		}
		d[i].ntags = k;
	}
	json_object_put(o);
	return 0;
}

const char *lava_device_own_tag(const struct lava_device *d, int n, int i)
{
	for (int t = 0; t < d[i].ntags; t++) {
		int shared = 0;
		for (int j = 0; j < n && !shared; j++)
			for (int u = 0; j != i && u < d[j].ntags && !shared; u++)
				shared = !strcmp(d[j].tags[u], d[i].tags[t]);
		if (!shared)
			return d[i].tags[t];
	}
	return NULL;
}

const char *lava_device_pin_tag(const struct lava_device *d, int n, int i,
				const struct strvec *lab_tags, char *why, size_t len)
{
	const char *own;
	if (!d[i].usable) {
		snprintf(why, len, "%s (%s): not usable", d[i].health, d[i].state);
		return NULL;
	}
	for (size_t t = 0; lab_tags && t < lab_tags->n; t++) {
		int k;
		for (k = 0; k < d[i].ntags && strcmp(d[i].tags[k], lab_tags->v[t]); k++)
			;
		if (k == d[i].ntags) {
			snprintf(why, len, "it lacks the lab's tag '%s', which every job asks for",
				 lab_tags->v[t]);
			return NULL;
		}
	}
	if (!(own = lava_device_own_tag(d, n, i)))
		snprintf(why, len, "it has no tag of its own, and LAVA picks devices by type and "
			 "tags only: give it one (lavacli devices tags add %s %s)", d[i].name,
			 d[i].name);
	return own;
}
