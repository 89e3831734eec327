#!/usr/bin/python3
"""Validate results.json files against docs/results.schema.json and check
that the metrics are present and plausible for the workloads that ran.

usage: check_results.py [--expect-rt yes|no] [--min-ok N] results.json...

Failed iterations are listed with their reasons; a parse error of a tool's
output fails the check whatever --min-ok allows.
"""
import argparse
import json
import math
import os
import sys

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "..", "..", "docs", "results.schema.json")

# metric -> (low, high) plausible range under TCG or better
PLAUSIBLE = {
    "hackbench": {"time": (0.001, 600)},
    "kbuild": {"elapsed": (0.1, 36000), "user": (0.01, 360000), "sys": (0.01, 360000)},
    "dbench": {"throughput": (0.5, 100000), "max_latency": (0, 600000)},
    "cyclictest": {"lat_min": (0, 10**7), "lat_avg": (0, 10**7), "lat_max": (0, 10**8),
                   "lat_p50": (0, 10**8), "lat_p99": (0, 10**8), "lat_p99_99": (0, 10**8),
                   "overflows": (0, 10**9)},
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--expect-rt", choices=["yes", "no"])
    ap.add_argument("--min-ok", type=int, default=1)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    schema = json.load(open(SCHEMA))
    errors = []
    for path in a.files:
        doc = json.load(open(path))
        try:
            jsonschema.validate(doc, schema)
        except jsonschema.ValidationError as e:
            errors.append(f"{path}: schema: {e.message} at {list(e.absolute_path)}")
            continue
        ok = [it for it in doc["iterations"] if it["status"] == "ok"]
        if len(ok) < a.min_ok:
            errors.append(f"{path}: {len(ok)} ok iterations, want >= {a.min_ok}")
        # say why an iteration failed, here at the end of the log where CI
        # shows it; a tool's output kbench could not parse is kbench's own
        # fault and fails the check even when enough iterations were ok
        for it in doc["iterations"]:
            if it["status"] == "ok":
                continue
            print(f"note: {path}: iteration {it.get('index')}: {it['status']}: {it.get('error')}")
            for w in it.get("workloads", []):
                if w.get("status") == "ok":
                    continue
                print(f"note:   {w.get('label')}: {w.get('status')}: {w.get('error')}")
                if w.get("status") == "parse-error":
                    errors.append(f"{path}: iteration {it.get('index')}: {w.get('label')}: "
                                  f"kbench could not parse the tool's output: {w.get('error')}")
        rt = doc["variant"]["realtime"]
        prt = doc["variant"].get("preempt_rt")
        if a.expect_rt == "yes" and rt != "1" and prt is not True:
            errors.append(f"{path}: expected a PREEMPT_RT kernel, got realtime={rt!r} preempt_rt={prt!r}")
        if a.expect_rt == "no" and (rt not in (None, "0") or prt is True):
            errors.append(f"{path}: expected no realtime kernel, got realtime={rt!r} preempt_rt={prt!r}")
        labels = {w["label"]: w["workload"] for w in doc["suite"]["workloads"]}
        for it in ok:
            got = {w["label"]: w for w in it["workloads"]}
            for label, kind in labels.items():
                w = got.get(label)
                if not w or w["status"] != "ok":
                    errors.append(f"{path}: iteration {it['index']}: {label} missing or not ok")
                    continue
                for m, (lo, hi) in PLAUSIBLE[kind].items():
                    if m not in w["metrics"]:
                        errors.append(f"{path}: {label}: metric {m} missing")
                        continue
                    v = w["metrics"][m]["value"]
                    if not (isinstance(v, (int, float)) and math.isfinite(v) and lo <= v <= hi):
                        errors.append(f"{path}: {label}: {m} = {v} not in [{lo}, {hi}]")
                if kind == "cyclictest":
                    ms = {k: x["value"] for k, x in w["metrics"].items()}
                    if not ms["lat_min"] <= ms["lat_p50"] <= ms["lat_p99"] <= ms["lat_max"] + 1:
                        errors.append(f"{path}: {label}: percentiles out of order {ms}")
                    h = w.get("extra", {})
                    if "counts" not in h:
                        errors.append(f"{path}: {label}: histogram not kept")
                    if w.get("background") is None and "load" in label:
                        errors.append(f"{path}: {label}: background load missing")
                if not os.path.exists(os.path.join(os.path.dirname(path), w["raw"])):
                    errors.append(f"{path}: {label}: raw output {w['raw']} missing")
            if not os.path.exists(os.path.join(os.path.dirname(path), it["console"])):
                errors.append(f"{path}: console log {it['console']} missing")
        print(f"{path}: {len(ok)} ok iteration(s), kernel {doc['variant']['kernel_release']}, "
              f"realtime {rt}, accel {doc['host']['accel']}")
    for e in errors:
        print("FAIL:", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
