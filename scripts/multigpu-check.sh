#!/usr/bin/env bash
# GPU acceptance of multi-GPU (issue 6), in one go, from a built dist/ on a host with 2 or more GPUs:
#   ./build package -DskipTests && scripts/pack-device.sh      # here
#   scripts/multigpu-check.sh                                      # on the GPU host, from the project root
# Needs python3 with torch (the PyTorch reference and the table) and torchrun on PATH. Uses min(GPUs, 4) ranks;
# the [0,1],[2,3] process-group check needs 4. Logs and results go to $OUT (default ./multigpu-check-out);
# a short table is printed last; exit code 1 when a check failed. About 3-6 minutes.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ -f .device/prelude.sh ] && . .device/prelude.sh
export NCCL_NVLS_ENABLE=0   # never NVLink multicast on the shared hosts
aorta=$root/dist/bin/aorta
[ -x "$aorta" ] || { echo "multigpu-check: $aorta not found; run ./build package -DskipTests first" >&2; exit 2; }
command -v python3 >/dev/null || { echo "multigpu-check: python3 is needed" >&2; exit 2; }
out=${OUT:-$root/multigpu-check-out}
mkdir -p "$out"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "$gpus" -ge 2 ] || { echo "multigpu-check: needs 2 or more GPUs, nvidia-smi lists $gpus" >&2; exit 2; }
n=$(( gpus < 4 ? gpus : 4 ))
port=$(( 29600 + RANDOM % 2000 ))
failures=0
echo "== $gpus GPUs, using $n ranks; logs in $out"
nvidia-smi --query-gpu=index,name,driver_version --format=csv > "$out/nvidia-smi.csv" 2>&1

step() {  # step NAME EXPECTED_RC command...: runs with a 150 s limit, logs to $out/NAME.log, counts a wrong exit code
  local name=$1 want=$2; shift 2
  port=$((port + 3))
  echo "== $name: $*"
  timeout -k 10 150 "$@" >"$out/$name.log" 2>&1
  local rc=$?
  tail -n 25 "$out/$name.log"
  echo "$rc" > "$out/$name.rc"
  if [ "$rc" != "$want" ]; then
    echo "!! $name exited $rc, expected $want"; failures=$((failures + 1))
  fi
}
launch() { echo "$aorta" launch --nproc-per-node "$1" --master-port "$port" --timeout 140 --; }

# 1. all-reduce busbw, 128 MiB bf16: PyTorch and ours on the same GPUs in the same run, both back to back,
#    in 3 alternating rounds (torch, ours, torch, ours, ...): the host's bandwidth drifts between runs, so the
#    ratio is of the medians
for i in 1 2 3; do
  step torch_busbw_r$i 0 torchrun --standalone --nproc-per-node "$n" scripts/bench/torch_allreduce_busbw.py \
    --size 128M --dtype bf16 --iters 100 --warmup 10 --out "$out/torch_busbw_r$i.json"
  step comms_only_r$i 0 $(launch "$n") overlap --mode comms_only --comm-size 128M --comm-dtype bf16 --async-op \
    --sync-mode end_only -i 100 -w 10 -o "$out/comms_only_r$i.json"
done
# 2. comms + compute with 2 compute streams: async (overlap expected) and blocking collectives (none expected)
step comms_compute 0 $(launch "$n") overlap --mode comms_compute --compute-streams 2 --async-op \
  -o "$out/comms_compute.json"
step comms_compute_blocking 0 $(launch "$n") overlap --mode comms_compute --compute-streams 2 --no-references \
  -o "$out/comms_compute_blocking.json"
# 3. every collective's result, and process groups
for c in all_gather reduce_scatter broadcast all_to_all; do
  step "coll_$c" 0 $(launch "$n") overlap --mode comms_only --collective "$c" --comm-size 64M --async-op -i 20 \
    -o "$out/coll_$c.json"
done
step groups_0_1 0 $(launch 2) overlap --mode comms_only --process-groups "[0],[1]" --comm-size 16M -i 20 \
  -o "$out/groups_0_1.json"
if [ "$n" -ge 4 ]; then
  step groups_01_23 0 $(launch 4) overlap --mode comms_only --process-groups "[0,1],[2,3]" --comm-size 16M -i 20 \
    -o "$out/groups_01_23.json"
fi
# 4. the same command under torchrun (its agent owns MASTER_PORT; our rendezvous uses the next port)
if command -v torchrun >/dev/null; then
  step torchrun 0 torchrun --standalone --nproc-per-node "$n" --no-python "$aorta" overlap --mode comms_only \
    --comm-size 16M -i 20 -o "$out/torchrun.json"
fi
# 5. bad input: clear errors before GPU work
step bad_groups 2 "$aorta" overlap --process-groups "[0],[]"
step too_many_ranks 2 "$aorta" launch --nproc-per-node $((gpus + 1)) -- overlap
python3 -c 'import socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); time.sleep(30)' \
  $((port + 100)) & holder=$!
sleep 1
step port_in_use 2 "$aorta" launch --nproc-per-node 2 --master-port $((port + 100)) -- overlap
kill "$holder" 2>/dev/null

# 6. kill one rank's JVM mid-run: the launcher names it and every rank is gone within 10 s
port=$((port + 3))
echo "== kill_one_rank"
"$aorta" launch --nproc-per-node "$n" --master-port "$port" -- overlap --mode comms_compute --async-op \
  --no-references -i 20000 -w 10 --kernel-timing event-pairs > "$out/kill_one_rank.log" 2>&1 &
launcher=$!
victim=""; ranks=""
for _ in $(seq 1 120); do   # until rank 1 runs its measured loop (a minute at most)
  sleep 0.5
  ranks=$(pgrep -P "$launcher" | tr '\n' ' ')
  for p in $ranks; do tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx 'RANK=1' && victim=$p; done
  [ -n "$victim" ] && grep -q 'rendezvous: serving' "$out/kill_one_rank.log" && break
done
sleep 8  # past NCCL init and setup, inside the measured iterations
if [ -n "$victim" ]; then
  kill -9 "$victim"; killed=$(date +%s.%N)
  for _ in $(seq 1 150); do kill -0 "$launcher" 2>/dev/null || break; sleep 0.1; done
  alive=0; for p in $ranks; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
  gone=$(python3 -c "import time; print('%.1f' % (time.time() - $killed))")
  wait "$launcher"; lrc=$?
  echo "launcher rc $lrc, $alive rank processes alive, $gone s after the kill" | tee "$out/kill_one_rank.result"
  grep '^aorta launch:' "$out/kill_one_rank.log" | tee -a "$out/kill_one_rank.result"
  for p in $ranks; do kill -9 "$p" 2>/dev/null; done
else
  echo "rank 1 never started" | tee "$out/kill_one_rank.result"; kill "$launcher" 2>/dev/null
fi

# 7. the agent attached to the same run, and aorta report on its output (when the agent is in this build);
#    the agent owns CUPTI there, so the workload times itself with event pairs
if [ -f dist/lib/aorta-agent.jar ]; then
  rm -rf "$out/agent"
  port=$((port + 3))
  step agent_run 0 "$aorta" launch --nproc-per-node "$n" --master-port "$port" \
    --java-opts "-javaagent:$root/dist/lib/aorta-agent.jar=output=$out/agent,iteration-method=dev.aorta.workloads.comm.CommsComputeOverlap#runIteration" \
    -- overlap --mode comms_compute \
    --async-op --no-references -i 20 --kernel-timing event-pairs -o "$out/agent_run.json"
  # the report's plots need java.desktop, which a runtime packed without it leaves out (scripts/pack-device.sh has it)
  if "${JAVA_HOME:+$JAVA_HOME/bin/}java" --list-modules 2>/dev/null | grep -q '^java.desktop'; then
    step agent_report 0 "$aorta" report --log-dir "$out/agent" --label agent --output "$out/agent-report"
  else
    echo "this Java runtime has no java.desktop: run aorta report on $out/agent elsewhere" > "$out/agent_report.skip"
  fi
fi

echo
python3 - "$out" "$failures" "$n" <<'PY'
import glob, json, os, re, sys
out, failures, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows = []
def row(check, value, target, ok):
    rows.append((check, value, target, "ok" if ok else ("FAIL" if ok is False else "-")))
def ranks(name):  # every rank's result file of one step
    return [json.load(open(f)) for f in sorted(glob.glob(os.path.join(out, name + ".rank*.json")))]
def num(fmt, v):  # a number that may be null in the result (no reference run, nothing measured)
    return "n/a" if v is None else fmt % v
def rc(name):
    p = os.path.join(out, name + ".rc")
    return open(p).read().strip() if os.path.exists(p) else None
def median(v):
    v = sorted(v); k = len(v)
    return None if not k else (v[k // 2] if k % 2 else (v[k // 2 - 1] + v[k // 2]) / 2)
torch_rounds, ours_rounds, kern_rounds = [], [], []
for i in (1, 2, 3):
    p = os.path.join(out, "torch_busbw_r%d.json" % i)
    if os.path.exists(p):
        torch_rounds.append(json.load(open(p))["busbw_gbps"])
    c = ranks("comms_only_r%d" % i)
    if c:  # a collective is as fast as its slowest rank
        ours_rounds.append(min(r["communication"]["loop_busbw_gbps"] or 0 for r in c))
        kern_rounds.append(min(r["communication"]["busbw_gbps"] or 0 for r in c))
if torch_rounds:
    row("torch all_reduce 128M bf16 busbw GB/s", "median %.1f of %s" % (median(torch_rounds),
        " ".join("%.1f" % v for v in torch_rounds)), "info", None)
if ours_rounds:
    row("aorta all_reduce 128M bf16 busbw GB/s", "median %.1f of %s (kernels only: %s)" % (median(ours_rounds),
        " ".join("%.1f" % v for v in ours_rounds), " ".join("%.1f" % v for v in kern_rounds)), "info", None)
    if torch_rounds and median(torch_rounds) > 0:
        ratio = median(ours_rounds) / median(torch_rounds)
        row("busbw aorta / torch (medians)", "%.3f" % ratio, ">= 0.97", ratio >= 0.97)
cc = ranks("comms_compute")
for r in cc[:1] + cc[-1:] if len(cc) > 1 else cc:
    rk = r["distributed"]["rank"]; o = r["overlap"]
    row("rank %d comms_compute overlap %%" % rk, "%.1f" % o["comm_overlap_pct"], "info", None)
    row("rank %d exposed comm ms/iter" % rk, "%.3f of %.3f" % (o["exposed_comm_ns"] / 1e6, o["comm_ns"] / 1e6), "info", None)
    row("rank %d compute slowdown" % rk, num("%.3fx", r["compute_slowdown"]), "info", None)
    row("rank %d comm slowdown" % rk, num("%.3fx", r["comm_slowdown"]), "info", None)
    row("rank %d compute TFLOP/s (bf16 2048^3)" % rk, num("%.0f", r["compute"]["tflops"]), "info", None)
for r in ranks("comms_compute_blocking")[:1]:
    row("blocking collectives overlap %", "%.1f" % r["overlap"]["comm_overlap_pct"], "info (host waits)", None)
for name in ["comms_only_r1", "comms_compute", "coll_all_gather", "coll_reduce_scatter", "coll_broadcast",
             "coll_all_to_all", "groups_0_1", "groups_01_23", "torchrun"]:
    rs = ranks(name)
    if rc(name) is None:
        continue
    bad = [r["distributed"]["rank"] for r in rs if r["correctness"]["problem"]]
    ok = rc(name) == "0" and len(rs) > 0 and not bad
    rule = rs[0]["correctness"]["rule"] if rs else "no result"
    row("correct: " + name, "%d ranks%s" % (len(rs), ", wrong on " + str(bad) if bad else ""), rule[:40], ok)
for name, want in (("bad_groups", "group 2 is empty"), ("too_many_ranks", "visible"), ("port_in_use", "already in use")):
    p = os.path.join(out, name + ".log")
    if os.path.exists(p):
        text = open(p).read()
        row("error: " + name, text.strip().splitlines()[-1][:60] if text.strip() else "(none)", want,
            want in text and rc(name) == "2")
k = os.path.join(out, "kill_one_rank.result")
if os.path.exists(k):
    text = open(k).read()
    m = re.search(r"launcher rc (\d+), (\d+) rank processes alive, ([\d.]+) s", text)
    ok = bool(m) and m.group(1) != "0" and m.group(2) == "0" and float(m.group(3)) <= 10 and "rank 1 (pid" in text
    row("kill rank 1: report, all gone", "%s s, rc %s" % (m.group(3), m.group(1)) if m else text[:40], "<= 10 s, named", ok)
if os.path.exists(os.path.join(out, "agent_report.skip")):
    row("agent run (report: no java.desktop here)", "rc %s" % rc("agent_run"), "0", rc("agent_run") == "0")
elif os.path.exists(os.path.join(out, "agent_report.rc")):
    row("agent run + aorta report", "rc %s / %s" % (rc("agent_run"), rc("agent_report")), "0 / 0",
        rc("agent_run") == "0" and rc("agent_report") == "0")
else:
    row("agent run + aorta report", "skipped", "dist/lib/aorta-agent.jar", None)
w = max(len(r[0]) for r in rows); v = max(len(r[1]) for r in rows)
print("%-*s  %-*s  %-40s  %s" % (w, "CHECK", v, "VALUE", "TARGET", "STATUS"))
for r in rows:
    print("%-*s  %-*s  %-40s  %s" % (w, r[0], v, r[1], r[2], r[3]))
bad = sum(1 for r in rows if r[3] == "FAIL")
print("\n%d checks failed, %d commands failed; %d ranks; logs and results in %s" % (bad, failures, n, out))
sys.exit(1 if bad or failures else 0)
PY
