#!/usr/bin/env bash
# Imitation of per-function eviction search on the demo's -O2 corpus: explore
# the training projects around LLVM's default evictions, ranked by a regalloc
# policy (a train-bc warm start), clone the explored trace (plain and with the
# changed evictions weighed more), and evaluate each policy's regalloc score
# on the training and the held-out projects against LLVM's default advisor.
# Usage: tools/bench/regalloc-explore.sh O2_CORPUS_DIR MLGO RANKER OUT [FLIPS] [BUDGET] [FLIP_WEIGHT...]
# (O2_CORPUS_DIR holds train/ and heldout/, as tools/demo/build-corpus.sh
# --opt-level O2 leaves them under WORKDIR/O2/corpus; FLIP_WEIGHT default 0 10)
set -euo pipefail
corpus=$1 mlgo=$2 ranker=$3 out=$4 flips=${5:-16} budget=${6:-24}
shift $(($# < 6 ? $# : 6))
weights=("$@")
[ ${#weights[@]} -gt 0 ] || weights=(0 10)
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
/usr/bin/time -f "explore: %e s wall, %M KB max RSS" "$mlgo" explore --problem regalloc --corpus "$corpus/train" \
  --policy "$ranker" --around-default --output "$out/explored" --flips "$flips" --budget "$budget" --threads 2 \
  --force 2> "$out/explore.log" | tee "$out/explore.txt"
tail -1 "$out/explore.log"
for weight in "${weights[@]}"; do
  policy="$out/imitation-flip$weight"
  /usr/bin/time -f "train-bc flip_weight $weight: %e s wall" "$mlgo" train-bc --trace "$out/explored" \
    --output "$policy" --set iterations=20000 --set report_every=5000 --set dropout=0 --set checkpoint_every=0 \
    --set flip_weight="$weight" --force 2> "$policy.log" > /dev/null
  tail -1 "$policy.log"
  "$root/tools/bench/eval-splits.sh" "$mlgo" "$corpus" "$policy" "$policy-eval" --problem regalloc
done
