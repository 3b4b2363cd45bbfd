#!/usr/bin/env bash
# Benchmark of an exported llvm::InlinerSizeModel: time per Run() on the
# decisions recorded in a trace, with a check that every decision equals the
# policy's and that Run() allocates nothing.
#   tools/bench/aot-run.sh POLICY_DIR TRACE_DIR [REPEAT]
# Needs a built mlgo (tools/build.sh) and clang-19.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${MLGO_BUILD_DIR:-$root/build}"
policy="$1" trace="$2" repeat="${3:-20}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$build/mlgo" export --policy "$policy" --format llvm-aot --output "$work/model" >&2
"$build/mlgo_bench_policy" "$policy" "$trace" 1 --dump-features "$work/features.bin" >&2
# The flags a release-mode LLVM build compiles the model with (-O3, no -march).
clang++-19 -std=c++17 -O3 -I "$work/model" "$root/tools/bench/aot_model_bench.cpp" \
  "$work/model/InlinerSizeModel.cpp" -o "$work/bench"
"$work/bench" "$work/features.bin" "$repeat"
