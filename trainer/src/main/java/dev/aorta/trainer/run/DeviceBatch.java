package dev.aorta.trainer.run;

import dev.aorta.model.DType;
import dev.aorta.model.OpContext;
import dev.aorta.model.Tensor;
import dev.aorta.trainer.data.SyntheticRankingDataset;

/** One micro-batch on the device, in the shapes the ranking model takes. */
final class DeviceBatch implements AutoCloseable {
    final Tensor dense;
    final Tensor categorical;
    final Tensor target;
    final Tensor importance;

    DeviceBatch(OpContext ctx, int batch, SyntheticRankingDataset.Shape s) {
        dense = ctx.empty("trainer", "dense batch", DType.FP32, batch, s.sequenceLength(), s.denseFeatures(),
                s.denseDim());
        categorical = ctx.empty("trainer", "categorical batch", DType.I32, batch, s.sequenceLength(),
                s.sparseFeatures());
        target = ctx.empty("trainer", "target batch", DType.FP32, batch, s.sequenceLength());
        importance = ctx.empty("trainer", "importance batch", DType.FP32, batch, s.sequenceLength());
    }

    @Override
    public void close() {
        dense.close();
        categorical.close();
        target.close();
        importance.close();
    }
}
