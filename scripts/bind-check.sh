#!/usr/bin/env bash
# GPU check of the agent's collective binding (issue 4) on a host with >= 2 GPUs: CollectiveOverlapExample
# (all-reduce on the compute stream between GEMMs, 2 ranks) without the agent, with the agent, and with
# bind-collectives at join=immediate and join=next-sync. Results must be bit-identical in every arm; the
# all-reduce's overlap with compute (agent metrics, and `aorta analyze` on the same records) should rise
# with next-sync. Run from the project root after ./build package -DskipTests (and source .device/prelude.sh).
# Env: ITER (iterations, 20), RANKS (2), OUT (results).
set -uo pipefail
cd "$(dirname "$0")/.."
[ -f .device/prelude.sh ] && [ -z "${JAVA_HOME:-}" ] && . .device/prelude.sh
out=${OUT:-$(mktemp -d -t aorta-bind.XXXXXX)}
mkdir -p "$out"
iter=${ITER:-20}; ranks=${RANKS:-2}
if [ -n "${AORTA_JAVA_HOME:-}" ]; then java="$AORTA_JAVA_HOME/bin/java"; elif [ -n "${JAVA_HOME:-}" ]; then java="$JAVA_HOME/bin/java"; else java=java; fi
cp=$(ls dist/lib/*.jar dist/examples/aorta-examples.jar | grep -v '/aorta-agent.jar$' | paste -sd: -)
export NCCL_NVLS_ENABLE=0

run_arm() { # name agent-options-or-empty
  local name=$1 opts=$2 pids=() r
  rm -f "$out/$name.id"
  for r in $(seq 0 $((ranks - 1))); do
    local agent=()
    [ -n "$opts" ] && agent=("-javaagent:dist/lib/aorta-agent.jar=output=$out/$name,rank=$r,$opts")
    RANK=$r WORLD_SIZE=$ranks LOCAL_RANK=$r AORTA_EXAMPLE_ID_FILE="$out/$name.id" \
      "$java" --enable-native-access=ALL-UNNAMED "${agent[@]}" -cp "$cp" dev.aorta.examples.CollectiveOverlapExample \
      "$iter" > "$out/$name.rank$r.out" 2> "$out/$name.rank$r.err" &
    pids+=($!)
  done
  local rc=0
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  echo "$name exit=$rc $(grep -h '^RESULT' "$out/$name".rank*.out | sort | tr '\n' ' ')"
}

run_arm plain ""
run_arm agent "device-activity=cupti"
run_arm bind_immediate "device-activity=cupti,bind-collectives=true,join=immediate"
run_arm bind_next_sync "device-activity=cupti,bind-collectives=true,join=next-sync"

for arm in agent bind_immediate bind_next_sync; do
  dist/bin/aorta analyze "$out/$arm" --window whole --format json > "$out/$arm.analyze.json" 2> "$out/$arm.analyze.err"
done

python3 - "$out" <<'PY'
import json, os, sys, glob
out = sys.argv[1]
def results(arm):
    return sorted(l.strip() for f in glob.glob(os.path.join(out, arm + ".rank*.out")) for l in open(f) if l.startswith("RESULT"))
base = results("plain")
print("%-16s %-10s %-24s %-22s %s" % ("arm", "same", "agent overlap ms/iter", "analyze overlap_pct", "iterations"))
for arm in ("plain", "agent", "bind_immediate", "bind_next_sync"):
    same = "yes" if results(arm) == base and base else "NO"
    ov, n, pct = "-", "-", "-"
    m = os.path.join(out, arm, "rank_0_metrics.jsonl")
    if os.path.exists(m):
        rows = [json.loads(l) for l in open(m) if l.strip()]
        vals = [r["profile"]["overlap"]["overlap_ms"]["compute_comm"] for r in rows[1:] if r.get("profile")]
        if vals:
            ov = "%.3f" % (sum(vals) / len(vals))
        n = str(len(rows))
    a = os.path.join(out, arm + ".analyze.json")
    if os.path.exists(a):
        for l in open(a):
            try:
                o = json.loads(l)
            except ValueError:
                continue
            if o.get("rank") == 0 and o.get("window") == "whole":
                pct = "%.1f%%" % o["comm_overlap_pct"]
    print("%-16s %-10s %-24s %-22s %s" % (arm, same, ov, pct, n))
print("results in", out)
PY
