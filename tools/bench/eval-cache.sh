#!/usr/bin/env bash
# eval without the memo, then twice with one --cache-dir: wall times, and
# whether the three give the same sizes.
# Usage: tools/bench/eval-cache.sh CORPUS build/mlgo SCRATCH
set -euo pipefail
corpus=$1 mlgo=$2 scratch=$3
rm -rf "$scratch"; mkdir -p "$scratch"
run() { local label=$1; shift; /usr/bin/time -f "$label: %e s wall, %M KB max RSS" "$mlgo" eval --corpus "$corpus" --inline never --threads 2 --json "$scratch/$label.json" "$@" > /dev/null 2> "$scratch/$label.log" || true; tail -1 "$scratch/$label.log"; grep 'memo:' "$scratch/$label.log" || true; }
run no-memo --no-memo
run cache-first --cache-dir "$scratch/cache"
run cache-second --cache-dir "$scratch/cache"
python3 - "$scratch" <<'PY'
import json, sys
s = sys.argv[1]
def sizes(label):
    r = json.load(open(f"{s}/{label}.json"))
    for m in r["modules"]:
        for side in ("baseline", "candidate"): m[side].pop("seconds", None)
    return r["modules"], r["totals"]
print("same results:", sizes("no-memo") == sizes("cache-first") == sizes("cache-second"))
PY
