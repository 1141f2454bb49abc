#!/usr/bin/env bash
# The multi-rank trainer (issue 14) on one GPU: every parallel mode at world size 1, started as
#   aorta launch --nproc-per-node 1 -- train ...      (ShardedTrainer: real NCCL, one rank)
# against the one-GPU trainer (plain aorta train: SingleGpuTrainer) on the same configuration. With one rank
# every FSDP strategy is no_shard and no collective is issued, so the two must agree exactly: per-step loss and
# gradient norm bit for bit, and the final weights file byte for byte.
# Usage: scripts/trainer-sharded-gpu.sh DIST_DIR OUT_DIR   (DIST_DIR holds bin/aorta; configs come from this
# script's ../config). It prints a table last; exit code 1 when a run differs or failed. About 3 minutes.
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
  "full_shard-none none 1 launch fsdp.sharding_strategy=full_shard"
  "shard_grad_op-none none 1 launch fsdp.sharding_strategy=shard_grad_op"
  "no_shard-none none 1 launch fsdp.sharding_strategy=no_shard"
  "hybrid_shard-none none 1 launch fsdp.sharding_strategy=hybrid_shard"
  "ddp-none none 1 launch distributed.mode=ddp"
  "full_shard-compute-none none 1 launch fsdp.sharding_strategy=full_shard distributed.collective_streams=compute"
  "single-bf16 bf16 1 single"
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
    timeout 120 "$aorta" train "${args[@]}" > "$out/$name.txt" 2>&1
  else
    port=$((port + 1))
    timeout 150 "$aorta" launch --nproc-per-node 1 --master-port $port --timeout 120 -- train "${args[@]}" \
      > "$out/$name.txt" 2>&1
  fi
  echo "exit $?" >> "$out/$name.txt"
done

python3 - "$w" "$out" $steps "${runs[@]}" <<'PY' | tee "$out/table.txt"
import filecmp, json, os, sys
w, out, steps, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
def read(name):
    f = os.path.join(w, name, "rank_00_metrics.jsonl")
    return [json.loads(l) for l in open(f)] if os.path.exists(f) else []
bad = 0
print("%-26s %-14s %-14s %-12s %-10s %s" % ("run (world 1)", "vs", "loss equal", "max |dloss|", "norm equal", "final weights"))
for r in runs:
    name, precision, acc, how = r.split()[:4]
    if how == "single":
        continue
    ref = "single-" + precision + ("-acc2" if acc == "2" else "")
    a, b = read(ref), read(name)
    if len(a) != steps or len(b) != steps:
        print("%-26s %-14s FAILED: %d and %d metrics lines of %d (see %s/%s.txt)" % (name, ref, len(a), len(b), steps, out, name))
        bad += 1
        continue
    same_loss = sum(x["loss"] == y["loss"] for x, y in zip(a, b))
    same_norm = sum(x["grad_norm"] == y["grad_norm"] for x, y in zip(a, b))
    dmax = max(abs(x["loss"] - y["loss"]) for x, y in zip(a, b))
    wa, wb = os.path.join(w, ref + ".safetensors"), os.path.join(w, name + ".safetensors")
    weights = "identical" if os.path.exists(wb) and filecmp.cmp(wa, wb, shallow=False) else "DIFFER"
    ok = same_loss == steps and same_norm == steps and weights == "identical"
    bad += not ok
    print("%-26s %-14s %2d/%-11d %-12.3e %2d/%-7d %s" % (name, ref, same_loss, steps, dmax, same_norm, steps, weights))
print("all identical" if bad == 0 else "%d runs differ or failed" % bad)
sys.exit(1 if bad else 0)
PY
status=$?
rm -rf "$w"
exit $status
