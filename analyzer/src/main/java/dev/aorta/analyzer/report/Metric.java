package dev.aorta.analyzer.report;

import dev.aorta.core.metric.OverlapMetrics;

import java.util.function.Function;

/** The overlap quantities (docs/metrics.md) by their names, so reports can loop over them. */
public enum Metric {
    WINDOW_NS("window_ns", OverlapMetrics::windowNs),
    BUSY_NS("busy_ns", OverlapMetrics::busyNs),
    IDLE_NS("idle_ns", OverlapMetrics::idleNs),
    COMPUTE_NS("compute_ns", OverlapMetrics::computeNs),
    COMM_NS("comm_ns", OverlapMetrics::commNs),
    OVERLAP_NS("overlap_ns", OverlapMetrics::overlapNs),
    EXPOSED_COMM_NS("exposed_comm_ns", OverlapMetrics::exposedCommNs),
    EXPOSED_MEMCPY_NS("exposed_memcpy_ns", OverlapMetrics::exposedMemcpyNs),
    COMM_OVERLAP_PCT("comm_overlap_pct", OverlapMetrics::commOverlapPct),
    AORTA_OVERLAP_RATIO("aorta_overlap_ratio", OverlapMetrics::aortaOverlapRatio);

    private final String key;
    private final Function<OverlapMetrics, ? extends Number> value;

    Metric(String key, Function<OverlapMetrics, ? extends Number> value) {
        this.key = key;
        this.value = value;
    }

    public String key() {
        return key;
    }

    /** The value in one window; null where it is undefined there (comm_overlap_pct without communication, ...). */
    public Double of(OverlapMetrics m) {
        Number v = value.apply(m);
        return v == null ? null : v.doubleValue();
    }
}
