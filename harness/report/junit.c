/* junit.c - the one JUnit XML writer (junit.h). */
#include "report/junit.h"
#include "report/report.h"

#include <string.h>

static void attr(struct strbuf *sb, const char *name, const char *value)
{
	sb_addf(sb, " %s=\"", name);
	report_escape(sb, value ? value : "");
	sb_adds(sb, "\"");
}

static void junit_case(struct strbuf *sb, const struct junit_case *k)
{
	sb_adds(sb, "    <testcase");
	attr(sb, "classname", k->classname);
	attr(sb, "name", k->name);
	sb_adds(sb, " time=\"0\"");
	if (!k->elem) {
		sb_adds(sb, "/>\n");
		return;
	}
	sb_addf(sb, ">\n      <%s", k->elem);
	attr(sb, "type", k->type);
	attr(sb, "message", k->message);
	if (k->text) {
		sb_adds(sb, ">");
		report_escape(sb, k->text);
		sb_addf(sb, "</%s>\n    </testcase>\n", k->elem);
	} else {
		sb_adds(sb, "/>\n    </testcase>\n");
	}
}

static void text_elem(struct strbuf *sb, const char *elem, const char *text)
{
	if (!text) {
		sb_addf(sb, "    <%s/>\n", elem);
		return;
	}
	sb_addf(sb, "    <%s>", elem);
	report_escape(sb, text);
	sb_addf(sb, "</%s>\n", elem);
}

void junit_xml(const struct junit *j, struct strbuf *out)
{
	int failures = 0, errors = 0, skipped = 0;
	char ts[20];
	for (size_t i = 0; i < j->ncases; i++) {
		const char *e = j->cases[i].elem;
		failures += e && !strcmp(e, "failure");
		errors += e && !strcmp(e, "error");
		skipped += e && !strcmp(e, "skipped");
	}
	snprintf(ts, sizeof(ts), "%.19s", j->timestamp ? j->timestamp : "");
	sb_adds(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
	attr(out, "name", j->name);
	sb_addf(out, " tests=\"%zu\" failures=\"%d\" errors=\"%d\" time=\"0\">\n", j->ncases, failures,
		errors);
	sb_adds(out, "  <testsuite");
	attr(out, "name", j->suite);
	attr(out, "package", "kbench");
	sb_addf(out, " id=\"0\" tests=\"%zu\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"0\"",
		j->ncases, failures, errors, skipped);
	attr(out, "timestamp", ts);
	attr(out, "hostname", j->hostname && *j->hostname ? j->hostname : "localhost");
	if (!j->nprops) {
		sb_adds(out, ">\n    <properties/>\n");
	} else {
		sb_adds(out, ">\n    <properties>\n");
		for (size_t i = 0; i < j->nprops; i++) {
			sb_adds(out, "      <property");
			attr(out, "name", j->props[i].name);
			attr(out, "value", j->props[i].value);
			sb_adds(out, "/>\n");
		}
		sb_adds(out, "    </properties>\n");
	}
	for (size_t i = 0; i < j->ncases; i++)
		junit_case(out, &j->cases[i]);
	text_elem(out, "system-out", j->out);
	text_elem(out, "system-err", j->err);
	sb_adds(out, "  </testsuite>\n</testsuites>\n");
}

int junit_write(const struct junit *j, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	junit_xml(j, &sb);
	return sb_write_atomic(path, &sb);
}
