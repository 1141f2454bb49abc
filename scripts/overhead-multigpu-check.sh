#!/usr/bin/env bash
# GPU acceptance of launch-overhead's multi-GPU patterns (issue 7) on a host with 2 or more GPUs, from a built dist/:
#   ./build package -DskipTests && scripts/overhead-multigpu-check.sh
# 1. aorta launch --nproc-per-node 2 -- launch-overhead --patterns all_reduce,combined --seconds 5
# 2. the same under aorta overhead --agent ... --runs 3 (A/B of rank 0's summary over both ranks)
# On a device host the script sources .device/prelude.sh when it exists. Logs and results go to $OUT
# (default ./overhead-multigpu-check-out); a short table is printed last; exit code 1 when a check failed.
# Every command has a time limit; the whole script stays under 4 minutes.
# Overrides: AGENT_OPTS (default device-activity=none,output=$OUT/agent-out), RUNS (A/B pairs, default 3),
#            SECONDS_PER_PATTERN (default 5).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ -f .device/prelude.sh ] && . .device/prelude.sh
export NCCL_NVLS_ENABLE=0   # never NVLink multicast on the shared hosts
aorta=${AORTA_BIN:-$root/dist/bin/aorta}
[ -x "$aorta" ] || { echo "overhead-multigpu-check: $aorta not found; run ./build package -DskipTests first" >&2; exit 2; }
command -v python3 >/dev/null || { echo "overhead-multigpu-check: python3 is needed to read the results" >&2; exit 2; }
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "$gpus" -ge 2 ] || { echo "overhead-multigpu-check: needs 2 or more GPUs, nvidia-smi lists $gpus" >&2; exit 2; }
out=${OUT:-$root/overhead-multigpu-check-out}
mkdir -p "$out"
agent_jar=$(dirname "$(dirname "$(readlink -f "$aorta")")")/lib/aorta-agent.jar
agent_opts=${AGENT_OPTS:-device-activity=none,output=$out/agent-out}
runs=${RUNS:-3}
seconds=${SECONDS_PER_PATTERN:-5}
port=$(( 29600 + RANDOM % 2000 ))
failures=0
start=$SECONDS

step() {  # step NAME LIMIT_S EXPECTED_RCS command...: runs with a time limit, logs to $out/NAME.log, counts a wrong exit code
  local name=$1 limit=$2 want=$3; shift 3
  echo "== $name: $*"
  timeout -k 10 "$limit" "$@" >"$out/$name.log" 2>&1
  local rc=$?
  tail -n 20 "$out/$name.log"
  echo "$rc" > "$out/$name.rc"
  case ",$want," in
    *",$rc,"*) ;;
    *) echo "!! $name exited $rc, expected $want"; failures=$((failures + 1)) ;;
  esac
}
patterns=(launch-overhead --patterns all_reduce,combined --seconds "$seconds")

# 1. both collective patterns on 2 ranks: rank 0 prints every rank's line and the summary, and writes the JSON
step launch2 80 0 "$aorta" launch --nproc-per-node 2 --master-port "$port" --timeout 75 -- "${patterns[@]}" \
  -o "$out/launch2.json"
# 2. A/B with our agent in both ranks (the launcher passes AORTA_JAVA_OPTS on to them); overhead adds -o last
if [ -f "$agent_jar" ]; then
  step agent_ab2 150 0,1,3 "$aorta" overhead --agent "$agent_opts" --runs "$runs" --threshold 0.01 \
    --json "$out/agent_ab2.json" --logs "$out/agent_ab2" -- \
    launch --nproc-per-node 2 --master-port "$((port + 10))" --timeout 40 -- "${patterns[@]}"
else
  echo "== agent: $agent_jar not found: the A/B comparison is skipped"
fi
echo "== took $((SECONDS - start)) s"

echo
python3 - "$out" "$failures" <<'PY'
import json, os, sys
out, failures = sys.argv[1], int(sys.argv[2])
def load(name):
    p = os.path.join(out, name + ".json")
    return json.load(open(p)) if os.path.exists(p) else None
rows = []
def row(check, value, target, ok):
    rows.append((check, value, target, "ok" if ok else ("FAIL" if ok is False else "-")))
l = load("launch2")
if l:
    row("world size", str(l["world_size"]), "2", l["world_size"] == 2)
    row("rank lines in rank 0's table", str(len(l["ranks"])), "= world size", len(l["ranks"]) == l["world_size"])
    for rank in l["ranks"]:
        for p in rank["patterns"]:
            if p["status"] != "measured":
                row("rank %d %s" % (rank["rank"], p["pattern"]), "skipped: " + p.get("skip_reason", "?"), "measured", False)
                continue
            row("rank %d %s ms/step" % (rank["rank"], p["pattern"]),
                "%.2f (%d steps; %.0f launches, %.0f syncs, %.0f collectives/step)" % (p["ms_per_step"], p["steps"],
                p["launches_per_step"], p["syncs_per_step"], p["collectives_per_step"]), "info", None)
            stages = l["config"]["stages"]
            row("rank %d %s collectives/step" % (rank["rank"], p["pattern"]), "%.0f" % p["collectives_per_step"],
                "2 per stage = %d" % (2 * stages), p["collectives_per_step"] == 2 * stages)
    for s in l["summary"]:
        if "skipped" in s:
            row("summary " + s["pattern"], "skipped: " + s["skipped"], "measured", False)
        else:
            row("summary %s ms/step mean [min, max]" % s["pattern"],
                "%.2f [%.2f, %.2f] over %d ranks" % (s["ms_per_step_mean"], s["ms_per_step_min"], s["ms_per_step_max"],
                                                    s["ranks"]), "info", None)
    c = l["correctness"]
    row("all-reduce sums (every element, every rank)", "PASS" if c["all_reduce_problem"] is None else c["all_reduce_problem"],
        "PASS", c["all_reduce_problem"] is None)
    row("correctness (argmin, balanced)", "PASS" if c["passed"] else "FAIL", "PASS", c["passed"])
else:
    row("launch-overhead on 2 ranks", "no result (see launch2.log)", "a result", False)
o = load("agent_ab2")
if o:
    for m in o["metrics"]:
        row("agent A/B, 2 ranks: %s B/A" % m["metric"], "%.4f [%.4f, %.4f]" % (m["ratio"], m["ci_low"], m["ci_high"]),
            "<= 1%% (%s)" % m["verdict"], m["verdict"] == "within threshold")
w = max(len(r[0]) for r in rows)
v = max(len(r[1]) for r in rows)
print("%-*s  %-*s  %-24s  %s" % (w, "CHECK", v, "VALUE", "TARGET", "STATUS"))
for r in rows:
    print("%-*s  %-*s  %-24s  %s" % (w, r[0], v, r[1], r[2], r[3]))
bad = sum(1 for r in rows if r[3] == "FAIL")
print("\n%d checks failed, %d commands failed; logs and results in %s" % (bad, failures, out))
sys.exit(1 if bad or failures else 0)
PY
