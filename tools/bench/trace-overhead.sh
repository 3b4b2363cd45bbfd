#!/usr/bin/env bash
# Benchmark: what tracing adds to compile time. Runs `mlgo eval --inline default`
# (plain in-process compiles) and `mlgo default-trace` (the same compiles through
# the decision hook, the default decision computed and every decision recorded)
# over the same corpus, REPEAT times each, alternating, and compares the best
# wall times.
# Usage: tools/bench/trace-overhead.sh CORPUS [THREADS] [REPEAT]
set -euo pipefail
corpus=$1
threads=${2:-$(nproc)}
repeat=${3:-2}
mlgo=${MLGO:-$(cd "$(dirname "$0")/../.." && pwd)/build/mlgo}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
now_ms() { echo $(($(date +%s%N) / 1000000)); }
best_eval=0
best_trace=0
for _ in $(seq "$repeat"); do
  start=$(now_ms)
  "$mlgo" eval --corpus "$corpus" --threads "$threads" > /dev/null 2>&1 || [ $? -eq 4 ]
  elapsed=$(($(now_ms) - start))
  if [ "$best_eval" -eq 0 ] || [ "$elapsed" -lt "$best_eval" ]; then best_eval=$elapsed; fi
  start=$(now_ms)
  "$mlgo" default-trace --corpus "$corpus" --output "$scratch/trace" --force --threads "$threads" > "$scratch/summary" 2>/dev/null || [ $? -eq 4 ]
  elapsed=$(($(now_ms) - start))
  if [ "$best_trace" -eq 0 ] || [ "$elapsed" -lt "$best_trace" ]; then best_trace=$elapsed; fi
done
echo "mlgo eval --inline default: ${best_eval} ms (best of $repeat)"
echo "mlgo default-trace:         ${best_trace} ms (best of $repeat)"
echo "tracing overhead: $(((best_trace - best_eval) * 1000 / best_eval / 10)).$(((best_trace - best_eval) * 1000 / best_eval % 10))%"
cat "$scratch/summary"
