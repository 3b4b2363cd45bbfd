#!/usr/bin/env python3
# One line per `mlgo eval --json` file: total .text change against -Oz,
# modules smaller / larger, and the worst module (the learners' table in
# BENCHMARKS.md); for a problem with its own measure (regalloc's score), the
# same figures of that measure: summed change, modules better / worse, the
# worst module. Usage: python3 tools/bench/eval-summary.py EVAL.json...
import json
import sys

for path in sys.argv[1:]:
    report = json.load(open(path))
    modules = [m for m in report["modules"] if m["status"] == "ok"]
    measures = report["totals"].get("measures", {}).get("baseline", {})
    if measures:
        for measure in sorted(measures):
            scored = [m for m in modules if measure in m.get("measures", {}).get("change", {})]
            base = sum(m["measures"]["baseline"][measure] for m in scored)
            cand = sum(m["measures"]["candidate"][measure] for m in scored)
            better = sum(m["measures"]["candidate"][measure] < m["measures"]["baseline"][measure] for m in scored)
            worse = sum(m["measures"]["candidate"][measure] > m["measures"]["baseline"][measure] for m in scored)
            worst = max(scored, key=lambda m: m["measures"]["change"][measure])
            print(f"{path}: {len(scored)} modules, {measure} {base:.0f} -> {cand:.0f} "
                  f"({100 * (cand / base - 1):+.2f}%), {better} better, {worse} worse, "
                  f"worst {worst['name']} {100 * worst['measures']['change'][measure]:+.2f}%")
        continue
    base = sum(m["baseline"]["text"] for m in modules)
    cand = sum(m["candidate"]["text"] for m in modules)
    smaller = sum(m["candidate"]["text"] < m["baseline"]["text"] for m in modules)
    larger = sum(m["candidate"]["text"] > m["baseline"]["text"] for m in modules)
    worst = max(modules, key=lambda m: m["change"]["text"])
    print(f"{path}: {len(modules)} modules, .text {base} -> {cand} ({100 * (cand / base - 1):+.2f}%), "
          f"{smaller} smaller, {larger} larger, worst {worst['name']} {100 * worst['change']['text']:+.2f}%")
