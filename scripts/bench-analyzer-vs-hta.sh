#!/usr/bin/env bash
# aorta analyze against HTA (Holistic Trace Analysis, from source) on the same Kineto traces, side by side in one run:
# whole-process wall time and peak resident memory of each, on 2 CPUs (taskset), the table last.
#   HTA: TraceAnalysis(trace_dir) load + get_temporal_breakdown + get_comm_comp_overlap + get_idle_time_breakdown
#   aorta: aorta analyze TRACE (steps, overlap, idle time breakdown and every other section)
# Needs: python3 with pandas, numpy, plotly, networkx, psutil and pyyaml (what HTA imports), a clone of
# https://github.com/facebookresearch/HolisticTraceAnalysis (HTA_SRC), dist/ and a Java 25 runtime (AORTA_JAVA_HOME
# or on PATH), GNU time (/usr/bin/time) and taskset. Large inputs: scripts/make-large-kineto.py SOURCE OUT SIZE_MB.
# Usage: HTA_SRC=/path/to/HolisticTraceAnalysis scripts/bench-analyzer-vs-hta.sh TRACE.json[.gz]...
#   env: AORTA=dist/bin/aorta  CPUS=0,1  REPEAT=3 (best wall time of N runs; peak memory is the largest)  PYTHON=python3
#        AORTA_HEAP (e.g. 256m: runs aorta with -Xmx of that size)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
aorta=${AORTA:-$root/dist/bin/aorta}
cpus=${CPUS:-0,1}
repeat=${REPEAT:-3}
python=${PYTHON:-python3}
[ $# -gt 0 ] || { echo "usage: HTA_SRC=DIR $0 TRACE.json[.gz]..." >&2; exit 2; }
[ -n "${HTA_SRC:-}" ] && [ -f "$HTA_SRC/hta/trace_analysis.py" ] || {
  echo "bench-analyzer-vs-hta: HTA_SRC must name a clone of github.com/facebookresearch/HolisticTraceAnalysis" \
       "(hta/trace_analysis.py not found under '${HTA_SRC:-}')" >&2; exit 2; }
[ -x "$aorta" ] || { echo "bench-analyzer-vs-hta: $aorta missing; build dist/ first (./build package -DskipTests)" >&2; exit 2; }
"$python" -c 'import pandas' 2>/dev/null || { echo "bench-analyzer-vs-hta: $python has no pandas (HTA needs it)" >&2; exit 2; }
command -v taskset >/dev/null || { echo "bench-analyzer-vs-hta: taskset missing (util-linux)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/hta_run.py" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from hta.trace_analysis import TraceAnalysis
a = TraceAnalysis(trace_dir=sys.argv[2])
a.get_temporal_breakdown(visualize=False)
a.get_comm_comp_overlap(visualize=False)
a.get_idle_time_breakdown(visualize=False)
PY
# best wall seconds and largest peak RSS (MB) of REPEAT runs of a command; fails loudly when a run fails
measure() {
  local best="" rss=0 i out
  for i in $(seq "$repeat"); do
    if ! /usr/bin/time -f '%e %M' -o "$work/time" taskset -c "$cpus" "$@" > /dev/null 2> "$work/err"; then
      echo "bench-analyzer-vs-hta: failed: $*" >&2; tail -5 "$work/err" >&2; echo "failed -"; return
    fi
    read -r wall kb < <(tail -1 "$work/time")
    best=$(awk -v a="$best" -v b="$wall" 'BEGIN { print (a == "" || b < a) ? b : a }')
    rss=$(( kb / 1024 > rss ? kb / 1024 : rss ))
  done
  echo "$best $rss"
}
heap_opts=${AORTA_HEAP:+-Xmx$AORTA_HEAP}
rows=()
for trace in "$@"; do
  [ -f "$trace" ] || { echo "bench-analyzer-vs-hta: $trace: no such file" >&2; exit 2; }
  name=$(basename "$trace")
  case "$trace" in *.gz) mb=$(gzip -dc "$trace" | wc -c | awk '{ printf "%.1f", $1 / 1e6 }') ;;
                   *) mb=$(wc -c < "$trace" | awk '{ printf "%.1f", $1 / 1e6 }') ;; esac
  dir="$work/trace-$RANDOM"; mkdir "$dir"; ln -s "$(readlink -f "$trace")" "$dir/$name"  # HTA reads a folder
  echo "$name ($mb MB uncompressed): HTA ..." >&2
  read -r hta_s hta_mb < <(measure "$python" "$work/hta_run.py" "$HTA_SRC" "$dir")
  echo "$name: aorta ..." >&2
  read -r our_s our_mb < <(AORTA_JAVA_OPTS="$heap_opts ${AORTA_JAVA_OPTS:-}" measure "$aorta" analyze "$trace")
  rows+=("$(awk -v n="$name" -v mb="$mb" -v hs="$hta_s" -v hm="$hta_mb" -v os="$our_s" -v om="$our_mb" 'BEGIN {
    speed = (hs + 0 > 0 && os + 0 > 0) ? sprintf("%.1fx", hs / os) : "-";
    rate = (os + 0 > 0) ? sprintf("%.0f", mb / os) : "-";
    rss = (mb + 0 > 0 && om + 0 > 0) ? sprintf("%.2f", om / mb) : "-";
    printf "%-36s %9s %9s %8s %9s %8s %8s %8s %9s", n, mb, hs, hm, os, om, speed, rate, rss }')")
done
echo
echo "HTA (load + temporal breakdown + comm/comp overlap + idle time breakdown) vs aorta analyze; CPUs $cpus;"
echo "wall = best of $repeat whole-process runs (s), RSS = largest peak resident set (MB)${AORTA_HEAP:+; aorta with -Xmx$AORTA_HEAP}"
printf '%-36s %9s %9s %8s %9s %8s %8s %8s %9s\n' trace "MB" "HTA s" "HTA MB" "aorta s" "aorta MB" speedup "MB/s" "RSS/size"
printf '%s\n' "${rows[@]}"
