#!/usr/bin/env bash
# GPU acceptance of the hardware-queue harness (issue 3), in one go, from a built dist/:
#   ./build package -DskipTests && scripts/harness-check.sh
# On a device host: source .device/prelude.sh first (or let this script do it when .device/ exists).
# Writes every log and result to $OUT (default: ./harness-check-out) and prints a short table last.
# Needs python3 (reads the result JSON and makes the test-only slowed copy for the compare check).
# Runs in about 3-5 minutes on an H100.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ -f .device/prelude.sh ] && [ -z "${JAVA_HOME:-}" ] && . .device/prelude.sh
aorta=${AORTA_BIN:-$root/dist/bin/aorta}  # AORTA_BIN: check another build
[ -x "$aorta" ] || { echo "harness-check: $aorta not found; run ./build package -DskipTests first" >&2; exit 2; }
command -v python3 >/dev/null || { echo "harness-check: python3 is needed to read the results" >&2; exit 2; }
out=${OUT:-$root/harness-check-out}
mkdir -p "$out"
failures=0

step() {  # step NAME EXPECTED_RC command...: runs, logs to $out/NAME.log, records a failure on a wrong exit code
  local name=$1 want=$2; shift 2
  echo "== $name: $*"
  "$@" >"$out/$name.log" 2>&1
  local rc=$?
  tail -n 40 "$out/$name.log"
  if [ "$rc" != "$want" ]; then
    echo "!! $name exited $rc, expected $want"; failures=$((failures + 1))
  fi
}

# 1. tiny_kernel_stress, 16 streams: every kernel timed by CUPTI; then untraced iterations for the bare launch cost
step tiny16 0 "$aorta" run tiny_kernel_stress --streams 16 --sync-mode end_only -o "$out/tiny16.json"
step tiny16_launch 0 "$aorta" run tiny_kernel_stress --streams 16 --sync-mode end_only \
  --kernel-timing event-pairs -o "$out/tiny16_launch.json"
# 2. hetero_kernels, 8 streams: gaps, dispatch latency, convoy; with its Perfetto trace (4,400 kernels)
step hetero8 0 "$aorta" run hetero_kernels --streams 8 -o "$out/hetero8.json" --profile --profile-dir "$out"
# 3. large_gemm_only, 4 streams, fp32 and bf16, next to a plain cuBLAS loop in the same process
step gemm_fp32 0 "$aorta" run large_gemm_only --streams 4 --dtype fp32 --sync-mode end_only --baseline-loop \
  -o "$out/gemm_fp32.json"
step gemm_bf16 0 "$aorta" run large_gemm_only --streams 4 --dtype bf16 --sync-mode end_only --baseline-loop \
  -o "$out/gemm_bf16.json"
# 4. sweep with scaling analysis
step sweep 0 "$aorta" sweep tiny_kernel_stress --streams 1,2,4,8,16,32 --sync-mode end_only -o "$out/sweep.json"
# 5. compare: a real file against itself (no regression), and against a second real run whose every iteration
#    does twice the work (ops_per_stream 200 instead of 100), so its p99 latency about doubles
step tiny16_double 0 "$aorta" run tiny_kernel_stress --streams 16 --sync-mode end_only -p ops_per_stream=200 \
  -o "$out/tiny16_doubled.json"
if [ -f "$out/tiny16.json" ] && [ -f "$out/tiny16_doubled.json" ]; then
  step compare_same 0 "$aorta" compare --baseline "$out/tiny16.json" --test "$out/tiny16.json"
  step compare_doubled 1 "$aorta" compare --baseline "$out/tiny16.json" --test "$out/tiny16_doubled.json"
fi

echo
python3 - "$out" "$failures" <<'PY'
import json, os, sys
out, failures = sys.argv[1], int(sys.argv[2])
def load(name):
    p = os.path.join(out, name + ".json")
    return json.load(open(p)) if os.path.exists(p) else None
rows = []
def row(check, value, target, ok):
    rows.append((check, value, target, "ok" if ok else ("FAIL" if ok is False else "-")))
t = load("tiny16"); tl = load("tiny16_launch")
if t:
    busy = t["per_stream_times_ms"]; ks = t["streams"]
    consistent = all(b > 0 and abs(b - s["kernel_time_ms"]) <= 0.01 * s["kernel_time_ms"] + 1e-3 for b, s in zip(busy, ks))
    row("tiny16 timing source", t["timing_source"], "cupti", t["timing_source"] == "cupti")
    row("tiny16 per-stream busy ms (min/max)", "%.2f / %.2f" % (min(busy), max(busy)), "> 0, = kernel sums", consistent)
    row("tiny16 us/launch (CUPTI on)", "%.2f" % t["host_enqueue"]["us_per_launch"], "info", None)
    row("tiny16 kernels/s", "%.0f" % t["throughput"], "info", None)
if tl:
    v = tl["host_enqueue"]["us_per_launch"]
    row("tiny16 us/launch (untraced)", "%.2f" % v, "<= 4.2", v <= 4.2)
h = load("hetero8")
if h:
    sw = h["switch_latency"]; inter, intra = sw["inter_stream_gaps_us"], sw["intra_stream_gaps_us"]
    row("hetero8 inter gaps us (n)", "%.2f (%d)" % (inter["mean"], inter["count"]), "n > 0", inter["count"] > 0)
    row("hetero8 intra gaps us (n)", "%.2f (%d)" % (intra["mean"], intra["count"]), "n > 0", intra["count"] > 0)
    row("hetero8 est. switch overhead us", "%.2f" % sw["estimated_switch_overhead_us"], "info", None)
    d = h["dispatch_latency"]
    if d.get("available"):
        fmt = lambda s: "-" if not s else "%.2f (%d)" % (s["mean"], s["count"])
        row("hetero8 dispatch same/cross us", fmt(d["same_stream_us"]) + " / " + fmt(d["cross_stream_us"]), "available", True)
    else:
        row("hetero8 dispatch latency", "n/a", "available", False)
    c = h.get("convoy", {})
    if c.get("available") and c.get("wait_behind_blocking_us"):
        b = c["wait_behind_blocking_us"]; o = c.get("wait_otherwise_us") or {"mean": float("nan")}
        row("hetero8 small wait behind GEMM us", "%.1f vs %.1f otherwise" % (b["mean"], o["mean"]), "a number", True)
    else:
        row("hetero8 convoy", "n/a", "a number", False)
for dt in ("fp32", "bf16"):
    g = load("gemm_" + dt)
    if g:
        row("gemm4 %s TFLOP/s" % dt, "%.1f" % g["throughput"], "info", None)
        ratio = g["baseline_loop"]["ratio"]
        row("gemm4 %s / plain cuBLAS loop" % dt, "%.3f" % ratio, ">= 0.97", ratio >= 0.97)
s = load("sweep")
if s:
    a = s["analysis"]
    eff = " ".join("%d:%.2f" % (p["streams"], p["efficiency"]) for p in a["scaling"])
    row("sweep efficiency", eff, "info", None)
    row("sweep inflection / best streams", "%s / %s" % (a["inflection_streams"], a["best_streams"]), "info", None)
d2 = load("tiny16_doubled")
if t and d2:
    row("tiny16 p99 ms: baseline / double work", "%.2f / %.2f" % (t["latency_ms"]["p99"], d2["latency_ms"]["p99"]),
        "info", None)
for name, want in (("compare_same", "no regression"), ("compare_doubled", "REGRESSION")):
    p = os.path.join(out, name + ".log")
    if os.path.exists(p):
        last = open(p).read().strip().splitlines()[-1]
        row(name, last, want, last == want)
w = max(len(r[0]) for r in rows) if rows else 10
v = max(len(r[1]) for r in rows) if rows else 10
print("%-*s  %-*s  %-18s  %s" % (w, "CHECK", v, "VALUE", "TARGET", "STATUS"))
for r in rows:
    print("%-*s  %-*s  %-18s  %s" % (w, r[0], v, r[1], r[2], r[3]))
bad = sum(1 for r in rows if r[3] == "FAIL")
print("\n%d checks failed, %d commands failed; logs and results in %s" % (bad, failures, out))
sys.exit(1 if bad or failures else 0)
PY
