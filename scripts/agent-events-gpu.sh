#!/usr/bin/env bash
# The sampled event pairs on one GPU (issue 16's events mode, with the stream gate), about 4 minutes, from a built
# dist/ (./build package -DskipTests); on a device host it sources .device/prelude.sh (the carried JRE):
#   1. A/B of tiny_kernel_stress on 16 streams without and with device-activity=events (RUNS pairs, aorta overhead
#      --threshold 0.10; bar: 95% CI high <= 1.10)
#   2. the same run with device-activity=validate: sampled kernels' durations against CUPTI's for the same launches
#      (bar: max |d| <= 1 us), and whether the agent gated the sampled streams (its log line)
#   3. scripts/agent-advice-cost.sh with ARMS="off agent agent-events" REPEATS=2: ns per launch, paired in process
# Logs under $OUT (default ./agent-events-gpu-out); last, one table (scripts/lib/agent_table.py).
#   scripts/agent-events-gpu.sh --summarize DIR   the table from the logs in DIR only (the tests run it on canned logs)
# Env: RUNS (A/B pairs, 5), SAMPLE_EVERY (100).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

summarize() {  # summarize DIR: the table, from the result files the steps below leave in DIR
  PYTHONPATH="$root/scripts/lib" python3 - "$1" <<'PY'
import sys
from agent_table import Table
t = Table(sys.argv[1])
t.ab("events_tiny", "events mode, tiny_kernel_stress 16 streams (A/B)", "95% CI high <= 1.10",
     lambda m: m["ci_high"] <= 1.10)
t.validate("validate.err", "sampled kernel durations vs CUPTI (same launches)")
t.gate(["validate.err"], "sampled streams gated (A, kernel, B back to back)")
t.advice_cost("advice_lines.txt", "paired in-process cost")
sys.exit(t.print())
PY
}

if [ "${1:-}" = "--summarize" ]; then
  [ -d "${2:-}" ] || { echo "agent-events-gpu: --summarize needs a directory of logs, got '${2:-}'" >&2; exit 2; }
  summarize "$2"; exit $?
fi

cd "$root"
[ -f .device/prelude.sh ] && [ -z "${JAVA_HOME:-}" ] && . .device/prelude.sh
aorta=$root/dist/bin/aorta
agent=dist/lib/aorta-agent.jar
[ -x "$aorta" ] && [ -f "$agent" ] || { echo "agent-events-gpu: dist/ missing; run ./build package -DskipTests" >&2; exit 2; }
command -v python3 >/dev/null || { echo "agent-events-gpu: python3 is needed for the table" >&2; exit 2; }
out=${OUT:-$root/agent-events-gpu-out}
mkdir -p "$out"
runs=${RUNS:-5}; every=${SAMPLE_EVERY:-100}
. scripts/lib/agent_events_steps.sh
step() { echo "== $1 $(date +%T)"; }
# each step is bounded, so that the whole stays near 4 minutes; a step cut short leaves its row FAIL ("no result")
bounded() { local seconds=$1; shift; timeout --kill-after=10 "$seconds" "$@" || echo "(step ended with $?)"; }
export -f agent_events_ab agent_events_validate
export root aorta agent

step "A/B events mode, tiny_kernel_stress on 16 streams ($runs pairs)"
bounded 130 bash -c 'agent_events_ab "$0" "$1" "$2"' "$out" "$runs" "$every"

step "sampled kernels against CUPTI (device-activity=validate)"
bounded 45 bash -c 'agent_events_validate "$0" "$1"' "$out" "$every"

step "paired in-process cost per launch: off, agent, agent-events"
ARMS="off agent agent-events" REPEATS=2 OUT="$out/advice" bounded 90 scripts/agent-advice-cost.sh > "$out/advice_cost.log" 2>&1
cp "$out/advice/lines.txt" "$out/advice_lines.txt" 2>/dev/null

echo
summarize "$out"
