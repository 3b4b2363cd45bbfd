#!/usr/bin/env bash
# Puts the lib/CodeGen headers mlgo's register-allocation problem compiles
# against into DEST, taken from Debian's llvm-toolchain-19 source package of
# the installed llvm-19-dev version. llvm-19-dev does not ship them (they are
# private to LLVM's CodeGen library); the classes they declare are exported
# by libLLVM-19. Needs a deb-src entry for Debian's archive
# (tools/install-deps.sh adds one). Usage: fetch-llvm-codegen-headers.sh DEST
set -euo pipefail
dest="$1"
headers=(RegAllocEvictionAdvisor.h AllocationOrder.h RegAllocScore.h RegAllocPriorityAdvisor.h RegAllocGreedy.h
         InterferenceCache.h RegAllocBase.h SpillPlacement.h SplitKit.h)

version="$(dpkg-query -W -f='${Version}' llvm-19-dev 2>/dev/null || true)"
if [ -z "$version" ]; then
  echo "fetch-llvm-codegen-headers: llvm-19-dev is not installed" >&2
  exit 1
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
if ! apt-get source --download-only -qq "llvm-toolchain-19=$version" >apt.log 2>&1; then
  cat apt.log >&2
  echo "fetch-llvm-codegen-headers: cannot download llvm-toolchain-19=$version's source package;" \
       "run tools/install-deps.sh (it adds Debian's deb-src entry), or pass" \
       "-DMLGO_LLVM_CODEGEN_HEADERS=<dir with ${headers[*]}>" >&2
  exit 1
fi
tarball="$(ls llvm-toolchain-19_*.orig.tar.xz)"
members=()
for header in "${headers[@]}"; do members+=("${tarball%.orig.tar.xz}/llvm/lib/CodeGen/$header"); done
tar -xJf "$tarball" "${members[@]}"
mkdir -p "$dest.partial"
for header in "${headers[@]}"; do cp "${tarball%.orig.tar.xz}/llvm/lib/CodeGen/$header" "$dest.partial/"; done
echo "$version" > "$dest.partial/DEBIAN_SOURCE_VERSION"
rm -rf "$dest"
mv "$dest.partial" "$dest"
echo "fetch-llvm-codegen-headers: ${headers[*]} of llvm-toolchain-19 $version in $dest" >&2
