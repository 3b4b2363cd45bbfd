#!/usr/bin/env bash
# The linked ceiling of a CMake project: the units as its own build compiles
# them, recorded (`mlgo cc --record`), searched by `mlgo autotune --budget B`,
# and the best list of each applied to the project's build and judged linked
# by `mlgo compare-builds --pass-lists` (the raw way: the lists as they are;
# the choice way: never larger). What ten builds through a store are held to.
# Usage: tools/bench/linked-ceiling.sh MLGO WORKDIR SOURCE BUDGET [-- CMAKE_ARGS...]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/launcher.sh"
mlgo=$(realpath "$1") work=$(realpath -m "$2") source=$(realpath "$3") budget=$4
shift $(($# < 4 ? $# : 4))
[[ "${1:-}" == "--" ]] && shift
rm -rf "$work" && mkdir -p "$work"
mlgo_compile_launcher "$mlgo" --record "$work/corpus"
cmake -S "$source" -B "$work/record" -G Ninja -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DCMAKE_BUILD_TYPE=None -DCMAKE_C_FLAGS=-Oz -DCMAKE_CXX_FLAGS=-Oz "${launcher[@]}" "$@" > "$work/record.log"
ninja -C "$work/record" -j 2 >> "$work/record.log"
/usr/bin/time -f "autotune: %e s" "$mlgo" autotune --corpus "$work/corpus" --output "$work/tuned" --budget "$budget" \
  --metric text+data --threads 2 > "$work/autotune.txt"
tail -3 "$work/autotune.txt"
configure=()
for arg in "$@"; do configure+=(--configure-arg "$arg"); done
"$mlgo" compare-builds --project "$source" --output "$work/builds" --pass-lists "$work/tuned/best.json" \
  --jobs 2 "${configure[@]}" --force
