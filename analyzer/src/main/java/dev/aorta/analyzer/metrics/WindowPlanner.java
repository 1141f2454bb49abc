package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.event.Marker;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The windows of a rank. WHOLE: from the start of its first device activity to the end of its last (docs/metrics.md).
 * STEPS: one per ITERATION marker (a step seen twice, e.g. from two files of the same rank, counts once), measured
 * on the device's time ({@link DeviceSteps});
 * RANGES: one per RANGE marker; CAPTURES: one per capture window the agent recorded (a CAPTURE marker, named
 * "capture N" after its index). A rank without the markers asked for gets the whole trace and a warning, so
 * a partial trace still gives a result.
 */
public final class WindowPlanner {
    private WindowPlanner() {
    }

    public static List<Window> windows(RankTimeline t, WindowMode mode, List<String> warnings) {
        return windows(t, mode, LaunchLatency.callsByCorrelation(t), warnings);
    }

    /** @param calls the rank's API calls by correlation id ({@link LaunchLatency#callsByCorrelation}) */
    static List<Window> windows(RankTimeline t, WindowMode mode, CallsByCorrelation calls, List<String> warnings) {
        List<Window> out = new ArrayList<>();
        if (mode != WindowMode.WHOLE) {
            Marker.Kind wanted = switch (mode) {
                case STEPS -> Marker.Kind.ITERATION;
                case CAPTURES -> Marker.Kind.CAPTURE;
                default -> Marker.Kind.RANGE;
            };
            Set<String> seen = new HashSet<>();
            for (Marker m : t.markers()) {
                if (m.kind() != wanted || m.endNs() <= m.startNs()) {
                    continue;
                }
                if (wanted == Marker.Kind.ITERATION) {
                    if (seen.add("step " + m.step())) {
                        out.add(new Window("step " + m.step(), Window.Kind.STEP, m.step(), m.startNs(), m.endNs()));
                    }
                } else {
                    out.add(new Window(m.name(), Window.Kind.RANGE, -1, m.startNs(), m.endNs()));
                }
            }
            if (out.isEmpty()) {
                warnings.add("rank " + t.rank() + ": no " + switch (mode) {
                    case STEPS -> "iteration markers";
                    case CAPTURES -> "capture windows (the agent records them with a capture schedule, docs/agent.md)";
                    default -> "range markers";
                } + " in " + t.source() + "; measured the whole trace instead");
            } else if (wanted == Marker.Kind.ITERATION) {
                return DeviceSteps.of(t, out, calls, warnings);
            }
        }
        if (out.isEmpty() && !t.activities().isEmpty()) {
            out.add(whole(t));
        }
        if (t.activities().isEmpty()) {
            warnings.add("rank " + t.rank() + ": " + t.source() + " holds " + t.apiCalls().size() + " API calls and "
                    + t.markers().size() + " markers but no device activity, so there is nothing to measure; overlap"
                    + " needs the kernels and copies of the same run (a Kineto trace with kernels, a rocprofv3"
                    + " kernel or memory-copy trace, or the agent's activity records)");
        }
        return out;
    }

    public static Window whole(RankTimeline t) {
        return new Window("whole", Window.Kind.WHOLE, -1, t.firstStart(), t.lastEnd());
    }
}
