#!/usr/bin/env bash
# Side by side: train-ppo iterations FROM+1..TO from the same saved state, with
# and without the compile memo; prints mean modules/s and collect seconds.
# Usage (from the repository root, after `MLGO_DEMO_DIR=DEMO MLGO_PPO_ITERATIONS=FROM tools/demo.sh`):
#   tools/bench/ppo-memo.sh DEMO FROM TO build/mlgo      (MODES="memo" runs one side)
set -euo pipefail
demo=$1 from=$2 to=$3 mlgo=$4
for mode in ${MODES:-memo plain}; do
  rm -rf "$demo/ppo-$mode"; cp -r "$demo/ppo" "$demo/ppo-$mode"
  extra=(); [ "$mode" = plain ] && extra=(--no-memo)
  /usr/bin/time -f "$mode: %e s wall, %M KB max RSS" "$mlgo" train-ppo --corpus "$demo/projects/corpus/train" \
    --vocab "$demo/vocab" --warmstart "$demo/warmstart" --baselines "$demo/trace" \
    --config configs/inlining/ppo-demo.json --output "$demo/ppo-$mode" --resume \
    --set num_policy_iterations="$to" --threads 2 "${extra[@]}" 2> "$demo/ppo-$mode.log" > /dev/null || true
  tail -1 "$demo/ppo-$mode.log"
done
python3 - "$demo" "$from" <<'PY'
import json, sys
demo, start = sys.argv[1], int(sys.argv[2])
for mode in ("memo", "plain"):
    rows = [json.loads(l) for l in open(f"{demo}/ppo-{mode}/metrics.jsonl") if l.strip()]
    rows = [r for r in rows if r["iteration"] > start]
    collect = sum(r["seconds"]["collect"] for r in rows); modules = sum(r["modules"] for r in rows)
    print(f"{mode}: iterations {rows[0]['iteration']}-{rows[-1]['iteration']}: {modules} modules in {collect:.1f} s collect "
          f"= {modules/collect:.2f} modules/s; train {sum(r['seconds']['train'] for r in rows):.1f} s; memo {rows[-1].get('memo')}")
PY
cmp "$demo/ppo-memo/policy/model.json" "$demo/ppo-plain/policy/model.json" && echo "policies identical"
