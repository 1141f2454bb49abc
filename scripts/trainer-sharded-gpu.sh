#!/usr/bin/env bash
# The multi-rank trainer (issue 14) on one GPU: every parallel mode at world size 1, started as
#   aorta launch --nproc-per-node 1 -- train ...      (ShardedTrainer: real NCCL, one rank)
# against the one-GPU trainer (plain aorta train: SingleGpuTrainer) on the same configuration. With one rank
# every FSDP strategy is no_shard and no collective is issued: the same kernels run on the same values, so the
# two must agree to the last bits. Not bit for bit: the embedding's backward accumulates with atomicAdd, whose
# order varies from run to run, so the one-GPU trainer is also run twice and that repeat is the noise floor.
# A run passes when its per-step loss and gradient norm stay within 1e-5 relative (fp32) or 1e-3 (bf16) of the
# one-GPU run, and every final weight tensor within the same bound (relative L2); the table also counts the steps
# whose loss is bit-identical.
# Usage: scripts/trainer-sharded-gpu.sh DIST_DIR OUT_DIR   (DIST_DIR holds bin/aorta; configs come from this
# script's ../config; python3 with numpy reads the results). It prints a table last; exit code 1 when a run
# failed or is out of bounds. About 3 minutes.
set -uo pipefail
dist=${1:?usage: trainer-sharded-gpu.sh DIST_DIR OUT_DIR}
out=${2:?usage: trainer-sharded-gpu.sh DIST_DIR OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
conf=${TRAINER_CONFIG_DIR:-$here/../config}
export NCCL_NVLS_ENABLE=0   # never NVLink multicast on the shared hosts
aorta="$dist/bin/aorta"
w=$(mktemp -d)
mkdir -p "$out"
port=$(( 29700 + RANDOM % 2000 ))
steps=30
base=(--config "$conf/default.yaml" --override training.max_steps=$steps training.log_interval=10)

# name precision accumulation launcher extra-overrides...
runs=(
  "single-none none 1 single"
  "repeat-none none 1 single"
  "full_shard-none none 1 launch fsdp.sharding_strategy=full_shard"
  "shard_grad_op-none none 1 launch fsdp.sharding_strategy=shard_grad_op"
  "no_shard-none none 1 launch fsdp.sharding_strategy=no_shard"
  "hybrid_shard-none none 1 launch fsdp.sharding_strategy=hybrid_shard"
  "ddp-none none 1 launch distributed.mode=ddp"
  "full_shard-compute-none none 1 launch fsdp.sharding_strategy=full_shard distributed.collective_streams=compute"
  "single-bf16 bf16 1 single"
  "repeat-bf16 bf16 1 single"
  "full_shard-bf16 bf16 1 launch fsdp.sharding_strategy=full_shard"
  "ddp-bf16 bf16 1 launch distributed.mode=ddp"
  "single-bf16-acc2 bf16 2 single"
  "full_shard-bf16-acc2 bf16 2 launch fsdp.sharding_strategy=full_shard"
)
for r in "${runs[@]}"; do
  read -r name precision acc how extra <<< "$r"
  args=("${base[@]}" training.mixed_precision=$precision training.gradient_accumulation=$acc
        training.output_dir="$w/$name" $extra --save-final-weights "$w/$name.safetensors")
  if [ "$how" = single ]; then
    # no launcher variables: plain aorta train is the one-GPU trainer only without them
    timeout 120 env -u RANK -u WORLD_SIZE -u AORTA_LAUNCHER -u SLURM_PROCID -u SLURM_NTASKS \
      "$aorta" train "${args[@]}" > "$out/$name.txt" 2>&1
  else
    port=$((port + 1))
    timeout 150 "$aorta" launch --nproc-per-node 1 --master-port $port --timeout 120 -- train "${args[@]}" \
      > "$out/$name.txt" 2>&1
  fi
  echo "exit $?" >> "$out/$name.txt"
done

python3 - "$here/lib" "$w" "$out" $steps "${runs[@]}" <<'PY' | tee "$out/table.txt"
import os, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import trainer_runs
w, out, steps, runs = sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:]

def metrics(name):
    return trainer_runs.metrics(os.path.join(w, name))

def weights(name):
    return trainer_runs.weights(os.path.join(w, name + ".safetensors"))

def rel(a, b):
    return abs(a - b) / max(abs(a), 1e-30)

bad = 0
print("%-24s %-12s %-11s %-12s %-12s %-14s %s" % ("run (world 1)", "vs", "loss equal", "max rel dloss",
      "max rel dnorm", "weights rel L2", "verdict"))
for r in runs:
    name, precision, acc, how = r.split()[:4]
    if name.startswith("single"):
        continue
    ref = "single-" + precision + ("-acc2" if acc == "2" else "")
    bound = 1e-5 if precision == "none" else 1e-3
    a, b = metrics(ref), metrics(name)
    wa, wb = weights(ref), weights(name)
    if len(a) != steps or len(b) != steps or wa is None or wb is None:
        print("%-24s %-12s FAILED: %d and %d metrics lines of %d (see %s/%s.txt)" % (name, ref, len(a), len(b),
              steps, out, name))
        bad += 1
        continue
    equal = sum(x["loss"] == y["loss"] for x, y in zip(a, b))
    dloss = max(rel(x["loss"], y["loss"]) for x, y in zip(a, b))
    dnorm = max(rel(x["grad_norm"], y["grad_norm"]) for x, y in zip(a, b))
    dw = max(float(np.linalg.norm(wa[k] - wb[k]) / max(np.linalg.norm(wa[k]), 1e-30)) for k in wa)
    ok = sorted(wa) == sorted(wb) and max(dloss, dnorm, dw) <= bound
    bad += not ok
    print("%-24s %-12s %2d/%-8d %-12.2e %-12.2e %-14.2e %s" % (name, ref, equal, steps, dloss, dnorm, dw,
          ("pass" if ok else "FAIL") + (" (noise floor)" if name.startswith("repeat") else "")))
print("all within bounds" if bad == 0 else "%d runs out of bounds or failed" % bad)
sys.exit(1 if bad else 0)
PY
status=$?
rm -rf "$w"
exit $status
