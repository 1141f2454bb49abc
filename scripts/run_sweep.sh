#!/usr/bin/env bash
# Counterpart of AORTA's scripts/hw_queue/run_sweep.sh: a stream-count sweep of one workload into a timestamped file.
#   scripts/run_sweep.sh [WORKLOAD] [COUNTS] [OUTDIR]      (defaults: hetero_kernels 1,2,4,8,16,32 results)
# Counts outside the workload's range are skipped with a note. Writes OUTDIR/<workload>_sweep_<timestamp>.json
# (aorta.sweep/1). Environment: ITERATIONS (100), WARMUP (10), DEVICE (0), AORTA_BIN.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
aorta=${AORTA_BIN:-$root/dist/bin/aorta}
[ -x "$aorta" ] || { echo "run_sweep: $aorta not found; run ./build package -DskipTests first" >&2; exit 2; }
workload=${1:-hetero_kernels}
counts=${2:-1,2,4,8,16,32}
outdir=${3:-results}
mkdir -p "$outdir"
exec "$aorta" sweep "$workload" --streams "$counts" --iterations "${ITERATIONS:-100}" --warmup "${WARMUP:-10}" \
  --device "${DEVICE:-0}" -o "$outdir/${workload}_sweep_$(date +%Y%m%d_%H%M%S).json"
