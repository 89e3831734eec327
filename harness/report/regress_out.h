/* regress_out.h - `kbench regress`'s verdicts written for CI. */
#ifndef KBENCH_REGRESS_OUT_H
#define KBENCH_REGRESS_OUT_H

#include "core/util.h"
#include "stats/regress.h"

/* JUnit XML (Ant/Jenkins format; tests/fixtures/junit/junit.xsd). */
void regress_junit(const struct comparison *c, const struct regress *r, struct strbuf *out);
/* A short Markdown summary for a pull-request comment. */
void regress_markdown(const struct comparison *c, const struct regress *r, struct strbuf *out);

#endif
