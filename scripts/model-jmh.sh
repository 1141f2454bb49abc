#!/usr/bin/env bash
# JMH of the model's host path per launch, no GPU needed (docs/model.md, "Host cost per launch"): LaunchLookupBenchmark
# and LaunchPathBenchmark, the latter over a fake libcuda/libnvrtc built here from model/src/test/native/fakecuda.c
# (gcc). With -prof gc for the bytes per call.
# Usage: scripts/model-jmh.sh [JMH options, e.g. -wi 3 -i 5]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
./build -q -o -pl model -am test-compile dependency:build-classpath -Dmdep.outputFile=target/test.classpath \
  -Dmdep.includeScope=test
. scripts/lib/find-java.sh
aorta_find_java
fake=model/target/fake-cuda
mkdir -p "$fake/kernel-cache"
gcc -O2 -shared -fPIC -o "$fake/libcuda.so.1" model/src/test/native/fakecuda.c
export LD_LIBRARY_PATH="$here/$fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export AORTA_CUDA_DRIVER_LIBRARY="$here/$fake/libcuda.so.1" AORTA_NVRTC_LIBRARY="$here/$fake/libcuda.so.1"
export AORTA_KERNEL_CACHE="$here/$fake/kernel-cache"
exec "$AORTA_JAVA_HOME/bin/java" -cp "model/target/test-classes:model/target/classes:$(cat model/target/test.classpath)" \
  org.openjdk.jmh.Main 'dev.aorta.model.Launch(Lookup|Path)Benchmark' -prof gc \
  -jvmArgsAppend --enable-native-access=ALL-UNNAMED "$@"
