package dev.aorta.model.reference;

import java.util.Map;

/**
 * torch.nn.MultiheadAttention(e, h, batch_first=True) as self-attention, float64: y = out_proj(attention(
 * in_proj(x))) on x [b, t, e], optionally causal. Parameters by torch's names: in_proj_weight [3e, e],
 * in_proj_bias, out_proj.weight [e, e], out_proj.bias.
 */
public final class RefSelfAttention {
    private RefSelfAttention() {
    }

    public static double[] forward(Map<String, double[]> p, double[] x, int b, int t, int e, int h, boolean causal) {
        int d = e / h;
        double[] qkv = RefLinear.forward(x, p.get("in_proj_weight"), p.get("in_proj_bias"), b * t, e, 3 * e);
        double[] q = RefEncoderLayer.toHeads(qkv, b, t, h, d, 3 * e, 0);
        double[] k = RefEncoderLayer.toHeads(qkv, b, t, h, d, 3 * e, e);
        double[] v = RefEncoderLayer.toHeads(qkv, b, t, h, d, 3 * e, 2 * e);
        double[] att = RefAttention.forward(q, k, v, b * h, t, d, causal);
        double[] merged = RefEncoderLayer.toRows(att, b, t, h, d, e, 0, new double[b * t * e]);
        return RefLinear.forward(merged, p.get("out_proj.weight"), p.get("out_proj.bias"), b * t, e, e);
    }
}
