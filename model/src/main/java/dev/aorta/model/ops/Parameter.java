package dev.aorta.model.ops;

import dev.aorta.model.HostTensor;
import dev.aorta.model.Tensor;

/** A trainable tensor (fp32 master weights) and its gradient, under the name it has in parameter files. */
public record Parameter(String name, Tensor value, Tensor grad) implements AutoCloseable {

    /** Loads {@code values} (which must match dtype and shape) into the parameter. */
    public void load(HostTensor values) {
        value.copyFrom(values);
    }

    @Override
    public void close() {
        value.close();
        grad.close();
    }
}
