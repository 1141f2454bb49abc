#!/usr/bin/env bash
# The workloads' correctness checks on a GPU, with a short table last: large_gemm_only's float64 check of every
# stream's C at each GEMM type and at 1 and 16 streams, copy_compute_overlap's bit-for-bit check of what its copies
# carried (every direction, fp32 and bf16 GEMMs), then `aorta run-priority all` and `untiered` at their defaults
# (every workload at its recommended stream count, each with its own check).
#   scripts/workload-checks-gpu.sh [OUT_DIR]     (from the repository root, after ./build package -DskipTests)
# Exit 1 when a run failed or a check did not pass. Environment: AORTA (dist/bin/aorta), ITERS (20).
set -u
OUT=${1:-workload-checks-out}
AORTA=${AORTA:-dist/bin/aorta}
ITERS=${ITERS:-20}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/run_result.sh"
[ -x "$AORTA" ] || { echo "workload-checks-gpu: $AORTA not found; build it first with ./build package -DskipTests" >&2; exit 2; }
mkdir -p "$OUT"
rows=()
failed=0
one() { # label, then aorta run's arguments
    local label=$1; shift
    local file="$OUT/$label.json"
    local start end rc
    start=$(date +%s.%N)
    "$AORTA" run "$@" -i "$ITERS" -w 5 -o "$file" > "$OUT/$label.log" 2>&1
    rc=$?
    end=$(date +%s.%N)
    local check tp unit
    check=$(field "$file" "'ok' if r['correctness']['checked'] and not r['correctness']['problem'] else ('unchecked' if not r['correctness']['checked'] else r['correctness']['problem'])")
    tp=$(field "$file" "'%.4g' % r['throughput']")
    unit=$(field "$file" "r['throughput_unit']")
    [ $rc -eq 0 ] && [ "$check" = ok ] || { failed=1; tail -n 5 "$OUT/$label.log"; }
    rows+=("$(printf '%-34s %4s %-10s %-12s %s' "$label" "$rc" "$tp" "$unit" "$check") $(python3 -c "print('%.1f s' % ($end - $start))")")
}
for dt in fp32 bf16 fp16; do
    for s in 1 16; do one "large_gemm_only_${dt}_s$s" large_gemm_only -s "$s" --dtype "$dt"; done
done
one copy_compute_overlap_fp32 copy_compute_overlap
one copy_compute_overlap_bf16 copy_compute_overlap --dtype bf16
for tier in all untiered; do
    start=$(date +%s.%N)
    "$AORTA" run-priority "$tier" -o "$OUT/run-priority-$tier" > "$OUT/run-priority-$tier.log" 2>&1
    rp=$?
    end=$(date +%s.%N)
    [ $rp -eq 0 ] || failed=1
    echo "== run-priority $tier (exit $rp, $(python3 -c "print('%.0f' % ($end - $start))") s)"
    sed -n '/^WORKLOAD/,$p' "$OUT/run-priority-$tier.log"
done
echo
printf '%-34s %4s %-10s %-12s %s\n' RUN EXIT THROUGHPUT UNIT "CHECK, WALL"
printf '%s\n' "${rows[@]}"
[ $failed -eq 0 ] && echo "PASS: every run exited 0 with its check ok" || echo "FAIL: see the rows above and $OUT"
exit $failed
