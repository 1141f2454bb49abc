package dev.aorta.workloads.metrics;

import dev.aorta.core.event.DeviceActivity;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Duration statistics of the kernels of one class (kernels with one name), in µs. */
public record KernelClassStats(String name, int count, double totalMs, SampleStats durationUs) {

    /** One entry per kernel name, the class with the most total device time first. */
    public static List<KernelClassStats> of(List<DeviceActivity> activities) {
        Map<String, List<Double>> byName = new LinkedHashMap<>();
        for (DeviceActivity a : activities) {
            byName.computeIfAbsent(a.name(), n -> new ArrayList<>()).add(a.durationNs() / 1e3);
        }
        List<KernelClassStats> result = new ArrayList<>();
        byName.forEach((name, us) -> {
            double[] v = us.stream().mapToDouble(Double::doubleValue).toArray();
            double total = 0;
            for (double d : v) {
                total += d;
            }
            result.add(new KernelClassStats(name, v.length, total / 1e3, SampleStats.of(v)));
        });
        result.sort((x, y) -> Double.compare(y.totalMs(), x.totalMs()));
        return result;
    }
}
