#!/usr/bin/env bash
# Issue 15, fsdp_tp against AORTA's PyTorch counterpart (scripts/bench/aorta_workloads.py) on one GPU, and where the
# device time of each goes. Runs, 10 streams, ITERATIONS measured (20) after WARMUP (30, ours):
#   ours  weight_grads=true   our default: the input gradient and the MLP's weight gradients, which FSDP
#                             all-reduces; about 335 GFLOP of fp32 GEMMs per iteration
#   ours  weight_grads=false  AORTA's backward, autograd.grad(x.sum(), input): about 266 GFLOP, the same as AORTA's
#   AORTA (PyTorch)           then once more under torch.profiler for its kernels
# Ours runs with --profile (the same run's CUPTI kernel times as a Chrome trace), from which the top kernels by device
# time per iteration are listed, cuBLAS's `align1` kernels marked. `align1` in a cutlass SIMT sgemm's name is not a
# sign of misaligned operands: CUTLASS builds its SIMT (non-tensor-core fp32) sgemm kernels with alignment 1 only,
# and cuBLAS picks them for plain aligned fp32 GEMMs too (NVIDIA/cutlass#3390); AORTA's kernel list shows which
# kernels torch's own fp32 GEMMs get on the same device. About 2-3 minutes.
#   scripts/fsdp-tp-gpu.sh [OUT_DIR]   (after ./build package -DskipTests; python3 with torch, a GPU)
set -uo pipefail
cd "$(dirname "$0")/.."
[ -f .device/prelude.sh ] && [ -z "${JAVA_HOME:-}" ] && . .device/prelude.sh
[ -n "${JAVA_HOME:-}" ] && export PATH="$JAVA_HOME/bin:$PATH"
OUT=${1:-$PWD/fsdp-tp-gpu-out}
ITERATIONS=${ITERATIONS:-20}
WARMUP=${WARMUP:-30}
STREAMS=${STREAMS:-10}
AORTA=${AORTA:-dist/bin/aorta}
mkdir -p "$OUT"
[ -x "$AORTA" ] || { echo "fsdp-tp-gpu: $AORTA not found; build it first with ./build package -DskipTests" >&2; exit 2; }
failed=0

for grads in true false; do
    echo "== ours, weight_grads=$grads" >&2
    timeout 300 "$AORTA" run fsdp_tp --streams "$STREAMS" -p weight_grads=$grads -i "$ITERATIONS" -w "$WARMUP" \
        -o "$OUT/ours-$grads.json" --profile --profile-dir "$OUT/profile-$grads" > "$OUT/ours-$grads.log" 2>&1 \
        || { echo "fsdp-tp-gpu: ours (weight_grads=$grads) failed: $(tail -n 1 "$OUT/ours-$grads.log")" >&2; failed=1; }
done
echo "== AORTA's counterpart" >&2
timeout 300 python3 scripts/bench/aorta_workloads.py fsdp_tp "$STREAMS" "$ITERATIONS" > "$OUT/aorta.log" 2>&1 \
    || { echo "fsdp-tp-gpu: AORTA's counterpart failed: $(tail -n 1 "$OUT/aorta.log")" >&2; failed=1; }
echo "== AORTA's counterpart under torch.profiler" >&2
timeout 300 python3 - "$STREAMS" > "$OUT/aorta-kernels.txt" 2>&1 <<'PY' || failed=1
import sys
import torch
sys.path.insert(0, "scripts/bench")
import aorta_workloads as a
streams = [torch.cuda.Stream() for _ in range(int(sys.argv[1]))]
it, _ = a.fsdp_tp(streams)
for _ in range(5):
    it()
torch.cuda.synchronize()
n = 5
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
    for _ in range(n):
        it()
    torch.cuda.synchronize()
rows = []
for e in prof.key_averages():
    t = getattr(e, "self_device_time_total", None)
    if t is None:
        t = e.self_cuda_time_total
    if t > 0:
        rows.append((t / n / 1e3, e.count // n, e.key))
rows.sort(reverse=True)
for ms, count, name in rows:
    print(f"KERNEL {ms:9.3f} {count:5d} {name}")
PY

# Our kernels from a run's Chrome trace: ms per iteration, launches per iteration, name; GEMM and align1 sums.
kernels() {
    python3 - "$1" "$ITERATIONS" <<'PY'
import collections, glob, json, sys
files = glob.glob(sys.argv[1] + "/*_trace.json")
if not files:
    print("SUMMARY - - - (no trace)")
    sys.exit()
events = json.load(open(files[0]))
events = events["traceEvents"] if isinstance(events, dict) else events
n = int(sys.argv[2])
total, count = collections.Counter(), collections.Counter()
for e in events:
    if e.get("ph") == "X" and e.get("cat") == "kernel":
        total[e["name"]] += e.get("dur", 0) / 1e3 / n
        count[e["name"]] += 1 / n
for name, ms in total.most_common():
    print(f"KERNEL {ms:9.3f} {count[name]:5.1f} {name}")
gemm = sum(ms for k, ms in total.items() if "gemm" in k.lower() or "xmma" in k.lower())
align1 = sum(ms for k, ms in total.items() if "align1" in k)
# Device idle time inside each iteration window (no kernel, copy or memset on any stream), and the pairs of
# activities (the last to end before a gap, the first after it) that the idle time falls between.
windows = collections.defaultdict(list)
for e in events:
    if e.get("ph") == "X":
        windows[e.get("args", {}).get("iteration_window", -1)].append(e)
span = busy = 0.0
gaps, gapCount = collections.Counter(), collections.Counter()
short = lambda name: name[:48]
for acts in windows.values():
    acts.sort(key=lambda e: e["ts"])
    start, end, last = acts[0]["ts"], acts[0]["ts"], None
    for e in acts:
        if e["ts"] > end and last is not None:
            gaps[(short(last["name"]), short(e["name"]))] += (e["ts"] - end) / 1e3 / len(windows)
            gapCount[(short(last["name"]), short(e["name"]))] += 1 / len(windows)
            busy += end - start
            start = e["ts"]
        if e["ts"] + e["dur"] >= end:
            end, last = e["ts"] + e["dur"], e
    busy += end - start
    span += end - acts[0]["ts"]
w = len(windows)
print(f"IDLE {span / 1e3 / w:.3f} ms per iteration window from first to last activity, device busy "
      f"{busy / 1e3 / w:.3f}, idle {(span - busy) / 1e3 / w:.3f} ({w} windows)")
for (a, b), ms in gaps.most_common(8):
    print(f"GAP {ms:7.3f} ms {gapCount[(a, b)]:5.1f}x  {a} -> {b}")
print(f"SUMMARY {sum(total.values()):.3f} {gemm:.3f} {align1:.3f}")
PY
}
kernels "$OUT/profile-true" > "$OUT/ours-true-kernels.txt"
kernels "$OUT/profile-false" > "$OUT/ours-false-kernels.txt"

. scripts/lib/run_result.sh
for f in "$OUT/ours-true-kernels.txt" "$OUT/ours-false-kernels.txt" "$OUT/aorta-kernels.txt"; do
    echo "===== top kernels, ms per iteration (launches per iteration): $(basename "$f" .txt)"
    grep '^KERNEL' "$f" | head -n 14 | cut -c8- | cut -c1-150
done
for grads in true false; do
    echo "===== ours weight_grads=$grads: device idle time per iteration, and between which activities it falls"
    grep -E '^(IDLE|GAP)' "$OUT/ours-$grads-kernels.txt" | cut -c1-150
done
theirs=$(awk '$1 == "fsdp_tp" {print $3}' "$OUT/aorta.log")
[ -n "$theirs" ] || theirs="-"
aorta_gemm=$(awk '/^KERNEL/ { if (tolower($0) ~ /gemm|xmma/) s += $2 } END { printf "%.3f", s }' "$OUT/aorta-kernels.txt")
aorta_all=$(awk '/^KERNEL/ { s += $2 } END { printf "%.3f", s }' "$OUT/aorta-kernels.txt")
echo "===== fsdp_tp, $STREAMS streams: samples/s; kernel device time per iteration (ms, summed over streams)"
iter_ms() { python3 -c "print('%.2f' % (8e3 / $1))" 2>/dev/null || echo "-"; } # batch_size 8, both sides
printf '%-26s %10s %6s %7s %8s %7s %7s %6s  %-26s %s\n' run samples/s ratio iter_ms kernels gemm align1 idle \
    per_stream_device_time check
for grads in true false; do
    r="$OUT/ours-$grads.json"
    ours=$(field "$r" "'%.4g' % r['throughput']")
    ratio=$(python3 -c "print('%.2f' % ($ours / $theirs))" 2>/dev/null || echo "-")
    check=$(field "$r" "'ok' if r['correctness']['checked'] and not r['correctness']['problem'] else 'FAILED: ' + str(r['correctness']['problem'])")
    busy=$(field "$r" "(lambda t: 'all %d > 0 (min %.3g ms)' % (len(t), min(t)) if len(t) == r['stream_count'] and min(t) > 0 else 'IDLE streams ' + str([i for i, v in enumerate(t) if v <= 0]))(r['per_stream_times_ms'])")
    case "$check$busy" in *FAILED*|*IDLE*|*-) failed=1 ;; esac
    read -r _ all gemm align1 <<< "$(grep '^SUMMARY' "$OUT/ours-$grads-kernels.txt")"
    idle=$(awk '/^IDLE/ {print $16}' "$OUT/ours-$grads-kernels.txt")
    printf '%-26s %10s %6s %7s %8s %7s %7s %6s  %-26s %s\n' "ours weight_grads=$grads" "$ours" "$ratio" \
        "$(iter_ms "$ours")" "${all:--}" "${gemm:--}" "${align1:--}" "${idle:--}" "$busy" "$check"
done
printf '%-26s %10s %6s %7s %8s %7s %7s %6s  %-26s %s\n' "AORTA (PyTorch)" "$theirs" "1.00" "$(iter_ms "$theirs")" \
    "$aorta_all" "$aorta_gemm" "$(awk '/^KERNEL/ && /align1/ { s += $2 } END { printf "%.3f", s }' "$OUT/aorta-kernels.txt")" \
    "-" "-" "-"
echo "iter_ms = 8 samples / throughput; kernels, gemm, align1: kernel device time per iteration summed over streams;"
echo "idle: ms per iteration window with no activity on any stream (ours, CUPTI)."
echo "GEMM FLOPs per iteration: ours weight_grads=true 335 GFLOP, weight_grads=false and AORTA 266 GFLOP (docs/workloads.md)."
exit $failed
