package dev.aorta.model;

import dev.aorta.model.ops.Parameter;

/**
 * Where a new layer's parameters live. By default each gets tensors of its own; a data-parallel trainer instead
 * places every parameter's value and gradient as views into flat per-unit buffers, so that one collective moves a
 * whole unit while the layers keep computing from their parameters as usual.
 */
@FunctionalInterface
public interface ParameterStorage {
    /** Separate fp32 value and gradient tensors for each parameter. */
    ParameterStorage OWN = (ctx, op, name, shape) -> new Parameter(name, ctx.empty(op, name, DType.FP32, shape),
            ctx.empty(op, name + " grad", DType.FP32, shape));

    /**
     * The fp32 parameter {@code name} (PyTorch's state_dict name) of {@code shape}, created by op {@code op};
     * its value's contents are undefined until the layer initialises it.
     */
    Parameter create(OpContext ctx, String op, String name, int... shape);
}
