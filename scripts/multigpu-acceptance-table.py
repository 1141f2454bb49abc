#!/usr/bin/env python3
"""The table of scripts/multigpu-acceptance.sh: reads what the sections left in OUT_DIR and prints one row per check.

usage: multigpu-acceptance-table.py OUT_DIR RANKS    (exit code 1 when a check failed)

Definitions used for both trainers, per step, from the ranges of a metrics line (ours: device times from CUPTI;
AORTA's: CUDA events around the host's enqueue of each range, which is what its trainer records):
  comm     = union of the ranges that are collectives (NCCL kernels for ours; AORTA's intercepted
             all_reduce / reduce_scatter_tensor / all_gather_into_tensor ranges)
  compute  = union of the other ranges on the compute stream
  exposed communication = |comm - compute|;  overlap = |comm & compute| / |comm|
  AORTA's overlap_ratio = sum(overlap_ms.compute_comm) / sum(per_stream_ms.compute) (analysis/overlap_report.py)
Steps before the 10th are warm-up and left out of the medians.
"""
import glob
import json
import os
import re
import statistics
import sys

out, ranks = sys.argv[1], int(sys.argv[2])
rows = []
WARMUP = 10
COMM = re.compile(r"nccl|all_reduce|allreduce|reduce_scatter|reducescatter|all_gather|allgather|all_to_all", re.I)


def row(check, value, target="info", ok=None):
    rows.append((check, value, target, "ok" if ok else ("FAIL" if ok is False else "-")))


def rc(name):
    p = os.path.join(out, name + ".rc")
    return open(p).read().strip() if os.path.exists(p) else None


def jsonl(path):
    """Whole lines only (a killed writer may leave a fragment), and the count of lines that did not parse."""
    good, bad = [], 0
    if not os.path.exists(path):
        return good, bad
    with open(path) as f:
        for line in f:
            if not line.endswith("\n"):
                continue
            try:
                good.append(json.loads(line))
            except ValueError:
                bad += 1
    return good, bad


def metrics(run):
    """Every rank's metrics lines of one trainer run: {rank: [line, ...]}."""
    found = {}
    for p in sorted(glob.glob(os.path.join(out, run, "rank_*_metrics.jsonl"))):
        found[int(re.search(r"rank_(\d+)_", p).group(1))] = jsonl(p)[0]
    return found


def union(intervals):
    merged = []
    for s, e in sorted(intervals):
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return merged


def length(iv):
    return sum(e - s for s, e in iv)


def intersect(a, b):
    res, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        s, e = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if s < e:
            res.append([s, e])
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return res


def step_overlap(line):
    ranges = line["profile"]["ranges"]
    comm = union([(r["start_ms"], r["end_ms"]) for r in ranges if COMM.search(r["tag"])])
    compute = union([(r["start_ms"], r["end_ms"]) for r in ranges
                     if r["stream"] == "compute" and not COMM.search(r["tag"])])
    c = length(comm)
    both = length(intersect(comm, compute))
    return c, c - both, both


def median(v):
    return statistics.median(v) if v else float("nan")


# 1. exactness
single = metrics("exact-single").get(0, [])
for mode in ("full_shard", "shard_grad_op", "no_shard", "hybrid_shard", "ddp"):
    if rc("exact-" + mode) is None:
        continue
    m = metrics("exact-" + mode)
    if rc("exact-" + mode) != "0" or len(m) != ranks or any(len(v) != 50 for v in m.values()) or len(single) != 50:
        row("trainer %s vs 1 GPU, fp32 50 steps" % mode, "run failed: rc %s, %d ranks, single %d lines"
            % (rc("exact-" + mode), len(m), len(single)), "<= 1e-4 rel", False)
        continue
    dloss = dnorm = 0.0
    for s in range(50):
        loss = sum(m[r][s]["loss"] for r in m) / len(m)  # each rank's mean over an equal share of the batch
        dloss = max(dloss, abs(loss - single[s]["loss"]) / abs(single[s]["loss"]))
        dnorm = max(dnorm, abs(m[0][s]["grad_norm"] - single[s]["grad_norm"]) / abs(single[s]["grad_norm"]))
    row("trainer %s vs 1 GPU, fp32 50 steps" % mode, "loss %.1e, grad norm %.1e" % (dloss, dnorm), "<= 1e-4 rel",
        max(dloss, dnorm) <= 1e-4)

# 2. speed and overlap, ours against AORTA's
for shape in ("default", "stress", "default-connections"):
    o, a = metrics("ours-" + shape.split("-")[0]), metrics("aorta-" + shape)
    if not o and not a:
        continue
    def summary(m, wall_field):
        lines = [l for r in sorted(m) for l in m[r] if l["step"] >= WARMUP]
        if not lines:
            return None
        per_rank_step = {}
        for l in lines:  # the slowest rank's time is the step's
            k = l["step"]
            per_rank_step[k] = max(per_rank_step.get(k, 0), l.get(wall_field) or l["profile"]["total_ms"])
        ov = [step_overlap(l) for l in lines]
        comp = sum(l["profile"]["overlap"]["per_stream_ms"]["compute"] for l in lines)
        cc = sum(l["profile"]["overlap"]["overlap_ms"].get("compute_comm", 0) for l in lines)
        return {"step": median(list(per_rank_step.values())), "window": median([l["profile"]["total_ms"] for l in lines]),
                "comm": median([x[0] for x in ov]), "exposed": median([x[1] for x in ov]),
                "overlap": sum(x[2] for x in ov) / max(sum(x[0] for x in ov), 1e-12),
                "aorta_ratio": cc / comp if comp else 0.0, "steps": len(per_rank_step)}
    so, sa = summary(o, "step_time_ms"), summary(a, None)
    for who, s, r in (("ours", so, rc("ours-" + shape)), ("AORTA", sa, rc("aorta-" + shape))):
        if who == "ours" and shape.endswith("connections"):
            continue  # the same run of ours as the default shape's
        if s is None:
            row("%s %s trainer, %d ranks" % (who, shape, ranks), "no steps (rc %s)" % r, "a run", False)
            continue
        row("%s %s step ms (median, slowest rank)" % (who, shape), "%.2f (device window %.2f, %d steps, rc %s)"
            % (s["step"], s["window"], s["steps"], r))
        row("%s %s comm / exposed ms per step" % (who, shape), "%.3f / %.3f, overlap %.1f%%, overlap_ratio %.3f"
            % (s["comm"], s["exposed"], 100 * s["overlap"], s["aorta_ratio"]),
            "device times" if who == "ours" else "host enqueue times")
    if so and sa:
        ratio = so["step"] / sa["step"]
        row("ours / AORTA step time, %s, %d ranks" % (shape, ranks), "%.3f" % ratio, "<= 0.5", ratio <= 0.5)
inject = metrics("ours-inject").get(0, [])
if rc("ours-inject") is not None:
    lines = [l for l in inject if l["step"] >= WARMUP]
    per_step = [sum(1 for r in l["profile"]["ranges"] if r["stream"] == "allreduce" and "allreduce" in r["tag"].lower())
                for l in lines]
    # 3 cycles x 3 all-reduces + the loss's; the gradient norm's all-reduce may share the stream
    row("inject_allreduce_copies level 3: all-reduce kernels per step on allreduce",
        "%s (rc %s, %d steps)" % (sorted(set(per_step)), rc("ours-inject"), len(lines)), ">= 10 every step",
        bool(per_step) and min(per_step) >= 10)
for run in ("aorta-default-profiled", "ours-default-profiled"):
    if rc(run) is not None:
        traces = [os.path.relpath(p, out) for p in glob.glob(os.path.join(out, run, "**", "*.json*"), recursive=True)]
        row("profiled run " + run, "rc %s, %d trace files" % (rc(run), len(traces)), "traces", rc(run) == "0" and bool(traces))

# 3. kill one rank
k = os.path.join(out, "kill.result")
if os.path.exists(k):
    text = open(k).read()
    m = re.search(r"launcher rc (\d+), (\d+) rank processes alive, ([\d.]+) s", text)
    ok = bool(m) and m.group(1) != "0" and m.group(2) == "0" and float(m.group(3)) <= 10 and "rank 1 (pid" in text
    row("kill rank 1 mid-step: all gone, named", "%s s, rc %s" % (m.group(3), m.group(1)) if m else text[:50],
        "<= 10 s, rank 1 named", ok)
    whole, broken = 0, 0
    for p in glob.glob(os.path.join(out, "kill", "rank_*_metrics.jsonl")):
        g, b = jsonl(p)
        whole, broken = whole + len(g), broken + b
    row("kill: metrics lines that parse", "%d whole, %d broken" % (whole, broken), "0 broken", whole > 0 and broken == 0)

# 3b. the trainer's collectives against a plain NCCL loop of the same sizes (bus bytes over time, per kind)
LINE = re.compile(r"collective (all_gather|reduce_scatter) S=(\d+) B over (\d+) ranks: ([\d.]+) per step, mean ([\d.]+) us,"
                  r" algbw ([\d.]+) GB/s, busbw ([\d.]+) GB/s")
for shape in ("default", "mi350_overlap_stress"):
    p = os.path.join(out, "bw-%s.log" % shape)
    if not os.path.exists(p):
        continue
    per_kind = {}
    for m in LINE.finditer(open(p).read()):
        kind, size, group, per_step, mean_us, busbw = m.group(1), int(m.group(2)), int(m.group(3)), \
            float(m.group(4)), float(m.group(5)), float(m.group(7))
        loop = os.path.join(out, "bw-loop-%s-%d.rank0.json" % (kind, size))
        plain = json.load(open(loop))["communication"]["busbw_gbps"] if os.path.exists(loop) else None
        bus_bytes = per_step * size * (group - 1) / group  # per step, on the busiest link
        k = per_kind.setdefault(kind, [0.0, 0.0, 0.0, True])
        k[0] += bus_bytes
        k[1] += bus_bytes / busbw
        if plain:
            k[2] += bus_bytes / plain
        else:
            k[3] = False
        row("trainer %s %s %.1f MB" % (shape, kind, size / 1e6), "busbw %.1f GB/s in the step, %s in a plain loop"
            % (busbw, "%.1f" % plain if plain else "n/a"))
    for kind, (b, t_trainer, t_plain, complete) in per_kind.items():
        ratio = t_plain / t_trainer if complete and t_trainer else None
        row("trainer %s %s busbw / plain loop" % (shape, kind), "%.3f (%.1f vs %.1f GB/s)" % (
            ratio, b / t_trainer, b / t_plain) if ratio else "n/a", ">= 0.9", ratio is not None and ratio >= 0.9)
    if not per_kind:
        row("trainer %s collectives" % shape, "no collective lines (rc %s)" % rc("bw-" + shape), "lines", False)

# 4. all-reduce bus bandwidth
torch_r, ours_r = [], []
for i in (1, 2, 3):
    p = os.path.join(out, "torch-busbw-r%d.json" % i)
    if os.path.exists(p):
        torch_r.append(json.load(open(p))["busbw_gbps"])
    rs = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(out, "ours-busbw-r%d.rank*.json" % i)))]
    if rs:
        ours_r.append(min(r["communication"]["loop_busbw_gbps"] or 0 for r in rs))
if torch_r or ours_r:
    row("all_reduce 128M bf16 busbw GB/s, torch / ours", "%s / %s" % (" ".join("%.1f" % v for v in torch_r),
        " ".join("%.1f" % v for v in ours_r)))
if torch_r and ours_r:
    ratio = median(ours_r) / median(torch_r)
    row("busbw ours / torch (medians of 3 rounds)", "%.3f" % ratio, ">= 0.97", ratio >= 0.97)

# 5. distributed workloads
for w in ("fsdp_tp", "moe", "activation_ckpt", "grad_accum"):
    if rc("wl-" + w) is None:
        continue
    rs = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(out, "wl-%s.rank*.json" % w)))]
    if len(rs) != ranks:
        row("%s over %d ranks" % (w, ranks), "rc %s, %d result files" % (rc("wl-" + w), len(rs)), "a result per rank", False)
        continue
    coll = {str((r.get("workload_results") or {}).get("collectives")) for r in rs}
    busy = min(min(r["per_stream_times_ms"]) for r in rs)
    bad = [r["correctness"]["problem"] for r in rs if r["correctness"]["problem"]]
    ok = rc("wl-" + w) == "0" and not bad and busy > 0 and all("nccl" in c for c in coll)
    row("%s over %d ranks" % (w, ranks), "%.4g %s (rank 0), least busy stream %.3g ms, %s%s" % (
        rs[0]["throughput"], rs[0]["throughput_unit"], busy, "/".join(sorted(coll)), ", wrong: " + bad[0] if bad else ""),
        "nccl, every stream busy, check ok", ok)

# 6. launch_overhead, bare and under the agent
p = os.path.join(out, "lo-bare.json")
if os.path.exists(p):
    lo = json.load(open(p))
    for s in lo["summary"]:
        row("launch_overhead %s ms/step" % s["pattern"], "skipped: " + s["skipped"] if "skipped" in s else
            "%.3f mean over %d ranks" % (s["ms_per_step_mean"], s["ranks"]), "measured", "skipped" not in s)
    row("launch_overhead correctness", "PASS" if lo["correctness"]["passed"] else "FAIL", "PASS",
        lo["correctness"]["passed"])
elif rc("lo-bare") is not None:
    row("launch_overhead over %d ranks" % ranks, "no result, rc %s" % rc("lo-bare"), "a result", False)
p = os.path.join(out, "lo-agent.json")
if os.path.exists(p):
    for m in json.load(open(p))["metrics"]:
        row("agent A/B %s B/A" % m["metric"], "%.4f [%.4f, %.4f]" % (m["ratio"], m["ci_low"], m["ci_high"]),
            "<= 1%% (%s)" % m["verdict"], m["verdict"] == "within threshold")

if not rows:
    print("nothing to report in", out)
    sys.exit(1)
w = max(len(r[0]) for r in rows)
v = min(max(len(r[1]) for r in rows), 70)
print("%-*s  %-*s  %-28s  %s" % (w, "CHECK (%d GPUs)" % ranks, v, "VALUE", "TARGET", "STATUS"))
for r in rows:
    print("%-*s  %-*s  %-28s  %s" % (w, r[0], v, r[1], r[2], r[3]))
failed = sum(1 for r in rows if r[3] == "FAIL")
print("\n%d checks failed; logs and results in %s" % (failed, out))
sys.exit(1 if failed else 0)
