#!/usr/bin/env bash
# Build a real-code demo corpus for mlgo from pinned Debian source packages.
#
#   tools/demo/build-corpus.sh [--workdir DIR] [--projects LIST] [--thinlto]
#                              [--opt-level O2|O3]
#
#   --workdir DIR    work directory (default: build-demo, relative to the
#                    current directory); everything is written below it
#   --projects LIST  comma-separated subset of the names in projects.txt
#                    (default: the train and heldout ones; with --thinlto:
#                    zlib,bzip2,lua5.4); the pool projects only when named
#   --thinlto        ThinLTO build instead, into DIR/thinlto (see below)
#   --opt-level L    build optimized for speed (-O2 or -O3) instead of -Oz,
#                    into DIR/L (DIR/L/NAME, its .stamps, logs, corpus/):
#                    the register-allocation problem's corpus
#
# For each project of tools/demo/projects.txt (name, version, split, language):
#   1. fetches the source package at exactly that version with apt-get source,
#      through a private apt configuration under DIR/.apt whose deb-src entries
#      are derived at run time from the machine's own Debian sources (the
#      system's apt setup is never modified);
#   2. installs the build dependencies listed in BUILD_DEPS below;
#   3. builds it with its own build system under bear, with clang-19 and
#      -Oz -Xclang -fembed-bitcode=all, leaving DIR/NAME/compile_commands.json
#      and the objects in place;
#   4. if $MLGO is set and executable, runs
#      "$MLGO" extract-ir --input DIR/NAME/compile_commands.json
#                         --output-dir DIR/corpus/SPLIT/NAME
#
# A project whose build finished is skipped on re-run: its stamp file
# DIR/.stamps/NAME records a hash of name, version, compiler, flags and the
# project's build recipe. Progress goes to stderr, build logs to DIR/logs/.
# Environment: JOBS (parallel jobs, default: nproc), MLGO (see above).
#
# With --thinlto, the projects that have a ThinLTO recipe (thinlto_build_NAME:
# zlib, bzip2, lua5.4) are built with -Oz -flto=thin -Xclang
# -fembed-bitcode=all, and each link goes through tools/demo/thinlto-link.sh
# (-fuse-ld=<its absolute path>). One build then leaves both ThinLTO flavours:
#   local        lld's in-process backend saves <obj>.3.import.bc and
#                <obj>.thinlto.bc beside each bitcode input (for archive
#                members: "libx.a(m.o at N).3.import.bc" beside the archive);
#   distributed  backend compiles "clang-19 -c -x ir M -fthinlto-index=
#                M.thinlto.bc ... -o M.native.o" of copies of the link's
#                bitcode inputs below <program>.thinlto-members/, which the
#                wrapper writes in compile_commands.json form and this script
#                adds to the project's database.
# Everything goes to DIR/thinlto/ (DIR/thinlto/NAME, its .stamps, logs,
# projects.tsv), so both builds can coexist. Sources and apt state are shared
# with the regular build. If $MLGO is set and executable, it then runs, for
# FLAVOUR in local and distributed,
#   "$MLGO" extract-ir --thinlto-build FLAVOUR
#                      --input DIR/thinlto/NAME/compile_commands.json
#                      --output-dir DIR/thinlto/corpus/FLAVOUR/NAME
# and stops with an error if that mlgo has no --thinlto-build.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PROJECTS_FILE="$SCRIPT_DIR/projects.txt"

WORKDIR=build-demo
SELECTED=""
THINLTO=0
OPT_LEVEL=Oz

usage() {
    sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit "${1:-2}"
}

while [[ $# -gt 0 ]]; do
    case "$1" in
        --workdir) [[ $# -ge 2 ]] || usage; WORKDIR=$2; shift 2 ;;
        --workdir=*) WORKDIR=${1#*=}; shift ;;
        --projects) [[ $# -ge 2 ]] || usage; SELECTED=$2; shift 2 ;;
        --projects=*) SELECTED=${1#*=}; shift ;;
        --thinlto) THINLTO=1; shift ;;
        --opt-level) [[ $# -ge 2 ]] || usage; OPT_LEVEL=$2; shift 2 ;;
        --opt-level=*) OPT_LEVEL=${1#*=}; shift ;;
        -h|--help) usage 0 ;;
        *) echo "build-corpus: unknown argument: $1" >&2; usage ;;
    esac
done

log() { printf '[build-corpus %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
warn() { log "WARNING: $*"; }
die() { log "ERROR: $*"; exit 1; }
warn_failed() {
    [[ ${#FAILED[@]} -gt 0 ]] || return 0
    local names="" i
    for i in "${FAILED[@]}"; do names+=" ${P_NAME[$i]}"; done
    warn "failed:$names (see $LOGS)"
}

# ---------------------------------------------------------------------------
# Toolchain and flags (all of this goes into the stamp key).
CC=clang-19
CXX=clang++-19
case "$OPT_LEVEL" in
    Oz) ;;
    O2|O3) [[ $THINLTO == 0 ]] || { echo "build-corpus: --thinlto builds are -Oz only" >&2; exit 2; } ;;
    *) echo "build-corpus: --opt-level takes O2 or O3, not $OPT_LEVEL" >&2; exit 2 ;;
esac
OPT_FLAGS="-$OPT_LEVEL -Xclang -fembed-bitcode=all"
CFLAGS="$OPT_FLAGS"
CXXFLAGS="$OPT_FLAGS"
# LLVM's archiver: GNU ar/nm/ranlib hand objects with an .llvmbc section to
# the first bfd plugin in /usr/lib/bfd-plugins (LLVM 14's LLVMgold here), which
# fails on LLVM 19 bitcode, and the archive ends up with no symbol index.
AR=llvm-ar-19
RANLIB=llvm-ranlib-19
JOBS=${JOBS:-$(nproc)}
export CC CXX CFLAGS CXXFLAGS AR RANLIB
unset CPPFLAGS LDFLAGS MAKEFLAGS MFLAGS || true
LDFLAGS=""          # (not exported: the regular build uses none)
THINLTO_LINK="$SCRIPT_DIR/thinlto-link.sh"
if [[ $THINLTO == 1 ]]; then
    [[ -x "$THINLTO_LINK" ]] || { echo "build-corpus: $THINLTO_LINK is missing or not executable" >&2; exit 1; }
    OPT_FLAGS="-Oz -flto=thin -Xclang -fembed-bitcode=all"
    CFLAGS="$OPT_FLAGS"
    CXXFLAGS="$OPT_FLAGS"
    # clang-19 runs an absolute -fuse-ld path as the linker.
    LDFLAGS="-fuse-ld=$THINLTO_LINK"
    export LDFLAGS
    [[ -n "$SELECTED" ]] || SELECTED="zlib,bzip2,lua5.4"
fi

# Tools the script itself needs (Debian package names).
TOOL_PKGS="clang-19 llvm-19 bear cmake ninja-build make dpkg-dev patch"
if [[ $THINLTO == 1 ]]; then TOOL_PKGS="$TOOL_PKGS lld-19"; fi

# Explicit build dependencies per project (Debian binary package names).
declare -A BUILD_DEPS=(
    [libpng1.6]="zlib1g-dev"
    [taglib]="zlib1g-dev libutfcpp-dev"
    [re2]="perl python3 python3-six unicode-data"
)

# Debian patches NOT applied (the Debian packaging build system, which
# we replace by the upstream one); all other patches of the series are.
declare -A SKIP_PATCHES=(
    [lua5.4]="0001-build-system.patch 0002-lua-modules-paths.patch"
)

# ---------------------------------------------------------------------------
# Build recipes. Each runs in a subshell with the current directory set to the
# unpacked source tree ($SRC); $OUT is DIR/NAME, $CCJ the compile database.
# Configure steps run outside bear so that their test compiles are not
# recorded; only the library/program build runs under bear.

bear_run() { bear --output "$CCJ" -- "$@"; }
bear_append() { bear --append --output "$CCJ" -- "$@"; }

cmake_ninja() {  # cmake_ninja [cmake -D options...] -- [ninja targets...]
    local opts=() targets=()
    while [[ $# -gt 0 && "$1" != "--" ]]; do opts+=("$1"); shift; done
    [[ $# -gt 0 ]] && shift
    targets=("$@")
    cmake -S "$SRC" -B "$OUT/build" -G Ninja \
        -DCMAKE_BUILD_TYPE=None \
        -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
        -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
        -DCMAKE_AR="$(command -v "$AR")" -DCMAKE_RANLIB="$(command -v "$RANLIB")" \
        -DBUILD_SHARED_LIBS=OFF -DBUILD_TESTING=OFF \
        "${opts[@]}"
    bear_run ninja -C "$OUT/build" -j"$JOBS" "${targets[@]}"
}

build_zlib() {
    ./configure --static
    bear_run make -j"$JOBS" libz.a example minigzip
}

build_bzip2() {
    # Debian's Makefile links bzip2 against libbz2.so, built from a second,
    # -fPIC copy of the library objects (*.sho): build the objects only once.
    bear_run make -j"$JOBS" CC="$CC" CFLAGS="$CFLAGS -D_FILE_OFFSET_BITS=64" \
        AR="$AR" RANLIB="$RANLIB" libbz2.a bzip2.o bzip2recover
}

build_lua5_4() {
    bear_run make -j"$JOBS" -C src linux CC="$CC" MYCFLAGS="$CFLAGS" \
        AR="$AR rc" RANLIB="$RANLIB"
}

# xz-utils, libpng and pcre2 also ship autotools builds, but their configure
# scripts and libtool's many shell processes (each one traced by bear) cost
# about 4 times the CPU time of their CMake builds, measured here.
build_xz_utils() {
    # (the symlink rules of the CMake build break Ninja: "multiple rules")
    cmake_ninja -DCREATE_XZ_SYMLINKS=OFF -DCREATE_LZMA_SYMLINKS=OFF
}

build_libpng1_6() {
    # The test and tool programs need the shared library: build it alone (a
    # static one too would compile the library twice). Tests are not run.
    # (pnggetset, a test added by a Debian patch, links to a missing target)
    cmake_ninja -DPNG_SHARED=ON -DPNG_STATIC=OFF -DPNG_TESTS=ON -DPNG_EXECUTABLES=ON \
        -- png pngtest pngvalid pngstest pngunknown pngimage pngfix png-fix-itxt
}

build_libzstd() {
    # The zstd program compiles the whole library (with legacy formats and
    # multithreading) itself: building lib/libzstd.a too would only duplicate it.
    # ZSTD_NO_ASM: the C Huffman decoder instead of an assembly file (no IR).
    bear_run make -j"$JOBS" -C programs zstd CC="$CC" CFLAGS="$CFLAGS" \
        HAVE_ZLIB=0 HAVE_LZMA=0 HAVE_LZ4=0 HAVE_THREAD=1 ZSTD_NO_ASM=1
}

build_pcre2() {
    # Tests ON builds the pcre2test and pcre2_jit_test programs (not run).
    cmake_ninja -DPCRE2_SUPPORT_JIT=ON -DPCRE2_BUILD_PCRE2GREP=ON \
        -DPCRE2_BUILD_TESTS=ON -DPCRE2_SUPPORT_LIBBZ2=OFF -DPCRE2_SUPPORT_LIBZ=OFF \
        -DPCRE2_SUPPORT_LIBREADLINE=OFF -DPCRE2_SUPPORT_LIBEDIT=OFF \
        -DPCRE2_SHOW_REPORT=OFF
}

build_brotli() {
    bear_run make -j"$JOBS" brotli CC="$CC" CFLAGS="$CFLAGS"
}

build_libwebp() {
    # The libraries only (the command-line tools need image libraries), and
    # not libwebpdecoder, a second build of the decoder half of libwebp.
    cmake_ninja -DWEBP_BUILD_ANIM_UTILS=OFF -DWEBP_BUILD_CWEBP=OFF \
        -DWEBP_BUILD_DWEBP=OFF -DWEBP_BUILD_GIF2WEBP=OFF -DWEBP_BUILD_IMG2WEBP=OFF \
        -DWEBP_BUILD_VWEBP=OFF -DWEBP_BUILD_WEBPINFO=OFF -DWEBP_BUILD_WEBPMUX=OFF \
        -DWEBP_BUILD_EXTRAS=OFF -DWEBP_BUILD_LIBWEBPMUX=ON \
        -- webp webpdemux libwebpmux
}

build_taglib() {
    cmake_ninja -DBUILD_TESTS=OFF -DBUILD_EXAMPLES=OFF -DBUILD_BINDINGS=ON
}

build_yaml_cpp() {
    cmake_ninja -DYAML_CPP_BUILD_TESTS=OFF -DYAML_CPP_BUILD_TOOLS=OFF \
        -DYAML_CPP_BUILD_CONTRIB=ON -DYAML_BUILD_SHARED_LIBS=OFF
}

build_leveldb() {
    cmake_ninja -DLEVELDB_BUILD_TESTS=OFF -DLEVELDB_BUILD_BENCHMARKS=OFF \
        -DLEVELDB_INSTALL=OFF -- leveldb
}

build_re2() {
    # Debian's source drops the generated Unicode tables: regenerate them
    # (as debian/rules does with REBUILD_TABLES=1) from unicode-data.
    perl re2/make_perl_groups.pl > re2/perl_groups.cc
    /usr/bin/python3 re2/make_unicode_casefold.py > re2/unicode_casefold.cc
    /usr/bin/python3 re2/make_unicode_groups.py > re2/unicode_groups.cc
    cmake_ninja -DRE2_BUILD_TESTING=OFF
}

build_libebml() {
    cmake_ninja -DDISABLE_PKGCONFIG=ON -DDISABLE_CMAKE_CONFIG=ON
}

build_double_conversion() {
    cmake_ninja -- double-conversion
}

build_snappy() {
    # Debian's patches add a static target of the same output name: build the shared one.
    cmake_ninja -DBUILD_SHARED_LIBS=ON -DSNAPPY_BUILD_TESTS=OFF -DSNAPPY_BUILD_BENCHMARKS=OFF \
        -DSNAPPY_INSTALL=OFF -- snappy
}

build_tinyxml2() {
    cmake_ninja -Dtinyxml2_BUILD_TESTING=OFF -- tinyxml2
}

build_jansson() {
    cmake_ninja -DJANSSON_BUILD_DOCS=OFF -DJANSSON_EXAMPLES=OFF -DJANSSON_WITHOUT_TESTS=ON -- jansson
}

build_libyaml() {
    cmake_ninja -- yaml
}

build_lz4() {
    # The CMake build lives in build/cmake: the static library and the lz4 program.
    SRC="$SRC/build/cmake" cmake_ninja -DBUILD_STATIC_LIBS=ON -DLZ4_BUILD_LEGACY_LZ4C=OFF
}

build_libjsoncpp() {
    cmake_ninja -DJSONCPP_WITH_TESTS=OFF -DJSONCPP_WITH_POST_BUILD_UNITTEST=OFF \
        -DJSONCPP_WITH_PKGCONFIG_SUPPORT=OFF -DJSONCPP_WITH_CMAKE_PACKAGE=OFF \
        -DBUILD_STATIC_LIBS=ON -DBUILD_OBJECT_LIBS=OFF
}

# ThinLTO recipes (--thinlto; the function name is thinlto_build_<name>).
# CFLAGS carries -flto=thin and LDFLAGS names the linker wrapper
# (thinlto-link.sh). Every link of the build must get both. Configure steps
# link with plain lld: through the wrapper their test programs would leave
# ThinLTO files in the tree. Each recipe ends with thinlto_finish.

# Adds the backend compiles the wrapper recorded for each link
# (*.thinlto-members/compile_commands.json below $OUT; bear 3.1 leaves them
# out, as a "-x ir foo.o" input is not a source file to it) to $CCJ, in
# bear's layout, skipping any whose output $CCJ already has. Then checks that
# both flavours left files.
thinlto_finish() {
    local tmp nimport nbackend
    local -a frags=()
    mapfile -t frags < <(find "$OUT" -path '*.thinlto-members/compile_commands.json' -type f | sort)
    [[ ${#frags[@]} -gt 0 ]] ||
        { echo "build-corpus: no link went through thinlto-link.sh (no *.thinlto-members/ below $OUT)" >&2; return 1; }
    tmp=$(mktemp "$CCJ.XXXXXX")
    awk '
        FNR == 1 { file++ }
        /^ *\{ *$/ { entry = ""; out = ""; inentry = 1 }
        inentry {
            line = $0
            if (line ~ /^ *\},? *$/) sub(/,? *$/, "", line)
            entry = entry line "\n"
            if ($0 ~ /^ *"output":/) { out = $0; sub(/,? *$/, "", out) }
        }
        inentry && /^ *\},? *$/ {
            inentry = 0
            if (file > 1 && out != "" && (out in seen)) next
            if (out != "") seen[out] = 1
            entries[++n] = substr(entry, 1, length(entry) - 1)
        }
        END {
            print "["
            for (i = 1; i <= n; i++) print entries[i] (i < n ? "," : "")
            print "]"
        }
    ' "$CCJ" "${frags[@]}" > "$tmp"
    mv "$tmp" "$CCJ"
    nimport=$(find "$OUT" -name '*.3.import.bc' | wc -l)
    nbackend=$(grep -c -- '"-fthinlto-index=' "$CCJ" || true)
    echo "build-corpus: ThinLTO: $nimport import modules (local), $nbackend backend compiles (distributed)" >&2
    [[ $nimport -gt 0 && $nbackend -gt 0 ]] ||
        { echo "build-corpus: a ThinLTO flavour left nothing" >&2; return 1; }
}

thinlto_build_zlib() {
    LDFLAGS=-fuse-ld=lld ./configure --static
    # (TEST_LDFLAGS, the programs' link flags, start with LDFLAGS)
    bear_run make -j"$JOBS" LDFLAGS="$LDFLAGS" libz.a example minigzip
    thinlto_finish
}

thinlto_build_bzip2() {
    bear_run make -j"$JOBS" CC="$CC" CFLAGS="$CFLAGS -D_FILE_OFFSET_BITS=64" \
        LDFLAGS="$LDFLAGS" AR="$AR" RANLIB="$RANLIB" libbz2.a bzip2.o bzip2recover
    # The Makefile links bzip2 against libbz2.so only: link it as the
    # Makefile's rule does, where -L. -lbz2 finds the archive.
    # shellcheck disable=SC2086
    bear_append "$CC" $CFLAGS -D_FILE_OFFSET_BITS=64 $LDFLAGS -o bzip2 bzip2.o -L. -lbz2
    thinlto_finish
}

thinlto_build_lua5_4() {
    # The link rules use $(CC) $(LDFLAGS) without CFLAGS: give the links
    # -flto=thin and -Oz through MYLDFLAGS too.
    bear_run make -j"$JOBS" -C src linux CC="$CC" MYCFLAGS="$CFLAGS" \
        MYLDFLAGS="$CFLAGS $LDFLAGS" AR="$AR rc" RANLIB="$RANLIB"
    thinlto_finish
}

# ---------------------------------------------------------------------------
# Work directory layout.
mkdir -p "$WORKDIR"
WORK=$(cd "$WORKDIR" && pwd)
APT_DIR="$WORK/.apt"
SRC_CACHE="$WORK/.src"
LOCK_D="$WORK/.lock.d"
# BASE holds the project directories, stamps, logs and manifest of this
# kind of build: DIR itself, DIR/thinlto for --thinlto, DIR/O2 for -O2.
BASE=$WORK
[[ $THINLTO == 0 ]] || BASE="$WORK/thinlto"
[[ $OPT_LEVEL == Oz ]] || BASE="$WORK/$OPT_LEVEL"
STAMPS="$BASE/.stamps"
LOGS="$BASE/logs"
mkdir -p "$APT_DIR/sources.list.d" "$APT_DIR/lists/partial" \
    "$APT_DIR/cache/archives/partial" "$SRC_CACHE" "$STAMPS" "$LOGS" "$LOCK_D"
# The work directory holds generated files (including the mirror's address in
# the private apt sources): keep it out of any git repository it lies in.
[[ -f "$WORK/.gitignore" ]] || echo '*' > "$WORK/.gitignore"

APT_OPTS=(
    -o Dir::Etc::SourceList=/dev/null
    -o Dir::Etc::SourceParts="$APT_DIR/sources.list.d"
    -o Dir::State::Lists="$APT_DIR/lists"
    -o Dir::Cache="$APT_DIR/cache"
    -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
    -o DPkg::Lock::Timeout=300
    -o Acquire::Retries=3
)
if [[ $EUID -eq 0 ]]; then
    APT_OPTS+=(-o APT::Sandbox::User=root)
fi

# ---------------------------------------------------------------------------
# Project list.
declare -a P_NAME=() P_VERSION=() P_SPLIT=() P_LANG=()
while read -r name version split lang rest; do
    [[ -z "${name:-}" || "$name" == \#* ]] && continue
    [[ -n "${lang:-}" ]] || die "$PROJECTS_FILE: bad line for '$name' (need name version split language)"
    case "$split" in
        train|heldout|pool) ;;
        *) die "$PROJECTS_FILE: $name: split must be train, heldout or pool, not '$split'" ;;
    esac
    P_NAME+=("$name"); P_VERSION+=("$version"); P_SPLIT+=("$split"); P_LANG+=("$lang")
done < "$PROJECTS_FILE"

declare -a SEL=()   # indexes into P_*
if [[ -n "$SELECTED" ]]; then
    IFS=',' read -r -a wanted <<< "$SELECTED"
    for w in "${wanted[@]}"; do
        w=${w// /}
        [[ -z "$w" ]] && continue
        found=""
        for i in "${!P_NAME[@]}"; do
            if [[ "${P_NAME[$i]}" == "$w" ]]; then SEL+=("$i"); found=1; fi
        done
        [[ -n "$found" ]] || die "unknown project '$w' (known: ${P_NAME[*]})"
    done
else
    # The pool projects widen the pass-list pool only: never in the demo's
    # corpora unless named.
    for i in "${!P_NAME[@]}"; do [[ "${P_SPLIT[$i]}" == pool ]] || SEL+=("$i"); done
fi
[[ ${#SEL[@]} -gt 0 ]] || die "no project selected"

# Runs a function in a fresh bash with errexit in force (bash ignores set -e
# inside anything called from an if/&&/|| condition, even in subshells).
# unpack_project and build_project put project NAME in $WORK/NAME: they get
# BASE as WORK.
run_strict() {
    local WORK=$BASE
    bash -c "set -euo pipefail; $(declare -p CC CXX CFLAGS CXXFLAGS AR RANLIB LDFLAGS JOBS WORK \
        LOGS SRC_CACHE SKIP_PATCHES THINLTO); $(declare -f); \"\$@\"" run_strict "$@"
}

fn_name() {
    if [[ $THINLTO == 1 ]]; then printf 'thinlto_'; fi
    printf 'build_%s' "${1//[^A-Za-z0-9]/_}"
}

for i in "${SEL[@]}"; do
    declare -F "$(fn_name "${P_NAME[$i]}")" >/dev/null ||
        die "project ${P_NAME[$i]} has no build recipe $(fn_name "${P_NAME[$i]}") in $0"
done

stamp_key() {  # stamp_key INDEX
    local i=$1 name=${P_NAME[$1]}
    {
        echo "name=$name version=${P_VERSION[$i]}"
        echo "CC=$CC CXX=$CXX CFLAGS=$CFLAGS CXXFLAGS=$CXXFLAGS AR=$AR RANLIB=$RANLIB"
        "$CC" --version 2>/dev/null | head -n1
        echo "deps=${BUILD_DEPS[$name]:-} skip-patches=${SKIP_PATCHES[$name]:-}"
        declare -f bear_run bear_append cmake_ninja build_project add_missing_outputs "$(fn_name "$name")"
        if [[ $THINLTO == 1 ]]; then
            echo "LDFLAGS=$LDFLAGS"
            declare -f thinlto_finish
            sha256sum < "$THINLTO_LINK"
        fi
    } | sha256sum | cut -d' ' -f1
}

is_done() {  # is_done INDEX
    local name=${P_NAME[$1]}
    [[ -f "$STAMPS/$name" && -s "$BASE/$name/compile_commands.json" ]] &&
        [[ "$(cat "$STAMPS/$name")" == "$(stamp_key "$1")" ]]
}

# ---------------------------------------------------------------------------
# Private apt configuration: deb + deb-src entries for the machine's Debian
# archives only, derived from /etc/apt at run time.

# Prints "URI<TAB>SUITE<TAB>COMPONENTS<TAB>SIGNED_BY" for each Debian bookworm
# entry of the configured sources (deb822 *.sources and one-line *.list).
debian_entries() {
    local f
    for f in /etc/apt/sources.list.d/*.sources; do
        [[ -f "$f" ]] || continue
        awk '
            function flush(   n, u, s, nu, ns, a, b) {
                if (enabled != "no" && types ~ /(^|[ \t])deb([ \t]|$)/) {
                    nu = split(uris, u, /[ \t]+/); ns = split(suites, s, /[ \t]+/)
                    for (a = 1; a <= nu; a++) for (b = 1; b <= ns; b++)
                        if (u[a] != "" && s[b] != "")
                            printf "%s\t%s\t%s\t%s\n", u[a], s[b], comps, signed
                }
                types = uris = suites = comps = signed = key = ""; enabled = ""
            }
            /^[ \t]*#/ { next }
            /^[ \t]*$/ { flush(); next }
            /^[ \t]/ {                       # continuation line
                if (key == "signed-by") { sub(/^[ \t]+/, ""); signed = signed "\\n " $0 }
                next
            }
            {
                p = index($0, ":"); if (p == 0) next
                key = tolower(substr($0, 1, p - 1)); val = substr($0, p + 1)
                gsub(/^[ \t]+|[ \t]+$/, "", val)
                if (key == "types") types = val
                else if (key == "uris") uris = val
                else if (key == "suites") suites = val
                else if (key == "components") comps = val
                else if (key == "signed-by") signed = val
                else if (key == "enabled") enabled = tolower(val)
            }
            END { flush() }
        ' "$f"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [[ -f "$f" ]] || continue
        awk '
            /^[ \t]*deb[ \t]/ {
                line = $0; sub(/#.*/, "", line); signed = ""
                if (match(line, /\[[^]]*\]/)) {
                    opts = substr(line, RSTART + 1, RLENGTH - 2)
                    line = substr(line, 1, RSTART - 1) substr(line, RSTART + RLENGTH)
                    n = split(opts, o, /[ \t]+/)
                    for (k = 1; k <= n; k++)
                        if (tolower(substr(o[k], 1, 10)) == "signed-by=") signed = substr(o[k], 11)
                }
                n = split(line, w, /[ \t]+/); first = (w[1] == "") ? 2 : 1
                uri = w[first + 1]; suite = w[first + 2]; comps = ""
                for (k = first + 3; k <= n; k++) if (w[k] != "") comps = comps (comps == "" ? "" : " ") w[k]
                if (uri != "" && suite != "") printf "%s\t%s\t%s\t%s\n", uri, suite, comps, signed
            }
        ' "$f"
    done
}

setup_private_apt() {
    local out="$APT_DIR/sources.list.d/debian.sources" tmp uri suite comps signed path n=0
    tmp=$(mktemp)
    while IFS=$'\t' read -r uri suite comps signed; do
        path=${uri#*://}; path=/${path#*/}; path=${path%/}
        [[ "$suite" == bookworm* ]] || continue
        [[ "$path" == */debian || "$path" == */debian-security ]] || continue
        [[ -n "$comps" ]] || continue
        {
            echo "Types: deb deb-src"
            echo "URIs: $uri"
            echo "Suites: $suite"
            echo "Components: $comps"
            if [[ -n "$signed" ]]; then printf 'Signed-By: %b\n' "$signed"; fi
            echo
        } >> "$tmp"
        n=$((n + 1))
    done < <(debian_entries | sort -u)
    if [[ $n -eq 0 ]]; then
        rm -f "$tmp"
        die "no Debian bookworm archive (URI ending in /debian or /debian-security) found in /etc/apt; cannot derive deb-src entries"
    fi
    mv "$tmp" "$out"
    log "private apt sources: $n Debian entries (deb + deb-src) in $out"
    log "apt-get update (private lists in $APT_DIR/lists)"
    apt-get "${APT_OPTS[@]}" -q update > "$LOGS/apt-update.log" 2>&1 ||
        { tail -n 20 "$LOGS/apt-update.log" >&2; die "apt-get update with the private configuration failed (log: $LOGS/apt-update.log)"; }
}

available_versions() {  # available_versions SOURCE_NAME
    apt-cache "${APT_OPTS[@]}" showsrc --only-source "$1" 2>/dev/null |
        awk '/^Package:/ { p = $2 } /^Version:/ { print $2 }' | sort -u
}

install_packages() {  # install_packages PKG...
    local missing=() p
    for p in "$@"; do
        [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" == "install ok installed" ]] || missing+=("$p")
    done
    [[ ${#missing[@]} -eq 0 ]] && return 0
    local sudo=()
    if [[ $EUID -ne 0 ]]; then
        command -v sudo > /dev/null || die "missing packages (install them as root): ${missing[*]}"
        sudo=(sudo env DEBIAN_FRONTEND=noninteractive)
    fi
    log "apt-get install ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get "${APT_OPTS[@]}" -q -y \
        --no-install-recommends install "${missing[@]}" > "$LOGS/apt-install.log" 2>&1 ||
        { tail -n 20 "$LOGS/apt-install.log" >&2; die "apt-get install ${missing[*]} failed (log: $LOGS/apt-install.log)"; }
}

# ---------------------------------------------------------------------------
# Fetch, unpack, build.

dsc_path() {  # dsc_path NAME VERSION  (the file name drops the epoch)
    printf '%s/%s_%s.dsc' "$SRC_CACHE" "$1" "${2#*:}"
}

fetch_project() {  # fetch_project INDEX
    local i=$1 name=${P_NAME[$1]} version=${P_VERSION[$1]} dsc
    dsc=$(dsc_path "$name" "$version")
    ( cd "$SRC_CACHE" && apt-get "${APT_OPTS[@]}" -q source --download-only --only-source "$name=$version" ) \
        > "$LOGS/$name.fetch.log" 2>&1 || {
        tail -n 5 "$LOGS/$name.fetch.log" >&2
        return 1
    }
    [[ -f "$dsc" ]] || { log "$name: $dsc missing after apt-get source"; return 1; }
    # Lock entry: every file of the source package with its SHA-256.
    {
        printf '%s\t%s\t%s\t%s\n' "$name" "$version" "$(basename "$dsc")" "$(sha256sum "$dsc" | cut -d' ' -f1)"
        awk '/^Checksums-Sha256:/ { on = 1; next } /^[^ ]/ { on = 0 } on && NF == 3 { print $3 "\t" $1 }' "$dsc" |
            while IFS=$'\t' read -r file sum; do
                printf '%s\t%s\t%s\t%s\n' "$name" "$version" "$file" "$sum"
            done
    } > "$LOCK_D/$name"
}

unpack_project() {  # unpack_project NAME VERSION (run through run_strict)
    local name=$1 version=$2 dsc src patch opt
    dsc=$(dsc_path "$name" "$version")
    src="$WORK/$name/src"
    rm -rf "${WORK:?}/${name:?}"
    mkdir -p "$WORK/$name"
    if [[ -z "${SKIP_PATCHES[$name]:-}" ]]; then
        dpkg-source -q -x "$dsc" "$src"
        find "$WORK/$name" -maxdepth 1 -type f -delete   # dpkg-source's tarball copies
        return
    fi
    dpkg-source -q --skip-patches -x "$dsc" "$src"
    find "$WORK/$name" -maxdepth 1 -type f -delete
    [[ -f "$src/debian/patches/series" ]] || return 0
    while read -r patch opt; do
        [[ -z "$patch" || "$patch" == \#* ]] && continue
        if [[ " ${SKIP_PATCHES[$name]} " == *" $patch "* ]]; then
            log "$name: not applying Debian patch $patch"
            continue
        fi
        patch -d "$src" -s -N ${opt:--p1} < "$src/debian/patches/$patch"
    done < "$src/debian/patches/series"
}

# CPU seconds (user + system) used so far by this script's finished child
# processes: a figure that, unlike wall time, a busy machine hardly changes.
# Sets CPU_NOW; call it directly, not in $(...): `times` in a subshell would
# see no finished children.
child_cpu() {
    times > "$WORK/.times"
    CPU_NOW=$(awk 'END { t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); sub(/s$/, "", a[2]); t += a[1] * 60 + a[2] }
                         printf "%.0f\n", t }' "$WORK/.times")
}

count_objects() {  # count_objects COMPILE_COMMANDS -> number of *.o outputs
    grep -cE '"output": *"[^"]*\.o"' "$1" || true
}

# Prints the absolute path of every *.o output of a compile database.
object_paths() {
    awk '
        /"directory":/ { d = $0; sub(/^[^:]*: *"/, "", d); sub(/",? *$/, "", d) }
        /"output":/    { o = $0; sub(/^[^:]*: *"/, "", o); sub(/",? *$/, "", o) }
        /^ *\},? *$/   {
            if (o ~ /\.o$/) print (substr(o, 1, 1) == "/" ? o : d "/" o)
            d = o = ""
        }
    ' "$1"
}

count_bitcode() {  # count_bitcode COMPILE_COMMANDS -> objects carrying .llvmbc
    object_paths "$1" | xargs -r -d '\n' llvm-objdump-19 -h 2>/dev/null |
        grep -c '^ *[0-9]* \.llvmbc ' || true
}

# Bear leaves out "output" for a compile without -o (lua's "cc -c lcode.c"):
# add it (DIRECTORY/BASENAME.o) where that object exists, so that every entry
# names its object. Relies on bear's layout: one key per line, entries closed
# by a line holding only "}" or "},".
add_missing_outputs() {  # add_missing_outputs COMPILE_COMMANDS
    local ccj=$1 tmp
    tmp=$(mktemp "$ccj.XXXXXX")
    awk '
        function strval(line,   v) { v = line; sub(/^[^:]*: *"/, "", v); sub(/",? *$/, "", v); return v }
        /^ *\{ *$/ { n = 0; inentry = 1; d = f = ""; hasout = 0 }
        inentry && /^ *\},? *$/ {
            if (!hasout && d != "" && f != "") {
                b = f; sub(/^.*\//, "", b); sub(/\.[^.]*$/, "", b)
                o = d "/" b ".o"
                if (system("test -f \"" o "\"") == 0) {
                    buf[n] = buf[n] ","
                    ind = buf[n]; sub(/[^ ].*$/, "", ind)
                    buf[++n] = ind "\"output\": \"" o "\""
                }
            }
            for (k = 1; k <= n; k++) print buf[k]
            print; inentry = 0; next
        }
        inentry {
            buf[++n] = $0
            if ($0 ~ /^ *"directory":/) d = strval($0)
            else if ($0 ~ /^ *"file":/) f = strval($0)
            else if ($0 ~ /^ *"output":/) hasout = 1
            next
        }
        { print }
    ' "$ccj" > "$tmp" && mv "$tmp" "$ccj"
}

build_project() {  # build_project NAME (run through run_strict)
    local name=$1
    SRC="$WORK/$name/src"
    OUT="$WORK/$name"
    CCJ="$OUT/compile_commands.json"
    rm -f "$CCJ"
    cd "$SRC"
    "$(fn_name "$name")"
    [[ -s "$CCJ" ]] && add_missing_outputs "$CCJ"
    [[ -s "$CCJ" && "$(count_objects "$CCJ")" -gt 0 ]] ||
        { echo "build-corpus: no object recorded in $CCJ" >&2; return 1; }
}

# ---------------------------------------------------------------------------
# Main.

T_START=$(date +%s)
declare -a TODO=() OK=() FAILED=()
for i in "${SEL[@]}"; do
    if is_done "$i"; then
        log "${P_NAME[$i]} ${P_VERSION[$i]}: already built (stamp matches), skipping"
        OK+=("$i")
    else
        TODO+=("$i")
    fi
done

declare -A T_FETCH=() T_BUILD=() T_CPU=()
if [[ ${#TODO[@]} -gt 0 ]]; then
    deps="$TOOL_PKGS"
    for i in "${TODO[@]}"; do deps="$deps ${BUILD_DEPS[${P_NAME[$i]}]:-}"; done
    setup_private_apt

    # Pins: every selected version must still be in the archive.
    pin_errors=""
    for i in "${TODO[@]}"; do
        avail=$(available_versions "${P_NAME[$i]}" | tr '\n' ' ')
        if [[ " $avail" != *" ${P_VERSION[$i]} "* ]]; then
            pin_errors+="  ${P_NAME[$i]} ${P_VERSION[$i]} (archive has: ${avail:-nothing})"$'\n'
        fi
    done
    if [[ -n "$pin_errors" ]]; then
        printf '%s' "$pin_errors" >&2
        die "pinned versions above are no longer in the Debian archive; update $PROJECTS_FILE (or leave those projects out with --projects)"
    fi

    # shellcheck disable=SC2086
    install_packages $deps

    done_count=0
    for i in "${TODO[@]}"; do
        name=${P_NAME[$i]}
        t0=$(date +%s)
        # Progress: projects done, and the time left at the pace so far.
        if [[ $done_count -gt 0 ]]; then
            left=$(( (t0 - T_START) * (${#TODO[@]} - done_count) / done_count ))
            log "[$((done_count + 1))/${#TODO[@]}, about $((left / 60)) min $((left % 60)) s left] $name ${P_VERSION[$i]}: fetching"
        else
            log "[1/${#TODO[@]}] $name ${P_VERSION[$i]}: fetching"
        fi
        done_count=$((done_count + 1))
        if ! fetch_project "$i"; then
            warn "$name: apt-get source $name=${P_VERSION[$i]} failed (log: $LOGS/$name.fetch.log)"
            FAILED+=("$i"); continue
        fi
        t1=$(date +%s)
        T_FETCH[$name]=$((t1 - t0))
        child_cpu; c1=$CPU_NOW
        log "$name: unpacking and building (log: $LOGS/$name.build.log)"
        if ! run_strict unpack_project "$name" "${P_VERSION[$i]}" > "$LOGS/$name.unpack.log" 2>&1; then
            tail -n 5 "$LOGS/$name.unpack.log" >&2
            warn "$name: unpacking failed (log: $LOGS/$name.unpack.log)"
            FAILED+=("$i"); continue
        fi
        if run_strict build_project "$name" > "$LOGS/$name.build.log" 2>&1; then
            t2=$(date +%s)
            T_BUILD[$name]=$((t2 - t1))
            child_cpu; T_CPU[$name]=$((CPU_NOW - c1))
            stamp_key "$i" > "$STAMPS/$name"
            nobj=$(count_objects "$BASE/$name/compile_commands.json")
            log "$name: built in $((t2 - t1)) s (${T_CPU[$name]} s CPU), $nobj objects"
            [[ -f "$BASE/timings.tsv" ]] ||
                printf '# date\tname\tversion\tfetch_s\tbuild_s\tbuild_cpu_s\tobjects\n' > "$BASE/timings.tsv"
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$name" \
                "${P_VERSION[$i]}" "${T_FETCH[$name]}" "${T_BUILD[$name]}" "${T_CPU[$name]}" \
                "$nobj" >> "$BASE/timings.tsv"
            OK+=("$i")
        else
            tail -n 15 "$LOGS/$name.build.log" >&2
            warn "$name: build failed (log: $LOGS/$name.build.log)"
            FAILED+=("$i")
        fi
    done
fi

# Lock file: the exact source packages (and file checksums) of this work dir.
{
    echo "# Generated by tools/demo/build-corpus.sh: name, version, file, sha256"
    for i in "${!P_NAME[@]}"; do
        [[ -f "$LOCK_D/${P_NAME[$i]}" ]] && cat "$LOCK_D/${P_NAME[$i]}"
    done
} > "$WORK/sources.lock"

# Manifest of the built projects for the tools that read the corpus.
{
    printf '# name\tversion\tsplit\tlanguage\tobjects\tcompile_commands\n'
    for i in "${!P_NAME[@]}"; do
        name=${P_NAME[$i]}
        is_done "$i" || continue
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "${P_VERSION[$i]}" "${P_SPLIT[$i]}" \
            "${P_LANG[$i]}" "$(count_objects "$BASE/$name/compile_commands.json")" \
            "$BASE/$name/compile_commands.json"
    done
} > "$BASE/projects.tsv"

if [[ ${#OK[@]} -eq 0 ]]; then
    die "no project was built successfully (logs in $LOGS)"
fi

# ThinLTO: both flavours of each project, into DIR/thinlto/corpus/<flavour>/
# <name>. Skipped, as below, when the build stamp and mlgo are unchanged. An
# mlgo without --thinlto-build stops the script.
if [[ $THINLTO == 1 && -n "${MLGO:-}" && -x "${MLGO:-}" ]]; then
    mlgo_hash=$(sha256sum < "$MLGO" | cut -c1-64)
    for i in "${OK[@]}"; do
        name=${P_NAME[$i]}
        for flavour in local distributed; do
            target="$BASE/corpus/$flavour/$name"
            key="$(cat "$STAMPS/$name") $mlgo_hash"
            if [[ -f "$target/corpus_description.json" && "$(cat "$target/.extract-stamp" 2>/dev/null)" == "$key" ]]; then
                continue
            fi
            xlog="$LOGS/$name.extract-$flavour.log"
            log "$name: mlgo extract-ir --thinlto-build $flavour -> $target"
            rm -rf "$target"
            mkdir -p "$target"
            if "$MLGO" extract-ir --thinlto-build "$flavour" --input "$BASE/$name/compile_commands.json" \
                    --output-dir "$target" > "$xlog" 2>&1; then
                echo "$key" > "$target/.extract-stamp"
            else
                tail -n 10 "$xlog" >&2
                if grep -qiE -- '(not expected|unknown|unrecognized).*thinlto-build|thinlto-build.*(not expected|unknown|unrecognized)' "$xlog"; then
                    rm -rf "$target"
                    die "$MLGO does not take 'extract-ir --thinlto-build $flavour' (an mlgo without ThinLTO extraction?); the builds are in place, log: $xlog"
                fi
                warn "$name: mlgo extract-ir --thinlto-build $flavour failed (log: $xlog)"
            fi
        done
    done
elif [[ $THINLTO == 1 && -n "${MLGO:-}" ]]; then
    warn "MLGO=$MLGO is not an executable file: skipping extract-ir"
elif [[ $THINLTO == 1 ]]; then
    log "MLGO is not set: skipping extract-ir"

# Optional IR extraction with mlgo, into BASE/corpus/<split>/<name> (BASE:
# DIR, or DIR/O2 for --opt-level O2) so that `mlgo combine-corpus --root
# BASE/corpus/<split>` makes one corpus per split.
# Skipped when the project's build stamp and the mlgo binary are unchanged.
elif [[ -n "${MLGO:-}" && -x "${MLGO:-}" ]]; then
    mlgo_hash=$(sha256sum < "$MLGO" | cut -c1-64)
    for i in "${OK[@]}"; do
        name=${P_NAME[$i]}
        target="$BASE/corpus/${P_SPLIT[$i]}/$name"
        key="$(cat "$STAMPS/$name") $mlgo_hash"
        if [[ -f "$target/corpus_description.json" && "$(cat "$target/.extract-stamp" 2>/dev/null)" == "$key" ]]; then
            continue
        fi
        log "$name: mlgo extract-ir -> $target"
        rm -rf "$target"
        mkdir -p "$target"
        if "$MLGO" extract-ir --input "$BASE/$name/compile_commands.json" \
                --output-dir "$target" > "$LOGS/$name.extract.log" 2>&1; then
            echo "$key" > "$target/.extract-stamp"
        else
            tail -n 10 "$LOGS/$name.extract.log" >&2
            warn "$name: mlgo extract-ir failed (log: $LOGS/$name.extract.log)"
        fi
    done
elif [[ -n "${MLGO:-}" ]]; then
    warn "MLGO=$MLGO is not an executable file: skipping extract-ir"
else
    log "MLGO is not set: skipping extract-ir"
fi

# Summary.
total=0; total_bc=0; nproj=0
if [[ $THINLTO == 1 ]]; then
    t_imp=0; t_back=0
    log "ThinLTO summary (name version compiles import-modules backend-compiles fetch-s build-s build-cpu-s):"
    for i in "${OK[@]}"; do
        name=${P_NAME[$i]}
        ccj="$BASE/$name/compile_commands.json"
        back=$(grep -c -- '"-fthinlto-index=' "$ccj" || true)
        n=$(( $(count_objects "$ccj") - back ))
        imp=$(find "$BASE/$name" -name '*.3.import.bc' | wc -l)
        total=$((total + n)); t_imp=$((t_imp + imp)); t_back=$((t_back + back)); nproj=$((nproj + 1))
        log "  $(printf '%-12s %-22s %5s %5s %5s %5s %5s %5s' "$name" "${P_VERSION[$i]}" "$n" "$imp" \
            "$back" "${T_FETCH[$name]:--}" "${T_BUILD[$name]:--}" "${T_CPU[$name]:--}")"
    done
    child_cpu
    log "  total: $nproj projects, $total compiles, $t_imp import modules, $t_back backend compiles, $(( $(date +%s) - T_START )) s wall, $CPU_NOW s CPU"
    warn_failed
    log "done: compile databases in $BASE/<project>/compile_commands.json, manifest $BASE/projects.tsv, lock $WORK/sources.lock"
    exit 0
fi
log "summary (name version split language objects with-.llvmbc fetch-s build-s build-cpu-s):"
for i in "${OK[@]}"; do
    name=${P_NAME[$i]}
    n=$(count_objects "$BASE/$name/compile_commands.json")
    bc=$(count_bitcode "$BASE/$name/compile_commands.json")
    total=$((total + n)); total_bc=$((total_bc + bc)); nproj=$((nproj + 1))
    log "  $(printf '%-12s %-22s %-8s %-4s %5s %5s %5s %5s %5s' "$name" "${P_VERSION[$i]}" \
        "${P_SPLIT[$i]}" "${P_LANG[$i]}" "$n" "$bc" "${T_FETCH[$name]:--}" "${T_BUILD[$name]:--}" \
        "${T_CPU[$name]:--}")"
done
child_cpu
log "  total: $nproj projects, $total objects ($total_bc with .llvmbc), $(( $(date +%s) - T_START )) s wall, $CPU_NOW s CPU"
warn_failed
log "done: compile databases in $BASE/<project>/compile_commands.json, manifest $BASE/projects.tsv, lock $WORK/sources.lock"
