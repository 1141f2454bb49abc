#!/usr/bin/env bash
# The op-level part of scripts/model-ranking-gpu.sh, for a change to op kernels: OpsCheck and
# scripts/model-ops-check.py check every op (float64 Java reference, PyTorch float64), then ModelBench and
# scripts/model-bench.py time the ops and the step side by side under bf16 autocast, with the kernels by name
# of linear+gelu fwd, layer norm fwd+bwd and the step (in OUT_DIR/bench-*-bf16.txt). About 3 minutes.
# Usage: scripts/model-ops-bench-gpu.sh LIB_DIR OUT_DIR   (LIB_DIR as for model-ops-check.sh)
set -uo pipefail
lib=${1:?usage: model-ops-bench-gpu.sh LIB_DIR OUT_DIR}
out=${2:?usage: model-ops-bench-gpu.sh LIB_DIR OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
cases=${MODEL_CHECK_CASES:-$(mktemp -d)}
mkdir -p "$out" "$cases"
java=(java --enable-native-access=ALL-UNNAMED -cp "$lib/*")
timeout 30 "${java[@]}" dev.aorta.model.check.ModelBench --bf16 > "$out/bench-ours-bf16.txt" 2>&1
timeout 40 python3 "$here/model-bench.py" --bf16 --ours "$out/bench-ours-bf16.txt" > "$out/bench-torch-bf16.txt" 2>&1
timeout 100 "${java[@]}" dev.aorta.model.check.OpsCheck --out "$cases/ops" > "$out/ops-java.txt" 2>&1
ops_rc=$?
timeout 80 python3 "$here/model-ops-check.py" "$cases/ops" > "$out/ops-torch.txt" 2>&1
ops_torch_rc=$?
echo "== OpsCheck against the float64 Java reference (exit $ops_rc)"
grep -E "FAIL|Exception|Error" "$out/ops-java.txt" | head -20; tail -1 "$out/ops-java.txt"
echo "== ops against PyTorch float64 (exit $ops_torch_rc)"
grep -E "FAIL|Error|Traceback" "$out/ops-torch.txt" | head -20; tail -1 "$out/ops-torch.txt"
for side in ours torch; do
  echo "== $side: kernels of linear+gelu fwd and layer norm fwd+bwd, the step's dy pass and layer norm"
  sed -n '/^linear+gelu fwd kernels/,/^[^ ]/p;/^layer norm fwd+bwd kernels/,/^[^ ]/p' "$out/bench-$side-bf16.txt" \
    | grep '^ '
  sed -n '/^step kernels/,$p' "$out/bench-$side-bf16.txt" | grep -iE '^  (bias_grad|.*layer_?norm|.*GammaBeta)'
done
echo "== bench bf16"; sed -n '/ours us/,$p' "$out/bench-torch-bf16.txt"
grep -E "Error|Exception|Traceback" "$out/bench-"*.txt | head
[ $ops_rc -eq 0 ] && [ $ops_torch_rc -eq 0 ]
