package dev.aorta.agent.pipeline;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.aorta.agent.config.AgentOptions.Category;
import dev.aorta.agent.recorder.CallBuffer;
import dev.aorta.agent.recorder.CallTable;
import dev.aorta.agent.recorder.TestRings;
import dev.aorta.agent.spi.CallKind;
import dev.aorta.agent.spi.Interception;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.jsonl.EventJsonlWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The drain thread's JSONL path: ring rows decoded into one reused record and written straight to the file's
 * bytes. It writes what the event-model writer writes for the same calls, and allocates nothing per record.
 */
class DrainToJsonlTest {
    static final int LAUNCH = CallTable.register(Interception.of("test.Driver", "cuLaunchKernel", 11, CallKind.LAUNCH, Object.class));
    static final int COPY = CallTable.register(Interception.of("test.Driver", "cuMemcpyHtoDAsync", 4, CallKind.COPY, Object.class)
            .copy("HtoD"));
    static final int MEMSET = CallTable.register(Interception.of("test.Driver", "cuMemsetD32Async", 4, CallKind.MEMSET, Object.class)
            .unit(4));
    static final int SYNC = CallTable.register(Interception.of("test.Driver", "cuStreamSynchronize", 1, CallKind.SYNC, Object.class));
    static final int SET_STREAM = CallTable.register(Interception.of("test.Blas", "cublasSetStream", 2, CallKind.SET_STREAM, Object.class));
    static final int GEMM = CallTable.register(Interception.of("test.Blas", "cublasSgemm", -1, CallKind.GEMM, Object.class));
    static final int RECORD = CallTable.register(Interception.of("test.Driver", "cuEventRecord", 2, CallKind.EVENT_RECORD, Object.class));
    static final int WAIT = CallTable.register(Interception.of("test.Driver", "cuStreamWaitEvent", 3, CallKind.STREAM_WAIT, Object.class));
    static final int ALL_REDUCE = CallTable.register(Interception.of("test.Nccl", "allReduce", 6, CallKind.COLLECTIVE, Object.class));

    static final long STREAM = 0x7f00_0000_1000L;

    /**
     * One iteration's worth of typical calls, each kind the JSONL path handles without objects; with {@code waits},
     * also a stream wait for a recorded event, which makes a {@code dependency} record (an object, for every sink).
     */
    static int fill(CallBuffer ring, long t, boolean waits) {
        TestRings.put(ring, SET_STREAM, t, t + 50, STREAM, 0, 0xB1A5, 0, 0, 0, 0, 0, 0, 0);
        TestRings.put(ring, LAUNCH, t + 100, t + 700, STREAM, 0, 100, 1, 1, 128, 1, 1, 256, 0x7f00_0000_2000L);
        TestRings.put(ring, COPY, t + 800, t + 900, STREAM, 0, 4096, -1, 0xD000, 0xA000, 0, 0, 0, 0);
        TestRings.put(ring, MEMSET, t + 1000, t + 1100, STREAM, 0, 256, 0, 0xD000, 0, 0, 0, 0, 0);
        TestRings.put(ring, GEMM, t + 1200, t + 1500, 0, 0, 0xB1A5, 64, 64, 64, 0, 0, 0, 0);
        TestRings.put(ring, RECORD, t + 1600, t + 1650, STREAM, 0, 0xE000, 0, 0, 0, 0, 0, 0, 0);
        if (waits) {
            TestRings.put(ring, WAIT, t + 1700, t + 1750, STREAM + 0x100, 0, 0xE000, 0, 0, 0, 0, 0, 0, 0);
        }
        TestRings.put(ring, ALL_REDUCE, t + 1800, t + 2500, STREAM + 0x200, 0, 1000, 7, 0, 0xC0, 0xD000, 0xD100, STREAM, 0);
        TestRings.put(ring, SYNC, t + 2600, t + 3000, STREAM, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        return waits ? 9 : 8;
    }

    static CallDecoder decoder(Fanout sinks) {
        CorrelationJoin join = new CorrelationJoin(sinks, new CuptiCoverage());
        return new CallDecoder(sinks, join::api, stream -> { }, new IterationTracker(sinks, 0), EnumSet.allOf(Category.class));
    }

    @Test
    void linesWrittenFromTheRingAreThoseTheEventModelWriterWritesForTheSameCalls(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("activity.jsonl");
        ByteArrayOutputStream viaObjects = new ByteArrayOutputStream();
        EventJsonlWriter objectWriter = new EventJsonlWriter(viaObjects);
        List<ApiCall> calls = new ArrayList<>();
        Fanout sinks = new Fanout(List.of(new GuardedSink("jsonl", new JsonlSink(file)),
                new GuardedSink("objects", new EventSink() {
                    @Override
                    public void api(ApiCall call, CallKind kind) throws Exception {
                        calls.add(call);
                        objectWriter.write(call);
                    }
                })));
        CallBuffer ring = TestRings.ring(64);
        fill(ring, 1_000_000, true);
        ring.drain(decoder(sinks));
        sinks.close();
        objectWriter.flush();

        List<String> direct = Files.readAllLines(file).stream().filter(l -> l.startsWith("{\"type\":\"api\"")).toList();
        List<String> expected = viaObjects.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(direct).hasSize(9).hasSameSizeAs(expected);
        ObjectMapper json = new ObjectMapper();
        for (int i = 0; i < direct.size(); i++) {
            // byte for byte outside "args"; inside, the same pairs (an ApiCall's map does not keep their order,
            // the direct path writes them in decoding order)
            assertThat(withoutArgs(direct.get(i))).isEqualTo(withoutArgs(expected.get(i)));
            assertThat(json.readTree(direct.get(i))).isEqualTo(json.readTree(expected.get(i)));
        }
        assertThat(direct.get(1)).contains("\"args\":{\"kind\":\"launch\",\"grid_x\":100,\"grid_y\":1,\"grid_z\":1,"
                + "\"block_x\":128,\"block_y\":1,\"block_z\":1,\"shared_mem\":256,\"function\":" + 0x7f00_0000_2000L + "}");
        assertThat(calls.get(4).stream()).as("the GEMM on its handle's stream").isEqualTo(STREAM);
        assertThat(calls.get(7).args()).containsEntry("bytes", 4000L).containsEntry("application_stream", STREAM);
    }

    @Test
    void drainingRecordsToJsonlAllocatesNothingPerRecord(@TempDir Path dir) throws Exception {
        Fanout sinks = new Fanout(List.of(new GuardedSink("jsonl", new JsonlSink(dir.resolve("activity.jsonl")))));
        CallDecoder decoder = decoder(sinks);
        CallBuffer ring = TestRings.ring(4096);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long t = 0;
        for (int records = 0; records < 300_000; ) {  // warm: the decoder's maps and the writer's name cache filled, code compiled
            records += fill(ring, t += 10_000, false);
            if ((records & 1023) < 8) {
                ring.drain(decoder);
            }
        }
        ring.drain(decoder);

        long records = 0;
        long before = threads.getCurrentThreadAllocatedBytes();
        while (records < 100_000) {
            for (int i = 0; i < 400; i++) {
                records += fill(ring, t += 10_000, false);
            }
            ring.drain(decoder);
            sinks.flush();
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        sinks.close();

        assertThat(decoder.decodedCalls()).isGreaterThan(400_000);
        assertThat(allocated).as("bytes allocated draining " + records + " records").isLessThan(64 * 1024);
    }

    /** The line with its {@code "args":{...}} object cut out (arguments are flat: no nested braces). */
    private static String withoutArgs(String line) {
        return line.replaceFirst("\"args\":\\{[^}]*},", "");
    }
}
