#!/usr/bin/env bash
# Policies, traces, exports (llvm-aot of the three problems, TorchScript) and
# ES/PPO outputs from one corpus, with what varies run to run (times, logs,
# manifests) left out: run it before and after a refactoring, into the same
# OUT path each time (policies record their inputs' paths), and diff -r the
# two. Usage: tools/bench/outputs-snapshot.sh MLGO COMPILE_COMMANDS OUT
# (e.g. build/mlgo build/test/test-project/compile_commands.json).
set -euo pipefail
M=$1
out=$3
rm -rf "$out"; mkdir -p "$out"
$M extract-ir --input "$2" --output-dir "$out/corpus" > /dev/null 2>&1
for problem in inlining regalloc regalloc-priority; do
  d="$out/$problem"
  $M default-trace --corpus "$out/corpus" --problem $problem --output "$d/trace" --threads 2 > /dev/null 2>&1
  vocab=()
  if [ $problem = inlining ]; then
    $M gen-vocab --trace "$d/trace" --output-dir "$d/vocab" > /dev/null 2>&1
    vocab=(--vocab "$d/vocab")
  fi
  $M train-bc --trace "$d/trace" "${vocab[@]}" --output "$d/bc" --seed 3 --set iterations=40 --set report_every=20 > /dev/null 2>&1
  $M export --policy "$d/bc/policy" --format llvm-aot --output "$d/aot" > /dev/null 2>&1
  $M train-es --corpus "$out/corpus" --problem $problem --warmstart "$d/bc" --baselines "$d/trace" --output "$d/es" --seed 3 \
     --set iterations=1 --set perturbations=2 --set modules_per_iteration=2 --set checkpoint_every=0 > /dev/null 2>&1 || echo "es $problem failed"
  $M train-ppo --corpus "$out/corpus" --problem $problem "${vocab[@]}" --baselines "$d/trace" --warmstart "$d/bc" --output "$d/ppo" --seed 3 \
     --set num_policy_iterations=1 --set num_modules=5 --set num_iterations=40 --set batch_size=8 --set train_sequence_length=4 > /dev/null 2>&1 || echo "ppo $problem failed"
  # eval's table, its wall time left out
  { $M eval --corpus "$out/corpus" --problem $problem --policy "$d/bc/policy" 2>/dev/null || true; } |
    sed -E 's/; [0-9.]+ s on [0-9]+ threads$//' > "$d/eval.txt"
done
$M export --policy "$out/inlining/bc/policy" --format torchscript --output "$out/inlining/policy.pt" > /dev/null 2>&1 || echo "torchscript failed"
# what differs run to run: times, paths and the manifests that hold them
find "$out" \( -name '*.jsonl' -o -name 'manifest.json' -o -name '*.tfevents*' -o -name '*.log' \) -delete
