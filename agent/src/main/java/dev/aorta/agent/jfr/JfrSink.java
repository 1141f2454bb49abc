package dev.aorta.agent.jfr;

import dev.aorta.agent.AgentLog;
import dev.aorta.agent.pipeline.CallRecord;
import dev.aorta.agent.pipeline.EventSink;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Marker;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

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
    private final DimText dims = new DimText();
    // One event object per type, reused for every record: the sink runs on the drain thread only, each use sets every
    // field, and JFR takes an event's start time at each commit (its start and duration are not kept from the last
    // one: JfrSinkTest checks both), so a recording costs no allocation per record
    private final KernelLaunchEvent launchEvent;
    private final MemoryOperationEvent memoryEvent;
    private final CollectiveEvent collectiveEvent;
    private final StreamSyncEvent syncEvent;
    private final GpuCallEvent callEvent;
    private final IterationEvent iterationEvent;
    private final DeviceActivityEvent activityEvent;

    /** Registers the events; starts the agent's own recording into {@code file} unless it is null. */
    public JfrSink(Path file) throws IOException {
        for (Class<? extends Event> e : EVENTS) {
            FlightRecorder.register(e);
        }
        launchEvent = new KernelLaunchEvent();
        memoryEvent = new MemoryOperationEvent();
        collectiveEvent = new CollectiveEvent();
        syncEvent = new StreamSyncEvent();
        callEvent = new GpuCallEvent();
        iterationEvent = new IterationEvent();
        activityEvent = new DeviceActivityEvent();
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
     * Per decoded call, straight from the reused record into the reused event: the record's fields are primitives and
     * constant or interned strings and the launch shapes' text is cached ({@link DimText}), so a recording allocates
     * nothing per record. (A new event per record escaped, as JFR's generated commit is too large for the JIT to
     * inline: 22-63 bytes per drained record in {@code DrainThroughputBench}, 546 when each call was first made into
     * an {@link dev.aorta.core.event.ApiCall}.) With no recording taking the event, as by default, this is a flag read.
     */
    @Override
    public void call(CallRecord c) {
        switch (c.kind()) {
            case LAUNCH -> launch(c);
            case COPY, MEMSET -> memory(c);
            case COLLECTIVE -> collective(c);
            case SYNC, EVENT_SYNC -> sync(c);
            default -> other(c);
        }
    }

    private void launch(CallRecord c) {
        KernelLaunchEvent e = launchEvent;
        if (e.shouldCommit()) {
            e.setCall(c);
            e.grid = dims.of(c.number("grid_x", 0), c.number("grid_y", 0), c.number("grid_z", 0));
            e.block = dims.of(c.number("block_x", 0), c.number("block_y", 0), c.number("block_z", 0));
            e.sharedMemBytes = c.number("shared_mem", 0);
            e.commit();
        }
    }

    private void memory(CallRecord c) {
        MemoryOperationEvent e = memoryEvent;
        if (e.shouldCommit()) {
            e.setCall(c);
            e.bytes = c.number("bytes", 0);
            e.copyKind = c.string("copy_kind");
            e.commit();
        }
    }

    private void collective(CallRecord c) {
        CollectiveEvent e = collectiveEvent;
        if (e.shouldCommit()) {
            e.setCall(c);
            e.applicationStream = c.number("application_stream", c.stream());
            e.op = c.string("op");
            e.dtype = c.string("dtype");
            e.count = c.number("count", 0);
            e.communicator = c.number("communicator", 0);
            e.commit();
        }
    }

    private void sync(CallRecord c) {
        StreamSyncEvent e = syncEvent;
        if (e.shouldCommit()) {
            e.setCall(c);
            e.commit();
        }
    }

    private void other(CallRecord c) {
        GpuCallEvent e = callEvent;
        if (e.shouldCommit()) {
            e.setCall(c);
            e.kind = c.string("kind");
            e.commit();
        }
    }

    @Override
    public void marker(Marker m) {
        IterationEvent e = iterationEvent;
        if (m.kind() == Marker.Kind.ITERATION && e.shouldCommit()) {
            e.step = m.step();
            e.hostStartNanos = m.startNs();
            e.hostDuration = m.endNs() - m.startNs();
            e.commit();
        }
    }

    @Override
    public void activity(DeviceActivity d) {
        DeviceActivityEvent e = activityEvent;
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
}
