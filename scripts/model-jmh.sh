#!/usr/bin/env bash
# JMH of the model's host path per launch (no GPU needed): LaunchLookupBenchmark, with -prof gc for bytes per call.
# Usage: scripts/model-jmh.sh [JMH options, e.g. -f 1 -wi 3 -i 3]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
./build -q -o -pl model -am test-compile dependency:build-classpath -Dmdep.outputFile=target/test.classpath \
  -Dmdep.includeScope=test
. scripts/lib/find-java.sh
aorta_find_java
exec "$AORTA_JAVA_HOME/bin/java" -cp "model/target/test-classes:model/target/classes:$(cat model/target/test.classpath)" \
  org.openjdk.jmh.Main 'dev.aorta.model.LaunchLookupBenchmark' -prof gc "$@"
