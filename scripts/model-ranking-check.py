#!/usr/bin/env python3
"""PyTorch reference for aorta's ranking model (issue 13).

Reads what `dev.aorta.model.check.RankingCheck --out DIR` wrote (DIR/ranking.json and one parameter file per
configuration: parameters, inputs, our scores, loss, every parameter gradient, the gradient norm and the
parameters after one clipped AdamW step), loads the parameters into the torch module with
load_state_dict(strict=True), runs the same step with PyTorch on the GPU in float32 (TF32 off) and in float64,
and prints ||ours - torch|| / ||torch|| for each tensor, against both. The parameters after the step are
compared with torch's AdamW applied to our gradients (the optimizer alone). Passing means within tolerance of
torch's float32 step (the issue's bar: loss 1e-5, parameter gradients 1e-4); the float64 column shows how far
each of the two float32 implementations is from exact.

Cases with precision bf16 (fp16) ran under our autocast: their reference is torch's float32 module under
torch.autocast(bfloat16 / float16), with the issue's bf16 bar (loss 1e-3, gradients 2e-2); fp16 backward
passes carry the case's loss scale and both sides unscale.

Usage: python3 scripts/model-ranking-check.py DIR
"""
import copy
import json
import sys

import torch
from torch import nn

sys.dont_write_bytecode = True
sys.path.insert(0, __file__.rsplit("/", 1)[0])
mc = __import__("model-ops-check")  # load() and rel_l2(), shared with the ops check

TOL = {"fp32": {"loss": 1e-5, "grad": 1e-4, "scores": 1e-4, "grad_norm": 1e-5, "step": 1e-5},
       "bf16": {"loss": 1e-3, "grad": 2e-2, "scores": 2e-2, "grad_norm": 2e-2, "step": 1e-5},
       "fp16": {"loss": 1e-3, "grad": 2e-2, "scores": 2e-2, "grad_norm": 2e-2, "step": 1e-5}}


class RankingTransformerModel(nn.Module):
    """The trainer's ranking model, written from its description; attribute names give the state_dict names."""

    def __init__(self, c):
        super().__init__()
        self.embedding = nn.Embedding(c["vocab"], c["embeddingDim"])
        self.dense_projection = nn.Linear(c["denseFeatures"] * c["denseDim"], c["modelDim"])
        self.embedding_projection = nn.Linear(c["embeddingDim"], c["modelDim"])
        layer = nn.TransformerEncoderLayer(d_model=c["modelDim"], nhead=c["heads"], dim_feedforward=c["mlpHidden"],
                                           dropout=c["dropout"], activation="gelu", batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=c["layers"], enable_nested_tensor=False)
        self.norm = nn.LayerNorm(c["modelDim"])
        self.scorer = nn.Sequential(nn.Linear(c["modelDim"], c["mlpHidden"]), nn.GELU(), nn.Dropout(c["dropout"]),
                                    nn.Linear(c["mlpHidden"], 1))

    def forward(self, dense, categorical):
        x = self.dense_projection(dense.flatten(start_dim=2))
        x = x + self.embedding_projection(self.embedding(categorical).mean(dim=2))
        return self.scorer(self.norm(self.encoder(x))).squeeze(-1)


def torch_step(t, case, dtype, dev, autocast=None):
    """Loss, scores, gradients and their norm, in dtype on dev (under autocast to `autocast` when given:
    parameters stay dtype, linear layers and attention run in 16 bits); then the parameters after one clipped
    AdamW step taken from OUR gradients, so that the step comparison tests the optimizer alone (a gradient that
    is exactly zero in exact arithmetic, such as the key bias's, is rounding noise in both implementations,
    and Adam's first step turns any noise into a full +-lr update)."""
    c = case["config"]
    model = RankingTransformerModel(c)
    state = {k[len("param."):]: v for k, v in t.items() if k.startswith("param.")}
    model.load_state_dict(state, strict=True)  # our names are the module's
    model = model.to(device=dev, dtype=dtype).train()
    dense = t["dense"].to(dev, dtype)
    categorical = t["categorical"].to(dev).long()
    target = t["target"].to(dev, dtype)
    importance = t["importance"].to(dev, dtype)
    with torch.autocast(dev, dtype=autocast or torch.bfloat16, enabled=autocast is not None):
        scores = model(dense, categorical)
        loss = nn.functional.binary_cross_entropy_with_logits(scores, target, weight=importance)
    scale = case.get("loss_scale", 1.0) if autocast is not None else 1.0  # fp16: GradScaler's scale, then unscale
    (loss * scale).backward()
    grads = {n: p.grad.detach().clone() / scale for n, p in model.named_parameters()}
    norm = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads.values()]))
    for n, p in model.named_parameters():
        p.grad = t["grad." + n].to(dev, dtype)
    torch.nn.utils.clip_grad_norm_(model.parameters(), case["max_norm"])
    opt = torch.optim.AdamW(model.parameters(), lr=case["lr"], betas=(case["beta1"], case["beta2"]), eps=case["eps"],
                            weight_decay=case["weight_decay"])
    opt.step()
    after = {n: p.detach().clone() for n, p in model.named_parameters()}
    return {"loss": loss.detach().reshape(1), "scores": scores.detach(), "grad_norm": norm.detach().reshape(1),
            "grads": grads, "after": after}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: model-ranking-check.py DIR (the --out folder of RankingCheck)")
    folder = sys.argv[1]
    with open(folder + "/ranking.json") as f:
        cases = json.load(f)
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name() if dev == 'cuda' else 'cpu'}")
    print(f"{'case':12s} {'tensor':44s} {'elements':>10s} {'vs torch':>10s} {'vs fp64':>10s} {'torch32':>10s}"
          f" {'tol':>7s}")
    failed = total = 0
    for case in cases:
        t = mc.load(folder + "/" + case["file"])
        low = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(case["precision"])
        ref32 = torch_step(t, case, torch.float32, dev, low)
        ref64 = torch_step(t, case, torch.float64, dev)
        tol = TOL[case["precision"]]
        rows = [("loss", t["out.loss"], ref32["loss"], ref64["loss"], tol["loss"]),
                ("scores", t["out.scores"], ref32["scores"], ref64["scores"], tol["scores"]),
                ("grad norm", t["out.grad_norm"], ref32["grad_norm"], ref64["grad_norm"], tol["grad_norm"])]
        rows += [("d " + n, t["grad." + n], ref32["grads"][n], ref64["grads"][n], tol["grad"]) for n in ref32["grads"]]
        rows += [("step " + n, t["step." + n], ref32["after"][n], ref64["after"][n], tol["step"])
                 for n in ref32["after"]]
        for name, ours, r32, r64, bar in rows:
            ours = ours.to(dev)
            e32 = mc.rel_l2(ours, r32)
            e64 = mc.rel_l2(ours, r64)
            t32 = mc.rel_l2(r32, r64)
            ok = e32 <= bar  # NaN fails
            failed += 0 if ok else 1
            total += 1
            print(f"{case['name']:12s} {name:44s} {ours.numel():10d} {e32:10.3e} {e64:10.3e} {t32:10.3e} {bar:7.0e}"
                  f"  {'ok' if ok else 'FAIL'}")
        print(f"{case['name']}: loss ours {t['out.loss'].item():.8f}, torch fp32 {ref32['loss'].item():.8f}, "
              f"fp64 {ref64['loss'].item():.8f}")
    print(f"all {total} comparisons within tolerance" if failed == 0 else f"{failed} of {total} comparisons FAILED")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
