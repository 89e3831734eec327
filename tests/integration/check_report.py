#!/usr/bin/python3
"""check_report.py REPORT.html COMPARISON.json: does the report show the
figures comparison.json holds?

Reads the report's "Every metric" table (<h2 id="metrics">) and checks,
against comparison.json: the variant columns (names, in order), one row
per metric (workload label and metric name, in order), and in every cell
the value (the metric's center, as cmp_fmt_num prints it: 3 decimals
below 10, fewer above), the change against the baseline (percent, one decimal) and the
verdict; a variant without values shows a dash. Exit 0 when all agree,
1 naming each disagreement (metric, variant, report vs JSON), 2 on
unreadable input. Used by compare.sh on a real campaign's report and by
check_report.sh on the golden reports and doctored copies of them.
"""
import html.parser
import json
import math
import re
import sys


class Table(html.parser.HTMLParser):
    """Rows of the table after <h2 id="metrics">: each a list of cells,
    a cell {"text", "bold", "cls", "verdict"}; group rows {"group"}."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.state = "before"  # before, heading, table, done
        self.header, self.rows = None, []
        self.row = self.cell = None
        self.in_b = self.in_verdict = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if self.state == "before" and tag == "h2" and a.get("id") == "metrics":
            self.state = "heading"
        elif self.state == "heading" and tag == "table":
            self.state = "table"
        elif self.state != "table":
            return
        elif tag == "tr":
            self.row = {"cls": a.get("class") or "", "cells": []}
        elif tag in ("td", "th") and self.row is not None:
            self.cell = {"tag": tag, "text": "", "bold": None, "verdict": None,
                         "cls": a.get("class") or ""}
        elif tag == "b" and self.cell is not None:
            self.in_b = True
            self.cell["bold"] = ""
        elif tag == "span" and self.cell is not None and (a.get("class") or "").startswith("v "):
            self.cell["verdict"] = a["class"][2:]

    def handle_endtag(self, tag):
        if self.state != "table":
            return
        if tag == "b":
            self.in_b = False
        elif tag in ("td", "th") and self.cell is not None:
            self.row["cells"].append(self.cell)
            self.cell = None
        elif tag == "tr" and self.row is not None:
            if self.header is None and self.row["cells"][0]["tag"] == "th":
                self.header = self.row
            else:
                self.rows.append(self.row)
            self.row = None
        elif tag == "table":
            self.state = "done"

    def handle_data(self, data):
        if self.cell is not None:
            self.cell["text"] += data
            if self.in_b:
                self.cell["bold"] += data


def shown(v):
    """A number as the report prints it: the rules of cmp_fmt_num
    (harness/stats/compare.c), as text."""
    a = abs(v)
    if not math.isfinite(v):
        return "-" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    if a == 0:
        return "0"
    if v == math.floor(v) and a < 1e7:
        return "%.0f" % v
    if a >= 1e7 or a < 1e-3:
        return "%.3g" % v
    for lim, fmt in ((1000, "%.0f"), (100, "%.1f"), (10, "%.2f")):
        if a >= lim:
            return fmt % v
    return "%.3f" % v


def agree(text, want):
    """TEXT (the report's figure) against WANT (the JSON's, 10 significant
    digits): TEXT must be WANT as cmp_fmt_num prints it, that is, within
    half a unit of TEXT's last digit (a mean on a rounding boundary, e.g.
    0.4765, prints as 0.477 from the double the report holds and as 0.476
    from the JSON's decimal: both are right), and with the digits
    cmp_fmt_num gives WANT's magnitude."""
    try:
        got = float(text)
    except ValueError:
        return False
    mant, _, ex = text.lower().partition("e")
    half = 0.5 * 10.0 ** (-len(mant.partition(".")[2]) + (int(ex) if ex else 0))
    if len(shown(want).lower().partition("e")[0].partition(".")[2]) != len(mant.partition(".")[2]):
        return False
    return abs(got - want) <= half * (1 + 1e-9) + 1e-12 * abs(want)


def check_cell(cell, name, base, m, bad):
    where = f"{m['label']} {m['metric']}, {name}"
    x = m["variants"].get(name)
    if not x or not x.get("n"):
        if cell["bold"] is not None:
            bad(f"{where}: report shows {cell['bold']}, comparison.json has no values")
        return
    if cell["bold"] is None or not agree(cell["bold"], x["center"]):
        bad(f"{where}: report shows {cell['bold']}, comparison.json center {x['center']}")
    if name == base:
        return
    vs = x.get("vs_baseline") or {}
    if cell["verdict"] != vs.get("verdict"):
        bad(f"{where}: report verdict {cell['verdict']}, comparison.json {vs.get('verdict')}")
    rel = vs.get("relative")
    if rel is not None and math.isfinite(rel):
        after = cell["text"].split(cell["bold"], 1)[-1]
        p = re.search(r"([+-]\d+(?:\.\d)?)%", after)
        if not p or abs(float(p.group(1)) - rel * 100) > 0.051:
            bad(f"{where}: report change {p.group(0) if p else 'none'}, "
                f"comparison.json {rel * 100:+.2f}%")


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
    try:
        t = Table()
        t.feed(open(sys.argv[1], encoding="utf-8").read())
        d = json.load(open(sys.argv[2]))
    except (OSError, ValueError) as e:
        print(f"check_report: {e}", file=sys.stderr)
        return 2
    errors = []
    bad = errors.append
    names = [v["name"] for v in d["variants"]]
    if not t.header:
        bad(f"{sys.argv[1]}: no 'Every metric' table")
    else:
        cols = [c["text"].strip() for c in t.header["cells"][2:2 + len(names)]]
        if cols != names:
            bad(f"variant columns {cols}, comparison.json {names}")
    rows, label = [], None
    for r in t.rows:
        if r["cls"] == "grp":
            label = re.sub(r"\s*\(.*\)$", "", r["cells"][0]["text"].strip())
        else:
            rows.append((label, r))
    if len(rows) != len(d["metrics"]):
        bad(f"report has {len(rows)} metric rows, comparison.json {len(d['metrics'])} metrics")
    for (label, r), m in zip(rows, d["metrics"]):
        metric = r["cells"][0]["text"].replace("\u2605", "").strip()
        if (label, metric) != (m["label"], m["metric"]):
            bad(f"row {label} {metric}: comparison.json has {m['label']} {m['metric']} here")
            continue
        for cell, name in zip(r["cells"][2:2 + len(names)], names):
            check_cell(cell, name, d["baseline"], m, bad)
    for e in errors:
        print(f"check_report: {e}")
    if not errors:
        print(f"check_report: {len(rows)} metrics x {len(names)} variants agree with comparison.json")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
