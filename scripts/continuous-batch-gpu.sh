#!/usr/bin/env bash
# continuous_batch (issue 15) on one GPU: ours with every prefill and decode step as one CUDA graph launch
# (graphs=true, the default; its correctness check replays a captured decode step) and eager (graphs=false), each
# under CUPTI and under --kernel-timing event-pairs, beside AORTA's PyTorch counterpart
# (scripts/bench/aorta_workloads.py); then speculative_decode and rag_pipeline once (their decoders share the fused
# cached attention), and the model ops' check of the cached attention alone (OpsCheck --small: batch 1 and 2, one
# and many positions, against float64). Prints a table last; exit 1 on a wrong result, an idle stream (CUPTI runs)
# or a failed run.
#   scripts/continuous-batch-gpu.sh [OUT_DIR]   (from the repository root of a device host with dist/, python3, torch)
# ITERATIONS (20, as workloads-vs-aorta-all.sh), WARMUP (30, ours) override. About 2-3 minutes on an H100/H200.
# Expected (read from the code, not yet run): every row ok; launches per iteration (counted by the harness since the
# declared counts went; those were 8 with graphs, 228 without, 388 before) close to those, fewer where fp32 Linear
# biases now ride in cuBLASLt's epilogue; cb-graphs-cupti at or above AORTA's (ratio >= 1), the GPU's fp32 GEMMs then the bound rather than the host.
set -u
OUT=${1:-continuous-batch-gpu-out}
ITERATIONS=${ITERATIONS:-20}
WARMUP=${WARMUP:-30}
AORTA=dist/bin/aorta
[ -f .device/prelude.sh ] && [ -z "${JAVA_HOME:-}" ] && . .device/prelude.sh
[ -x "$AORTA" ] || { echo "continuous-batch-gpu: $AORTA not found; build it first with ./build package -DskipTests" >&2; exit 2; }
if [ -n "${AORTA_JAVA_HOME:-}" ]; then java="$AORTA_JAVA_HOME/bin/java"; elif [ -n "${JAVA_HOME:-}" ]; then java="$JAVA_HOME/bin/java"; else java=java; fi
mkdir -p "$OUT"

. "$(dirname "$0")/lib/run_result.sh"

rows=()
failed=0
ours() { # label workload streams timing [params...]
    local label=$1 w=$2 n=$3 timing=$4
    shift 4
    local pargs=()
    for p in "$@"; do pargs+=(-p "$p"); done
    local t0 rc
    t0=$(date +%s)
    timeout 240 "$AORTA" run "$w" --streams "$n" "${pargs[@]}" --kernel-timing "$timing" -i "$ITERATIONS" \
        -w "$WARMUP" -o "$OUT/$label.json" > "$OUT/$label.log" 2>&1
    rc=$?
    local tput check busy launches
    tput=$(field "$OUT/$label.json" "'%.4g' % r['throughput']")
    launches=$(field "$OUT/$label.json" "'%d %.2fms' % (r['host_enqueue']['launches_per_iteration'], r['host_enqueue']['per_iteration_ms']['p50'])")
    check=$(field "$OUT/$label.json" "'ok' if r['correctness']['checked'] and not r['correctness']['problem'] else ('no check' if not r['correctness']['checked'] else 'FAILED: ' + str(r['correctness']['problem']))")
    busy=$(field "$OUT/$label.json" "(lambda t: 'all %d > 0' % len(t) if len(t) == r['stream_count'] and min(t) > 0 else 'IDLE ' + str([i for i, v in enumerate(t) if v <= 0]))(r['per_stream_times_ms'])")
    [ $rc -eq 0 ] || { check="exit $rc: $(tail -n 1 "$OUT/$label.log")"; failed=1; }
    case $check in FAILED*) failed=1 ;; esac
    # event pairs bracket only the harness's own ops, not the model workloads' launches: no device times to judge
    if [ "$timing" = event-pairs ]; then busy="(untraced)"; else case $busy in IDLE*) failed=1 ;; esac; fi
    rows+=("$(printf '%-26s %11s %14s %5ss  %-10s %s' "$label" "$tput" "$launches" "$(( $(date +%s) - t0 ))" "$busy" "$check")")
}

began=$(date +%s)
ours cb-graphs-cupti continuous_batch 8 cupti graphs=true
ours cb-graphs-eventpairs continuous_batch 8 event-pairs graphs=true
ours cb-eager-cupti continuous_batch 8 cupti graphs=false
ours cb-eager-eventpairs continuous_batch 8 event-pairs graphs=false
timeout 120 python3 scripts/bench/aorta_workloads.py continuous_batch 8 "$ITERATIONS" > "$OUT/aorta-torch.log" 2>&1
theirs=$(awk '$1 == "continuous_batch" {print $3}' "$OUT/aorta-torch.log")
[ -n "$theirs" ] || theirs="-"
ours speculative_decode speculative_decode 6 cupti
ours rag_pipeline rag_pipeline 8 cupti
cp=$(ls dist/lib/*.jar | grep -v '/aorta-agent.jar$' | paste -sd: -)
timeout 90 "$java" --enable-native-access=ALL-UNNAMED -cp "$cp" dev.aorta.model.check.OpsCheck --small \
    > "$OUT/ops-check.txt" 2>&1
ops_rc=$?
[ $ops_rc -eq 0 ] || failed=1

echo "== cached attention against float64 (OpsCheck --small, exit $ops_rc; full table in $OUT/ops-check.txt)"
grep -E "^cached_attention" "$OUT/ops-check.txt"
tail -n 1 "$OUT/ops-check.txt"
echo "== continuous_batch, 8 streams, $ITERATIONS iterations ($(( $(date +%s) - began )) s in all; launches and the"
echo "   host's median enqueue time per iteration; before the fusions: 388 launches, ~4 ms with CUPTI on the H200 at 10.4 us a launch)"
printf '%-26s %11s %14s %6s  %-10s %s\n' run throughput launches,host time streams correctness
printf '%s\n' "${rows[@]}"
printf '%-26s %11s\n' "aorta-torch (fp32)" "$theirs"
for l in cb-graphs-cupti cb-graphs-eventpairs cb-eager-cupti cb-eager-eventpairs; do
    python3 -c "print('%-26s ratio %.2f' % ('$l', $(field "$OUT/$l.json" "r['throughput']") / $theirs))" 2>/dev/null
done
exit $failed
