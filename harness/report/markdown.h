/* markdown.h - text into the Markdown summaries (kbench regress's
 * regress.md, kbench nightly's summary.md): names and values that come
 * from results files are untrusted, so they go in through here. */
#ifndef KBENCH_MARKDOWN_H
#define KBENCH_MARKDOWN_H

#include "core/util.h"

/* S as one table cell or inline text: no pipes, no HTML, no newlines,
 * no backticks, no control characters. NULL adds nothing. */
void md_text(struct strbuf *sb, const char *s);
/* S as inline code: `S`, S through md_text. */
void md_code(struct strbuf *sb, const char *s);

#endif
