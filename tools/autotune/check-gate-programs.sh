#!/usr/bin/env bash
# Check the correctness gate's programs (PassListEval, runtime data in
# configs/autotune/gate-programs): every program must compile without
# warnings and run successfully (exit 0, no output) in every build mode.
#
#   tools/autotune/check-gate-programs.sh [--modes LIST] [--passes PIPELINE]
#                                         [--jobs N] [--workdir DIR] [--keep]
#                                         [PROGRAM...]
#
#   --modes LIST   comma-separated subset of: O0,O2,Oz,O3,gate,san
#                  (default: O0,O2,Oz,O3,gate)
#                    O0/O2/Oz/O3  clang-19 / clang++-19 at that level
#                    gate         the path the correctness gate uses:
#                                 clang -Oz -Xclang -disable-llvm-optzns
#                                 -emit-llvm -c  ->  opt-19 -passes='default<Oz>'
#                                 ->  clang -c (codegen only)  ->  link
#                                 (--passes replaces 'default<Oz>', e.g. to
#                                 try a candidate pass list by hand)
#                    san          gcc/g++ -O1 -fsanitize=address,undefined
#                                 (finds undefined behaviour and memory errors,
#                                 which would make a program unfit for the
#                                 gate; Debian's clang-19 has no sanitizer
#                                 runtime, gcc's is used instead)
#   --passes P     opt pipeline of the gate mode (default: 'default<Oz>')
#   --jobs N       parallel jobs (default: nproc)
#   --workdir DIR  scratch directory (default: a fresh mktemp -d, deleted at
#                  the end unless --keep)
#   --keep         keep the scratch directory (binaries, logs)
#   PROGRAM...     program files or names (default: all of
#                  configs/autotune/gate-programs/*.c and *.cpp)
#
# Compilers come from $LLVM_BIN (default /usr/lib/llvm-19/bin if it exists,
# otherwise clang-19, clang++-19 and opt-19 on PATH). Warnings are checked with
# -Wall -Wextra; any compiler output counts as a failure. Each binary is run
# under "timeout 5"; it must exit 0 and print nothing. Each program must also
# start with a comment (what it checks) and define main. Prints one line per
# failure, a per-mode summary with the summed CPU time of the binaries (which
# includes process start-up; the start-up time of an empty program is printed
# for reference), and exits 1 if anything failed.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PROGRAM_DIR="$SCRIPT_DIR/../../configs/autotune/gate-programs"

if [[ -n "${LLVM_BIN:-}" ]]; then
  CC="$LLVM_BIN/clang"; CXX="$LLVM_BIN/clang++"; OPT="$LLVM_BIN/opt"
elif [[ -x /usr/lib/llvm-19/bin/clang ]]; then
  CC=/usr/lib/llvm-19/bin/clang; CXX=/usr/lib/llvm-19/bin/clang++
  OPT=/usr/lib/llvm-19/bin/opt
else
  CC=clang-19; CXX=clang++-19; OPT=opt-19
fi
export CC CXX OPT

C_FLAGS=(-std=c11 -Wall -Wextra)
CXX_FLAGS=(-std=c++17 -Wall -Wextra)
LIBS=(-lm)
RUN_TIMEOUT=5
GATE_PASSES=${GATE_PASSES:-default<Oz>}

# Runs argv[2...], passes its exit status through (128+signal if killed) and
# writes its CPU time in nanoseconds to argv[1].
RUNNER_SOURCE='
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv) {
  if (argc < 3) return 125;
  pid_t pid = fork();
  if (pid < 0) return 125;
  if (pid == 0) { execv(argv[2], argv + 2); perror("execv"); _exit(127); }
  int status; struct rusage ru;
  if (wait4(pid, &status, 0, &ru) < 0) return 125;
  FILE *f = fopen(argv[1], "w");
  if (f) {
    long long ns = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
                   (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
    fprintf(f, "%lld\n", ns); fclose(f);
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}
'

# --- one (program, mode) job -----------------------------------------------
# Invoked as: check-gate-programs.sh --one WORKDIR MODE SOURCE
# Writes WORKDIR/results/FILE.MODE with "PASS <run-ns>" or "FAIL <reason>",
# and the details to WORKDIR/logs/FILE.MODE.log (FILE includes the extension,
# so x.c and x.cpp do not collide).
run_one() {
  local work=$1 mode=$2 src=$3
  local base ext compiler
  base=$(basename "$src"); ext=${base##*.}
  local -a flags
  if [[ $ext == c ]]; then compiler=$CC; flags=("${C_FLAGS[@]}")
  else compiler=$CXX; flags=("${CXX_FLAGS[@]}"); fi
  local out="$work/bin/$base.$mode" log="$work/logs/$base.$mode.log"
  local result="$work/results/$base.$mode"
  : >"$log"

  compile() {  # runs a compile step; any output or a failure is an error
    local step_out
    if ! step_out=$("$@" 2>&1); then
      { echo "\$ $*"; echo "$step_out"; } >>"$log"
      echo "FAIL compile error ($1)" >"$result"; return 1
    fi
    if [[ -n $step_out ]]; then
      { echo "\$ $*"; echo "$step_out"; } >>"$log"
      echo "FAIL compiler output (warnings)" >"$result"; return 1
    fi
  }

  case $mode in
    O0|O1|O2|O3|Os|Oz)
      compile "$compiler" "${flags[@]}" "-$mode" "$src" -o "$out" "${LIBS[@]}" || return 0 ;;
    gate)
      compile "$compiler" "${flags[@]}" -Oz -Xclang -disable-llvm-optzns \
        -emit-llvm -c "$src" -o "$out.bc" || return 0
      compile "$OPT" "-passes=$GATE_PASSES" "$out.bc" -o "$out.opt.bc" || return 0
      compile "$compiler" -Oz -Xclang -disable-llvm-optzns -c "$out.opt.bc" \
        -o "$out.o" || return 0
      compile "$compiler" "$out.o" -o "$out" "${LIBS[@]}" || return 0 ;;
    san)
      if [[ $ext == c ]]; then compiler=${SAN_CC:-gcc}; else compiler=${SAN_CXX:-g++}; fi
      compile "$compiler" "${flags[@]}" -O1 -g -fno-omit-frame-pointer \
        -fsanitize=address,undefined -fno-sanitize-recover=all \
        "$src" -o "$out" "${LIBS[@]}" || return 0 ;;
    lint)  # the suite's rules that a compiler cannot check
      if ! head -n 1 "$src" | grep -Eq '^[[:space:]]*(/\*|//)'; then
        echo "FAIL the first line must be a comment saying what the program checks" >"$result"
        return 0
      fi
      if ! grep -Eq '^[[:space:]]*int[[:space:]]+main[[:space:]]*\(' "$src"; then
        echo "FAIL no 'int main(' found" >"$result"; return 0
      fi
      if grep -Ev '^[[:space:]]*(//|/\*|\*)' "$src" |
         grep -Eq '\b(scanf|fopen|getchar|fgets|time|clock|rand|srand|getenv)\('; then
        echo "FAIL uses input, files, time, rand or the environment" >"$result"; return 0
      fi
      echo "PASS 0" >"$result"; return 0 ;;
    *)
      echo "FAIL unknown mode $mode" >"$result"; return 0 ;;
  esac

  # The run is timed by a small wrapper (see RUNNER_SOURCE) that reports the
  # CPU time (user + system) of the program alone, from wait4's rusage; CPU
  # time is barely disturbed by parallel jobs, unlike wall time.
  local status=0 output cpu
  (cd "$work/run" && timeout -k 2 "$RUN_TIMEOUT" "$work/runner" "$log.time" "$out" \
     >"$log.out" 2>&1 </dev/null) || status=$?
  output=$(cat "$log.out"); rm -f "$log.out"
  cpu=$(cat "$log.time" 2>/dev/null || echo 0); rm -f "$log.time"
  if [[ $status -ne 0 ]]; then
    { echo "exit status $status"; echo "$output"; } >>"$log"
    if [[ $status -eq 124 ]]; then echo "FAIL timeout (${RUN_TIMEOUT}s)" >"$result"
    else echo "FAIL exit status $status: $(head -c 300 <<<"$output" | tr '\n' ' ')" >"$result"; fi
    return 0
  fi
  if [[ -n $output ]]; then
    { echo "unexpected output on success:"; echo "$output"; } >>"$log"
    echo "FAIL printed output although it exited 0" >"$result"; return 0
  fi
  echo "PASS $cpu" >"$result"
}

if [[ ${1:-} == --one ]]; then
  shift
  run_one "$@"
  exit 0
fi

# --- driver -------------------------------------------------------------------
MODES=O0,O2,Oz,O3,gate
JOBS=$(nproc)
WORKDIR=
KEEP=0
PROGRAMS=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --modes) MODES=$2; shift 2 ;;
    --passes) GATE_PASSES=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --workdir) WORKDIR=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "unknown option: $1" >&2; exit 2 ;;
    *) PROGRAMS+=("$1"); shift ;;
  esac
done

if [[ ${#PROGRAMS[@]} -eq 0 ]]; then
  shopt -s nullglob
  PROGRAMS=("$PROGRAM_DIR"/*.c "$PROGRAM_DIR"/*.cpp)
  shopt -u nullglob
else
  for i in "${!PROGRAMS[@]}"; do
    p=${PROGRAMS[$i]}
    if [[ ! -f $p ]]; then
      for cand in "$PROGRAM_DIR/$p" "$PROGRAM_DIR/$p.c" "$PROGRAM_DIR/$p.cpp"; do
        [[ -f $cand ]] && { p=$cand; break; }
      done
    fi
    [[ -f $p ]] || { echo "no such program: ${PROGRAMS[$i]}" >&2; exit 2; }
    PROGRAMS[$i]=$(cd "$(dirname "$p")" && pwd)/$(basename "$p")
  done
fi
[[ ${#PROGRAMS[@]} -gt 0 ]] || { echo "no programs found in $PROGRAM_DIR" >&2; exit 2; }

if [[ -z $WORKDIR ]]; then
  WORKDIR=$(mktemp -d "${TMPDIR:-/tmp}/passlisteval-check.XXXXXX")
  [[ $KEEP -eq 1 ]] || trap 'rm -rf "$WORKDIR"' EXIT
fi
mkdir -p "$WORKDIR"/{bin,logs,results,run}
rm -f "$WORKDIR"/results/*
printf '%s' "$RUNNER_SOURCE" >"$WORKDIR/runner.c"
"$CC" -O1 -w "$WORKDIR/runner.c" -o "$WORKDIR/runner" ||
  { echo "cannot build the timing wrapper" >&2; exit 2; }
export GATE_PASSES

# CPU time of starting an empty program, for reading the run times below.
printf 'int main(void) { return 0; }\n' >"$WORKDIR/empty.c"
"$CC" -O2 "$WORKDIR/empty.c" -o "$WORKDIR/empty"
startup_ns=
for _ in 1 2 3 4 5; do
  "$WORKDIR/runner" "$WORKDIR/empty.time" "$WORKDIR/empty"
  t=$(cat "$WORKDIR/empty.time")
  if [[ -z $startup_ns || $t -lt $startup_ns ]]; then startup_ns=$t; fi
done

IFS=, read -r -a MODE_LIST <<<"lint,$MODES"
echo "checking ${#PROGRAMS[@]} programs in modes ${MODES} with $JOBS jobs ($CC, $OPT; gate pipeline '$GATE_PASSES')"
suite_start=$(date +%s)
for mode in "${MODE_LIST[@]}"; do
  for src in "${PROGRAMS[@]}"; do printf '%s\0%s\0' "$mode" "$src"; done
done | xargs -0 -n 2 -P "$JOBS" "$0" --one "$WORKDIR"
suite_end=$(date +%s)

failed=0
for mode in "${MODE_LIST[@]}"; do
  pass=0 fail=0 total_ns=0 slowest_ns=0 slowest=
  for src in "${PROGRAMS[@]}"; do
    base=$(basename "$src")
    res="$WORKDIR/results/$base.$mode"
    line=$(cat "$res" 2>/dev/null || echo "FAIL no result")
    if [[ $line == PASS* ]]; then
      ns=${line#PASS }
      pass=$((pass + 1)); total_ns=$((total_ns + ns))
      if [[ $ns -gt $slowest_ns ]]; then slowest_ns=$ns; slowest=$base; fi
    else
      fail=$((fail + 1))
      echo "FAIL [$mode] $base: ${line#FAIL }"
      if [[ -s "$WORKDIR/logs/$base.$mode.log" ]]; then
        head -n 20 "$WORKDIR/logs/$base.$mode.log" | sed 's/^/    /'
      fi
    fi
  done
  failed=$((failed + fail))
  if [[ $mode == lint ]]; then
    printf '%-5s %3d passed, %3d failed\n' "$mode" "$pass" "$fail"
    continue
  fi
  printf '%-5s %3d passed, %3d failed; run time (CPU) %5d ms total, slowest %s (%d ms)\n' \
    "$mode" "$pass" "$fail" $((total_ns / 1000000)) "${slowest:--}" $((slowest_ns / 1000000))
done
echo "process start-up of an empty program: $((startup_ns / 1000)) us CPU (included in the run times)"
echo "wall time $((suite_end - suite_start)) s"
[[ $KEEP -eq 1 ]] && echo "scratch directory kept: $WORKDIR"
if [[ $failed -ne 0 ]]; then
  echo "RESULT: $failed failure(s)"
  exit 1
fi
echo "RESULT: all ${#PROGRAMS[@]} programs passed in all modes"
