/* util.h - small owned-buffer helpers, errors and files shared by kbench.
 *
 * Conventions (after git's strbuf/usage): functions return 0 on success and
 * -1 on error after printing "error: ..." to stderr; die() only in main.
 */
#ifndef KBENCH_UTIL_H
#define KBENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

/* Exit codes of kbench (stress-ng style taxonomy). */
enum kb_exit {
	KB_EXIT_OK = 0,      /* everything ran and passed */
	KB_EXIT_FAILED = 1,  /* ran, but an iteration failed / regression */
	KB_EXIT_USAGE = 2,   /* bad input, missing dependency, harness error */
	KB_EXIT_NOISY = 3,   /* data too noisy to decide */
};

#define KB_PATH_MAX 4096

/* The Makefile passes these; the fallbacks keep other builds working. */
#ifndef KB_VERSION
#define KB_VERSION "0.0.0"
#endif
#ifndef KB_GIT_COMMIT
#define KB_GIT_COMMIT "unknown"
#endif

__attribute__((format(printf, 1, 2))) int error(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void warning(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void info(const char *fmt, ...);
__attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...);

/* Silence info() output (tests). */
extern int kb_quiet;

/* A growable NULL-terminated vector of owned strings (argv, env). */
struct strvec {
	char **v;
	size_t n, alloc;
};
#define STRVEC_INIT { NULL, 0, 0 }
void strvec_push(struct strvec *sv, const char *s);
__attribute__((format(printf, 2, 3))) void strvec_pushf(struct strvec *sv, const char *fmt, ...);
void strvec_clear(struct strvec *sv);

/* A growable byte buffer, always NUL-terminated. */
struct strbuf {
	char *buf;
	size_t len, alloc;
};
#define STRBUF_INIT { NULL, 0, 0 }
void sb_add(struct strbuf *sb, const void *data, size_t len);
void sb_adds(struct strbuf *sb, const char *s);
__attribute__((format(printf, 2, 3))) void sb_addf(struct strbuf *sb, const char *fmt, ...);
void sb_release(struct strbuf *sb);
void sb_reset(struct strbuf *sb);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t sz);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
__attribute__((format(printf, 1, 2))) char *xasprintf(const char *fmt, ...);

/* Files. */
int mkdir_p(const char *path, unsigned mode);
int rm_rf(const char *path);
int read_file(const char *path, struct strbuf *out, size_t max);
/* The last non-empty line of the file PATH (a log) into BUF, or "no output". */
void file_last_line(const char *path, char *buf, size_t len);
/* Write via PATH.tmp.PID, fsync, rename and fsync the directory, so
 * readers never see half a file and the new name survives a crash. */
int write_file_atomic(const char *path, const void *data, size_t len);
/* Write SB's bytes to PATH as write_file_atomic does, then release SB. */
int sb_write_atomic(const char *path, struct strbuf *sb);
int copy_file(const char *src, const char *dst, unsigned mode);
int path_exists(const char *path);
/* The last entry of DIR (readdir order) whose name holds CONTAINS, or
 * with CONTAINS NULL any not starting with '.': DIR/name into OUT, 0; 1
 * if none (OUT empty). */
int dir_find(const char *dir, const char *contains, char *out, size_t n);
int is_executable(const char *path);
/* Search PATH for an executable; returns malloc'd path or NULL. */
char *which(const char *prog);

/* Take an exclusive flock on DIR/NAME (created, with DIR, if missing),
 * saying "waiting for another kbench (WHAT)" if it must wait. Returns the
 * fd to close to release it, or -1. */
int lock_file(const char *dir, const char *name, const char *what);

/* Time. */
double now_mono(void);      /* seconds, CLOCK_MONOTONIC */
void iso8601_now(char *buf, size_t n);

/* SHA-256 of a file or buffer, hex (OpenSSL's libcrypto). */
void sha256_hex(const void *data, size_t len, char out[65]);
int sha256_file_hex(const char *path, char out[65]);

/* Strip trailing whitespace in place. */
void rtrim(char *s);

/* Return the cache root: $KBENCH_CACHE, $XDG_CACHE_HOME/kbench or ~/.cache/kbench. */
const char *cache_root(void);
/* 1 if PATH has a newline or another control character (QEMU cannot take
 * it as a file name), else 0. */
int path_has_control(const char *path);

/* Last `lines` lines of a file, for failure excerpts (printable ASCII only). */
char *file_tail(const char *path, int lines);
/* Command-line numbers: "OPT expects an integer in MIN..MAX, got 'S'"
 * (via error()) and -1 on anything but a whole decimal number in range. */
int parse_int_opt(const char *opt, const char *s, int min, int max, int *out);
int parse_u32_opt(const char *opt, const char *s, uint32_t *out);

#endif
