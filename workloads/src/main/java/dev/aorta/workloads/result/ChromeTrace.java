package dev.aorta.workloads.result;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.aorta.core.event.AortaChromeTrace;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.workloads.harness.RunResult;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A Chrome-trace / Perfetto JSON of the measured iterations from the device timestamps of a run:
 * one track per workload stream (named with its index, role and priority), one complete event per
 * kernel, times in µs from the first kernel. Open it in ui.perfetto.dev or chrome://tracing.
 *
 * <p>{@code aorta analyze} reads it back: {@code otherData} (written first, so a reader sees it in the file's head)
 * carries the marks of {@link AortaChromeTrace}, with {@code pid_is} = "device" (the rank is in the file's name under a launcher);
 * each kernel's {@code args} carry its {@code kind}, its real {@code stream} id and {@code device}, since the track
 * ids are the workload's stream indices.
 */
public final class ChromeTrace {
    private ChromeTrace() {
    }

    public static ObjectNode toJson(RunResult r) {
        ObjectNode root = ResultJson.MAPPER.createObjectNode();
        List<DeviceActivity> all = r.activities().stream().flatMap(List::stream).toList();
        ObjectNode meta = root.putObject("otherData");
        meta.put(AortaChromeTrace.VERSION_FIELD, AortaChromeTrace.VERSION);
        meta.put(AortaChromeTrace.PID_FIELD, AortaChromeTrace.PID_DEVICE);
        meta.put("timing_source", r.kernelTiming().source().label());
        meta.put("clock", all.isEmpty() ? "none" : all.getFirst().clock().tag());
        meta.put("workload", r.workloadName());
        ArrayNode events = root.putArray("traceEvents");
        int pid = r.device().ordinal();
        ObjectNode process = events.addObject();
        process.put("ph", "M");
        process.put("name", "process_name");
        process.put("pid", pid);
        process.putObject("args").put("name", "GPU " + pid + " " + r.device().name() + " - " + r.workloadName());
        Map<Long, Integer> trackOf = new HashMap<>();
        for (RunResult.StreamStats s : r.streams()) {
            trackOf.put(s.activityStreamId(), s.index());
            ObjectNode thread = events.addObject();
            thread.put("ph", "M");
            thread.put("name", "thread_name");
            thread.put("pid", pid);
            thread.put("tid", s.index());
            thread.putObject("args").put("name", "stream " + s.index() + " (" + s.role() + ", priority "
                    + s.priority() + ")");
        }
        long origin = all.stream().mapToLong(DeviceActivity::startNs).min().orElse(0);
        for (int w = 0; w < r.activities().size(); w++) {
            for (DeviceActivity a : r.activities().get(w)) {
                ObjectNode e = events.addObject();
                e.put("ph", "X");
                e.put("cat", a.kind().name().toLowerCase(java.util.Locale.ROOT));
                e.put("name", a.name());
                e.put("pid", pid);
                e.put("tid", trackOf.getOrDefault(a.stream(), -1));
                e.put("ts", micros(a.startNs() - origin));
                e.put("dur", micros(a.durationNs()));
                ObjectNode args = e.putObject("args");
                args.put("kind", a.kind().name());
                args.put("device", a.device());
                args.put("stream", a.stream());
                args.put("correlation", a.correlationId());
                if (r.kernelTiming().perIterationWindows()) {
                    args.put("iteration_window", w);
                }
                if (a.queuedNs() != DeviceActivity.UNKNOWN) {
                    args.put("queued_us", micros(a.queuedNs() - origin));
                }
            }
        }
        root.put("displayTimeUnit", "ns");
        return root;
    }

    /** Nanoseconds as exact decimal microseconds: a double would print 10 s as 1.0E7 and round the nanoseconds. */
    private static BigDecimal micros(long ns) {
        return BigDecimal.valueOf(ns, 3);
    }

    public static void write(Path file, RunResult r) throws IOException {
        ResultJson.write(file, toJson(r));
    }
}
