#!/usr/bin/env python3
"""PyTorch counterparts of AMD AORTA's hw_queue_eval workloads (fp32, AORTA's defaults, stream roles and throughput
formulas, including its shortcuts: mocked collectives as copies, dense experts, a 70% acceptance assumed, decode
without KV cache), for scripts/aorta-vs-ours.sh. activation_ckpt crashes in AORTA (its checkpoints do not require
grad); here they do, so that it runs. Prints one line: WORKLOAD STREAMS THROUGHPUT UNIT.

The P0 workloads, graph_subgraphs, comms_compute_overlap (simulated collectives), zero_offload and torch_compile are
here too, for scripts/workloads-vs-aorta-all.sh; AORTA's zero_offload (IndexError on bias gradients) and
torch_compile (torch.gelu) crash, so their counterparts are fixed to run as activation_ckpt's is. Work per iteration
is counted in our units (hetero_kernels: iterations, tiny_kernel_stress: kernels, GEMM workloads: TFLOP).
copy_compute_overlap is AORTA's SDMA prototype (bf16 matmul + ReLU while a 64 MiB D2H copy runs) and prints the D2H
savings in %, sequential (host synchronised between, as AORTA's) against overlapped.

usage: aorta_workloads.py WORKLOAD STREAMS [ITERATIONS]"""
import sys
import torch
import torch.nn as nn
import torch.nn.functional as F

dev = torch.device("cuda")
torch.backends.cuda.matmul.allow_tf32 = False  # fp32 GEMMs as ours (torch's default too)


def mlp_block(h, act):
    return nn.Sequential(nn.LayerNorm(h), nn.Linear(h, 4 * h), act, nn.Linear(4 * h, h))


class Res(nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, x):
        return x + self.f(x)


def fsdp_tp(s):
    h, heads, layers, b, t = 512, 8, 4, 8, 512
    q = max(1, len(s) // 4)
    comp, ag, ar = s[0], s[q], s[2 * q]
    attn = [nn.MultiheadAttention(h, heads, batch_first=True).to(dev) for _ in range(layers)]
    lns = [nn.LayerNorm(h).to(dev) for _ in range(layers)]
    mlps = [Res(mlp_block(h, nn.GELU())).to(dev) for _ in range(layers)]
    shard, gathered = torch.randn(8 * h * h, device=dev), torch.empty(8 * h * h, device=dev)
    grad, reduced = torch.randn(h * h, device=dev), torch.empty(h * h, device=dev)
    x0 = torch.randn(b, t, h, device=dev, requires_grad=True)

    def it():
        with torch.cuda.stream(ag):
            gathered.copy_(shard)
        x = x0
        for l in range(layers):
            comp.wait_stream(ag)
            with torch.cuda.stream(comp):
                y = lns[l](x)
                x = mlps[l](x + attn[l](y, y, y, need_weights=False)[0])
            with torch.cuda.stream(ag):
                gathered.copy_(shard)
        with torch.cuda.stream(comp):
            torch.autograd.grad(x.sum(), x0)
        with torch.cuda.stream(ar):
            reduced.copy_(grad)
    return it, b


def moe(s):
    e, h, inner, k, b, t = 8, 1024, 4096, 2, 4, 512
    gate = nn.Linear(h, e).to(dev)
    experts = [nn.Sequential(nn.Linear(h, inner, bias=False), nn.GELU(), nn.Linear(inner, h, bias=False)).to(dev)
               for _ in range(e)]
    x = torch.randn(b * t, h, device=dev)
    outs = [torch.empty(b * t, h, device=dev) for _ in range(e)]

    def it():
        with torch.cuda.stream(s[0]):
            p = F.softmax(gate(x), -1)
            w, idx = p.topk(k, -1)
            w = w / w.sum(-1, keepdim=True)
        for i in range(e):
            st = s[1 + i % (len(s) - 1)]
            st.wait_stream(s[0])
            with torch.cuda.stream(st):
                routed = (idx == i)
                g = (w * routed).sum(-1, keepdim=True)
                outs[i].copy_(torch.where(routed.any(-1, keepdim=True), experts[i](x) * g, torch.zeros((), device=dev)))
        for i in range(e):
            s[0].wait_stream(s[1 + i % (len(s) - 1)])
        with torch.cuda.stream(s[0]):
            sum(outs)
    return it, b * t


class SimpleLM(nn.Module):
    def __init__(self, vocab, h, layers, heads):
        super().__init__()
        self.emb = nn.Embedding(vocab, h)
        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(h, heads, 4 * h, dropout=0.0, batch_first=True),
                                         layers, enable_nested_tensor=False)
        self.head = nn.Linear(h, vocab)

    def forward(self, ids):
        return self.head(self.enc(self.emb(ids)))


def speculative_decode(s):
    vocab, k, b, ctx = 32000, 4, 1, 128
    draft, main = SimpleLM(vocab, 256, 4, 4).to(dev).eval(), SimpleLM(vocab, 1024, 12, 8).to(dev).eval()
    n = len(s)
    sd, sv, sa, sc = s[0], s[2], s[min(4, n - 1)], s[min(5, n - 1)]
    prompt = torch.randint(0, vocab, (b, ctx), device=dev)
    cache = torch.randn(12, 8, ctx + k, 128, device=dev)

    @torch.no_grad()
    def it():
        with torch.cuda.stream(sd):
            seq = prompt
            for _ in range(k):
                seq = torch.cat([seq, draft(seq)[:, -1].argmax(-1, keepdim=True)], 1)
        sv.wait_stream(sd)
        with torch.cuda.stream(sv):
            pred = main(seq)[:, ctx - 1:-1].argmax(-1)
        sa.wait_stream(sv)
        with torch.cuda.stream(sa):
            torch.cumprod((pred == seq[:, ctx:]).int(), 1).sum()
        with torch.cuda.stream(sc):
            cache.mul_(1.0)
    return it, int(k * 0.7 * b)


class AttentionBlock(nn.Module):
    def __init__(self, h, heads):
        super().__init__()
        self.ln, self.qkv, self.proj, self.heads = nn.LayerNorm(h), nn.Linear(h, 3 * h), nn.Linear(h, h), heads

    def forward(self, x):
        b, t, h = x.shape
        q, k, v = self.qkv(self.ln(x)).view(b, t, 3, self.heads, h // self.heads).permute(2, 0, 3, 1, 4)
        a = torch.softmax(q @ k.transpose(-1, -2) / (h // self.heads) ** 0.5, -1) @ v
        return x + self.proj(a.transpose(1, 2).reshape(b, t, h))


def continuous_batch(s):
    h, layers = 1024, 8
    t = max(1, len(s) // 3)
    model = nn.Sequential(*[AttentionBlock(h, 8) for _ in range(layers)]).to(dev).eval()
    prompts, decode = torch.randn(2, 512, h, device=dev), torch.randn(16, 1, h, device=dev)
    caches = [torch.zeros(18, 8, 2048, 128, device=dev, dtype=torch.float16) for _ in range(layers)]

    @torch.no_grad()
    def it():
        with torch.cuda.stream(s[0]):
            model(prompts)
        with torch.cuda.stream(s[t]):
            out = model(decode)
        s[2 * t].wait_stream(s[0])
        s[2 * t].wait_stream(s[t])
        with torch.cuda.stream(s[2 * t]):
            for l in range(2):
                caches[l][:, :, 0, :] = out[:1, 0, :128].half()
    return it, 2 * 512 + 16


def activation_ckpt(s):
    h, blocks, every, b, t = 1024, 8, 2, 4, 512
    tt = max(1, len(s) // 3)
    sf, sr, sg = s[0], s[tt], s[2 * tt]
    model = [Res(mlp_block(h, nn.ReLU())).to(dev) for _ in range(blocks)]
    x0 = torch.randn(b, t, h, device=dev)

    def it():
        with torch.cuda.stream(sf), torch.no_grad():
            ckpts, x = [], x0
            for i in range(0, blocks, every):
                ckpts.append(x.detach().clone().requires_grad_())
                for m in model[i:i + every]:
                    x = m(x)
        grad = torch.ones_like(x)
        for seg in reversed(range(len(ckpts))):
            sr.wait_stream(sf)
            sr.wait_stream(sg)
            with torch.cuda.stream(sr):
                y = ckpts[seg]
                for m in model[seg * every:(seg + 1) * every]:
                    y = m(y)
            sg.wait_stream(sr)
            with torch.cuda.stream(sg):
                torch.autograd.backward(y, grad)
                grad = ckpts[seg].grad
    return it, b


def grad_accum(s):
    mb, b = 4, 32
    comp, red = s[:len(s) // 2], s[len(s) // 2:]
    model = nn.Sequential(nn.Linear(1024, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(),
                          nn.Linear(2048, 1000)).to(dev)
    params = list(model.parameters())
    bufs = [torch.zeros_like(p) for p in params]
    reduced = [torch.zeros_like(p) for p in params]
    xs = [torch.randn(b, 1024, device=dev) for _ in range(mb)]

    def it():
        for k in range(mb):
            st = comp[k % len(comp)]
            with torch.cuda.stream(st):
                model(xs[k]).sum().backward()
                for buf, p in zip(bufs, params):
                    buf.add_(p.grad)
                    p.grad = None
            if k == 1 or k == mb - 1:
                red[0].wait_stream(st)
                half = len(params) // 2
                with torch.cuda.stream(red[0]):
                    for i in (range(half) if k == 1 else range(half, len(params))):
                        reduced[i].copy_(bufs[i])
    return it, mb * b


def rag_pipeline(s):
    b, h, docs, vocab = 4, 768, 100, 32000
    q = max(1, len(s) // 4)
    enc = nn.Sequential(nn.Linear(h, 512), nn.GELU(), nn.Linear(512, 256)).to(dev)
    doc_emb = F.normalize(torch.randn(docs, 256, device=dev), dim=-1)
    rerank = nn.Sequential(nn.Linear(512, 256), nn.GELU(), nn.Linear(256, 1)).to(dev)
    gen = SimpleLM(vocab, h, 4, 12).to(dev).eval()
    query = torch.randn(b, 64, h, device=dev)
    doc_tokens = torch.randint(0, vocab, (docs, 64), device=dev)
    query_tokens = torch.randint(0, vocab, (b, 64), device=dev)

    @torch.no_grad()
    def it():
        with torch.cuda.stream(s[0]):
            qe = F.normalize(enc(query.mean(1)), dim=-1)
        s[q].wait_stream(s[0])
        with torch.cuda.stream(s[q]):
            top = (qe @ doc_emb.T).topk(10, -1).indices
        s[2 * q].wait_stream(s[q])
        with torch.cuda.stream(s[2 * q]):
            pairs = torch.cat([qe[:, None].expand(-1, 10, -1), doc_emb[top]], -1)
            order = rerank(pairs).squeeze(-1).sort(-1, descending=True).indices[:, :3]
        s[3 * q].wait_stream(s[2 * q])
        with torch.cuda.stream(s[3 * q]):
            chosen = top.gather(1, order)
            gen(torch.cat([query_tokens, doc_tokens[chosen].flatten(1)], 1))
    return it, b


def async_dataload(s):
    # AORTA's fp32 NCHW model; torch.backends.cudnn.allow_tf32 stays at torch's default (True), so cuDNN runs these
    # fp32 convolutions on TF32 tensor cores, as AORTA's did (ours: --param precision=tf32, the default)
    b, prefetch = 32, 2
    t = max(1, len(s) // 3)
    st, sp, sc = s[0], s[t], s[2 * t]
    layers = []
    for ci, co in ((3, 64), (64, 128), (128, 256)):
        layers += [nn.Conv2d(ci, co, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)]
    net = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(256, 1000)).to(dev).eval()
    host = [torch.rand(b, 3, 224, 224).pin_memory() for _ in range(prefetch)]
    mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)

    @torch.no_grad()
    def it():
        for j in range(prefetch):
            with torch.cuda.stream(st):
                x = host[j].to(dev, non_blocking=True)
            sp.wait_stream(st)
            with torch.cuda.stream(sp):
                x = (x - mean.to(dev, non_blocking=True)) / std.to(dev, non_blocking=True)
                x = torch.where(torch.rand(b, 1, 1, 1, device=dev) < 0.5, x.flip(-1), x)
            sc.wait_stream(sp)
            with torch.cuda.stream(sc):
                net(x)
    return it, b * prefetch


def hetero_kernels(s):
    n_large = max(1, len(s) // 2)
    large, small = s[:n_large], s[n_large:] or s[:1]
    ab = [(torch.randn(4096, 4096, device=dev), torch.randn(4096, 4096, device=dev)) for _ in large]
    ts = [torch.randn(1024, device=dev) for _ in range(len(small) * 10)]

    def it():
        k = 0
        for i, st in enumerate(large):
            with torch.cuda.stream(st):
                torch.mm(*ab[i])
            for _ in range(10):
                with torch.cuda.stream(small[k % len(small)]):
                    torch.add(torch.mul(ts[k % len(ts)], 2), 1)
                k += 1
    return it, 1


def tiny_kernel_stress(s):
    ts = [[torch.randn(256, device=dev) for _ in range(100)] for _ in s]

    def it():
        for st, mine in zip(s, ts):
            with torch.cuda.stream(st):
                for t in mine:
                    torch.clamp(torch.abs(torch.add(torch.mul(t, 1.5), 0.5)), 0, 10)
    return it, len(s) * 100 * 4


def large_gemm_only(s):
    ab = [(torch.randn(8192, 8192, device=dev), torch.randn(8192, 8192, device=dev)) for _ in s]

    def it():
        for st, (a, b) in zip(s, ab):
            with torch.cuda.stream(st):
                torch.mm(a, b)
    return it, 2 * 8192 ** 3 * len(s) / 1e12


def graph_subgraphs(s):
    n = len(s)
    subs = [nn.Sequential(nn.Linear(1024, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(),
                          nn.Linear(2048, 512)).to(dev).eval() for _ in range(8)]
    agg = nn.Linear(8 * 512, 512).to(dev).eval()
    x = torch.randn(32, 1024, device=dev)

    def it():
        outs = []
        for i, m in enumerate(subs):
            st = s[1 + i % (n - 2)]
            st.wait_stream(s[0])
            with torch.cuda.stream(st):
                outs.append(m(x))
        for i in range(min(8, n - 2)):
            s[n - 1].wait_stream(s[1 + i])
        with torch.cuda.stream(s[n - 1]):
            agg(torch.cat(outs, dim=1))
    return it, 32


def comms_compute_overlap(s):
    comm = torch.randn(128 * 1024 * 1024 // 4, device=dev)
    scratch = torch.empty_like(comm)
    ab = [(torch.randn(2048, 2048, device=dev), torch.randn(2048, 2048, device=dev), torch.empty(2048, 2048, device=dev))
          for _ in s[1:]]

    def it():
        with torch.cuda.stream(s[0]):  # AORTA's simulated all-reduce
            scratch.copy_(comm)
            comm.add_(scratch)
        for st, (a, b, c) in zip(s[1:], ab):
            with torch.cuda.stream(st):
                for _ in range(10):
                    torch.mm(a, b, out=c)
    return it, 2 * 2048 ** 3 * 10 * (len(s) - 1) / 1e12


def zero_offload(s):
    t = max(1, len(s) // 3)
    off, pre, comp = s[0], s[t], s[2 * t]
    layers = [nn.Sequential(nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 4096)).to(dev) for _ in range(4)]
    cpu = [torch.randn(4096 * 4096).pin_memory() for _ in layers]
    gpu = [torch.empty(4096 * 4096, device=dev) for _ in layers]
    state = [torch.zeros(4096, 4096) for _ in layers]
    x0 = torch.randn(16, 4096, device=dev)

    def it():
        x = x0
        for i, layer in enumerate(layers):
            with torch.cuda.stream(pre):
                gpu[i].copy_(cpu[i], non_blocking=True)
            comp.wait_stream(pre)
            with torch.cuda.stream(comp):
                x = layer(x)
        with torch.cuda.stream(comp):
            x.sum().backward()
        off.wait_stream(comp)
        with torch.cuda.stream(off):
            for i, layer in enumerate(layers):
                for p in layer.parameters():
                    g = p.grad.cpu()
                    if g.dim() == 2:  # AORTA's step indexes bias gradients as 2-D and crashes; fixed
                        state[i][:4096, :4096] += g * 0.01
                    p.grad = None
    return it, 16


def torch_compile(s):
    q = max(1, len(s) // 4)
    sa, sb, sc, sm = s[0], s[q], s[2 * q], s[3 * q] if len(s) > 3 * q else s[-1]

    class Region(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln, self.fc1, self.fc2 = nn.LayerNorm(1024), nn.Linear(1024, 4096), nn.Linear(4096, 1024)

        def forward(self, x):
            return x + self.fc2(F.gelu(self.fc1(self.ln(x))))  # AORTA calls torch.gelu, which does not exist
    a, b, c = Region().to(dev), Region().to(dev), Region().to(dev)
    merge = nn.Linear(2048, 1024).to(dev)
    x = torch.randn(16, 256, 1024, device=dev)

    def it():
        with torch.no_grad():
            with torch.cuda.stream(sa):
                ya = a(x)
            sb.wait_stream(sa)
            sc.wait_stream(sa)
            with torch.cuda.stream(sb):
                yb = b(ya)
            with torch.cuda.stream(sc):
                yc = c(ya)
            sm.wait_stream(sb)
            sm.wait_stream(sc)
            with torch.cuda.stream(sm):
                merge(torch.cat([yb, yc], dim=-1))
    return it, 16


def copy_compute_overlap_savings():
    """AORTA's experiments/sdma_prototype.py: bf16 4096 matmul + ReLU on a priority-0 stream, a 64 MiB D2H copy into
    pinned memory on a priority -1 stream; sequential (host synchronised in between) and overlapped; savings %."""
    a = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16)
    src = torch.randn(64 * 1024 * 1024 // 4, device=dev)
    dst = torch.empty(src.shape, pin_memory=True)
    comp, copy = torch.cuda.Stream(priority=0), torch.cuda.Stream(priority=-1)

    def timed(overlap):
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        with torch.cuda.stream(comp):
            torch.relu(a @ a)
        if not overlap:
            comp.synchronize()
        with torch.cuda.stream(copy):
            dst.copy_(src, non_blocking=True)
        torch.cuda.current_stream().wait_stream(comp)
        torch.cuda.current_stream().wait_stream(copy)
        end.record()
        torch.cuda.synchronize()
        return start.elapsed_time(end)
    for _ in range(3):
        timed(False), timed(True)
    seq = sum(timed(False) for _ in range(10)) / 10
    ovl = sum(timed(True) for _ in range(10)) / 10
    return 100 * (seq - ovl) / seq


UNITS = {"fsdp_tp": "samples/s", "moe": "tokens/s", "speculative_decode": "tokens/s",
         "continuous_batch": "tokens/s", "activation_ckpt": "samples/s", "grad_accum": "samples/s",
         "rag_pipeline": "queries/s", "async_dataload": "images/s", "hetero_kernels": "iterations/s",
         "tiny_kernel_stress": "kernels/s", "large_gemm_only": "TFLOP/s", "graph_subgraphs": "samples/s",
         "comms_compute_overlap": "TFLOP/s", "zero_offload": "samples/s", "torch_compile": "samples/s"}


def main():
    name, n = sys.argv[1], int(sys.argv[2])
    iterations = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    if name == "copy_compute_overlap":
        print(f"{name} {n} {copy_compute_overlap_savings():.4g} d2h_savings_%")
        return
    streams = [torch.cuda.Stream() for _ in range(n)]
    it, work = globals()[name](streams)
    for _ in range(3):
        it()
    torch.cuda.synchronize()
    total = 0.0
    for _ in range(iterations):  # AORTA's per_iteration sync: device time of each iteration, summed
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        it()
        for st in streams:
            torch.cuda.current_stream().wait_stream(st)
        end.record()
        torch.cuda.synchronize()
        total += start.elapsed_time(end)
    print(f"{name} {n} {iterations * work / (total / 1e3):.6g} {UNITS[name]}")


if __name__ == "__main__":
    main()
