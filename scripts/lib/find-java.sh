# Sourced by ./build and dist/bin/aorta: sets AORTA_JAVA_HOME to a JDK or runtime of version >= 25.
# Order: $AORTA_JAVA_HOME, $JAVA_HOME, /usr/lib/jvm/*, /opt/java/*, the java on PATH.
aorta_java_major() {
  # Prints the feature version of the java in $1/bin (e.g. 25), or nothing.
  local release="$1/release" v
  if [ -f "$release" ]; then
    v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$release")
  elif [ -x "$1/bin/java" ]; then
    v=$("$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p')
  fi
  echo "$v"
}
aorta_find_java() {
  local need=${AORTA_MIN_JAVA:-25} c major
  local candidates=("${AORTA_JAVA_HOME:-}" "${JAVA_HOME:-}")
  for c in /usr/lib/jvm/* /opt/java/* /usr/local/lib/jvm/*; do candidates+=("$c"); done
  if command -v java >/dev/null 2>&1; then
    candidates+=("$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")")
  fi
  for c in "${candidates[@]}"; do
    [ -n "$c" ] && [ -x "$c/bin/java" ] || continue
    major=$(aorta_java_major "$c")
    if [ -n "$major" ] && [ "$major" -ge "$need" ]; then
      AORTA_JAVA_HOME="$c"; export AORTA_JAVA_HOME; return 0
    fi
  done
  echo "aorta: no Java $need or newer found (looked at \$AORTA_JAVA_HOME, \$JAVA_HOME, /usr/lib/jvm/*, /opt/java/*, PATH)." >&2
  echo "aorta: install a JDK $need (e.g. Temurin) or set AORTA_JAVA_HOME to one." >&2
  return 1
}
