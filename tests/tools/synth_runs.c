/* synth_runs.c - write a synthetic, valid results.json (tests/unit/synth.h)
 * for the integration tests of history, nightly and merge: fixtures of a
 * chosen host, variant and seed, optionally with one metric scaled (an
 * injected regression). Built as build/synth-runs by `make test`.
 *
 *   synth-runs OUT_DIR VARIANT RUN_ID SEED [--host H] [--iterations N]
 *              [--scale LABEL.METRIC=FACTOR] [--suite S]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/results.h"
#include "../unit/synth.h"

/* synth.h's quiet metrics, their means scaled by --scale */
static struct synth_metric m[SYNTH_NIGHTLY_N];

int main(int argc, char **argv)
{
	struct synth_opts o = { .iterations = 5 };
	char path[4096];
	gsl_rng *r;
	json_object *doc;
	memcpy(m, synth_nightly, sizeof(m));
	if (argc < 5) {
		fprintf(stderr, "usage: synth-runs OUT_DIR VARIANT RUN_ID SEED [--host H] "
			"[--iterations N] [--scale LABEL.METRIC=FACTOR] [--suite S]\n");
		return 2;
	}
	o.variant = argv[2];
	o.run_id = argv[3];
	for (int i = 5; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--host")) {
			o.host = argv[i + 1];
		} else if (!strcmp(argv[i], "--iterations")) {
			o.iterations = atoi(argv[i + 1]);
		} else if (!strcmp(argv[i], "--suite")) {
			o.suite = argv[i + 1];
		} else if (!strcmp(argv[i], "--scale")) {
			char *eq = strchr(argv[i + 1], '=');
			int hit = 0;
			for (size_t k = 0; eq && k < sizeof(m) / sizeof(m[0]); k++) {
				char name[256];
				snprintf(name, sizeof(name), "%s.%s", m[k].label, m[k].name);
				if (!strncmp(argv[i + 1], name, (size_t)(eq - argv[i + 1])) &&
				    strlen(name) == (size_t)(eq - argv[i + 1])) {
					m[k].mean *= atof(eq + 1);
					hit = 1;
				}
			}
			if (!hit) {
				fprintf(stderr, "synth-runs: no metric '%s'\n", argv[i + 1]);
				return 2;
			}
		} else {
			fprintf(stderr, "synth-runs: unknown option '%s'\n", argv[i]);
			return 2;
		}
	}
	r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, strtoul(argv[4], NULL, 10));
	doc = synth_doc(&o, m, sizeof(m) / sizeof(m[0]), r);
	if (mkdir_p(argv[1], 0755))
		return 2;
	snprintf(path, sizeof(path), "%s/results.json", argv[1]);
	if (results_save(doc, path))
		return 2;
	json_object_put(doc);
	gsl_rng_free(r);
	return 0;
}
