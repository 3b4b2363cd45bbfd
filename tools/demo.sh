#!/usr/bin/env bash
# The README's main command: installs dependencies, builds mlgo, makes a corpus,
# and runs the pipeline stages that exist so far on it:
#   extract-ir -> eval (default, never, always inlining) -> default-trace -> gen-vocab
#   -> train-bc (a short run) -> eval --policy -> train-ppo (a short run) -> eval --policy
#   -> export (llvm-aot, torchscript) -> serve (a stock clang-19 compiles with the policy)
#
# Corpus: the small built-in demo project (C and C++ sources under test/data,
# compiled here with clang-19 -Oz -Xclang -fembed-bitcode=all). The real-code
# corpus from pinned Debian source packages is built by
# tools/demo/build-corpus.sh (see tools/demo/README.md).
# Outputs go to $MLGO_DEMO_DIR (default: demo-output/ in the repository).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${MLGO_DEMO_DIR:-$root/demo-output}"
threads="${MLGO_THREADS:-0}"

step() { printf '\n== %s\n' "$*" >&2; }
timed() { local start=$SECONDS; "$@"; echo "   ($((SECONDS - start)) s)" >&2; }

step "installing dependencies"
timed "$root/tools/install-deps.sh"
step "building mlgo"
build="$(timed "$root/tools/build.sh")"
mlgo="$build/mlgo"
mkdir -p "$out"

step "building the demo project with clang-19 -Oz -Xclang -fembed-bitcode=all"
timed sh "$root/test/data/make_test_build.sh" "$(command -v clang-19)" "$root/test/data" "$out/project"

step "mlgo extract-ir"
timed "$mlgo" extract-ir --input "$out/project/compile_commands.json" --output-dir "$out/corpus" --threads "$threads"
for choice in never always; do
  step "mlgo eval --inline $choice"
  timed "$mlgo" eval --corpus "$out/corpus" --inline "$choice" --json "$out/eval-$choice.json" --threads "$threads" \
    > "$out/eval-$choice.txt" || [ $? -eq 4 ]
done
step "mlgo eval --check-fidelity (against clang-19 -cc1 subprocesses)"
timed "$mlgo" eval --corpus "$out/corpus" --check-fidelity --json "$out/eval-default.json" --threads "$threads" \
  > "$out/eval-default.txt" || [ $? -eq 4 ]
step "mlgo default-trace"
timed "$mlgo" default-trace --corpus "$out/corpus" --output "$out/trace" --threads "$threads" || [ $? -eq 4 ]
step "mlgo gen-vocab"
timed "$mlgo" gen-vocab --trace "$out/trace" --output-dir "$out/vocab"

step "mlgo train-bc (demo budget: MLGO_BC_ITERATIONS, default 3000)"
timed "$mlgo" train-bc --trace "$out/trace" --vocab "$out/vocab" --output "$out/warmstart" \
  --config "$root/configs/inlining/bc.json" --set iterations="${MLGO_BC_ITERATIONS:-3000}" --set report_every=1000 \
  --set holdout_fraction=0 --set checkpoint_every=0
step "mlgo eval --policy"
timed "$mlgo" eval --corpus "$out/corpus" --policy "$out/warmstart" --json "$out/eval-bc.json" --threads "$threads" \
  > "$out/eval-bc.txt" || [ $? -eq 4 ]

# The demo project has about 125 decisions: 100 gradient steps per iteration are plenty.
step "mlgo train-ppo (demo budget: MLGO_PPO_ITERATIONS, default 30; a re-run resumes)"
timed "$mlgo" train-ppo --corpus "$out/corpus" --vocab "$out/vocab" --warmstart "$out/warmstart" \
  --baselines "$out/trace" --config "$root/configs/inlining/ppo-demo.json" --output "$out/ppo" --resume \
  --set num_policy_iterations="${MLGO_PPO_ITERATIONS:-30}" --set num_modules=7 --set num_iterations=100 \
  --threads "$threads"
step "mlgo eval --policy (PPO)"
timed "$mlgo" eval --corpus "$out/corpus" --policy "$out/ppo/policy" --json "$out/eval-ppo.json" --threads "$threads" \
  > "$out/eval-ppo.txt" || [ $? -eq 4 ]

step "mlgo export (llvm-aot and torchscript)"
timed "$mlgo" export --policy "$out/ppo/policy" --format llvm-aot --output "$out/InlinerSizeModel" --force
timed "$mlgo" export --policy "$out/ppo/policy" --format torchscript --output "$out/policy.pt" --force

step "mlgo serve: the Debian clang-19 compiles helpers.c with the PPO policy"
channel="$out/serve-channel"
"$mlgo" serve --policy "$out/ppo/policy" --channel "$channel" --max-sessions 1 > "$out/serve.txt" &
server=$!
while [ ! -p "$channel.out" ]; do
  kill -0 "$server" 2>/dev/null || { wait "$server"; exit 1; }  # the server failed to start
  sleep 0.1
done
clang-19 -Oz -c "$root/test/data/helpers.c" -o "$out/helpers-served.o" \
  -mllvm -enable-ml-inliner=release -mllvm -inliner-interactive-channel-base="$channel"
wait "$server"

step "results"
tail -n 3 "$out/eval-never.txt"
tail -n 3 "$out/eval-always.txt"
grep '^fidelity' "$out/eval-default.txt" | head -n 5
"$mlgo" trace-info "$out/trace" | head -n 1
tail -n 3 "$out/eval-bc.txt"
tail -n 3 "$out/eval-ppo.txt"
cat "$out/serve.txt"
echo "outputs in $out: corpus/, eval-*.json, trace/, vocab/, warmstart/, ppo/, InlinerSizeModel/, policy.pt" >&2
