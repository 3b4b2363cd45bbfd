#!/bin/sh
# Builds the test "project": C and C++ sources written for the tests,
# compiled by the real clang-19 with -Oz -Xclang -fembed-bitcode=all, plus the
# compile_commands.json a build system would write. Run by CMake at build time.
# Usage: make_test_build.sh CLANG SOURCE_DIR OUTPUT_DIR
set -eu
clang=$1
src=$2
out=$3
rm -rf "$out"
mkdir -p "$out/sub"
cd "$out"
flags="-Oz -Xclang -fembed-bitcode=all"
json="["
sep=""
for file in helpers.c big_callee.c tables.c sub/list.c recursion.c strings.c shapes.cpp; do
  object="${file%.*}.o"
  "$clang" $flags -c "$src/$file" -o "$object"
  # Alternate the two forms compile_commands.json entries take.
  case $file in
    helpers.c|strings.c)
      entry="{\"directory\": \"$out\", \"command\": \"$clang $flags -c '$src/$file' -o $object\", \"file\": \"$src/$file\"}" ;;
    *)
      entry="{\"directory\": \"$out\", \"arguments\": [\"$clang\", \"-Oz\", \"-Xclang\", \"-fembed-bitcode=all\", \"-c\", \"$src/$file\", \"-o\", \"$object\"], \"file\": \"$src/$file\"}" ;;
  esac
  json="$json$sep
  $entry"
  sep=","
done
# An object without embedded bitcode, as a build with assembly files has.
"$clang" -Oz -c "$src/no_bitcode.c" -o no_bitcode.o
json="$json,
  {\"directory\": \"$out\", \"arguments\": [\"$clang\", \"-Oz\", \"-c\", \"$src/no_bitcode.c\", \"-o\", \"no_bitcode.o\"], \"file\": \"$src/no_bitcode.c\"}
]"
printf '%s\n' "$json" > compile_commands.json
# Bitcode whose inline assembly fails only in the backend (no object exists).
"$clang" -Oz -emit-llvm -c "$src/bad_asm.c" -o bad_asm.bc
