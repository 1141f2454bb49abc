package dev.aorta.model.ops;

import dev.aorta.gpu.cuda.Stream;
import dev.aorta.model.HostTensor;
import dev.aorta.model.ParameterFile;

import java.nio.file.Path;
import java.util.ArrayList;

import java.util.List;
import java.util.Map;

/** A layer with parameters: listing them lets the optimizer, gradient zeroing and parameter files reach them. */
public interface Layer extends AutoCloseable {
    List<Parameter> parameters();

    /** Gradients accumulate across backward calls, as in PyTorch; this clears them on {@code stream}. */
    default void zeroGrad(Stream stream) {
        for (Parameter p : parameters()) {
            p.grad().zero(stream);
        }
    }

    /** Host copies of every parameter by name (for {@link dev.aorta.model.ParameterFile#write}). */
    default void exportTo(Map<String, HostTensor> out) {
        for (Parameter p : parameters()) {
            out.put(p.name(), p.value().toHost());
        }
    }

    /**
     * Loads every parameter from an already read parameter {@code file}; a missing tensor or one of the wrong
     * dtype or shape fails naming the file, the tensor and what was expected, before anything is copied.
     */
    default void loadFrom(Path file, Map<String, HostTensor> tensors) {
        List<HostTensor> values = new ArrayList<>();
        for (Parameter p : parameters()) {
            values.add(ParameterFile.require(file, tensors, p.name(), p.value().dtype(), p.value().shape()));
        }
        for (int i = 0; i < values.size(); i++) {
            parameters().get(i).load(values.get(i));
        }
    }

    @Override
    default void close() {
        parameters().forEach(Parameter::close);
    }
}
