#!/usr/bin/env bash
# Issue 16's acceptance of the agent on one GPU, in one go (about 6 minutes on an H100), from a built dist/:
#   ./build package -DskipTests && scripts/agent-acceptance-16.sh
# On a device host it sources .device/prelude.sh (the carried JRE) when it exists. Logs under $OUT (default
# ./agent-acceptance-16-out), one table last: one line per acceptance bullet with the measured value, the bar and
# PASS/FAIL (SKIP with the reason where one GPU or this host cannot do it).
#   scripts/agent-acceptance-16.sh --summarize DIR   prints the table from the logs in DIR only (no GPU; the tests run
#                                                    it on canned logs)
# Env: RUNS (A/B pairs, 5), SECONDS_AB (seconds of launch-overhead per run, 3), SAMPLE_EVERY (events mode, 100).
# Not covered: the trainer-step rows (aorta train is not wired into this script yet) and 2-GPU collectives.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

summarize() {  # summarize DIR: the table, from the result files the steps below leave in DIR
  PYTHONPATH="$root/scripts/lib" python3 - "$1" <<'PY'
import re, sys
from agent_table import Table
t = Table(sys.argv[1])
t.ab("api_balanced", "API recording, launch_overhead balanced (A/B)", "95% CI high <= 1.01",
     lambda m: m["ci_high"] <= 1.01)
t.row("API recording, trainer step (A/B)", "not run: aorta train not wired into this script", "<= 1%", "SKIP")
m = re.search(r"delta_median_ns=([-0-9.]+) median_ci95_ns=(\[[^]]*\])", t.text("advice_cost.txt") or "")
if m:
    t.row("API recording, JCuda launch path, paired in process", "%s ns/launch %s" % (m.group(1), m.group(2)),
          "median <= 100 ns", "PASS" if float(m.group(1)) <= 100 else "FAIL")
else:
    t.row("API recording, JCuda launch path, paired in process", "no advice_cost line", "median <= 100 ns", "FAIL")
t.ab("between_off", "outside windows, between-windows=off (A/B)", "CI contains 1, half-width < 1%",
     lambda m: m["ci_low"] <= 1 <= m["ci_high"] and (m["ci_high"] - m["ci_low"]) / 2 < 0.01)
t.ab("events_tiny", "events mode, tiny_kernel_stress 16 streams (A/B)", "95% CI high <= 1.10",
     lambda m: m["ci_high"] <= 1.10)
t.row("events mode, trainer step (A/B)", "not run: aorta train not wired into this script", "<= 3%", "SKIP")
t.validate("validate.err", "sampled kernel durations vs CUPTI (same launches)")
def kv(name):
    x = t.text(name)
    return dict(l.split("=", 1) for l in x.split() if "=" in l) if x else None
r = kv("rate.txt")
if r:
    rate, lost = float(r["launches_per_s"]), int(r["lost"])
    t.row("CUPTI in a window at 200 000 launches/s", "%.0f launches/s in window, %d lost" % (rate, lost),
          ">= 200000/s, 0 lost", "PASS" if rate >= 200000 and lost == 0 else "FAIL")
else:
    t.row("CUPTI in a window at 200 000 launches/s", "no rate.txt", ">= 200000/s, 0 lost", "FAIL")
w = kv("windows.txt")
if w:
    ok = (int(w["windows"]) >= 50 and int(w["threads_after"]) <= int(w["threads_before"])
          and int(w["rss_after_kb"]) <= 1.10 * int(w["rss_before_kb"]) and w["exit"] == "0")
    t.row("50 windows opened/closed: no leak", "%s windows, threads %s->%s, RSS %s->%s MB" % (
        w["windows"], w["threads_before"], w["threads_after"], int(w["rss_before_kb"]) // 1024,
        int(w["rss_after_kb"]) // 1024), "50, threads not up, RSS +<=10%", "PASS" if ok else "FAIL")
else:
    t.row("50 windows opened/closed: no leak", "no windows.txt", "50, threads not up, RSS +<=10%", "FAIL")
n = kv("nsys.txt")
if n is None:
    t.row("agent + Nsight Systems merged: same launches' kernels", "no nsys.txt", "max |start d| <= 2 us", "FAIL")
elif n.get("status") == "skipped":
    t.row("agent + Nsight Systems merged: same launches' kernels", "skipped: " + n.get("why", "?").replace("_", " "),
          "max |start d| <= 2 us", "SKIP")
else:
    t.row("agent + Nsight Systems merged: same launches' kernels", "%s matched, |start d| median %s us, max %s us" % (
        n["matched"], n["median_us"], n["max_us"]), "max |start d| <= 2 us",
        "PASS" if int(n["matched"]) > 0 and float(n["max_us"]) <= 2 else "FAIL")
sys.exit(t.print())
PY
}

if [ "${1:-}" = "--summarize" ]; then
  [ -d "${2:-}" ] || { echo "agent-acceptance-16: --summarize needs a directory of logs, got '${2:-}'" >&2; exit 2; }
  summarize "$2"; exit $?
fi

cd "$root"
[ -f .device/prelude.sh ] && [ -z "${JAVA_HOME:-}" ] && . .device/prelude.sh
aorta=$root/dist/bin/aorta
[ -x "$aorta" ] && [ -f dist/lib/aorta-agent.jar ] || { echo "agent-acceptance-16: dist/ missing; run ./build package -DskipTests" >&2; exit 2; }
command -v python3 >/dev/null || { echo "agent-acceptance-16: python3 is needed for the table" >&2; exit 2; }
out=${OUT:-$root/agent-acceptance-16-out}
mkdir -p "$out"
runs=${RUNS:-5}; secs=${SECONDS_AB:-3}; every=${SAMPLE_EVERY:-100}
if [ -n "${AORTA_JAVA_HOME:-}" ]; then java="$AORTA_JAVA_HOME/bin/java"; else java=java; fi
cp=$(ls dist/lib/*.jar dist/examples/aorta-examples.jar | grep -v '/aorta-agent.jar$' | paste -sd: -)
agent=dist/lib/aorta-agent.jar
. scripts/lib/agent_events_steps.sh
step() { echo "== $1 $(date +%T)"; }

step "A/B API recording, launch_overhead balanced"
"$aorta" overhead --agent "device-activity=none,output=$out/agent-api" --runs "$runs" --threshold 0.01 \
  --json "$out/api_balanced.json" --logs "$out/api_balanced" -- launch-overhead --patterns balanced --seconds "$secs" \
  > "$out/api_balanced.log" 2>&1
rm -rf "$out/agent-api"

step "paired in-process cost per JCuda launch"
STREAMS=1 ARMS=agent OUT="$out/advice" scripts/agent-advice-cost.sh > "$out/advice_cost.log" 2>&1
cp "$out/advice/lines.txt" "$out/advice_cost.txt" 2>/dev/null

step "A/B outside windows with between-windows=off"
"$aorta" overhead --agent "device-activity=none,capture=on-demand,between-windows=off,output=$out/agent-off" \
  --runs "$runs" --threshold 0.01 --json "$out/between_off.json" --logs "$out/between_off" \
  -- launch-overhead --patterns balanced --seconds "$secs" > "$out/between_off.log" 2>&1

step "A/B events mode, tiny_kernel_stress on 16 streams"
agent_events_ab "$out" "$runs" "$every"

step "sampled kernels against CUPTI (device-activity=validate)"
agent_events_validate "$out" "$every"

step "CUPTI in a window at 200 000 launches/s"
"$java" --enable-native-access=ALL-UNNAMED \
  "-javaagent:$agent=device-activity=cupti,start-after=2s,duration=2s,output=$out/rate" \
  -cp "$cp" dev.aorta.examples.LaunchOverhead 16 500 3000 prebuilt > "$out/rate.log" 2> "$out/rate.err"
python3 - "$out/rate/rank_0_activity.jsonl" "$out/rate.err" > "$out/rate.txt" <<'PY'
import json, re, sys
launches = joined = 0; span = None
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("type") == "marker" and r.get("kind") == "CAPTURE":
        span = (r["start"], r["end"])
    if r.get("type") == "api" and r.get("name") == "cuLaunchKernel" and r.get("window") is not None:
        launches += 1
        joined += "cupti_correlation" in (r.get("args") or {})
err = open(sys.argv[2]).read()
# drops only: the agent's "API records were written before CUPTI's records ... arrived" is not a loss (most lie
# outside the window; the window's unjoined launches are counted above)
dropped = sum(int(n) for n in re.findall(r"(\d+) (?:call records|CUPTI records|API records) were dropped", err))
seconds = (span[1] - span[0]) / 1e9 if span else float("nan")
print("launches=%d joined=%d lost=%d window_s=%.3f launches_per_s=%.0f" % (launches, joined, launches - joined + dropped,
      seconds, launches / seconds if span else 0))
PY
cat "$out/rate.txt"; rm -rf "$out/rate"

step "50 capture windows opened and closed in one run"
"$java" --enable-native-access=ALL-UNNAMED \
  "-javaagent:$agent=device-activity=cupti,wait=2,warmup=1,active=1,repeat=50,output=$out/windows" \
  -cp "$cp" dev.aorta.examples.GpuStreamsExample 400 > "$out/windows.log" 2> "$out/windows.err" &
pid=$!
: > "$out/windows-proc.txt"
while kill -0 "$pid" 2>/dev/null; do
  # one line per 100 ms: the activity file's CAPTURE markers so far, resident set and thread count
  echo "$(grep -c '"kind":"CAPTURE"' "$out/windows/rank_0_activity.jsonl" 2>/dev/null || echo 0)" \
    "$(awk '/^VmRSS/{print $2}' /proc/$pid/status 2>/dev/null)" "$(awk '/^Threads/{print $2}' /proc/$pid/status 2>/dev/null)" \
    >> "$out/windows-proc.txt"
  sleep 0.1
done
wait "$pid"; wrc=$?
python3 - "$out/windows-proc.txt" "$out/windows/rank_0_activity.jsonl" "$wrc" > "$out/windows.txt" <<'PY'
import sys
samples = [l.split() for l in open(sys.argv[1]) if len(l.split()) == 3]
windows = sum(1 for l in open(sys.argv[2]) if '"kind":"CAPTURE"' in l)
# before: the first sample after window 5 closed (CUPTI's start-up is behind it); after: the last sample
before = next((s for s in samples if int(s[0]) >= 5), samples[0] if samples else ["0", "0", "0"])
after = samples[-1] if samples else ["0", "0", "0"]
# CUPTI's subscriber is not visible from outside the process; its worker thread is, in the thread count
print("windows=%d threads_before=%s threads_after=%s rss_before_kb=%s rss_after_kb=%s exit=%s" % (
    windows, before[2], after[2], before[1], after[1], sys.argv[3]))
PY
cat "$out/windows.txt"; rm -rf "$out/windows"

step "agent and Nsight Systems on one timeline"
if ! command -v nsys >/dev/null; then
  echo "status=skipped why=nsys_is_not_installed_on_this_host" > "$out/nsys.txt"
else
  # CUPTI is nsys's: the agent times every launch with event pairs (sample-every=1) on the JCuda launch path
  nsys profile -o "$out/nsys" --force-overwrite true --trace=cuda --export=sqlite \
    "$java" --enable-native-access=ALL-UNNAMED \
    "-javaagent:$agent=device-activity=events,sample-every=1,output=$out/nsys-agent" \
    -cp "$cp" dev.aorta.examples.LaunchOverhead 1 200 3 prebuilt > "$out/nsys.log" 2>&1
  "$aorta" merge "$out/nsys-agent" "$out/nsys.sqlite" -o "$out/merged.json" > "$out/merge.log" 2>&1
  python3 - "$out/merged.json" > "$out/nsys.txt" <<'PY'
import bisect, json, statistics, sys
events = json.load(open(sys.argv[1]))
events = events["traceEvents"] if isinstance(events, dict) else events
slices = [e for e in events if e.get("ph") == "X" and "ts" in e]
ours = sorted(e["ts"] for e in slices if str(e.get("name", "")).startswith("kernel@0x"))
theirs = sorted(e["ts"] for e in slices if "increment" in str(e.get("name", "")))
diffs = []
for t in ours:  # launches are µs apart; the same launch's kernel is the nearest one
    i = bisect.bisect_left(theirs, t)
    near = [abs(theirs[j] - t) for j in (i - 1, i) if 0 <= j < len(theirs)]
    if near:
        diffs.append(min(near))
if diffs:
    print("status=run matched=%d median_us=%.3f max_us=%.3f" % (len(diffs), statistics.median(diffs), max(diffs)))
else:
    print("status=run matched=0 median_us=nan max_us=nan")
PY
fi
cat "$out/nsys.txt"

echo
summarize "$out"
