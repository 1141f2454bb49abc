#!/usr/bin/env bash
# The agent's GPU acceptance in one go (issue 4): the JCuda example with and without the agent (same
# RESULT, records and JFR written), attach by pid, and the A/B launch overhead; prints a table last.
# Run from the project root after `./build package -DskipTests`; on a host without a JDK first
# `source .device/prelude.sh` (DESIGN.md §9). Env: ITER (example iterations, 20), REPS (A/B, 5).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$(mktemp -d -t aorta-accept.XXXXXX)}
mkdir -p "$out"
if [ -n "${AORTA_JAVA_HOME:-}" ]; then java="$AORTA_JAVA_HOME/bin/java"; else java=java; fi
cp=$(ls dist/lib/*.jar dist/examples/aorta-examples.jar | grep -v '/aorta-agent.jar$' | paste -sd: -)
iter=${ITER:-20}
declare -a rows

row() { rows+=("$(printf '%-56s %-6s %s' "$1" "$2" "$3")"); }
result() { grep '^RESULT' "$1" | head -1; }

"$java" --enable-native-access=ALL-UNNAMED -cp "$cp" dev.aorta.examples.GpuStreamsExample "$iter" > "$out/plain.out" 2> "$out/plain.err"
row "example without agent" "$([ $? -eq 0 ] && grep -q '^RESULT ok' "$out/plain.out" && echo PASS || echo FAIL)" "$(result "$out/plain.out")"

"$java" --enable-native-access=ALL-UNNAMED \
  -javaagent:dist/lib/aorta-agent.jar=output="$out/agent",jfr="$out/agent/agent.jfr" \
  -cp "$cp" dev.aorta.examples.GpuStreamsExample "$iter" > "$out/agent.out" 2> "$out/agent.err"
rc=$?
same=$([ "$(result "$out/plain.out")" = "$(result "$out/agent.out")" ] && echo yes || echo no)
row "example with agent: exit 0, same RESULT" "$([ $rc -eq 0 ] && [ "$same" = yes ] && grep -q '^RESULT ok' "$out/agent.out" && echo PASS || echo FAIL)" "same=$same"
a="$out/agent/rank_0_activity.jsonl"
launches=$(grep -c '"name":"cuLaunchKernel"' "$a" 2>/dev/null || echo 0)
graphs=$(grep -c '"name":"cuGraphLaunch"' "$a" 2>/dev/null || echo 0)
deps=$(grep -c '"type":"dependency"' "$a" 2>/dev/null || echo 0)
acts=$(grep -c '"type":"activity"' "$a" 2>/dev/null || echo 0)
iters=0; [ -f "$out/agent/rank_0_metrics.jsonl" ] && iters=$(wc -l < "$out/agent/rank_0_metrics.jsonl")
row "api records: launches (expect $((3 * iter + 1)))" "$([ "$launches" -eq $((3 * iter + 1)) ] && echo PASS || echo FAIL)" "$launches"
row "graph launches / dependencies (expect $iter each)" "$([ "$graphs" -eq "$iter" ] && [ "$deps" -ge "$iter" ] && echo PASS || echo FAIL)" "$graphs / $deps"
row "metrics lines (expect $iter)" "$([ "$iters" -eq "$iter" ] && echo PASS || echo FAIL)" "$iters"
row "device activity records (source in detail)" "INFO" "$acts; $(grep -o 'device activity: [^(]*' "$out/agent.err" | head -1)"
row "JFR file written" "$([ -s "$out/agent/agent.jfr" ] && echo PASS || echo FAIL)" "$(du -h "$out/agent/agent.jfr" 2>/dev/null | cut -f1)"

"$java" --enable-native-access=ALL-UNNAMED -cp "$cp" dev.aorta.examples.GpuStreamsExample "$iter" 8 > "$out/attach.out" 2> "$out/attach.err" &
pid=$!
sleep 3
dist/bin/aorta attach "$pid" -o output="$out/attached" > "$out/attach-cli.out" 2>&1
arc=$?
wait "$pid"; prc=$?
al=$(grep -c '"name":"cuLaunchKernel"' "$out/attached/rank_0_activity.jsonl" 2>/dev/null || echo 0)
row "aorta attach <pid>: launches recorded after attach" "$([ $arc -eq 0 ] && [ $prc -eq 0 ] && [ "$al" -eq $((3 * iter + 1)) ] && echo PASS || echo FAIL)" "$al"

REPS=${REPS:-5} OUT="$out/ab" scripts/agent-ab.sh > "$out/ab.txt" 2>&1
abrc=$?

echo "results in $out"
printf '%-56s %-6s %s\n' check status detail
printf '%s\n' "${rows[@]}"
echo
echo "A/B launch overhead (scripts/agent-ab.sh, exit $abrc):"
sed -n '/^host ns per launch/,$p' "$out/ab.txt"
