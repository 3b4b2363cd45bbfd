#!/usr/bin/env bash
# Evaluates a policy on the training and the held-out corpora of a demo corpus
# and prints mlgo eval's summary lines of each (totals; modules smaller and
# larger and the worst module, per size or the problem's measure). Writes PREFIX-train.json and PREFIX-heldout.json
# (eval's JSON), PREFIX-{train,heldout}.txt (its table) and .log (its stderr).
# Usage: tools/bench/eval-splits.sh MLGO CORPORA POLICY PREFIX [EVAL FLAGS...]
# (CORPORA holds train/ and heldout/; e.g. --problem regalloc)
set -euo pipefail
mlgo=$1 corpora=$2 policy=$3 prefix=$4
shift 4
for set in train heldout; do
  # eval exits 4 when some modules failed: they are named, the rest is measured.
  "$mlgo" eval --corpus "$corpora/$set" --policy "$policy" --json "$prefix-$set.json" --threads 2 "$@" \
    > "$prefix-$set.txt" 2> "$prefix-$set.log" || [ $? -eq 4 ]
done
for set in train heldout; do
  grep -E '^[0-9]+ modules, |: [0-9]+ smaller, |baseline, .* candidate, ' "$prefix-$set.txt" | sed "s|^|$set: |"
done
