#!/usr/bin/env bash
# A CI fleet on one machine: WORKSPACES checkouts of one project at different
# paths (runner-1/..., runner-2/..., as CI runners' workspaces), built in
# turn, ROUNDS times over, through `mlgo cc --store --explore N --predict`
# against ONE shared store. Units' keys leave the tree's paths out (keys that
# travel), so every workspace learns from every other's builds.
# Prints one JSON line per build: the fleet's build count, its round and
# workspace, wall and CPU seconds, the trials it spent, and the workspace's
# linked files' .text+.data shipped against their plain links (mlgo
# store-info's figures for the outputs under that workspace).
# Usage: tools/bench/store-fleet.sh MLGO WORKDIR SOURCE WORKSPACES ROUNDS EXPLORE [JOBS] [-- CMAKE_ARGS...]
#   SOURCE: the project's CMake source directory; CMAKE_ARGS: its configure
#   arguments (-Oz is set here).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/launcher.sh"
mlgo=$(realpath "$1") work=$(realpath -m "$2") source=$(realpath "$3") workspaces=$4 rounds=$5 explore=$6
jobs=${7:-2}
shift $(($# < 7 ? $# : 7))
[[ "${1:-}" == "--" ]] && shift
cmake_args=(-G Ninja -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 -DCMAKE_BUILD_TYPE=None
  -DCMAKE_C_FLAGS=-Oz -DCMAKE_CXX_FLAGS=-Oz "$@")
# MLGO_BENCH_STORE: another store, e.g. a server's (postgresql://...:
# tools/bench/local-postgres.sh start DIR prints one on this machine).
store="${MLGO_BENCH_STORE:-$work/fleet.db}"
rm -rf "$work" && mkdir -p "$work"

for w in $(seq "$workspaces"); do
  tree="$work/runner-$w/project"
  mkdir -p "$tree" && cp -a "$source/." "$tree/"
done

count=0
for round in $(seq "$rounds"); do
  for w in $(seq "$workspaces"); do
    count=$((count + 1))
    tree="$work/runner-$w/project"
    log="$work/build-$count.jsonl"
    # mlgo cc's flags name the build's log: the tree is configured for each build, untimed.
    mlgo_launcher "$mlgo" --store "$store" --explore "$explore" --predict --log "$log"
    cmake -S "$tree" -B "$tree/build" "${cmake_args[@]}" "${launcher[@]}" > "$work/runner-$w.configure.log"
    ninja -C "$tree/build" clean > /dev/null
    /usr/bin/time -f "%e %U %S" -o "$work/time" ninja -C "$tree/build" -j "$jobs" > "$work/build-$count.log"
    read -r wall user system < "$work/time"
    "$mlgo" store-info --store "$store" --json > "$work/info-$count.json"
    python3 - "$count" "$round" "$w" "$wall" "$user" "$system" "$work/info-$count.json" "$log" "$tree/" <<'PY'
import json, sys
count, round_, w = map(int, sys.argv[1:4])
wall, user, system = map(float, sys.argv[4:7])
info = json.load(open(sys.argv[7]))
mine = [f for f in info["linked"]["files"] if f["output"].startswith(sys.argv[9])]
shipped = sum(f["shipped_text_data"] for f in mine)
plain = sum(f["plain_text_data"] for f in mine)
lines = [json.loads(line) for line in open(sys.argv[8])]
uses = {}
for line in lines:
    if "store" in line:
        uses[line["store"]] = uses.get(line["store"], 0) + 1
print(json.dumps({"fleet_build": count, "round": round_, "workspace": w, "seconds": wall,
                  "cpu_seconds": round(user + system, 2), "new_trials": sum(l.get("new_trials", 0) for l in lines),
                  "uses": uses, "store_units": info["units"], "linked_files": len(mine),
                  "linked_total": round(shipped / plain - 1, 5) if plain else None}), flush=True)
PY
  done
done
