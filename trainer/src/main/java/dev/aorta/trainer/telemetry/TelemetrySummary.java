package dev.aorta.trainer.telemetry;

import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The {@code telemetry} object of a step's metrics line: the samples taken during the step, averaged (power and
 * temperature also as their maximum). A step shorter than the sampling period often has no sample of its own; it
 * then gets the latest sample taken before its end, with {@code samples} 0 and that sample's age at the step's
 * end, so every line says how fresh its values are. NaN (a field the device does not offer) is left out of the
 * averages.
 */
public record TelemetrySummary(int samples, double sampleAgeMs, double smClockMHz, double memoryClockMHz,
                               double powerW, double powerMaxW, double temperatureC, double temperatureMaxC,
                               double gpuUtilPct, double memoryUtilPct, double pcieTxMBps, double pcieRxMBps) {

    /**
     * The summary of {@code inStep} (the samples taken in the step's window, which ends at {@code endNs}), or of
     * {@code before} when the step has none; null when there is neither.
     */
    public static TelemetrySummary of(List<TelemetrySample> inStep, TelemetrySample before, long endNs) {
        if (inStep.isEmpty()) {
            if (before == null) {
                return null;
            }
            TelemetrySummary one = of(List.of(before), null, endNs);
            return new TelemetrySummary(0, (endNs - before.timeNs()) / 1e6, one.smClockMHz, one.memoryClockMHz,
                    one.powerW, one.powerMaxW, one.temperatureC, one.temperatureMaxC, one.gpuUtilPct,
                    one.memoryUtilPct, one.pcieTxMBps, one.pcieRxMBps);
        }
        long newest = inStep.stream().mapToLong(TelemetrySample::timeNs).max().orElseThrow();
        return new TelemetrySummary(inStep.size(), (endNs - newest) / 1e6, mean(inStep, TelemetrySample::smClockMHz),
                mean(inStep, TelemetrySample::memoryClockMHz), mean(inStep, TelemetrySample::powerW),
                max(inStep, TelemetrySample::powerW), mean(inStep, TelemetrySample::temperatureC),
                max(inStep, TelemetrySample::temperatureC), mean(inStep, TelemetrySample::gpuUtilPct),
                mean(inStep, TelemetrySample::memoryUtilPct), mean(inStep, TelemetrySample::pcieTxMBps),
                mean(inStep, TelemetrySample::pcieRxMBps));
    }

    private static double mean(List<TelemetrySample> samples, ToDoubleFunction<TelemetrySample> field) {
        return samples.stream().mapToDouble(field).filter(v -> !Double.isNaN(v)).average().orElse(Double.NaN);
    }

    private static double max(List<TelemetrySample> samples, ToDoubleFunction<TelemetrySample> field) {
        return samples.stream().mapToDouble(field).filter(v -> !Double.isNaN(v)).max().orElse(Double.NaN);
    }
}
