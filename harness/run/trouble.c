/* trouble.c - scan guest console logs for kernel trouble.
 *
 * The patterns are the kernel's own report headers (printk formats in
 * kernel/panic.c, lib/bug.c, kernel/locking/lockdep.c, kernel/hung_task.c,
 * kernel/rcu/tree_stall.h, kernel/watchdog.c, arch/x86/mm/fault.c). A line
 * may carry a "[   12.345678] " timestamp and any junk before the header:
 * the console is untrusted and serial lines interleave. Written by hand:
 * a fixed list of substrings needs no regex library.
 */
#include "run/trouble.h"
#include "core/util.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* First match wins: specific kinds before the generic BUG/WARNING. */
static const struct {
	const char *needle;
	const char *kind;
} patterns[] = {
	{ "Kernel panic - not syncing", "panic" },
	{ "possible circular locking dependency detected", "lockdep" },
	{ "possible recursive locking detected", "lockdep" },
	{ "inconsistent lock state", "lockdep" },
	{ "possible irq lock inversion dependency detected", "lockdep" },
	{ "suspicious RCU usage", "lockdep" },
	{ "bad unlock balance detected", "lockdep" },
	{ "held lock freed", "lockdep" },
	{ "lock held when returning to user space", "lockdep" },
	{ "DEBUG_LOCKS_WARN_ON", "lockdep" },
	{ "BUG: scheduling while atomic", "scheduling-while-atomic" },
	{ "BUG: sleeping function called from invalid context", "sleeping-in-atomic" },
	{ "BUG: soft lockup", "soft-lockup" },
	{ "Watchdog detected hard LOCKUP", "hard-lockup" },
	{ "blocked for more than", "hung-task" },
	{ "rcu_preempt detected stalls", "rcu-stall" },
	{ "rcu_sched detected stalls", "rcu-stall" },
	{ "self-detected stall on CPU", "rcu-stall" },
	{ "detected expedited stalls", "rcu-stall" },
	{ "Oops:", "oops" },
	{ "general protection fault", "oops" },
	{ "BUG: ", "bug" },
	{ "kernel BUG at", "bug" },
	{ "UBSAN:", "ubsan" },
	{ "KASAN:", "kasan" },
	{ "WARNING: ", "warning" },
	{ "------------[ cut here ]------------", "warning" },
};

/* A line as printable text for the excerpt: control bytes become '?'. */
static void add_clean(struct strbuf *sb, const char *s, size_t len)
{
	char buf[256];
	size_t n = len < sizeof(buf) - 1 ? len : sizeof(buf) - 1;
	for (size_t i = 0; i < n; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	buf[n] = '\0';
	sb_addf(sb, "%s%s\n", buf, n < len ? "..." : "");
}

/* memmem bounded to one line. */
static int line_has(const char *s, size_t len, const char *needle)
{
	return memmem(s, len, needle, strlen(needle)) != NULL;
}

json_object *trouble_scan(const char *buf, size_t len)
{
	json_object *out = NULL;
	const char *p = buf, *end = buf + len;
	int lineno = 0, found = 0, cut_here = 0;

	while (p < end && found < TROUBLE_MAX) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *kind = NULL;
		lineno++;
		for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++)
			if (line_has(p, ll, patterns[i].needle)) {
				kind = patterns[i].kind;
				break;
			}
		/* "[ cut here ]" opens a WARNING or BUG whose own line follows:
		 * report that line, not the rule */
		if (kind && line_has(p, ll, "[ cut here ]")) {
			cut_here = 1;
			kind = NULL;
		} else if (cut_here && !kind) {
			kind = "warning";
		}
		if (kind) {
			struct strbuf ex = STRBUF_INIT;
			json_object *f = json_object_new_object();
			const char *q = p;
			cut_here = 0;
			for (int k = 0; k < TROUBLE_EXCERPT_LINES && q < end; k++) {
				const char *qn = memchr(q, '\n', (size_t)(end - q));
				size_t ql = qn ? (size_t)(qn - q) : (size_t)(end - q);
				add_clean(&ex, q, ql);
				q = qn ? qn + 1 : end;
			}
			if (!out)
				out = json_object_new_array();
			json_object_object_add(f, "kind", json_object_new_string(kind));
			json_object_object_add(f, "line", json_object_new_int(lineno));
			json_object_object_add(f, "excerpt", json_object_new_string(ex.buf ? ex.buf : ""));
			json_object_array_add(out, f);
			sb_release(&ex);
			found++;
			/* one report, one finding: skip the rest of its excerpt
			 * unless another report header starts inside it */
		}
		p = nl ? nl + 1 : end;
	}
	return out;
}

json_object *trouble_scan_file(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	json_object *r = NULL;
	char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	/* a console flood beyond 64 MiB: scan its start */
	while (sb.len < (64u << 20) && (n = read(fd, buf, sizeof(buf))) > 0)
		sb_add(&sb, buf, (size_t)n);
	close(fd);
	if (sb.buf)
		r = trouble_scan(sb.buf, sb.len);
	sb_release(&sb);
	return r;
}

int trouble_explain(json_object *findings, const char *match, const char *cause)
{
	int n = 0;
	if (!findings || !match || !*match || !cause)
		return 0;
	for (size_t i = 0; i < json_object_array_length(findings); i++) {
		json_object *f = json_object_array_get_idx(findings, i);
		const char *ex = json_object_get_string(json_object_object_get(f, "excerpt"));
		const char *nl = ex ? strchr(ex, '\n') : NULL;
		/* the finding's own line, not the lines of excerpt after it */
		if (ex && memmem(ex, nl ? (size_t)(nl - ex) : strlen(ex), match, strlen(match))) {
			json_object_object_add(f, "cause", json_object_new_string(cause));
			n++;
		}
	}
	return n;
}

void trouble_kinds(json_object *findings, char *out, size_t outlen)
{
	size_t n = findings ? json_object_array_length(findings) : 0, used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const char *k = json_object_get_string(
			json_object_object_get(json_object_array_get_idx(findings, i), "kind"));
		int seen = 0;
		for (size_t j = 0; j < i; j++)
			seen |= !strcmp(k, json_object_get_string(json_object_object_get(
				json_object_array_get_idx(findings, j), "kind")));
		if (seen || !k)
			continue;
		used += (size_t)snprintf(out + used, used < outlen ? outlen - used : 0, "%s%s",
					 used ? ", " : "", k);
		if (used >= outlen)
			break;
	}
}
