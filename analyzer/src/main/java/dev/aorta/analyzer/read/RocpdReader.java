package dev.aorta.analyzer.read;

import dev.aorta.analyzer.trace.TraceSink;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;

import java.io.IOException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The rocpd SQLite database rocprofv3 writes ({@code --output-format rocpd}): {@code rocpd_kernel_dispatch}
 * (joined to {@code rocpd_info_kernel_symbol} for names), {@code rocpd_memory_copy} and {@code rocpd_region}
 * (names from {@code rocpd_string}), either the unsuffixed views or the per-process {@code _<uuid>} tables.
 * Agents map to GPU indices through {@code rocpd_info_agent.logical_index} when present. Times: ns, CLOCK_BOOTTIME.
 */
public final class RocpdReader implements TraceReader {
    private static final ClockDomain CLOCK = ClockDomain.BOOTTIME;

    @Override
    public String format() {
        return "rocpd-sqlite";
    }

    @Override
    public boolean accepts(TraceSource source) {
        return source.isSqlite() && SqliteTables.anyTableStartsWith(source.path(), "rocpd_");
    }

    @Override
    public void read(TraceSource source, TraceSink sink) throws IOException {
        try (SqliteTables db = new SqliteTables(source.path())) {
            List<String> dispatches = db.named("rocpd_kernel_dispatch");
            if (dispatches.isEmpty() && db.named("rocpd_memory_copy").isEmpty()) {
                throw new TraceFormatException(source.path() + ": a rocpd database needs a rocpd_kernel_dispatch or"
                        + " rocpd_memory_copy table");
            }
            Map<Long, Integer> gpuIndex = agents(db);
            Map<Long, String> symbols = lookup(db, "rocpd_info_kernel_symbol", "id",
                    new String[] {"display_name", "kernel_name"});
            Map<Long, String> strings = lookup(db, "rocpd_string", "id", new String[] {"string"});
            for (String t : dispatches) {
                readDispatches(db, t, symbols, gpuIndex, sink);
            }
            for (String t : db.named("rocpd_memory_copy")) {
                readCopies(db, t, gpuIndex, sink);
            }
            for (String t : db.named("rocpd_region")) {
                readRegions(db, t, strings, sink);
            }
        } catch (SQLException e) {
            throw new TraceFormatException(source.path() + ": cannot read the rocpd database (" + e.getMessage() + ")");
        }
    }

    private static Map<Long, Integer> agents(SqliteTables db) throws SQLException {
        Map<Long, Integer> out = new HashMap<>();
        for (String t : db.named("rocpd_info_agent")) {
            Set<String> cols = db.columns(t);
            String index = cols.contains("logical_index") ? "logical_index" : cols.contains("type_index") ? "type_index" : null;
            if (index == null) {
                continue;
            }
            try (Statement st = db.connection().createStatement();
                 ResultSet rs = st.executeQuery("SELECT id, " + SqliteTables.quote(index) + " FROM " + SqliteTables.quote(t))) {
                while (rs.next()) {
                    out.put(rs.getLong(1), rs.getInt(2));
                }
            }
        }
        return out;
    }

    private static Map<Long, String> lookup(SqliteTables db, String table, String key, String[] valueColumns)
            throws SQLException {
        Map<Long, String> out = new HashMap<>();
        for (String t : db.named(table)) {
            Set<String> cols = db.columns(t);
            for (String value : valueColumns) {
                if (cols.contains(value) && cols.contains(key)) {
                    try (Statement st = db.connection().createStatement();
                         ResultSet rs = st.executeQuery("SELECT " + SqliteTables.quote(key) + ", "
                                 + SqliteTables.quote(value) + " FROM " + SqliteTables.quote(t))) {
                        while (rs.next()) {
                            String v = rs.getString(2);
                            if (v != null && !v.isEmpty()) {
                                out.putIfAbsent(rs.getLong(1), v);
                            }
                        }
                    }
                }
            }
        }
        return out;
    }

    private static void readDispatches(SqliteTables db, String t, Map<Long, String> symbols, Map<Long, Integer> gpuIndex,
                                       TraceSink sink) throws SQLException {
        Set<String> c = db.columns(t);
        String sql = "SELECT " + String.join(",", "\"start\"", "\"end\"",
                SqliteTables.columnOr(c, "kernel_id", "-1"), SqliteTables.columnOr(c, "agent_id", "0"),
                SqliteTables.columnOr(c, "stream_id", "0"), SqliteTables.columnOr(c, "queue_id", "0"),
                SqliteTables.columnOr(c, "correlation_id", SqliteTables.columnOr(c, "dispatch_id", "0")),
                SqliteTables.columnOr(c, "workgroup_size_x", "0"), SqliteTables.columnOr(c, "workgroup_size_y", "1"),
                SqliteTables.columnOr(c, "workgroup_size_z", "1"), SqliteTables.columnOr(c, "grid_size_x", "0"),
                SqliteTables.columnOr(c, "grid_size_y", "1"), SqliteTables.columnOr(c, "grid_size_z", "1"))
                + " FROM " + SqliteTables.quote(t);
        try (Statement st = db.connection().createStatement(); ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                long kernelId = rs.getLong(3);
                long agent = rs.getLong(4);
                long stream = rs.getLong(5) != 0 ? rs.getLong(5) : rs.getLong(6);
                Dim3 block = new Dim3(rs.getInt(8), rs.getInt(9), rs.getInt(10));
                Dim3 grid = new Dim3(blocks(rs.getLong(11), block.x()), blocks(rs.getLong(12), block.y()),
                        blocks(rs.getLong(13), block.z()));
                sink.activity(new DeviceActivity(ActivityKind.KERNEL, symbols.getOrDefault(kernelId, "kernel#" + kernelId),
                        TraceSink.UNKNOWN_RANK, gpuIndex.getOrDefault(agent, (int) agent), stream, rs.getLong(1),
                        rs.getLong(2), rs.getLong(7), DeviceActivity.UNKNOWN, DeviceActivity.UNKNOWN, grid, block, 0, CLOCK));
            }
        }
    }

    private static void readCopies(SqliteTables db, String t, Map<Long, Integer> gpuIndex, TraceSink sink)
            throws SQLException {
        Set<String> c = db.columns(t);
        String sql = "SELECT \"start\", \"end\", " + SqliteTables.columnOr(c, "dst_agent_id", "0") + ", "
                + SqliteTables.columnOr(c, "stream_id", "0") + ", " + SqliteTables.columnOr(c, "queue_id", "0") + ", "
                + SqliteTables.columnOr(c, "size", "0") + " FROM " + SqliteTables.quote(t);
        try (Statement st = db.connection().createStatement(); ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                long agent = rs.getLong(3);
                long stream = rs.getLong(4) != 0 ? rs.getLong(4) : rs.getLong(5);
                sink.activity(new DeviceActivity(ActivityKind.MEMCPY, "MEMORY_COPY", TraceSink.UNKNOWN_RANK,
                        gpuIndex.getOrDefault(agent, (int) agent), stream, rs.getLong(1), rs.getLong(2), 0,
                        DeviceActivity.UNKNOWN, DeviceActivity.UNKNOWN, Dim3.NONE, Dim3.NONE, rs.getLong(6), CLOCK));
            }
        }
    }

    private static void readRegions(SqliteTables db, String t, Map<Long, String> strings, TraceSink sink)
            throws SQLException {
        Set<String> c = db.columns(t);
        if (!c.contains("name_id")) {
            return;
        }
        try (Statement st = db.connection().createStatement();
             ResultSet rs = st.executeQuery("SELECT \"start\", \"end\", name_id FROM " + SqliteTables.quote(t))) {
            while (rs.next()) {
                String name = strings.getOrDefault(rs.getLong(3), "region#" + rs.getLong(3));
                // regions hold host API calls and roctx ranges alike; only markers are of use without an API table
                if (!name.startsWith("hip") && !name.startsWith("hsa")) {
                    sink.marker(new Marker(Marker.Kind.RANGE, name, TraceSink.UNKNOWN_RANK, -1, rs.getLong(1),
                            Math.max(rs.getLong(1), rs.getLong(2)), CLOCK));
                }
            }
        }
    }

    private static int blocks(long workItems, int blockSize) {
        return (int) (blockSize <= 0 ? workItems : (workItems + blockSize - 1) / blockSize);
    }
}
