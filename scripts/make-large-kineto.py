#!/usr/bin/env python3
"""Writes a large synthetic Kineto trace for benchmarks by replicating a real trace's events end to end.

Copy k of every trace event is shifted by k times the trace's span (plus a gap) in time, and its ids that link
records (correlation, External id, the wait-event record correlation, ProfilerStep numbers) are offset so that no
two copies share one; metadata ("M") events are written once. Everything else is the source's, so the result has
the source's mix of kernels, copies, runtime calls and ops, just more of them.

Usage: scripts/make-large-kineto.py SOURCE.json[.gz] OUT.json[.gz] SIZE_MB
"""
import gzip
import json
import re
import sys

STEP = re.compile(r"^ProfilerStep#(\d+)$")
ID_ARGS = ("correlation", "External id", "wait_on_cuda_event_record_corr_id", "Record function id", "Ev Idx")


def open_any(path, mode):
    return gzip.open(path, mode + "t", encoding="utf-8") if path.endswith(".gz") else open(path, mode, encoding="utf-8")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[-1])
    source, out, size_mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
    with open_any(source, "r") as f:
        trace = json.load(f)
    events = trace.pop("traceEvents")
    meta = [e for e in events if e.get("ph") == "M"]
    timed = [e for e in events if e.get("ph") != "M"]
    starts = [e["ts"] for e in timed if isinstance(e.get("ts"), (int, float))]
    span = max(e["ts"] + e.get("dur", 0) for e in timed if isinstance(e.get("ts"), (int, float))) - min(starts)
    shift = float(int(span) + 1000)  # microseconds between copies
    id_step = {k: 1 + max((e.get("args", {}).get(k, 0) for e in timed
                           if isinstance(e.get("args", {}).get(k, 0), int)), default=0) for k in ID_ARGS}
    flow_step = 1 + max((e["id"] for e in timed if isinstance(e.get("id"), int)), default=0)
    steps = [int(m.group(1)) for e in timed for m in [STEP.match(e.get("name", ""))] if m]
    step_step = (max(steps) - min(steps) + 1) if steps else 0
    per_copy = sum(len(json.dumps(e)) + 2 for e in timed)
    copies = max(1, round(size_mb * 1e6 / per_copy))
    with open_any(out, "w") as f:
        f.write("{")
        for k, v in trace.items():
            f.write(json.dumps(k) + ": " + json.dumps(v) + ",\n")
        f.write('"traceEvents": [\n')
        first = True
        for e in meta:
            f.write(("" if first else ",\n") + json.dumps(e))
            first = False
        for c in range(copies):
            for e in timed:
                e2 = dict(e)
                if isinstance(e2.get("ts"), (int, float)):
                    e2["ts"] = round(e2["ts"] + c * shift, 3)
                if isinstance(e2.get("id"), int):
                    e2["id"] = e2["id"] + c * flow_step
                m = STEP.match(e2.get("name", ""))
                if m:
                    e2["name"] = "ProfilerStep#%d" % (int(m.group(1)) + c * step_step)
                args = e2.get("args")
                if args:
                    args = dict(args)
                    for k in ID_ARGS:
                        if isinstance(args.get(k), int) and args[k] > 0:
                            args[k] += c * id_step[k]
                    e2["args"] = args
                f.write(("" if first else ",\n") + json.dumps(e2))
                first = False
        f.write("\n]}\n")
    print("%s: %d copies of %d events" % (out, copies, len(timed)))


if __name__ == "__main__":
    main()
