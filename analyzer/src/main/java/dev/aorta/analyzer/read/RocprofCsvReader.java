package dev.aorta.analyzer.read;

import dev.aorta.analyzer.trace.TraceSink;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

import java.io.IOException;
import java.util.Map;

/**
 * rocprofv3 CSV output: {@code *_kernel_trace.csv}, {@code *_memory_copy_trace.csv}, {@code *_marker_api_trace.csv},
 * {@code *_hip_api_trace.csv} of every header generation (6.2.0; 6.2.x/6.3; 6.4/7.x with {@code Stream_Id},
 * {@code LDS_Block_Size}, {@code VGPR_Count}; rocpd-converted with {@code Guid}, {@code Lds_Block_Size},
 * {@code Vgpr_Count}). Which table a file holds is decided by its columns, not its name: {@code Kernel_Name} →
 * kernels; {@code Direction} → copies; {@code Domain}+{@code Function} → API calls, or markers for
 * {@code MARKER_*} domains. Times are nanoseconds of CLOCK_BOOTTIME. {@code Grid_Size} counts work-items, so the
 * grid in blocks is {@code ceil(Grid_Size / Workgroup_Size)} per dimension, as CUDA and Kineto count it.
 * The stream is {@code Stream_Id} when the file has it, else the HSA queue.
 */
public final class RocprofCsvReader implements TraceReader {
    private static final ClockDomain CLOCK = ClockDomain.BOOTTIME;

    @Override
    public String format() {
        return "rocprofv3-csv";
    }

    @Override
    public boolean accepts(TraceSource source) {
        String header = source.firstLine().replace("\"", "");
        return header.contains("Start_Timestamp") && header.contains("End_Timestamp");
    }

    @Override
    public void read(TraceSource source, TraceSink sink) throws IOException {
        try (CSVParser csv = CsvColumns.parse(source)) {
            CsvColumns cols = new CsvColumns(csv.getHeaderMap());
            Table table = Table.of(cols);
            if (table == null) {
                throw new TraceFormatException(source.path() + ": a rocprofv3 CSV needs a Kernel_Name, Direction or"
                        + " Domain+Function column besides Start_Timestamp and End_Timestamp");
            }
            CsvColumns.forEachRow(csv, source, sink, r -> table.emit(cols, r, sink));
        }
    }

    /** What rows of a file are, by its columns. */
    private enum Table {
        KERNELS {
            @Override
            void emit(CsvColumns c, CSVRecord r, TraceSink sink) {
                Dim3 block = new Dim3((int) c.number(r, "Workgroup_Size_X", 0), (int) c.number(r, "Workgroup_Size_Y", 1),
                        (int) c.number(r, "Workgroup_Size_Z", 1));
                Dim3 grid = new Dim3(blocks(c.number(r, "Grid_Size_X", 0), block.x()),
                        blocks(c.number(r, "Grid_Size_Y", 1), block.y()), blocks(c.number(r, "Grid_Size_Z", 1), block.z()));
                sink.activity(new DeviceActivity(ActivityKind.KERNEL, c.text(r, "Kernel_Name"), TraceSink.UNKNOWN_RANK,
                        (int) c.number(r, "Agent_Id", 0), stream(c, r), c.required(r, "Start_Timestamp"),
                        c.required(r, "End_Timestamp"), c.number(r, "Correlation_Id", 0), DeviceActivity.UNKNOWN,
                        DeviceActivity.UNKNOWN, grid, block, 0, CLOCK));
            }
        },
        COPIES {
            @Override
            void emit(CsvColumns c, CSVRecord r, TraceSink sink) {
                String bytes = c.firstPresent("Bytes", "Size", "Copy_Bytes");
                sink.activity(new DeviceActivity(ActivityKind.MEMCPY, c.text(r, "Direction"), TraceSink.UNKNOWN_RANK,
                        (int) c.number(r, "Destination_Agent_Id", c.number(r, "Agent_Id", 0)), stream(c, r),
                        c.required(r, "Start_Timestamp"), c.required(r, "End_Timestamp"),
                        c.number(r, "Correlation_Id", 0), DeviceActivity.UNKNOWN, DeviceActivity.UNKNOWN, Dim3.NONE,
                        Dim3.NONE, bytes == null ? 0 : c.number(r, bytes, 0), CLOCK));
            }
        },
        API_OR_MARKERS {
            @Override
            void emit(CsvColumns c, CSVRecord r, TraceSink sink) {
                String domain = String.valueOf(c.text(r, "Domain"));
                long start = c.required(r, "Start_Timestamp");
                long end = c.required(r, "End_Timestamp");
                if (domain.startsWith("MARKER")) {
                    sink.marker(new Marker(Marker.Kind.RANGE, c.text(r, "Function"), TraceSink.UNKNOWN_RANK, -1,
                            start, end, CLOCK));
                } else {
                    sink.api(new ApiCall(c.text(r, "Function"), c.number(r, "Thread_Id", 0), 0, start, end,
                            c.number(r, "Correlation_Id", 0), 0, Map.of("domain", domain), CLOCK));
                }
            }
        };

        abstract void emit(CsvColumns c, CSVRecord r, TraceSink sink);

        static Table of(CsvColumns c) {
            if (c.has("Kernel_Name")) {
                return KERNELS;
            }
            if (c.has("Direction")) {
                return COPIES;
            }
            if (c.has("Domain") && c.has("Function")) {
                return API_OR_MARKERS;
            }
            return null;
        }

        static long stream(CsvColumns c, CSVRecord r) {
            return c.has("Stream_Id") ? c.number(r, "Stream_Id", 0) : c.number(r, "Queue_Id", 0);
        }

        static int blocks(long workItems, int blockSize) {
            return blockSize <= 0 ? (int) workItems : (int) ((workItems + blockSize - 1) / blockSize);
        }
    }
}
