package dev.aorta.analyzer.metrics;

import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.DeviceActivity;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Steps measured on the device's time. A host step range ({@code ProfilerStep#N}, an agent iteration) ends when its
 * host code returns, while the device work it launched often runs well after that: measured on the host range, that
 * work falls in the next step or in none (on a real MI300 trace 45% of the device busy time lay outside every step).
 * So a kernel belongs to the step during which its launching host call started (linked by correlation id), and a
 * step's window runs from the first start to the last end of the device work so launched.
 *
 * <p>A step that launched nothing keeps its host range, marked {@link Window.Basis#HOST_NO_DEVICE_WORK}; when no
 * kernel of the rank links to a launching call at all (the trace has no correlation ids or no API records), every
 * step keeps its host range, marked {@link Window.Basis#HOST_UNLINKED}, with a warning.
 */
final class DeviceSteps {
    private DeviceSteps() {
    }

    /**
     * @param hostSteps the host step windows, sorted by start
     * @param calls     the rank's API calls by the correlation id their device work carries
     */
    static List<Window> of(RankTimeline t, List<Window> hostSteps, CallsByCorrelation calls, List<String> warnings) {
        int n = hostSteps.size();
        long[] hostStarts = new long[n];
        for (int i = 0; i < n; i++) {
            hostStarts[i] = hostSteps.get(i).startNs();
        }
        long[] first = new long[n];
        long[] last = new long[n];
        Arrays.fill(first, Long.MAX_VALUE);
        Arrays.fill(last, Long.MIN_VALUE);
        long linked = 0;
        for (DeviceActivity a : t.activities()) {
            ApiCall call = a.correlationId() == 0 ? null : calls.get(a.correlationId());
            if (call == null) {
                continue;
            }
            linked++;
            int s = stepContaining(hostSteps, hostStarts, call.startNs());
            if (s >= 0) {
                first[s] = Math.min(first[s], a.startNs());
                last[s] = Math.max(last[s], a.endNs());
            }
        }
        if (linked == 0) {
            if (!t.activities().isEmpty()) {
                warnings.add("rank " + t.rank() + ": no device activity in " + t.source() + " links to the host call"
                        + " that launched it (no correlation ids or no API records), so its steps are the host step"
                        + " ranges and device work running after its step's host code ends is counted in the next"
                        + " step or in none");
            }
            return hostSteps.stream().map(h -> withBasis(h, h.startNs(), h.endNs(), Window.Basis.HOST_UNLINKED))
                    .toList();
        }
        List<Window> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Window h = hostSteps.get(i);
            out.add(first[i] == Long.MAX_VALUE ? withBasis(h, h.startNs(), h.endNs(), Window.Basis.HOST_NO_DEVICE_WORK)
                    : withBasis(h, first[i], last[i], Window.Basis.DEVICE));
        }
        return out;
    }

    /** The index of the step whose host range holds {@code ns}, or -1; host steps do not overlap. */
    private static int stepContaining(List<Window> steps, long[] starts, long ns) {
        int i = Arrays.binarySearch(starts, ns);
        if (i < 0) {
            i = -i - 2;  // the last step starting before ns
        } else {
            while (i + 1 < starts.length && starts[i + 1] == ns) {
                i++;
            }
        }
        return i >= 0 && ns < steps.get(i).endNs() ? i : -1;
    }

    private static Window withBasis(Window host, long start, long end, Window.Basis basis) {
        return new Window(host.label(), host.kind(), host.step(), start, end, basis, host.startNs(), host.endNs());
    }
}
