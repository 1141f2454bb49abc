#!/usr/bin/env bash
# Parse + analyse throughput of the offline analyzer on the shared fixtures (not a timed test).
# Runs dist/bin/aorta (build it first: ./build package -DskipTests) with a capped heap and 2 CPUs, reads each
# input REPEAT times in one JVM (run 1 includes JIT warm-up) and prints the cold and the best warm figures.
# Usage: scripts/bench-analyzer.sh [REPEAT]   (env: HEAP=256m, FIXTURES=../shared/fixtures)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fixtures=${FIXTURES:-$root/../shared/fixtures}
repeat=${1:-6}
heap=${HEAP:-256m}
[ -x "$root/dist/bin/aorta" ] || { echo "bench-analyzer: $root/dist/bin/aorta missing; run ./build package -DskipTests" >&2; exit 1; }
[ -d "$fixtures" ] || { echo "bench-analyzer: fixtures not found at $fixtures" >&2; exit 1; }
export AORTA_JAVA_OPTS="-Xmx$heap -XX:ActiveProcessorCount=2 ${AORTA_JAVA_OPTS:-}"
bench() {
  local name=$1; shift
  local lines
  lines=$("$root/dist/bin/aorta" analyze --benchmark --repeat "$repeat" "$@" 2>&1 >/dev/null | grep 'benchmark run')
  local cold best
  cold=$(echo "$lines" | head -1 | sed -E 's/.*parse\+analyse ([0-9.]+) MB\/s.*/\1/')
  best=$(echo "$lines" | sed -E 's/.*parse\+analyse ([0-9.]+) MB\/s.*/\1/' | sort -g | tail -1)
  local size heapused
  size=$(echo "$lines" | head -1 | sed -E 's/.*run 1: ([0-9.]+) MB uncompressed.*/\1/')
  heapused=$(echo "$lines" | sed -E 's/.*heap used ([0-9]+) MB.*/\1/' | sort -n | tail -1)
  printf '%-34s %8s MB  cold %7s MB/s  warm best %7s MB/s  (heap cap %s, max used %s MB)\n' "$name" "$size" "$cold" "$best" "$heap" "$heapused"
}
echo "parse + analyse throughput (uncompressed MB per second), $repeat runs per input, 2 CPUs:"
bench "rocprofv3 results.json (mi350)" --window whole "$fixtures/rocprof/mi350_rocprofv3_results.json.gz"
bench "kineto a100 allreduce (steps)" "$fixtures/kineto/a100_allreduce_rank0_of2.json.gz"
bench "kineto, all three fixtures" "$fixtures"/kineto/*.json.gz
