package dev.aorta.agent.jfr;

import dev.aorta.agent.AgentLog;
import dev.aorta.agent.pipeline.CallRecord;
import dev.aorta.agent.pipeline.EventSink;
import dev.aorta.agent.spi.CallKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Marker;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * JFR events, committed by the drain thread (never on the application's hot path), so the event's own
 * start time is when it was drained; the call's host timestamps are the {@code hostStartNanos} and
 * {@code hostDuration} fields. Events go into every recording that enables them (they are enabled by
 * default), and into the agent's own recording when {@code jfr=<file>} is set.
 */
public final class JfrSink implements EventSink {
    static final List<Class<? extends Event>> EVENTS = List.of(KernelLaunchEvent.class, MemoryOperationEvent.class,
            CollectiveEvent.class, StreamSyncEvent.class, GpuCallEvent.class, IterationEvent.class,
            DeviceActivityEvent.class);

    private final Recording own;

    /** Registers the events; starts the agent's own recording into {@code file} unless it is null. */
    public JfrSink(Path file) throws IOException {
        for (Class<? extends Event> e : EVENTS) {
            FlightRecorder.register(e);
        }
        if (file == null) {
            own = null;
            return;
        }
        Recording r = new Recording();
        r.setName("aorta");
        for (Class<? extends Event> e : EVENTS) {
            r.enable(e);
        }
        r.setToDisk(true);
        r.setDestination(file);
        // JFR's own shutdown hook writes the file at exit (see close())
        r.setDumpOnExit(true);
        r.start();
        own = r;
        AgentLog.info("JFR recording 'aorta' started; written to " + file + " at exit");
    }

    /**
     * Per decoded call: made into an {@link ApiCall} (a map and boxed arguments, ~360 bytes) only when a recording
     * takes its event; with none running, as by default, this costs a flag read per record.
     */
    @Override
    public void call(CallRecord call) {
        if (enabled(call.kind())) {
            api(call.toApiCall(), call.kind());
        }
    }

    /** Whether a recording takes the event {@link #api} would commit for {@code kind} (an event per case, unescaped). */
    private static boolean enabled(CallKind kind) {
        return switch (kind) {
            case LAUNCH -> new KernelLaunchEvent().isEnabled();
            case COPY, MEMSET -> new MemoryOperationEvent().isEnabled();
            case COLLECTIVE -> new CollectiveEvent().isEnabled();
            case SYNC, EVENT_SYNC -> new StreamSyncEvent().isEnabled();
            default -> new GpuCallEvent().isEnabled();
        };
    }

    @Override
    public void api(ApiCall c, CallKind kind) {
        Map<String, Object> a = c.args();
        switch (kind) {
            case LAUNCH -> {
                KernelLaunchEvent e = new KernelLaunchEvent();
                if (e.shouldCommit()) {
                    e.setCall(c);
                    e.grid = a.get("grid_x") + "x" + a.get("grid_y") + "x" + a.get("grid_z");
                    e.block = a.get("block_x") + "x" + a.get("block_y") + "x" + a.get("block_z");
                    e.sharedMemBytes = num(a, "shared_mem");
                    e.commit();
                }
            }
            case COPY, MEMSET -> {
                MemoryOperationEvent e = new MemoryOperationEvent();
                if (e.shouldCommit()) {
                    e.setCall(c);
                    e.bytes = num(a, "bytes");
                    e.copyKind = (String) a.get("copy_kind");
                    e.commit();
                }
            }
            case COLLECTIVE -> {
                CollectiveEvent e = new CollectiveEvent();
                if (e.shouldCommit()) {
                    e.setCall(c);
                    e.applicationStream = a.containsKey("application_stream") ? num(a, "application_stream") : c.stream();
                    e.op = (String) a.get("op");
                    e.dtype = (String) a.get("dtype");
                    e.count = num(a, "count");
                    e.communicator = num(a, "communicator");
                    e.commit();
                }
            }
            case SYNC, EVENT_SYNC -> {
                StreamSyncEvent e = new StreamSyncEvent();
                if (e.shouldCommit()) {
                    e.setCall(c);
                    e.commit();
                }
            }
            default -> {
                GpuCallEvent e = new GpuCallEvent();
                if (e.shouldCommit()) {
                    e.setCall(c);
                    e.kind = (String) a.get("kind");
                    e.commit();
                }
            }
        }
    }

    @Override
    public void marker(Marker m) {
        IterationEvent e = new IterationEvent();
        if (m.kind() == Marker.Kind.ITERATION && e.shouldCommit()) {
            e.step = m.step();
            e.hostStartNanos = m.startNs();
            e.hostDuration = m.endNs() - m.startNs();
            e.commit();
        }
    }

    @Override
    public void activity(DeviceActivity d) {
        DeviceActivityEvent e = new DeviceActivityEvent();
        if (e.shouldCommit()) {
            e.kind = d.kind().name();
            e.name = d.name();
            e.stream = d.stream();
            e.device = d.device();
            e.deviceStartNanos = d.startNs();
            e.deviceDuration = d.durationNs();
            e.clock = d.clock().tag();
            e.correlationId = d.correlationId();
            e.bytes = d.bytes();
            e.commit();
        }
    }

    @Override
    public void close() {
        if (own == null) {
            return;
        }
        if (jvmShuttingDown()) {
            // setDumpOnExit makes JFR's own shutdown hook write the file, and that hook tears JFR's repository down
            // right after. Stopping here would copy the recording's chunks outside JFR's lock while that hook deletes
            // them: an empty .jfr under load. So at exit the file is JFR's to write; records drained after its hook
            // stopped the recording are not in it (they are in the JSONL).
            return;
        }
        try {
            own.stop();
        } catch (IllegalStateException alreadyStopped) {
            // stopped by someone else (a jcmd JFR.stop, say), who then owns writing it
            return;
        }
        own.close();
    }

    private static boolean jvmShuttingDown() {
        Thread probe = new Thread(() -> { });
        try {
            Runtime.getRuntime().addShutdownHook(probe);
            Runtime.getRuntime().removeShutdownHook(probe);
            return false;
        } catch (IllegalStateException shutdownInProgress) {
            return true;
        }
    }

    private static long num(Map<String, Object> a, String key) {
        return a.get(key) instanceof Number n ? n.longValue() : 0;
    }
}
