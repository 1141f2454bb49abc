#!/usr/bin/env bash
# rag_pipeline (issue 15) on one GPU at its recommended 8 streams: ours with each stage's work per stream replayed as
# a CUDA graph (graphs=true, the default: embed, retrieve, rerank and generate one graph launch on each of their two
# streams, the events between stages outside the graphs) and eager (graphs=false, every kernel launched), both
# under CUPTI (every stream must show device time), and AORTA's PyTorch counterpart (scripts/bench/aorta_workloads.py),
# taking turns for ROUNDS rounds so that a change of the host's load falls on all three. Every run of ours passes its
# correctness check (query embeddings and retrieved documents against float64, the generator's decoder against
# float64; with graphs also the replayed generator output against every stage run eagerly). Prints a table last:
# each run, then the medians and the median of the rounds' ratios to AORTA's; exit 1 on a wrong result, an idle
# stream or a failed run.
#   scripts/rag-pipeline-gpu.sh [OUT_DIR]   (from the repository root of a device host with dist/, python3, torch)
# ROUNDS (3), ITERATIONS (20, as workloads-vs-aorta-all.sh), WARMUP (30, ours) override. At most 150 s in all: no run
# starts after 120 s and each is cut off at 45 s or the 150 s mark, whichever comes first (expected ~10-15 s a run of
# ours, most of it set-up and the captures; AORTA's ~10 s).
# Expected (read from the code, not yet run): every row ok; launches per iteration 8 with graphs (one graph launch
# per stream), 134 without (as measured eagerly before); rag-graphs at or above AORTA's (ratio >= 1: its 134 host
# launches, ~1 ms of host time per iteration, become 8), rag-eager where it was (0.99-1.11 of AORTA's).
set -u
OUT=${1:-rag-pipeline-gpu-out}
ROUNDS=${ROUNDS:-3}
ITERATIONS=${ITERATIONS:-20}
WARMUP=${WARMUP:-30}
BUDGET_S=150
LAST_START_S=120
RUN_LIMIT_S=45
AORTA=dist/bin/aorta
[ -f .device/prelude.sh ] && [ -z "${JAVA_HOME:-}" ] && . .device/prelude.sh
[ -x "$AORTA" ] || { echo "rag-pipeline-gpu: $AORTA not found; build it first with ./build package -DskipTests" >&2; exit 2; }
mkdir -p "$OUT"

field() { # JSON file, python expression over r (the run's aorta.run/1 result); "-" when missing
    python3 - "$1" "$2" <<'PY' 2>/dev/null || echo "-"
import json, sys
r = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))
PY
}

rows=()
failed=0
began=$(date +%s)
elapsed() { echo $(( $(date +%s) - began )); }
too_late() { [ "$(elapsed)" -ge $LAST_START_S ]; }
limit() { # seconds the next run may take: RUN_LIMIT_S, or less so that the whole script ends by BUDGET_S
    local left=$(( BUDGET_S - $(elapsed) ))
    echo $(( left < RUN_LIMIT_S ? left : RUN_LIMIT_S ))
}

ours() { # label graphs
    local label=$1 graphs=$2
    local t0 rc tput check busy launches
    t0=$(date +%s)
    timeout "$(limit)" "$AORTA" run rag_pipeline --streams 8 -p "graphs=$graphs" --kernel-timing cupti \
        -i "$ITERATIONS" -w "$WARMUP" -o "$OUT/$label.json" > "$OUT/$label.log" 2>&1
    rc=$?
    tput=$(field "$OUT/$label.json" "'%.4g' % r['throughput']")
    launches=$(field "$OUT/$label.json" "'%d %.2fms' % (r['host_enqueue']['launches_per_iteration'], r['host_enqueue']['per_iteration_ms']['p50'])")
    check=$(field "$OUT/$label.json" "'ok' if r['correctness']['checked'] and not r['correctness']['problem'] else ('no check' if not r['correctness']['checked'] else 'FAILED: ' + str(r['correctness']['problem']))")
    busy=$(field "$OUT/$label.json" "(lambda t: 'all %d > 0' % len(t) if len(t) == r['stream_count'] and min(t) > 0 else 'IDLE ' + str([i for i, v in enumerate(t) if v <= 0]))(r['per_stream_times_ms'])")
    [ $rc -eq 0 ] || { check="exit $rc: $(tail -n 1 "$OUT/$label.log")"; failed=1; }
    case $check in ok) ;; *) failed=1 ;; esac
    case $busy in IDLE*|-) failed=1 ;; esac
    rows+=("$(printf '%-16s %11s %16s %5ss  %-10s %s' "$label" "$tput" "$launches" "$(( $(date +%s) - t0 ))" "$busy" "$check")")
    echo "$label $tput" >> "$OUT/throughputs.txt"
}

theirs() { # label
    local label=$1 t0 tput
    t0=$(date +%s)
    timeout "$(limit)" python3 scripts/bench/aorta_workloads.py rag_pipeline 8 "$ITERATIONS" > "$OUT/$label.log" 2>&1
    tput=$(awk '$1 == "rag_pipeline" {printf "%.4g", $3}' "$OUT/$label.log")
    [ -n "$tput" ] || { tput="-"; failed=1; }
    rows+=("$(printf '%-16s %11s %16s %5ss  %-10s %s' "$label" "$tput" "-" "$(( $(date +%s) - t0 ))" "-" "-")")
    echo "$label $tput" >> "$OUT/throughputs.txt"
}

: > "$OUT/throughputs.txt"
for round in $(seq 1 "$ROUNDS"); do
    too_late && { echo "rag-pipeline-gpu: past ${LAST_START_S} s, round $round not started" >&2; break; }
    ours "rag-graphs-$round" true
    too_late || ours "rag-eager-$round" false
    too_late || theirs "aorta-torch-$round"
done

echo "== rag_pipeline, 8 streams, $ITERATIONS iterations, CUPTI ($(elapsed) s in all)"
printf '%-16s %11s %16s %6s  %-10s %s\n' run queries/s "launches,host/it" time streams correctness
printf '%s\n' "${rows[@]}"
python3 - "$OUT/throughputs.txt" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    label, value = line.split()
    arm, round_ = label.rsplit("-", 1)
    if value != "-":
        runs.setdefault(arm, {})[round_] = float(value)
theirs = runs.get("aorta-torch", {})
for arm in ("rag-graphs", "rag-eager", "aorta-torch"):
    mine = runs.get(arm, {})
    if not mine:
        print(f"{arm:<16} no run")
        continue
    ratios = [mine[r] / theirs[r] for r in mine if r in theirs]
    ratio = f"median ratio to AORTA's {statistics.median(ratios):.2f} (rounds: {' '.join(f'{x:.2f}' for x in ratios)})" \
        if ratios and arm != "aorta-torch" else ""
    print(f"{arm:<16} median {statistics.median(mine.values()):.4g} queries/s over {len(mine)} runs  {ratio}")
PY
exit $failed
