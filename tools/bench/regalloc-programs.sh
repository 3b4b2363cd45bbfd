#!/usr/bin/env bash
# Register allocation measured on running code. Every PassListEval program
# (configs/autotune/gate-programs: 50 self-checking C and C++ programs, never in
# a training corpus) is built at -O2 twice by a stock clang-19: with LLVM's
# default advisors, and with a register-allocation policy (eviction or
# priority: the problem the policy directory records): one that `mlgo
# serve` answers over LLVM's interactive channel, or, with BUILD_WITH=cc,
# one that `mlgo cc --policy` applies in-process. Both builds run
# (each must exit 0 and print nothing: the programs check their own results)
# and are measured under valgrind's cachegrind, whose counts are
# deterministic:
#   cycle estimate = Ir + 10 x (I1mr + D1mr + D1mw) + 100 x (ILmr + DLmr + DLmw)
# (instructions, plus 10 cycles a first-level miss and 100 a last-level one:
# the weights of KCachegrind's cycle estimate, without branch simulation).
# The same programs also become an mlgo corpus, and `mlgo eval --policy`
# gives the regalloc score change on them.
#
# Usage: [BUILD_WITH=serve|cc] tools/bench/regalloc-programs.sh BUILD_DIR POLICY OUT_DIR [PROGRAM...]
# Writes OUT_DIR/programs.tsv (one line a program), OUT_DIR/eval.json and a
# summary on stdout. Exit status 1 when a policy-built program fails its
# own checks (or any build fails).
set -euo pipefail

if [[ $# -lt 3 ]]; then
  echo "usage: $0 BUILD_DIR POLICY OUT_DIR [PROGRAM...]" >&2
  exit 2
fi
BUILD=$(cd "$1" && pwd)
POLICY=$2
OUT=$3
shift 3
MLGO="$BUILD/mlgo"
BUILD_WITH=${BUILD_WITH:-serve}
[[ $BUILD_WITH == serve || $BUILD_WITH == cc ]] || { echo "BUILD_WITH is serve or cc, not $BUILD_WITH" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")/../.." && pwd)
PROGRAMS="$HERE/configs/autotune/gate-programs"
CC=clang-19
CXX=clang++-19
command -v "$CC" >/dev/null || CC=/usr/lib/llvm-19/bin/clang
command -v "$CXX" >/dev/null || CXX=/usr/lib/llvm-19/bin/clang++
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 2; }

# The stock compiler's flags that ask a served policy of this problem.
policy_json="$POLICY/policy.json"
[[ -f $policy_json ]] || policy_json="$POLICY/policy/policy.json"
problem=$(sed -n 's/^ *"problem": *"\([^"]*\)".*/\1/p' "$policy_json" | head -n 1)
case "$problem" in
  regalloc) serve_flags=(-mllvm -regalloc-enable-advisor=release -mllvm -regalloc-evict-interactive-channel-base=) ;;
  regalloc-priority)
    serve_flags=(-mllvm -regalloc-enable-priority-advisor=release -mllvm -regalloc-priority-interactive-channel-base=) ;;
  *) echo "$policy_json: not a register-allocation policy (problem '$problem')" >&2; exit 2 ;;
esac

mkdir -p "$OUT/objects" "$OUT/bin" "$OUT/cachegrind" "$OUT/corpus-build"
OUT=$(cd "$OUT" && pwd)

names=("$@")
if [[ ${#names[@]} -eq 0 ]]; then
  for source in "$PROGRAMS"/*.c "$PROGRAMS"/*.cpp; do names+=("$(basename "${source%.*}")"); done
fi

source_of() { if [[ -f "$PROGRAMS/$1.c" ]]; then echo "$PROGRAMS/$1.c"; else echo "$PROGRAMS/$1.cpp"; fi; }
compiler_of() { if [[ "$1" == *.c ]]; then echo "$CC -std=c11"; else echo "$CXX -std=c++17"; fi; }

# One cachegrind run; prints "ok|wrong|crashed" and the estimate's counts.
measure() {
  local binary=$1 out=$2
  local status=0
  valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file="$out" "$binary" \
    >"$out.stdout" 2>"$out.stderr" || status=$?
  local printed
  # Valgrind's own lines start with ==PID== or --PID--; anything else is the program's.
  printed=$(grep -Ev '^(==|--)[0-9]+(==|--)' "$out.stderr" | wc -c || true)
  if [[ $status -ne 0 ]]; then echo "crashed"; elif [[ -s "$out.stdout" || $printed -ne 0 ]]; then echo "wrong";
  else echo "ok"; fi
}

# events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw
estimate() {
  awk '/^events:/ { for (i = 2; i <= NF; ++i) name[i - 1] = $i }
       /^summary:/ { for (i = 2; i <= NF; ++i) v[name[i - 1]] = $i
         printf "%d %d\n", v["Ir"], v["Ir"] + 10 * (v["I1mr"] + v["D1mr"] + v["D1mw"]) + 100 * (v["ILmr"] + v["DLmr"] + v["DLmw"]) }' "$1"
}

printf 'program\tstatus\tdefault_ir\tpolicy_ir\tdefault_cycles\tpolicy_cycles\tchange\n' >"$OUT/programs.tsv"
failures=0
commands="["
for name in "${names[@]}"; do
  source=$(source_of "$name")
  read -r -a compile <<<"$(compiler_of "$source")"
  link=("${compile[0]}")
  # Default build.
  "${compile[@]}" -O2 -c "$source" -o "$OUT/objects/$name.default.o"
  "${link[@]}" "$OUT/objects/$name.default.o" -lm -o "$OUT/bin/$name.default"
  if [[ $BUILD_WITH == cc ]]; then
    # Policy build: the compile through mlgo cc, which applies the policy in-process.
    "$MLGO" --log-level warn cc --policy "$POLICY" "${compile[@]}" -O2 -c "$source" -o "$OUT/objects/$name.policy.o"
  else
    # Policy build: a server for this one compile, then the stock compiler.
    channel="$OUT/objects/$name.channel"
    "$MLGO" --log-level warn serve --policy "$POLICY" --channel "$channel" --max-sessions 1 >/dev/null &
    server=$!
    while [[ ! -p "$channel.out" ]]; do sleep 0.05; done
    "${compile[@]}" -O2 -c "$source" -o "$OUT/objects/$name.policy.o" "${serve_flags[@]:0:3}" "${serve_flags[3]}$channel"
    wait "$server"
  fi
  "${link[@]}" "$OUT/objects/$name.policy.o" -lm -o "$OUT/bin/$name.policy"
  # For the score: the program as a corpus module (embedded bitcode).
  "${compile[@]}" -O2 -Xclang -fembed-bitcode=all -c "$source" -o "$OUT/corpus-build/$name.o"
  commands+="$([[ $commands == "[" ]] || echo ,){\"directory\":\"$OUT/corpus-build\",\"file\":\"$source\",\"output\":\"$name.o\",\"arguments\":[\"${compile[0]}\",\"${compile[1]}\",\"-O2\",\"-Xclang\",\"-fembed-bitcode=all\",\"-c\",\"$source\",\"-o\",\"$name.o\"]}"

  default_status=$(measure "$OUT/bin/$name.default" "$OUT/cachegrind/$name.default")
  policy_status=$(measure "$OUT/bin/$name.policy" "$OUT/cachegrind/$name.policy")
  read -r dir dcycles < <(estimate "$OUT/cachegrind/$name.default")
  read -r pir pcycles < <(estimate "$OUT/cachegrind/$name.policy")
  status=ok
  if [[ $default_status != ok ]]; then status="default-$default_status"; fi
  if [[ $policy_status != ok ]]; then status="policy-$policy_status"; failures=$((failures + 1)); fi
  change=$(awk -v a="$dcycles" -v b="$pcycles" 'BEGIN { printf "%+.3f%%", 100 * (b - a) / a }')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$status" "$dir" "$pir" "$dcycles" "$pcycles" "$change" >>"$OUT/programs.tsv"
done
echo "$commands]" >"$OUT/corpus-build/compile_commands.json"

rm -rf "$OUT/corpus"
"$MLGO" --log-level warn extract-ir --input "$OUT/corpus-build/compile_commands.json" --output-dir "$OUT/corpus" >/dev/null
"$MLGO" --log-level warn eval --corpus "$OUT/corpus" --policy "$POLICY" --json "$OUT/eval.json" \
  | grep '^regalloc_score:' || true

column -t -s $'\t' "$OUT/programs.tsv"
awk -F'\t' 'BEGIN { worst = -1e9; best = 1e9 }
            NR > 1 { d += $5; p += $6; n += 1; c = 100 * ($6 - $5) / $5; if (c > worst) { worst = c; which = $1 }
                     if (c < best) { best = c; bestName = $1 }; if ($2 != "ok") bad += 1 }
            END { printf "%d programs, %d with a failed check; cycle estimate %+.3f%% in total (default %d, policy %d); worst %s %+.3f%%, best %s %+.3f%%\n",
                         n, bad, 100 * (p - d) / d, d, p, which, worst, bestName, best }' "$OUT/programs.tsv"
[[ $failures -eq 0 ]]
