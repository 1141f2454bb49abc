#!/usr/bin/env bash
# Copies dist/ into .device-dist/ without the jars a GPU host's checks never load (sqlite-jdbc: Nsight/rocpd SQLite
# readers; jfreechart: report plots; the AOT cache; JCuda's unused nvPTXCompiler library), so that .device (the Java runtime) and the build fit the device tool's 64 MiB
# transfer together. On the GPU host: `rm -rf dist && mv .device-dist dist && . .device/prelude.sh && ...`.
# Run from the project root after ./build package -DskipTests (and scripts/pack-device.sh once).
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
[ -d dist/lib ] || { echo "device-dist: dist/lib missing; run ./build package -DskipTests first" >&2; exit 1; }
grep -qx '/.device-dist/' .git/info/exclude 2>/dev/null || echo '/.device-dist/' >> .git/info/exclude
rm -rf .device-dist
cp -r dist .device-dist
rm -f .device-dist/lib/sqlite-jdbc-*.jar .device-dist/lib/jfreechart-*.jar
# the AOT cache (22 MB) belongs to the JDK that built it; the host's jlinked runtime would not use it anyway
rm -f .device-dist/lib/aorta.aot
# JCuda's nvPTXCompiler binding (8 of the natives jar's 9.5 MB) is never loaded: kernels compile through NVRTC
for j in .device-dist/lib/jcuda-natives-*.jar; do
  [ -e "$j" ] && zip -q -d "$j" 'lib/libJNvPTXCompiler-*' >/dev/null || true
done
total=$(du -sb .device .device-dist 2>/dev/null | awk '{s += $1} END {print s}')
tree=$(git ls-files -z | xargs -0 du -cb | tail -1 | cut -f1)
echo "device-dist: .device + .device-dist + tracked files = $(( (total + tree) / 1048576 )) MiB of the 64 MiB limit"
