#!/usr/bin/env bash
# Linker wrapper for ThinLTO demo builds that leaves BOTH ThinLTO flavours:
#
#   clang-19 -flto=thin ... -fuse-ld=/abs/path/thinlto-link.sh
#
# clang-19 takes an absolute path for -fuse-ld and runs it with ld-style
# arguments. As the name is not ld.lld, it also passes
# "-plugin .../LLVMgold.so", which lld ignores. The -plugin-opt=... options
# are the same as for lld. The wrapper then runs:
#
#   1. "distributed" thin link: ld.lld-19 ARGS --thinlto-index-only=RSP
#      --thinlto-emit-imports-files. ARGS are the link's arguments, changed so
#      that every bitcode input is a real file below <output>.thinlto-members/:
#        - each archive (given by path, or by -lNAME found in the -L
#          directories) that holds bitcode is unpacked with llvm-ar-19 x
#          into <output>.thinlto-members/<archive-basename>/, and its members
#          go between --start-lib/--end-lib in place of the archive (as plain
#          inputs inside --whole-archive). An archive named twice is unpacked
#          once: lld finds lazy members in any order.
#        - each bitcode object is copied to <output>.thinlto-members/objects/
#          (its relative path, or its absolute path without the leading /).
#      lld writes <member>.thinlto.bc (the module's index) and
#      <member>.imports beside each copy, and in RSP the bitcode files that
#      joined the link. A member no symbol pulled in still gets an index:
#      in lld-19 not an empty file but one with no module and the
#      "skip module" flag. It is not in RSP, and it is not compiled.
#   2. backend compiles, one per file in RSP, in the link's directory:
#        clang-19 -c -x ir M -fthinlto-index=M.thinlto.bc -O<n>
#                 -mllvm -lto-embed-bitcode=post-merge-pre-opt -o M.native.o
#      <n> is the link's LTO level (-plugin-opt=O<n> or --lto-O<n>, default 2).
#      -lto-embed-bitcode=post-merge-pre-opt puts the post-import module and
#      this cc1 command line into M.native.o (.llvmbc/.llvmcmd). That is what
#      `mlgo extract-ir --thinlto-build distributed` reads.
#      bear 3.1 does not record these compiles: its input is not a source
#      file by extension. So the wrapper writes them, in bear's layout, to
#      <output>.thinlto-members/compile_commands.json, and build-corpus.sh
#      merges that file into the project's database.
#   3. the real link, with the arguments as given:
#        ld.lld-19 ARGS --save-temps=import --save-temps=prelink
#                  --thinlto-emit-index-files
#      This is lld's in-process ThinLTO backend, the "local" flavour. It
#      writes <obj>.3.import.bc (post-import module) and <obj>.thinlto.bc
#      (index) beside each bitcode input, and keeps the backend's own object
#      as <output>.lto.<obj stem>.o there (what the fidelity check compares). For an archive member they go beside
#      the archive, named "libx.a(member.o at 84).3.import.bc" and so on.
#      When several links use one object or archive, the last link's files
#      stay.
#
# Why the files do not clobber each other: step 1 reads all bitcode from the
# copies below <output>.thinlto-members/, so its index and imports files (and
# RSP) all land there. Step 3 writes only beside the original inputs. No
# --thinlto-prefix-replace is needed, and the order of the steps does not
# matter. Each link has its own members directory, so an archive linked into
# two programs gets two sets of distributed indexes and backend compiles.
# The directory is emptied at the start of each link.
#
# Environment: THINLTO_DISTRIBUTED=0 skips steps 1 and 2; THINLTO_LLD,
# THINLTO_CLANG, THINLTO_AR replace ld.lld-19, clang-19, llvm-ar-19.
# Response files (@FILE; clang writes one only for a very long command line)
# are expanded for steps 1 and 2, split as xargs does ('', "", \), and passed
# on unchanged to step 3. A link without bitcode input runs step 3 alone.
set -euo pipefail

LLD=${THINLTO_LLD:-ld.lld-19}
CLANG=${THINLTO_CLANG:-clang-19}
LLVM_AR=${THINLTO_AR:-llvm-ar-19}

die() { echo "thinlto-link: error: $*" >&2; exit 1; }
warn() { echo "thinlto-link: warning: $*" >&2; }

# Step 3 on its own: the link that makes the program the build needs.
real_link() {
    exec "$LLD" "$@" --save-temps=import --save-temps=prelink --thinlto-emit-index-files
}

[[ "${THINLTO_DISTRIBUTED:-1}" != 0 ]] || real_link "$@"

# ---------------------------------------------------------------------------
# Arguments, with response files expanded.
declare -a ARGS=()
expand_args() {  # expand_args DEPTH ARG...
    local depth=$1 a
    shift
    local -a sub
    for a in "$@"; do
        if [[ "$a" == @?* && -f "${a#@}" ]]; then
            [[ $depth -lt 10 ]] || die "response files nested too deep at $a"
            # xargs splits with shell-like quoting ('', "", \), as GNU ld does.
            mapfile -d '' sub < <(xargs -r printf '%s\0' < "${a#@}") ||
                die "cannot parse response file ${a#@}"
            expand_args $((depth + 1)) "${sub[@]}"
        else
            ARGS+=("$a")
        fi
    done
}
expand_args 0 "$@"

# Options whose value is the next argument (ld.lld-19 spellings).
takes_value() {
    case "$1" in
        -o|--output|-m|-L|--library-path|-l|--library|-T|--script|-e|--entry|\
        -u|--undefined|-y|--trace-symbol|-z|-R|--just-symbols|-h|-soname|--soname|\
        -rpath|--rpath|-dynamic-linker|--dynamic-linker|-plugin|--plugin|\
        -plugin-opt|--plugin-opt|--version-script|--dynamic-list|--sysroot|--wrap|\
        --defsym|-Map|--Map|-F|--filter|-f|--auxiliary|--hash-style|--init|--fini|\
        --exclude-libs|--symbol-ordering-file|--export-dynamic-symbol|\
        --dependency-file|--retain-symbols-file|--section-start|-Ttext|-Tdata|\
        -Tbss|-b|--format|--image-base|-mllvm|--mllvm|--undefined-glob|\
        --undefined-version|--remap-inputs-file|--why-extract|--error-limit|\
        --thinlto-jobs|--lto-partitions|--threads|-O|--package-metadata|\
        --Tbss|--Tdata|--Ttext|--call-graph-ordering-file|--orphan-handling|\
        --unresolved-symbols|--target2|--icf|--pack-dyn-relocs|--sort-section|\
        --lto-obj-path)
            return 0 ;;
    esac
    return 1
}

# Pass 1: output, library search directories, LTO level.
OUTPUT=a.out
OPT_LEVEL=2
declare -a SEARCH_DIRS=()
n=${#ARGS[@]}
for ((i = 0; i < n; i++)); do
    a=${ARGS[$i]}
    next=${ARGS[$((i + 1))]:-}
    case "$a" in
        -o|--output) OUTPUT=$next ;;
        --output=*) OUTPUT=${a#*=} ;;
        -o?*) OUTPUT=${a#-o} ;;
        -L|--library-path) SEARCH_DIRS+=("$next") ;;
        --library-path=*) SEARCH_DIRS+=("${a#*=}") ;;
        -L?*) SEARCH_DIRS+=("${a#-L}") ;;
        -plugin-opt=O[0-3]|--plugin-opt=O[0-3]) OPT_LEVEL=${a##*=O} ;;
        --lto-O[0-3]) OPT_LEVEL=${a#--lto-O} ;;
        -plugin-opt|--plugin-opt) [[ "$next" == O[0-3] ]] && OPT_LEVEL=${next#O} ;;
    esac
    if takes_value "$a"; then i=$((i + 1)); fi
done

MEMBERS_DIR="$OUTPUT.thinlto-members"
case "$MEMBERS_DIR" in
    *.thinlto-members) ;;
    *) die "bad output name: $OUTPUT" ;;
esac
rm -rf -- "$MEMBERS_DIR"
mkdir -p -- "$MEMBERS_DIR"
RSP="$MEMBERS_DIR/linked-bitcode.rsp"
FRAGMENT="$MEMBERS_DIR/compile_commands.json"

magic() { head -c "$2" -- "$1" 2>/dev/null | od -An -tx1 | tr -d ' \n'; }
is_bitcode() {  # raw bitcode or the bitcode wrapper
    local m
    m=$(magic "$1" 4)
    [[ "$m" == 4243c0de || "$m" == dec0170b ]]
}
is_archive() { [[ "$(magic "$1" 8)" == 213c617263683e0a ]]; }   # "!<arch>\n"
# (the pattern is ASCII: bear fails an exec whose arguments are not UTF-8)
has_bitcode() { LC_ALL=C grep -qaP 'BC\xC0\xDE' -- "$1"; }

# The file lld would take for -l NAME ("" if none): per directory the shared
# library first unless linking statically, as lld searches.
resolve_lib() {  # resolve_lib NAME STATIC
    local name=$1 static=$2 d f
    local -a files
    if [[ "$name" == :* ]]; then
        files=("${name#:}")
    elif [[ "$static" == 1 ]]; then
        files=("lib$name.a")
    else
        files=("lib$name.so" "lib$name.a")
    fi
    for d in "${SEARCH_DIRS[@]}"; do
        for f in "${files[@]}"; do
            if [[ -f "$d/$f" ]]; then printf '%s\n' "$d/$f"; return; fi
        done
    done
}

# Unpacks ARCHIVE below $MEMBERS_DIR and sets MEMBERS to the member paths, in
# archive order. Returns 1 (with a warning) when it cannot: the archive then
# stays as it is, and backend compiles skip its members.
declare -A UNPACKED=()
declare -a MEMBERS=()
unpack_archive() {  # unpack_archive ARCHIVE
    local archive=$1 abs base dir k=1 name
    local -a names
    MEMBERS=()
    abs=$(realpath -- "$archive")
    base=$(basename -- "$archive")
    dir="$MEMBERS_DIR/$base"
    while [[ -e "$dir" ]]; do k=$((k + 1)); dir="$MEMBERS_DIR/$base.$k"; done
    mapfile -t names < <("$LLVM_AR" t "$abs") || { warn "llvm-ar t $archive failed"; return 1; }
    if [[ -n "$(printf '%s\n' "${names[@]}" | sort | uniq -d)" ]]; then
        warn "$archive has several members of one name; not unpacked (no backend compiles for it)"
        return 1
    fi
    mkdir -p -- "$dir"
    (cd -- "$dir" && "$LLVM_AR" x "$abs") || { warn "llvm-ar x $archive failed"; return 1; }
    for name in "${names[@]}"; do
        [[ -f "$dir/$name" ]] || { warn "$archive: member $name missing after llvm-ar x"; return 1; }
        MEMBERS+=("$dir/$name")
    done
    UNPACKED[$abs]=1
}

# Copies a bitcode object below $MEMBERS_DIR/objects; sets COPY to its path.
COPY=""
copy_object() {  # copy_object OBJECT
    local obj=$1 rel
    case "$obj" in
        /*) rel=${obj#/} ;;
        *) rel=$(realpath -m --relative-to=. -- "$obj") ;;
    esac
    # Outside the link's directory: mirror the absolute path instead.
    [[ "$rel" == ../* || "$rel" == .. ]] && rel=$(realpath -m -- "$obj") && rel=${rel#/}
    COPY="$MEMBERS_DIR/objects/$rel"
    [[ -e "$COPY" ]] && return 1   # given twice: the first one stands for both
    mkdir -p -- "$(dirname -- "$COPY")"
    cp -- "$obj" "$COPY"
}

# Pass 2: the arguments of the index-only link.
declare -a STEP1=()
nbitcode=0
in_lib=0          # inside the link's own --start-lib ... --end-lib
whole=0           # inside --whole-archive
static=0          # -Bstatic in effect (for -l)

# Puts the members of an archive (or the archive itself) into STEP1.
add_archive() {  # add_archive ARCHIVE ORIGINAL_ARGS...
    local archive=$1 abs
    shift
    abs=$(realpath -- "$archive")
    if [[ -n "${UNPACKED[$abs]:-}" ]]; then
        return 0   # already in the link, as lazy members
    fi
    if ! has_bitcode "$archive" || ! unpack_archive "$archive"; then
        STEP1+=("$@")
        return 0
    fi
    [[ ${#MEMBERS[@]} -gt 0 ]] || return 0
    nbitcode=$((nbitcode + 1))
    if [[ $whole == 1 || $in_lib == 1 ]]; then
        STEP1+=("${MEMBERS[@]}")
    else
        STEP1+=(--start-lib "${MEMBERS[@]}" --end-lib)
    fi
}

for ((i = 0; i < n; i++)); do
    a=${ARGS[$i]}
    case "$a" in
        # ThinLTO outputs of the other flavour, or set by this script.
        --thinlto-index-only|--thinlto-index-only=*|-plugin-opt=thinlto-index-only*|\
        --plugin-opt=thinlto-index-only*|--thinlto-emit-index-files|\
        --thinlto-emit-imports-files|-plugin-opt=thinlto-emit-imports-files|\
        --thinlto-prefix-replace=*|-plugin-opt=thinlto-prefix-replace=*|\
        --thinlto-object-suffix-replace=*|--save-temps|--save-temps=*|\
        -plugin-opt=save-temps|--plugin-opt=save-temps)
            continue ;;
        --start-lib) in_lib=1; STEP1+=("$a"); continue ;;
        --end-lib) in_lib=0; STEP1+=("$a"); continue ;;
        --whole-archive) whole=1; STEP1+=("$a"); continue ;;
        --no-whole-archive) whole=0; STEP1+=("$a"); continue ;;
        -Bstatic|-static|--static|-dn|-non_shared) static=1; STEP1+=("$a"); continue ;;
        -Bdynamic|-dy|-call_shared) static=0; STEP1+=("$a"); continue ;;
        -l|--library)
            name=${ARGS[$((i + 1))]:-}
            i=$((i + 1))
            lib=$(resolve_lib "$name" "$static")
            if [[ -n "$lib" ]] && is_archive "$lib"; then add_archive "$lib" "$a" "$name"; else STEP1+=("$a" "$name"); fi
            continue ;;
        -l?*|--library=*)
            if [[ "$a" == -l?* ]]; then name=${a#-l}; else name=${a#*=}; fi
            lib=$(resolve_lib "$name" "$static")
            if [[ -n "$lib" ]] && is_archive "$lib"; then add_archive "$lib" "$a"; else STEP1+=("$a"); fi
            continue ;;
    esac
    if takes_value "$a"; then
        STEP1+=("$a" "${ARGS[$((i + 1))]:-}")
        i=$((i + 1))
        continue
    fi
    if [[ "$a" != -* && -f "$a" ]]; then
        if is_archive "$a"; then
            add_archive "$a" "$a"
            continue
        elif is_bitcode "$a"; then
            if copy_object "$a"; then
                STEP1+=("$COPY")
                nbitcode=$((nbitcode + 1))
            fi
            continue
        fi
    fi
    STEP1+=("$a")
done

if [[ $nbitcode -eq 0 ]]; then
    rm -rf -- "$MEMBERS_DIR"
    real_link "$@"
fi

# ---------------------------------------------------------------------------
# Step 1: the index-only thin link.
"$LLD" "${STEP1[@]}" --thinlto-index-only="$RSP" --thinlto-emit-imports-files ||
    die "index-only link for $OUTPUT failed (arguments: ${STEP1[*]})"
[[ -f "$RSP" ]] || die "ld.lld wrote no $RSP"

# ---------------------------------------------------------------------------
# Step 2: backend compiles, recorded in $FRAGMENT.
json_str() {
    local s=$1
    s=${s//\\/\\\\}; s=${s//\"/\\\"}
    s=${s//$'\t'/\\t}; s=${s//$'\n'/\\n}; s=${s//$'\r'/\\r}
    printf '"%s"' "$s"
}
abs_path() { case "$1" in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$PWD" "$1" ;; esac; }

CLANG_PATH=$(command -v "$CLANG") || die "$CLANG not found"
nbackend=0
{
    echo "["
    first=1
    while IFS= read -r m || [[ -n "$m" ]]; do
        [[ -n "$m" ]] || continue
        case "$m" in
            "$MEMBERS_DIR"/*) ;;
            *) die "$OUTPUT: bitcode input $m is not below $MEMBERS_DIR: it has no file of its own to compile" ;;
        esac
        idx="$m.thinlto.bc"
        [[ -s "$idx" ]] || continue   # an empty index: nothing of it is needed
        cmd=("$CLANG_PATH" -c -x ir "$m" "-fthinlto-index=$idx" "-O$OPT_LEVEL"
             -mllvm -lto-embed-bitcode=post-merge-pre-opt -o "$m.native.o")
        "${cmd[@]}" >&2 || die "backend compile failed: ${cmd[*]}"
        nbackend=$((nbackend + 1))
        [[ $first == 1 ]] || echo "  },"
        first=0
        echo "  {"
        echo "    \"arguments\": ["
        for ((k = 0; k < ${#cmd[@]}; k++)); do
            sep=","; [[ $k -eq $((${#cmd[@]} - 1)) ]] && sep=""
            echo "      $(json_str "${cmd[$k]}")$sep"
        done
        echo "    ],"
        echo "    \"directory\": $(json_str "$PWD"),"
        echo "    \"file\": $(json_str "$(abs_path "$m")"),"
        echo "    \"output\": $(json_str "$(abs_path "$m.native.o")")"
    done < "$RSP"
    [[ $first == 1 ]] || echo "  }"
    echo "]"
} > "$FRAGMENT.tmp"
mv -- "$FRAGMENT.tmp" "$FRAGMENT"
nindex=$(find "$MEMBERS_DIR" -name '*.thinlto.bc' | wc -l)
echo "thinlto-link: $OUTPUT: $nbackend backend compiles at -O$OPT_LEVEL, $((nindex - nbackend)) bitcode inputs not needed (in $MEMBERS_DIR)" >&2

# ---------------------------------------------------------------------------
# Step 3: the real link (lld's in-process backend, "local" flavour).
real_link "$@"
