/* lava_api.c - LAVA's REST API over libcurl (lava_api.h). The job
 * definitions are in lava_job.c. */
#include "backend/lava_api.h"
#include "core/jsonutil.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int lava_connect(struct lava_conn *c, const struct lab *l)
{
	static int curl_ready;
	memset(c, 0, sizeof(*c));
	c->lab = l;
	c->timeout_s = 60;
	if (!curl_ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT))
			return error("lab '%s': libcurl did not start", l->path);
		curl_ready = 1;
	}
	return lab_token_read(l, c->token, sizeof(c->token));
}

void lava_disconnect(struct lava_conn *c)
{
	explicit_bzero(c->token, sizeof(c->token));
}

/* The answer, up to LAVA_ANSWER_MAX bytes. */
struct answer {
	struct strbuf *out;
	int too_big;
};

static size_t answer_write(char *data, size_t size, size_t n, void *user)
{
	struct answer *a = user;
	if (a->out->len + size * n > LAVA_ANSWER_MAX) {
		a->too_big = 1;
		return 0;
	}
	sb_add(a->out, data, size * n);
	return size * n;
}

/* The options every request has: no redirects, http(s) only, deadlines,
 * no signals (kbench's own Ctrl-C handling stays). */
static void request_options(CURL *h, const struct lava_conn *c, struct answer *a)
{
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(c->timeout_s * 1000));
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, answer_write);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, a);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "kbench/" KB_VERSION);
}

int lava_request(struct lava_conn *c, const char *method, const char *path, const char *body,
		 struct strbuf *out, long *status, char *err, size_t errlen)
{
	struct answer a = { out, 0 };
	struct curl_slist *hdr = NULL;
	char url[1024], auth[LAB_TOKEN_MAX + 32];
	CURLcode rc;
	CURL *h = curl_easy_init();
	*status = 0;
	sb_reset(out);
	if (!h) {
		snprintf(err, errlen, "libcurl: cannot make a request");
		return -1;
	}
	snprintf(url, sizeof(url), "%s%s", c->lab->url, path);
	snprintf(auth, sizeof(auth), "Authorization: Token %s", c->token);
	hdr = curl_slist_append(hdr, auth);
	explicit_bzero(auth, sizeof(auth));
	if (body)
		hdr = curl_slist_append(hdr, "Content-Type: application/json");
	request_options(h, c, &a);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	if (body)
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
	else
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
	rc = curl_easy_perform(h);
	if (rc == CURLE_OK)
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
	else if (a.too_big)
		snprintf(err, errlen, "LAVA at %s: an answer over %u MB", c->lab->url,
			 LAVA_ANSWER_MAX >> 20);
	else
		snprintf(err, errlen, "cannot reach LAVA at %s: %s", c->lab->url,
			 curl_easy_strerror(rc));
	/* the header list holds the token: wipe it before it is freed */
	for (struct curl_slist *s = hdr; s; s = s->next)
		explicit_bzero(s->data, strlen(s->data));
	curl_slist_free_all(hdr);
	curl_easy_cleanup(h);
	return rc == CURLE_OK ? 0 : -1;
}

/* An answer with status STATUS as an error of WHAT into ERR. */
static void answer_error(const struct lava_conn *c, const char *what, long status,
			 const struct strbuf *a, char *err, size_t errlen)
{
	char msg[200];
	lava_error_message(a->buf ? a->buf : "", a->len, msg, sizeof(msg));
	if (status == 401 || status == 403)
		snprintf(err, errlen, "LAVA at %s refused the token in '%s' (HTTP %ld%s%s): check "
			 "that file", c->lab->url, c->lab->token_file, status, *msg ? ": " : "", msg);
	else
		snprintf(err, errlen, "LAVA at %s: %s: HTTP %ld%s%s", c->lab->url, what, status,
			 *msg ? ": " : "", msg);
}

int lava_submit(struct lava_conn *c, const char *yaml, long long *id, char *err, size_t errlen)
{
	struct strbuf a = STRBUF_INIT;
	json_object *body = json_object_new_object();
	long status;
	int ret = -1;
	jset_str(body, "definition", yaml);
	if (lava_request(c, "POST", "api/v0.2/jobs/",
			 json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN), &a, &status,
			 err, errlen))
		goto out;
	if (status != 201 && status != 200) {
		answer_error(c, "job refused", status, &a, err, errlen);
		goto out;
	}
	ret = lava_submit_parse(a.buf ? a.buf : "", a.len, id, err, errlen);
out:
	json_object_put(body);
	sb_release(&a);
	return ret;
}

/* GET api/v0.2/jobs/ID/SUB into A, a 200 answer, else -1 with ERR. */
static int job_get(struct lava_conn *c, long long id, const char *sub, struct strbuf *a,
		   char *err, size_t errlen)
{
	char path[128], what[64];
	long status;
	snprintf(path, sizeof(path), "api/v0.2/jobs/%lld/%s", id, sub);
	if (lava_request(c, "GET", path, NULL, a, &status, err, errlen))
		return -1;
	if (status != 200) {
		snprintf(what, sizeof(what), "job %lld%s%.*s", id, *sub ? " " : "",
			 (int)strcspn(sub, "/"), sub);
		answer_error(c, what, status, a, err, errlen);
		return -1;
	}
	return 0;
}

int lava_job_get(struct lava_conn *c, long long id, struct lava_job *j, char *err,
		 size_t errlen)
{
	struct strbuf a = STRBUF_INIT;
	int ret = job_get(c, id, "", &a, err, errlen);
	if (!ret)
		ret = lava_job_parse(a.buf ? a.buf : "", a.len, j, err, errlen);
	if (!ret && j->id != id) {
		snprintf(err, errlen, "LAVA at %s answered for job %lld when asked for %lld",
			 c->lab->url, j->id, id);
		ret = -1;
	}
	sb_release(&a);
	return ret;
}

int lava_job_log(struct lava_conn *c, long long id, struct strbuf *out, char *err,
		 size_t errlen)
{
	return job_get(c, id, "logs/", out, err, errlen);
}

int lava_devices(struct lava_conn *c, const char *device_type, struct lava_device *d, int max,
		 int *n, char *err, size_t errlen)
{
	struct strbuf a = STRBUF_INIT;
	char path[160];
	long status;
	int ret = -1;
	/* device_type is a LAVA name (lab.c checked it): nothing to escape */
	snprintf(path, sizeof(path), "api/v0.2/devices/?limit=500%s%s",
		 *device_type ? "&device_type=" : "", device_type);
	if (lava_request(c, "GET", path, NULL, &a, &status, err, errlen))
		goto out;
	if (status != 200) {
		answer_error(c, "devices", status, &a, err, errlen);
		goto out;
	}
	ret = lava_devices_parse(a.buf ? a.buf : "", a.len, d, max, n, err, errlen);
	if (ret || !lava_tags_pending(d, *n))
		goto out;
	ret = -1;
	sb_reset(&a);
	if (lava_request(c, "GET", "api/v0.2/tags/?limit=1000", NULL, &a, &status, err, errlen))
		goto out;
	if (status != 200) {
		answer_error(c, "tags", status, &a, err, errlen);
		goto out;
	}
	ret = lava_tags_resolve(a.buf ? a.buf : "", a.len, d, *n, err, errlen);
out:
	sb_release(&a);
	return ret;
}

int lava_jobs_ahead(struct lava_conn *c, long long job, const char *device_type, long *ahead,
		    char *err, size_t errlen)
{
	struct strbuf a = STRBUF_INIT;
	char path[256];
	long status;
	int ret = -1;
	/* device_type is a LAVA name (lab.c checked it): nothing to escape */
	snprintf(path, sizeof(path), "api/v0.2/jobs/?state=Submitted&id__lt=%lld&limit=1%s%s", job,
		 *device_type ? "&requested_device_type=" : "", device_type);
	if (lava_request(c, "GET", path, NULL, &a, &status, err, errlen))
		goto out;
	if (status != 200) {
		answer_error(c, "jobs", status, &a, err, errlen);
		goto out;
	}
	ret = lava_count_parse(a.buf ? a.buf : "", a.len, ahead, err, errlen);
out:
	sb_release(&a);
	return ret;
}

int lava_job_cancel(struct lava_conn *c, long long id, char *err, size_t errlen)
{
	struct strbuf a = STRBUF_INIT;
	/* LAVA 2023.01: GET .../cancel/ (POST is 405) */
	int ret = job_get(c, id, "cancel/", &a, err, errlen);
	sb_release(&a);
	return ret;
}

int lava_publish(const struct lab *l, const char *path, const char *kind, char *url,
		 size_t urllen, int *copied)
{
	char hex[65], name[128], dst[KB_PATH_MAX], tmp[KB_PATH_MAX];
	struct stat src_st, dst_st;
	*copied = 0;
	if (stat(path, &src_st) || !S_ISREG(src_st.st_mode))
		return error("lab '%s': cannot publish '%s': not a file", l->name, path);
	if (sha256_file_hex(path, hex))
		return error("lab '%s': cannot read '%s' to publish it", l->name, path);
	snprintf(name, sizeof(name), "%s-%.24s", kind, hex);
	snprintf(dst, sizeof(dst), "%s/%s", l->artifacts, name);
	snprintf(url, urllen, "%s%s", l->artifacts_url, name);
	if (mkdir(l->artifacts, 0755) && errno != EEXIST)
		return error("lab '%s': cannot make the artifact directory '%s': %s", l->name,
			     l->artifacts, strerror(errno));
	/* the name is the content's: the same size there is the same file */
	if (!stat(dst, &dst_st) && S_ISREG(dst_st.st_mode) && dst_st.st_size == src_st.st_size)
		return 0;
	snprintf(tmp, sizeof(tmp), "%s/.%s.%ld.tmp", l->artifacts, name, (long)getpid());
	if (copy_file(path, tmp, 0644) || rename(tmp, dst)) {
		unlink(tmp);
		return error("lab '%s': cannot publish '%s' as '%s'", l->name, path, dst);
	}
	*copied = 1;
	return 0;
}
