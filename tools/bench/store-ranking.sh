#!/usr/bin/env bash
# The store teaches the predictor: on a CMake project no mlgo data has seen,
# half of its units (every other object target, in name order) are explored
# (`mlgo cc --store --explore N --predict`, BUILDS builds); then each unit of
# the other half is compiled once with --predict --predicted-lists 1:
#   taught:  with a copy of that store, whose winning lists rank first;
#   shipped: with an empty store, the shipped predictor's ranking alone.
# Each unit of the measured half gets a store of its own (a copy), so that no
# measured unit's choice ranks lists for another. Both ways gate the list as
# the store does. Prints the geomean .text+.data change of the measured half
# against each unit's recorded level, per way.
# Usage: tools/bench/store-ranking.sh MLGO WORKDIR SOURCE [BUILDS] [EXPLORE] [-- CMAKE_ARGS...]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/launcher.sh"
mlgo=$(realpath "$1") work=$(realpath -m "$2") source=$(realpath "$3") builds=${4:-2} explore=${5:-5}
shift $(($# < 5 ? $# : 5))
[[ "${1:-}" == "--" ]] && shift
cmake_args=("$@")
mkdir -p "$work"
build="$work/build"
configure() {  # configure [FLAGS...]: the tree's compiles through mlgo cc FLAGS...
  local launcher=()
  mlgo_compile_launcher "$mlgo" "$@"
  cmake -S "$source" -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    -DCMAKE_BUILD_TYPE=None -DCMAKE_C_FLAGS=-Oz -DCMAKE_CXX_FLAGS=-Oz "${cmake_args[@]}" "${launcher[@]}" \
    > "$work/configure.log"
}
taught="$work/taught.db"
store="$work/unit.db"
configure --store "$taught" --explore "$explore" --predict
mapfile -t objects < <(ninja -C "$build" -t targets all | sed -n 's/^\([^:]*\.o\): .*/\1/p' | sort)
explored=() measured=()
for i in "${!objects[@]}"; do
  if ((i % 2 == 0)); then explored+=("${objects[$i]}"); else measured+=("${objects[$i]}"); fi
done
rm -f "$taught" "$taught-wal" "$taught-shm"
for run in $(seq "$builds"); do
  (cd "$build" && rm -f "${explored[@]}")
  ninja -C "$build" "${explored[@]}" > /dev/null
done
"$mlgo" store-info --store "$taught" >&2
for way in taught shipped; do
  rm -f "$work/$way.jsonl"
  # Every measured unit compiles with the one path $store (a fresh copy each): one configure per way.
  configure --store "$store" --predict --log "$work/$way.jsonl"
  for object in "${measured[@]}"; do
    rm -f "$store" "$store-wal" "$store-shm"
    [[ "$way" == taught ]] && "$mlgo" store-merge --output "$store" "$taught" 2> /dev/null
    (cd "$build" && rm -f "$object")
    ninja -C "$build" "$object" > /dev/null
  done
done
python3 - "$work" "${#explored[@]}" <<'PY'
import json, math, sys
work, explored = sys.argv[1], int(sys.argv[2])
for way in ("taught", "shipped"):
    logs = [json.loads(line) for line in open(f"{work}/{way}.jsonl")]
    ratios = [l["text_data"] / l["recorded_text_data"] for l in logs if l.get("recorded_text_data")]
    improved = sum(r < 1 for r in ratios)
    geomean = math.exp(sum(map(math.log, ratios)) / len(ratios)) - 1
    print(json.dumps({"way": way, "explored_units": explored, "measured_units": len(ratios),
                      "improved": improved, "geomean_change": round(geomean, 5)}))
PY
