#!/usr/bin/env python3
"""PyTorch eager side of aorta's model benchmark (issue 13): the same ops and training step as
dev.aorta.model.check.ModelBench, at the trainer's default sizes, device time from torch.profiler (the summed
duration of the CUDA kernels and memsets each op launched, per iteration). Dropout off, as on our side.

Usage: python3 scripts/model-bench.py [--iters N] [--bf16]   (--bf16: autocast bf16, fp32 master weights)
Prints `op  us/iter  kernels/iter`, the kernels by name of linear+gelu fwd, layer norm fwd+bwd and the step, and with --ours FILE (ModelBench's output)
the table ours / PyTorch.
"""
import argparse
import contextlib
import importlib.util
import os
import sys

import torch
import torch.nn.functional as F
from torch import nn
from torch.profiler import ProfilerActivity, profile


sys.dont_write_bytecode = True
_spec = importlib.util.spec_from_file_location(
    "ranking_check", os.path.join(os.path.dirname(os.path.abspath(__file__)), "model-ranking-check.py"))
ranking = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ranking)

CFG = {"batch": 8, "seq": 64, "denseFeatures": 16, "denseDim": 128, "sparseFeatures": 32, "vocab": 60000,
       "embeddingDim": 192, "modelDim": 768, "heads": 12, "layers": 8, "mlpHidden": 2048, "dropout": 0.0}
WARMUP = 5
RESULTS = {}  # op -> (us/iter, kernels/iter)
LEAVES = []  # tensors whose .grad is dropped before each iteration, so no op pays for gradient accumulation


def device_events(prof):
    out = []
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            t = getattr(e, "device_time", None)
            if t is None:
                t = e.cuda_time
            out.append((e.name, t))  # microseconds
    return out


def timed(name, fn, iters, autocast):
    ctx = torch.autocast("cuda", dtype=torch.bfloat16) if autocast else contextlib.nullcontext()
    with ctx:
        for _ in range(WARMUP):
            clear_grads()
            fn()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(iters):
                clear_grads()
                fn()
            torch.cuda.synchronize()
    ev = device_events(prof)
    us = sum(t for _, t in ev) / iters
    print(f"{name:40s} {us:12.1f} {len(ev) / iters:9.1f}", flush=True)
    RESULTS[name] = (us, len(ev) / iters)
    return ev


def by_name(what, ev, iters):
    """what's kernels by name, longest first (where an op's time goes, beside ModelBench's)."""
    by = {}
    for name, us in ev:
        s = by.setdefault(name[:60], [0.0, 0])
        s[0] += us
        s[1] += 1
    print(f"{what} kernels by name (us/iter, launches/iter):")
    for k, (us, cnt) in sorted(by.items(), key=lambda kv: -kv[1][0])[:40]:
        print(f"  {k:60s} {us / iters:9.1f} {cnt / iters:7.1f}")


def side_by_side(ours_file):
    """ModelBench's lines `op  us/iter  kernels` next to ours: the ratio ours / PyTorch of both."""
    ours = {}
    with open(ours_file) as f:
        for line in f:
            parts = line[40:].split()
            if len(parts) == 2 and line[:40].strip() in RESULTS:
                ours[line[:40].strip()] = (float(parts[0]), float(parts[1]))
    print(f"{'op':40s} {'ours us':>9s} {'torch us':>9s} {'ratio':>6s} {'ours k':>7s} {'torch k':>7s}")
    for name, (tus, tk) in RESULTS.items():
        if name in ours:
            ous, ok = ours[name]
            print(f"{name:40s} {ous:9.1f} {tus:9.1f} {ous / tus:6.2f} {ok:7.1f} {tk:7.1f}")


def clear_grads():
    for t in LEAVES:
        t.grad = None


def leaf(*shape, dtype=torch.float32):
    t = (torch.rand(*shape, device="cuda") - 0.5).to(dtype).requires_grad_(True)
    LEAVES.append(t)
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--bf16", action="store_true")
    ap.add_argument("--ours", help="ModelBench's output, for the ours / PyTorch table")
    args = ap.parse_args()
    n, ac = args.iters, args.bf16
    c = CFG
    b, t, m, h, nh = c["batch"], c["seq"], c["modelDim"], c["mlpHidden"], c["heads"]
    torch.backends.cuda.matmul.allow_tf32 = False
    print(f"device: {torch.cuda.get_device_name()}, PyTorch {torch.__version__} eager, "
          f"{'autocast bf16' if ac else 'fp32'}, torch.profiler kernel time")
    print(f"{'op':40s} {'us/iter':>12s} {'kernels':>9s}")

    x = leaf(b, t, m)
    w3, b3 = leaf(3 * m, m), leaf(3 * m)
    dy3 = torch.rand(b, t, 3 * m, device="cuda")
    timed("linear fwd 512x768->2304", lambda: F.linear(x, w3, b3), n, ac)
    timed("linear fwd+bwd 512x768->2304", lambda: F.linear(x, w3, b3).backward(dy3), n, ac)
    wf, bf = leaf(h, m), leaf(h)
    dyf = torch.rand(b, t, h, device="cuda")
    by_name("linear+gelu fwd", timed("linear+gelu fwd 512x768->2048", lambda: F.gelu(F.linear(x, wf, bf)), n, ac), n)
    timed("linear+gelu fwd+bwd 512x768->2048", lambda: F.gelu(F.linear(x, wf, bf)).backward(dyf), n, ac)
    g, be = leaf(m), leaf(m)
    dy = torch.rand(b, t, m, device="cuda")
    timed("layer norm fwd 512x768", lambda: F.layer_norm(x, (m,), g, be), n, ac)
    by_name("layer norm fwd+bwd",
            timed("layer norm fwd+bwd 512x768", lambda: F.layer_norm(x, (m,), g, be).backward(dy), n, ac), n)
    # under autocast torch's TransformerEncoderLayer hands SDPA the bf16 q, k, v its in-projection made (and gets
    # a bf16 dO back): leaves created in bf16, so that no cast kernel is timed (ours get 16-bit q, k, v likewise)
    qdt = torch.bfloat16 if ac else torch.float32
    q, k, v = (leaf(b, nh, t, m // nh, dtype=qdt) for _ in range(3))
    do = torch.rand(b, nh, t, m // nh, device="cuda").to(qdt)
    timed("attention fwd 8x12x64x64", lambda: F.scaled_dot_product_attention(q, k, v), n, ac)
    timed("attention fwd+bwd 8x12x64x64", lambda: F.scaled_dot_product_attention(q, k, v).backward(do), n, ac)
    table = leaf(c["vocab"], c["embeddingDim"])
    ids = torch.randint(0, c["vocab"], (b * t, c["sparseFeatures"]), device="cuda")
    dp = torch.rand(b * t, c["embeddingDim"], device="cuda")
    timed("embedding mean fwd 512x32 of 60000x192", lambda: F.embedding(ids, table).mean(dim=1), n, ac)
    timed("embedding mean fwd+bwd 512x32 of 60000x192",
          lambda: F.embedding(ids, table).mean(dim=1).backward(dp), n, ac)
    layer = nn.TransformerEncoderLayer(m, nh, h, dropout=0.0, activation="gelu", batch_first=True).cuda().train()
    LEAVES.extend(layer.parameters())
    timed("encoder layer fwd", lambda: layer(x), n, ac)
    timed("encoder layer fwd+bwd", lambda: layer(x).backward(dy), n, ac)

    model = ranking.RankingTransformerModel(c).cuda().train()
    for p in model.parameters():
        p.grad = torch.rand_like(p) * 1e-3
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, betas=(0.9, 0.98), eps=1e-8, weight_decay=0.01)

    def adamw():
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    timed("adamw + clip, all parameters", adamw, n, False)  # autocast does not reach the optimizer
    dense = torch.randn(b, t, c["denseFeatures"], c["denseDim"], device="cuda")
    cat = torch.randint(0, c["vocab"], (b, t, c["sparseFeatures"]), device="cuda")
    target = torch.randint(0, 2, (b, t), device="cuda").float()
    importance = torch.rand(b, t, device="cuda") + 0.5

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=ac):
            scores = model(dense, cat)
            loss = F.binary_cross_entropy_with_logits(scores.float(), target, weight=importance)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    by_name("step", timed("step: fwd + bwd + adamw", step, n, False), n)
    if args.ours:
        side_by_side(args.ours)


if __name__ == "__main__":
    main()
