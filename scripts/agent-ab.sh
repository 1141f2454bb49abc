#!/usr/bin/env bash
# A/B overhead of the aorta agent on a GPU: dev.aorta.examples.LaunchOverhead (a tiny kernel with
# parameters, launched from one thread round-robin over 1 and 16 streams) run alternately without and
# with the agent; prints the median host ns per launch of each arm and the agent's cost per launch.
#
# Run from the project root after `./build package -DskipTests` (on a GPU host without a JDK:
# `source .device/prelude.sh` first, see DESIGN.md §9).
# Env: REPS (default 5) LAUNCHES (20000 per round) ROUNDS (10) PARAMS (prebuilt|per-launch)
#      STREAMS ("1 16") ARMS ("off agent"; add agent-cupti for the agent with CUPTI device activity)
#      AGENT_ARGS (extra agent options, e.g. "record=launch") OUT (result directory)
#      KEEP=1 keeps each agent run's output (~100 MB of JSONL per run at the defaults)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${REPS:-5}; launches=${LAUNCHES:-20000}; rounds=${ROUNDS:-10}; params=${PARAMS:-prebuilt}
streams=${STREAMS:-"1 16"}; arms=${ARMS:-"off agent"}
out=${OUT:-$(mktemp -d -t aorta-ab.XXXXXX)}
[ -f dist/lib/aorta-agent.jar ] || { echo "agent-ab: dist/lib/aorta-agent.jar missing; run ./build package -DskipTests" >&2; exit 1; }
if [ -n "${AORTA_JAVA_HOME:-}" ]; then java="$AORTA_JAVA_HOME/bin/java"; else java=java; fi
cp=$(ls dist/lib/*.jar | grep -v '/aorta-agent.jar$' | paste -sd: -)
mkdir -p "$out"
results="$out/results.txt"; : > "$results"

run_arm() { # arm streams rep
  local arm=$1 s=$2 rep=$3 agent=()
  case $arm in
    off) ;;
    agent) agent=("-javaagent:dist/lib/aorta-agent.jar=output=$out/$arm-s$s-r$rep,device-activity=none${AGENT_ARGS:+,$AGENT_ARGS}") ;;
    agent-cupti) agent=("-javaagent:dist/lib/aorta-agent.jar=output=$out/$arm-s$s-r$rep,device-activity=cupti${AGENT_ARGS:+,$AGENT_ARGS}") ;;
    *) echo "agent-ab: unknown arm '$arm' in ARMS (expected off, agent, agent-cupti)" >&2; exit 2 ;;
  esac
  local line
  line=$("$java" --enable-native-access=ALL-UNNAMED "${agent[@]}" -cp "$cp" dev.aorta.examples.LaunchOverhead \
      "$s" "$launches" "$rounds" "$params" 2>>"$out/stderr.log" | grep '^streams=')
  echo "$line" | grep -q 'check=ok' || { echo "agent-ab: wrong result in arm $arm: $line" >&2; exit 1; }
  echo "$s $arm $(echo "$line" | sed 's/.*mean_ns_per_launch=\([0-9.]*\).*/\1/')" >> "$results"
  [ "${KEEP:-0}" = 1 ] || rm -rf "$out/$arm-s$s-r$rep"
  echo "rep $rep  $arm  $line"
}

for rep in $(seq "$reps"); do
  for s in $streams; do
    order=$arms
    # alternate the order each repetition, so that neither arm always runs first (warm caches, clocks)
    if [ $((rep % 2)) -eq 0 ]; then order=$(echo "$arms" | tr ' ' '\n' | tac | tr '\n' ' '); fi
    for arm in $order; do run_arm "$arm" "$s" "$rep"; done
  done
done

echo
echo "median host ns per launch ($reps alternating runs each; params=$params; results in $out)"
printf '%-8s %-12s %12s %14s %10s\n' streams arm ns/launch "delta ns" "delta %"
for s in $streams; do
  base=""
  for arm in $arms; do
    med=$(awk -v s="$s" -v a="$arm" '$1==s && $2==a {print $3}' "$results" | sort -g |
          awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}')
    if [ -z "$base" ]; then base=$med; printf '%-8s %-12s %12.1f %14s %10s\n' "$s" "$arm" "$med" - -
    else awk -v s="$s" -v a="$arm" -v m="$med" -v b="$base" 'BEGIN {printf "%-8s %-12s %12.1f %14.1f %9.1f%%\n", s, a, m, m-b, 100*(m-b)/b}'
    fi
  done
done
