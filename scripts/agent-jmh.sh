#!/usr/bin/env bash
# JMH benchmark of the agent's hot path (an intercepted JCuda-shaped cuLaunchKernel vs. the same call
# uninstrumented), with the GC profiler for bytes allocated per call. Not a test: it prints figures.
#
# Usage: scripts/agent-jmh.sh [extra JMH arguments]    e.g. scripts/agent-jmh.sh -f 2 -i 20
# Env:   AORTA_JMH_AGENT_ARGS  agent options for the forks (default: the full pipeline into a temp dir; the
#                              host clock is the agent's default, auto: add clock=nanotime to compare)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
./build -q -pl api,core,agent package dependency:build-classpath -DskipTests \
  -Dmdep.outputFile=target/test.classpath -Dmdep.includeScope=test
. scripts/lib/find-java.sh
aorta_find_java
jar=$(ls agent/target/aorta-agent-*-shaded.jar)
out=$(mktemp -d)
args=${AORTA_JMH_AGENT_ARGS:-output=$out,sinks=jsonl+metrics,device-activity=none,drain-interval-ms=20}
echo "agent: $jar"
echo "agent options in the forks: $args"
exec "$AORTA_JAVA_HOME/bin/java" -cp "agent/target/test-classes:$(cat agent/target/test.classpath)" \
  org.openjdk.jmh.Main 'dev.aorta.agent.(bench.HotPathBenchmark|recorder.RecordPathBenchmark)' -prof gc \
  -jvmArgsAppend "--enable-native-access=ALL-UNNAMED -javaagent:$jar=$args" "$@"
