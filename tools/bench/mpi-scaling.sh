#!/usr/bin/env bash
# Benchmark: train-ppo's collection across MPI ranks on this machine.
# Runs ITERATIONS policy iterations of train-ppo (num_modules modules each)
# with 1, 2 and 4 ranks of one compile thread each, and prints per rank
# count: collection throughput (modules/s, decisions/s), efficiency per core
# (throughput over min(ranks, cores), relative to 1 rank), the learner's
# step time and the bytes rank 0 sent and received per iteration. The inputs
# of the scaling model in the README come from this table.
# Usage: tools/bench/mpi-scaling.sh CORPUS VOCAB TRACE WARMSTART [ITERATIONS] [MODULES]
set -euo pipefail
corpus=$1 vocab=$2 trace=$3 warmstart=$4
iterations=${5:-3}
modules=${6:-100}
mlgo=${MLGO:-$(cd "$(dirname "$0")/../.." && pwd)/build/mlgo}
cores=$(nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Only for this benchmark when run as root (mpirun refuses root otherwise).
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi

printf 'ranks\tcollect_s\tmodules_per_s\tdecisions_per_s\tefficiency_per_core\ttrain_s\tsent_bytes\treceived_bytes\n'
base=""
for ranks in 1 2 4; do
  out="$work/ranks-$ranks"
  args=(train-ppo --corpus "$corpus" --vocab "$vocab" --baselines "$trace" --warmstart "$warmstart"
        --output "$out" --threads 1 --set "num_policy_iterations=$iterations" --set "num_modules=$modules")
  if [ "$ranks" -eq 1 ]; then
    "$mlgo" "${args[@]}" >/dev/null 2>"$work/log"
  else
    mpirun --oversubscribe -np "$ranks" "$mlgo" "${args[@]}" >/dev/null 2>"$work/log"
  fi
  # Iteration 1 warms caches; the others are measured.
  python3 - "$out/metrics.jsonl" "$ranks" "$cores" "${base:-0}" <<'PY' > "$work/row"
import json, sys
records = [json.loads(line) for line in open(sys.argv[1])][1:]
ranks, cores, base = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
collect = sum(r["seconds"]["collect"] for r in records)
train = sum(r["seconds"]["train"] for r in records) / len(records)
modules = sum(r["modules"] for r in records) / collect
decisions = sum(r["decisions"] for r in records) / collect
per_core = modules / min(ranks, cores)
efficiency = per_core / base if base > 0 else 1.0
sent = sum(r.get("ranks", {}).get("sent_bytes", 0) for r in records) / len(records)
received = sum(r.get("ranks", {}).get("received_bytes", 0) for r in records) / len(records)
print(f"{ranks}\t{collect / len(records):.2f}\t{modules:.2f}\t{decisions:.0f}\t{efficiency:.2f}\t{train:.2f}\t{sent:.0f}\t{received:.0f}")
PY
  cut -f1- "$work/row"
  if [ -z "$base" ]; then
    base=$(python3 -c "import json,sys; r=[json.loads(l) for l in open('$out/metrics.jsonl')][1:]; print(sum(x['modules'] for x in r)/sum(x['seconds']['collect'] for x in r))")
  fi
done
