# Sourced by ./build and dist/bin/aorta: sets AORTA_JAVA_HOME to a JDK or runtime of version >= 25.
# Order: $AORTA_JAVA_HOME, $JAVA_HOME, /usr/lib/jvm/*, /opt/java/*, the java on PATH.
aorta_java_major() {
  # Prints the feature version of the java in $1/bin (e.g. 25), or nothing.
  aorta_read_java_major "$1"
  echo "$aorta_major"
}
aorta_read_java_major() {
  # Sets aorta_major to the feature version of the java in $1/bin, or to nothing. The release file is read with
  # shell builtins and no subshell: dist/bin/aorta looks at every JDK before it, at each command (a sed per JDK
  # and the java on PATH resolved up front took 13 ms of each start on the dev VM, now 2 ms).
  local release="$1/release" line
  aorta_major=""
  if [ -f "$release" ]; then
    while IFS= read -r line || [ -n "$line" ]; do
      case $line in
        JAVA_VERSION=\"[0-9]*) aorta_major=${line#JAVA_VERSION=\"}; aorta_major=${aorta_major%%[!0-9]*}; return ;;
      esac
    done < "$release"
  elif [ -x "$1/bin/java" ]; then
    aorta_major=$("$1/bin/java" -XshowSettings:properties -version 2>&1 \
      | sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p')
  fi
}
aorta_find_java() {
  local need=${AORTA_MIN_JAVA:-25} c
  for c in "${AORTA_JAVA_HOME:-}" "${JAVA_HOME:-}" /usr/lib/jvm/* /opt/java/* /usr/local/lib/jvm/* @path; do
    if [ "$c" = @path ]; then
      # the java on PATH last, resolved only when no other one would do
      command -v java >/dev/null 2>&1 || continue
      c=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
    fi
    [ -n "$c" ] && [ -x "$c/bin/java" ] || continue
    aorta_read_java_major "$c"
    if [ -n "$aorta_major" ] && [ "$aorta_major" -ge "$need" ]; then
      AORTA_JAVA_HOME="$c"; export AORTA_JAVA_HOME; return 0
    fi
  done
  echo "aorta: no Java $need or newer found (looked at \$AORTA_JAVA_HOME, \$JAVA_HOME, /usr/lib/jvm/*, /opt/java/*, PATH)." >&2
  echo "aorta: install a JDK $need (e.g. Temurin) or set AORTA_JAVA_HOME to one." >&2
  return 1
}
