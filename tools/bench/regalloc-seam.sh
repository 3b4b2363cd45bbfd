#!/usr/bin/env bash
# Do the register-allocation seams leave LLVM's code alone? For each corpus
# and each seam (eviction, priority), build/mlgo_bench_regalloc_seam compiles
# every module with LLVM's own advisors and with mlgo's hook answering the
# default advisor's choice at every decision (a position, a priority), and
# compares the two objects byte for byte; then again with the optimized IR
# taken from the compile memo.
# Corpora: the demo's -O2 and -O3 corpora (tools/demo/build-corpus.sh
# --opt-level O2|O3, both splits combined with mlgo combine-corpus) where
# DEMO_WORKDIR has them, and the correctness gate's C/C++
# programs (configs/autotune/gate-programs) at -O2 and -O3, built here with
# embedded bitcode and extracted with mlgo extract-ir.
#   tools/bench/regalloc-seam.sh BUILD_DIR [DEMO_WORKDIR] [THREADS] [SEAMS]
# SEAMS: "eviction priority" (the default), or one of them.
# Exit status 1 when any corpus has a module whose objects differ.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "$1" && pwd)"
demo="${2:-}"
threads="${3:-$(nproc)}"
seams="${4:-eviction priority}"
bench="$build/mlgo_bench_regalloc_seam"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

programs_corpus() {  # programs_corpus LEVEL: the gate programs as a corpus
  local level=$1 dir="$work/programs-$1" entries="" source name
  mkdir -p "$dir/objects"
  for source in "$root"/configs/autotune/gate-programs/*.c "$root"/configs/autotune/gate-programs/*.cpp; do
    name="$(basename "$source").o"
    clang-19 "-$level" -Xclang -fembed-bitcode=all -c "$source" -o "$dir/objects/$name"
    entries+="${entries:+,}{\"directory\": \"$dir/objects\", \"arguments\": [\"clang-19\", \"-$level\", \"-Xclang\", \"-fembed-bitcode=all\", \"-c\", \"$source\", \"-o\", \"$name\"], \"file\": \"$source\"}"
  done
  echo "[$entries]" > "$dir/objects/compile_commands.json"
  "$build/mlgo" extract-ir --input "$dir/objects/compile_commands.json" --output-dir "$dir/corpus" >/dev/null 2>&1
  echo "$dir/corpus"
}

status=0
run() {  # run LABEL CORPUS: every seam
  local out rc seam
  for seam in $seams; do
    rc=0
    echo "== $1, $seam seam"
    out="$("$bench" "$2" "$threads" "$seam")" || rc=$?
    grep -v '^differs\|^failed\|^problem' <<<"$out" || true
    grep '^differs\|^failed\|^problem' <<<"$out" | head -5 || true
    [ "$rc" -eq 0 ] || status=1
  done
}
for level in O2 O3; do
  if [ -n "$demo" ] && [ -d "$demo/$level/corpus/train" ]; then
    run "demo -$level, training projects" "$demo/$level/corpus/train"
    run "demo -$level, held-out projects" "$demo/$level/corpus/heldout"
  fi
done
for level in O2 O3; do run "gate programs -$level" "$(programs_corpus "$level")"; done
exit $status
