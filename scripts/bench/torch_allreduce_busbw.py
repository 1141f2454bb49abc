#!/usr/bin/env python3
"""torch.distributed all-reduce bandwidth, timed the way nccl-tests times it, as the reference for
`aorta overlap --mode comms_only`:

    torchrun --standalone --nproc-per-node N scripts/bench/torch_allreduce_busbw.py [--size 128M] [--dtype bf16]
        [--iters 100] [--warmup 10] [--out FILE]

Each rank runs `warmup` all-reduces, then `iters` back to back between two CUDA events on the current stream;
time = elapsed / iters, the slowest rank's (like nccl-tests, a collective is as slow as its slowest rank).
algbw = size / time (GB = 1e9 bytes); busbw = algbw * 2(n-1)/n (nccl-tests' all-reduce bus bandwidth).
Rank 0 prints the numbers and writes them as JSON to --out.
"""
import argparse
import json
import os
import re

import torch
import torch.distributed as dist

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


def parse_size(text):
    m = re.fullmatch(r"\s*(\d+)\s*([KMG]?)(?:i?B)?\s*", text, re.IGNORECASE)
    if not m:
        raise SystemExit("--size %r: expected bytes with an optional K, M or G suffix (powers of 1024)" % text)
    return int(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[m.group(2).upper()]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", default="128M")
    p.add_argument("--dtype", default="bf16", choices=sorted(DTYPES))
    p.add_argument("--iters", type=int, default=100)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--out")
    a = p.parse_args()
    size = parse_size(a.size)
    dtype = DTYPES[a.dtype]
    elem = torch.tensor([], dtype=dtype).element_size()
    if size % elem:
        raise SystemExit("--size %d is not a whole number of %s elements" % (size, a.dtype))

    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
    n = dist.get_world_size()
    x = torch.ones(size // elem, dtype=dtype, device="cuda")
    for _ in range(a.warmup):
        dist.all_reduce(x)
    torch.cuda.synchronize()
    dist.barrier()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(a.iters):
        dist.all_reduce(x)
    end.record()
    end.synchronize()
    t = torch.tensor([start.elapsed_time(end) / a.iters], device="cuda", dtype=torch.float64)  # ms per all-reduce
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    time_s = t.item() / 1e3
    algbw = size / time_s / 1e9
    busbw = algbw * 2 * (n - 1) / n
    if dist.get_rank() == 0:
        result = {"size_bytes": size, "dtype": a.dtype, "ranks": n, "iters": a.iters, "warmup": a.warmup,
                  "time_us": time_s * 1e6, "algbw_gbps": algbw, "busbw_gbps": busbw,
                  "torch": torch.__version__, "nccl": ".".join(map(str, torch.cuda.nccl.version())),
                  "definition": "time = slowest rank's (events around iters back-to-back all-reduces) / iters; "
                                "algbw = size / time; busbw = algbw * 2(n-1)/n"}
        print("torch all_reduce %s %s on %d ranks: %.1f us, algbw %.1f GB/s, busbw %.1f GB/s (torch %s, NCCL %s)"
              % (a.dtype, a.size, n, time_s * 1e6, algbw, busbw, result["torch"], result["nccl"]))
        if a.out:
            tmp = a.out + ".tmp"
            with open(tmp, "w") as f:
                json.dump(result, f, indent=2)
            os.replace(tmp, a.out)  # atomic
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
