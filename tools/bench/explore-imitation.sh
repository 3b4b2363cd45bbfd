#!/usr/bin/env bash
# Imitation of per-module search on the demo corpus: explore the training
# projects around the default heuristic, clone the explored trace weighted by
# each module's gain (configs/inlining/imitation.json), and evaluate the
# policy on the training and the held-out projects against -Oz.
# Usage: tools/bench/explore-imitation.sh DEMO_DIR MLGO OUT [FLIPS] [BUDGET] [EXPLORE FLAGS...]
# (e.g. --policy DIR: explore around a policy instead of the default heuristic)
set -euo pipefail
demo=$1 mlgo=$2 out=$3 flips=${4:-32} budget=${5:-64}
shift $(($# < 5 ? $# : 5))
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
/usr/bin/time -f "explore: %e s wall, %M KB max RSS" "$mlgo" explore --corpus "$demo/projects/corpus/train" \
  --output "$out/explored" --flips "$flips" --budget "$budget" --threads 2 --force "$@" 2> "$out/explore.log" \
  | tee "$out/explore.txt"
tail -1 "$out/explore.log"
/usr/bin/time -f "train-bc: %e s wall" "$mlgo" train-bc --trace "$out/explored" --vocab "$demo/vocab" \
  --config "$root/configs/inlining/imitation.json" --output "$out/imitation" --force 2> "$out/train-bc.log" > /dev/null
tail -1 "$out/train-bc.log"
"$root/tools/bench/eval-splits.sh" "$mlgo" "$demo/projects/corpus" "$out/imitation" "$out/eval"
