#!/usr/bin/env python3
# One line per `mlgo eval --json` file: total .text change against -Oz,
# modules smaller / larger, and the worst module (the learners' table in
# BENCHMARKS.md). Usage: python3 tools/bench/eval-summary.py EVAL.json...
import json
import sys

for path in sys.argv[1:]:
    report = json.load(open(path))
    modules = [m for m in report["modules"] if m["status"] == "ok"]
    base = sum(m["baseline"]["text"] for m in modules)
    cand = sum(m["candidate"]["text"] for m in modules)
    smaller = sum(m["candidate"]["text"] < m["baseline"]["text"] for m in modules)
    larger = sum(m["candidate"]["text"] > m["baseline"]["text"] for m in modules)
    worst = max(modules, key=lambda m: m["change"]["text"])
    print(f"{path}: {len(modules)} modules, .text {base} -> {cand} ({100 * (cand / base - 1):+.2f}%), "
          f"{smaller} smaller, {larger} larger, worst {worst['name']} {100 * worst['change']['text']:+.2f}%")
