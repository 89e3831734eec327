/* lava_job.c - LAVA job definitions from a lab's template (lava_api.h),
 * built as a libyaml document: values are set as nodes, never pasted into
 * YAML text, so no URL, name or step can change the document's shape. */
#include "backend/lava_api.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static int add_str(yaml_document_t *d, const char *s)
{
	return yaml_document_add_scalar(d, NULL, (yaml_char_t *)s, (int)strlen(s),
					YAML_ANY_SCALAR_STYLE);
}

static int scalar_is(yaml_document_t *d, int id, const char *s)
{
	yaml_node_t *n = yaml_document_get_node(d, id);
	return n && n->type == YAML_SCALAR_NODE && n->data.scalar.length == strlen(s) &&
	       !memcmp(n->data.scalar.value, s, strlen(s));
}

/* The value node of KEY in mapping MAP, or 0. */
static int map_get(yaml_document_t *d, int map, const char *key)
{
	yaml_node_t *m = yaml_document_get_node(d, map);
	if (!m || m->type != YAML_MAPPING_NODE)
		return 0;
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++)
		if (scalar_is(d, p->key, key))
			return p->value;
	return 0;
}

/* KEY of mapping MAP set to node VALUE (the old value is left unreferenced). */
static int map_set(yaml_document_t *d, int map, const char *key, int value)
{
	yaml_node_t *m = yaml_document_get_node(d, map);
	if (!value || !m || m->type != YAML_MAPPING_NODE)
		return -1;
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++)
		if (scalar_is(d, p->key, key)) {
			p->value = value;
			return 0;
		}
	return yaml_document_append_mapping_pair(d, map, add_str(d, key), value) ? 0 : -1;
}

static int new_map(yaml_document_t *d)
{
	return yaml_document_add_mapping(d, NULL, YAML_BLOCK_MAPPING_STYLE);
}

/* {seconds: S} */
static int timeout_node(yaml_document_t *d, int seconds)
{
	char buf[32];
	int m = new_map(d);
	snprintf(buf, sizeof(buf), "%d", seconds);
	map_set(d, m, "seconds", yaml_document_add_scalar(d, NULL, (yaml_char_t *)buf,
							  (int)strlen(buf), YAML_PLAIN_SCALAR_STYLE));
	return m;
}

static int str_seq(yaml_document_t *d, const struct strvec *v)
{
	int s = yaml_document_add_sequence(d, NULL, YAML_BLOCK_SEQUENCE_STYLE);
	for (size_t i = 0; v && i < v->n; i++)
		yaml_document_append_sequence_item(d, s, add_str(d, v->v[i]));
	return s;
}

/* - test: {timeout, definitions: [an inline definition running STEPS]} */
static int test_action(yaml_document_t *d, const struct lava_job_spec *s)
{
	int action = new_map(d), test = new_map(d), def = new_map(d), repo = new_map(d);
	int meta = new_map(d), run = new_map(d);
	int defs = yaml_document_add_sequence(d, NULL, YAML_BLOCK_SEQUENCE_STYLE);
	map_set(d, meta, "format", add_str(d, "Lava-Test Test Definition 1.0"));
	map_set(d, meta, "name", add_str(d, "kbench"));
	map_set(d, meta, "description", add_str(d, "kbench suite run by its agent"));
	map_set(d, run, "steps", str_seq(d, &s->steps));
	map_set(d, repo, "metadata", meta);
	map_set(d, repo, "run", run);
	map_set(d, def, "from", add_str(d, "inline"));
	map_set(d, def, "name", add_str(d, "kbench"));
	map_set(d, def, "path", add_str(d, "inline/kbench.yaml"));
	map_set(d, def, "repository", repo);
	yaml_document_append_sequence_item(d, defs, def);
	map_set(d, test, "timeout", timeout_node(d, s->job_timeout_s));
	map_set(d, test, "definitions", defs);
	map_set(d, action, "test", test);
	return action;
}

/* Every scalar "@kernel@", "@initrd@", "@modules@" replaced by its URL;
 * -1 with ERR for one the spec leaves empty. */
static int fill_placeholders(yaml_document_t *d, const struct lava_job_spec *s, char *err,
			     size_t errlen)
{
	const char *names[] = { "@kernel@", "@initrd@", "@modules@" };
	const char *urls[] = { s->kernel_url, s->initrd_url, s->modules_url };
	for (yaml_node_t *n = d->nodes.start; n < d->nodes.top; n++) {
		if (n->type != YAML_SCALAR_NODE)
			continue;
		for (int i = 0; i < 3; i++) {
			size_t l = strlen(names[i]);
			if (n->data.scalar.length != l || memcmp(n->data.scalar.value, names[i], l))
				continue;
			if (!urls[i] || !*urls[i]) {
				snprintf(err, errlen, "job template: %s, but kbench has no such "
					 "artifact for this job", names[i]);
				return -1;
			}
			free(n->data.scalar.value);
			n->data.scalar.value = (yaml_char_t *)strdup(urls[i]);
			n->data.scalar.length = strlen(urls[i]);
			n->data.scalar.style = YAML_ANY_SCALAR_STYLE;
		}
	}
	return 0;
}

int lava_cmdline_ok(const char *cmdline)
{
	for (const char *c = cmdline; c && *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || strchr(" ._,=:/+-", *c)))
			return 0;
	return 1;
}

/* "@cmdline@" inside scalars replaced by the spec's command line; -1 with ERR
 * for a command line that cannot go there or has no place to go. */
static int fill_cmdline(yaml_document_t *d, const struct lava_job_spec *s, char *err,
			size_t errlen)
{
	static const char ph[] = "@cmdline@";
	const char *cl = s->cmdline ? s->cmdline : "";
	int found = 0;
	if (!lava_cmdline_ok(cl)) {
		snprintf(err, errlen, "the kernel command line has a character LAVA's template "
			 "cannot carry (letters, digits, space and . _ , = : / + - only)");
		return -1;
	}
	for (yaml_node_t *n = d->nodes.start; n < d->nodes.top; n++) {
		struct strbuf sb = STRBUF_INIT;
		const char *v, *at;
		if (n->type != YAML_SCALAR_NODE)
			continue;
		v = (const char *)n->data.scalar.value;
		if (strlen(v) != n->data.scalar.length || !(at = strstr(v, ph)))
			continue;
		for (; at; v = at + sizeof(ph) - 1, at = strstr(v, ph)) {
			sb_add(&sb, v, (size_t)(at - v));
			sb_adds(&sb, cl);
		}
		sb_adds(&sb, v);
		free(n->data.scalar.value);
		n->data.scalar.value = (yaml_char_t *)strdup(sb.buf);
		n->data.scalar.length = sb.len;
		n->data.scalar.style = YAML_ANY_SCALAR_STYLE;
		sb_release(&sb);
		found = 1;
	}
	if (!found && *cl) {
		snprintf(err, errlen, "job template: no @cmdline@ where the kernel command line "
			 "goes, and this boot needs '%s'", cl);
		return -1;
	}
	return 0;
}

/* The spec set on document D (its root a mapping with "actions"). */
static int job_fill(yaml_document_t *d, const struct lava_job_spec *s, char *err, size_t errlen)
{
	int root = 1, actions, timeouts;
	yaml_node_t *rn = yaml_document_get_root_node(d);
	if (!rn || rn->type != YAML_MAPPING_NODE || !(actions = map_get(d, root, "actions")) ||
	    yaml_document_get_node(d, actions)->type != YAML_SEQUENCE_NODE) {
		snprintf(err, errlen, "job template: expected a mapping with 'actions', a list "
			 "(the deploy and boot actions)");
		return -1;
	}
	if (fill_placeholders(d, s, err, errlen) || fill_cmdline(d, s, err, errlen))
		return -1;
	map_set(d, root, "job_name", add_str(d, s->name));
	if (s->device_type && *s->device_type)
		map_set(d, root, "device_type", add_str(d, s->device_type));
	if (!map_get(d, root, "device_type")) {
		snprintf(err, errlen, "job template: no device_type, and the lab names none");
		return -1;
	}
	if (s->tags && s->tags->n)
		map_set(d, root, "tags", str_seq(d, s->tags));
	if (!map_get(d, root, "visibility"))
		map_set(d, root, "visibility", add_str(d, "public"));
	if (!(timeouts = map_get(d, root, "timeouts")) ||
	    yaml_document_get_node(d, timeouts)->type != YAML_MAPPING_NODE)
		map_set(d, root, "timeouts", timeouts = new_map(d));
	map_set(d, timeouts, "job", timeout_node(d, s->job_timeout_s));
	yaml_document_append_sequence_item(d, actions, test_action(d, s));
	return 0;
}

static int emit(void *data, unsigned char *buf, size_t size)
{
	sb_add(data, buf, size);
	return 1;
}

int lava_job_yaml(const char *tmpl, size_t tlen, const struct lava_job_spec *s,
		  struct strbuf *out, char *err, size_t errlen)
{
	yaml_parser_t p;
	yaml_emitter_t e;
	yaml_document_t d;
	int ret = -1, loaded = 0;
	memset(&d, 0, sizeof(d));
	if (!yaml_parser_initialize(&p))
		return snprintf(err, errlen, "job template: out of memory"), -1;
	yaml_parser_set_input_string(&p, (const unsigned char *)tmpl, tlen);
	if (!yaml_parser_load(&p, &d)) {
		snprintf(err, errlen, "job template: not YAML (line %zu: %s)",
			 p.problem_mark.line + 1, p.problem ? p.problem : "parse error");
		goto out;
	}
	loaded = 1;
	if (job_fill(&d, s, err, errlen))
		goto out;
	if (!yaml_emitter_initialize(&e))
		goto out;
	yaml_emitter_set_output(&e, emit, out);
	yaml_emitter_set_unicode(&e, 1);
	loaded = 0; /* dump takes the document */
	if (!yaml_emitter_open(&e) || !yaml_emitter_dump(&e, &d) || !yaml_emitter_close(&e))
		snprintf(err, errlen, "job definition: cannot write YAML (%s)",
			 e.problem ? e.problem : "emitter error");
	else
		ret = 0;
	yaml_emitter_delete(&e);
out:
	if (loaded)
		yaml_document_delete(&d);
	yaml_parser_delete(&p);
	return ret;
}

/* A name or unit as LAVA's signal parser reads it whole: letters, digits
 * and . _ - / % kept, anything else '_', cut to LAVA's 100 characters. */
static void signal_word(struct strbuf *out, const char *s)
{
	size_t n = 0;
	for (; *s && n < 100; s++, n++) {
		int c = (unsigned char)*s;
		char k = (char)(((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				 (c >= '0' && c <= '9') || strchr("._-/%", c)) ? c : '_');
		sb_add(out, &k, 1);
	}
}

int lava_test_cases(json_object *workloads, struct strbuf *out)
{
	int n = 0;
	for (size_t i = 0; i < json_object_array_length(workloads); i++) {
		json_object *w = json_object_array_get_idx(workloads, i), *st, *m;
		const char *label = json_object_get_string(json_object_object_get(w, "label"));
		if (!label || !*label)
			continue;
		st = json_object_object_get(w, "status");
		m = json_object_object_get(w, "metrics");
		if (!st || strcmp(json_object_get_string(st), "ok") ||
		    !json_object_is_type(m, json_type_object)) {
			sb_adds(out, "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=");
			signal_word(out, label);
			sb_adds(out, " RESULT=fail>\n");
			n++;
			continue;
		}
		json_object_object_foreach(m, name, v) {
			json_object *val = json_object_object_get(v, "value");
			const char *unit = json_object_get_string(json_object_object_get(v, "unit"));
			double x = json_object_get_double(val);
			sb_adds(out, "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=");
			signal_word(out, label);
			sb_adds(out, ".");
			signal_word(out, name);
			sb_adds(out, " RESULT=pass");
			if (unit && *unit) {
				sb_adds(out, " UNITS=");
				signal_word(out, unit);
			}
			/* fixed point: LAVA keeps measurements as decimals */
			if (val && isfinite(x) && fabs(x) < 1e15)
				sb_addf(out, " MEASUREMENT=%.6f", x);
			sb_adds(out, ">\n");
			n++;
		}
	}
	return n;
}
