#!/usr/bin/env bash
# Like ../shared/device/pack.sh (a jlinked Java 25 in .device/ for GPU hosts without a JDK), plus the
# java.desktop module, which `aorta report` needs for its PNG plots (AWT, headless). Run from the project root.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
shared=${AORTA_SHARED:-$root/../shared}
. "$root/scripts/lib/find-java.sh"
aorta_find_java
jdk=$AORTA_JAVA_HOME
[ -x "$jdk/bin/jlink" ] || { echo "pack-device: $jdk has no jlink; set AORTA_JAVA_HOME to a JDK 25" >&2; exit 1; }
mkdir -p "$root/.device"
grep -qx '/.device/' "$root/.git/info/exclude" 2>/dev/null || echo '/.device/' >> "$root/.git/info/exclude"
tmp=$(mktemp -d)
"$jdk/bin/jlink" --add-modules java.base,java.instrument,jdk.jfr,java.management,jdk.unsupported,java.logging,jdk.attach,jdk.management,jdk.management.jfr,java.xml,java.naming,java.sql,jdk.zipfs,jdk.crypto.ec,java.desktop \
  --strip-debug --no-header-files --no-man-pages --compress=zip-9 --output "$tmp/jre"
tar czf "$root/.device/jre25.tgz" -C "$tmp" jre
rm -rf "$tmp"
cp "$shared/device/prelude.sh" "$root/.device/prelude.sh"
du -sh "$root/.device"
