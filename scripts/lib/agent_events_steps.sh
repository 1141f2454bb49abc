# The sampled event pairs' GPU steps, shared by scripts/agent-acceptance-16.sh and scripts/agent-events-gpu.sh.
# Source it after setting: root (the project root), aorta (dist/bin/aorta), agent (dist/lib/aorta-agent.jar,
# relative to root). Each step leaves its result in the directory given, under the names scripts/lib/agent_table.py
# reads.

# agent_events_ab OUT RUNS EVERY: A/B of tiny_kernel_stress on 16 streams without and with device-activity=events
# -> OUT/events_tiny.json (aorta overhead, threshold 10 %), logs OUT/events_tiny.log and OUT/events_tiny/
agent_events_ab() {
  local out=$1 runs=$2 every=$3
  "$aorta" overhead --agent "device-activity=events,sample-every=$every,output=$out/agent-events" --runs "$runs" \
    --threshold 0.10 --json "$out/events_tiny.json" --logs "$out/events_tiny" \
    -- run tiny_kernel_stress -s 16 --kernel-timing event-pairs -i 300 -w 50 > "$out/events_tiny.log" 2>&1
  rm -rf "$out/agent-events"
}

# agent_events_validate OUT EVERY: the same run with CUPTI and event pairs on the same launches
# (device-activity=validate) -> the agent's comparison line in OUT/validate.err
agent_events_validate() {
  local out=$1 every=$2
  AORTA_JAVA_OPTS="-javaagent:$root/$agent=device-activity=validate,sample-every=$every,output=$out/validate" \
    "$aorta" run tiny_kernel_stress -s 16 --kernel-timing event-pairs -i 300 -w 50 -o "$out/validate.json" \
    > "$out/validate.log" 2> "$out/validate.err"
  grep -h 'validate:\|sampled event pairs on device' "$out/validate.err"
}
