#!/bin/sh
# lane: beside
# The pipelines in ci/ checked by parsers of their own formats: yamllint
# (ci/yamllint.yml), then each file against a JSON schema of its CI
# system's syntax (tests/fixtures/schemas/, the subset of keys kbench uses,
# unknown keys refused) with python3-jsonschema, then what a schema cannot
# see: jobs that `needs` exist, the matrix names real variants, every
# kbench option the pipelines pass is one kbench accepts. The systemd
# units go through systemd-analyze verify. Each checker is also shown a
# broken copy, which it must reject.
. "$(dirname "$0")/../lib.sh"
py=/usr/bin/python3
ci="$top/ci"
gh="$ci/github/kbench-nightly.yml"
gl="$ci/gitlab/kbench-nightly.gitlab-ci.yml"
command -v yamllint >/dev/null || skip "yamllint missing (make test installs it: harness/deps.sh test)"
$py -c 'import yaml, jsonschema' 2>/dev/null || skip "python3-yaml or python3-jsonschema missing"

expect_exit 0 yamllint -s -c "$ci/yamllint.yml" "$gh" "$gl" "$ci/yamllint.yml"
sed 's/^  night:$/  night:\n   broken: [/' "$gh" >"$tmp/broken.yml"
expect_exit 1 yamllint -s -c "$ci/yamllint.yml" "$tmp/broken.yml"

check() { # SCHEMA FILE
	$py - "$top/tests/fixtures/schemas/$1" "$2" <<'PY'
import json, sys, yaml, jsonschema
schema = json.load(open(sys.argv[1]))
doc = yaml.safe_load(open(sys.argv[2]))
# PyYAML reads YAML 1.1, where a bare `on` key is the boolean true;
# GitHub's parser reads it as the string "on"
if isinstance(doc, dict) and True in doc:
    doc["on"] = doc.pop(True)
jsonschema.Draft7Validator.check_schema(schema)
errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(doc), key=lambda e: list(e.path))
for e in errors:
    print("%s: %s: %s" % (sys.argv[2], "/".join(map(str, e.path)) or "(top)", e.message))
sys.exit(1 if errors else 0)
PY
}
expect_exit 0 check github-workflow.subset.json "$gh"
expect_exit 0 check gitlab-ci.subset.json "$gl"
# misspelt keys must be caught
sed 's/runs-on: \[self-hosted, linux, kbench\]/run-on: [self-hosted, linux, kbench]/' "$gh" >"$tmp/gh-typo.yml"
expect_exit 1 check github-workflow.subset.json "$tmp/gh-typo.yml"
expect_out "run-on"
sed 's/^  artifacts:$/  artefacts:/' "$gl" >"$tmp/gl-typo.yml"
expect_exit 1 check gitlab-ci.subset.json "$tmp/gl-typo.yml"

# what the schemas cannot see
$py - "$gh" "$gl" "$top" <<'PY' >"$tmp/out" 2>&1 && ok "needs, variants and kbench options hold" || { bad "pipeline semantics"; cat "$tmp/out"; }
import os, re, subprocess, sys, yaml
gh, gl, top = yaml.safe_load(open(sys.argv[1])), yaml.safe_load(open(sys.argv[2])), sys.argv[3]
variants = {f[:-4] for f in os.listdir(top + "/kernels") if f.endswith(".ini")}
def opts(cmd):
    h = subprocess.run([top + "/kbench", cmd, "--help"], capture_output=True, text=True).stdout
    return set(re.findall(r"--[a-z][a-z-]*", h))
known = {c: opts(c) for c in ("nightly", "merge")}
scripts = []
for name, job in gh["jobs"].items():
    for n in ([job["needs"]] if isinstance(job.get("needs"), str) else job.get("needs", [])):
        assert n in gh["jobs"], "github: %s needs unknown job %s" % (name, n)
    m = job.get("strategy", {}).get("matrix", {})
    for v in m.get("variant", []):
        assert v in variants, "github: unknown variant " + v
    scripts += [s["run"] for s in job["steps"] if "run" in s]
gl_jobs = {k: v for k, v in gl.items() if k not in ("stages", "variables", "include", "default", "workflow")}
for name, job in gl_jobs.items():
    assert job.get("stage") in gl["stages"], "gitlab: %s has no known stage" % name
    for n in job.get("needs", []):
        n = n["job"] if isinstance(n, dict) else n
        assert n in gl_jobs, "gitlab: %s needs unknown job %s" % (name, n)
    for m in job.get("parallel", {}).get("matrix", []) if isinstance(job.get("parallel"), dict) else []:
        for v in m.get("VARIANT", []):
            assert v in variants, "gitlab: unknown variant " + v
    scripts += [s for s in job["script"]]
seen = 0
for s in scripts:
    s = s.replace("\\\n", " ")
    for cmd, rest in re.findall(r"\./kbench (nightly|merge)([^\n;|&]*)", s):
        for o in re.findall(r"--[a-z][a-z-]*", rest):
            assert o in known[cmd], "kbench %s has no option %s" % (cmd, o)
        seen += 1
assert seen >= 4, "expected kbench nightly and merge in both pipelines, saw %d" % seen
assert "nightly" in open(top + "/Makefile").read()
print("checked", seen, "kbench command lines")
PY
cat "$tmp/out"

# systemd units: the service never runs as root (was: no User=)
svc="$ci/systemd/kbench-nightly.service"
if grep -q '^User=kbench$' "$svc" && grep -q '^SupplementaryGroups=kvm$' "$svc" &&
   grep -q '^ProtectHome=yes$' "$svc"; then
	ok "nightly service runs as user kbench (kvm group, no homes)"
else
	bad "nightly service: no User=kbench, SupplementaryGroups=kvm, ProtectHome=yes"
fi
if ! command -v systemd-analyze >/dev/null; then
	[ "$fails" = 0 ] || finish
	skip "systemd-analyze missing: the units were not verified (everything else passed)"
fi
mkdir -p "$tmp/units"
for u in kbench-nightly.service kbench-nightly.timer; do
	sed "s|/opt/kbench|$top|g" "$ci/systemd/$u" >"$tmp/units/$u"
done
if ! systemd-analyze verify "$tmp/units/kbench-nightly.timer" >"$tmp/probe" 2>&1 &&
   grep -qi "failed to .*\(manager\|bus\)\|not booted" "$tmp/probe"; then
	cat "$tmp/probe"
	[ "$fails" = 0 ] || finish
	skip "systemd-analyze verify cannot run here: the units were not verified (everything else passed)"
fi
expect_exit 0 systemd-analyze verify "$tmp/units/kbench-nightly.service" "$tmp/units/kbench-nightly.timer"
[ -s "$tmp/out" ] && { echo "systemd-analyze said:"; cat "$tmp/out"; }
grep -qi "warn\|unknown\|invalid" "$tmp/out" && bad "systemd-analyze complained" || ok "no complaint"
sed 's/^OnCalendar=.*/OnCalendar=every night at one/' "$tmp/units/kbench-nightly.timer" >"$tmp/units/bad.timer"
sed -i 's/^Unit=.*/Unit=kbench-nightly.service/' "$tmp/units/bad.timer"
systemd-analyze verify "$tmp/units/bad.timer" >"$tmp/out" 2>&1
grep -qi "OnCalendar\|calendar" "$tmp/out" && ok "a bad OnCalendar is reported" || { bad "bad timer accepted"; cat "$tmp/out"; }
sed 's|^ExecStart=.*|ExecStart=make nightly|; s|^Type=oneshot|Type=oneshoot|' "$tmp/units/kbench-nightly.service" >"$tmp/units/bad.service"
systemd-analyze verify "$tmp/units/bad.service" >"$tmp/out" 2>&1
grep -qi "Type\|oneshoot" "$tmp/out" && ok "a bad Type= is reported" || { bad "bad service accepted"; cat "$tmp/out"; }
finish
