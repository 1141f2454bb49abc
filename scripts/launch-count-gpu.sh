#!/usr/bin/env bash
# Launches per iteration as the harness now counts them (every host API call that enqueued device work during the
# iteration: kernel launches, GEMMs, cuBLASLt matmuls, copies, memsets, collectives, graph launches; see
# docs/metrics.md "Host enqueue"), for every model workload at its recommended stream count, beside the device
# activities CUPTI recorded per iteration and the host µs per launch. Prints a table last; exit 1 on a failed run or a
# wrong result.
#   scripts/launch-count-gpu.sh [OUT_DIR]   (from the repository root of a device host with dist/, python3)
# ITERATIONS (10), WARMUP (5) override. About 3-4 minutes on an H100/H200 (mostly JVM starts and kernel compiles).
# Expected: every row ok; "varied" empty (every iteration makes the same calls) except where a workload's
# iterations differ on purpose; CUPTI activities >= launches for eager runs (a GEMM may run as two kernels: a split-K
# reduction) and far more than launches where graphs replay (continuous_batch graphs=true, graph_subgraphs
# mode=graph, torch_compile's graphed parts: a graph launch is one call). fp32 Linear layers with a bias are one call
# now (the bias in cuBLASLt's epilogue), so workloads made of them show fewer launches than they used to declare.
set -u
OUT=${1:-launch-count-gpu-out}
ITERATIONS=${ITERATIONS:-10}
WARMUP=${WARMUP:-5}
AORTA=dist/bin/aorta
[ -f .device/prelude.sh ] && [ -z "${JAVA_HOME:-}" ] && . .device/prelude.sh
[ -x "$AORTA" ] || { echo "launch-count-gpu: $AORTA not found; build it first with ./build package -DskipTests" >&2; exit 2; }
mkdir -p "$OUT"

. "$(dirname "$0")/lib/run_result.sh"

rows=()
failed=0
one() { # label workload [params...]
    local label=$1 w=$2
    shift 2
    local pargs=()
    for p in "$@"; do pargs+=(-p "$p"); done
    timeout 90 "$AORTA" run "$w" "${pargs[@]}" --kernel-timing cupti -i "$ITERATIONS" -w "$WARMUP" \
        -o "$OUT/$label.json" > "$OUT/$label.log" 2>&1
    local rc=$? launches varied activities us check
    launches=$(field "$OUT/$label.json" "'%.1f' % r['host_enqueue']['launches_per_iteration']")
    varied=$(field "$OUT/$label.json" "(lambda h: '' if h['launches_per_iteration_min'] == h['launches_per_iteration_max'] else '%d-%d' % (h['launches_per_iteration_min'], h['launches_per_iteration_max']))(r['host_enqueue'])")
    activities=$(field "$OUT/$label.json" "'%.1f' % (r['kernels']['activity_count'] / r['kernels']['captured_iterations'])")
    us=$(field "$OUT/$label.json" "'%.2f' % r['host_enqueue']['us_per_launch']")
    check=$(field "$OUT/$label.json" "'ok' if not r['correctness']['checked'] or not r['correctness']['problem'] else 'FAILED: ' + str(r['correctness']['problem'])")
    [ $rc -eq 0 ] || { check="exit $rc: $(tail -n 1 "$OUT/$label.log")"; failed=1; }
    case $check in FAILED*) failed=1 ;; esac
    rows+=("$(printf '%-24s %10s %9s %12s %9s  %s' "$label" "$launches" "$varied" "$activities" "$us" "$check")")
}

for w in activation_ckpt async_dataload fsdp_tp grad_accum moe rag_pipeline speculative_decode zero_offload; do
    one "$w" "$w"
done
one continuous_batch-graphs continuous_batch graphs=true
one continuous_batch-eager continuous_batch graphs=false
one graph_subgraphs-eager graph_subgraphs mode=eager
one graph_subgraphs-graph graph_subgraphs mode=graph
one torch_compile torch_compile

printf '\n%-24s %10s %9s %12s %9s  %s\n' "run" "launches" "varied" "cupti/iter" "us/launch" "check"
printf '%s\n' "${rows[@]}"
exit $failed
