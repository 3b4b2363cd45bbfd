#!/usr/bin/env bash
# Learning from builds: a CMake project built again and again through
# `mlgo cc --store --explore N`, as a developer or CI rebuilds it.
#   1. clang-19 alone, RUNS clean builds (the plain build and its time);
#   2. BUILDS clean builds with --store and --explore N (and --predict),
#      links through mlgo cc too (each never larger than its plain link);
#      after each, what mlgo store-info reports: the linked files'
#      .text+.data shipped against their plain links, and the store's gain
#      over every unit's recorded level; and the trials the build spent;
#   3. RUNS clean builds with the store alone (every unit a store hit),
#      each after one more plain build.
# Prints one JSON line per build and a summary: the hit builds' median wall
# time against the plain builds' they alternated with.
# Usage: tools/bench/store-builds.sh MLGO WORKDIR SOURCE BUILDS EXPLORE [RUNS] [JOBS] [-- CMAKE_ARGS...]
#   BUILDS 0: no explore build; time the plain and store-hit builds again with
#   the store an earlier run left in WORKDIR.
#   SOURCE: the project's CMake source directory (tools/demo/build-corpus.sh's
#   NAME/src); CMAKE_ARGS: its configure arguments (-Oz is set here).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/launcher.sh"
mlgo=$(realpath "$1") work=$(realpath -m "$2") source=$(realpath "$3") builds=$4 explore=$5
runs=${6:-3} jobs=${7:-2}
shift $(($# < 7 ? $# : 7))
[[ "${1:-}" == "--" ]] && shift
cmake_args=(-G Ninja -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_BUILD_TYPE=None
  -DCMAKE_C_FLAGS=-Oz -DCMAKE_CXX_FLAGS=-Oz "$@")
mkdir -p "$work"
# MLGO_BENCH_STORE: another store (postgresql://...: tools/bench/local-postgres.sh).
store="${MLGO_BENCH_STORE:-$work/units.db}"

configure() {  # configure BUILD_DIR [launcher FLAGS...]: compiles and links through mlgo cc FLAGS...
  local launcher=()
  if [[ "${2:-}" == launcher ]]; then mlgo_launcher "$mlgo" "${@:3}"; fi
  cmake -S "$source" -B "$1" "${cmake_args[@]}" "${launcher[@]}" > "$1.configure.log"
}

timed_build() {  # timed_build BUILD_DIR: prints "WALL CPU" seconds (CPU: user + system)
  local dir=$1
  ninja -C "$dir" clean > /dev/null
  /usr/bin/time -f "%e %U %S" -o "$dir.time" ninja -C "$dir" -j "$jobs" > "$dir.build.log"
  read -r wall user system < "$dir.time"
  python3 -c "print($wall, round($user + $system, 2))"
}

configure "$work/plain"
plain_times=() plain_cpu=()
for run in $(seq "$runs"); do
  read -r wall cpu < <(timed_build "$work/plain")
  plain_times+=("$wall") plain_cpu+=("$cpu")
done
python3 -c 'import json, sys; print(json.dumps({"build": "plain", "seconds": [float(s) for s in sys.argv[1].split()],
                 "cpu_seconds": [float(s) for s in sys.argv[2].split()]}))' "${plain_times[*]}" "${plain_cpu[*]}"

# BUILDS 0: time the plain and store-hit builds of the store a run left.
((builds > 0)) && [[ "$store" != postgres* ]] && rm -f "$store" "$store-wal" "$store-shm"
for build in $(seq "$builds"); do
  configure "$work/store" launcher --store "$store" --explore "$explore" --predict --log "$work/explore-$build.jsonl"
  read -r seconds cpu < <(timed_build "$work/store")
  info=$("$mlgo" store-info --store "$store" --json)
  python3 - "$build" "$seconds" "$cpu" "$info" "$work/explore-$build.jsonl" <<'PY'
import json, sys
build, seconds, cpu = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
info = json.loads(sys.argv[4])
linked = info["linked"]  # mlgo's own figures: each file's shipped link against its plain link
larger = sorted(f["output"] for f in linked["files"] if f["shipped_text_data"] > f["plain_text_data"])
new_trials = sum(json.loads(line).get("new_trials", 0) for line in open(sys.argv[5]))
print(json.dumps({"build": int(build), "seconds": seconds, "cpu_seconds": cpu, "units": info["units"],
                  "trials": info["trials"], "new_trials": new_trials, "linked_files": len(linked["files"]),
                  "store_geomean": round(info["geomean_change"], 5), "store_total": round(info["total_change"], 5),
                  "linked_total": round(linked["change"], 5), "linked_removed_bytes": linked["removed_bytes"],
                  "linked_larger": larger}))
PY
done

# The hit builds alternate with plain ones, so that the machine's drift
# between runs falls on both alike.
hit_times=() hit_cpu=() plain_times=() plain_cpu=()
for run in $(seq "$runs"); do
  read -r wall cpu < <(timed_build "$work/plain")
  plain_times+=("$wall") plain_cpu+=("$cpu")
  rm -f "$work/hit-$run.jsonl"
  configure "$work/store" launcher --store "$store" --log "$work/hit-$run.jsonl"
  read -r wall cpu < <(timed_build "$work/store")
  hit_times+=("$wall") hit_cpu+=("$cpu")
done
python3 - "${plain_times[*]}" "${hit_times[*]}" "$work/hit-$runs.jsonl" "${plain_cpu[*]}" "${hit_cpu[*]}" <<'PY'
import json, statistics, sys
plain = statistics.median(map(float, sys.argv[1].split()))
hit = statistics.median(map(float, sys.argv[2].split()))
plain_cpu = statistics.median(map(float, sys.argv[4].split()))
hit_cpu = statistics.median(map(float, sys.argv[5].split()))
uses = {}
for line in open(sys.argv[3]):
    use = json.loads(line).get("store", "none")
    uses[use] = uses.get(use, 0) + 1
print(json.dumps({"plain_median": plain, "hit_median": hit, "hit_vs_plain": round(hit / plain, 3),
                  "plain_cpu_median": plain_cpu, "hit_cpu_median": hit_cpu,
                  "hit_cpu_vs_plain": round(hit_cpu / plain_cpu, 3), "last_hit_build": uses}))
PY
