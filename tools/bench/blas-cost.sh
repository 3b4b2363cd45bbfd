#!/usr/bin/env bash
# The cost of training independent of the CPU: gradient steps with mlgo's
# own BLAS routines (the default) against the system's OpenBLAS put back in
# front of them with LD_PRELOAD, under three of its kernels. Prints
# milliseconds per gradient step (median of 3 runs) and whether each setting
# trained the same policy as mlgo's routines: train-bc at BATCH decisions a
# step, then train-ppo at the demo's 4,096 (batch 256 x sequence 16).
# Usage: tools/bench/blas-cost.sh CORPUS TRACE VOCAB build/mlgo SCRATCH [ITERATIONS] [BATCH]
set -euo pipefail
corpus=$1 trace=$2 vocab=$3 mlgo=$4 scratch=$5 iterations=${6:-5000} batch=${7:-64}
openblas=/usr/lib/x86_64-linux-gnu/libopenblas.so.0
rm -rf "$scratch"; mkdir -p "$scratch"
step_ms() {  # label, env...
  local label=$1; shift
  for run in 1 2 3; do
    env "$@" "$mlgo" train-bc --trace "$trace" --vocab "$vocab" --output "$scratch/$label-$run" \
      --set iterations="$iterations" --set batch_size="$batch" --set report_every="$iterations" \
      --set checkpoint_every=0 2>/dev/null | sed -E 's/.*; ([0-9.]+) s$/\1/'
  done | sort -n | sed -n 2p | awk -v n="$iterations" -v l="$label" '{ printf "%s: %.4f ms per step\n", l, 1000 * $1 / n }'
  cmp -s "$scratch/$label-1/policy/model.json" "$scratch/mlgo-1/policy/model.json" && echo "  same policy as mlgo's routines" || echo "  another policy"
}
step_ms mlgo OPENBLAS_CORETYPE=Prescott
step_ms openblas-prescott LD_PRELOAD=$openblas OPENBLAS_CORETYPE=Prescott
step_ms openblas-haswell LD_PRELOAD=$openblas OPENBLAS_CORETYPE=Haswell
step_ms openblas-skylakex LD_PRELOAD=$openblas OPENBLAS_CORETYPE=SkylakeX

ppo_step_ms() {  # label, env...: train seconds of iterations 2-3 (100 gradient steps each)
  local label=$1; shift
  for run in 1 2 3; do
    env "$@" "$mlgo" train-ppo --corpus "$corpus" --vocab "$vocab" --baselines "$trace" \
      --output "$scratch/ppo-$label-$run" --threads 2 --set num_policy_iterations=3 --set num_modules=7 \
      --set num_iterations=100 --set batch_size=256 --set train_sequence_length=16 >/dev/null 2>&1
    python3 -c "import json,sys; r=[json.loads(l) for l in open(sys.argv[1])][1:]; \
print(sum(x['seconds']['train'] for x in r) / (100 * len(r)))" "$scratch/ppo-$label-$run/metrics.jsonl"
  done | sort -n | sed -n 2p | awk -v l="$label" '{ printf "train-ppo %s: %.2f ms per step\n", l, 1000 * $1 }'
  cmp -s "$scratch/ppo-$label-1/policy/model.json" "$scratch/ppo-mlgo-1/policy/model.json" &&
    echo "  same policy as mlgo's routines" || echo "  another policy"
}
ppo_step_ms mlgo OPENBLAS_CORETYPE=Prescott
ppo_step_ms openblas-prescott LD_PRELOAD=$openblas OPENBLAS_CORETYPE=Prescott
ppo_step_ms openblas-haswell LD_PRELOAD=$openblas OPENBLAS_CORETYPE=Haswell
ppo_step_ms openblas-skylakex LD_PRELOAD=$openblas OPENBLAS_CORETYPE=SkylakeX
