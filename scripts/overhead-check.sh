#!/usr/bin/env bash
# GPU acceptance of the launch-overhead test and aorta overhead (issue 7), in one go, from a built dist/:
#   ./build package -DskipTests && scripts/overhead-check.sh
# On a device host the script sources .device/prelude.sh when it exists. Writes every log and result to $OUT
# (default: ./overhead-check-out) and prints a short table last. Needs python3 (reads the result JSON).
# About 5-7 minutes on an H100 with the agent jar present, 1 minute without.
# Overrides: AGENT_API_OPTS (agent recording API calls only; default device-activity=none,output=$OUT/agent-api-out),
#            AGENT_CUPTI_OPTS (agent with CUPTI device activity; default device-activity=cupti,output=$OUT/agent-cupti-out),
#            RUNS (A/B pairs per comparison; default 3), SECONDS_PER_PATTERN (default 10).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ -f .device/prelude.sh ] && . .device/prelude.sh
aorta=${AORTA_BIN:-$root/dist/bin/aorta}  # AORTA_BIN: check another build
[ -x "$aorta" ] || { echo "overhead-check: $aorta not found; run ./build package -DskipTests first" >&2; exit 2; }
command -v python3 >/dev/null || { echo "overhead-check: python3 is needed to read the results" >&2; exit 2; }
out=${OUT:-$root/overhead-check-out}
mkdir -p "$out"
agent_jar=$(dirname "$(dirname "$(readlink -f "$aorta")")")/lib/aorta-agent.jar
# the agent's own output (JSONL, metrics) goes under $OUT, not into the working directory
api_opts=${AGENT_API_OPTS:-device-activity=none,output=$out/agent-api-out}
cupti_opts=${AGENT_CUPTI_OPTS:-device-activity=cupti,output=$out/agent-cupti-out}
runs=${RUNS:-3}
seconds=${SECONDS_PER_PATTERN:-10}
failures=0

step() {  # step NAME EXPECTED_RCS command...: runs, logs to $out/NAME.log, records a failure on another exit code
  local name=$1 want=$2; shift 2
  echo "== $name: $*"
  "$@" >"$out/$name.log" 2>&1
  local rc=$?
  tail -n 25 "$out/$name.log"
  case ",$want," in
    *",$rc,"*) ;;
    *) echo "!! $name exited $rc, expected $want"; failures=$((failures + 1)) ;;
  esac
}

# 1. correctness on the GPU: argmin against a float64 CPU reference, balanced exactly w points per centroid
step correctness 0 "$aorta" launch-overhead --check-only
# 2. the seed's shape (K=8192, D=50, batch 8192, 3 stages), every pattern: the collective ones print why they skip
step launch 0 "$aorta" launch-overhead --patterns all --seconds "$seconds" -o "$out/launch.json"
# 3. A/B: a preloaded library that does nothing (libm) must cost nothing: checks the A/B machinery itself
libm=$(ls /lib/x86_64-linux-gnu/libm.so.6 /usr/lib64/libm.so.6 /lib64/libm.so.6 2>/dev/null | head -n 1)
if [ -n "$libm" ]; then
  step null_preload 0,1,3 "$aorta" overhead --preload "$libm" --runs "$runs" --threshold 0.01 --json "$out/null_preload.json" \
    --logs "$out/null_preload" -- launch-overhead --patterns argmin --seconds 3
fi
# 4. A/B with our agent: API recording (target <= 1%), then with CUPTI device activity (target <= 3%)
#    tiny_kernel_stress runs with --kernel-timing event-pairs so that the harness itself never enables CUPTI
tiny=(run tiny_kernel_stress --kernel-timing event-pairs -i 300 -w 50)
if [ -f "$agent_jar" ]; then
  step agent_api_balanced 0,1,3 "$aorta" overhead --agent "$api_opts" --runs "$runs" --threshold 0.01 \
    --json "$out/agent_api_balanced.json" --logs "$out/agent_api_balanced" -- launch-overhead --patterns balanced --seconds 5
  step agent_api_tiny 0,1,3 "$aorta" overhead --agent "$api_opts" --runs "$runs" --threshold 0.01 \
    --json "$out/agent_api_tiny.json" --logs "$out/agent_api_tiny" -- "${tiny[@]}"
  step agent_cupti_balanced 0,1,3 "$aorta" overhead --agent "$cupti_opts" --runs "$runs" --threshold 0.03 \
    --json "$out/agent_cupti_balanced.json" --logs "$out/agent_cupti_balanced" -- launch-overhead --patterns balanced --seconds 5
  step agent_cupti_tiny 0,1,3 "$aorta" overhead --agent "$cupti_opts" --runs "$runs" --threshold 0.03 \
    --json "$out/agent_cupti_tiny.json" --logs "$out/agent_cupti_tiny" -- "${tiny[@]}"
else
  echo "== agent: $agent_jar not found (the agent branch is not in this build): agent A/B comparisons skipped"
fi

echo
python3 - "$out" "$failures" "$agent_jar" <<'PY'
import json, os, sys
out, failures, agent_jar = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def load(name):
    p = os.path.join(out, name + ".json")
    return json.load(open(p)) if os.path.exists(p) else None
rows = []
def row(check, value, target, ok):
    rows.append((check, value, target, "ok" if ok else ("FAIL" if ok is False else "-")))
p = os.path.join(out, "correctness.log")
if os.path.exists(p):
    text = open(p).read()
    row("correctness K=256 batch 1024 (GPU)", "argmin " + ("PASS" if "float64 reference: PASS" in text else "FAIL")
        + ", balanced " + ("PASS" if "points: PASS" in text else "FAIL"), "PASS, PASS",
        "float64 reference: PASS" in text and "points: PASS" in text)
seed = {"argmin": "3.20", "balanced": "6722"}
l = load("launch")
if l:
    rank0 = {p["pattern"]: p for p in l["ranks"][0]["patterns"]}
    for name in ("argmin", "balanced"):
        p = rank0.get(name)
        if p and p["status"] == "measured":
            row("Java %s ms/step (PyTorch seed %s)" % (name, seed[name]), "%.2f" % p["ms_per_step"], "info", None)
            row("Java %s launches/step, syncs/step" % name, "%.0f, %.0f" % (p["launches_per_step"], p["syncs_per_step"]),
                "measured", None)
            pc = p["pcie"]
            row("Java %s PCIe rx/tx avg (peak) MB/s" % name,
                pc.get("unavailable") or "%.1f (%.1f) / %.1f (%.1f)" % (pc["rx_mb_s_avg"], pc["rx_mb_s_peak"],
                                                                     pc["tx_mb_s_avg"], pc["tx_mb_s_peak"]), "info", None)
    for name in ("all_reduce", "combined"):
        p = rank0.get(name)
        if p:
            row(name + " on 1 GPU", "skipped: " + p.get("skip_reason", "?").split(";")[0], "skipped", p["status"] == "skipped")
    c = l["correctness"]
    row("balanced K=8192: exactly 1 point per centroid", "PASS" if c["balanced_full_size_problem"] is None else "FAIL",
        "PASS", c["balanced_full_size_problem"] is None)
targets = {"null_preload": ("LD_PRELOAD=libm (no-op)", 0.01), "agent_api_balanced": ("agent API, balanced", 0.01),
           "agent_api_tiny": ("agent API, tiny_kernel_stress", 0.01),
           "agent_cupti_balanced": ("agent+CUPTI, balanced", 0.03), "agent_cupti_tiny": ("agent+CUPTI, tiny_kernel_stress", 0.03)}
for name, (label, threshold) in targets.items():
    o = load(name)
    if not o:
        if name.startswith("agent") and not os.path.exists(agent_jar):
            row(label, "skipped: no agent jar in dist/lib", "<= %g%%" % (threshold * 100), None)
        continue
    for m in o["metrics"]:
        row("%s: %s B/A" % (label, m["metric"]), "%.4f [%.4f, %.4f]" % (m["ratio"], m["ci_low"], m["ci_high"]),
            "<= %g%% (%s)" % (threshold * 100, m["verdict"]), m["verdict"] == "within threshold")
w = max(len(r[0]) for r in rows) if rows else 10
v = max(len(r[1]) for r in rows) if rows else 10
print("%-*s  %-*s  %-28s  %s" % (w, "CHECK", v, "VALUE", "TARGET", "STATUS"))
for r in rows:
    print("%-*s  %-*s  %-28s  %s" % (w, r[0], v, r[1], r[2], r[3]))
bad = sum(1 for r in rows if r[3] == "FAIL")
print("\n%d checks failed, %d commands failed; logs and results in %s" % (bad, failures, out))
print("2-GPU all_reduce and combined, with and without the agent: scripts/overhead-multigpu-check.sh")
sys.exit(1 if bad or failures else 0)
PY
