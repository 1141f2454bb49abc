#!/usr/bin/env bash
# Every single-GPU acceptance check in one go, for one device lease: the runtime (gpu-check), the harness
# (harness-check) and the agent (agent-gpu-acceptance, with CUPTI and per-launch parameters in the A/B).
# Logs of each under $OUT/<check>/, packed into $OUT/logs.tgz; the three tables printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
[ -f .device/prelude.sh ] && [ -z "${JAVA_HOME:-}" ] && . .device/prelude.sh
out=${OUT:-$PWD/all-gpu-checks-out}
work=$(mktemp -d)
OUT=$work/gpu scripts/gpu-check.sh > "$work/gpu.txt" 2>&1
OUT=$work/harness scripts/harness-check.sh > "$work/harness.txt" 2>&1
OUT=$work/agent ARMS="off agent agent-cupti" PARAMS=${PARAMS:-per-launch} scripts/agent-gpu-acceptance.sh > "$work/agent.txt" 2>&1
mkdir -p "$out"
tar czf "$out/logs.tgz" -C "$work" . 2>/dev/null
cp "$work"/*.txt "$out/"
echo "===== runtime (scripts/gpu-check.sh)"; sed -n '/^step /,$p' "$work/gpu.txt"
echo "===== harness (scripts/harness-check.sh)"; sed -n '/^CHECK /,$p' "$work/harness.txt"
echo "===== agent (scripts/agent-gpu-acceptance.sh)"; sed -n '/^check /,$p' "$work/agent.txt"
