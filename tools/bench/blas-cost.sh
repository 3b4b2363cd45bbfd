#!/usr/bin/env bash
# The cost of training independent of the CPU: train-bc's gradient steps with
# mlgo's own BLAS routines (the default) against the system's OpenBLAS put
# back in front of them with LD_PRELOAD, under two of its kernels. Prints
# milliseconds per gradient step (median of 3 runs) and whether each setting
# trained the same policy as mlgo's routines.
# Usage: tools/bench/blas-cost.sh TRACE VOCAB build/mlgo SCRATCH [ITERATIONS] [BATCH]
set -euo pipefail
trace=$1 vocab=$2 mlgo=$3 scratch=$4 iterations=${5:-5000} batch=${6:-64}
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
