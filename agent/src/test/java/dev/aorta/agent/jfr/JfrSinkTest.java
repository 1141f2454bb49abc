package dev.aorta.agent.jfr;

import dev.aorta.agent.pipeline.CallRecord;
import dev.aorta.agent.spi.CallKind;
import jdk.jfr.Event;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class JfrSinkTest {
    /** The drain thread hands calls over as reused records; a running recording still gets each as its event. */
    @Test
    void aDecodedLaunchBecomesAKernelLaunchEventOfARunningRecording(@TempDir Path dir) throws Exception {
        JfrSink sink = new JfrSink(null);
        List<RecordedEvent> events = recorded(dir, List.of(KernelLaunchEvent.class), () -> sink.call(launch(1_000)));
        sink.call(launch(2_000));   // no recording: nothing to take it, nothing made

        assertThat(events).filteredOn(e -> e.getEventType().getName().equals("aorta.KernelLaunch"))
                .singleElement()
                .satisfies(e -> {
                    assertThat(e.getString("grid")).isEqualTo("100x1x1");
                    assertThat(e.getString("block")).isEqualTo("128x1x1");
                    assertThat(e.getLong("sharedMemBytes")).isEqualTo(256);
                });
    }

    /** Every kind of call becomes its event with the fields taken from the record's arguments. */
    @Test
    void everyKindOfCallBecomesItsEventWithItsArguments(@TempDir Path dir) throws Exception {
        JfrSink sink = new JfrSink(null);
        List<RecordedEvent> events = recorded(dir, JfrSink.EVENTS, () -> {
            sink.call(new CallRecord().reset("cuMemcpyHtoDAsync", CallKind.COPY, 2, 0x7f10, 10, 20, 3, 0)
                    .arg("kind", "copy").arg("bytes", 4096).arg("copy_kind", "HtoD"));
            sink.call(new CallRecord().reset("ncclAllReduce", CallKind.COLLECTIVE, 2, 0x7f20, 30, 40, 4, 0)
                    .arg("op", "all_reduce").arg("dtype", "bf16").arg("count", 1024).arg("communicator", 77)
                    .arg("application_stream", 0x7f30));
            sink.call(new CallRecord().reset("ncclBroadcast", CallKind.COLLECTIVE, 2, 0x7f20, 50, 60, 5, 0)
                    .arg("op", "broadcast").arg("dtype", "f32").arg("count", 8).arg("communicator", 77));
            sink.call(new CallRecord().reset("cuStreamSynchronize", CallKind.SYNC, 2, 0x7f20, 70, 90, 6, 0));
            sink.call(new CallRecord().reset("cuMemAlloc", CallKind.ALLOC, 2, 0, 100, 130, 7, -1).arg("kind", "alloc"));
        });

        RecordedEvent copy = only(events, "aorta.MemoryOperation");
        assertThat(copy.getString("api")).isEqualTo("cuMemcpyHtoDAsync");
        assertThat(copy.getLong("bytes")).isEqualTo(4096);
        assertThat(copy.getString("copyKind")).isEqualTo("HtoD");
        assertThat(copy.getLong("hostStartNanos")).isEqualTo(10);
        assertThat(copy.getLong("threadId")).isEqualTo(2);
        assertThat(copy.getLong("correlationId")).isEqualTo(3);
        List<RecordedEvent> collectives = events.stream()
                .filter(e -> e.getEventType().getName().equals("aorta.Collective")).toList();
        assertThat(collectives).extracting(e -> e.getString("op")).containsExactlyInAnyOrder("all_reduce", "broadcast");
        // a collective moved by bind-collectives names the application's stream; one that was not, its own
        assertThat(collectives).extracting(e -> e.getLong("applicationStream")).containsExactlyInAnyOrder(0x7f30L, 0x7f20L);
        assertThat(collectives).allSatisfy(e -> assertThat(e.getLong("communicator")).isEqualTo(77));
        RecordedEvent sync = only(events, "aorta.StreamSync");
        assertThat(sync.getLong("stream")).isEqualTo(0x7f20);
        assertThat(sync.getDuration("hostDuration").toNanos()).isEqualTo(20);
        RecordedEvent alloc = only(events, "aorta.GpuCall");
        assertThat(alloc.getString("kind")).isEqualTo("alloc");
        assertThat(alloc.getInt("result")).isEqualTo(-1);
    }

    /**
     * The sink reuses one event object per type: each record's event has that record's fields, and its own start time
     * taken at its commit with no duration, as a new event would (JFR does not keep a committed event's times).
     */
    @Test
    void eachRecordGetsItsOwnFieldsAndTimeThoughTheEventObjectIsReused(@TempDir Path dir) throws Exception {
        JfrSink sink = new JfrSink(null);
        List<RecordedEvent> events = recorded(dir, List.of(KernelLaunchEvent.class), () -> {
            sink.call(launch(1_000));
            Thread.sleep(5);
            sink.call(new CallRecord().reset("cuLaunchKernel", CallKind.LAUNCH, 1, 0x7f00, 9_000, 9_300, 2, 0)
                    .arg("kind", "launch").arg("grid_x", 7).arg("grid_y", 2).arg("grid_z", 1)
                    .arg("block_x", 32).arg("block_y", 1).arg("block_z", 1).arg("shared_mem", 0));
        }).stream().sorted(java.util.Comparator.comparing(RecordedEvent::getStartTime)).toList();

        assertThat(events).extracting(e -> e.getString("grid")).containsExactly("100x1x1", "7x2x1");
        assertThat(events).extracting(e -> e.getLong("hostStartNanos")).containsExactly(1_000L, 9_000L);
        assertThat(events).extracting(e -> e.getLong("sharedMemBytes")).containsExactly(256L, 0L);
        assertThat(events).allSatisfy(e -> assertThat(e.getDuration().toNanos()).isZero());
        assertThat(java.time.Duration.between(events.get(0).getStartTime(), events.get(1).getStartTime()))
                .as("the second commit's time, not the first one's").isGreaterThanOrEqualTo(java.time.Duration.ofMillis(4));
    }

    /** Issue 16: draining into a running recording allocates nothing per record. */
    @Test
    void aRunningRecordingCostsNoAllocationPerRecord(@TempDir Path dir) throws Exception {
        JfrSink sink = new JfrSink(null);
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        CallRecord[] records = {launch(1_000),
                new CallRecord().reset("cuMemcpyHtoDAsync", CallKind.COPY, 2, 0x7f10, 10, 20, 3, 0)
                        .arg("kind", "copy").arg("bytes", 4096).arg("copy_kind", "HtoD"),
                new CallRecord().reset("ncclAllReduce", CallKind.COLLECTIVE, 2, 0x7f20, 30, 40, 4, 0)
                        .arg("op", "all_reduce").arg("dtype", "bf16").arg("count", 1024).arg("communicator", 77),
                new CallRecord().reset("cuStreamSynchronize", CallKind.SYNC, 2, 0x7f20, 70, 90, 6, 0),
                new CallRecord().reset("cuMemAlloc", CallKind.ALLOC, 2, 0, 100, 130, 7, 0).arg("kind", "alloc")};
        try (Recording r = new Recording()) {
            JfrSink.EVENTS.forEach(r::enable);
            r.setToDisk(true);
            r.setDestination(dir.resolve("r.jfr"));
            r.start();
            for (int i = 0; i < 200_000; i++) {  // warm: the shapes' text cached, the code compiled
                sink.call(records[i % records.length]);
            }
            long before = threads.getCurrentThreadAllocatedBytes();
            int n = 200_000;
            for (int i = 0; i < n; i++) {
                sink.call(records[i % records.length]);
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            r.stop();
            // a new event per record was 22-63 bytes each: 4-12 MB here
            assertThat(allocated).as("bytes allocated committing " + n + " records").isLessThan(64 * 1024);
        }
    }

    /** What happens to the sink while a recording of these events runs: the events it recorded. */
    interface SinkUse {
        void run() throws Exception;
    }

    private static List<RecordedEvent> recorded(Path dir, List<Class<? extends Event>> types, SinkUse use)
            throws Exception {
        Path file = dir.resolve("r.jfr");
        try (Recording r = new Recording()) {
            types.forEach(r::enable);
            r.start();
            use.run();
            r.stop();
            r.dump(file);
        }
        return RecordingFile.readAllEvents(file);
    }

    private static RecordedEvent only(List<RecordedEvent> events, String type) {
        List<RecordedEvent> of = events.stream().filter(e -> e.getEventType().getName().equals(type)).toList();
        assertThat(of).as(type).hasSize(1);
        return of.get(0);
    }

    private static CallRecord launch(long start) {
        return new CallRecord().reset("cuLaunchKernel", CallKind.LAUNCH, 1, 0x7f00, start, start + 700, 1, 0)
                .arg("kind", "launch").arg("grid_x", 100).arg("grid_y", 1).arg("grid_z", 1)
                .arg("block_x", 128).arg("block_y", 1).arg("block_z", 1).arg("shared_mem", 256);
    }
}
