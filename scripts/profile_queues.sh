#!/usr/bin/env bash
# Counterpart of AORTA's scripts/hw_queue/profile_queues.sh: one profiled run of a workload, from a built dist/.
#   scripts/profile_queues.sh [WORKLOAD] [STREAMS] [OUTDIR]      (defaults: hetero_kernels 8 profiles)
# AORTA runs rocprof v1 around 50 iterations (5 warmup) and prints the queues it saw. Here the run's own CUPTI
# capture gives the same picture on CUDA: a Perfetto trace (one track per stream), an HTML page with the timeline
# and the queue-switch and dispatch figures, and the result JSON; with nsys installed (WITH=nsys) the same run is
# also captured by Nsight Systems. Environment: ITERATIONS (50), WARMUP (5), DEVICE (0), WITH (unset), AORTA_BIN.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
aorta=${AORTA_BIN:-$root/dist/bin/aorta}
[ -x "$aorta" ] || { echo "profile_queues: $aorta not found; run ./build package -DskipTests first" >&2; exit 2; }
workload=${1:-hetero_kernels}
streams=${2:-8}
outdir=${3:-profiles}
args=(profile "$workload" --streams "$streams" --iterations "${ITERATIONS:-50}" --warmup "${WARMUP:-5}"
  --device "${DEVICE:-0}" --output-dir "$outdir")
if [ -n "${WITH:-}" ]; then args+=(--with "$WITH"); fi
exec "$aorta" "${args[@]}"
