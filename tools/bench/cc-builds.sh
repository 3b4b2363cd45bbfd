#!/usr/bin/env bash
# mlgo cc on a real project: xz-utils (Debian 12's source package, pinned in
# tools/demo/projects.txt), built by its own CMake build at -Oz with
# `mlgo compare-builds`, RUNS times. Each run builds it with clang-19 alone,
# through mlgo cc with nothing to apply, with a behavioural-cloning policy
# trained on xz-utils' own default trace (also with --never-larger), with the
# shipped predictor's first list beside -Oz (--predict), and with the choice
# file of each unit's smallest linked way; every build runs xz-utils' test
# suite and a compression benchmark (xz -6 of 1.5 million numbers, median of
# 5).
# Prints each way's median build time against clang-19's (same -j), and the
# last run's table: linked .text and .text+data beside the object sums.
# Usage: tools/bench/cc-builds.sh build/mlgo WORKDIR [RUNS] [JOBS]
set -euo pipefail
mlgo=$(realpath "$1") work=$(realpath -m "$2") runs=${3:-3} jobs=${4:-2}
here=$(dirname "$(realpath "$0")")
mkdir -p "$work"
# The source (and the -Oz corpus the policy learns from).
MLGO="$mlgo" "$here/../demo/build-corpus.sh" --workdir "$work/demo" --projects xz-utils >&2
src="$work/demo/xz-utils/src"
if [[ ! -f "$work/bc/policy/policy.json" ]]; then
  "$mlgo" default-trace --corpus "$work/demo/corpus/train/xz-utils" --output "$work/trace" --force >&2
  "$mlgo" gen-vocab --trace "$work/trace" --output-dir "$work/vocab" >&2
  "$mlgo" train-bc --trace "$work/trace" --vocab "$work/vocab" --output "$work/bc" --force >&2
fi
for run in $(seq "$runs"); do
  "$mlgo" compare-builds --project "$src" --output "$work/builds-$run" --force --jobs "$jobs" \
    --policy "$work/bc/policy" --never-larger --predict --bench "seq 1 1500000 | ./xz -6 -c > /dev/null" \
    --configure-arg=-DCMAKE_BUILD_TYPE=None --configure-arg=-DCMAKE_C_FLAGS=-Oz \
    --configure-arg=-DCREATE_XZ_SYMLINKS=OFF --configure-arg=-DCREATE_LZMA_SYMLINKS=OFF > "$work/table-$run.txt"
done
python3 - "$work" "$runs" <<'PY'
import json, statistics, sys
work, runs = sys.argv[1], int(sys.argv[2])
seconds, bench = {}, {}
for run in range(1, runs + 1):
    for v in json.load(open(f"{work}/builds-{run}/comparison.json"))["variants"]:
        seconds.setdefault(v["name"], []).append(v["build_seconds"])
        bench.setdefault(v["name"], []).append(v.get("bench_seconds", 0))
        if v["tests"] != "passed": print(f"run {run}: {v['name']}: tests {v['tests']}")
base = statistics.median(seconds["clang-19"])
for name, values in seconds.items():
    m = statistics.median(values)
    print(f"{name:12s} build {m:6.1f} s (median of {len(values)}), {m / base:.2f}x clang-19; "
          f"xz -6 benchmark {statistics.median(bench[name]):.2f} s (median of the runs' medians)")
PY
cat "$work/table-$runs.txt"
