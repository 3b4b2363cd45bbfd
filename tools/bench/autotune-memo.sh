#!/usr/bin/env bash
# autotune with and without the compile memo on one corpus: wall times, and
# best.json compared without its timing fields.
# Usage: tools/bench/autotune-memo.sh CORPUS build/mlgo OUTPUT [BUDGET]
set -euo pipefail
corpus=$1 mlgo=$2 out=$3 budget=${4:-500}
rm -rf "$out"; mkdir -p "$out"
for mode in memo plain; do
  extra=(); [ "$mode" = plain ] && extra=(--no-memo)
  /usr/bin/time -f "$mode: %e s wall, %M KB max RSS" "$mlgo" autotune --corpus "$corpus" --output "$out/$mode" \
    --budget "$budget" --metric text+data --threads 2 "${extra[@]}" > "$out/$mode.out" 2> "$out/$mode.log" || true
  tail -1 "$out/$mode.log"; grep 'memo:' "$out/$mode.log" || true; cat "$out/$mode.out"
done
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
def strip(x):
    if isinstance(x, dict): return {k: strip(v) for k, v in x.items() if "second" not in k and k != "wall"}
    if isinstance(x, list): return [strip(v) for v in x]
    return x
a, b = (strip(json.load(open(f"{out}/{m}/best.json"))) for m in ("memo", "plain"))
print("best.json identical (timings aside):", a == b)
PY
