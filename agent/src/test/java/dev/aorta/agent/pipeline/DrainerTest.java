package dev.aorta.agent.pipeline;

import dev.aorta.agent.capture.BetweenWindows;
import dev.aorta.agent.capture.CaptureSchedule;
import dev.aorta.agent.capture.CaptureWindows;
import dev.aorta.agent.clock.ClockAnchors;
import dev.aorta.agent.config.AgentOptions.Category;
import dev.aorta.agent.device.DeviceActivitySource;
import dev.aorta.agent.recorder.CallBuffer;
import dev.aorta.agent.recorder.CallTable;
import dev.aorta.agent.recorder.Recorder;
import dev.aorta.agent.spi.CallKind;
import dev.aorta.agent.spi.Interception;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class DrainerTest {

    @Test
    void aFinishedThreadsBufferIsDrainedThenLetGo() throws Exception {
        List<ApiCall> calls = new ArrayList<>();
        Fanout fanout = new Fanout(List.of(new GuardedSink("test", new EventSink() {
            @Override
            public void api(ApiCall call, CallKind kind) {
                calls.add(call);
            }
        })));
        Drainer drainer = new Drainer(fanout, EnumSet.allOf(Category.class), 0, 1000);
        int id = CallTable.register(Interception.of("example.Lib", "cuCtxSynchronize", 0, CallKind.SYNC, Object.class));
        CallBuffer[] its = new CallBuffer[1];
        Thread t = new Thread(() -> {
            Recorder.record(id, Recorder.now(), 0, 0);
            its[0] = Recorder.buffers().stream().filter(b -> b.threadId() == Thread.currentThread().getId())
                    .findFirst().orElseThrow();
        }, "short-lived");
        t.start();
        t.join();

        drainer.cycle();

        assertThat(calls).filteredOn(c -> c.thread() == t.getId()).hasSize(1);
        assertThat(Recorder.buffers()).doesNotContain(its[0]);
    }

    @Test
    void stepMarkersBecomeIterationsNumberedAsTheApplicationSaid() {
        List<Marker> markers = new ArrayList<>();
        Fanout fanout = new Fanout(List.of(new GuardedSink("test", new EventSink() {
            @Override
            public void marker(Marker m) {
                markers.add(m);
            }
        })));
        IterationTracker t = new IterationTracker(fanout, 3);
        t.marker(CallKind.ITERATION_STEP, 100, 100, 7);
        t.marker(CallKind.ITERATION_STEP, 200, 200, 8);
        t.marker(CallKind.ITERATION_END, 250, 250, 0);
        t.marker(CallKind.ITERATION_END, 260, 260, 0);      // nothing open: ignored
        t.marker(CallKind.ITERATION_BEGIN, 300, 300, 0);    // numbered after the last step: 9
        t.marker(CallKind.ITERATION_FINISH, 400, 400, 0);
        t.marker(CallKind.ITERATION_CALL, 500, 600, 0);     // a call's span: 10
        assertThat(markers).extracting(Marker::step, Marker::startNs, Marker::endNs, Marker::rank).containsExactly(
                org.assertj.core.groups.Tuple.tuple(7L, 100L, 200L, 3), org.assertj.core.groups.Tuple.tuple(8L, 200L, 250L, 3),
                org.assertj.core.groups.Tuple.tuple(9L, 300L, 400L, 3), org.assertj.core.groups.Tuple.tuple(10L, 500L, 600L, 3));
    }

    /**
     * CUPTI's thread hands records over faster than the drain thread takes them: beyond the bound they are
     * dropped and counted instead of piling up in the application's heap and lengthening the exit.
     */
    @Test
    void cuptiRecordsBeyondTheBoundAreDroppedAndCounted() {
        List<DeviceActivity> written = new ArrayList<>();
        Drainer drainer = new Drainer(collecting(written), EnumSet.allOf(Category.class), 0, 1000, 1_000);

        for (int i = 0; i < 1_500; i++) {
            drainer.submitDeviceRecord(kernel(i));
        }
        drainer.cycle();
        for (int i = 0; i < 1_000; i++) {   // drained: room again
            drainer.submitDeviceRecord(kernel(i));
        }
        drainer.cycle();

        assertThat(drainer.droppedDeviceRecords()).isEqualTo(500);
        assertThat(written).hasSize(2_000);
    }

    /**
     * A call recorded while a large CUPTI batch is being written comes out before the batch ends: at the next
     * mid-batch drain after the host clock's next anchor (with TSC ticks a record waits for an anchor taken after
     * it, and anchors are at least a millisecond apart, so the application here goes on for longer than that).
     */
    @Test
    void theCallRingsAreDrainedInTheMiddleOfALargeCuptiBatch() {
        int id = CallTable.register(Interception.of("example.Lib", "cuStreamSynchronize", 0, CallKind.SYNC, Object.class));
        int batch = 3 * Drainer.BUFFERS_EVERY;
        long[] activitiesBeforeTheCall = {-1};
        int[] activities = {0};
        Fanout fanout = new Fanout(List.of(new GuardedSink("test", new EventSink() {
            @Override
            public void activity(DeviceActivity a) {
                if (++activities[0] == Drainer.BUFFERS_EVERY / 2) {
                    Recorder.record(id, Recorder.now(), 0, 0);   // the application goes on meanwhile
                    pause(3);
                }
            }

            @Override
            public void api(ApiCall call, CallKind kind) {
                if (kind == CallKind.SYNC && call.name().equals("cuStreamSynchronize")) {
                    activitiesBeforeTheCall[0] = activities[0];
                }
            }
        })));
        Drainer drainer = new Drainer(fanout, EnumSet.allOf(Category.class), 0, 1000, 10 * batch);
        for (int i = 0; i < batch; i++) {
            drainer.submitDeviceRecord(kernel(i));
        }

        drainer.cycle();

        assertThat(activities[0]).isEqualTo(batch);
        assertThat(activitiesBeforeTheCall[0]).isBetween((long) Drainer.BUFFERS_EVERY / 2, (long) Drainer.BUFFERS_EVERY);
    }

    /** At exit CUPTI's last flush hands over all it held at once, beyond the bound: written, not dropped. */
    @Test
    void atExitCuptisLastFlushIsWrittenWholeEvenBeyondTheBound() {
        List<DeviceActivity> written = new ArrayList<>();
        Drainer drainer = new Drainer(collecting(written), EnumSet.allOf(Category.class), 0, 1000, 1_000);
        drainer.deviceSource(new DeviceActivitySource() {
            private boolean flushed;

            @Override
            public String name() {
                return "cupti";
            }

            @Override
            public void flush() {
                if (!flushed) {
                    flushed = true;
                    for (int i = 0; i < 2_500; i++) {
                        drainer.submitDeviceRecord(kernel(i));
                    }
                }
            }

            @Override
            public void stop() {
            }
        });

        drainer.shutdown();

        assertThat(drainer.droppedDeviceRecords()).isZero();
        assertThat(written).hasSize(2_500);
    }

    private static Fanout collecting(List<DeviceActivity> written) {
        return new Fanout(List.of(new GuardedSink("test", new EventSink() {
            @Override
            public void activity(DeviceActivity a) {
                written.add(a);
            }
        })));
    }

    private static DeviceActivity kernel(long i) {
        return new DeviceActivity(ActivityKind.KERNEL, "k", 0, 0, 0, i, i + 1, i, DeviceActivity.UNKNOWN,
                DeviceActivity.UNKNOWN, Dim3.NONE, Dim3.NONE, 0, ClockDomain.CUPTI);
    }

    private static void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A timed window opens on the drain thread, and switching CUPTI on there takes tens to hundreds of ms; the
     * threads' buffers must go on being emptied meanwhile. The switch here records 3000 calls into a 1024-record
     * buffer, waiting after each 500 until they were written: on the drain thread itself nothing would empty it.
     */
    @Test
    void whileCuptiSwitchesOnAtATimedWindowsStartTheDrainThreadKeepsEmptyingTheThreadsBuffers() throws Exception {
        int id = CallTable.register(Interception.of("example.Lib", "cuStreamQuery", 0, CallKind.SYNC, Object.class));
        java.util.concurrent.atomic.AtomicInteger written = new java.util.concurrent.atomic.AtomicInteger();
        Fanout fanout = new Fanout(List.of(new GuardedSink("test", new EventSink() {
            @Override
            public void api(ApiCall call, CallKind kind) {
                if (call.name().equals("cuStreamQuery")) {
                    written.incrementAndGet();
                }
            }
        })));
        Drainer drainer = new Drainer(fanout, EnumSet.allOf(Category.class), 0, 5);
        java.util.concurrent.CountDownLatch switched = new java.util.concurrent.CountDownLatch(1);
        drainer.deviceSource(new DeviceActivitySource() {
            @Override
            public String name() {
                return "slow-to-switch";
            }

            @Override
            public void flush() {
            }

            @Override
            public void stop() {
            }

            @Override
            public void resume() {
                for (int chunk = 1; chunk <= 6; chunk++) {
                    for (int i = 0; i < 500; i++) {
                        Recorder.record(id, Recorder.now(), 0, 0);
                    }
                    long deadline = System.nanoTime() + 500_000_000L;
                    while (written.get() < chunk * 500 && System.nanoTime() < deadline) {
                        Thread.onSpinWait();
                    }
                }
                switched.countDown();
            }
        });
        long droppedBefore = drainer.dropped();
        Recorder.configure(1024);
        CaptureWindows.current = new CaptureWindows(CaptureSchedule.time(0, 60_000_000_000L), BetweenWindows.API,
                new WindowRecords(drainer, ClockAnchors.of(null), 0), System.nanoTime(), System::nanoTime, true);
        try {
            drainer.start();
            assertThat(switched.await(20, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            drainer.cycle();

            assertThat(written.get()).isEqualTo(3000);
            assertThat(drainer.dropped() - droppedBefore).isZero();
        } finally {
            CaptureWindows.current = null;   // first: the gate stays open (as between-windows=api left it) for other tests
            drainer.shutdown();
            Recorder.configure(16384);
        }
    }
    /**
     * Issue 16: a 2 s window closed after 3.655 s on an H100, as the cycle that should have closed it was taking CUPTI's
     * records, which kept coming as fast as it took them. Here each record taken hands over another until the window's
     * device source was paused (or 3 s passed): the window's end is checked between CUPTI's records.
     */
    @Test
    void aTimedWindowClosesWhileCuptiKeepsHandingOverRecords() {
        java.util.concurrent.atomic.AtomicBoolean paused = new java.util.concurrent.atomic.AtomicBoolean();
        long[] floodUntil = {Long.MAX_VALUE};
        Drainer[] drainer = new Drainer[1];
        Fanout fanout = new Fanout(List.of(new GuardedSink("test", new EventSink() {
            @Override
            public void activity(DeviceActivity a) {
                if (!paused.get() && System.nanoTime() < floodUntil[0]) {
                    drainer[0].submitDeviceRecord(kernel(a.correlationId() + 1));
                }
            }
        })));
        drainer[0] = new Drainer(fanout, EnumSet.allOf(Category.class), 0, 1000);
        drainer[0].deviceSource(new DeviceActivitySource() {
            @Override
            public String name() {
                return "cupti";
            }

            @Override
            public void flush() {
            }

            @Override
            public void stop() {
            }

            @Override
            public void pause() {
                if (floodUntil[0] != Long.MAX_VALUE) {   // not the switch-off before the window
                    paused.set(true);
                }
            }
        });
        drainer[0].cycle();   // classes loaded and clocks read once, so that the window's first cycle is short
        CaptureWindows.current = new CaptureWindows(CaptureSchedule.time(0, 200_000_000L), BetweenWindows.API,
                new WindowRecords(drainer[0], ClockAnchors.of(null), 0), System.nanoTime(), System::nanoTime, true);
        try {
            drainer[0].cycle();   // opens the window
            floodUntil[0] = System.nanoTime() + 3_000_000_000L;
            drainer[0].submitDeviceRecord(kernel(0));
            drainer[0].cycle();

            assertThat(paused).as("window closed while CUPTI's records still came").isTrue();
            assertThat(System.nanoTime()).as("closed before CUPTI stopped handing over").isLessThan(floodUntil[0]);
        } finally {
            CaptureWindows.current = null;
            drainer[0].shutdown();
        }
    }
}
