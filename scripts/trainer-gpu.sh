#!/usr/bin/env bash
# aorta train's acceptance on one GPU (issue 14), in one call:
#   1. exactness: 50 steps of config/default.yaml in fp32 (dropout 0) against scripts/trainer-reference.py's
#      PyTorch replay of the same weights and batches (losses within 1e-4 relative, final weights 1e-3);
#      then the same in bf16 (losses within 2 %);
#   2. learning: dataset.learnable, 300 steps at the default shape: does the loss fall by half?
#   3. speed: ours (aorta train) and PyTorch eager (trainer-reference.py timing) at config/default.yaml and
#      config/mi350_overlap_stress.yaml, bf16, side by side.
# Usage: scripts/trainer-gpu.sh DIST_DIR OUT_DIR   (DIST_DIR holds bin/aorta and lib/*.jar; configs are read from
# this script's ../config). Large files (weights, batches) stay in a scratch folder, out of OUT_DIR.
set -uo pipefail
dist=${1:?usage: trainer-gpu.sh DIST_DIR OUT_DIR}
out=${2:?usage: trainer-gpu.sh DIST_DIR OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
conf=${TRAINER_CONFIG_DIR:-$here/../config}
w=$(mktemp -d)
mkdir -p "$out"
aorta=("$dist/bin/aorta" train)
compare=(java --enable-native-access=ALL-UNNAMED -cp "$dist/lib/*" dev.aorta.trainer.check.ReferenceComparison)
exact=(--config "$conf/default.yaml" --override model.dropout=0 training.max_steps=50 training.log_interval=10)

timeout 90 "${aorta[@]}" "${exact[@]}" training.mixed_precision=none training.output_dir="$w/fp32" \
  --save-weights "$w/init.safetensors" --save-final-weights "$w/fp32-final.safetensors" \
  --dump-batches "$w/fp32-batches.safetensors" > "$out/exact-fp32-ours.txt" 2>&1
echo "ours fp32 exit $?" >> "$out/exact-fp32-ours.txt"
timeout 60 python3 "$here/trainer-reference.py" replay "$w/init.safetensors" "$w/fp32-batches.safetensors" \
  "$w/torch-fp32" > "$out/exact-fp32-torch.txt" 2>&1
timeout 30 "${compare[@]}" "$w/fp32/rank_00_metrics.jsonl" "$w/torch-fp32/losses.json" "$w/fp32-final.safetensors" \
  "$w/torch-fp32/final.safetensors" 1e-4 1e-3 "$w/init.safetensors" > "$out/exact-fp32-compare.txt" 2>&1

timeout 60 "${aorta[@]}" "${exact[@]}" training.mixed_precision=bf16 training.output_dir="$w/bf16" \
  --init-weights "$w/init.safetensors" --save-final-weights "$w/bf16-final.safetensors" \
  --dump-batches "$w/bf16-batches.safetensors" > "$out/exact-bf16-ours.txt" 2>&1
timeout 60 python3 "$here/trainer-reference.py" replay "$w/init.safetensors" "$w/bf16-batches.safetensors" \
  "$w/torch-bf16" --bf16 > "$out/exact-bf16-torch.txt" 2>&1
timeout 30 "${compare[@]}" "$w/bf16/rank_00_metrics.jsonl" "$w/torch-bf16/losses.json" "$w/bf16-final.safetensors" \
  "$w/torch-bf16/final.safetensors" 2e-2 1e-3 "$w/init.safetensors" > "$out/exact-bf16-compare.txt" 2>&1

timeout 90 "${aorta[@]}" --config "$conf/default.yaml" --override dataset.learnable=true training.max_steps=300 \
  training.log_interval=25 training.output_dir="$w/learn" > "$out/learn.txt" 2>&1
python3 - "$w/learn/rank_00_metrics.jsonl" >> "$out/learn.txt" 2>&1 <<'PY'
import json, sys
loss = [json.loads(l)["loss"] for l in open(sys.argv[1])]
first, last = sum(loss[:10]) / 10, sum(loss[-10:]) / 10
print("learnable: mean loss of steps 0-9 %.5f, of the last 10 %.5f: ratio %.3f (%s)" % (
    first, last, last / first, "halved" if last <= first / 2 else "NOT halved"))
PY

# fp16 with dynamic loss scaling, and a SIGTERM in the middle of a long run (it must stop after the step, every
# metrics line complete)
timeout 60 "${aorta[@]}" --config "$conf/default.yaml" --override training.mixed_precision=fp16 dataset.learnable=true \
  training.max_steps=100 training.log_interval=25 training.output_dir="$w/fp16" > "$out/fp16.txt" 2>&1
"${aorta[@]}" --config "$conf/default.yaml" --override training.max_steps=100000 training.log_interval=1000 \
  training.output_dir="$w/sigterm" > "$out/sigterm.txt" 2>&1 &
pid=$!
sleep 12
kill -TERM $pid
wait $pid
echo "exit $?" >> "$out/sigterm.txt"
python3 - "$w/sigterm/rank_00_metrics.jsonl" >> "$out/sigterm.txt" 2>&1 <<'PY'
import json, sys
data = open(sys.argv[1]).read()
lines = [json.loads(l) for l in data.splitlines()]
print("sigterm: %d metrics lines, all parse, file ends with a newline: %s, last global_step %d" % (
    len(lines), data.endswith("\n"), lines[-1]["global_step"]))
PY

# dataloader.num_workers as the config file sets it (default.yaml 4, the stress file 8) and 12: whether host batch
# generation limits the step
for shape in default mi350_overlap_stress; do
  own=$(sed -n 's/^ *num_workers: *\([0-9]*\).*/\1/p' "$conf/$shape.yaml" | head -n 1)
  for workers in ${own:-4} 12; do
    timeout 60 "${aorta[@]}" --config "$conf/$shape.yaml" --override training.max_steps=50 training.log_interval=25 \
      dataloader.num_workers=$workers training.output_dir="$w/speed-$shape-$workers" \
      > "$out/speed-$shape-ours-w$workers.txt" 2>&1
    python3 - "$w/speed-$shape-$workers/rank_00_metrics.jsonl" $workers >> "$out/speed-$shape-ours-w$workers.txt" \
      2>&1 <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])][10:]
host = sorted(r["step_time_ms"] for r in rows)
dev = sorted(r["profile"]["total_ms"] for r in rows)
comp = sorted(r["profile"]["overlap"]["per_stream_ms"]["compute"] for r in rows)
print("ours (%s workers): median step %.3f ms (host, end to end), device %.3f ms (start to end marker),"
      " compute busy %.3f ms, over %d steps after 10" % (sys.argv[2], host[len(host) // 2], dev[len(dev) // 2],
                                                        comp[len(comp) // 2], len(rows)))
PY
  done
done
timeout 60 python3 "$here/trainer-reference.py" timing > "$out/speed-default-torch.txt" 2>&1
timeout 90 python3 "$here/trainer-reference.py" timing --batch 32 --seq 128 --layers 12 --model-dim 1024 --heads 16 \
  --mlp 4096 --emb 256 --vocab 200000 --dense-features 24 --dense-dim 256 --sparse 64 \
  > "$out/speed-mi350_overlap_stress-torch.txt" 2>&1
head -c 20000 "$w/speed-default-4/rank_00_metrics.jsonl" > "$out/metrics-default-head.jsonl"

echo "== exactness fp32"; tail -4 "$out/exact-fp32-compare.txt"; grep -E "Error|error|Exception" "$out/exact-fp32-"*.txt | head -5
echo "== exactness bf16"; tail -4 "$out/exact-bf16-compare.txt"; grep -E "Error|error|Exception" "$out/exact-bf16-"*.txt | head -5
echo "== learning"; grep -E "^step (0|100|200|299)/|learnable|done|rror" "$out/learn.txt"
echo "== fp16"; grep -E "^step (0|50|99)/|^done|rror" "$out/fp16.txt"
echo "== sigterm"; grep -E "^done|^stopped|sigterm:|exit|rror" "$out/sigterm.txt"
for shape in default mi350_overlap_stress; do
  echo "== speed $shape"; grep -hE "^ours|^done|rror" "$out/speed-$shape-ours-w"*.txt; tail -2 "$out/speed-$shape-torch.txt"
done
