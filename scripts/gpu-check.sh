#!/usr/bin/env bash
# GPU acceptance check of the runtime (issue 2). Builds nothing: run it from the project root on a GPU host
# after `./build package -DskipTests` here and scripts/pack-device.sh (see docs/architecture.md, "GPU hosts without a JDK").
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

# The C floor of launch cost, compiled here with nvcc in the same run and called in-process by `aorta check`.
c_loop=()
if command -v nvcc >/dev/null 2>&1; then
  if nvcc -O2 -shared -Xcompiler -fPIC "$root/scripts/bench/launch_loop.c" -o "$out/liblaunchloop.so" -lcuda \
      >>"$out/gpu-check.log" 2>&1; then
    c_loop=(--c-launch-loop "$out/liblaunchloop.so")
  else
    echo "building scripts/bench/launch_loop.c failed (see $out/gpu-check.log): the launch-cost ratio is skipped"
  fi
else
  echo "nvcc not found: the launch-cost ratio is skipped" | tee -a "$out/gpu-check.log"
fi

"$root/dist/bin/aorta" check --launches "$launches" --repetitions "$reps" ${c_loop[@]+"${c_loop[@]}"} "$@" \
  2>>"$out/gpu-check.log" | tee "$out/gpu-check-table.txt"
status=${PIPESTATUS[0]}
exit "$status"
