/* backend.c - the registry of backends and what every backend shares:
 * its parameters by option name, its logs. */
#include "backend/backend.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One line per backend; a second backend is a file and a line here. */
static const struct backend_ops *const backends[] = {
	&qemu_backend,
	&local_backend,
	&ssh_backend,
	&lava_backend,
	NULL,
};

const struct backend_ops *const *backend_all(void)
{
	return backends;
}

const struct backend_ops *backend_find(const char *name)
{
	if (!name)
		name = "qemu";
	for (size_t i = 0; backends[i]; i++)
		if (!strcmp(backends[i]->name, name))
			return backends[i];
	return NULL;
}

void backend_names(char *out, size_t len)
{
	size_t off = 0;
	if (len)
		out[0] = '\0';
	for (size_t i = 0; backends[i] && off < len; i++)
		off += (size_t)snprintf(out + off, len - off, "%s%s", i ? ", " : "",
					backends[i]->name);
}

const struct backend_ops *backend_lookup(const char *name)
{
	const struct backend_ops *b = backend_find(name);
	char names[256];
	if (b)
		return b;
	backend_names(names, sizeof(names));
	error("--backend: no backend called '%s' (known: %s)", name, names);
	return NULL;
}

void *backend_params_new(const struct backend_ops *b)
{
	void *p = xmalloc(b->params_size ? b->params_size : 1);
	if (b->params_size)
		memcpy(p, b->defaults, b->params_size);
	return p;
}

int backend_param_set(const struct backend_ops *b, void *params, const char *name,
		      const char *value)
{
	const struct opt_def *d = b->opts ? opt_find(b->opts, name) : NULL;
	char err[256];
	if (!d)
		return error("backend '%s' has no option %s", b->name, name);
	if (opt_set(params, d, value, err, sizeof(err)))
		return error("backend '%s' option %s: %s", b->name, name, err);
	return 0;
}

int backend_has_param(const struct backend_ops *b, const char *name)
{
	return b->opts && opt_find(b->opts, name);
}

json_object *backend_params_json(const struct backend_ops *b, const void *params)
{
	return b->opts ? opts_to_json(params, b->opts) : json_object_new_object();
}

int backend_logs_move(const struct backend_ops *b, const char *from, const char *to)
{
	int ret = 0;
	if (rename(from, to)) {
		warning("cannot keep the console log '%s' as '%s': %s", from, to, strerror(errno));
		ret = -1;
	}
	if (b->side_log && *b->side_log) {
		char *sf = xasprintf("%s%s", from, b->side_log);
		char *st = xasprintf("%s%s", to, b->side_log);
		if (path_exists(sf) && rename(sf, st)) {
			warning("cannot keep the %s log '%s' as '%s': %s", b->name, sf, st,
				strerror(errno));
			ret = -1;
		}
		free(sf);
		free(st);
	}
	return ret;
}
