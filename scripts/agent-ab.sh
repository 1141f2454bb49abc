#!/usr/bin/env bash
# A/B overhead of the aorta agent on a GPU: dev.aorta.examples.LaunchOverhead (a tiny kernel with
# parameters, launched from one thread round-robin over 1 and 16 streams) run alternately without and
# with the agent; prints the median host ns per launch of each arm and the agent's cost per launch.
#
# Run from the project root after `./build package -DskipTests` (on a GPU host without a JDK:
# `source .device/prelude.sh` first, see DESIGN.md §9).
# Env: REPS (default 5) LAUNCHES (500 per round: below the driver's queue depth, so that the host never waits
#      for the GPU and the figure is the host's launch cost) ROUNDS (400) PARAMS (prebuilt|per-launch)
#      STREAMS ("1 16") ARMS ("off agent"; add agent-cupti for the agent with CUPTI device activity, and cupti for
#      the program tracing itself with CUPTI, no agent: what CUPTI alone costs)
#      AGENT_ARGS (extra agent options, e.g. "record=launch") OUT (result directory)
#      PIN (CPU list for taskset, e.g. 2-5: every run on the same cores, which narrows the spread between runs)
#      KEEP=1 keeps each agent run's output (~100 MB of JSONL per run at the defaults)
# Each run prints its median and its best (fastest round) ns per launch; the table gives, per arm, the medians
# over the runs and the paired ratio arm/off (geometric mean over repetitions of the ratio of runs that ran
# back to back) with a 95% Student's t interval.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${REPS:-5}; launches=${LAUNCHES:-500}; rounds=${ROUNDS:-400}; params=${PARAMS:-prebuilt}
streams=${STREAMS:-"1 16"}; arms=${ARMS:-"off agent"}
out=${OUT:-$(mktemp -d -t aorta-ab.XXXXXX)}
[ -f dist/lib/aorta-agent.jar ] || { echo "agent-ab: dist/lib/aorta-agent.jar missing; run ./build package -DskipTests" >&2; exit 1; }
if [ -n "${AORTA_JAVA_HOME:-}" ]; then java="$AORTA_JAVA_HOME/bin/java"; else java=java; fi
cp=$(ls dist/lib/*.jar dist/examples/aorta-examples.jar | grep -v '/aorta-agent.jar$' | paste -sd: -)
pin=()
[ -n "${PIN:-}" ] && pin=(taskset -c "$PIN")
mkdir -p "$out"
results="$out/results.txt"; : > "$results"

run_arm() { # arm streams rep
  local arm=$1 s=$2 rep=$3 agent=() self=()
  case $arm in
    off) ;;
    cupti) self=(cupti) ;;
    agent) agent=("-javaagent:dist/lib/aorta-agent.jar=output=$out/$arm-s$s-r$rep,device-activity=none${AGENT_ARGS:+,$AGENT_ARGS}") ;;
    agent-cupti) agent=("-javaagent:dist/lib/aorta-agent.jar=output=$out/$arm-s$s-r$rep,device-activity=cupti${AGENT_ARGS:+,$AGENT_ARGS}") ;;
    *) echo "agent-ab: unknown arm '$arm' in ARMS (expected off, agent, agent-cupti, cupti)" >&2; exit 2 ;;
  esac
  local line
  line=$(${pin[@]+"${pin[@]}"} "$java" --enable-native-access=ALL-UNNAMED "${agent[@]}" -cp "$cp" \
      dev.aorta.examples.LaunchOverhead "$s" "$launches" "$rounds" "$params" ${self[@]+"${self[@]}"} 2>>"$out/stderr.log" | grep '^streams=')
  echo "$line" | grep -q 'check=ok' || { echo "agent-ab: wrong result in arm $arm: $line" >&2; exit 1; }
  echo "$s $arm $rep $(echo "$line" | sed 's/.*best_ns_per_launch=\([0-9.]*\) median_ns_per_launch=\([0-9.]*\).*/\2 \1/')" >> "$results"
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
echo "host ns per launch, $reps alternating runs per arm (params=$params${PIN:+, pinned to CPUs $PIN}; results in $out)"
python3 - "$results" "$streams" "$arms" <<'PY'
import math, statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
streams, arms = sys.argv[2].split(), sys.argv[3].split()
T95 = {1: 12.71, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
       12: 2.179, 15: 2.131, 20: 2.086, 30: 2.042}
def t95(df):
    return T95.get(df) or T95[max(k for k in T95 if k <= df)] if df < 30 else 1.96
def ratio(s, arm, col):  # paired: run rep of arm over run rep of the first arm
    base = {r[2]: float(r[col]) for r in rows if r[0] == s and r[1] == arms[0]}
    logs = [math.log(float(r[col]) / base[r[2]]) for r in rows if r[0] == s and r[1] == arm and r[2] in base]
    if len(logs) < 2:
        return "n/a"
    m, sd = statistics.mean(logs), statistics.stdev(logs)
    h = t95(len(logs) - 1) * sd / math.sqrt(len(logs))
    return "%.4f [%.4f, %.4f]" % (math.exp(m), math.exp(m - h), math.exp(m + h))
print("%-8s %-12s %10s %10s   %-28s %-28s" % ("streams", "arm", "median", "best", "median: arm/%s [95%% CI]" % arms[0],
                                             "best: arm/%s [95%% CI]" % arms[0]))
for s in streams:
    for arm in arms:
        mine = [r for r in rows if r[0] == s and r[1] == arm]
        if not mine:
            continue
        median = statistics.median(float(r[3]) for r in mine)
        best = statistics.median(float(r[4]) for r in mine)
        first = arm == arms[0]
        print("%-8s %-12s %10.1f %10.1f   %-28s %-28s" % (s, arm, median, best, "-" if first else ratio(s, arm, 3),
                                                         "-" if first else ratio(s, arm, 4)))
PY
