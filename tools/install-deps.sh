#!/usr/bin/env bash
# Installs what mlgo needs to build and run, from Debian 12's archive only.
# Skips apt entirely when everything is already installed.
set -euo pipefail

packages=(
  # build (make: the tests build a small make project through mlgo cc)
  cmake ninja-build g++ pkg-config make
  # LLVM 19 and clang 19: the in-process driver links them; clang-19 is also
  # the compiler the corpus is built with and the fidelity reference.
  llvm-19 llvm-19-dev clang-19 lld-19 libclang-19-dev libclang-cpp19-dev
  # what LLVM 19's CMake package looks for
  zlib1g-dev libzstd-dev libedit-dev libxml2-dev libffi-dev libcurl4-openssl-dev libncurses-dev
  # libraries; LibTorch for training only
  libcli11-dev libspdlog-dev nlohmann-json3-dev catch2 libtorch-dev
  # the project stores of mlgo cc --store, written by many compiles at once:
  # SQLite (a file, the default) and PostgreSQL (one store for many machines:
  # libpq to reach a server; the server itself for the tests, which start
  # their own throwaway cluster)
  libsqlite3-dev libpq-dev postgresql-15
  # an optimized BLAS for LibTorch (Debian's default is the reference BLAS);
  # the serial build, so training stays on one thread and deterministic
  libopenblas0-serial
  # TensorBoard event files (protobuf messages; protoc generates the C++ and
  # decodes written files in the tests) and the report's plots
  libprotobuf-dev protobuf-compiler gnuplot-nox
  # MPI across machines (mpirun starts remote ranks over ssh; OpenMPI's
  # launcher also wants an ssh client for runs on this machine)
  libopenmpi-dev openmpi-bin openssh-client
)

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

# The register-allocation problem compiles against three lib/CodeGen headers
# that llvm-19-dev does not ship; the build takes them from Debian's
# llvm-toolchain-19 source package (tools/fetch-llvm-codegen-headers.sh), so
# apt needs the deb-src twin of the machine's own Debian entries.
ensure_debian_sources() {
  if apt-cache showsrc llvm-toolchain-19 2>/dev/null | grep -q '^Package:'; then return 0; fi
  local target=/etc/apt/sources.list.d/mlgo-deb-src.sources
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed 's/^Types:.*$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources | $sudo tee "$target" >/dev/null
  else
    grep -h '^deb ' /etc/apt/sources.list 2>/dev/null | sed 's/^deb /deb-src /' |
      $sudo tee /etc/apt/sources.list.d/mlgo-deb-src.list >/dev/null
  fi
  echo "install-deps: added Debian's deb-src entries (for llvm-toolchain-19's CodeGen headers)" >&2
  $sudo apt-get update -qq
}

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed" >&2
  ensure_debian_sources
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
ensure_debian_sources
