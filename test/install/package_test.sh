#!/bin/sh
# `cmake --install` and `cpack -G DEB` of a built tree give an mlgo that runs
# on its own: the installed tree is moved and the package extracted into
# scratch roots, with no way back into the build or source tree, and each runs
# `mlgo --version`, `mlgo autotune --list-passes`, an eval of the test corpus
# and a command that loads the training library (docs/install.md).
#
# usage: package_test.sh BUILD_DIR SOURCE_DIR TEST_PROJECT_COMPILE_COMMANDS
set -eu

build=$(cd "$1" && pwd -P)
source=$(cd "$2" && pwd -P)
compile_commands=$3

fail() {
  echo "package_test: FAILED: $*" >&2
  exit 1
}

scratch=$(mktemp -d "${TMPDIR:-/tmp}/mlgo-package-test.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
# Nothing from the caller's environment may point mlgo at its data or libraries.
unset MLGO_DATA_DIR MLGO_PASSES LD_LIBRARY_PATH

# An installed mlgo: runs, finds its libraries, data and training library.
# $1 is the installed bin/mlgo, $2 the installed share/mlgo.
check_installed() {
  mlgo=$1
  data=$2
  name=$3
  out="$scratch/$name"
  mkdir -p "$out"

  "$mlgo" --version >"$out/version" 2>&1 || fail "$name: mlgo --version: $(cat "$out/version")"
  grep -q '^mlgo [0-9]' "$out/version" || fail "$name: mlgo --version printed: $(cat "$out/version")"

  # The libraries were found through the RPATH relative to the binary, not in the build tree.
  for file in "$mlgo" "$(dirname "$mlgo")"/../lib*/libmlgo_*.so; do
    if grep -q -F -e "$build" -e "$source" "$file"; then fail "$name: $file names the build or source tree"; fi
  done

  # The search space is the installed file: --list-passes prints its entries.
  "$mlgo" autotune --list-passes >"$out/passes" 2>"$out/passes.err" ||
    fail "$name: mlgo autotune --list-passes: $(cat "$out/passes.err")"
  grep -q "^include	" "$out/passes" || fail "$name: mlgo autotune --list-passes lists no included pass"
  grep -v -e '^#' -e '^$' "$data/configs/autotune/passes.txt" >"$out/passes.expected"
  cmp -s "$out/passes" "$out/passes.expected" || fail "$name: --list-passes is not the installed passes.txt"
  # Edited in place, the installed file changes what mlgo lists: it is the one read.
  cp "$data/configs/autotune/passes.txt" "$out/passes.installed"
  sed -i '$d' "$data/configs/autotune/passes.txt"
  "$mlgo" autotune --list-passes >"$out/passes.edited" 2>/dev/null || fail "$name: --list-passes after the edit"
  [ "$(wc -l <"$out/passes.edited")" -eq "$(($(wc -l <"$out/passes") - 1))" ] ||
    fail "$name: --list-passes did not follow an edit of $data/configs/autotune/passes.txt"
  # Back as installed: the shipped coreset may use the pass the edit removed.
  cp "$out/passes.installed" "$data/configs/autotune/passes.txt"

  # The shipped vocab, configs and gate programs are there.
  [ -f "$data/vocab/inlining/callee_basic_block_count.buckets" ] || fail "$name: no vocab in $data"
  [ -f "$data/configs/inlining/ppo.json" ] || fail "$name: no configs in $data"
  ls "$data/configs/autotune/gate-programs/"*.c >/dev/null 2>&1 || fail "$name: no gate programs in $data"

  # An eval of the test corpus, extracted by the installed mlgo too.
  "$mlgo" extract-ir --input "$compile_commands" --output-dir "$out/corpus" >"$out/extract" 2>&1 ||
    fail "$name: mlgo extract-ir: $(cat "$out/extract")"
  "$mlgo" eval --corpus "$out/corpus" --threads 2 --json "$out/eval.json" >"$out/eval" 2>&1 ||
    fail "$name: mlgo eval: $(cat "$out/eval")"
  grep -q '"compared"' "$out/eval.json" && grep -q -E '"failed": ?0[,}]' "$out/eval.json" ||
    fail "$name: mlgo eval did not compare every module: $(cat "$out/eval.json")"
  # The shipped pass-list predictor ranks the corpus's modules without any flag.
  "$mlgo" predict-passes --corpus "$out/corpus" --top 1 >"$out/predicted" 2>&1 ||
    fail "$name: mlgo predict-passes with the shipped predictor: $(cat "$out/predicted")"
  grep -q -- "-passes='" "$out/predicted" || fail "$name: mlgo predict-passes printed no list: $(cat "$out/predicted")"

  # The pass plugin is installed beside the libraries, and a stock clang-19
  # loads it; mlgo cc compiles through the installed libraries.
  plugin=$("$mlgo" cc --print-plugin-path 2>"$out/plugin.err") || fail "$name: mlgo cc --print-plugin-path: $(cat "$out/plugin.err")"
  [ "$(cd "$(dirname "$plugin")" && pwd -P)" = "$(cd "$(dirname "$(ls "$(dirname "$mlgo")"/../lib*/libmlgo_core.so)")" && pwd -P)" ] ||
    fail "$name: the pass plugin $plugin is not beside libmlgo_core.so"
  printf 'int twice(int x) { return 2 * x; }\n' >"$out/unit.c"
  clang-19 -Oz -fpass-plugin="$plugin" -c "$out/unit.c" -o "$out/unit.o" 2>"$out/plugin-clang.err" &&
    fail "$name: the plugin compiled without MLGO_CC_POLICY"
  grep -q "set MLGO_CC_POLICY" "$out/plugin-clang.err" || fail "$name: the plugin's error: $(cat "$out/plugin-clang.err")"
  "$mlgo" cc --pass-lists /nonexistent/best.json clang-19 -c "$out/unit.c" -o "$out/unit.o" 2>"$out/cc.err" &&
    fail "$name: mlgo cc took a missing best.json"
  grep -q "/nonexistent/best.json" "$out/cc.err" || fail "$name: mlgo cc's error: $(cat "$out/cc.err")"

  # The training library (LibTorch) loads from beside the installed libmlgo_core.so.
  LD_DEBUG=files LD_DEBUG_OUTPUT="$out/loader" "$mlgo" train-ppo --print-config \
    --config "$data/configs/inlining/ppo.json" >"$out/config" 2>&1 ||
    fail "$name: mlgo train-ppo --print-config: $(cat "$out/config")"
  libdir=$(cd "$(dirname "$(ls "$(dirname "$mlgo")"/../lib*/libmlgo_core.so)")" && pwd -P)
  loaded=$(cat "$out"/loader.* | sed -n 's/.*file=\([^ ]*libmlgo_training\.so\) .*/\1/p' | head -n 1)
  [ -n "$loaded" ] && [ "$(cd "$(dirname "$loaded")" && pwd -P)" = "$libdir" ] ||
    fail "$name: libmlgo_training.so was loaded from '$loaded', not from $libdir"
}

# 1. cmake --install into a prefix, then moved: nothing may depend on where it was installed.
cmake --install "$build" --prefix "$scratch/prefix" >"$scratch/install.log" 2>&1 ||
  fail "cmake --install: $(cat "$scratch/install.log")"
[ -x "$scratch/prefix/bin/mlgo" ] || fail "cmake --install installed no bin/mlgo"
for unwanted in mlgo_tests mlgo_bench_policy; do
  [ ! -e "$scratch/prefix/bin/$unwanted" ] || fail "cmake --install installed $unwanted"
done
mv "$scratch/prefix" "$scratch/moved"
check_installed "$scratch/moved/bin/mlgo" "$scratch/moved/share/mlgo" installed

# 2. cpack -G DEB, extracted into a scratch root (not installed on the system).
(cd "$build" && cpack -G DEB -B "$scratch/package") >"$scratch/cpack.log" 2>&1 ||
  fail "cpack -G DEB: $(cat "$scratch/cpack.log")"
set -- "$scratch/package"/mlgo_*.deb
[ $# -eq 1 ] && [ -f "$1" ] || fail "cpack wrote no single mlgo_*.deb: $(ls "$scratch/package")"
deb=$1
[ "$(dpkg-deb -f "$deb" Package)" = mlgo ] || fail "package name is $(dpkg-deb -f "$deb" Package)"
depends=$(dpkg-deb -f "$deb" Depends)
echo "package_test: Depends: $depends"
for needed in libllvm19 libclang-cpp19 libtorch1.13 clang-19; do
  echo "$depends" | grep -q -w -F "$needed" || fail "Depends does not name $needed: $depends"
done
# Every library the packaged files need (their own NEEDED entries, as the
# loader resolves them) comes from a package that Depends names.
dpkg-deb -x "$deb" "$scratch/root"
for file in "$scratch/root/usr/bin/mlgo" "$scratch/root/usr/lib"*/libmlgo_*.so; do
  ldd "$file" >"$scratch/ldd" || fail "ldd $file"
  for library in $(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    case $library in libmlgo_* | ld-linux*) continue ;; esac
    path=$(sed -n "s|^[[:space:]]*$library => \(/[^ ]*\) .*|\1|p" "$scratch/ldd")
    [ -n "$path" ] || fail "$file needs $library, which the loader does not find"
    # dpkg knows a file by the path its package ships, /lib or /usr/lib (merged /usr).
    owner=$(dpkg -S "$path" "/usr$path" "$(readlink -f "$path")" 2>/dev/null | head -n 1 | cut -d: -f1)
    [ -n "$owner" ] || fail "no Debian package owns $path ($library)"
    # Named itself or by a virtual package it provides (libspdlog1.10-fmt9).
    named=no
    for name in "$owner" $(dpkg-query -W -f='${Provides}' "$owner" 2>/dev/null | sed 's/([^)]*)//g; s/,/ /g'); do
      if echo ", $depends," | grep -q -F ", $name,"; then named=yes; fi
      if echo ", $depends," | grep -q -F ", $name ("; then named=yes; fi
    done
    [ $named = yes ] || fail "$library is from $owner, which Depends does not name"
  done
done
check_installed "$scratch/root/usr/bin/mlgo" "$scratch/root/usr/share/mlgo" package
echo "package_test: passed ($deb)"
