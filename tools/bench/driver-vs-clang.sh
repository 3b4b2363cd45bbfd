#!/usr/bin/env bash
# Benchmark: the in-process driver (mlgo eval with the default heuristic, one
# compile per module) against a loop of `clang-19 -cc1 <recorded args> -x ir
# m.bc -o m.o` subprocesses over the same modules at the same parallelism.
# Checks the fidelity bar (equal .text) on the way.
# Usage: tools/bench/driver-vs-clang.sh CORPUS [THREADS]   (default: all cores)
set -euo pipefail
corpus=$1
threads=${2:-$(nproc)}
mlgo=${MLGO:-$(cd "$(dirname "$0")/../.." && pwd)/build/mlgo}
"$mlgo" eval --corpus "$corpus" --check-fidelity --threads "$threads" 2>/dev/null | grep -E '^(fidelity|speed|[0-9]+ modules)'
