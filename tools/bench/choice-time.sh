#!/usr/bin/env bash
# The build time of a choice file: a CMake project (MinSizeRel at -Oz, Ninja,
# -j2) built plainly with clang-19 and through `mlgo cc --choices CHOICES`,
# RUNS clean builds each, alternating; prints each build's wall, user and
# system seconds, then the medians and their ratio.
# Usage: tools/bench/choice-time.sh MLGO WORKDIR SOURCE CHOICES [RUNS] [-- CMAKE_ARGS...]
#   CHOICES: a compare-builds choices.json of the same project (units named as
#   its build names its objects).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/launcher.sh"
mlgo=$(realpath "$1") work=$(realpath -m "$2") source=$(realpath "$3") choices=$(realpath "$4") runs=${5:-5}
shift $(($# < 5 ? $# : 5))
[[ "${1:-}" == "--" ]] && shift
args=(-G Ninja -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_BUILD_TYPE=MinSizeRel
  "-DCMAKE_C_FLAGS_MINSIZEREL=-Oz -DNDEBUG" "-DCMAKE_CXX_FLAGS_MINSIZEREL=-Oz -DNDEBUG" "$@")
mkdir -p "$work"
cmake -S "$source" -B "$work/plain" "${args[@]}" > "$work/plain.configure.log"
mlgo_compile_launcher "$mlgo" --choices "$choices"
cmake -S "$source" -B "$work/choices" "${args[@]}" "${launcher[@]}" > "$work/choices.configure.log"
timed() {  # timed DIR: "WALL USER SYSTEM"
  local dir=$1
  ninja -C "$dir" clean > /dev/null
  /usr/bin/time -f "%e %U %S" -o "$dir.time" ninja -C "$dir" -j 2 > /dev/null
  cat "$dir.time"
}
for run in $(seq "$runs"); do
  echo "plain $(timed "$work/plain")"
  echo "choices $(timed "$work/choices")"
done | tee "$work/times.txt"
python3 - "$work/times.txt" <<'PY'
import statistics, sys
wall, cpu = {}, {}
for line in open(sys.argv[1]):
    way, w, u, s = line.split()
    wall.setdefault(way, []).append(float(w))
    cpu.setdefault(way, []).append(float(u) + float(s))
m = {k: statistics.median(v) for k, v in wall.items()}
c = {k: statistics.median(v) for k, v in cpu.items()}
print(f"plain {m['plain']:.2f} s, choices {m['choices']:.2f} s: {m['choices'] / m['plain']:.3f}x wall, "
      f"{c['choices'] / c['plain']:.3f}x CPU")
PY
