#!/usr/bin/env bash
# Where the host time of a step goes on a GPU (issues 14 and 15; docs/trainer.md, "Host cost of an eager step"),
# in one call of about 3 minutes:
#   1. aorta train, config/default.yaml, bf16, eager and compiled (the step as one CUDA graph): median step (host, end
#      to end), device window and compute-stream busy time, steps 10..199;
#   2. PyTorch eager at the same shape (scripts/trainer-reference.py timing);
#   3. continuous_batch (8 streams, graphs=false: every kernel launched) with CUPTI tracing every kernel and with
#      --kernel-timing event-pairs (no CUPTI; a few sampled iterations carry event pairs): the host's time per launch
#      with and without CUPTI's work.
# Usage: scripts/trainer-host-cost-gpu.sh DIST_DIR OUT_DIR   (DIST_DIR holds bin/aorta and lib/*.jar)
set -uo pipefail
dist=${1:?usage: trainer-host-cost-gpu.sh DIST_DIR OUT_DIR}
out=${2:?usage: trainer-host-cost-gpu.sh DIST_DIR OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
w=$(mktemp -d)
mkdir -p "$out"
for mode in eager:false compiled:true; do
  name=${mode%%:*}
  timeout 75 "$dist/bin/aorta" train --config "$here/../config/default.yaml" --override training.max_steps=200 \
    training.log_interval=100 compile.enabled=${mode#*:} training.output_dir="$w/$name" > "$out/train-$name.txt" 2>&1
  python3 - "$w/$name/rank_00_metrics.jsonl" "$name" >> "$out/train-$name.txt" 2>&1 <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])][10:]
med = lambda xs: sorted(xs)[len(xs) // 2]
print("ours %s: median step %.3f ms (host, end to end), device window %.3f ms, compute busy %.3f ms, %d steps" % (
    sys.argv[2], med([r["step_time_ms"] for r in rows]), med([r["profile"]["total_ms"] for r in rows]),
    med([r["profile"]["overlap"]["per_stream_ms"]["compute"] for r in rows]), len(rows)))
PY
done
timeout 60 python3 "$here/trainer-reference.py" timing > "$out/torch-eager.txt" 2>&1
for timing in cupti event-pairs; do
  timeout 60 "$dist/bin/aorta" run continuous_batch --streams 8 -p graphs=false -i 20 -w 30 --kernel-timing $timing \
    -o "$out/continuous_batch-$timing.json" > "$out/continuous_batch-$timing.txt" 2>&1
done

echo "== aorta train, default.yaml bf16 (ours) and PyTorch eager"
grep -hE "^ours|rror" "$out/train-eager.txt" "$out/train-compiled.txt"
tail -1 "$out/torch-eager.txt"
echo "== continuous_batch, 8 streams: host time per launch with CUPTI tracing / without (event pairs)"
for timing in cupti event-pairs; do
  printf '%-12s ' "$timing"; grep -hE "host enqueue|rror" "$out/continuous_batch-$timing.txt" | head -2
done
rm -rf "$w"
