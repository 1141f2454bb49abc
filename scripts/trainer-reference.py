#!/usr/bin/env python3
"""PyTorch eager reference for `aorta train` (issue 14).

replay: the same model and steps as one of our runs. Loads the starting weights our trainer wrote
(--save-weights) into the torch module (load_state_dict strict; our names are its state_dict), replays the
micro-batches, learning rates and optimizer settings our trainer dumped (--dump-batches): per step, zero grads,
forward + BCE-with-logits (importance-weighted mean) / k and backward for each of k micro-batches,
clip_grad_norm_, AdamW. Writes OUT/losses.json (per-step loss and gradient norm) and OUT/final.safetensors (the
weights after the last step), for the Java-side comparison (dev.aorta.trainer.check.ReferenceComparison).
Precision fp32 runs with TF32 off; bf16 runs the fp32 module under torch.autocast(bfloat16), as AORTA does.
Dropout must be 0 (the masks cannot be matched).

timing: AORTA's step in PyTorch eager at given sizes, bf16 autocast, dropout as given: H2D copy of a pinned
batch (non_blocking), zero_grad, forward + loss, backward, clip_grad_norm_, AdamW. Each step is timed with CUDA
events around it; the warm-up steps are left out. Prints the median and mean ms/step.

Usage:
  trainer-reference.py replay WEIGHTS BATCHES OUT_DIR [--bf16]
  trainer-reference.py timing --batch B --seq T --layers N --model-dim D --heads H [--mlp M] [--emb E]
                              [--vocab V] [--dense-features F] [--dense-dim DD] [--sparse S] [--dropout P]
                              [--warmup W] [--steps N]
"""
import argparse
import json
import os
import struct
import sys

import torch
from torch import nn

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
mc = __import__("model-ops-check")  # load(): our safetensors files
mr = __import__("model-ranking-check")  # RankingTransformerModel: the torch module with our state_dict names


def save(path, tensors):
    """Float32 tensors as safetensors (8-byte header length, JSON header, raw little-endian data)."""
    header, blobs, at = {}, [], 0
    for name, t in tensors.items():
        b = t.detach().to("cpu", torch.float32).contiguous().numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [at, at + len(b)]}
        blobs.append(b)
        at += len(b)
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    tmp = path + ".partial"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)
    os.replace(tmp, path)


def model_config(weights, batch, heads, dropout):
    """The module's sizes from the weights' shapes and one micro-batch's."""
    dense = batch["dense"]
    layers = 1 + max(int(n.split(".")[2]) for n in weights if n.startswith("encoder.layers."))
    return {"vocab": weights["embedding.weight"].shape[0], "embeddingDim": weights["embedding.weight"].shape[1],
            "denseFeatures": dense.shape[2], "denseDim": dense.shape[3],
            "modelDim": weights["dense_projection.weight"].shape[0], "heads": heads, "layers": layers,
            "mlpHidden": weights["encoder.layers.0.linear1.weight"].shape[0], "dropout": dropout}


def replay(args):
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = "cuda"
    weights = mc.load(args.weights)
    dump = mc.load(args.batches)
    h = {k[len("hparams."):]: v.item() for k, v in dump.items() if k.startswith("hparams.")}
    if h["dropout"] != 0:
        sys.exit("replay needs dropout 0 (model.dropout=0): dropout masks cannot be matched, got %g" % h["dropout"])
    lrs = dump["lr"].tolist()
    k = int(h["gradient_accumulation"])

    def micro(s, m):
        p = "step%05d.micro%03d." % (s, m)
        return {n: dump[p + n].to(dev) for n in ("dense", "categorical", "target", "importance")}

    cfg = model_config(weights, micro(0, 0), int(h["num_heads"]), 0.0)
    model = mr.RankingTransformerModel(cfg)
    model.load_state_dict(weights, strict=True)
    model = model.to(dev).train()
    opt = torch.optim.AdamW(model.parameters(), lr=lrs[0], betas=(h["beta1"], h["beta2"]), eps=h["eps"],
                            weight_decay=h["weight_decay"])
    losses, norms = [], []
    for s, lr in enumerate(lrs):
        opt.zero_grad(set_to_none=False)
        total = 0.0
        for m in range(k):
            b = micro(s, m)
            with torch.autocast(dev, dtype=torch.bfloat16, enabled=args.bf16):
                scores = model(b["dense"], b["categorical"].long())
                loss = nn.functional.binary_cross_entropy_with_logits(scores.float(), b["target"],
                                                                      weight=b["importance"])
            (loss / k).backward()
            total += loss.item()
        if h["grad_clip_norm"] > 0:
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), h["grad_clip_norm"])
        else:
            norm = torch.linalg.vector_norm(torch.stack([p.grad.norm() for p in model.parameters()]))
        for g in opt.param_groups:
            g["lr"] = lr
        opt.step()
        losses.append(total / k)
        norms.append(norm.item())
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "losses.json"), "w") as f:
        json.dump({"precision": "bf16" if args.bf16 else "fp32", "loss": losses, "grad_norm": norms}, f)
    save(os.path.join(args.out, "final.safetensors"), dict(model.named_parameters()))
    print("torch replay (%s): %d steps, loss %.6f -> %.6f" % ("bf16" if args.bf16 else "fp32", len(lrs), losses[0],
                                                             losses[-1]))


def timing(a):
    dev = "cuda"
    cfg = {"vocab": a.vocab, "embeddingDim": a.emb, "denseFeatures": a.dense_features, "denseDim": a.dense_dim,
           "modelDim": a.model_dim, "heads": a.heads, "layers": a.layers, "mlpHidden": a.mlp, "dropout": a.dropout}
    torch.manual_seed(0)
    model = mr.RankingTransformerModel(cfg).to(dev).train()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, betas=(0.9, 0.98), eps=1e-8, weight_decay=0.01)
    host = {"dense": torch.randn(a.batch, a.seq, a.dense_features, a.dense_dim).pin_memory(),
            "categorical": torch.randint(0, a.vocab, (a.batch, a.seq, a.sparse)).pin_memory(),
            "target": torch.rand(a.batch, a.seq).pin_memory(), "importance": torch.rand(a.batch, a.seq).pin_memory()}
    times = []
    for i in range(a.warmup + a.steps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        b = {n: t.to(dev, non_blocking=True) for n, t in host.items()}
        opt.zero_grad(set_to_none=True)
        with torch.autocast(dev, dtype=torch.bfloat16):
            scores = model(b["dense"], b["categorical"])
            loss = nn.functional.binary_cross_entropy_with_logits(scores.float(), b["target"], weight=b["importance"])
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        end.record()
        torch.cuda.synchronize()
        if i >= a.warmup:
            times.append(start.elapsed_time(end))
    times.sort()
    print("torch eager bf16 batch %d seq %d layers %d d %d: median %.3f ms/step, mean %.3f, min %.3f (%d steps after"
          " %d warm-up)" % (a.batch, a.seq, a.layers, a.model_dim, times[len(times) // 2], sum(times) / len(times),
                           times[0], len(times), a.warmup))


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="mode", required=True)
    r = sub.add_parser("replay")
    r.add_argument("weights")
    r.add_argument("batches")
    r.add_argument("out")
    r.add_argument("--bf16", action="store_true")
    t = sub.add_parser("timing")
    for name, default in (("batch", 8), ("seq", 64), ("layers", 8), ("model-dim", 768), ("heads", 12),
                          ("mlp", 2048), ("emb", 192), ("vocab", 60000), ("dense-features", 16), ("dense-dim", 128),
                          ("sparse", 32), ("warmup", 10), ("steps", 50)):
        t.add_argument("--" + name, type=int, default=default)
    t.add_argument("--dropout", type=float, default=0.1)
    a = p.parse_args()
    replay(a) if a.mode == "replay" else timing(a)


if __name__ == "__main__":
    main()
