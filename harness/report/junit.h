/* junit.h - the one JUnit XML writer (kbench regress, its harness-error
 * file, and kbench nightly's files), in the Ant format Jenkins, GitLab and
 * GitHub test reporters read: <testsuites> holding one <testsuite> (name,
 * package, id, tests, failures, errors, skipped, time, timestamp without
 * zone, hostname), its <properties>, one <testcase> (classname, name,
 * time) per case with at most one <failure>, <error> or <skipped> (type
 * and message), then <system-out> and <system-err>.
 * tests/fixtures/junit/junit.xsd checks it. Every text is escaped. */
#ifndef KBENCH_JUNIT_H
#define KBENCH_JUNIT_H

#include <stddef.h>
#include "core/util.h"

struct junit_prop {
	const char *name, *value;   /* value NULL: "" */
};

struct junit_case {
	const char *classname, *name;
	const char *elem;           /* NULL (passed), "failure", "error" or "skipped" */
	const char *type, *message;
	const char *text;           /* the element's text; NULL: an empty element */
};

struct junit {
	const char *name;           /* <testsuites name> */
	const char *suite;          /* <testsuite name> */
	const char *timestamp;      /* ISO 8601; cut to 19 characters (no zone) */
	const char *hostname;       /* NULL or "": localhost */
	const struct junit_prop *props;
	size_t nprops;              /* 0: <properties/> */
	const struct junit_case *cases;
	size_t ncases;
	const char *out, *err;      /* <system-out>, <system-err>; NULL: empty element */
};

void junit_xml(const struct junit *j, struct strbuf *out);
/* junit_xml written to PATH (atomically); 0 or -1 after an error message. */
int junit_write(const struct junit *j, const char *path);

#endif
