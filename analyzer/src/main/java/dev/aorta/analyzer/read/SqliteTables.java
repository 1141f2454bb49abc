package dev.aorta.analyzer.read;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/** Opens SQLite trace databases read-only and finds tables and columns by introspection, never by assumption. */
final class SqliteTables implements AutoCloseable {
    private final Connection connection;
    private final List<String> names = new ArrayList<>();

    SqliteTables(java.nio.file.Path file) throws SQLException {
        org.sqlite.SQLiteConfig config = new org.sqlite.SQLiteConfig();
        config.setReadOnly(true);
        this.connection = DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath(), config.toProperties());
        try (Statement st = connection.createStatement();
             ResultSet rs = st.executeQuery("SELECT name FROM sqlite_master WHERE type IN ('table','view') ORDER BY name")) {
            while (rs.next()) {
                names.add(rs.getString(1));
            }
        }
    }

    /** Whether the database at {@code file} has a table or view whose name starts with {@code prefix}. */
    static boolean anyTableStartsWith(java.nio.file.Path file, String prefix) {
        try (SqliteTables db = new SqliteTables(file)) {
            return db.names.stream().anyMatch(n -> n.toLowerCase(Locale.ROOT).startsWith(prefix.toLowerCase(Locale.ROOT)));
        } catch (SQLException e) {
            return false;
        }
    }

    Connection connection() {
        return connection;
    }

    boolean has(String table) {
        return names.stream().anyMatch(n -> n.equalsIgnoreCase(table));
    }

    /**
     * The table or view named {@code base}, else the tables whose name starts with {@code base} followed by a
     * suffix (rocpd writes {@code rocpd_kernel_dispatch_<uuid>} per process and an unsuffixed view over them).
     */
    List<String> named(String base) {
        for (String n : names) {
            if (n.equalsIgnoreCase(base)) {
                return List.of(n);
            }
        }
        List<String> out = new ArrayList<>();
        for (String n : names) {
            if (n.toLowerCase(Locale.ROOT).startsWith(base.toLowerCase(Locale.ROOT) + "_")) {
                out.add(n);
            }
        }
        return out;
    }

    Set<String> columns(String table) throws SQLException {
        Set<String> cols = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        try (Statement st = connection.createStatement();
             ResultSet rs = st.executeQuery("PRAGMA table_info(" + quote(table) + ")")) {
            while (rs.next()) {
                cols.add(rs.getString("name"));
            }
        }
        return cols;
    }

    static String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    /** {@code column} quoted when the table has it, else the SQL literal {@code dflt}. */
    static String columnOr(Set<String> cols, String column, String dflt) {
        return cols.contains(column) ? quote(column) : dflt;
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
