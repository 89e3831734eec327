/* util.c - owned buffers, errors and file helpers shared by kbench. */
#include "core/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <openssl/evp.h>

int kb_quiet;

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void info(const char *fmt, ...)
{
	va_list ap;
	if (kb_quiet)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("fatal: ", fmt, ap);
	va_end(ap);
	exit(KB_EXIT_USAGE);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);
	if (!p)
		die("out of memory");
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s ? s : "");
	if (!p)
		die("out of memory");
	return p;
}

static char *xvasprintf(const char *fmt, va_list ap)
{
	char *s;
	if (vasprintf(&s, fmt, ap) < 0)
		die("out of memory");
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

void strvec_push(struct strvec *sv, const char *s)
{
	if (sv->n + 2 > sv->alloc) {
		sv->alloc = sv->alloc ? sv->alloc * 2 : 8;
		sv->v = xrealloc(sv->v, sv->alloc * sizeof(*sv->v));
	}
	sv->v[sv->n++] = xstrdup(s);
	sv->v[sv->n] = NULL;
}

void strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	strvec_push(sv, s);
	free(s);
}

void strvec_clear(struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->alloc = 0;
}

static void sb_grow(struct strbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 > sb->alloc) {
		size_t want = sb->alloc ? sb->alloc : 64;
		while (want < sb->len + extra + 1)
			want *= 2;
		sb->buf = xrealloc(sb->buf, want);
		sb->alloc = want;
	}
}

void sb_add(struct strbuf *sb, const void *data, size_t len)
{
	sb_grow(sb, len);
	if (len)
		memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void sb_adds(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("out of memory");
	sb_add(sb, s, (size_t)n);
	free(s);
}

void sb_release(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
}

void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

int mkdir_p(const char *path, unsigned mode)
{
	char tmp[KB_PATH_MAX];
	size_t len = strlen(path);
	if (len == 0 || len >= sizeof(tmp))
		return error("bad directory path '%s'", path);
	memcpy(tmp, path, len + 1);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, mode) && errno != EEXIST)
			return error("cannot create directory '%s': %s", tmp, strerror(errno));
		*p = '/';
	}
	if (mkdir(tmp, mode) && errno != EEXIST)
		return error("cannot create directory '%s': %s", tmp, strerror(errno));
	return 0;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	if (remove(p) && errno != ENOENT)
		return error("cannot remove '%s': %s", p, strerror(errno));
	return 0;
}

int rm_rf(const char *path)
{
	struct stat st;
	if (lstat(path, &st))
		return errno == ENOENT ? 0 : error("cannot stat '%s': %s", path, strerror(errno));
	return nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS) ? -1 : 0;
}

/* read(2) of FD (file PATH), again after EINTR; < 0 after an error. */
static ssize_t read_chunk(int fd, void *buf, size_t len, const char *path)
{
	ssize_t n;
	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		error("cannot read '%s': %s", path, strerror(errno));
	return n;
}

void file_last_line(const char *path, char *buf, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	char *end, *p;
	snprintf(buf, len, "no output");
	if (read_file(path, &sb, 16 << 20) || !sb.buf)
		goto out;
	rtrim(sb.buf);
	end = sb.buf + strlen(sb.buf);
	for (p = end; p > sb.buf && p[-1] != '\n'; p--)
		;
	if (*p)
		snprintf(buf, len, "%s", p);
out:
	sb_release(&sb);
}

int read_file(const char *path, struct strbuf *out, size_t max)
{
	int ret = -1;
	char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return error("cannot open '%s': %s", path, strerror(errno));
	while ((n = read_chunk(fd, buf, sizeof(buf), path)) > 0) {
		if (max && out->len + (size_t)n > max) {
			error("'%s' is larger than %zu bytes", path, max);
			goto out;
		}
		sb_add(out, buf, (size_t)n);
	}
	ret = n < 0 ? -1 : 0;
out:
	close(fd);
	return ret;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Make a rename into PATH's directory durable: fsync the directory (a
 * file system that cannot sync directories, EINVAL, is not an error). */
static int fsync_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xasprintf("%.*s", slash == path ? 1 : (int)(slash - path), path)
			  : xasprintf(".");
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret = 0;
	if (fd < 0 || (fsync(fd) && errno != EINVAL))
		ret = error("cannot sync the directory '%s': %s", dir, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(dir);
	return ret;
}

int write_file_atomic(const char *path, const void *data, size_t len)
{
	int ret = -1;
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		error("cannot create '%s': %s", tmp, strerror(errno));
		goto out;
	}
	if (write_all(fd, data, len) || fsync(fd)) {
		error("cannot write '%s': %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		goto out;
	}
	if (close(fd) || rename(tmp, path)) {
		error("cannot write '%s': %s", path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	ret = fsync_parent(path);
out:
	free(tmp);
	return ret;
}

int copy_file(const char *src, const char *dst, unsigned mode)
{
	int ret = -1, in, out = -1;
	char buf[65536];
	ssize_t n;
	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return error("cannot open '%s': %s", src, strerror(errno));
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (out < 0) {
		error("cannot create '%s': %s", dst, strerror(errno));
		goto out;
	}
	while ((n = read_chunk(in, buf, sizeof(buf), src)) > 0) {
		if (write_all(out, buf, (size_t)n)) {
			error("cannot write '%s': %s", dst, strerror(errno));
			goto out;
		}
	}
	ret = n < 0 ? -1 : 0;
out:
	close(in);
	if (out >= 0 && close(out) && !ret)
		ret = error("cannot write '%s': %s", dst, strerror(errno));
	return ret;
}

int dir_find(const char *dir, const char *contains, char *out, size_t n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	out[0] = '\0';
	while (d && (e = readdir(d)))
		if (contains ? !!strstr(e->d_name, contains) : e->d_name[0] != '.')
			snprintf(out, n, "%s/%s", dir, e->d_name);
	if (d)
		closedir(d);
	return out[0] ? 0 : 1;
}

int path_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

int is_executable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *which(const char *prog)
{
	const char *path = getenv("PATH");
	char *dup, *save = NULL, *res = NULL;
	if (strchr(prog, '/'))
		return is_executable(prog) ? xstrdup(prog) : NULL;
	dup = xstrdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin");
	for (char *d = strtok_r(dup, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char *cand = xasprintf("%s/%s", d, prog);
		if (is_executable(cand)) {
			res = cand;
			break;
		}
		free(cand);
	}
	/* root's PATH may lack sbin on some setups: look there too */
	if (!res) {
		static const char *const extra[] = { "/usr/sbin", "/sbin", NULL };
		for (int i = 0; extra[i] && !res; i++) {
			char *cand = xasprintf("%s/%s", extra[i], prog);
			if (is_executable(cand))
				res = cand;
			else
				free(cand);
		}
	}
	free(dup);
	return res;
}

int lock_file(const char *dir, const char *name, const char *what)
{
	char path[KB_PATH_MAX];
	int fd;
	if (mkdir_p(dir, 0755))
		return -1;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return error("cannot open lock '%s': %s", path, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		info("kbench: waiting for another kbench (%s)...", what);
		if (flock(fd, LOCK_EX)) {
			close(fd);
			return error("cannot lock '%s': %s", path, strerror(errno));
		}
	}
	return fd;
}

double now_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void iso8601_now(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void sha256_hex(const void *data, size_t len, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	if (!EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL))
		die("sha256 failed");
	for (unsigned i = 0; i < mdlen && i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	out[64] = '\0';
}

int sha256_file_hex(const char *path, char out[65])
{
	int ret = -1;
	unsigned char buf[65536], md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	ssize_t n;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		error("cannot open '%s': %s", path, strerror(errno));
		goto out;
	}
	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
		die("sha256 init failed");
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			error("cannot read '%s': %s", path, strerror(errno));
			goto out;
		}
		EVP_DigestUpdate(ctx, buf, (size_t)n);
	}
	EVP_DigestFinal_ex(ctx, md, &mdlen);
	for (unsigned i = 0; i < mdlen && i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	out[64] = '\0';
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	EVP_MD_CTX_free(ctx);
	return ret;
}

void rtrim(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

int path_has_control(const char *path)
{
	for (const unsigned char *c = (const unsigned char *)path; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return 1;
	return 0;
}

const char *cache_root(void)
{
	static char path[KB_PATH_MAX];
	const char *e = getenv("KBENCH_CACHE");
	if (path[0])
		return path;
	if (e && *e)
		snprintf(path, sizeof(path), "%s", e);
	else if ((e = getenv("XDG_CACHE_HOME")) && *e)
		snprintf(path, sizeof(path), "%s/kbench", e);
	else
		snprintf(path, sizeof(path), "%s/.cache/kbench",
			 getenv("HOME") ? getenv("HOME") : "/root");
	/* Leave room below KB_PATH_MAX for the entries kbench makes inside. */
	if (strlen(path) > 1024)
		die("cache directory path is longer than 1024 characters: '%.60s...'", path);
	/* its paths go to QEMU, which cannot take these (qemu_path_ok) */
	if (path_has_control(path))
		die("cache directory '%s' (KBENCH_CACHE, XDG_CACHE_HOME or HOME) has a newline or "
		    "another control character: QEMU cannot take such a path", path);
	return path;
}

char *file_tail(const char *path, int lines)
{
	struct strbuf sb = STRBUF_INIT, out = STRBUF_INIT;
	size_t start;
	int seen = 0;
	if (read_file(path, &sb, 0) < 0) {
		sb_release(&sb);
		return xstrdup("");
	}
	start = sb.len;
	while (start > 0) {
		if (sb.buf[start - 1] == '\n' && start != sb.len && ++seen >= lines)
			break;
		start--;
	}
	/* Keep printable text only: consoles carry escape codes and junk. */
	for (size_t i = start; i < sb.len; i++) {
		unsigned char c = (unsigned char)sb.buf[i];
		if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f))
			sb_add(&out, &sb.buf[i], 1);
	}
	sb_release(&sb);
	if (!out.buf)
		return xstrdup("");
	return out.buf;
}

int parse_int_opt(const char *opt, const char *s, int min, int max, int *out)
{
	char *end;
	long v;
	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < min || v > max)
		return error("%s expects an integer in %d..%d, got '%s'", opt, min, max, s);
	*out = (int)v;
	return 0;
}

int parse_u32_opt(const char *opt, const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (!*s || *end || errno || v > 0xffffffffull || *s == '-')
		return error("%s expects an integer in 0..4294967295, got '%s'", opt, s);
	*out = (uint32_t)v;
	return 0;
}

int sb_write_atomic(const char *path, struct strbuf *sb)
{
	int ret = write_file_atomic(path, sb->buf ? sb->buf : "", sb->len);
	sb_release(sb);
	return ret;
}
