package dev.aorta.trainer.plan;

import dev.aorta.trainer.config.ModelConfig;

import java.util.ArrayList;
import java.util.List;

/**
 * The ranking transformer's parameters in PyTorch's registration order, under AORTA's state_dict names (so that
 * a parameter file of either side loads in the other): embedding, dense and embedding projections, the encoder
 * layers (torch's TransformerEncoderLayer: self_attn in/out projections, linear1, linear2, norm1, norm2), the final
 * norm and the scorer (a Sequential: Linear at index 0, GELU, Dropout, Linear at index 3).
 */
public final class ModelParameters {
    private ModelParameters() {
    }

    public static List<ParameterSpec> of(ModelConfig m) {
        int d = m.modelDim();
        int h = m.mlpHiddenDim();
        List<ParameterSpec> p = new ArrayList<>();
        p.add(new ParameterSpec("embedding.weight", List.of(m.vocabSize(), m.embeddingDim()), Block.STEM));
        linear(p, "dense_projection", m.numDenseFeatures() * m.denseDim(), d, Block.STEM);
        linear(p, "embedding_projection", m.embeddingDim(), d, Block.STEM);
        for (int i = 0; i < m.numLayers(); i++) {
            String prefix = "encoder.layers." + i + ".";
            Block b = Block.layer(i);
            p.add(new ParameterSpec(prefix + "self_attn.in_proj_weight", List.of(3 * d, d), b));
            p.add(new ParameterSpec(prefix + "self_attn.in_proj_bias", List.of(3 * d), b));
            linear(p, prefix + "self_attn.out_proj", d, d, b);
            linear(p, prefix + "linear1", d, h, b);
            linear(p, prefix + "linear2", h, d, b);
            norm(p, prefix + "norm1", d, b);
            norm(p, prefix + "norm2", d, b);
        }
        norm(p, "norm", d, Block.HEAD);
        linear(p, "scorer.0", d, h, Block.HEAD);
        linear(p, "scorer.3", h, 1, Block.HEAD);
        return List.copyOf(p);
    }

    private static void linear(List<ParameterSpec> p, String name, int in, int out, Block b) {
        p.add(new ParameterSpec(name + ".weight", List.of(out, in), b));
        p.add(new ParameterSpec(name + ".bias", List.of(out), b));
    }

    private static void norm(List<ParameterSpec> p, String name, int d, Block b) {
        p.add(new ParameterSpec(name + ".weight", List.of(d), b));
        p.add(new ParameterSpec(name + ".bias", List.of(d), b));
    }
}
