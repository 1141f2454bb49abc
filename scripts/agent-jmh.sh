#!/usr/bin/env bash
# JMH benchmark of the agent's hot path (an intercepted JCuda-shaped cuLaunchKernel vs. the same call
# uninstrumented, the host clock's two reads, the full record path into a ring that never fills, and the sampled
# event pairs' per-stream countdown that every launch passes, and a sampled launch's own work while a drain thread
# polls: EventPairSamplerBenchmark), then of
# the drain thread's cost per record (ring -> decoder -> JSONL, DrainBenchmark: in its own JVM without
# -javaagent, as it drives the agent's unshaded classes), with the GC profiler for bytes allocated per call and
# per record. Not a test: it prints figures.
#
# Usage: scripts/agent-jmh.sh [extra JMH arguments]    e.g. scripts/agent-jmh.sh -f 2 -i 20
# Env:   AORTA_JMH_AGENT_ARGS  agent options for the forks (default: the full pipeline into a temp dir; the
#                              host clock is the agent's default, auto: add clock=nanotime to compare)
#        JMH_DIR               a prebuilt bundle (test-classes/ and lib/ with jmh-core, jopt-simple,
#                              commons-math3, aorta-api, aorta-core, jackson-core), agent-classes/ and
#                              dist/lib/aorta-agent.jar, for a host without
#                              Maven; made by: scripts/agent-jmh.sh --bundle DIR
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
bench='dev.aorta.agent.(bench.HotPathBenchmark|recorder.RecordPathBenchmark|device.StreamCountdownsBenchmark|device.EventPairSamplerBenchmark)'
if [ -n "${JMH_DIR:-}" ]; then
  java=${JAVA_HOME:+$JAVA_HOME/bin/}java
  jar=dist/lib/aorta-agent.jar
  cp="$JMH_DIR/test-classes:$JMH_DIR/lib/*"
  drain_cp="$JMH_DIR/test-classes:$JMH_DIR/agent-classes:$JMH_DIR/lib/*"
else
  ./build -q -o -pl agent -am package dependency:build-classpath -DskipTests \
    -Dmdep.outputFile=target/test.classpath -Dmdep.includeScope=test
  . scripts/lib/find-java.sh
  aorta_find_java
  java=$AORTA_JAVA_HOME/bin/java
  jar=$(ls agent/target/aorta-agent-*-shaded.jar)
  cp="agent/target/test-classes:$(cat agent/target/test.classpath)"
  drain_cp="agent/target/test-classes:agent/target/classes:$(cat agent/target/test.classpath)"
  if [ "${1:-}" = --bundle ]; then
    dir=${2:?--bundle needs a directory}
    rm -rf "$dir" && mkdir -p "$dir/lib" && cp -r agent/target/test-classes "$dir/"
    cp -r agent/target/classes "$dir/agent-classes"
    tr ':' '\n' < agent/target/test.classpath |
      grep -E '/(jmh-core|jopt-simple|commons-math3|aorta-api|aorta-core|jackson-core)[^/]*\.jar$' |
      xargs -I{} cp {} "$dir/lib/"
    echo "JMH bundle in $dir (use with JMH_DIR=$dir and dist/lib/aorta-agent.jar)"
    exit 0
  fi
fi
out=$(mktemp -d)
args=${AORTA_JMH_AGENT_ARGS:-output=$out,sinks=jsonl+metrics,device-activity=none,drain-interval-ms=20}
echo "agent: $jar"
echo "agent options in the forks: $args"
"$java" -cp "$cp" org.openjdk.jmh.Main "$bench" -prof gc \
  -jvmArgsAppend "--enable-native-access=ALL-UNNAMED -javaagent:$jar=$args" "$@"
echo "drain per record (no -javaagent: the benchmark drives the pipeline's classes itself)"
exec "$java" -cp "$drain_cp" org.openjdk.jmh.Main 'dev.aorta.agent.pipeline.DrainBenchmark' -prof gc \
  -jvmArgsAppend "--enable-native-access=ALL-UNNAMED" "$@"
