#!/usr/bin/env bash
# Counterpart of AORTA's scripts/launch_rocm.sh (torchrun of its trainer on every AMD GPU, with rocm-smi metrics).
#   scripts/launch_rocm.sh [CONFIG] [KEY=VALUE ...]
# aorta has no ROCm backend: its trainer runs on CUDA only (JCuda, cuBLAS, NVRTC, NCCL, CUPTI), and has neither a
# HIP/RCCL runtime nor rocm-smi telemetry. This script therefore says so, prints what it would run once a ROCm
# backend exists, and exits 3 without starting anything. On NVIDIA GPUs use scripts/launch_cuda.sh.
set -uo pipefail
echo "launch_rocm: aorta has no ROCm backend yet (its trainer runs on CUDA only), so nothing was started." >&2
echo "launch_rocm: with one, it would run, for NPROC from HIP_VISIBLE_DEVICES or rocminfo:" >&2
echo "  aorta launch --nproc-per-node NPROC -- train ${1:+--config $1}${2:+ --override ${*:2}}" >&2
echo "launch_rocm: on NVIDIA GPUs use scripts/launch_cuda.sh with the same arguments." >&2
exit 3
