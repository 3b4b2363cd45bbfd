# Sourced by the bench scripts that build a CMake project through `mlgo cc`:
# the configure arguments that put `mlgo cc FLAGS...` in front of its
# compiles (and links), its options passed as flags. A build that changes
# them reconfigures its tree with the new arguments.
#   mlgo_launcher MLGO [FLAGS...]: sets the array `launcher` to the four
#     -DCMAKE_{C,CXX}_{COMPILER,LINKER}_LAUNCHER=MLGO;cc;FLAGS... arguments;
#   mlgo_compile_launcher MLGO [FLAGS...]: the two COMPILER ones only.
# A flag's value must not hold a ';' (CMake's list separator): refused.
# `launcher` is the caller's: a function's `local launcher` is set in place.

mlgo_compile_launcher() {  # mlgo_compile_launcher MLGO [FLAGS...]
  local command="$1;cc" flag
  shift
  for flag in "$@"; do
    [[ "$flag" != *";"* ]] || { echo "launcher.sh: a ';' in $flag" >&2; return 1; }
    command+=";$flag"
  done
  launcher=("-DCMAKE_C_COMPILER_LAUNCHER=$command" "-DCMAKE_CXX_COMPILER_LAUNCHER=$command")
}

mlgo_launcher() {  # mlgo_launcher MLGO [FLAGS...]
  mlgo_compile_launcher "$@" || return
  local command=${launcher[0]#*=}
  launcher+=("-DCMAKE_C_LINKER_LAUNCHER=$command" "-DCMAKE_CXX_LINKER_LAUNCHER=$command")
}
