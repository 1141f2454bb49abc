package dev.aorta.gpu.cupti;

import dev.aorta.core.event.DeviceActivity;
import example.fakegpu.FakeGpu;

/**
 * Test double of the aorta-gpu CUPTI tracer (the static factory and methods the agent uses, with the real
 * signatures): hands the fake device's finished work to the {@link CuptiRecords} (the real interface, from the
 * aorta-gpu jar behind the test classes), and the driver API calls behind it with the same correlation ids (when
 * asked; each as soon as it returned, its work run or not), in a CUPTI clock running {@link FakeGpu#CUPTI_OFFSET} ahead of the host clock. Its "OS thread ids"
 * are Java thread ids + 100000, as real ones differ too.
 */
public final class CuptiTracer {
    private boolean stopped;

    private final CuptiRecords records;
    private final boolean driverCalls;
    private final boolean latency;

    private CuptiTracer(CuptiRecords records, boolean driverCalls, boolean latency) {
        this.records = records;
        this.driverCalls = driverCalls;
        this.latency = latency;
    }

    public record ClockPair(long cuptiNs, long hostNs) {
    }

    public static CuptiTracer start(CuptiRecords records, boolean driverCalls, boolean latencyTimestamps) {
        CuptiSubscriptions.started();
        return new CuptiTracer(records, driverCalls, latencyTimestamps);
    }

    public static ClockPair clockPair() {
        long host = System.nanoTime();
        return new ClockPair(host + FakeGpu.CUPTI_OFFSET, host);
    }

    public void registerStream(long context, long stream) {
        FakeGpu.streamRegistered(stream);
    }

    public void flush() {
        long o = FakeGpu.CUPTI_OFFSET;
        for (FakeGpu.DriverCall c : FakeGpu.takeIssued()) {
            if (driverCalls) {   // as CUPTI: a driver call's record is complete when the call returns
                records.driverCall(c.api(), c.thread() + 100_000, c.apiStart() + o, c.apiEnd() + o, c.correlation(), 0);
            }
        }
        for (FakeGpu.Work w : FakeGpu.takeFinished()) {
            long start = w.start() + o;
            long end = w.end() + o;
            switch (w.kind()) {
                case "KERNEL" -> records.kernel(w.name(), 0, w.stream(), start, end, w.correlation(),
                        latency ? w.apiEnd() + o : DeviceActivity.UNKNOWN,
                        latency ? w.apiEnd() + o + 200 : DeviceActivity.UNKNOWN, w.gridX(), 1, 1,
                        w.blockX(), 1, 1);
                case "MEMCPY" -> records.memcpy(w.name(), 0, w.stream(), start, end, w.correlation(), w.bytes());
                case "MEMSET" -> records.memset(w.name(), 0, w.stream(), start, end, w.correlation(), w.bytes());
                default -> throw new IllegalArgumentException("CUPTI records no " + w.kind());
            }
        }
    }

    /** The real one delivers CUPTI's filled buffers; here every buffer counts as filled. */
    public void deliverCompleted() {
        flush();
    }

    public void stop() {
        flush();
        if (!stopped) {
            stopped = true;
            CuptiSubscriptions.stopped();
        }
    }

    /** The real one counts what CUPTI dropped for want of a buffer; the double hands over every record. */
    public long droppedRecords() {
        return 0;
    }
}
