package dev.aorta.core.metric;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.DeviceActivity;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Memory-copy bandwidth per direction (docs/metrics.md#memory-copy-bandwidth): the MEMCPY records that carry a byte
 * count, grouped by direction (from the record's name: Kineto's {@code Memcpy HtoD (Pageable -> Device)},
 * rocprofv3's {@code MEMORY_COPY_HOST_TO_DEVICE}). Per direction: copies, bytes, summed copy time,
 * <b>bandwidth</b> = Σ bytes / Σ durations (the rate while copying, in GB/s with 1 GB = 10⁹ B, as nvbandwidth and
 * nccl-tests count) and the {@link SampleStats} of each copy's own bytes / duration. HTA reports the per-copy rate
 * (Kineto's {@code memory bandwidth (GB/s)}) as a time series; the pooled rate here is what a link's limit compares to,
 * since many small copies would otherwise weigh as much as one large one. Copies of 0 ns or without bytes are
 * counted apart ({@code unsized}).
 */
public record CopyBandwidth(Direction direction, int copies, long bytes, long durationNs, SampleStats perCopyGbps,
                            int unsized) {

    public enum Direction {
        HOST_TO_DEVICE("HtoD"), DEVICE_TO_HOST("DtoH"), DEVICE_TO_DEVICE("DtoD"), PEER_TO_PEER("PtoP"),
        HOST_TO_HOST("HtoH"), UNKNOWN("unknown");

        private final String label;

        Direction(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        /** The direction a copy's name states, or {@link #UNKNOWN}. */
        public static Direction of(String name) {
            String n = name == null ? "" : name.toUpperCase(Locale.ROOT).replace("_", "");
            if (n.contains("HTOD") || n.contains("HOSTTODEVICE")) {
                return HOST_TO_DEVICE;
            }
            if (n.contains("DTOH") || n.contains("DEVICETOHOST")) {
                return DEVICE_TO_HOST;
            }
            if (n.contains("PTOP") || n.contains("PEER")) {
                return PEER_TO_PEER;
            }
            if (n.contains("DTOD") || n.contains("DEVICETODEVICE")) {
                return DEVICE_TO_DEVICE;
            }
            if (n.contains("HTOH") || n.contains("HOSTTOHOST")) {
                return HOST_TO_HOST;
            }
            return UNKNOWN;
        }
    }

    /** Σ bytes / Σ durations in GB/s; null (undefined) without a sized copy. */
    public Double gbps() {
        return durationNs == 0 ? null : (double) bytes / durationNs;
    }

    /** One entry per direction that had copies, in the enum's order. */
    public static List<CopyBandwidth> byDirection(List<DeviceActivity> activities) {
        Map<Direction, SampleStats.Samples> rates = new EnumMap<>(Direction.class);
        Map<Direction, long[]> sums = new EnumMap<>(Direction.class); // copies, bytes, ns, unsized
        for (DeviceActivity a : activities) {
            if (a.kind() != ActivityKind.MEMCPY) {
                continue;
            }
            Direction d = Direction.of(a.name());
            long[] s = sums.computeIfAbsent(d, k -> new long[4]);
            SampleStats.Samples r = rates.computeIfAbsent(d, k -> new SampleStats.Samples());
            s[0]++;
            if (a.bytes() <= 0 || a.durationNs() <= 0) {
                s[3]++;
                continue;
            }
            s[1] += a.bytes();
            s[2] += a.durationNs();
            r.add((double) a.bytes() / a.durationNs()); // B/ns = GB/s
        }
        List<CopyBandwidth> out = new ArrayList<>();
        sums.forEach((d, s) -> out.add(new CopyBandwidth(d, (int) s[0], s[1], s[2], rates.get(d).stats(), (int) s[3])));
        return out;
    }
}
