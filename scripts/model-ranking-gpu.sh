#!/usr/bin/env bash
# The ranking model's GPU acceptance run: RankingCheck writes one training step (default sizes and two odd
# ones; fp32, bf16 autocast, fp16 autocast with loss scaling; dropout off), scripts/model-ranking-check.py
# compares it with PyTorch on the GPU; OpsCheck and scripts/model-ops-check.py check every op; then
# ModelBench (ours, CUPTI) and scripts/model-bench.py (PyTorch eager, torch.profiler) time the same ops and
# the whole step side by side, fp32 and bf16.
# Usage: scripts/model-ranking-gpu.sh LIB_DIR OUT_DIR   (LIB_DIR as for model-ops-check.sh)
#   BENCH_PRECISIONS="bf16" times only the autocast table (default "fp32 bf16"), e.g. for an attention change,
#   whose 16-bit kernels run only under autocast; the checks always run in full.
# Each step has a time limit (a device call has minutes), so that one that hangs leaves the others' results.
set -uo pipefail
lib=${1:?usage: model-ranking-gpu.sh LIB_DIR OUT_DIR}
out=${2:?usage: model-ranking-gpu.sh LIB_DIR OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
cases=${MODEL_CHECK_CASES:-$(mktemp -d)}  # ~1 GB of parameter files: kept out of OUT_DIR
mkdir -p "$out" "$cases"
java=(java --enable-native-access=ALL-UNNAMED -cp "$lib/*")
timeout 100 "${java[@]}" dev.aorta.model.check.RankingCheck --out "$cases" > "$out/ranking-java.txt" 2>&1
java_rc=$?
timeout 120 python3 "$here/model-ranking-check.py" "$cases" > "$out/ranking-torch.txt" 2>&1
torch_rc=$?
precisions=${BENCH_PRECISIONS:-fp32 bf16}
for p in $precisions; do
  flag=$([ $p = bf16 ] && echo --bf16)
  timeout 30 "${java[@]}" dev.aorta.model.check.ModelBench $flag > "$out/bench-ours-$p.txt" 2>&1
  timeout 40 python3 "$here/model-bench.py" $flag --ours "$out/bench-ours-$p.txt" > "$out/bench-torch-$p.txt" 2>&1
done
timeout 100 "${java[@]}" dev.aorta.model.check.OpsCheck --out "$cases/ops" > "$out/ops-java.txt" 2>&1
ops_rc=$?
timeout 80 python3 "$here/model-ops-check.py" "$cases/ops" > "$out/ops-torch.txt" 2>&1
ops_torch_rc=$?
echo "== RankingCheck (exit $java_rc)"; tail -5 "$out/ranking-java.txt"
echo "== against PyTorch (exit $torch_rc)"
grep -E "FAIL|Error|Traceback|loss ours" "$out/ranking-torch.txt" | head -30
tail -1 "$out/ranking-torch.txt"
echo "== OpsCheck against the float64 Java reference (exit $ops_rc)"
grep -E "FAIL|Exception|Error" "$out/ops-java.txt" | head -20; tail -1 "$out/ops-java.txt"
echo "== the 16-bit attention (attention16_*, encoder layer under autocast): largest rel L2 against float64"
grep -iE "^(attention16_|encoder_layer_.*_(bf16|fp16) )" "$out/ops-java.txt" | sort -g -k4 | tail -4
echo "== ops against PyTorch float64 (exit $ops_torch_rc)"
grep -E "FAIL|Error|Traceback" "$out/ops-torch.txt" | head -20; tail -1 "$out/ops-torch.txt"
for p in $precisions; do
  echo "== bench $p"; sed -n '/ours us/,$p' "$out/bench-torch-$p.txt"
done
grep -E "Error|Exception|Traceback" "$out/bench-"*.txt | head
[ $java_rc -eq 0 ] && [ $torch_rc -eq 0 ] && [ $ops_rc -eq 0 ] && [ $ops_torch_rc -eq 0 ]
