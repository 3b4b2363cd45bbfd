#!/usr/bin/env bash
# Configures and builds mlgo into build/ (or $MLGO_BUILD_DIR) with Ninja.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MLGO_BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMLGO_WITH_MPI=ON "$@" >&2
cmake --build "$build" -j "$(nproc)" >&2
echo "$build"
