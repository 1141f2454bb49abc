#!/usr/bin/env bash
# Writes .device/: a jlinked Java 25 for GPU hosts without a JDK, and the prelude that puts it on the path.
# Without java.desktop by default (28 MB instead of 40): with the build it must fit the device tool's 64 MiB transfer
# (scripts/device-dist.sh); AORTA_DEVICE_DESKTOP=1 adds it for `aorta report`'s PNG plots (AWT, headless) on the host.
# Run from the project root.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
shared=${AORTA_SHARED:-$root/../shared}
. "$root/scripts/lib/find-java.sh"
aorta_find_java
jdk=$AORTA_JAVA_HOME
[ -x "$jdk/bin/jlink" ] || { echo "pack-device: $jdk has no jlink; set AORTA_JAVA_HOME to a JDK 25" >&2; exit 1; }
mkdir -p "$root/.device" "$root/.git/info"
grep -qx '/.device/' "$root/.git/info/exclude" 2>/dev/null || echo '/.device/' >> "$root/.git/info/exclude"
tmp=$(mktemp -d)
modules=java.base,java.instrument,jdk.jfr,java.management,jdk.unsupported,java.logging,jdk.attach,jdk.management,jdk.management.jfr,java.xml,java.naming,java.sql,jdk.zipfs,jdk.crypto.ec
[ "${AORTA_DEVICE_DESKTOP:-0}" = 1 ] && modules=$modules,java.desktop
"$jdk/bin/jlink" --add-modules "$modules" \
  --strip-debug --no-header-files --no-man-pages --compress=zip-9 --output "$tmp/jre"
tar czf "$root/.device/jre25.tgz" -C "$tmp" jre
rm -rf "$tmp"
cp "$shared/device/prelude.sh" "$root/.device/prelude.sh"
du -sh "$root/.device"
