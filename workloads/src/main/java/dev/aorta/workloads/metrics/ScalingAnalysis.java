package dev.aorta.workloads.metrics;

import java.util.ArrayList;
import java.util.List;

/**
 * Scaling of throughput with the stream count (docs/metrics.md#percentiles-and-scaling): efficiency_i = tp_i / (tp_0/s_0 · s_i),
 * i.e. the share of perfect linear scaling from the first point; the inflection point is the first
 * stream count whose efficiency drops below 0.8 × the previous point's.
 */
public record ScalingAnalysis(List<Point> points, Integer inflectionStreams, Integer bestStreams) {

    public static final double INFLECTION_DROP = 0.8;

    public record Point(int streams, double throughput, double efficiency) {
    }

    /** @param streams ascending stream counts; {@code throughput} of each, same order */
    public static ScalingAnalysis of(int[] streams, double[] throughput) {
        if (streams.length == 0 || streams.length != throughput.length) {
            throw new IllegalArgumentException("scaling needs one throughput per stream count");
        }
        double perStream = throughput[0] / streams[0];
        List<Point> points = new ArrayList<>();
        Integer inflection = null;
        int best = 0;
        for (int i = 0; i < streams.length; i++) {
            double eff = perStream > 0 ? throughput[i] / (perStream * streams[i]) : 0;
            if (inflection == null && i > 0 && eff < INFLECTION_DROP * points.get(i - 1).efficiency()) {
                inflection = streams[i];
            }
            points.add(new Point(streams[i], throughput[i], eff));
            if (throughput[i] > throughput[best]) {
                best = i;
            }
        }
        return new ScalingAnalysis(points, inflection, streams[best]);
    }
}
