#!/usr/bin/env bash
# Check the autotune search space (configs/autotune/passes.txt) against the
# installed opt.
#
#   tools/autotune/check-passes.sh [options]
#
#   --passes FILE   search space file (default: configs/autotune/passes.txt)
#   --workdir DIR   keep bitcode and logs in DIR (default: a temporary
#                   directory, removed on exit)
#   --smoke N       random pass lists in the smoke test (default: 200; 0 skips)
#   --seed S        smoke-test seed (default: 1)
#   --min-len N     shortest smoke-test list (default: 5)
#   --max-len N     longest smoke-test list (default: 20)
#   --jobs N        parallel opt processes (default: nproc)
#   --samples DIR   inputs: DIR/*.c, *.cc, *.cpp are compiled, DIR/*.bc used
#                   as they are (default: tools/autotune/samples)
#   --skip-singles  skip step 4 (one opt run per include)
#
# Steps:
#   1. format: every non-comment, non-blank line has exactly 4 tab-separated
#      fields (status, level, element, reason) with a known status and level,
#      no duplicates, sorted by level then element (byte order);
#   2. coverage: every pass and analysis of `opt --print-passes` (module,
#      CGSCC, function, loop-nest and loop level) has a line (analyses as
#      require<NAME>);
#   3. inputs: compiles the samples (tools/autotune/samples/*.c) with
#      `clang -Oz -Xclang -disable-llvm-optzns -emit-llvm -c` (the unoptimized
#      -Oz bitcode the autotuner starts from) and also runs default<Oz> over
#      each, so that passes also see optimized SSA-form IR;
#   4. singles: every include, wrapped for its level, through
#      `timeout 10 opt -passes=PIPELINE -o /dev/null` on every input;
#   5. smoke: N random lists of min-len..max-len includes (a fixed LCG, so the
#      lists depend only on the seed and the file), each on every input; each
#      failure is reduced to a 1-minimal failing sub-list and the passes of
#      those sub-lists are reported as offenders.
# Failures are classified as parse, timeout, verifier (broken module),
# fatal (LLVM ERROR / report_fatal_error), crash (signal) or error.
# Exit status: 0 if all steps passed, 1 if any check failed, 2 on usage errors.
# Environment: OPT (default: opt-19), CLANG (default: clang-19).

# The xargs workers are exported functions run through bash -c '... "$1"'.
# shellcheck disable=SC2016,SC2317
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$SCRIPT_DIR/../.." && pwd)
PASSES="$REPO_DIR/configs/autotune/passes.txt"
SAMPLES_DIR="$SCRIPT_DIR/samples"
OPT=${OPT:-opt-19}
CLANG=${CLANG:-clang-19}
WORKDIR=""
SMOKE=200
SEED=1
MIN_LEN=5
MAX_LEN=20
JOBS=$(nproc 2>/dev/null || echo 2)
SINGLES=1
TIMEOUT=10

usage() {
    sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit "${1:-2}"
}

while [ $# -gt 0 ]; do
    case "$1" in
        --passes) PASSES=$2; shift 2 ;;
        --workdir) WORKDIR=$2; shift 2 ;;
        --smoke) SMOKE=$2; shift 2 ;;
        --seed) SEED=$2; shift 2 ;;
        --min-len) MIN_LEN=$2; shift 2 ;;
        --max-len) MAX_LEN=$2; shift 2 ;;
        --jobs) JOBS=$2; shift 2 ;;
        --samples) SAMPLES_DIR=$2; shift 2 ;;
        --skip-singles) SINGLES=0; shift ;;
        -h|--help) usage 0 ;;
        *) echo "check-passes: unknown option '$1'" >&2; usage ;;
    esac
done
for n in "$SMOKE" "$SEED" "$MIN_LEN" "$MAX_LEN" "$JOBS"; do
    [[ "$n" =~ ^[0-9]+$ ]] || { echo "check-passes: '$n' is not a number" >&2; exit 2; }
done
if [ "$MIN_LEN" -lt 1 ] || [ "$MIN_LEN" -gt "$MAX_LEN" ] || [ "$JOBS" -lt 1 ]; then
    echo "check-passes: need 1 <= min-len <= max-len and jobs >= 1" >&2; exit 2
fi
[ -r "$PASSES" ] || { echo "check-passes: cannot read $PASSES" >&2; exit 2; }
command -v "$OPT" >/dev/null || { echo "check-passes: $OPT not found" >&2; exit 2; }
command -v "$CLANG" >/dev/null || { echo "check-passes: $CLANG not found" >&2; exit 2; }

if [ -z "$WORKDIR" ]; then
    WORKDIR=$(mktemp -d "${TMPDIR:-/tmp}/check-passes.XXXXXX")
    trap 'rm -rf "$WORKDIR"' EXIT
fi
mkdir -p "$WORKDIR"
export LC_ALL=C
FAILED=0
log() { echo "check-passes: $*" >&2; }

# ---- 1. format -------------------------------------------------------------
log "format of $PASSES"
if ! awk -F'\t' '
    function rank(l) { return l == "module" ? 0 : l == "cgscc" ? 1 : l == "function" ? 2 : 3 }
    /^#/ || /^$/ { next }
    {
        where = FILENAME ":" FNR ": "
        if (NF != 4) { print where NF " fields, want 4"; bad = 1; next }
        if ($1 != "include" && $1 != "exclude") { print where "bad status \"" $1 "\""; bad = 1 }
        if ($2 !~ /^(module|cgscc|function|loop|loop-mssa)$/) { print where "bad level \"" $2 "\""; bad = 1; next }
        if ($3 == "" || $3 ~ / / || $4 == "") { print where "empty element/reason or space in element"; bad = 1 }
        if ($1 == "exclude" && $2 == "loop-mssa") { print where "excluded loop passes use level loop"; bad = 1 }
        key = rank($2) SUBSEP $3
        if (key in seen) { print where "duplicate of line " seen[key]; bad = 1 }
        seen[key] = FNR
        if (NR > 1 && prev != "" && (rank($2) < prank || (rank($2) == prank && $3 < prev))) {
            print where "not sorted by level, then element"; bad = 1
        }
        prev = $3; prank = rank($2)
    }
    END { exit bad }' "$PASSES" >&2; then
    log "FAIL: format"; FAILED=1
fi

# ---- 2. coverage of opt --print-passes --------------------------------------
log "coverage of $OPT --print-passes"
"$OPT" --print-passes > "$WORKDIR/print-passes.txt"
# "LEVEL NAME" for every listed pass (parameter syntax stripped) and analysis.
awk '
    /^[^ ]/ {
        sec = $0; lvl = ""; an = 0
        if (sec ~ /^Module/) lvl = "module"
        else if (sec ~ /^CGSCC/) lvl = "cgscc"
        else if (sec ~ /^Function/) lvl = "function"
        else if (sec ~ /^(Loop|LoopNest) /) lvl = "loop"
        an = (sec ~ /analyses:$/); params = (sec ~ /with params:$/)
        next
    }
    lvl != "" {
        name = $1
        if (params) sub(/<[^<>]*>$/, "", name)
        print lvl, (an ? "require<" name ">" : name)
    }' "$WORKDIR/print-passes.txt" | sort -u > "$WORKDIR/listed.txt"
# Lines of the file as "LEVEL NAME", also with parameters stripped, so that
# instcombine<no-verify-fixpoint> covers instcombine<...>.
awk -F'\t' '!/^#/ && NF == 4 {
        lvl = ($2 == "loop-mssa") ? "loop" : $2
        print lvl, $3
        base = $3; if (base !~ /^(require|print|verify|invalidate)</) sub(/<.*$/, "", base)
        print lvl, base
    }' "$PASSES" | sort -u > "$WORKDIR/covered.txt"
comm -23 "$WORKDIR/listed.txt" "$WORKDIR/covered.txt" > "$WORKDIR/missing.txt"
if [ -s "$WORKDIR/missing.txt" ]; then
    log "FAIL: listed by $OPT --print-passes but not in $(basename "$PASSES"):"
    sed 's/^/  /' "$WORKDIR/missing.txt" >&2
    FAILED=1
fi

# ---- 3. inputs ---------------------------------------------------------------
log "compiling samples"
INPUTS=()
shopt -s nullglob
for src in "$SAMPLES_DIR"/*.c "$SAMPLES_DIR"/*.cc "$SAMPLES_DIR"/*.cpp "$SAMPLES_DIR"/*.bc; do
    name=$(basename "$src"); name=${name%.*}
    case "$src" in
        *.bc) cp "$src" "$WORKDIR/$name.bc" ;;
        *) "$CLANG" -Oz -Xclang -disable-llvm-optzns -emit-llvm -c "$src" -o "$WORKDIR/$name.bc" ;;
    esac
    "$OPT" -passes='default<Oz>' "$WORKDIR/$name.bc" -o "$WORKDIR/$name.oz.bc"
    INPUTS+=("$WORKDIR/$name.bc" "$WORKDIR/$name.oz.bc")
done
shopt -u nullglob
[ ${#INPUTS[@]} -gt 0 ] || { log "no samples in $SAMPLES_DIR"; exit 2; }

# Includes as "LEVEL<TAB>ELEMENT<TAB>PIPELINE", in file order.
awk -F'\t' '!/^#/ && $1 == "include" {
        p = $3
        if ($2 == "cgscc") p = "cgscc(" p ")"
        else if ($2 == "function") p = "function(" p ")"
        else if ($2 == "loop") p = "function(loop(" p "))"
        else if ($2 == "loop-mssa") p = "function(loop-mssa(" p "))"
        print $2 "\t" $3 "\t" p
    }' "$PASSES" > "$WORKDIR/includes.tsv"
mapfile -t PIPES < <(cut -f3 "$WORKDIR/includes.tsv")
log "${#PIPES[@]} includes, ${#INPUTS[@]} inputs"

# run_opt PIPELINE INPUT: prints "CLASS<TAB>message" (CLASS ok on success).
run_opt() {
    local err rc=0
    err=$(timeout "$TIMEOUT" "$OPT" -passes="$1" -o /dev/null "$2" 2>&1) || rc=$?
    local cls=ok msg=""
    if [ "$rc" -eq 0 ]; then :
    elif [ "$rc" -eq 124 ]; then cls=timeout; msg="no result after ${TIMEOUT}s"
    elif grep -q "unknown .*pass\|invalid .*parameter\|invalid pipeline\|unable to parse" <<<"$err"; then cls=parse
    elif grep -q "Broken module\|module is broken" <<<"$err"; then cls=verifier
    elif grep -q "LLVM ERROR" <<<"$err"; then cls=fatal; msg=$(grep -m1 "LLVM ERROR" <<<"$err")
    elif [ "$rc" -gt 128 ]; then
        # The assertion if any, else the innermost pass that was running.
        cls=crash
        msg=$(grep -m1 "Assertion" <<<"$err" || true)
        [ -n "$msg" ] || msg=$(grep "^[0-9]*\.[[:space:]]*Running pass" <<<"$err" | tail -n1 || true)
        [ -n "$msg" ] || msg="signal $((rc - 128))"
    else cls=error
    fi
    # parse, verifier, error: the first line says what went wrong.
    [ "$cls" = ok ] || [ -n "$msg" ] || msg=$(grep -m1 . <<<"$err" || true)
    msg=$(tr '\t' ' ' <<<"$msg" | sed 's/^[0-9]*\.[[:space:]]*//' | cut -c1-200)
    printf '%s\t%s\n' "$cls" "$msg"
}
# xargs workers (called through bash -c); a job is one line of tab-separated
# fields.
single_job() { # PIPELINE INPUT -> PIPELINE INPUT-NAME CLASS MESSAGE
    local p in
    IFS=$'\t' read -r p in <<<"$1"
    printf '%s\t%s\t%s\n' "$p" "$(basename "$in")" "$(run_opt "$p" "$in")"
}
smoke_job() { # LIST# INPUT PIPELINE -> LIST# INPUT CLASS MESSAGE
    local n in p
    IFS=$'\t' read -r n in p <<<"$1"
    printf '%s\t%s\t%s\n' "$n" "$in" "$(run_opt "$p" "$in")"
}
export -f run_opt single_job smoke_job
export OPT TIMEOUT

# ---- 4. singles -------------------------------------------------------------
if [ "$SINGLES" -eq 1 ]; then
    log "singles: ${#PIPES[@]} x ${#INPUTS[@]} opt runs, $JOBS at a time"
    for p in "${PIPES[@]}"; do
        for in in "${INPUTS[@]}"; do printf '%s\t%s\n' "$p" "$in"; done
    done | xargs -d '\n' -n1 -P "$JOBS" bash -c 'single_job "$1"' _ | sort > "$WORKDIR/singles.tsv"
    awk -F'\t' '$3 != "ok"' "$WORKDIR/singles.tsv" > "$WORKDIR/singles-failed.tsv"
    if [ -s "$WORKDIR/singles-failed.tsv" ]; then
        log "FAIL: includes that fail on their own (pipeline, input, class, message):"
        sed 's/^/  /' "$WORKDIR/singles-failed.tsv" >&2
        FAILED=1
    else
        log "singles: all $(wc -l < "$WORKDIR/singles.tsv") runs passed"
    fi
fi

# ---- 5. smoke test ----------------------------------------------------------
if [ "$SMOKE" -gt 0 ]; then
    # A 31-bit LCG (glibc's constants), so the lists do not depend on the
    # shell's or awk's random number generator.
    state=$SEED
    next_rand() { state=$(((state * 1103515245 + 12345) % 2147483648)); RAND=$((state >> 8)); }
    : > "$WORKDIR/smoke-lists.txt"
    for ((i = 0; i < SMOKE; i++)); do
        next_rand; len=$((MIN_LEN + RAND % (MAX_LEN - MIN_LEN + 1)))
        idx=()
        for ((k = 0; k < len; k++)); do next_rand; idx+=($((RAND % ${#PIPES[@]}))); done
        echo "${idx[*]}" >> "$WORKDIR/smoke-lists.txt"
    done
    log "smoke: $SMOKE lists of $MIN_LEN-$MAX_LEN includes (seed $SEED) x ${#INPUTS[@]} inputs"
    # Job lines: "LIST#<TAB>INPUT<TAB>PIPELINE".
    n=0
    while read -r line; do
        read -ra idx <<<"$line"
        pipe=""
        for k in "${idx[@]}"; do pipe+="${pipe:+,}${PIPES[$k]}"; done
        for in in "${INPUTS[@]}"; do printf '%s\t%s\t%s\n' "$n" "$in" "$pipe"; done
        n=$((n + 1))
    done < "$WORKDIR/smoke-lists.txt" | xargs -d '\n' -n1 -P "$JOBS" bash -c 'smoke_job "$1"' _ \
        | sort -n -k1,1 -s > "$WORKDIR/smoke.tsv"
    awk -F'\t' '$3 != "ok"' "$WORKDIR/smoke.tsv" > "$WORKDIR/smoke-failed.tsv"
    nfail_lists=$(cut -f1 "$WORKDIR/smoke-failed.tsv" | sort -u | wc -l)
    log "smoke: $(wc -l < "$WORKDIR/smoke-failed.tsv") of $(wc -l < "$WORKDIR/smoke.tsv") runs failed" \
        "($nfail_lists of $SMOKE lists); by class: $(cut -f3 "$WORKDIR/smoke-failed.tsv" | sort | uniq -c | tr -s ' \n' ' ')"
    # Reduce each failing (list, input) to a 1-minimal failing sub-list that
    # fails with the same class.
    : > "$WORKDIR/smoke-reduced.tsv"
    while IFS=$'\t' read -r n in cls msg; do
        read -ra idx < <(sed -n "$((n + 1))p" "$WORKDIR/smoke-lists.txt")
        changed=1
        while [ "$changed" -eq 1 ] && [ ${#idx[@]} -gt 1 ]; do
            changed=0
            for ((k = 0; k < ${#idx[@]}; k++)); do
                try=("${idx[@]:0:k}" "${idx[@]:k+1}")
                pipe=""
                for j in "${try[@]}"; do pipe+="${pipe:+,}${PIPES[$j]}"; done
                if [ "$(run_opt "$pipe" "$in" | cut -f1)" = "$cls" ]; then
                    idx=("${try[@]}"); changed=1; break
                fi
            done
        done
        names=""
        for j in "${idx[@]}"; do names+="${names:+,}$(sed -n "$((j + 1))p" "$WORKDIR/includes.tsv" | cut -f2)"; done
        printf '%s\t%s\t%s\t%s\t%s\n' "$n" "$(basename "$in")" "$cls" "$names" "$msg" >> "$WORKDIR/smoke-reduced.tsv"
    done < "$WORKDIR/smoke-failed.tsv"
    if [ -s "$WORKDIR/smoke-reduced.tsv" ]; then
        log "FAIL: smoke failures reduced (list#, input, class, minimal list, message):"
        sed 's/^/  /' "$WORKDIR/smoke-reduced.tsv" >&2
        log "smoke offenders (pass: minimal failing lists it is in):"
        cut -f4 "$WORKDIR/smoke-reduced.tsv" | tr ',' '\n' | sort | uniq -c | sort -rn | sed 's/^/  /' >&2
        FAILED=1
    fi
fi

if [ "$FAILED" -eq 0 ]; then log "OK"; else log "FAILED (details in $WORKDIR if --workdir was given)"; fi
exit "$FAILED"
