#!/usr/bin/env bash
# The learners' table at equal compute (BENCHMARKS.md, "Learners at equal
# compute"): on a demo output directory (tools/demo.sh: corpus, default trace,
# vocab, BC warm start), runs
#   imitation   explore around the default heuristic, then train-bc imitating it
#   imit-ppo    train-ppo from the imitation policy, PPO_ITERATIONS iterations
#   imit-es     train-es from the imitation policy, ES_ITERATIONS iterations
#   round2      explore around the imit-ppo policy, then train-bc imitating it
#   ppo-bc      train-ppo from the BC warm start, 400 iterations (the control; BENCHMARKS.md
#               reports its policy when metrics.jsonl's seconds.elapsed passed the budget)
# and evaluates each policy on the training and the held-out projects. Each
# step's wall time goes to OUT/times.txt; each policy's totals to
# OUT/NAME.summary (mlgo eval's summary lines). Steps already done are
# skipped (train-ppo and train-es resume), so an interrupted run continues.
# Usage: tools/bench/learners-equal-compute.sh DEMO_DIR MLGO OUT [PPO_ITERATIONS] [ES_ITERATIONS]
set -euo pipefail
demo=$1 mlgo=$2 out=$3 ppo_iterations=${4:-200} es_iterations=${5:-280}
root=$(cd "$(dirname "$0")/../.." && pwd)
train="$demo/projects/corpus/train"
mkdir -p "$out"

timed() {
  local name=$1
  shift
  local start=$SECONDS
  "$@"
  echo "$name $((SECONDS - start)) s" >> "$out/times.txt"
}

evaluate() {  # NAME POLICY_DIR
  local name=$1 policy=$2
  [ -f "$out/$name.summary" ] && return 0
  "$root/tools/bench/eval-splits.sh" "$mlgo" "$demo/projects/corpus" "$policy" "$out/$name-eval" > "$out/$name.summary"
}

imitate() {  # NAME [explore flags...]: tools/bench/explore-imitation.sh, 32 flips / 64 compiles a module
  local name=$1
  shift
  [ -f "$out/$name.summary" ] && return 0
  timed "$name" "$root/tools/bench/explore-imitation.sh" "$demo" "$mlgo" "$out/$name" 32 64 "$@" > "$out/$name.out"
  tail -2 "$out/$name.out" > "$out/$name.summary"
}

ppo() {  # NAME WARMSTART ITERATIONS
  timed "$1" "$mlgo" train-ppo --corpus "$train" --vocab "$demo/vocab" --warmstart "$2" --baselines "$demo/trace" \
    --config "$root/configs/inlining/ppo-demo.json" --output "$out/$1" --resume --set num_policy_iterations="$3" \
    --threads 2 > /dev/null 2> "$out/$1.log"
}

imitate imitation
ppo imit-ppo "$out/imitation/imitation" "$ppo_iterations"
evaluate imit-ppo "$out/imit-ppo/policy"
timed imit-es "$mlgo" train-es --corpus "$train" --warmstart "$out/imitation/imitation" --baselines "$demo/trace" \
  --config "$root/configs/inlining/es.json" --output "$out/imit-es" --resume --set iterations="$es_iterations" \
  --threads 2 > /dev/null 2> "$out/imit-es.log"
evaluate imit-es "$out/imit-es/policy"
imitate round2 --policy "$out/imit-ppo/policy"
ppo ppo-bc "$demo/warmstart" 400
evaluate ppo-bc "$out/ppo-bc/policy"
cat "$out"/*.summary
