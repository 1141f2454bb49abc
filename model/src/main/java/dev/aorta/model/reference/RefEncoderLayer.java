package dev.aorta.model.reference;

import java.util.HashMap;
import java.util.Map;

/**
 * torch.nn.TransformerEncoderLayer (post-norm, exact GELU, batch_first, dropout 0) on x [b, t, e] with h heads
 * and feed-forward width f, composed from the other references. Parameters by their state_dict names.
 */
public final class RefEncoderLayer {
    private static final double EPS = 1e-5;

    private RefEncoderLayer() {
    }

    public static double[] forward(Map<String, double[]> p, double[] x, int b, int t, int e, int h, int f) {
        return pass(p, x, null, b, t, e, h, f).out;
    }

    /** dx and every parameter's gradient (keyed by parameter name) for upstream gradient dout. */
    public static Map<String, double[]> backward(Map<String, double[]> p, double[] x, double[] dout, int b, int t,
                                                 int e, int h, int f) {
        return pass(p, x, dout, b, t, e, h, f).grads;
    }

    private record Result(double[] out, Map<String, double[]> grads) {
    }

    private static Result pass(Map<String, double[]> p, double[] x, double[] dout, int b, int t, int e, int h, int f) {
        int n = b * t;
        int d = e / h;
        double[] qkv = RefLinear.forward(x, p.get("self_attn.in_proj_weight"), p.get("self_attn.in_proj_bias"), n, e,
                3 * e);
        double[] q = toHeads(qkv, b, t, h, d, 3 * e, 0);
        double[] k = toHeads(qkv, b, t, h, d, 3 * e, e);
        double[] v = toHeads(qkv, b, t, h, d, 3 * e, 2 * e);
        double[] att = RefAttention.forward(q, k, v, b * h, t, d, false);
        double[] merged = toRows(att, b, t, h, d, e, 0, new double[n * e]);
        double[] r1 = RefLinear.forward(merged, p.get("self_attn.out_proj.weight"), p.get("self_attn.out_proj.bias"),
                n, e, e);
        double[] s1 = RefElementwise.add(x, r1);
        double[] x1 = RefLayerNorm.forward(s1, p.get("norm1.weight"), p.get("norm1.bias"), n, e, EPS);
        double[] pre = RefLinear.forward(x1, p.get("linear1.weight"), p.get("linear1.bias"), n, e, f);
        double[] hid = RefElementwise.gelu(pre);
        double[] ffo = RefLinear.forward(hid, p.get("linear2.weight"), p.get("linear2.bias"), n, f, e);
        double[] s2 = RefElementwise.add(x1, ffo);
        double[] out = RefLayerNorm.forward(s2, p.get("norm2.weight"), p.get("norm2.bias"), n, e, EPS);
        if (dout == null) {
            return new Result(out, null);
        }
        Map<String, double[]> g = new HashMap<>();
        RefLayerNorm.Grads n2 = RefLayerNorm.backward(s2, p.get("norm2.weight"), dout, n, e, EPS);
        g.put("norm2.weight", n2.dgamma());
        g.put("norm2.bias", n2.dbeta());
        RefLinear.Grads l2 = RefLinear.backward(hid, p.get("linear2.weight"), n2.dx(), n, f, e);
        g.put("linear2.weight", l2.dw());
        g.put("linear2.bias", l2.db());
        RefLinear.Grads l1 = RefLinear.backward(x1, p.get("linear1.weight"), RefElementwise.geluBackward(pre, l2.dx()),
                n, e, f);
        g.put("linear1.weight", l1.dw());
        g.put("linear1.bias", l1.db());
        double[] dx1 = RefElementwise.add(l1.dx(), n2.dx());
        RefLayerNorm.Grads n1 = RefLayerNorm.backward(s1, p.get("norm1.weight"), dx1, n, e, EPS);
        g.put("norm1.weight", n1.dgamma());
        g.put("norm1.bias", n1.dbeta());
        RefLinear.Grads op = RefLinear.backward(merged, p.get("self_attn.out_proj.weight"), n1.dx(), n, e, e);
        g.put("self_attn.out_proj.weight", op.dw());
        g.put("self_attn.out_proj.bias", op.db());
        RefAttention.Grads ag = RefAttention.backward(q, k, v, toHeads(op.dx(), b, t, h, d, e, 0), b * h, t, d, false);
        double[] dqkv = new double[n * 3 * e];
        toRows(ag.dq(), b, t, h, d, 3 * e, 0, dqkv);
        toRows(ag.dk(), b, t, h, d, 3 * e, e, dqkv);
        toRows(ag.dv(), b, t, h, d, 3 * e, 2 * e, dqkv);
        RefLinear.Grads ip = RefLinear.backward(x, p.get("self_attn.in_proj_weight"), dqkv, n, e, 3 * e);
        g.put("self_attn.in_proj_weight", ip.dw());
        g.put("self_attn.in_proj_bias", ip.db());
        g.put("x", RefElementwise.add(ip.dx(), n1.dx()));
        return new Result(out, g);
    }

    /** [b, t, rowStride] columns offset + hh·d .. + d → [b, h, t, d]. */
    static double[] toHeads(double[] rows, int b, int t, int h, int d, int rowStride, int offset) {
        double[] out = new double[b * h * t * d];
        for (int bb = 0; bb < b; bb++) {
            for (int hh = 0; hh < h; hh++) {
                for (int tt = 0; tt < t; tt++) {
                    for (int c = 0; c < d; c++) {
                        out[((bb * h + hh) * t + tt) * d + c] = rows[(bb * t + tt) * rowStride + offset + hh * d + c];
                    }
                }
            }
        }
        return out;
    }

    static double[] toRows(double[] heads, int b, int t, int h, int d, int rowStride, int offset, double[] rows) {
        for (int bb = 0; bb < b; bb++) {
            for (int hh = 0; hh < h; hh++) {
                for (int tt = 0; tt < t; tt++) {
                    for (int c = 0; c < d; c++) {
                        rows[(bb * t + tt) * rowStride + offset + hh * d + c] = heads[((bb * h + hh) * t + tt) * d + c];
                    }
                }
            }
        }
        return rows;
    }
}
