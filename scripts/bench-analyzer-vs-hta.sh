#!/usr/bin/env bash
# aorta analyze against HTA (Holistic Trace Analysis, from source) on the same Kineto traces, side by side in one run:
# whole-process wall time and peak resident memory of each, on 2 CPUs (taskset), the table last.
#   HTA: TraceAnalysis(trace_dir) load + get_temporal_breakdown + get_comm_comp_overlap + get_idle_time_breakdown
#   aorta: aorta analyze TRACE (steps, overlap, idle time breakdown and every other section)
# Needs: python3 with pandas, numpy, plotly, networkx, psutil and pyyaml (what HTA imports), a clone of
# https://github.com/facebookresearch/HolisticTraceAnalysis (HTA_SRC), dist/ and a Java 25 runtime (AORTA_JAVA_HOME
# or on PATH), GNU time (/usr/bin/time) and taskset. Large inputs: scripts/make-large-kineto.py SOURCE OUT SIZE_MB.
# Usage: HTA_SRC=/path/to/HolisticTraceAnalysis scripts/bench-analyzer-vs-hta.sh TRACE.json[.gz]...
#   env: AORTA=dist/bin/aorta  CPUS=0,1  REPEAT=3 (runs of each, HTA and aorta taking turns, so that a change of
#        load on a shared machine falls on both; the table gives the best and the median wall time, and the largest
#        peak memory; "paired" is the median of HTA's time over aorta's in each turn, which a machine whose speed
#        drifts between turns moves least)  PYTHON=python3  AORTA_HEAP (e.g. 256m: runs aorta with -Xmx of that size)
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
# one run of a command: wall seconds and peak RSS (MB) appended to the file $1; fails loudly when the run fails
run_once() {
  local log=$1; shift
  if ! /usr/bin/time -f '%e %M' -o "$work/time" taskset -c "$cpus" "$@" > /dev/null 2> "$work/err"; then
    echo "bench-analyzer-vs-hta: failed: $*" >&2; tail -5 "$work/err" >&2; return 1
  fi
  tail -1 "$work/time" >> "$log"
}
# best and median wall seconds and largest peak RSS (MB) of the runs in a file
summary() {
  sort -n "$1" | awk '{ w[NR] = $1; if ($2 > kb) kb = $2 } END {
    m = NR % 2 ? w[(NR + 1) / 2] : (w[NR / 2] + w[NR / 2 + 1]) / 2; printf "%s %.2f %d\n", w[1], m, kb / 1024 }'
}
heap_opts=${AORTA_HEAP:+-Xmx$AORTA_HEAP}
# the host's share of this machine's CPU time while the runs went (steal, /proc/stat): a virtual machine whose host
# takes a quarter of its time runs everything a third slower, which no ratio of the two tools shows but MB/s does
cpu_times() { read -r _ user nice system idle iowait irq softirq steal _ < /proc/stat
  echo "$((user + nice + system + idle + iowait + irq + softirq + steal)) $steal"; }
read -r total0 steal0 < <(cpu_times)
rows=()
for trace in "$@"; do
  [ -f "$trace" ] || { echo "bench-analyzer-vs-hta: $trace: no such file" >&2; exit 2; }
  name=$(basename "$trace")
  case "$trace" in *.gz) mb=$(gzip -dc "$trace" | wc -c | awk '{ printf "%.1f", $1 / 1e6 }') ;;
                   *) mb=$(wc -c < "$trace" | awk '{ printf "%.1f", $1 / 1e6 }') ;; esac
  dir="$work/trace-$RANDOM"; mkdir "$dir"; ln -s "$(readlink -f "$trace")" "$dir/$name"  # HTA reads a folder
  echo "$name ($mb MB uncompressed): HTA and aorta, $repeat runs each, taking turns ..." >&2
  : > "$work/hta"; : > "$work/ours"
  failed=""
  for i in $(seq "$repeat"); do
    run_once "$work/hta" "$python" "$work/hta_run.py" "$HTA_SRC" "$dir" || { failed=HTA; break; }
    AORTA_JAVA_OPTS="$heap_opts ${AORTA_JAVA_OPTS:-}" run_once "$work/ours" "$aorta" analyze "$trace" \
      || { failed=aorta; break; }
  done
  if [ -n "$failed" ]; then rows+=("$(printf '%-28s %7s   %s failed' "$name" "$mb" "$failed")"); continue; fi
  read -r hta_s hta_med hta_mb < <(summary "$work/hta")
  read -r our_s our_med our_mb < <(summary "$work/ours")
  # HTA's time over aorta's, turn by turn (line i of each file), their median
  paired=$(paste -d' ' "$work/hta" "$work/ours" | awk '{ print $1 / $3 }' | sort -g \
    | awk '{ r[NR] = $1 } END { printf "%.1fx", NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2 }')
  rows+=("$(awk -v n="$name" -v mb="$mb" -v hs="$hta_s" -v hd="$hta_med" -v hm="$hta_mb" -v os="$our_s" \
      -v od="$our_med" -v om="$our_mb" -v pr="$paired" 'BEGIN {
    speed = sprintf("%.1fx", hs / os); med = sprintf("%.1fx", hd / od);
    rss = (mb + 0 > 0) ? sprintf("%.2f", om / mb) : "-";
    printf "%-28s %7s %6s %6s %7s %6s %6s %7s %8s %8s %8s %6.0f %8s", n, mb, hs, hd, hm, os, od, om, speed, med,
      pr, mb / os, rss }')")
done
read -r total1 steal1 < <(cpu_times)
stolen=$(awk -v t=$((total1 - total0)) -v s=$((steal1 - steal0)) 'BEGIN { printf "%.0f%%", (t > 0 ? 100 * s / t : 0) }')
echo
echo "HTA (load + temporal breakdown + comm/comp overlap + idle time breakdown) vs aorta analyze; CPUs $cpus;"
echo "$repeat whole-process runs of each, taking turns: best and median wall (s), largest peak resident set (MB);"
echo "speedup of the best, of the median and paired (the median of HTA / aorta over the turns); MB/s of aorta's best${AORTA_HEAP:+; aorta with -Xmx$AORTA_HEAP}; load average: $(cut -d' ' -f1-3 /proc/loadavg); CPU time taken by the host (steal): $stolen"
printf '%-28s %7s %6s %6s %7s %6s %6s %7s %8s %8s %8s %6s %8s\n' trace "MB" "HTA s" median "HTA MB" "aorta" median \
  "aorta MB" speedup "median" "paired" "MB/s" "RSS/size"
printf '%s\n' "${rows[@]}"
