#!/usr/bin/env bash
# Peak device memory of aorta train against the PyTorch eager reference (issue 14: ours <= PyTorch's), at
# config/default.yaml and the stress shape, bf16, 50 steps each, one after the other on an otherwise idle GPU.
# Measured the same way for both, from outside: nvidia-smi's memory.used of GPU 0 sampled every 50 ms while the
# process runs, minus the value before it started (so the CUDA context, the caching allocators' reserve and the
# libraries' workspaces all count, for both).
# Usage: scripts/trainer-memory-gpu.sh DIST_DIR OUT_DIR   (python3 with torch; about 2 minutes)
set -uo pipefail
dist=${1:?usage: trainer-memory-gpu.sh DIST_DIR OUT_DIR}
out=${2:?usage: trainer-memory-gpu.sh DIST_DIR OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
conf=${TRAINER_CONFIG_DIR:-$here/../config}
mkdir -p "$out"
w=$(mktemp -d)
used() { nvidia-smi --id=0 --query-gpu=memory.used --format=csv,noheader,nounits | tr -d ' '; }

peak() {  # peak NAME command...: runs the command, prints NAME and its peak MiB above the idle baseline
  local name=$1; shift
  sleep 1
  local base; base=$(used)
  "$@" > "$out/$name.log" 2>&1 &
  local pid=$! max=$base v
  while kill -0 "$pid" 2>/dev/null; do
    v=$(used); [ "$v" -gt "$max" ] && max=$v
    sleep 0.05
  done
  wait "$pid"; local rc=$?
  echo "$name $((max - base)) $rc" | tee -a "$out/peaks.txt"
}

rm -f "$out/peaks.txt"
peak ours-default timeout 90 "$dist/bin/aorta" train --config "$conf/default.yaml" --override training.max_steps=50 \
  training.output_dir="$w/d"
peak torch-default timeout 90 python3 "$here/trainer-reference.py" timing
peak ours-stress timeout 120 "$dist/bin/aorta" train --config "$conf/mi350_overlap_stress.yaml" --override \
  training.max_steps=50 training.output_dir="$w/s"
peak torch-stress timeout 120 python3 "$here/trainer-reference.py" timing --batch 32 --seq 128 --layers 12 \
  --model-dim 1024 --heads 16 --mlp 4096 --emb 256 --vocab 200000 --dense-features 24 --dense-dim 256 --sparse 64
rm -rf "$w"
echo
awk '{m[$1]=$2; r[$1]=$3} END {
  printf "%-8s %14s %14s %8s  %s\n", "shape", "ours MiB", "PyTorch MiB", "ratio", "bar <= 1";
  split("default stress", s, " ");
  for (i = 1; i <= 2; i++) { o = m["ours-" s[i]]; t = m["torch-" s[i]];
    printf "%-8s %14d %14d %8.2f  %s (exit %s/%s)\n", s[i], o, t, (t > 0 ? o / t : 0), (o <= t ? "pass" : "FAIL"),
      r["ours-" s[i]], r["torch-" s[i]] } }' "$out/peaks.txt"
