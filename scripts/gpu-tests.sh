#!/usr/bin/env bash
# Runs the GPU test classes (the ones that skip without a GPU) on a GPU host, from dist/lib and .device-tests
# (scripts/pack-gpu-tests.sh), one line per test and the counts last; exit 1 when one failed.
#   scripts/gpu-tests.sh [CLASS...]   (fully qualified; default: every class named *Gpu*Test in the carried jars)
# On a host without a JDK, source .device/prelude.sh first (its runtime is found by scripts/lib/find-java.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
[ -d .device-tests ] || { echo "gpu-tests: .device-tests missing; run scripts/pack-gpu-tests.sh where the build is" >&2; exit 2; }
classes=("$@")
[ ${#classes[@]} -gt 0 ] || classes=(--all)
. scripts/lib/find-java.sh
aorta_find_java || exit 2
exec "$AORTA_JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "dist/lib/*:.device-tests/*" dev.aorta.testing.GpuTestsMain \
  "${classes[@]}"
