package dev.aorta.model.reference;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

import static dev.aorta.model.reference.FiniteDifference.check;
import static dev.aorta.model.reference.FiniteDifference.random;
import static dev.aorta.model.reference.FiniteDifference.upstream;

/** The composed encoder-layer reference: every parameter's and the input's gradient against finite differences. */
class RefEncoderLayerTest {

    @Test
    void everyGradientChecks() {
        Random rnd = new Random(3);
        int b = 2, t = 3, e = 4, h = 2, f = 5;
        Map<String, int[]> shapes = new LinkedHashMap<>();
        shapes.put("self_attn.in_proj_weight", new int[] {3 * e * e});
        shapes.put("self_attn.in_proj_bias", new int[] {3 * e});
        shapes.put("self_attn.out_proj.weight", new int[] {e * e});
        shapes.put("self_attn.out_proj.bias", new int[] {e});
        shapes.put("linear1.weight", new int[] {f * e});
        shapes.put("linear1.bias", new int[] {f});
        shapes.put("linear2.weight", new int[] {e * f});
        shapes.put("linear2.bias", new int[] {e});
        shapes.put("norm1.weight", new int[] {e});
        shapes.put("norm1.bias", new int[] {e});
        shapes.put("norm2.weight", new int[] {e});
        shapes.put("norm2.bias", new int[] {e});
        Map<String, double[]> p = new LinkedHashMap<>();
        shapes.forEach((name, n) -> p.put(name, random(rnd, n[0])));
        double[] x = random(rnd, b * t * e);
        double[] r = upstream(rnd, b * t * e);
        Map<String, double[]> g = RefEncoderLayer.backward(p, x, r, b, t, e, h, f);
        check("encoder layer dx", xx -> RefEncoderLayer.forward(p, xx, b, t, e, h, f), x, r, g.get("x"));
        for (String name : shapes.keySet()) {
            check("encoder layer d" + name, w -> {
                Map<String, double[]> q = new LinkedHashMap<>(p);
                q.put(name, w);
                return RefEncoderLayer.forward(q, x, b, t, e, h, f);
            }, p.get(name), r, g.get(name));
        }
    }
}
