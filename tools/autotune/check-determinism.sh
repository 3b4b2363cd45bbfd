#!/usr/bin/env bash
# Finds searched passes whose result is not reproducible within one process:
# for each included element of the search space, compiles
#   function(instcombine<no-verify-fixpoint>),ELEMENT,default<Oz>
# REPEATS times on each of the given corpus modules, interleaved, in one
# `mlgo compile-worker` (a long-lived process, as in autotune), and prints
# the elements for which one module got different .text sizes.
# Usage: [REPEATS=4] tools/autotune/check-determinism.sh CORPUS MODULE...
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
mlgo=${MLGO:-$root/build/mlgo}
passes=${PASSES:-$root/configs/autotune/passes.txt}
repeats=${REPEATS:-4}
corpus=$1
shift
modules=("$@")
varied=0
while IFS=$'\t' read -r level element; do
  case $level in
    module) wrapped="$element" ;;
    cgscc) wrapped="cgscc($element)" ;;
    function) wrapped="function($element)" ;;
    loop) wrapped="function(loop($element))" ;;
    loop-mssa) wrapped="function(loop-mssa($element))" ;;
  esac
  pipeline="function(instcombine<no-verify-fixpoint>),$wrapped,default<Oz>"
  sizes=$(for ((r = 0; r < repeats; ++r)); do
            for m in "${modules[@]}"; do printf '{"module":"%s","pipeline":"%s"}\n' "$m" "$pipeline"; done
          done | "$mlgo" compile-worker --corpus "$corpus" 2>/dev/null | grep -o '"text":[0-9]*' | cut -d: -f2 | tr '\n' ' ')
  count=$(wc -w <<<"$sizes")
  if [ "$count" -ne $((repeats * ${#modules[@]})) ]; then
    echo "INCOMPLETE $element: $count of $((repeats * ${#modules[@]})) compiles answered"
    continue
  fi
  # Distinct (module position, size) pairs: one per module when reproducible.
  distinct=$(tr ' ' '\n' <<<"$sizes" | grep -v '^$' | awk -v k=${#modules[@]} '{print (NR - 1) % k, $0}' | sort -u | wc -l)
  if [ "$distinct" -ne ${#modules[@]} ]; then
    echo "VARIES $element: $sizes"
    varied=$((varied + 1))
  fi
done < <(grep -v '^#' "$passes" | awk -F'\t' '$1 == "include" {print $2 "\t" $3}')
echo "$varied elements varied"
