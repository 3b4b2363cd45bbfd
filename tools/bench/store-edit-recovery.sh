#!/usr/bin/env bash
# An edited unit's recovery: how many builds a unit takes, after its file is
# edited, to get back the gain its earlier version had in the store.
# A function is added at the end of FILE (so the unit is a new version) in
# two copies of the project, each built with a copy of STORE: in "lineage"
# the file keeps its name, and its earlier versions' choices are its first
# candidates; in "renamed" it is also renamed (FILE_edited.c, CMakeLists.txt
# changed to match), so nothing links it to its past: the store as it was
# before lineage. Each is built BUILDS times with --explore N --predict; each
# build prints the edited units' .text+.data against their recorded level,
# beside the earlier version's gain.
# Usage: tools/bench/store-edit-recovery.sh MLGO WORKDIR SOURCE STORE FILE BUILDS EXPLORE [-- CMAKE_ARGS...]
#   FILE: relative to SOURCE, e.g. src/pcre2_dfa_match.c
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/launcher.sh"
mlgo=$(realpath "$1") work=$(realpath -m "$2") source=$(realpath "$3") store=$(realpath "$4") file=$5
builds=$6 explore=$7
shift $(($# < 7 ? $# : 7))
[[ "${1:-}" == "--" ]] && shift
stem=$(basename "$file" .c)
rm -rf "$work" && mkdir -p "$work"
"$mlgo" store-info --store "$store" --json --units > "$work/before.json"
for way in lineage renamed; do
  tree="$work/$way/project"
  mkdir -p "$tree" && cp -a "$source/." "$tree/"
  cp "$store" "$work/$way/units.db"
  [[ -d "$store.objects" ]] && cp -a "$store.objects" "$work/$way/units.db.objects"
  printf '\nint mlgo_edit_probe(int x) { return 3 * x + 1; }\n' >> "$tree/$file"
  if [[ $way == renamed ]]; then
    mv "$tree/$file" "$tree/${file%.c}_edited.c"
    sed -i "s|$file|${file%.c}_edited.c|g" "$tree/CMakeLists.txt"
  fi
  for build in $(seq "$builds"); do
    # mlgo cc's flags name the build's log: the tree is configured for each build.
    mlgo_launcher "$mlgo" --store "$work/$way/units.db" --explore "$explore" --predict --log "$work/$way-$build.jsonl"
    cmake -S "$tree" -B "$tree/build" -G Ninja -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
      -DCMAKE_BUILD_TYPE=None -DCMAKE_C_FLAGS=-Oz -DCMAKE_CXX_FLAGS=-Oz "${launcher[@]}" "$@" > "$work/$way.configure.log"
    ninja -C "$tree/build" clean > /dev/null
    ninja -C "$tree/build" -j 2 > "$work/$way-$build.log"
    python3 - "$way" "$build" "$stem" "$work/before.json" "$work/$way-$build.jsonl" <<'PY'
import json, sys
way, build, stem = sys.argv[1], int(sys.argv[2]), sys.argv[3]
earlier = {}
for unit in json.load(open(sys.argv[4]))["unit_list"]:
    if f"/{stem}.c.o" in unit["module"]:
        earlier[unit["module"].split(".dir/")[0]] = round(unit["chosen_text_data"] / unit["recorded_text_data"] - 1, 5)
now = {}
for line in map(json.loads, open(sys.argv[5])):
    if stem in line.get("module", "") and "recorded_text_data" in line:
        now[line["module"].split(".dir/")[0]] = [line["store"], round(line["text_data"] / line["recorded_text_data"] - 1, 5)]
print(json.dumps({"way": way, "build": build, "edited": now, "earlier_version": earlier}), flush=True)
PY
  done
done
