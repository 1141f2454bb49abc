# Sourced by scripts/speculative-decode-gpu.sh and scripts/rag-pipeline-gpu.sh: a workload's CUDA-graph and eager
# modes (both under CUPTI) and AORTA's PyTorch counterpart (scripts/bench/aorta_workloads.py) taking turns for ROUNDS
# rounds, so that a change of the host's load falls on all three; a table of every run, then each arm's median and the
# median of the rounds' ratios to AORTA's; exit 1 on a wrong result, an idle stream or a failed run.
# The sourcing script sets: NAME (for messages), WORKLOAD, STREAMS, PREFIX (its arms' labels), UNIT (the throughput's
# unit), OUT; the time bounds BUDGET_S (the script's end), LAST_START_S (no round or run starts after it),
# RUN_LIMIT_S (one run at most); optionally EXTRA_HEADER, EXTRA_EXPR (a further column of ours: a python expression
# over the result r) and EXTRA_THEIRS (that column for the counterpart).
ROUNDS=${ROUNDS:-3}
ITERATIONS=${ITERATIONS:-20}
WARMUP=${WARMUP:-30}
EXTRA_HEADER=${EXTRA_HEADER:-}
AORTA=dist/bin/aorta
[ -f .device/prelude.sh ] && [ -z "${JAVA_HOME:-}" ] && . .device/prelude.sh
[ -x "$AORTA" ] || { echo "$NAME: $AORTA not found; build it first with ./build package -DskipTests" >&2; exit 2; }
mkdir -p "$OUT"
. scripts/lib/run_result.sh

rows=()
failed=0
began=$(date +%s)
elapsed() { echo $(( $(date +%s) - began )); }
too_late() { [ "$(elapsed)" -ge "$LAST_START_S" ]; }
limit() { # seconds the next run may take: RUN_LIMIT_S, or less so that the whole script ends by BUDGET_S
    local left=$(( BUDGET_S - $(elapsed) ))
    echo $(( left < RUN_LIMIT_S ? left : RUN_LIMIT_S ))
}
row() { # label throughput launches extra seconds streams correctness
    if [ -n "$EXTRA_HEADER" ]; then
        rows+=("$(printf '%-18s %11s %16s %13s %5ss  %-10s %s' "$1" "$2" "$3" "$4" "$5" "$6" "$7")")
    else
        rows+=("$(printf '%-18s %11s %16s %5ss  %-10s %s' "$1" "$2" "$3" "$5" "$6" "$7")")
    fi
}

ours() { # label graphs
    local label=$1 graphs=$2
    local t0 rc tput check busy launches extra=""
    t0=$(date +%s)
    timeout "$(limit)" "$AORTA" run "$WORKLOAD" --streams "$STREAMS" -p "graphs=$graphs" --kernel-timing cupti \
        -i "$ITERATIONS" -w "$WARMUP" -o "$OUT/$label.json" > "$OUT/$label.log" 2>&1
    rc=$?
    tput=$(field "$OUT/$label.json" "'%.4g' % r['throughput']")
    launches=$(field "$OUT/$label.json" "'%d %.2fms' % (r['host_enqueue']['launches_per_iteration'], r['host_enqueue']['per_iteration_ms']['p50'])")
    [ -n "${EXTRA_EXPR:-}" ] && extra=$(field "$OUT/$label.json" "$EXTRA_EXPR")
    check=$(field "$OUT/$label.json" "'ok' if r['correctness']['checked'] and not r['correctness']['problem'] else ('no check' if not r['correctness']['checked'] else 'FAILED: ' + str(r['correctness']['problem']))")
    busy=$(field "$OUT/$label.json" "(lambda t: 'all %d > 0' % len(t) if len(t) == r['stream_count'] and min(t) > 0 else 'IDLE ' + str([i for i, v in enumerate(t) if v <= 0]))(r['per_stream_times_ms'])")
    [ $rc -eq 0 ] || { check="exit $rc: $(tail -n 1 "$OUT/$label.log")"; failed=1; }
    case $check in ok) ;; *) failed=1 ;; esac
    case $busy in IDLE*|-) failed=1 ;; esac
    row "$label" "$tput" "$launches" "$extra" "$(( $(date +%s) - t0 ))" "$busy" "$check"
    echo "$label $tput" >> "$OUT/throughputs.txt"
}

theirs() { # label
    local label=$1 t0 tput
    t0=$(date +%s)
    timeout "$(limit)" python3 scripts/bench/aorta_workloads.py "$WORKLOAD" "$STREAMS" "$ITERATIONS" > "$OUT/$label.log" 2>&1
    tput=$(awk -v w="$WORKLOAD" '$1 == w {printf "%.4g", $3}' "$OUT/$label.log")
    [ -n "$tput" ] || { tput="-"; failed=1; }
    row "$label" "$tput" "-" "${EXTRA_THEIRS:-}" "$(( $(date +%s) - t0 ))" "-" "-"
    echo "$label $tput" >> "$OUT/throughputs.txt"
}

: > "$OUT/throughputs.txt"
for round in $(seq 1 "$ROUNDS"); do
    too_late && { echo "$NAME: past ${LAST_START_S} s, round $round not started" >&2; break; }
    ours "$PREFIX-graphs-$round" true
    too_late || ours "$PREFIX-eager-$round" false
    too_late || theirs "aorta-torch-$round"
done

echo "== $WORKLOAD, $STREAMS streams, $ITERATIONS iterations, CUPTI ($(elapsed) s in all)"
if [ -n "$EXTRA_HEADER" ]; then
    printf '%-18s %11s %16s %13s %6s  %-10s %s\n' run "$UNIT" "launches,host/it" "$EXTRA_HEADER" time streams correctness
else
    printf '%-18s %11s %16s %6s  %-10s %s\n' run "$UNIT" "launches,host/it" time streams correctness
fi
printf '%s\n' "${rows[@]}"
python3 - "$OUT/throughputs.txt" "$PREFIX" "$UNIT" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    label, value = line.split()
    arm, round_ = label.rsplit("-", 1)
    if value != "-":
        runs.setdefault(arm, {})[round_] = float(value)
theirs = runs.get("aorta-torch", {})
for arm in (sys.argv[2] + "-graphs", sys.argv[2] + "-eager", "aorta-torch"):
    mine = runs.get(arm, {})
    if not mine:
        print(f"{arm:<18} no run")
        continue
    ratios = [mine[r] / theirs[r] for r in mine if r in theirs]
    ratio = f"median ratio to AORTA's {statistics.median(ratios):.2f} (rounds: {' '.join(f'{x:.2f}' for x in ratios)})" \
        if ratios and arm != "aorta-torch" else ""
    print(f"{arm:<18} median {statistics.median(mine.values()):.4g} {sys.argv[3]} over {len(mine)} runs  {ratio}")
PY
exit $failed
