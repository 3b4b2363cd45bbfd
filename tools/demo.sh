#!/usr/bin/env bash
# The README's main command: the whole MLGO pipeline on real code, from a fresh
# Debian 12 machine to a table of results.
#
#   1. installs dependencies and builds mlgo;
#   2. builds the demo corpus: pinned Debian source packages of real C and C++
#      projects, each built by its own build system under bear with clang-19
#      -Oz -Xclang -fembed-bitcode=all, then `mlgo extract-ir` on each
#      (tools/demo/build-corpus.sh, tools/demo/projects.txt); training and
#      held-out projects are combined into two corpora (`mlgo combine-corpus`);
#   3. default-trace, gen-vocab, train-bc and train-ppo on the training projects;
#   4. export (llvm-aot, torchscript), a stock clang-19 compiling through
#      `mlgo serve`, eval on the training and the held-out projects, and
#      `mlgo report` (plots and report/index.html);
#   5. rebuilds held-out and training projects by their own builds through
#      `mlgo cc` (tools/demo/linked-builds.sh): linked sizes and test results,
#      and one held-out project built ten times learning from one store
#      (`--store --explore 5`) beside autotune's best at the same budget: the
#      curve goes into the report (`mlgo report --builds`);
#   6. prints the table: -Oz size, policy size and change, training and held-out,
#      and the linked programs.
#
# Environment:
#   MLGO_PPO_ITERATIONS  the demo's training budget: PPO policy iterations
#                        (default 400, about 40 minutes on 2 cores)
#   MLGO_DEMO_DIR        where everything goes (default: demo-output/ here)
#   MLGO_DEMO_CURVE_PROJECT, MLGO_DEMO_STORE_BUILDS
#                        the project built again and again through one store
#                        (default pcre2) and how often (default 10; 0: not;
#                        about 5 minutes a build on 2 cores)
#   MLGO_THREADS         compile threads (default 0: one per core)
#   MLGO_DEMO_THINLTO    1: also build zlib, bzip2 and lua5.4 with ThinLTO
#                        (-flto=thin, Debian's lld-19), extract both flavours
#                        and evaluate the policy on them (about 5 minutes)
#   MLGO_DEMO_REGALLOC   1: also build every project with -O2 (the register-
#                        allocation problem's corpus) and trace LLVM's default
#                        eviction decisions on its training projects
#                        (default-trace --problem regalloc; about 6 minutes)
# A re-run skips every step whose inputs did not change (stamps in
# $MLGO_DEMO_DIR/.stamps); a larger MLGO_PPO_ITERATIONS resumes training.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${MLGO_DEMO_DIR:-$root/demo-output}"
threads="${MLGO_THREADS:-0}"
ppo_iterations="${MLGO_PPO_ITERATIONS:-400}"
case "$ppo_iterations" in '' | *[!0-9]* | 0)
  echo "demo: MLGO_PPO_ITERATIONS must be a positive number, not '$ppo_iterations'" >&2; exit 2 ;;
esac

mkdir -p "$out/.stamps"
steps="$out/steps.tsv"
printf 'step\tseconds\tstatus\n' > "$steps"
step() { printf '\n== %s\n' "$*" >&2; }

# Content hash of files and directories (names and bytes), for step stamps.
hash_of() {
  local path
  for path in "$@"; do
    if [ -d "$path" ]; then
      (cd "$path" && find . -type f ! -path './.stamps/*' ! -name .mlgo-lock -print0 | LC_ALL=C sort -z | xargs -0r sha256sum)
    elif [ -e "$path" ]; then
      sha256sum < "$path"
    else
      echo "missing $path"
    fi
  done | sha256sum | cut -c1-64
}

# cached NAME OUTPUT INPUT_KEY -- COMMAND...: runs COMMAND unless the stamp of
# NAME says it already ran with the same inputs, mlgo binary and command and
# OUTPUT is still there. A run that did not finish leaves no stamp.
cached() {
  local name=$1 output=$2 key=$3
  shift 4
  local stamp="$out/.stamps/$name" start=$SECONDS
  key="$(printf '%s\n' "$key" "$mlgo_hash" "$*" | sha256sum | cut -c1-64)"
  if [ -e "$output" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$key" ]; then
    echo "   (unchanged inputs: skipped)" >&2
    printf '%s\t0\tcached\n' "$name" >> "$steps"
    return 0
  fi
  rm -f "$stamp"
  "$@"
  echo "$key" > "$stamp"
  echo "   ($((SECONDS - start)) s)" >&2
  printf '%s\t%s\tran\n' "$name" "$((SECONDS - start))" >> "$steps"
}
# Steps that are not cached (cheap, or resumable on their own).
timed() {
  local name=$1 start=$SECONDS
  shift
  "$@"
  echo "   ($((SECONDS - start)) s)" >&2
  printf '%s\t%s\tran\n' "$name" "$((SECONDS - start))" >> "$steps"
}
# eval exits 4 when some modules failed: they are named, the rest is measured.
eval_ok() { "$@" || [ $? -eq 4 ]; }

step "installing dependencies"
timed install-deps "$root/tools/install-deps.sh"
step "building mlgo"
build_start=$SECONDS
build="$("$root/tools/build.sh")"
printf 'build\t%s\tran\n' "$((SECONDS - build_start))" >> "$steps"
mlgo="$build/mlgo"
# The executable and its shared libraries (libmlgo_training.so holds training).
mlgo_hash="$(cat "$mlgo" "$build"/libmlgo_*.so | sha256sum | cut -c1-64)"

step "demo corpus: pinned Debian source packages built with clang-19 under bear, then mlgo extract-ir"
timed corpus env MLGO="$mlgo" "$root/tools/demo/build-corpus.sh" --workdir "$out/projects"
corpus_key="$(cat "$root/tools/demo/projects.txt" "$out"/projects/.stamps/* | sha256sum | cut -c1-64)"
for split in train heldout; do
  step "mlgo combine-corpus ($split projects)"
  cached "combine-$split" "$out/projects/corpus/$split/corpus_description.json" "$corpus_key" -- \
    "$mlgo" combine-corpus --root "$out/projects/corpus/$split"
done
train="$out/projects/corpus/train"
heldout="$out/projects/corpus/heldout"
train_key="$(hash_of "$train")"

step "mlgo default-trace (training projects)"
cached default-trace "$out/trace" "$train_key" -- \
  eval_ok "$mlgo" default-trace --corpus "$train" --output "$out/trace" --force --threads "$threads"
step "mlgo gen-vocab"
cached gen-vocab "$out/vocab" "$(hash_of "$out/trace")" -- \
  "$mlgo" gen-vocab --trace "$out/trace" --output-dir "$out/vocab"
step "mlgo train-bc (warm start)"
cached train-bc "$out/warmstart" "$(hash_of "$out/trace" "$out/vocab" "$root/configs/inlining/bc.json")" -- \
  "$mlgo" train-bc --trace "$out/trace" --vocab "$out/vocab" --output "$out/warmstart" --force \
  --config "$root/configs/inlining/bc.json"

# train-ppo resumes on its own: a re-run continues (or finds it finished);
# other inputs changed -> start over.
step "mlgo train-ppo (demo budget: MLGO_PPO_ITERATIONS=$ppo_iterations policy iterations)"
ppo_key="$(printf '%s\n' "$train_key" "$(hash_of "$out/warmstart/policy" "$out/vocab" \
  "$root/configs/inlining/ppo-demo.json")" "$mlgo_hash" | sha256sum | cut -c1-64)"
if [ "$(cat "$out/.stamps/train-ppo-inputs" 2>/dev/null)" != "$ppo_key" ]; then
  rm -rf "$out/ppo"
  echo "$ppo_key" > "$out/.stamps/train-ppo-inputs"
fi
timed train-ppo "$mlgo" train-ppo --corpus "$train" --vocab "$out/vocab" --warmstart "$out/warmstart" \
  --baselines "$out/trace" --config "$root/configs/inlining/ppo-demo.json" --output "$out/ppo" --resume \
  --set num_policy_iterations="$ppo_iterations" --threads "$threads"
policy="$out/ppo/policy"
policy_key="$(hash_of "$policy")"

step "mlgo eval: the PPO policy against -Oz, training and held-out projects"
# The per-module tables go to eval-*.txt; the JSON is what the report reads.
evaluate() { eval_ok "$mlgo" eval --corpus "$1" --policy "$policy" --json "$2.json" --threads "$threads" > "$2.txt"; }
cached eval-train "$out/eval-train.json" "$train_key $policy_key" -- evaluate "$train" "$out/eval-train"
cached eval-heldout "$out/eval-heldout.json" "$(hash_of "$heldout") $policy_key" -- \
  evaluate "$heldout" "$out/eval-heldout"

step "mlgo export (llvm-aot and torchscript)"
cached export-aot "$out/InlinerSizeModel" "$policy_key" -- \
  "$mlgo" export --policy "$policy" --format llvm-aot --output "$out/InlinerSizeModel" --force
cached export-torchscript "$out/policy.pt" "$policy_key" -- \
  "$mlgo" export --policy "$policy" --format torchscript --output "$out/policy.pt" --force

step "mlgo serve: the stock clang-19 compiles a file with the PPO policy"
serve_demo() {
  local channel="$out/serve-channel"
  "$mlgo" serve --policy "$policy" --channel "$channel" --max-sessions 1 > "$out/serve.txt" &
  local server=$!
  while [ ! -p "$channel.out" ]; do
    kill -0 "$server" 2>/dev/null || { wait "$server"; return 1; }  # the server failed to start
    sleep 0.1
  done
  clang-19 -Oz -c "$root/test/data/helpers.c" -o "$out/served.o" \
    -mllvm -enable-ml-inliner=release -mllvm -inliner-interactive-channel-base="$channel" \
    -mllvm -ml-advisor-size-increase-threshold=1000
  wait "$server"
}
timed serve serve_demo

step "mlgo autotune --strategy predicted: pass lists for the held-out projects from mlgo's predictor, no search"
# The first 5 lists of the shipped predictor's ranking and -Oz, the smallest
# kept (6 compiles a module; a search spends about 500).
predict_passes() {
  "$mlgo" autotune --corpus "$heldout" --strategy predicted --budget 5 --output "$out/predicted" \
    --threads "$threads" > "$out/predicted.txt"
}
cached predicted-passes "$out/predicted.txt" "$(hash_of "$heldout" "$root/configs/autotune/pass-predictor")" -- \
  predict_passes

step "linked programs: held-out and training projects rebuilt by their own builds through mlgo cc"
# clang-19 alone, mlgo cc with nothing, the PPO policy, the predictor's first
# list and -Oz; linked .text beside the object sums, and the tests' results.
linked_builds() {
  "$root/tools/demo/linked-builds.sh" "$mlgo" "$out/projects" "$out/linked" "$policy" > "$out/linked.txt"
}
cached linked-builds "$out/linked.txt" "$policy_key $(hash_of "$out/projects/projects.tsv" \
  "$root/configs/autotune/pass-predictor") ${MLGO_DEMO_CURVE_PROJECT:-pcre2} ${MLGO_DEMO_STORE_BUILDS:-10}" -- \
  linked_builds

if [ "${MLGO_DEMO_THINLTO:-0}" = 1 ]; then
  step "ThinLTO corpora: zlib, bzip2 and lua5.4 built with -flto=thin -fuse-ld=lld, extract-ir --thinlto-build local and distributed"
  timed thinlto-corpus env MLGO="$mlgo" "$root/tools/demo/build-corpus.sh" --workdir "$out/projects" --thinlto
  for flavour in local distributed; do
    thinlto_corpus="$out/projects/thinlto/corpus/$flavour"
    "$mlgo" combine-corpus --root "$thinlto_corpus"
    # The PPO policy on the post-import modules, and the driver against
    # clang's own ThinLTO backend (--check-fidelity).
    thinlto_eval() {
      eval_ok "$mlgo" eval --corpus "$1" --policy "$policy" --check-fidelity --json "$2.json" \
        --threads "$threads" > "$2.txt"
    }
    cached "eval-thinlto-$flavour" "$out/eval-thinlto-$flavour.json" "$(hash_of "$thinlto_corpus") $policy_key" -- \
      thinlto_eval "$thinlto_corpus" "$out/eval-thinlto-$flavour"
  done
fi

if [ "${MLGO_DEMO_REGALLOC:-0}" = 1 ]; then
  step "register allocation: the projects built with -O2, LLVM's default eviction decisions traced"
  timed regalloc-corpus env MLGO="$mlgo" "$root/tools/demo/build-corpus.sh" --workdir "$out/projects" --opt-level O2
  for split in train heldout; do "$mlgo" combine-corpus --root "$out/projects/O2/corpus/$split"; done
  regalloc_trace() {
    eval_ok "$mlgo" default-trace --problem regalloc --corpus "$out/projects/O2/corpus/train" \
      --output "$out/regalloc-trace" --threads "$threads" --force > /dev/null
    "$mlgo" trace-info "$out/regalloc-trace" | sed -n 1p > "$out/regalloc-trace.txt"
  }
  cached regalloc-trace "$out/regalloc-trace.txt" "$(hash_of "$out/projects/O2/corpus/train")" -- regalloc_trace
fi

step "mlgo report: plots and one HTML page"
# The store's curve: what the curve project's ten builds learned (linked/).
curve="${MLGO_DEMO_CURVE_PROJECT:-pcre2}"
curve_args=()
[ -f "$out/linked/$curve/comparison.json" ] && curve_args=(--builds "$curve=$out/linked/$curve/comparison.json")
make_report() {
  "$mlgo" report --run "$out/ppo" --eval "training=$out/eval-train.json" --eval "held-out=$out/eval-heldout.json" \
    "${curve_args[@]}" --output "$out/report" > "$out/report.txt"
}
cached report "$out/report.txt" "$(hash_of "$out/ppo/metrics.jsonl" "$out/eval-train.json" \
  "$out/eval-heldout.json" "$out/linked.txt")" -- make_report

step "results"
{
  echo "wall time per step (s):"
  column -t -s $'\t' "$steps" | sed 's/^/  /'
  echo
  cat "$out/serve.txt"
  echo
  echo ".text with the PPO policy vs -Oz (the default heuristic); $curve's builds learning from one store:"
  sed 's/^/  /' "$out/report.txt"
  echo
  echo "held-out projects, the predictor's 5 first pass lists and -Oz (text+data):"
  sed 's/^/  /' "$out/predicted.txt"
  echo
  echo "linked programs and libraries against clang-19 (and the sums over their objects), tests, build time:"
  sed 's/^/  /' "$out/linked.txt"
  echo
  echo "outputs in $out:"
  echo "  projects/corpus/{train,heldout}  corpora (projects/projects.tsv lists the projects and their split)"
  echo "  trace/ vocab/ warmstart/         default trace, vocab, behavioral-cloning warm start"
  echo "  ppo/                             PPO run: policy/, metrics.jsonl, TensorBoard events (tensorboard --logdir $out/ppo)"
  echo "  eval-{train,heldout}.json        per-module sizes"
  echo "  InlinerSizeModel/ policy.pt      the policy for a release-mode LLVM build and for LibTorch/PyTorch"
  echo "  report/index.html                training curves, size-change distributions, the store's curve and these tables"
  echo "  predicted/best.json              predicted pass lists per held-out module (mlgo eval --pass-lists takes it)"
  echo "  linked/NAME/                     mlgo compare-builds of each rebuilt project (comparison.json, build logs)"
  if [ "${MLGO_DEMO_THINLTO:-0}" = 1 ]; then
    echo "  projects/thinlto/corpus/         ThinLTO corpora (local, distributed); eval-thinlto-*.{txt,json}"
  fi
  if [ "${MLGO_DEMO_REGALLOC:-0}" = 1 ]; then
    echo "  projects/O2/corpus/              -O2 corpora; regalloc-trace/: $(cat "$out/regalloc-trace.txt")"
  fi
} | tee "$out/results.txt"
