#!/bin/sh
# lane: beside
# The architecture as a checked rule (docs/architecture.md draws it):
#  1. a layer includes only itself and the layers below it (the table
#     below is the one in docs/architecture.md); workloads/ and the
#     harness do not include each other except through core/workload.h;
#  2. no function in harness/ or workloads/ is longer than 120 lines
#     unless the comment above it says why, with "LONG:";
#  3. every folder under harness/ is a known layer (a new one must be
#     placed in the table, here and in the doc).
# Each rule is also shown a broken copy of the tree, which it must reject.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null || skip "python3 missing"

cat >"$tmp/check.py" <<'PY'
import os, re, sys

# layer: the layers it may include (besides itself), bottom up
ALLOWED = {
    "core": set(),
    "agent": {"core"},
    "kernel": {"core"},
    "workloads": {"core", "agent", "kernel"},
    "backend": {"core", "agent", "kernel"},
    "run": {"core", "agent", "kernel", "backend"},
    "stats": {"core", "run"},
    "report": {"core", "run", "stats"},
    "history": {"core", "run", "stats", "report"},
    "cli": {"core", "agent", "kernel", "workloads", "backend", "run", "stats", "report", "history"},
}
MAX_LINES = 120

top = sys.argv[1]
errors = []

def layer_of(path):
    parts = path.split("/")
    return "workloads" if parts[0] == "workloads" else parts[1]

def sources():
    for root in ("harness", "workloads"):
        for dp, dn, fn in os.walk(os.path.join(top, root)):
            for f in sorted(fn):
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(dp, f), top)

inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
for d in sorted(os.listdir(os.path.join(top, "harness"))):
    if os.path.isdir(os.path.join(top, "harness", d)) and d not in ALLOWED:
        errors.append("harness/%s/: not a known layer (add it to tests/integration/layers.sh "
                      "and docs/architecture.md)" % d)

for path in sources():
    me = layer_of(path)
    text = open(os.path.join(top, path), encoding="utf-8", errors="replace").read()
    for m in inc.finditer(text):
        target = m.group(1)
        line = text.count("\n", 0, m.start()) + 1
        if "/" not in target:
            errors.append('%s:%d: include "%s" names no layer (write "layer/%s")'
                          % (path, line, target, target))
            continue
        dep = target.split("/")[0]
        if dep == me:
            continue
        if dep not in ALLOWED.get(me, set()):
            errors.append('%s:%d: layer %s includes "%s": %s may only include %s'
                          % (path, line, me, target, me,
                             ", ".join(sorted(ALLOWED.get(me, set()))) or "itself"))
    if not path.endswith(".c"):
        continue
    lines = text.split("\n")
    start = None
    for i, l in enumerate(lines):
        if l == "{" and start is None:
            start = i
        elif l == "}" and start is not None:
            n = i - start + 1
            if n > MAX_LINES:
                j = start - 1
                while j >= 0 and "(" not in lines[j]:
                    j -= 1
                name = re.search(r"(\w+)\s*\(", lines[j])
                above = "\n".join(lines[max(0, j - 12):j])
                if "LONG:" not in above:
                    errors.append("%s:%d: %s is %d lines (limit %d): split it into named "
                                  "phases, or say why it must be long in a LONG: comment above it"
                                  % (path, j + 1, name.group(1) if name else "?", n, MAX_LINES))
            start = None

for e in errors:
    print(e)
sys.exit(1 if errors else 0)
PY

expect_exit 0 python3 "$tmp/check.py" "$top"

# negative controls: a copy of the tree with one violation each
mkdir -p "$tmp/t1/harness/core" "$tmp/t1/workloads"
printf '#include "run/run.h"\n' >"$tmp/t1/harness/core/x.h"
expect_exit 1 python3 "$tmp/check.py" "$tmp/t1"
expect_out 'layer core includes "run/run.h"'

mkdir -p "$tmp/t2/harness/core" "$tmp/t2/workloads"
printf '#include "../harness/run/run.h"\n' >"$tmp/t2/workloads/w.c"
expect_exit 1 python3 "$tmp/check.py" "$tmp/t2"

mkdir -p "$tmp/t3/harness/run"
{ echo "int f(void)"; echo "{"; i=0; while [ $i -lt 130 ]; do echo "	i++;"; i=$((i + 1)); done; echo "}"; } \
	>"$tmp/t3/harness/run/long.c"
expect_exit 1 python3 "$tmp/check.py" "$tmp/t3"
expect_out "f is 132 lines"
{ echo "/* LONG: one table, read top to bottom */"; cat "$tmp/t3/harness/run/long.c"; } >"$tmp/t3/harness/run/l2.c"
rm "$tmp/t3/harness/run/long.c"
expect_exit 0 python3 "$tmp/check.py" "$tmp/t3"

mkdir -p "$tmp/t4/harness/misc"
expect_exit 1 python3 "$tmp/check.py" "$tmp/t4"
expect_out "not a known layer"
finish
