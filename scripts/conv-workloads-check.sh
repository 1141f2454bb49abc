#!/usr/bin/env bash
# Issue 15's slow workloads on one GPU, from a built dist/ (./build package -DskipTests; .device/'s prelude is sourced
# where there is one): (1) the conv2d op check: OpsCheck's conv2d cases (fp32, tf32, bf16, fp16; odd sizes, strides,
# padding, a batch that takes two passes of the column scratch) against float64, and the same inputs through
# PyTorch's float64 conv2d (scripts/model-ops-check.sh on dist/lib); (2) async_dataload (tf32, the default, then fp32
# and bf16), continuous_batch and rag_pipeline, ours against their PyTorch counterparts after AORTA
# (scripts/aorta-vs-ours.sh). Needs python3 with torch. Tables last; exit 1 when a check failed. About 6-10 minutes.
#
# usage: scripts/conv-workloads-check.sh      OUT (default ./conv-workloads-out), ITERATIONS (20), WARMUP (30) override
set -uo pipefail
cd "$(dirname "$0")/.."
[ -f .device/prelude.sh ] && [ -z "${JAVA_HOME:-}" ] && . .device/prelude.sh
[ -n "${JAVA_HOME:-}" ] && export PATH="$JAVA_HOME/bin:$PATH"
OUT=${OUT:-$PWD/conv-workloads-out}
mkdir -p "$OUT"
[ -d dist/lib ] || { echo "conv-workloads-check: dist/lib not found; build it first with ./build package -DskipTests" >&2; exit 2; }

echo "== conv2d op check (OpsCheck, then PyTorch float64)" >&2
timeout 1200 scripts/model-ops-check.sh dist/lib "$OUT/ops" > "$OUT/ops.txt" 2>&1
ops_rc=$?

echo "== workloads, ours against AORTA's PyTorch counterparts" >&2
WORKLOADS="async_dataload:6 async_dataload:6:precision=fp32 async_dataload:6:precision=bf16 continuous_batch:8 rag_pipeline:8" \
    timeout 1800 scripts/aorta-vs-ours.sh "$OUT/vs" > "$OUT/vs.txt" 2> "$OUT/vs.err"
vs_rc=$?

echo "===== conv2d against float64 (Java reference; exit of the whole OpsCheck + PyTorch run: $ops_rc)"
grep -E "^conv2d" "$OUT/ops/java-check.txt" 2>/dev/null || echo "(no conv2d rows: see $OUT/ops.txt)"
echo "===== conv2d against PyTorch float64"
grep -E "^conv2d" "$OUT/ops/torch-check.txt" 2>/dev/null || echo "(no conv2d rows: see $OUT/ops.txt)"
conv_failed=$(grep -hE "^conv2d" "$OUT/ops/java-check.txt" "$OUT/ops/torch-check.txt" 2>/dev/null | grep -c "FAIL")
echo "conv2d comparisons failed: $conv_failed (other ops' summary lines: $(tail -n 1 "$OUT/ops/java-check.txt" 2>/dev/null); $(tail -n 1 "$OUT/ops/torch-check.txt" 2>/dev/null))"
echo "===== OpsTiming (first timings of the ops)"
cat "$OUT/ops/timing.txt" 2>/dev/null | head -40
echo "===== ours against AORTA (PyTorch), exit $vs_rc"
cat "$OUT/vs.txt"
[ "$conv_failed" -eq 0 ] && [ $vs_rc -eq 0 ]
