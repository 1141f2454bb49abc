#!/usr/bin/env bash
# The agent's CUPTI record path (correlation join + JSONL writer, on the drain thread) at the load of
# launch-overhead on an H100: 130 000 launches/s from one thread, CUPTI delivering in 2 MiB-sized batches.
# Prints the wall time per simulated second, records/s sustained and the exit drain. Not a test.
#
# Usage: scripts/agent-join-bench.sh [SECONDS [PREFILL_MB [BATCH]]]   e.g. scripts/agent-join-bench.sh 3 500
#        PREFILL_MB > 0 first leaves an existing output file of that size where the agent writes.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
./build -q -pl api,core,agent test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/test.classpath -Dmdep.includeScope=test
. scripts/lib/find-java.sh
aorta_find_java
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$AORTA_JAVA_HOME/bin/java" -Xmx2g \
  -cp "agent/target/test-classes:agent/target/classes:$(cat agent/target/test.classpath)" \
  dev.aorta.agent.pipeline.CuptiJoinBench "$out/rank_0_activity.jsonl" "${1:-3}" "${2:-0}" "${3:-10000}"
