#!/usr/bin/env bash
# The demo's linked results: held-out and training projects of the demo
# corpus rebuilt by their own CMake builds at -Oz through `mlgo cc`, with
# `mlgo compare-builds`: clang-19 alone, mlgo cc with nothing to apply, the
# trained policy, the shipped predictor's first list beside -Oz, and the
# choice file's build (each unit's smallest linked way, never larger than
# clang-19 in any linked file). Libraries are built shared, so that what a
# user ships is measured. Prints one table: per project and way, linked .text
# and .text+data against clang-19 beside the sums over the objects, the test
# suite's result and time, the build time, and xz-utils' compression
# benchmark (median of 5).
# One held-out project (MLGO_DEMO_CURVE_PROJECT, default pcre2) is also built
# MLGO_DEMO_STORE_BUILDS times (default 10; 0: not) in a row through one
# store with --explore 5 (compare-builds --store-builds), beside autotune's
# best lists at the same budget per module (--pass-lists: `mlgo autotune
# --budget 5N` on the project's corpus): what a project's own builds learn.
# Usage: tools/demo/linked-builds.sh MLGO PROJECTS_DIR OUTPUT POLICY [JOBS]
#   PROJECTS_DIR: tools/demo/build-corpus.sh's work directory (NAME/src)
#   POLICY: an inlining policy directory, or - for no policy build
set -euo pipefail
mlgo=$1 projects=$2 output=$3 policy=$4 jobs=${5:-$(nproc)}
common=(-DCMAKE_BUILD_TYPE=None -DCMAKE_C_FLAGS=-Oz -DCMAKE_CXX_FLAGS=-Oz)
# name split configure-arguments (the demo build's, with tests where the
# project has a suite that runs offline, libraries shared; libjsoncpp's CMake
# replaces the compiler launcher by ccache wherever it finds one)
read -r -d '' table <<'LIST' || true
pcre2      heldout -DPCRE2_SUPPORT_JIT=ON -DPCRE2_BUILD_PCRE2GREP=ON -DPCRE2_BUILD_TESTS=ON -DPCRE2_SUPPORT_LIBBZ2=OFF -DPCRE2_SUPPORT_LIBZ=OFF -DPCRE2_SUPPORT_LIBREADLINE=OFF -DPCRE2_SUPPORT_LIBEDIT=OFF -DPCRE2_SHOW_REPORT=OFF -DBUILD_SHARED_LIBS=ON
re2        heldout -DRE2_BUILD_TESTING=OFF -DBUILD_SHARED_LIBS=ON
libebml    heldout -DDISABLE_PKGCONFIG=ON -DDISABLE_CMAKE_CONFIG=ON -DBUILD_SHARED_LIBS=ON
xz-utils   train   -DCREATE_XZ_SYMLINKS=OFF -DCREATE_LZMA_SYMLINKS=OFF
libjsoncpp train   -DCCACHE_EXECUTABLE=CCACHE_EXECUTABLE-NOTFOUND -DJSONCPP_WITH_TESTS=OFF -DJSONCPP_WITH_POST_BUILD_UNITTEST=OFF -DJSONCPP_WITH_PKGCONFIG_SUPPORT=OFF -DJSONCPP_WITH_CMAKE_PACKAGE=OFF -DBUILD_SHARED_LIBS=ON -DBUILD_STATIC_LIBS=OFF -DBUILD_OBJECT_LIBS=OFF
LIST
policy_args=()
[[ "$policy" != - ]] && policy_args=(--policy "$policy")
curve_project=${MLGO_DEMO_CURVE_PROJECT:-pcre2} store_builds=${MLGO_DEMO_STORE_BUILDS:-10} explore=5
mkdir -p "$output"

# The store's curve for one project: N builds learning from one store, and
# autotune's best at the budget those builds spend per unit (N x 5 lists).
curve_args() {  # curve_args NAME
  [[ "$1" == "$curve_project" && "$store_builds" -gt 0 ]] || return 0
  local corpus="$projects/corpus/heldout/$1"
  [[ -f "$corpus/corpus_description.json" ]] || corpus="$projects/corpus/train/$1"
  rm -rf "$output/$1-autotune"
  "$mlgo" autotune --corpus "$corpus" --budget $((store_builds * explore)) --metric text+data \
    --output "$output/$1-autotune" > "$output/$1-autotune.txt" 2> "$output/$1-autotune.log"
  echo --store-builds "$store_builds" --explore "$explore" --pass-lists "$output/$1-autotune/best.json"
}
built=()
while read -r name split args; do
  [[ -z "$name" ]] && continue
  src="$projects/$name/src"
  if [[ ! -f "$src/CMakeLists.txt" ]]; then echo "linked-builds: $name: no source in $src, skipped" >&2; continue; fi
  configure=()
  for arg in "${common[@]}" $args; do configure+=("--configure-arg=$arg"); done
  bench=()
  [[ "$name" == xz-utils ]] && bench=(--bench "seq 1 1500000 | ./xz -6 -c > /dev/null")
  read -r -a curve <<< "$(curve_args "$name")"
  if "$mlgo" compare-builds --project "$src" --output "$output/$name" --force --jobs "$jobs" \
       "${policy_args[@]}" --predict "${curve[@]}" "${bench[@]}" "${configure[@]}" > "$output/$name.txt" \
       2> "$output/$name.log"; then
    built+=("$name:$split")
  else
    echo "linked-builds: $name: a build failed (see $output/$name.log and $output/$name/*/build.log)" >&2
    built+=("$name:$split")
  fi
done <<< "$table"
python3 - "$output" "${built[@]}" <<'PY'
import json, sys
output, entries = sys.argv[1], sys.argv[2:]
def pct(v): return f"{100 * v:+.2f}%"
print(f"{'project':12s} {'split':8s} {'way':10s} {'linked .text':>13s} {'objects .text':>14s} "
      f"{'linked t+d':>11s} {'objects t+d':>12s} {'tests':>7s} {'tests s':>8s} {'build':>7s} {'bench s':>8s}")
for entry in entries:
    name, split = entry.split(":")
    try:
        variants = json.load(open(f"{output}/{name}/comparison.json"))["variants"]
    except OSError:
        continue
    base = variants[0]["build_seconds"] or 1
    for v in variants:
        if not v["built"]:
            print(f"{name:12s} {split:8s} {v['name']:10s} {'build failed':>13s}"); continue
        ls, os_ = v["linked_sum"], v["objects_sum"]
        print(f"{name:12s} {split:8s} {v['name']:10s} {pct(ls.get('text_change', 0)):>13s} "
              f"{pct(os_.get('text_change', 0)):>14s} {pct(ls.get('text+data_change', 0)):>11s} "
              f"{pct(os_.get('text+data_change', 0)):>12s} {v['tests']:>7s} {v.get('test_seconds', 0):8.1f} "
              f"{v['build_seconds'] / base:6.2f}x {v.get('bench_seconds', 0) or float('nan'):8.2f}")
PY
