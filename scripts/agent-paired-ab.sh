#!/usr/bin/env bash
# The agent's cost on the trainer's step, paired inside one run: the agent records in windows of ACTIVE steps
# separated by WAIT steps in which it records nothing (between-windows=gated), and every cycle's mean step time with the
# agent recording is divided by the same cycle's without. Between processes the trainer's median step moves 3.2-4.5 ms
# on an H100 (issue 16), far more than the 1 % to be decided; adjacent blocks of one process share the JIT, the
# clocks and the heap, so the ratio's spread is that of the steps alone.
#   ./build package -DskipTests && scripts/agent-paired-ab.sh [STEPS]      (default 1200 steps, 2 modes)
# WORKLOAD="tiny_kernel_stress -s 16 --kernel-timing event-pairs" runs `aorta run WORKLOAD -i STEPS -w 20` instead of
# the trainer: the harness marks every iteration it runs for the agent, so the same windows alternate over them.
# Env: OUT (./agent-paired-out), WAIT (10), ACTIVE (10), MODES ("api events"), SAMPLE_EVERY (events mode, 100),
# BETWEEN (gated: the advice stays woven between windows and returns at the gate, about 5-10 ns a call, so "without"
# carries that; off: the advice is taken out between windows and woven in again for each, 200 a run, which puts the
# weave and the JIT's recompilation into the cycles: on an H100 the median ratio read 1.0224 against gated's 1.0056,
# and the mean step 0.81, the weave's time falling in the step before each window).
# One line per mode last: cycles, the mean over the cycles of (median step with recording / median step without) with
# its 95 % interval (t over the cycles; the first cycle, warm-up, and an unfinished last one left out), and the same
# for the mean steps. Medians, as the A/B rows compare median steps: the trainer collects its device records every 10
# steps (a step of 20-70 ms), which the median of a block leaves out and the mean does not.
# The trainer marks its steps (Aorta.step), which drive the agent's schedule; the window's own open and close fall in
# the cycle they belong to; a step is "with" when it began inside a window (the agent's CAPTURE markers) and its time
# runs from its start to the next step's start (ITERATION markers, which the agent records in and out of windows).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ -f .device/prelude.sh ] && [ -z "${JAVA_HOME:-}" ] && . .device/prelude.sh
[ -x dist/bin/aorta ] && [ -f dist/lib/aorta-agent.jar ] || { echo "agent-paired-ab: dist/ missing; run ./build package -DskipTests" >&2; exit 2; }
command -v python3 >/dev/null || { echo "agent-paired-ab: python3 is needed for the table" >&2; exit 2; }
steps=${1:-1200}; wait=${WAIT:-10}; active=${ACTIVE:-10}; out=${OUT:-$root/agent-paired-out}
mkdir -p "$out"
for mode in ${MODES:-api events}; do
  case $mode in
    api) device=device-activity=none ;;
    events) device="device-activity=events,sample-every=${SAMPLE_EVERY:-100}" ;;
    *) echo "agent-paired-ab: MODES has '$mode'; expected api or events" >&2; exit 2 ;;
  esac
  run=$out/paired-$mode
  rm -rf "$run"
  if [ -n "${WORKLOAD:-}" ]; then
    # shellcheck disable=SC2086  # WORKLOAD is a workload name and its options
    command=(run $WORKLOAD -i "$steps" -w 20 -o "$run/result.json")
  else
    command=(train --config config/default.yaml --override "training.max_steps=$steps" "training.output_dir=$run/train")
  fi
  AORTA_JAVA_OPTS="${AORTA_JAVA_OPTS:-} -javaagent:$root/dist/lib/aorta-agent.jar=$device,wait=$wait,active=$active,repeat=0,between-windows=${BETWEEN:-gated},output=$run/agent" \
    dist/bin/aorta "${command[@]}" > "$run.log" 2>&1 \
    || { echo "agent-paired-ab: aorta ${command[0]} failed ($mode); see $run.log" >&2; tail -5 "$run.log" >&2; exit 1; }
  python3 - "$run/agent/rank_0_activity.jsonl" "$mode" <<'PY'
import json, math, sys
starts, windows = [], []
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("type") == "marker" and r.get("kind") == "ITERATION":
        starts.append(r["start"])
    elif r.get("type") == "marker" and r.get("kind") == "CAPTURE":
        windows.append((r["start"], r["end"]))
starts.sort()
steps = []  # (with the agent recording?, step ns)
for a, b in zip(starts, starts[1:]):
    steps.append((any(w0 <= a < w1 for w0, w1 in windows), b - a))
cycles, off, on = [], [], []
for recording, ns in steps:
    if not recording and on:          # a new cycle begins: close the last one
        cycles.append((off, on))
        off, on = [], []
    (on if recording else off).append(ns)
cycles = cycles[1:]                   # the first cycle runs while the JIT and the caches warm up
def median(v):
    v = sorted(v)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2
def interval(ratios):
    n = len(ratios)
    mean = sum(ratios) / n
    sd = math.sqrt(sum((r - mean) ** 2 for r in ratios) / (n - 1))
    v = n - 1                          # Student's t at 97.5 %, Cornish-Fisher (within 0.002 of the table for v >= 4)
    z = 1.959964
    t = z + (z ** 3 + z) / (4 * v) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * v ** 2) \
        + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * v ** 3)
    return mean, mean - t * sd / math.sqrt(n), mean + t * sd / math.sqrt(n)
n = len(cycles)
if n < 3:
    print("%-6s only %d cycles with and without recording (%d steps, %d windows): too few to decide" % (sys.argv[2], n, len(steps), len(windows)))
    sys.exit(0)
med = interval([median(on) / median(off) for off, on in cycles])
avg = interval([(sum(on) / len(on)) / (sum(off) / len(off)) for off, on in cycles])
print("%-6s cycles %d: median step with/without %.4f [%.4f, %.4f] (%.3f vs %.3f ms); mean step %.4f [%.4f, %.4f]" % (
      sys.argv[2], n, med[0], med[1], med[2], sum(median(on) for off, on in cycles) / n / 1e6,
      sum(median(off) for off, on in cycles) / n / 1e6, avg[0], avg[1], avg[2]))
PY
done
