/* ids.c - make and check run, campaign and night ids (ids.h). */
#include "core/ids.h"
#include "core/util.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

void id_make(char *out, size_t len, ...)
{
	time_t t = time(NULL);
	struct tm tm;
	size_t n;
	va_list ap;
	gmtime_r(&t, &tm);
	if (!len)
		return;
	n = strftime(out, len, "%Y%m%dT%H%M%SZ", &tm);
	out[n] = 0;
	va_start(ap, len);
	for (const char *p = va_arg(ap, const char *); p; p = va_arg(ap, const char *)) {
		int w = snprintf(out + n, len - n, "-%s", p);
		if (w < 0 || (size_t)w >= len - n)
			break;
		n += (size_t)w;
	}
	va_end(ap);
}

int id_valid(const char *s)
{
	size_t n = 0;
	if (!s || !*s || *s == '.' || *s == '-')
		return 0;
	for (; s[n]; n++)
		if (n >= KB_ID_MAX || (!isalnum((unsigned char)s[n]) && !strchr("._-", s[n])))
			return 0;
	return 1;
}

int id_check(const char *what, const char *s)
{
	if (id_valid(s))
		return 0;
	return error("%s '%s' must be 1 to %d letters, digits, '.', '_' or '-' (not first: '.', '-')",
		     what, s ? s : "", KB_ID_MAX);
}
