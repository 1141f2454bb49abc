#!/usr/bin/env bash
# Writes .device-tests/: the test classes of the gpu, model, workloads and cli modules as jars, and the test-only
# libraries they need that dist/lib lacks (JUnit, AssertJ, test-support), so that scripts/gpu-tests.sh runs them on
# a GPU host without Maven. Carry .device-tests beside .device and the dist (a few MiB).
# Run from the project root after `./build package -DskipTests` (test classes compiled: `./build -o test-compile`
# is enough when they are not).
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
. scripts/lib/find-java.sh
aorta_find_java
[ -d dist/lib ] || { echo "pack-gpu-tests: dist/lib missing; run ./build package -DskipTests first" >&2; exit 1; }
grep -qx '/.device-tests/' .git/info/exclude 2>/dev/null || echo '/.device-tests/' >> .git/info/exclude
rm -rf .device-tests
mkdir -p .device-tests
for m in gpu model workloads cli; do
  [ -d "$m/target/test-classes" ] || { echo "pack-gpu-tests: $m/target/test-classes missing; run ./build -o test-compile" >&2; exit 1; }
  "$AORTA_JAVA_HOME/bin/jar" cf ".device-tests/$m-tests.jar" -C "$m/target/test-classes" .
done
deps=$(mktemp -d)
./build -q -o -pl workloads -am package -DskipTests dependency:copy-dependencies -DincludeScope=test \
  -DoutputDirectory="$deps" > "$deps.log" 2>&1 || { echo "pack-gpu-tests: the build failed; see $deps.log" >&2; exit 1; }
for j in "$deps"/*.jar; do
  name=$(basename "$j")
  case $name in
    # JMH and its parts run benchmarks, not tests; AssertJ needs Byte Buddy only for soft assertions and proxies,
    # which the GPU tests do not use (8.7 MB the device transfer cannot spare)
    jmh-*|jopt-simple-*|commons-math3-*|byte-buddy-*) continue ;;
  esac
  [ -e "dist/lib/$name" ] || cp "$j" .device-tests/
done
rm -rf "$deps"
du -sh .device-tests
