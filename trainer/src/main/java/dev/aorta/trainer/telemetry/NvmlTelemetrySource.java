package dev.aorta.trainer.telemetry;

import dev.aorta.gpu.nvml.Nvml;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;

/**
 * The GPU's state through NVML, which reads it without a CUDA context and without a subprocess. The device is
 * found by its PCI bus id, so it is the training GPU whatever CUDA_VISIBLE_DEVICES says. A reading NVML refuses
 * (a field the device does not support) is reported once through {@code warn} and is NaN from then on.
 */
public final class NvmlTelemetrySource implements TelemetrySource {
    private final List<Field> fields = new ArrayList<>();
    private final Consumer<String> warn;

    private NvmlTelemetrySource(Nvml.Device d, Consumer<String> warn) {
        this.warn = warn;
        fields.add(new Field("SM clock", d::smClockMHz));
        fields.add(new Field("memory clock", d::memoryClockMHz));
        fields.add(new Field("power", () -> d.powerMilliwatts() / 1e3));
        fields.add(new Field("temperature", d::temperatureC));
        fields.add(new Field("GPU utilisation", () -> d.utilizationPercent()[0]));
        fields.add(new Field("memory utilisation", () -> d.utilizationPercent()[1]));
        fields.add(new Field("PCIe TX throughput", () -> d.pcieTxKBps() * 1024 / 1e6));
        fields.add(new Field("PCIe RX throughput", () -> d.pcieRxKBps() * 1024 / 1e6));
    }

    /** The GPU at {@code pciBusId}; throws when NVML cannot be loaded or does not know the device. */
    public static NvmlTelemetrySource open(String pciBusId, Consumer<String> warn) {
        return new NvmlTelemetrySource(Nvml.get().deviceByPciBusId(pciBusId), warn);
    }

    @Override
    public TelemetrySample read() {
        double[] v = new double[fields.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = fields.get(i).read();
        }
        return new TelemetrySample(System.nanoTime(), v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
    }

    private final class Field {
        private final String name;
        private final DoubleSupplier reader;
        private boolean failed;

        Field(String name, DoubleSupplier reader) {
            this.name = name;
            this.reader = reader;
        }

        double read() {
            if (failed) {
                return Double.NaN;
            }
            try {
                return reader.getAsDouble();
            } catch (RuntimeException e) {
                failed = true;
                warn.accept("NVML cannot read the " + name + " (" + e.getMessage() + "); telemetry goes on without it");
                return Double.NaN;
            }
        }
    }
}
