/* metric.c - metric sets returned by workload parsers. */
#include "core/metric.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void metric_set_add(struct metric_set *ms, const char *name, const char *unit,
		    enum better better, double value)
{
	if (ms->n == ms->alloc) {
		ms->alloc = ms->alloc ? ms->alloc * 2 : 8;
		ms->v = xrealloc(ms->v, ms->alloc * sizeof(*ms->v));
	}
	ms->v[ms->n].name = xstrdup(name);
	ms->v[ms->n].unit = xstrdup(unit);
	ms->v[ms->n].better = better;
	ms->v[ms->n].value = value;
	ms->n++;
}

const struct metric *metric_set_get(const struct metric_set *ms, const char *name)
{
	for (size_t i = 0; i < ms->n; i++)
		if (!strcmp(ms->v[i].name, name))
			return &ms->v[i];
	return NULL;
}

void metric_set_release(struct metric_set *ms)
{
	for (size_t i = 0; i < ms->n; i++) {
		free(ms->v[i].name);
		free(ms->v[i].unit);
	}
	free(ms->v);
	if (ms->extra)
		json_object_put(ms->extra);
	ms->v = NULL;
	ms->n = ms->alloc = 0;
	ms->extra = NULL;
}

int parse_fail(struct parse_error *err, int line, const char *fmt, ...)
{
	va_list ap;
	err->line = line;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}
