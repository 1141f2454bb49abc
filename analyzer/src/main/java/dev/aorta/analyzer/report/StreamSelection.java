package dev.aorta.analyzer.report;

import dev.aorta.analyzer.metrics.LabelledStreamUtilization;

import java.util.List;

/**
 * The streams a listing or a Gantt chart shows one by one, and what it folds into one summary row. A rocprofv3 trace
 * of one training run has hundreds of HIP streams, most busy for microseconds: listed one per line they bury the few
 * that matter (and made a Gantt chart 25,000 px tall). Up to {@code cap} streams are all shown in stream order;
 * beyond that the {@code cap} busiest are shown, busiest first, and the rest are counted with their summed busy time.
 *
 * @param shown          the streams shown one by one
 * @param hiddenCount    how many streams are folded into the summary row
 * @param hiddenBusyNs   their busy time summed stream by stream (time two of them ran together counts twice)
 * @param hiddenMaxBusyNs the busiest of them, so a reader sees that none of them matters (or that one does)
 */
public record StreamSelection(List<LabelledStreamUtilization> shown, int hiddenCount, long hiddenBusyNs, long hiddenMaxBusyNs) {
    /** How many streams a listing or a Gantt chart shows one by one unless told otherwise. */
    public static final int DEFAULT_CAP = 12;

    public static StreamSelection busiest(List<LabelledStreamUtilization> streams, int cap) {
        if (cap < 1) {
            throw new IllegalArgumentException("the number of streams to show must be at least 1, got " + cap);
        }
        if (streams.size() <= cap) {
            return new StreamSelection(List.copyOf(streams), 0, 0, 0);
        }
        List<LabelledStreamUtilization> byBusy = streams.stream()
                .sorted((a, b) -> a.busyNs() != b.busyNs() ? Long.compare(b.busyNs(), a.busyNs())
                        : Long.compare(a.stream(), b.stream()))
                .toList();
        List<LabelledStreamUtilization> hidden = byBusy.subList(cap, byBusy.size());
        return new StreamSelection(byBusy.subList(0, cap), hidden.size(),
                hidden.stream().mapToLong(LabelledStreamUtilization::busyNs).sum(), hidden.get(0).busyNs());
    }
}
