#!/usr/bin/env bash
# GPU-host check of scripts/launch_cuda.sh with a real aorta (no JDK needed, only DIST's bin/aorta and a JRE):
#   scripts/launch-cuda-gpu.sh DIST OUT
# 1. NPROC=1, 12 steps of a 2-layer model: exit 0 and 12 complete lines in OUT/one/rank_00_metrics.jsonl.
# 2. The same for 400 steps, SIGTERM to the launcher after 5 lines are written: every rank stops after its current
#    step, all gone within 10 s, every line of the file complete.
# 3. NPROC=2 (needs 2 GPUs; with one, aorta launch refuses first and says so): refused naming the rank.
# Prints "launch-cuda-gpu: PASS" or the first failure.
set -uo pipefail
dist=${1:?usage: scripts/launch-cuda-gpu.sh DIST OUT}
out=${2:?usage: scripts/launch-cuda-gpu.sh DIST OUT}
here=$(cd "$(dirname "$0")" && pwd)
export AORTA_BIN="$dist/bin/aorta"
small=(model.num_layers=2 training.log_interval=4)
fail() { echo "launch-cuda-gpu: FAIL: $*"; exit 1; }
complete_lines() { python3 -c 'import json,sys; t=open(sys.argv[1]).read(); assert t.endswith("\n"); [json.loads(l) for l in t.splitlines()]; print(len(t.splitlines()))' "$1"; }
mkdir -p "$out"

NPROC=1 "$here/launch_cuda.sh" training.max_steps=12 training.output_dir="$out/one" "${small[@]}" >"$out/one.log" 2>&1 \
  || fail "NPROC=1 run exited $? (see $out/one.log)"
n=$(complete_lines "$out/one/rank_00_metrics.jsonl") || fail "$out/one/rank_00_metrics.jsonl has an incomplete line"
[ "$n" = 12 ] || fail "expected 12 lines, got $n"
echo "launch-cuda-gpu: NPROC=1: 12 steps, 12 complete lines"

NPROC=1 "$here/launch_cuda.sh" training.max_steps=400 training.output_dir="$out/term" "${small[@]}" >"$out/term.log" 2>&1 &
pid=$!
for _ in $(seq 600); do
  [ -f "$out/term/rank_00_metrics.jsonl" ] && [ "$(wc -l <"$out/term/rank_00_metrics.jsonl")" -ge 5 ] && break
  sleep 0.1
done
t0=$(date +%s.%N)
kill -TERM "$pid"
wait "$pid"; rc=$?
t1=$(date +%s.%N)
secs=$(python3 -c "print(round($t1 - $t0, 2))")
n=$(complete_lines "$out/term/rank_00_metrics.jsonl") || fail "after SIGTERM the metrics file has an incomplete line"
pgrep -f "training.output_dir=$out/term" >/dev/null && fail "a rank is still running after SIGTERM"
python3 -c "import sys; sys.exit(0 if $secs < 10 else 1)" || fail "stopping took ${secs} s"
echo "launch-cuda-gpu: SIGTERM: launcher exit $rc after ${secs} s, $n complete lines, stopped early: $([ "$n" -lt 400 ] && echo yes || echo no)"
[ "$n" -lt 400 ] || fail "the run was not stopped"

NPROC=2 "$here/launch_cuda.sh" training.max_steps=2 training.output_dir="$out/two" >"$out/two.log" 2>&1 \
  && fail "NPROC=2 was not refused"
grep -q "rank [01] of 2 (aorta launch): aorta train runs on one GPU only" "$out/two.log" \
  || grep -q "nproc-per-node" "$out/two.log" || fail "NPROC=2 refused without naming the rank (see $out/two.log)"
echo "launch-cuda-gpu: NPROC=2: $(grep -m1 -o 'rank [01] of 2[^;]*' "$out/two.log" || grep -m1 'nproc' "$out/two.log")"
echo "launch-cuda-gpu: PASS"
