#!/usr/bin/env bash
# Times `aorta run-priority all` (every workload of tiers P0..P3 at its recommended stream count, the harness's
# defaults: 10 warmup + 100 measured iterations) on one GPU. The bar: it completes within 10 minutes.
#   scripts/run-priority-all-gpu.sh [OUT_DIR]     (from the repository root, after ./build package -DskipTests)
# Prints run-priority's table (with each run's wall time: setup, warmup, measured iterations, check, traced
# iterations), the wall time per tier as run-priority sums it, the command's total wall time and PASS/FAIL against
# the bar.
# Environment: AORTA (dist/bin/aorta), LIMIT_S (600).
set -u
OUT=${1:-run-priority-all-out}
AORTA=${AORTA:-dist/bin/aorta}
LIMIT_S=${LIMIT_S:-600}
[ -x "$AORTA" ] || { echo "run-priority-all-gpu: $AORTA not found; build it first with ./build package -DskipTests" >&2; exit 2; }
mkdir -p "$OUT"
start=$(date +%s.%N)
timeout "$LIMIT_S" "$AORTA" run-priority all -o "$OUT" > "$OUT/run-priority.log" 2> "$OUT/run-priority.err"
rc=$?
end=$(date +%s.%N)
total=$(python3 -c "print('%.1f' % ($end - $start))")
sed -n '/^WORKLOAD/,$p' "$OUT/run-priority.log"
[ -s "$OUT/run-priority.err" ] && { echo "-- stderr:"; cat "$OUT/run-priority.err"; }
echo
if [ $rc -eq 124 ]; then
    echo "FAIL: run-priority all did not finish within $LIMIT_S s (the last step it began:"
    grep '^\[' "$OUT/run-priority.log" | tail -n 1
    echo ")"
    exit 1
fi
echo "run-priority all: exit $rc, $total s wall in total (limit $LIMIT_S s)"
if python3 -c "import sys; sys.exit(0 if $total <= $LIMIT_S else 1)"; then echo "PASS: within the bar"; else echo "FAIL: over the bar"; exit 1; fi
exit $rc
