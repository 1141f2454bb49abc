#!/usr/bin/env bash
# The agent's cost per launch on a GPU, paired inside one process (dev.aorta.examples.AdviceCost: rounds alternate
# between the woven JCudaDriver.cuLaunchKernel and the unwoven native method it wraps), for 1 and 16 streams, arms:
#   off             no agent: the control (both arms run the same code)
#   agent           the agent as shipped (its default clock), API records only
#   agent-undrained the same with a ring that holds the whole run and no drain until exit: without the cost of the
#                   drain thread reading the ring while the application writes it
#   agent-nanotime  the agent on clock=nanotime
#   agent-cupti     the agent with CUPTI (device-activity=cupti): CUPTI's hooks run on both paths, so the delta is
#                   what the agent costs beyond CUPTI's own cost
#   agent-events    the agent with sampled event pairs (device-activity=events, sample-every=100): the countdown every
#                   launch passes, plus each sampled launch's driver calls (context, capture status, gate, two event
#                   records) spread over the round
#   agent-between-off the agent outside capture windows with nothing recorded between them (capture=on-demand,
#                   between-windows=off, no window requested): what a launch costs while the agent waits for a window
#                   (the recording advice is taken out between windows, so both paths run JCuda's own code)
#   agent-between-gated the same with between-windows=gated: the advice stays woven and returns at the gate
#   agent-base      another build of the agent, the jar named by BASE_AGENT (e.g. the previous commit's), as shipped:
#                   compare it with `agent` in the same run, as processes differ by tens of ns
# Prints the AdviceCost lines, a table as it goes and, last, each arm's median delta over the REPEATS processes.
# Not a test. One process takes about 5 s; 4 arms x 2 stream counts x 3 repeats is about 2 minutes.
#
# Run from the project root after `./build package -DskipTests` (on a GPU host without a JDK:
# `source .device/prelude.sh` first). Env: STREAMS ("1 16") ARMS (off agent agent-undrained agent-nanotime
# agent-cupti, and agent-base when BASE_AGENT is set) REPEATS (1: processes per arm and stream count, the arms
# taking turns) PAIRS (400) LAUNCHES (500) BASE_AGENT (a jar) OUT (result directory)
set -euo pipefail
cd "$(dirname "$0")/.."
streams=${STREAMS:-"1 16"}; pairs=${PAIRS:-400}; launches=${LAUNCHES:-500}; repeats=${REPEATS:-1}
arms=${ARMS:-"off agent agent-undrained agent-nanotime agent-cupti${BASE_AGENT:+ agent-base}"}
out=${OUT:-$(mktemp -d -t aorta-advice.XXXXXX)}
mkdir -p "$out"
[ -f dist/lib/aorta-agent.jar ] || { echo "agent-advice-cost: dist/lib/aorta-agent.jar missing; run ./build package -DskipTests" >&2; exit 1; }
java=${AORTA_JAVA_HOME:+$AORTA_JAVA_HOME/bin/}java
cp=$(ls dist/lib/*.jar dist/examples/aorta-examples.jar | grep -v '/aorta-agent.jar$' | paste -sd: -)
printf '%-8s %-16s %12s %12s %10s %22s %9s\n' streams arm "woven ns" "bare ns" "delta ns" "95% CI ns" "delta %"
# delta = median over pairs of (woven - bare) ns per launch, with its distribution-free 95% interval
for r in $(seq "$repeats"); do
for s in $streams; do
  for arm in $arms; do
    agent=()
    options="output=$out/$arm-s$s"
    case $arm in
      off) ;;
      agent) agent=("-javaagent:dist/lib/aorta-agent.jar=$options,device-activity=none") ;;
      agent-undrained) agent=("-javaagent:dist/lib/aorta-agent.jar=$options,device-activity=none,buffer-records=1048576,drain-interval-ms=100000000") ;;
      agent-nanotime) agent=("-javaagent:dist/lib/aorta-agent.jar=$options,device-activity=none,clock=nanotime") ;;
      agent-cupti) agent=("-javaagent:dist/lib/aorta-agent.jar=$options,device-activity=cupti") ;;
      agent-events) agent=("-javaagent:dist/lib/aorta-agent.jar=$options,device-activity=events,sample-every=100") ;;
      agent-between-off) agent=("-javaagent:dist/lib/aorta-agent.jar=$options,device-activity=none,capture=on-demand,between-windows=off") ;;
      agent-between-gated) agent=("-javaagent:dist/lib/aorta-agent.jar=$options,device-activity=none,capture=on-demand,between-windows=gated") ;;
      agent-base)
        [ -f "${BASE_AGENT:-}" ] || { echo "agent-advice-cost: arm agent-base needs BASE_AGENT=<an agent jar>; got '${BASE_AGENT:-}'" >&2; exit 2; }
        agent=("-javaagent:$BASE_AGENT=$options,device-activity=none") ;;
      *) echo "agent-advice-cost: unknown arm '$arm' (off, agent, agent-undrained, agent-nanotime, agent-cupti, agent-events, agent-between-off, agent-between-gated, agent-base)" >&2; exit 2 ;;
    esac
    line=$("$java" --enable-native-access=ALL-UNNAMED ${agent[@]+"${agent[@]}"} -cp "$cp" dev.aorta.examples.AdviceCost \
        "$s" "$launches" "$pairs" 2>>"$out/stderr.log" | grep '^advice_cost')
    echo "$arm $line" >> "$out/lines.txt"
    rm -rf "${out:?}/$arm-s$s"
    echo "$line" | sed 's/.*woven_median_ns=\([0-9.]*\) bare_median_ns=\([0-9.]*\) delta_median_ns=\([-0-9.]*\) median_ci95_ns=\(\[[^]]*\]\).*delta_pct=\([-0-9.]*\).*/\1 \2 \3 \4 \5/' |
      { read -r w b d c p; printf '%-8s %-16s %12s %12s %10s %22s %8s%%\n' "$s" "$arm" "$w" "$b" "$d" "$c" "$p"; }
  done
done
done
echo "median over $repeats process(es) of each one's median delta, ns per launch:"
printf '%-8s %-16s %10s %s\n' streams arm delta "each process"
awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } k = f["streams"] " " $1
       d[k] = d[k] " " f["delta_median_ns"]; if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
     END { for (j = 1; j <= n; j++) { k = order[j]; m = split(substr(d[k], 2), v, " ")
             for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (v[b] + 0 < v[a] + 0) { t = v[a]; v[a] = v[b]; v[b] = t }
             med = m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
             split(k, ka, " "); printf "%-8s %-16s %10.1f %s\n", ka[1], ka[2], med, d[k] } }' "$out/lines.txt"
grep -o 'host clock: [^;]*' "$out/stderr.log" | sort | uniq -c
echo "lines in $out/lines.txt"
