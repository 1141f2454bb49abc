#!/usr/bin/env bash
# Counterpart of AORTA's scripts/launch_cuda.sh: `aorta train` on every GPU of this node.
#   scripts/launch_cuda.sh [CONFIG] [KEY=VALUE ...] [other aorta train options ...]
# CONFIG is a YAML file (default: none, i.e. the built-in defaults, which are config/default.yaml's); each KEY=VALUE
# becomes an --override pair; any other argument is passed to aorta train as it is.
#
# Ranks: NPROC, else the GPUs this process may use: the entries of CUDA_VISIBLE_DEVICES when it is set (as
# torch.cuda.device_count() counts them), else the GPUs NVML lists (nvidia-smi -L), else 1. They are started with
# `aorta launch --nproc-per-node NPROC -- train ...`. When a launcher has already started this process as one rank
# (torchrun-style RANK/WORLD_SIZE, or a Slurm task: SLURM_PROCID), it runs that rank's `aorta train` itself, which
# reads the same variables.
#
# CUDA_DEVICE_MAX_CONNECTIONS defaults to 1, as in AORTA's script: one hardware work queue per device, so that work
# reaches the GPU in the order the streams issue it.
#
# aorta: $AORTA_BIN, else `aorta` on PATH, else dist/bin/aorta of this checkout.
# Multi-rank training is not built yet: with more than one rank, aorta train stops before touching a GPU and says so.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

fail() {
  echo "launch_cuda: $*" >&2
  exit 2
}

if [[ -n ${AORTA_BIN:-} ]]; then
  aorta=$AORTA_BIN
elif command -v aorta >/dev/null 2>&1; then
  aorta=aorta
elif [[ -x "$here/../dist/bin/aorta" ]]; then
  aorta="$here/../dist/bin/aorta"
else
  fail "no aorta to run: set AORTA_BIN, put aorta on PATH, or build dist/ (./build)"
fi

is_override() {
  [[ $1 =~ ^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+= ]]
}

train=(train)
if [[ $# -gt 0 && $1 != -* ]] && ! is_override "$1"; then
  [[ -f $1 ]] || fail "config file '$1' does not exist; expected a YAML file such as config/default.yaml"
  train+=(--config "$1")
  shift
fi
overrides=()
passed=()
for arg in "$@"; do
  if is_override "$arg"; then
    overrides+=("$arg")
  else
    passed+=("$arg")
  fi
done
if [[ ${#overrides[@]} -gt 0 ]]; then
  train+=(--override "${overrides[@]}")
fi
train+=("${passed[@]}")

export CUDA_DEVICE_MAX_CONNECTIONS=${CUDA_DEVICE_MAX_CONNECTIONS:-1}

if [[ -n ${RANK:-} || -n ${WORLD_SIZE:-} || -n ${SLURM_PROCID:-} ]]; then
  exec "$aorta" "${train[@]}"
fi

gpu_count() {
  if [[ -n ${CUDA_VISIBLE_DEVICES+set} ]]; then
    local n=0 id
    IFS=',' read -ra ids <<<"$CUDA_VISIBLE_DEVICES"
    for id in "${ids[@]}"; do
      [[ -n ${id// /} ]] && n=$((n + 1))
    done
    echo "$n"
  elif command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true
  else
    echo 1
  fi
}

gpus=$(gpu_count)
nproc=${NPROC:-$gpus}
[[ $nproc =~ ^[0-9]+$ && $nproc -ge 1 ]] || {
  if [[ -n ${NPROC:-} ]]; then
    fail "NPROC='$NPROC' is not a whole number of at least 1"
  fi
  fail "found $nproc GPUs (CUDA_VISIBLE_DEVICES or nvidia-smi -L); set NPROC to the number of ranks to start"
}
exec "$aorta" launch --nproc-per-node "$nproc" -- "${train[@]}"
