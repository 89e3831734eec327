/* subject.h - the test subject of a source-built variant, for results.json:
 * the patches applied (file, subject line, sha256, diffstat, full text),
 * the lock knobs its command line sets and the config fragments applied
 * over its base. Reports show it so a report read on its own says which
 * code was measured (docs/results.md, "variant.subject"). */
#ifndef KBENCH_SUBJECT_H
#define KBENCH_SUBJECT_H

#include <json-c/json.h>
#include "core/config.h"

/* V's subject with CMDLINE (the whole extra command line: the variant's
 * and any --cmdline or sweep point) for its lock knobs; NULL when V is not
 * built from source, or after an error (a patch or fragment unreadable). */
json_object *subject_json(const struct variant *v, const char *cmdline);

/* The diffstat of patch TEXT: [{path, added, removed}] in file order;
 * hunk lengths are followed, so a removed "-- x" line is not a header. */
json_object *subject_diffstat(const char *text);
/* The patch's subject: the "Subject:" header without its [PATCH ...]
 * tag, else the first non-empty line; into OUT. */
void subject_line(const char *text, char *out, size_t len);

#endif
