/* markdown.c - untrusted text into Markdown (markdown.h). */
#include "report/markdown.h"

void md_text(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			sb_adds(sb, "\\|");
		else if (*s == '<')
			sb_adds(sb, "&lt;");
		else if (*s == '>')
			sb_adds(sb, "&gt;");
		else if (*s == '&')
			sb_adds(sb, "&amp;");
		else if (*s == '\n' || *s == '\r' || *s == '`')
			sb_adds(sb, " ");
		else if ((unsigned char)*s >= 0x20)
			sb_add(sb, s, 1);
	}
}

void md_code(struct strbuf *sb, const char *s)
{
	sb_adds(sb, "`");
	md_text(sb, s);
	sb_adds(sb, "`");
}
