package dev.aorta.analyzer.read;

import dev.aorta.analyzer.trace.RankTrace;
import dev.aorta.analyzer.trace.TraceLoader;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** rocpd and Nsight Systems databases built here with their real table and column names. */
class SqliteReadersTest {

    private static void sql(Path db, String... statements) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement st = c.createStatement()) {
            for (String s : statements) {
                st.executeUpdate(s);
            }
        }
    }

    private static RankTrace read(Path db) throws IOException {
        return TraceLoader.withInstalledReaders().load(List.of(db)).ranks().iterator().next();
    }

    @Test
    void rocpdPerProcessTablesWithUuidSuffix(@TempDir Path tmp) throws Exception {
        Path db = tmp.resolve("908_results.db");
        String u = "_0123456789abcdef";
        sql(db,
                "CREATE TABLE rocpd_string" + u + " (id INTEGER PRIMARY KEY, guid TEXT, string TEXT)",
                "CREATE TABLE rocpd_info_agent" + u + " (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER,"
                        + " type TEXT, absolute_index INTEGER, logical_index INTEGER, type_index INTEGER, name TEXT)",
                "CREATE TABLE rocpd_info_kernel_symbol" + u + " (id INTEGER PRIMARY KEY, guid TEXT, kernel_name TEXT,"
                        + " display_name TEXT)",
                "CREATE TABLE rocpd_kernel_dispatch" + u + " (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER,"
                        + " tid INTEGER, agent_id INTEGER, kernel_id INTEGER, dispatch_id INTEGER, queue_id INTEGER,"
                        + " stream_id INTEGER, start BIGINT, end BIGINT, private_segment_size INTEGER,"
                        + " group_segment_size INTEGER, workgroup_size_x INTEGER, workgroup_size_y INTEGER,"
                        + " workgroup_size_z INTEGER, grid_size_x INTEGER, grid_size_y INTEGER, grid_size_z INTEGER,"
                        + " region_name_id INTEGER, event_id INTEGER)",
                "CREATE TABLE rocpd_memory_copy" + u + " (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER,"
                        + " tid INTEGER, start BIGINT, end BIGINT, name_id INTEGER, dst_agent_id INTEGER,"
                        + " dst_address INTEGER, src_agent_id INTEGER, src_address INTEGER, size INTEGER,"
                        + " queue_id INTEGER, stream_id INTEGER, region_name_id INTEGER, event_id INTEGER)",
                "CREATE TABLE rocpd_region" + u + " (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER,"
                        + " tid INTEGER, start BIGINT, end BIGINT, name_id INTEGER, event_id INTEGER)",
                "INSERT INTO rocpd_string" + u + " VALUES (1,'g','training_step'),(2,'g','hipLaunchKernel')",
                "INSERT INTO rocpd_info_agent" + u + " VALUES (7,'g',0,908,'GPU',9,3,3,'gfx950')",
                "INSERT INTO rocpd_info_kernel_symbol" + u + " VALUES (5,'g','Cijk_gemm.kd','Cijk_gemm')",
                "INSERT INTO rocpd_kernel_dispatch" + u + " VALUES (1,'g',0,908,908,7,5,1,16,567,1000,3000,0,0,"
                        + "256,1,1,1024,1,1,0,0)",
                "INSERT INTO rocpd_memory_copy" + u + " VALUES (1,'g',0,908,908,500,900,0,7,0,0,0,4096,16,567,0,0)",
                "INSERT INTO rocpd_region" + u + " VALUES (1,'g',0,908,908,0,5000,1,0),(2,'g',0,908,908,100,200,2,0)");
        RankTrace r = read(db);
        DeviceActivity k = r.activities().stream().filter(a -> a.kind() == ActivityKind.KERNEL).findFirst().orElseThrow();
        assertThat(k.name()).isEqualTo("Cijk_gemm");
        assertThat(k.device()).isEqualTo(3);
        assertThat(k.stream()).isEqualTo(567);
        assertThat(k.startNs()).isEqualTo(1000);
        assertThat(k.endNs()).isEqualTo(3000);
        assertThat(k.grid()).isEqualTo(new Dim3(4, 1, 1));
        assertThat(k.clock()).isEqualTo(ClockDomain.BOOTTIME);
        DeviceActivity copy = r.activities().stream().filter(a -> a.kind() == ActivityKind.MEMCPY).findFirst().orElseThrow();
        assertThat(copy.bytes()).isEqualTo(4096);
        assertThat(r.markers()).extracting(Marker::name).containsExactly("training_step");
    }

    @Test
    void nsightSystemsExport(@TempDir Path tmp) throws Exception {
        Path db = tmp.resolve("report1.sqlite");
        sql(db,
                "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)",
                "CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT)",
                "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER,"
                        + " contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER,"
                        + " demangledName INTEGER, shortName INTEGER, mangledName INTEGER, gridX INTEGER, gridY INTEGER,"
                        + " gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER, registersPerThread INTEGER)",
                "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER,"
                        + " contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER,"
                        + " copyKind INTEGER)",
                "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER,"
                        + " contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, value INTEGER,"
                        + " bytes INTEGER)",
                "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER,"
                        + " globalTid INTEGER, correlationId INTEGER, nameId INTEGER, returnValue INTEGER, callchainId INTEGER)",
                "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER, rangeId INTEGER,"
                        + " category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER,"
                        + " textId INTEGER, domainId INTEGER)",
                "INSERT INTO StringIds VALUES (1,'ampere_sgemm_128x64_nn'),(2,'cudaLaunchKernel'),(3,'sgemm'),"
                        + "(4,'ncclDevKernel_AllReduce_Sum_f32_RING_LL'),(5,'forward')",
                "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1700000000000000000,'','')",
                "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (2000,5000,0,1,7,42,1,1,3,0,8,16,5,128,1,1,122),"
                        + "(3000,9000,0,1,13,43,1,4,4,0,1,1,1,512,1,1,64)",
                "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (100,400,0,1,7,40,1,4096,1)",
                "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (400,500,0,1,7,41,1,0,512)",
                "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1500,1600,0,99,42,2,0,0)",
                "INSERT INTO NVTX_EVENTS VALUES (0,10000,59,1,0,0,NULL,99,99,5,0),(50,NULL,34,0,0,0,'mark',99,99,NULL,0)");
        RankTrace r = read(db);
        assertThat(r.activities()).hasSize(4).allMatch(a -> a.clock() == ClockDomain.SESSION_RELATIVE);
        DeviceActivity sgemm = r.activities().stream().filter(a -> a.correlationId() == 42).findFirst().orElseThrow();
        assertThat(sgemm.name()).isEqualTo("ampere_sgemm_128x64_nn");
        assertThat(sgemm.grid()).isEqualTo(new Dim3(8, 16, 5));
        assertThat(sgemm.stream()).isEqualTo(7);
        assertThat(r.activities()).extracting(DeviceActivity::kind)
                .containsExactlyInAnyOrder(ActivityKind.KERNEL, ActivityKind.KERNEL, ActivityKind.MEMCPY, ActivityKind.MEMSET);
        assertThat(r.apiCalls()).extracting(ApiCall::name).containsExactly("cudaLaunchKernel");
        assertThat(r.markers()).extracting(Marker::name).containsExactly("forward");
        assertThat(r.anchors()).containsExactly(new ClockAnchor(ClockDomain.SESSION_RELATIVE, 0, ClockDomain.EPOCH,
                1700000000000000000L));
    }
}
