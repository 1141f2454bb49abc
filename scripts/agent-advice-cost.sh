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
# Prints the AdviceCost lines and a table. Not a test.
#
# Run from the project root after `./build package -DskipTests` (on a GPU host without a JDK:
# `source .device/prelude.sh` first). Env: STREAMS ("1 16") ARMS (all five) PAIRS (400) LAUNCHES (500) OUT (result
# directory)
set -euo pipefail
cd "$(dirname "$0")/.."
streams=${STREAMS:-"1 16"}; pairs=${PAIRS:-400}; launches=${LAUNCHES:-500}
out=${OUT:-$(mktemp -d -t aorta-advice.XXXXXX)}
mkdir -p "$out"
[ -f dist/lib/aorta-agent.jar ] || { echo "agent-advice-cost: dist/lib/aorta-agent.jar missing; run ./build package -DskipTests" >&2; exit 1; }
java=${AORTA_JAVA_HOME:+$AORTA_JAVA_HOME/bin/}java
cp=$(ls dist/lib/*.jar dist/examples/aorta-examples.jar | grep -v '/aorta-agent.jar$' | paste -sd: -)
printf '%-8s %-16s %12s %12s %10s %22s %9s\n' streams arm "woven ns" "bare ns" "delta ns" "95% CI ns" "delta %"
# delta = median over pairs of (woven - bare) ns per launch, with its distribution-free 95% interval
for s in $streams; do
  for arm in ${ARMS:-off agent agent-undrained agent-nanotime agent-cupti}; do
    agent=()
    options="output=$out/$arm-s$s"
    case $arm in
      off) ;;
      agent) agent=("-javaagent:dist/lib/aorta-agent.jar=$options,device-activity=none") ;;
      agent-undrained) agent=("-javaagent:dist/lib/aorta-agent.jar=$options,device-activity=none,buffer-records=1048576,drain-interval-ms=100000000") ;;
      agent-nanotime) agent=("-javaagent:dist/lib/aorta-agent.jar=$options,device-activity=none,clock=nanotime") ;;
      agent-cupti) agent=("-javaagent:dist/lib/aorta-agent.jar=$options,device-activity=cupti") ;;
      *) echo "agent-advice-cost: unknown arm '$arm' (off, agent, agent-undrained, agent-nanotime, agent-cupti)" >&2; exit 2 ;;
    esac
    line=$("$java" --enable-native-access=ALL-UNNAMED ${agent[@]+"${agent[@]}"} -cp "$cp" dev.aorta.examples.AdviceCost \
        "$s" "$launches" "$pairs" 2>>"$out/stderr.log" | grep '^advice_cost')
    echo "$line" >> "$out/lines.txt"
    rm -rf "${out:?}/$arm-s$s"
    echo "$line" | sed 's/.*woven_median_ns=\([0-9.]*\) bare_median_ns=\([0-9.]*\) delta_median_ns=\([-0-9.]*\) median_ci95_ns=\(\[[^]]*\]\).*delta_pct=\([-0-9.]*\).*/\1 \2 \3 \4 \5/' |
      { read -r w b d c p; printf '%-8s %-16s %12s %12s %10s %22s %8s%%\n' "$s" "$arm" "$w" "$b" "$d" "$c" "$p"; }
  done
done
grep -o 'host clock: [^;]*' "$out/stderr.log" | sort | uniq -c
echo "lines in $out/lines.txt"
