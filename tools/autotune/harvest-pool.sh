#!/usr/bin/env bash
# Grows mlgo's own pass-list pool (configs/autotune/pool) in the background
# and commits it as it grows, so that losing the machine costs at most the
# last interval's modules: `mlgo harvest` at `nice -n 19` (its scheduling
# group too), and a commit of the pool's files alone (`git commit --only`,
# nothing else staged is touched) every COMMIT_EVERY seconds and when the
# harvest ends or this script is stopped (SIGINT / SIGTERM).
#
#   tools/autotune/harvest-pool.sh MLGO TRAIN_CORPUS CACHE_DIR [harvest flags...]
#
# MLGO: the mlgo binary (an installed copy, so that rebuilding the tree does
# not change the program under a running harvest); TRAIN_CORPUS: the demo's
# training corpus (tools/demo/build-corpus.sh, then mlgo combine-corpus);
# CACHE_DIR: the compile memo and the gate's verdicts, kept across restarts.
# Further flags (`--limit N`, `--seed S`, ...) go to `mlgo harvest`; the pool's
# own settings (budget 500, 3 lists a module, 2 threads, a save after every
# module) are set here.
set -euo pipefail
if [[ $# -lt 3 ]]; then
  sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
mlgo="$1"; corpus="$2"; cache="$3"; shift 3
root="$(cd "$(dirname "$0")/../.." && pwd)"
pool="configs/autotune/pool"
every="${COMMIT_EVERY:-600}"
cd "$root"

commit_pool() {
  git add -- "$pool"
  if ! git diff --cached --quiet -- "$pool"; then
    git commit -q --only -m "Pool: harvest continues" -- "$pool"
    echo "harvest-pool: committed $(git log -1 --format=%h) at $(date -u +%H:%M:%S)" >&2
  fi
}

# In a session of its own whose scheduling group is at nice 19 too: Linux
# weighs each session's group of processes equally whatever their own nice
# (autogroup), so a harvest at plain `nice -n 19` would still take half the
# machine from a build or a test run started from another shell.
setsid sh -c '{ echo 19 > /proc/self/autogroup; } 2>/dev/null; exec nice -n 19 "$@"' harvest-pool \
  "$mlgo" harvest --corpus "$corpus" --pool "$pool" --budget 500 --keep 3 --chunk 1 --threads 2 \
  --cache-dir "$cache" "$@" &
harvest=$!
stop() {
  kill "$harvest" 2>/dev/null || true
  wait "$harvest" 2>/dev/null || true
  commit_pool
  exit 130
}
trap stop INT TERM

last=$SECONDS
while kill -0 "$harvest" 2>/dev/null; do
  sleep 5
  if ((SECONDS - last >= every)); then
    commit_pool
    last=$SECONDS
  fi
done
status=0
wait "$harvest" || status=$?
commit_pool
exit "$status"
