#!/usr/bin/env bash
# Inlining headroom of a ThinLTO corpus beside the regular (-Oz, no LTO)
# corpus of the same projects: never and always inline, per-module search
# (mlgo explore), and an imitation policy trained on each (explore + weighted
# train-bc, configs/inlining/imitation.json), each evaluated on both corpora.
# All sizes are .text against each corpus's default heuristic.
# Usage: tools/bench/thinlto-headroom.sh MLGO OUT regular=DIR thinlto=DIR...
#        [FLIPS] and [BUDGET] through the environment (default 32 and 64)
set -euo pipefail
mlgo=$1 out=$2
shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
flips=${FLIPS:-32} budget=${BUDGET:-64}
mkdir -p "$out"
labels=()
for pair in "$@"; do
  label=${pair%%=*} corpus=${pair#*=}
  labels+=("$label")
  echo "$corpus" > "$out/$label.corpus"
  for choice in never always; do
    "$mlgo" eval --corpus "$corpus" --inline "$choice" --json "$out/$label-$choice.json" --threads 2 \
      > /dev/null || [ $? -eq 4 ]
  done
  "$mlgo" default-trace --corpus "$corpus" --output "$out/$label-trace" --force --threads 2 > /dev/null
  rm -rf "$out/$label-vocab"
  "$mlgo" gen-vocab --trace "$out/$label-trace" --output-dir "$out/$label-vocab" > /dev/null
  /usr/bin/time -f "$label explore: %e s wall" "$mlgo" explore --corpus "$corpus" --output "$out/$label-explored" \
    --flips "$flips" --budget "$budget" --threads 2 --force > "$out/$label-explore.txt"
  "$mlgo" train-bc --trace "$out/$label-explored" --vocab "$out/$label-vocab" \
    --config "$root/configs/inlining/imitation.json" --output "$out/$label-imitation" --force > /dev/null
done
for policy in "${labels[@]}"; do
  for label in "${labels[@]}"; do
    "$mlgo" eval --corpus "$(cat "$out/$label.corpus")" --policy "$out/$policy-imitation" \
      --json "$out/$label-policy-$policy.json" --threads 2 > /dev/null || [ $? -eq 4 ]
  done
done
python3 - "$out" "${labels[@]}" <<'PY'
import json, sys
out, labels = sys.argv[1], sys.argv[2:]
def load(name): return json.load(open(f"{out}/{name}"))
def change(report): return 100 * report["totals"]["change"]["text"]
print("| corpus | modules | -Oz .text | decisions | never | always | per-module search | " +
      " | ".join(f"policy trained on {p}" for p in labels) + " |")
print("|" + "---|" * (7 + len(labels)))
for label in labels:
    never, always = load(f"{label}-never.json"), load(f"{label}-always.json")
    trace = load(f"{label}-trace/trace_description.json")
    explored = load(f"{label}-explored/trace_description.json")
    base = never["totals"]["baseline"]["text"]
    search = 100 * (explored["text_explored"] - explored["text_default"]) / explored["text_default"]
    decisions = trace["decisions"]
    policies = " | ".join(f"{change(load(f'{label}-policy-{p}.json')):+.2f}%" for p in labels)
    print(f"| {label} | {never['totals']['compared']} | {base} | {decisions} | {change(never):+.2f}% | "
          f"{change(always):+.2f}% | {search:+.2f}% | {policies} |")
PY
