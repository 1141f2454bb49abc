package dev.aorta.analyzer.metrics;

import dev.aorta.core.metric.ActivityClassifier;
import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.analyzer.trace.RankTrace;
import dev.aorta.analyzer.trace.TraceSet;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;

import java.util.Map;

/** Small hand-made timelines for the analyses' tests, in ns on one clock. */
final class TimelineBuilder {
    private final TraceSet set = new TraceSet();
    private int rank;

    TimelineBuilder rank(int r) {
        this.rank = r;
        return this;
    }

    RankTrace trace() {
        return set.rank(rank);
    }

    TraceSet set() {
        return set;
    }

    TimelineBuilder kernel(String name, long stream, long start, long end) {
        return activity(ActivityKind.KERNEL, name, stream, start, end, 0, DeviceActivity.UNKNOWN);
    }

    TimelineBuilder activity(ActivityKind kind, String name, long stream, long start, long end, long correlation,
                             long queued) {
        trace().activities().add(new DeviceActivity(kind, name, rank, 0, stream, start, end, correlation, queued,
                DeviceActivity.UNKNOWN, Dim3.NONE, Dim3.NONE, 0, ClockDomain.CUPTI));
        return this;
    }

    TimelineBuilder launch(long correlation, long start) {
        trace().apiCalls().add(new ApiCall("cuLaunchKernel", 1, 0, start, start + 100, correlation, 0, Map.of(),
                ClockDomain.CUPTI));
        return this;
    }

    TimelineBuilder step(long step, long start, long end) {
        trace().markers().add(new Marker(Marker.Kind.ITERATION, "step", rank, step, start, end, ClockDomain.CUPTI));
        return this;
    }

    RankTimeline timeline() {
        return new RankTimeline(trace(), ActivityClassifier.defaults());
    }
}
