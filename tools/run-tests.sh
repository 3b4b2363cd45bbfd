#!/usr/bin/env bash
# The README's test command: installs dependencies, builds, runs every test.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/tools/install-deps.sh"
build="$("$root/tools/build.sh")"
cd "$build"
ctest --output-on-failure -j "$(nproc)"
