#!/usr/bin/env bash
# Search around a trained policy, then fine-tune that policy on what the search
# found (train-bc --warmstart), on the demo corpus: explore the training
# projects around POLICY, train-bc from POLICY on the explored trace
# (configs/inlining/imitation.json without dropout or module weights, plus
# the extra --set arguments), and evaluate the fine-tuned policy on the
# training and the held-out projects against -Oz.
# Usage: tools/bench/search-finetune.sh DEMO_DIR MLGO POLICY OUT [FLIPS] [BUDGET] [TRAIN-BC ARGS...]
# (e.g. --set learning_rate=0.0001 --set iterations=20000)
set -euo pipefail
demo=$1 mlgo=$2 policy=$3 out=$4 flips=${5:-32} budget=${6:-64}
shift $(($# < 6 ? $# : 6))
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
/usr/bin/time -f "explore: %e s wall, %M KB max RSS" "$mlgo" explore --corpus "$demo/projects/corpus/train" \
  --output "$out/explored" --policy "$policy" --flips "$flips" --budget "$budget" --threads 2 --force \
  2> "$out/explore.log" | tee "$out/explore.txt"
tail -1 "$out/explore.log"
/usr/bin/time -f "train-bc: %e s wall" "$mlgo" train-bc --trace "$out/explored" --warmstart "$policy" \
  --config "$root/configs/inlining/imitation.json" --set gain_weight=0 --set dropout=0 --set checkpoint_every=0 \
  --output "$out/finetuned" --force "$@" 2> "$out/train-bc.log" > /dev/null
tail -1 "$out/train-bc.log"
"$root/tools/bench/eval-splits.sh" "$mlgo" "$demo/projects/corpus" "$out/finetuned" "$out/eval"
