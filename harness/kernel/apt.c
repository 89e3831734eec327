/* apt.c - Debian's packages through a private apt configuration.
 *
 * apt runs with its own sources list, lists and archive cache under
 * $CACHE/apt/<release> and no dpkg status, so the host's apt setup is not
 * touched and nothing is installed: kbench only downloads and unpacks.
 */
#include "kernel/apt.h"
#include "core/spawn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define APT_TIMEOUT_S 900.0

static const char *mirror(void)
{
	const char *m = getenv("KBENCH_MIRROR");
	return m && *m ? m : "http://deb.debian.org/debian";
}

/* Write the private sources list and return the -o options for apt. */
int apt_setup(const char *release, struct strvec *opts)
{
	char dir[KB_PATH_MAX], path[KB_PATH_MAX];
	char *list;
	int ret;

	snprintf(dir, sizeof(dir), "%s/apt/%s", cache_root(), release);
	snprintf(path, sizeof(path), "%s/lists/partial", dir);
	if (mkdir_p(path, 0755))
		return -1;
	snprintf(path, sizeof(path), "%s/cache/archives/partial", dir);
	if (mkdir_p(path, 0755))
		return -1;
	list = xasprintf("deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n"
			 "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n",
			 mirror(), release, mirror(), release);
	snprintf(path, sizeof(path), "%s/sources.list", dir);
	ret = write_file_atomic(path, list, strlen(list));
	free(list);
	if (ret)
		return -1;
	strvec_pushf(opts, "-oDir::Etc::SourceList=%s/sources.list", dir);
	strvec_push(opts, "-oDir::Etc::SourceParts=/dev/null");
	strvec_pushf(opts, "-oDir::State::Lists=%s/lists", dir);
	strvec_pushf(opts, "-oDir::Cache=%s/cache", dir);
	strvec_push(opts, "-oDir::State::status=/dev/null");
	strvec_push(opts, "-oAPT::Architecture=amd64");
	strvec_push(opts, "-oDebug::NoLocking=1");
	strvec_push(opts, "-oAPT::Sandbox::User=root");
	strvec_push(opts, "-oAcquire::Retries=3");
	return 0;
}

int apt_run(const char *prog, const struct strvec *opts, const char *const *args,
		   const char *cwd, struct strbuf *out, const char *what)
{
	struct child c = CHILD_INIT;
	int ret;
	strvec_push(&c.argv, prog);
	for (size_t i = 0; i < opts->n; i++)
		strvec_push(&c.argv, opts->v[i]);
	for (int i = 0; args[i]; i++)
		strvec_push(&c.argv, args[i]);
	c.cwd = cwd;
	/* on a terminal, let apt draw its own progress for downloads */
	c.capture = !(out == NULL && isatty(2) && !strcmp(what, "apt-get download"));
	c.timeout_s = APT_TIMEOUT_S;
	ret = child_run(&c);
	if (ret != 0) {
		error("%s failed (%s exit %d%s):\n%s", what, prog, ret,
		      c.timed_out ? ", timed out" : "", c.out.buf ? c.out.buf : "");
		ret = -1;
	} else if (out) {
		sb_add(out, c.out.buf ? c.out.buf : "", c.out.len);
	}
	child_release(&c);
	return ret;
}

/* From `apt-cache show PKG` output take the first stanza's Version and,
 * for a metapackage, the linux-image-* package it depends on. */
int apt_parse_show(const char *text, const char *pkg, char *real, size_t reallen,
		      char *version, size_t verlen)
{
	const char *p = text;
	int have_ver = 0;
	snprintf(real, reallen, "%s", pkg);
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		if (len == 0 && have_ver)
			break; /* end of first stanza */
		if (len > 9 && !strncmp(p, "Version: ", 9)) {
			snprintf(version, verlen, "%.*s", (int)(len - 9), p + 9);
			have_ver = 1;
		} else if (len > 9 && !strncmp(p, "Depends: ", 9)) {
			const char *d = strstr(p, "linux-image-");
			if (d && d < p + len && strncmp(pkg, "linux-image-6", 13)) {
				size_t n = strcspn(d, " ,(\n");
				snprintf(real, reallen, "%.*s", (int)n, d);
			}
		}
		p += len + (eol ? 1 : 0);
	}
	return have_ver ? 0 : -1;
}


int apt_lookup(const struct strvec *opts, const char *pkg, char *real, size_t reallen,
	       char *version, size_t verlen)
{
	const char *update[] = { "-q", "update", NULL }, *show_args[] = { "show", pkg, NULL };
	struct strbuf show = STRBUF_INIT;
	int ret = -1;
	if (apt_run("apt-get", opts, update, NULL, NULL, "apt-get update") ||
	    apt_run("apt-cache", opts, show_args, NULL, &show, "apt-cache show"))
		goto out;
	ret = apt_parse_show(show.buf ? show.buf : "", pkg, real, reallen, version, verlen) ? 1 : 0;
out:
	sb_release(&show);
	return ret;
}

int apt_download(const struct strvec *opts, const char *spec, const char *dir, const char *size)
{
	const char *args[] = { "-q", "download", spec, NULL };
	rm_rf(dir);
	if (mkdir_p(dir, 0755))
		return -1;
	info("kbench: downloading %s (about %s)...", spec, size);
	return apt_run("apt-get", opts, args, dir, NULL, "apt-get download");
}
