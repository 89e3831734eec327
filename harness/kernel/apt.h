/* apt.h - download Debian packages without installing them. */
#ifndef KBENCH_APT_H
#define KBENCH_APT_H

#include "core/util.h"

/* Write the private configuration for RELEASE and return apt's -o options. */
int apt_setup(const char *release, struct strvec *opts);
/* Run apt-get/apt-cache (PROG) with OPTS and ARGS; output into OUT when
 * given. WHAT names the step in errors. */
int apt_run(const char *prog, const struct strvec *opts, const char *const *args,
	    const char *cwd, struct strbuf *out, const char *what);
/* From `apt-cache show PKG` take the first stanza's Version, and for a
 * linux-image metapackage the image package it depends on (else PKG). */
int apt_parse_show(const char *text, const char *pkg, char *real, size_t reallen,
		   char *version, size_t verlen);

/* apt-get update, then apt-cache show PKG parsed: the package meant and
 * its version. 0; -1 after an error; 1 if apt-cache printed no Version
 * (the caller says so, naming its step). */
int apt_lookup(const struct strvec *opts, const char *pkg, char *real, size_t reallen,
	       char *version, size_t verlen);

/* apt-get download SPEC ("PKG=VERSION") into DIR, made afresh (anything
 * there before is removed); SIZE ("150 MB") is said while it downloads.
 * 0, or -1 after an error. */
int apt_download(const struct strvec *opts, const char *spec, const char *dir, const char *size);

#endif
