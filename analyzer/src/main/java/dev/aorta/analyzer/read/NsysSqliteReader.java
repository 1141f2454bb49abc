package dev.aorta.analyzer.read;

import dev.aorta.analyzer.trace.TraceSink;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;

import java.io.IOException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Nsight Systems SQLite export ({@code nsys export --type sqlite}): {@code CUPTI_ACTIVITY_KIND_KERNEL},
 * {@code _MEMCPY}, {@code _MEMSET} (device records), {@code CUPTI_ACTIVITY_KIND_RUNTIME} (API calls, linked by
 * {@code correlationId}) and {@code NVTX_EVENTS} (ranges: {@code text} or {@code textId}). Names are ids into
 * {@code StringIds}. Columns are found by introspection; older exports lack some (e.g. {@code demangledName}).
 * Times are ns since the session start; {@code TARGET_INFO_SESSION_START_TIME.utcEpochNs} anchors them to the epoch.
 */
public final class NsysSqliteReader implements TraceReader {
    private static final ClockDomain CLOCK = ClockDomain.SESSION_RELATIVE;

    @Override
    public String format() {
        return "nsys-sqlite";
    }

    @Override
    public boolean accepts(TraceSource source) {
        return source.isSqlite() && SqliteTables.anyTableStartsWith(source.path(), "CUPTI_ACTIVITY_KIND_");
    }

    @Override
    public void read(TraceSource source, TraceSink sink) throws IOException {
        try (SqliteTables db = new SqliteTables(source.path())) {
            Map<Long, String> strings = strings(db);
            if (db.has("TARGET_INFO_SESSION_START_TIME")
                    && db.columns("TARGET_INFO_SESSION_START_TIME").contains("utcEpochNs")) {
                try (Statement st = db.connection().createStatement();
                     ResultSet rs = st.executeQuery("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1")) {
                    if (rs.next()) {
                        sink.anchor(new ClockAnchor(CLOCK, 0, ClockDomain.EPOCH, rs.getLong(1)));
                    }
                }
            }
            if (db.has("CUPTI_ACTIVITY_KIND_KERNEL")) {
                readKernels(db, strings, sink);
            }
            if (db.has("CUPTI_ACTIVITY_KIND_MEMCPY")) {
                readMemory(db, "CUPTI_ACTIVITY_KIND_MEMCPY", ActivityKind.MEMCPY, sink);
            }
            if (db.has("CUPTI_ACTIVITY_KIND_MEMSET")) {
                readMemory(db, "CUPTI_ACTIVITY_KIND_MEMSET", ActivityKind.MEMSET, sink);
            }
            if (db.has("CUPTI_ACTIVITY_KIND_RUNTIME")) {
                readRuntime(db, strings, sink);
            }
            if (db.has("NVTX_EVENTS")) {
                readNvtx(db, strings, sink);
            }
        } catch (SQLException e) {
            throw new TraceFormatException(source.path() + ": cannot read the Nsight Systems export (" + e.getMessage() + ")");
        }
    }

    private static Map<Long, String> strings(SqliteTables db) throws SQLException {
        Map<Long, String> out = new HashMap<>();
        if (!db.has("StringIds")) {
            return out;
        }
        try (Statement st = db.connection().createStatement(); ResultSet rs = st.executeQuery("SELECT id, value FROM StringIds")) {
            while (rs.next()) {
                out.put(rs.getLong(1), rs.getString(2));
            }
        }
        return out;
    }

    private static void readKernels(SqliteTables db, Map<Long, String> strings, TraceSink sink) throws SQLException {
        Set<String> c = db.columns("CUPTI_ACTIVITY_KIND_KERNEL");
        String name = c.contains("demangledName") ? "demangledName" : c.contains("shortName") ? "shortName" : null;
        String sql = "SELECT start, \"end\", " + SqliteTables.columnOr(c, "deviceId", "0") + ", "
                + SqliteTables.columnOr(c, "streamId", "0") + ", " + SqliteTables.columnOr(c, "correlationId", "0") + ", "
                + (name == null ? "-1" : name) + ", "
                + String.join(", ", SqliteTables.columnOr(c, "gridX", "0"), SqliteTables.columnOr(c, "gridY", "0"),
                SqliteTables.columnOr(c, "gridZ", "0"), SqliteTables.columnOr(c, "blockX", "0"),
                SqliteTables.columnOr(c, "blockY", "0"), SqliteTables.columnOr(c, "blockZ", "0"))
                + " FROM CUPTI_ACTIVITY_KIND_KERNEL";
        try (Statement st = db.connection().createStatement(); ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                String kernel = strings.getOrDefault(rs.getLong(6), "kernel#" + rs.getLong(6));
                sink.activity(new DeviceActivity(ActivityKind.KERNEL, kernel, TraceSink.UNKNOWN_RANK, rs.getInt(3),
                        rs.getLong(4), rs.getLong(1), rs.getLong(2), rs.getLong(5), DeviceActivity.UNKNOWN,
                        DeviceActivity.UNKNOWN, new Dim3(rs.getInt(7), rs.getInt(8), rs.getInt(9)),
                        new Dim3(rs.getInt(10), rs.getInt(11), rs.getInt(12)), 0, CLOCK));
            }
        }
    }

    private static void readMemory(SqliteTables db, String table, ActivityKind kind, TraceSink sink) throws SQLException {
        Set<String> c = db.columns(table);
        String sql = "SELECT start, \"end\", " + SqliteTables.columnOr(c, "deviceId", "0") + ", "
                + SqliteTables.columnOr(c, "streamId", "0") + ", " + SqliteTables.columnOr(c, "correlationId", "0") + ", "
                + SqliteTables.columnOr(c, "bytes", "0") + " FROM " + table;
        String name = kind == ActivityKind.MEMCPY ? "Memcpy" : "Memset";
        try (Statement st = db.connection().createStatement(); ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                sink.activity(new DeviceActivity(kind, name, TraceSink.UNKNOWN_RANK, rs.getInt(3), rs.getLong(4),
                        rs.getLong(1), rs.getLong(2), rs.getLong(5), DeviceActivity.UNKNOWN, DeviceActivity.UNKNOWN,
                        Dim3.NONE, Dim3.NONE, rs.getLong(6), CLOCK));
            }
        }
    }

    private static void readRuntime(SqliteTables db, Map<Long, String> strings, TraceSink sink) throws SQLException {
        Set<String> c = db.columns("CUPTI_ACTIVITY_KIND_RUNTIME");
        String sql = "SELECT start, \"end\", " + SqliteTables.columnOr(c, "globalTid", "0") + ", "
                + SqliteTables.columnOr(c, "correlationId", "0") + ", " + SqliteTables.columnOr(c, "nameId", "-1") + ", "
                + SqliteTables.columnOr(c, "returnValue", "0") + " FROM CUPTI_ACTIVITY_KIND_RUNTIME";
        try (Statement st = db.connection().createStatement(); ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                sink.api(new ApiCall(strings.getOrDefault(rs.getLong(5), "runtime#" + rs.getLong(5)), rs.getLong(3), 0,
                        rs.getLong(1), rs.getLong(2), rs.getLong(4), rs.getInt(6), Map.of(), CLOCK));
            }
        }
    }

    private static void readNvtx(SqliteTables db, Map<Long, String> strings, TraceSink sink) throws SQLException {
        Set<String> c = db.columns("NVTX_EVENTS");
        String sql = "SELECT start, " + SqliteTables.columnOr(c, "end", "NULL") + ", " + SqliteTables.columnOr(c, "text", "NULL")
                + ", " + SqliteTables.columnOr(c, "textId", "NULL") + " FROM NVTX_EVENTS";
        try (Statement st = db.connection().createStatement(); ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                long start = rs.getLong(1);
                long end = rs.getLong(2);
                if (rs.wasNull() || end < start) {
                    continue; // marks (instants) and unterminated ranges make no window
                }
                String text = rs.getString(3);
                if (text == null) {
                    long id = rs.getLong(4);
                    text = rs.wasNull() ? "nvtx" : strings.getOrDefault(id, "nvtx#" + id);
                }
                sink.marker(new Marker(Marker.Kind.RANGE, text, TraceSink.UNKNOWN_RANK, -1, start, end, CLOCK));
            }
        }
    }
}
