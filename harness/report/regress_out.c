/* regress_out.c - `kbench regress`'s verdicts (stats/regress.c) written
 * for CI: JUnit XML and a Markdown summary. */
#include "report/regress_out.h"
#include "report/junit.h"
#include "report/markdown.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The JUnit file (report/junit.h): one <testcase> per judged metric,
 * the comparison's settings as properties, each verdict in <system-out>
 * and the comparison's warnings in <system-err>. */
void regress_junit(const struct comparison *c, const struct regress *r, struct strbuf *out)
{
	static const char *const elem[] = { NULL, NULL, "failure", "skipped", "skipped", "error" };
	static const char *const type[] = { NULL, NULL, "regression", "too-noisy", "new-metric",
					    "harness-error" };
	size_t cur = c->base == 0 ? 1 : 0;
	const char *bv = cmp_group_str(c, c->base, "variant", "name"), *cv = cmp_group_str(c, cur, "variant", "name");
	char seed[32], exit_code[16], *title;
	const char *host = NULL;
	struct strbuf so = STRBUF_INIT, se = STRBUF_INIT;
	struct junit_case *k = xcalloc(r->n + 1, sizeof(*k));
	json_object *h;
	snprintf(seed, sizeof(seed), "%u", (unsigned)c->seed);
	snprintf(exit_code, sizeof(exit_code), "%d", r->exit_code);
	const struct junit_prop props[] = {
		{ "suite", c->suite },
		{ "accel", c->accel },
		{ "baseline.variant", bv },
		{ "baseline.package_version", cmp_group_str(c, c->base, "variant", "package_version") },
		{ "current.variant", cv },
		{ "current.package_version", cmp_group_str(c, cur, "variant", "package_version") },
		{ "bootstrap_seed", seed },
		{ "exit_code", exit_code },
	};
	if (c->in->n && json_object_object_get_ex(c->in->v[c->in->n - 1].doc, "host", &h)) {
		json_object *hn;
		if (json_object_object_get_ex(h, "hostname", &hn) && json_object_is_type(hn, json_type_string))
			host = json_object_get_string(hn);
	}
	title = xasprintf("kbench regress %s: %s against %s", c->suite, cv ? cv : "?", bv ? bv : "?");
	for (size_t i = 0; i < r->n; i++) {
		const struct regress_case *x = &r->v[i];
		k[i] = (struct junit_case){ x->classname, x->name, elem[x->status], type[x->status],
					    x->message, x->detail ? x->detail : x->message };
		sb_addf(&so, "%s: %s\n", regress_status_name(x->status), x->message);
	}
	for (size_t i = 0; i < c->warnings.n; i++)
		sb_addf(&se, "%s\n", c->warnings.v[i]);
	junit_xml(&(struct junit){ .name = "kbench regress", .suite = title, .timestamp = c->created,
				   .hostname = host, .props = props,
				   .nprops = sizeof(props) / sizeof(props[0]), .cases = k, .ncases = r->n,
				   .out = so.buf ? so.buf : "", .err = se.buf ? se.buf : "" }, out);
	free(title);
	free(k);
	sb_release(&so);
	sb_release(&se);
}

void regress_markdown(const struct comparison *c, const struct regress *r, struct strbuf *out)
{
	static const char *const head[] = { "nothing regressed", "REGRESSION", "harness error",
					    "too noisy to decide" };
	size_t cur = c->base == 0 ? 1 : 0;
	int shown = 0;
	sb_addf(out, "### kbench regress: %s (exit %d)\n\n", head[r->exit_code], r->exit_code);
	for (int side = 0; side < 2; side++) {
		size_t g = side ? cur : c->base;
		sb_adds(out, side ? " · current " : "baseline ");
		sb_adds(out, "`");
		md_text(out, cmp_group_str(c, g, "variant", "name"));
		sb_adds(out, "` ");
		md_text(out, cmp_group_str(c, g, "variant", "package_version"));
		sb_addf(out, " (%d iteration%s%s)", c->g[g].ok + c->g[g].failed,
			c->g[g].ok + c->g[g].failed == 1 ? "" : "s", c->g[g].failed ? ", some failed" : "");
	}
	sb_adds(out, " · suite `");
	md_text(out, c->suite);
	sb_adds(out, "` · ");
	md_text(out, c->accel);
	sb_adds(out, "\n\n");
	for (size_t i = 0; i < r->n; i++) {
		const struct regress_case *k = &r->v[i];
		const struct cmp_metric *m = k->metric >= 0 ? &c->m[k->metric] : NULL;
		char vb[64], vx[64];
		if (k->status == REG_PASS)
			continue;
		if (!shown++)
			sb_adds(out, "| result | metric | baseline | current | change (95% CI) | p | why |\n"
				"|---|---|---|---|---|---|---|\n");
		sb_addf(out, "| %s | ", k->status == REG_REGRESSED ? "**regressed**" :
			k->status == REG_ERROR ? "**error**" : regress_status_name(k->status));
		md_text(out, k->classname);
		sb_adds(out, " ");
		md_text(out, k->name);
		if (!m) {
			sb_adds(out, " | | | | | ");
			md_text(out, k->message);
			sb_adds(out, " |\n");
			continue;
		}
		{
			const struct cmp_cell *b = &m->cell[c->base], *x = &m->cell[cur];
			regress_value_unit(vb, sizeof(vb), b->center, m->unit);
			regress_value_unit(vx, sizeof(vx), x->center, m->unit);
			sb_adds(out, " | ");
			md_text(out, b->n ? vb : "-");
			sb_adds(out, " | ");
			md_text(out, x->n ? vx : "-");
			sb_adds(out, " | ");
			if (isfinite(x->rel))
				sb_addf(out, "%+.1f%%", x->rel * 100);
			if (isfinite(x->rel_lo) && isfinite(x->rel_hi))
				sb_addf(out, " (%+.1f%% .. %+.1f%%)", x->rel_lo * 100, x->rel_hi * 100);
			sb_adds(out, " | ");
			if (x->have_test)
				sb_addf(out, "%.2g", x->welch.p);
			sb_adds(out, " | ");
			if (k->status == REG_REGRESSED || k->status == REG_IMPROVED)
				sb_addf(out, "beyond the %.0f%% threshold", m->min_effect * 100);
			else if (k->status == REG_NOISY && x->verdict != CMP_UNDECIDED)
				sb_addf(out, "CV %.0f%% / %.0f%% (limit %.0f%%); could detect %.0f%%",
					b->d.cv * 100, x->d.cv * 100, m->max_cv * 100, x->mde * 100);
			else if (k->status == REG_NOISY)
				md_text(out, x->note);
			else
				md_text(out, k->message);
			sb_adds(out, " |\n");
		}
	}
	sb_addf(out, "%s%d unchanged, %d improved, %d regressed, %d too noisy, %d errors "
		"(a change counts when Welch p, adjusted over the workload's metrics "
		"(Benjamini-Hochberg), is below 0.05 and it exceeds the threshold: 2%% throughput "
		"and time, 5%% central latency, 10%% tails unless set; bootstrap seed %u).\n",
		shown ? "\n" : "", r->passed - r->improved, r->improved, r->regressed, r->noisy,
		r->errors, (unsigned)c->seed);
}
