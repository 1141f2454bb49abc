#!/usr/bin/env bash
# GPU acceptance check of the runtime (issue 2). Builds nothing: run it from the project root on a GPU host
# after `./build package -DskipTests` here and ../shared/device/pack.sh (see README, "GPU machine").
#   source .device/prelude.sh && scripts/gpu-check.sh
# Writes logs to $OUT (or ./gpu-check-out) and prints the table last.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-check-out}
mkdir -p "$out"
launches=${LAUNCHES:-20000}
reps=${REPS:-7}

echo "== nvidia-smi" | tee "$out/gpu-check.log"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv 2>&1 | tee -a "$out/gpu-check.log"

# The C floor of launch cost, compiled here with nvcc in the same run.
c_us=NaN
if command -v nvcc >/dev/null 2>&1; then
  if nvcc -O2 -arch=sm_90 "$root/scripts/bench/launch_cost.cu" -lcuda -o "$out/launch_cost" >>"$out/gpu-check.log" 2>&1; then
    c_us=$("$out/launch_cost" "$launches" "$reps" 2>>"$out/gpu-check.log") || c_us=NaN
  fi
else
  echo "nvcc not found: the launch-cost ratio is skipped" | tee -a "$out/gpu-check.log"
fi

"$root/dist/bin/aorta" check --launches "$launches" --repetitions "$reps" --c-launch-us "$c_us" "$@" \
  2>>"$out/gpu-check.log" | tee "$out/gpu-check-table.txt"
status=${PIPESTATUS[0]}
exit "$status"
