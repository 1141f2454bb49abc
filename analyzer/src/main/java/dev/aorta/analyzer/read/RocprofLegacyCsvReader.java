package dev.aorta.analyzer.read;

import dev.aorta.analyzer.trace.TraceSink;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import org.apache.commons.csv.CSVParser;

import java.io.IOException;

/**
 * Legacy rocprof (v1) {@code results.csv}: one kernel per row with {@code KernelName}, {@code BeginNs},
 * {@code EndNs}, {@code gpu-id}, {@code queue-id} and, when present, {@code DispatchNs} (when the dispatch packet
 * was written: the queued time) and {@code grd}/{@code wgr} (grid in work-items, workgroup size).
 */
public final class RocprofLegacyCsvReader implements TraceReader {
    @Override
    public String format() {
        return "rocprof-results-csv";
    }

    @Override
    public boolean accepts(TraceSource source) {
        String header = source.firstLine().replace("\"", "");
        return header.contains("BeginNs") && header.contains("EndNs");
    }

    @Override
    public void read(TraceSource source, TraceSink sink) throws IOException {
        try (CSVParser csv = CsvColumns.parse(source)) {
            CsvColumns c = new CsvColumns(csv.getHeaderMap());
            String name = c.firstPresent("KernelName", "Kernel_Name", "Name");
            if (name == null) {
                throw new TraceFormatException(source.path() + ": a rocprof results.csv needs a KernelName column");
            }
            CsvColumns.forEachRow(csv, source, sink, r -> {
                long wgr = c.number(r, "wgr", 0);
                long grd = c.number(r, "grd", 0);
                Dim3 block = wgr > 0 ? new Dim3((int) wgr, 1, 1) : Dim3.NONE;
                Dim3 grid = grd > 0 && wgr > 0 ? new Dim3((int) ((grd + wgr - 1) / wgr), 1, 1) : Dim3.NONE;
                sink.activity(new DeviceActivity(ActivityKind.KERNEL, c.text(r, name), TraceSink.UNKNOWN_RANK,
                        (int) c.number(r, "gpu-id", 0), c.number(r, "queue-id", 0), c.required(r, "BeginNs"),
                        c.required(r, "EndNs"), c.number(r, "Index", 0), c.number(r, "DispatchNs", DeviceActivity.UNKNOWN),
                        DeviceActivity.UNKNOWN, grid, block, 0, ClockDomain.BOOTTIME));
            });
        }
    }
}
