#!/usr/bin/env python3
"""PyTorch reference for aorta's model ops (issue 13).

Reads what `dev.aorta.model.check.OpsCheck --out DIR` wrote (DIR/cases.json and one safetensors-layout file
per case holding the inputs, parameters, our GPU outputs and gradients), recomputes every output and gradient
with PyTorch in float64 on the CPU from the same inputs and weights, and prints the relative L2 error
||ours - torch|| / ||torch|| of each. Exits 1 when one is over its tolerance (fp32: 1e-5, attention: 1e-4).

Usage: python3 scripts/model-ops-check.py DIR
Needs numpy and torch; reads the files with json + numpy only (no safetensors package).
"""
import json
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F

FP32_TOL = 1e-5
ATTENTION_TOL = 1e-4
ZERO_NORM = 1e-10  # same rule as CheckRow.relL2 on the Java side


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    base = 8 + n
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        b, e = t["data_offsets"]
        raw = data[base + b:base + e]
        if t["dtype"] == "BF16":
            arr = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            arr = np.frombuffer(raw, dtype={"F32": "<f4", "F16": "<f2", "I32": "<i4"}[t["dtype"]])
        out[name] = torch.from_numpy(arr.copy().reshape(t["shape"]))
    return out


def d(t):
    """float64 leaf that records its gradient."""
    return t.to(torch.float64).clone().requires_grad_(True)


def rel_l2(ours, ref):
    """||ours - ref|| / ||ref||; where ref is zero up to float64 rounding (norm under 1e-10: e.g. layer norm's
    weight gradient over one feature, exactly 0, which torch computes as ~1e-14) the absolute error instead."""
    ours = ours.to(torch.float64)
    ref = ref.detach().to(torch.float64)
    num = torch.linalg.vector_norm(ours - ref).item()
    den = torch.linalg.vector_norm(ref).item()
    return num / den if den >= ZERO_NORM else num


def check_linear(t, case, gelu):
    x, w, b = d(t["x"]), d(t["param.weight"]), d(t["param.bias"])
    y = F.linear(x, w, b)
    if gelu:
        y = F.gelu(y)  # exact erf form, PyTorch's default
    y.backward(t["dy"].to(torch.float64))
    return [("y", t["out.y"], y), ("dx", t["grad.x"], x.grad), ("dweight", t["grad.weight"], w.grad),
            ("dbias", t["grad.bias"], b.grad)]


def check_layer_norm(t, case):
    """Plain, or with the fused residual add (normalises x + residual, also written out as the sum) and a
    gradient arriving by two paths (dy + dy2); dx is then the gradient of the sum."""
    x, w, b = d(t["x"]), d(t["param.weight"]), d(t["param.bias"])
    residual = "residual" in t
    inp = (x.detach() + t["residual"].double()).requires_grad_(True) if residual else x
    y = F.layer_norm(inp, (inp.shape[-1],), w, b, case["eps"])
    dy = t["dy"].to(torch.float64) + (t["dy2"].to(torch.float64) if residual else 0)
    y.backward(dy)
    rows = [("y", t["out.y"], y), ("dx", t["grad.x"], inp.grad), ("dweight", t["grad.weight"], w.grad),
            ("dbias", t["grad.bias"], b.grad)]
    if residual:
        rows.append(("sum", t["out.sum"], inp.detach()))
    return rows


def check_linear_after_step(t, case):
    """The second forward pass after an AdamW step, with the stepped weights: ours ran on the 16-bit copy
    that the step rewrote."""
    y = F.linear(t["x"].double(), t["param.weight"].double(), t["param.bias"].double())
    return [("y after step", t["out.y"], y)]


def check_softmax(t, case):
    x = d(t["x"])
    y = torch.softmax(x, -1)
    y.backward(t["dy"].to(torch.float64))
    return [("y", t["out.y"], y), ("dx", t["grad.x"], x.grad)]


def check_bce(t, case):
    x = d(t["x"])
    loss = F.binary_cross_entropy_with_logits(x, t["targets"].double(), weight=t["weight"].double(),
                                              pos_weight=t["pos_weight"].double())
    (loss * case["dloss"]).backward()
    return [("loss", t["out.loss"], loss.reshape(1)), ("dx", t["grad.x"], x.grad)]


def check_elementwise(t, case):
    x, dy = d(t["x"]), t["dy"].double()
    y = F.gelu(x)
    y.backward(dy)
    rows = [("gelu y", t["out.gelu"], y), ("gelu dx", t["grad.gelu"], x.grad),
            ("residual y", t["out.add"], x.detach() + t["b"].double()),
            ("accumulate", t["out.accumulate"], t["b"].double() + dy)]
    # torch cannot replay our Philox stream: take the mask from our output, then check that it scales the
    # kept elements by 1/(1-p), that the backward pass used the same mask, and that about 1-p are kept
    p = case["p"]
    scale = float(np.float32(1.0) / (np.float32(1.0) - np.float32(p)))
    keep = (t["out.dropout"] != 0).double()
    rows.append(("dropout y", t["out.dropout"], x.detach() * keep * scale, 1e-6))
    rows.append(("dropout dx", t["grad.dropout"], dy * keep * scale, 1e-6))
    n = keep.numel()
    frac = keep.mean().item()
    sigma = (p * (1 - p) / n) ** 0.5
    rows.append(("keep-1+p (5σ)", torch.tensor([frac - (1 - p)]), torch.tensor([0.0]), 5 * sigma + 1e-12))
    return rows


def check_embedding(t, case):
    w = d(t["param.weight"])
    y = F.embedding_bag(t["ids"].long(), w, mode="mean")
    y.backward(t["dy"].double())
    return [("y", t["out.y"], y), ("dweight", t["grad.weight"], w.grad)]


def check_attention(t, case):
    q, k, v = d(t["q"]), d(t["k"]), d(t["v"])
    y = F.scaled_dot_product_attention(q, k, v, is_causal=case["causal"])
    y.backward(t["dy"].double())
    # 16-bit (autocast) cases carry their own tolerance
    tol = case.get("tolerance", ATTENTION_TOL)
    # fp32 cases ran both paths: the scores (GEMM) path and the flash kernels ("_flash")
    paths = [p for p in ("", "_flash") if "out.y" + p in t]
    return [(name + p, ours, ref, tol) for p in paths for name, ours, ref in
            [("y", t["out.y" + p], y), ("dq", t["grad.q" + p], q.grad), ("dk", t["grad.k" + p], k.grad),
             ("dv", t["grad.v" + p], v.grad)]]


def check_encoder_layer(t, case):
    x = d(t["x"])
    e = x.shape[-1]
    layer = torch.nn.TransformerEncoderLayer(e, case["heads"], case["ff"], dropout=case["dropout"],
                                             activation="gelu", batch_first=True, dtype=torch.float64)
    state = {k[len("param."):]: v.double() for k, v in t.items() if k.startswith("param.")}
    layer.load_state_dict(state, strict=True)  # our parameter names are torch's
    layer.train()
    y = layer(x)
    y.backward(t["dy"].double())
    rows = [("y", t["out.y"], y), ("dx", t["grad.x"], x.grad)]
    rows += [("d" + name, t["grad." + name], p.grad) for name, p in layer.named_parameters()]
    tol = case.get("tolerance", ATTENTION_TOL)  # autocast cases carry the bf16 bar
    return [(n, ours, ref, tol) for n, ours, ref in rows]


def check_adamw(t, case):
    names = sorted(k[len("param."):] for k in t if k.startswith("param."))
    params = [t["param." + n].double().clone().requires_grad_(True) for n in names]
    scale = case.get("grad_scale", 1.0)  # gradients that carry a loss scale (fp16): the step unscales them
    grads = [t["grad_in." + n].double() / scale for n in names]
    opt = torch.optim.AdamW(params, lr=case["lr"][0], betas=(case["beta1"], case["beta2"]), eps=case["eps"],
                            weight_decay=case["weight_decay"])
    norm = None
    for step in range(case["steps"]):
        for p, g in zip(params, grads):
            p.grad = g.clone()
        norm = torch.nn.utils.clip_grad_norm_(params, case["max_norm"])
        for group in opt.param_groups:
            group["lr"] = case["lr"][step]
        opt.step()
    rows = [("grad norm", t["out.grad_norm"], scale * norm.reshape(1))]  # ours is the norm of the scaled gradients
    rows += [(n, t["out." + n], p) for n, p in zip(names, params)]
    return rows


def check_relu(t, case):
    x = d(t["x"])
    y = F.relu(x)
    y.backward(t["dy"].double())
    return [("y", t["out.y"], y), ("dx", t["grad.x"], x.grad)]


def check_cross_entropy(t, case):
    x = d(t["x"])
    loss = F.cross_entropy(x, t["target"].long(), ignore_index=case["ignore_index"])
    (loss * case["dloss"]).backward()
    return [("loss", t["out.stats"][:1], loss.reshape(1)), ("dx", t["grad.x"], x.grad)]


def check_topk_gating(t, case):
    x = d(t["x"])
    values, experts = torch.topk(x, case["k"], dim=-1)  # largest first; no ties among random normals
    gates = torch.softmax(values, dim=-1)
    gates.backward(t["dgates"].double())
    return [("experts", t["out.experts"].double(), experts.double(), 0.0), ("gates", t["out.gates"], gates),
            ("dx", t["grad.x"], x.grad)]


def check_concat(t, case):
    xs = [d(t["x" + str(i)]) for i in range(3)]
    y = torch.cat(xs, dim=-1)
    y.backward(t["dy"].double())
    return [("y", t["out.y"], y)] + [("dx" + str(i), t["grad.x" + str(i)], x.grad) for i, x in enumerate(xs)]


def check_conv2d(t, case):
    x, w, b = d(t["x"]), d(t["param.weight"]), d(t["param.bias"])
    y = F.conv2d(x, w, b, stride=case["stride"], padding=case["padding"])
    y.backward(t["dy"].double())
    y_no_bias = F.conv2d(x.detach(), w.detach(), None, stride=case["stride"], padding=case["padding"])
    return [("y", t["out.y"], y), ("y relu", t["out.y_relu"], F.relu(y)), ("y without bias", t["out.y_no_bias"], y_no_bias),
            ("dx", t["grad.x"], x.grad),
            ("dweight", t["grad.weight"], w.grad), ("dbias", t["grad.bias"], b.grad)]


def check_max_pool(t, case):
    x = d(t["x"])
    y = F.max_pool2d(x, case["k"], stride=case["stride"], padding=case["padding"])
    y.backward(t["dy"].double())
    b = t["bias"].double().view(1, -1, 1, 1)
    y_bias_relu = F.max_pool2d(F.relu(x.detach() + b), case["k"], stride=case["stride"], padding=case["padding"])
    return [("y", t["out.y"], y), ("y of relu(x + bias)", t["out.y_bias_relu"], y_bias_relu), ("dx", t["grad.x"], x.grad)]


def check_global_avg_pool(t, case):
    x = d(t["x"])
    y = F.adaptive_avg_pool2d(x, 1).flatten(1)
    y.backward(t["dy"].double())
    b = t["bias"].double().view(1, -1, 1, 1)
    y_bias_relu = F.adaptive_avg_pool2d(F.relu(x.detach() + b), 1).flatten(1)
    return [("y", t["out.y"], y), ("y of relu(x + bias)", t["out.y_bias_relu"], y_bias_relu), ("dx", t["grad.x"], x.grad)]


def check_mlp_block(t, case):
    x = d(t["x"])
    dim, hidden = x.shape[-1], t["param.0.weight"].shape[0]
    mlp = torch.nn.Sequential(torch.nn.Linear(dim, hidden), torch.nn.GELU(), torch.nn.Linear(hidden, dim)).double()
    mlp.load_state_dict({k[len("param."):]: v.double() for k, v in t.items() if k.startswith("param.")}, strict=True)
    y = mlp(x)
    y.backward(t["dy"].double())
    rows = [("y", t["out.y"], y), ("dx", t["grad.x"], x.grad)]
    return rows + [("d" + n, t["grad." + n], p.grad) for n, p in mlp.named_parameters()]


def check_cached_attention(t, case):
    x = t["x"].double()
    e, T = x.shape[-1], x.shape[1]
    mha = torch.nn.MultiheadAttention(e, case["heads"], batch_first=True, dtype=torch.float64)
    mha.load_state_dict({k[len("param."):]: v.double() for k, v in t.items() if k.startswith("param.")}, strict=True)
    causal = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)  # True: not allowed to attend
    y = mha(x, x, x, attn_mask=causal, need_weights=False)[0]
    return [("y (pieces through the KV cache)", t["out.y"], y, ATTENTION_TOL)]


CHECKS = {
    "linear": lambda t, c: check_linear(t, c, False),
    "linear_gelu": lambda t, c: check_linear(t, c, True),
    "layer_norm": check_layer_norm,
    "linear_after_step": check_linear_after_step,
    "softmax": check_softmax,
    "bce_with_logits": check_bce,
    "elementwise": check_elementwise,
    "embedding_mean": check_embedding,
    "attention": check_attention,
    "encoder_layer": check_encoder_layer,
    "adamw": check_adamw,
    "relu": check_relu,
    "cross_entropy": check_cross_entropy,
    "topk_gating": check_topk_gating,
    "concat": check_concat,
    "conv2d": check_conv2d,
    "max_pool": check_max_pool,
    "global_avg_pool": check_global_avg_pool,
    "mlp_block": check_mlp_block,
    "cached_attention": check_cached_attention,
}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: model-ops-check.py DIR (the --out folder of OpsCheck)")
    folder = sys.argv[1]
    with open(folder + "/cases.json") as f:
        cases = json.load(f)
    torch.set_grad_enabled(True)
    failed = 0
    total = 0
    print(f"torch {torch.__version__}, reference in float64 on the CPU")
    print(f"{'case':34s} {'tensor':28s} {'elements':>10s} {'rel L2':>11s} {'tol':>9s}")
    for case in cases:
        t = load(folder + "/" + case["file"])
        for row in CHECKS[case["op"]](t, case):
            name, ours, ref = row[:3]
            tol = row[3] if len(row) > 3 else case.get("tolerance", FP32_TOL)
            err = rel_l2(ours, ref)
            ok = err <= tol  # NaN fails
            failed += 0 if ok else 1
            total += 1
            print(f"{case['name']:34s} {name:28s} {ours.numel():10d} {err:11.3e} {tol:9.0e}  {'ok' if ok else 'FAIL'}")
    print(f"all {total} comparisons within tolerance" if failed == 0 else f"{failed} of {total} comparisons FAILED")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
