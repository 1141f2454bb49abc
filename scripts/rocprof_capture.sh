#!/usr/bin/env bash
# Counterpart of AORTA's scripts/rocprof_capture.sh (rocprofv3 around a workload run).
#   scripts/rocprof_capture.sh [WORKLOAD] [STREAMS] [OUTDIR]
# aorta has no ROCm backend yet: its workloads run on CUDA (JCuda, cuBLAS, NVRTC, CUPTI), and rocprofv3 traces HIP
# and HSA, so a capture would be empty. This script therefore says so and prints the command it would run once a
# HIP backend exists, and exits 3. On NVIDIA GPUs use scripts/profile_queues.sh (CUPTI, optionally WITH=nsys).
set -uo pipefail
workload=${1:-hetero_kernels}
streams=${2:-8}
outdir=${3:-rocprof}
echo "rocprof_capture: aorta has no ROCm backend yet, so rocprofv3 has nothing to trace; it would run:"
echo "  rocprofv3 --hip-trace --kernel-trace --memory-copy-trace --output-format csv pftrace -d $outdir -- \\"
echo "    dist/bin/aorta run $workload --streams $streams --iterations 50 --warmup 5 --kernel-timing event-pairs"
if ! command -v rocprofv3 >/dev/null 2>&1; then
  echo "rocprof_capture: rocprofv3 is not installed either (not on PATH)"
fi
exit 3
