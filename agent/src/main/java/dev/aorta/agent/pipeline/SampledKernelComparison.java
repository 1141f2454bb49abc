package dev.aorta.agent.pipeline;

import dev.aorta.agent.AgentLog;
import dev.aorta.agent.spi.CallKind;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.metric.SampleStats;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * {@code device-activity=validate}: CUPTI and sampled event pairs run together, and each sampled kernel is compared
 * with CUPTI's record of the same launch. The sample carries the agent's correlation id of its launch; the launch's
 * API record carries, once the correlation join has run, {@code cupti_correlation}, the id of CUPTI's kernel record.
 * The three arrive in any order on the drain thread; each waits (bounded, oldest forgotten first) for the others.
 * At exit one line gives |Δ duration| (event pair minus CUPTI) and |Δ start| (on the host clock, through CUPTI's
 * anchor): median, p95 and max over the matched kernels, and how many samples found no CUPTI record.
 *
 * <p>The sampled kernels reach only this comparison, not the activity file or the metrics, which take CUPTI's
 * records (exact) alone: otherwise those kernels would be counted twice.
 */
public final class SampledKernelComparison implements EventSink {
    /** How many records of each kind wait for their partners; at 130 000 launches/s, about 2 s of launches. */
    static final int WAITING = 262_144;

    private final Map<Long, long[]> samples = bounded();
    /** Agent correlation -> CUPTI correlation, for every joined launch (a sample may arrive after its launch). */
    private final Map<Long, Long> launches = bounded();
    /** The same pairs the other way, for a CUPTI kernel that arrives after its launch. */
    private final Map<Long, Long> launchOfKernel = bounded();
    /** CUPTI correlation -> the kernel's {start, end} on CUPTI's clock. */
    private final Map<Long, long[]> cuptiKernels = bounded();
    private final SampleStats.Samples durationDeltas = new SampleStats.Samples();
    private final SampleStats.Samples absDurationDeltas = new SampleStats.Samples();
    private final SampleStats.Samples absStartDeltas = new SampleStats.Samples();
    private Long cuptiToHost;
    private long sampled;

    private static <V> Map<Long, V> bounded() {
        return new LinkedHashMap<>(1024, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, V> eldest) {
                return size() > WAITING;
            }
        };
    }

    /** A sampled kernel from the event pairs (host clock, the agent's correlation id of its launch). */
    public void sample(DeviceActivity a) {
        sampled++;
        samples.put(a.correlationId(), new long[] {a.startNs(), a.endNs()});
        match(a.correlationId());
    }

    @Override
    public void call(CallRecord call) {
        if (call.kind() != CallKind.LAUNCH) {
            return;
        }
        long cupti = call.number("cupti_correlation", -1);
        if (cupti >= 0) {
            launches.put(call.correlationId(), cupti);
            launchOfKernel.put(cupti, call.correlationId());
            match(call.correlationId());
        }
    }

    @Override
    public void activity(DeviceActivity a) {
        if (a.clock() == ClockDomain.CUPTI && a.kind() == ActivityKind.KERNEL) {
            cuptiKernels.put(a.correlationId(), new long[] {a.startNs(), a.endNs()});
            Long launch = launchOfKernel.get(a.correlationId());
            if (launch != null) {
                match(launch);
            }
        }
    }

    @Override
    public void anchor(ClockAnchor a) {
        if (a.from() == ClockDomain.CUPTI && a.to() == ClockDomain.HOST_MONOTONIC) {
            cuptiToHost = a.toNs() - a.fromNs();
        }
    }

    private void match(long agentCorrelation) {
        long[] sample = samples.get(agentCorrelation);
        Long cupti = launches.get(agentCorrelation);
        if (sample == null || cupti == null) {
            return;
        }
        long[] kernel = cuptiKernels.get(cupti);
        if (kernel == null) {
            return;
        }
        samples.remove(agentCorrelation);
        launches.remove(agentCorrelation);
        launchOfKernel.remove(cupti);
        cuptiKernels.remove(cupti);
        double delta = (sample[1] - sample[0]) - (kernel[1] - kernel[0]);
        durationDeltas.add(delta);
        absDurationDeltas.add(Math.abs(delta));
        if (cuptiToHost != null) {
            absStartDeltas.add(Math.abs(sample[0] - (kernel[0] + cuptiToHost)));
        }
    }

    @Override
    public void close() {
        AgentLog.info(summary());
    }

    /**
     * "validate: 812 of 830 sampled kernels matched ...": the comparison in one line, µs with three decimals. Fixed
     * wording: scripts/agent-acceptance-16.sh reads it.
     */
    String summary() {
        int matched = absDurationDeltas.count();
        if (matched == 0) {
            return "validate: none of the " + sampled + " sampled kernels could be matched to CUPTI's record of its"
                    + " launch (are CUPTI's driver records on? correlate=true)";
        }
        SampleStats d = absDurationDeltas.stats();
        SampleStats signed = durationDeltas.stats();
        String start = absStartDeltas.count() == 0 ? "no CUPTI clock anchor"
                : stats(absStartDeltas.stats());
        return String.format(Locale.ROOT, "validate: %d of %d sampled kernels matched to CUPTI's record of the same"
                + " launch: |duration event pair - CUPTI| %s (mean signed %+.3f us); |start difference| %s",
                matched, sampled, stats(d), signed.mean() / 1e3, start);
    }

    private static String stats(SampleStats s) {
        return String.format(Locale.ROOT, "median %.3f us, p95 %.3f us, max %.3f us", s.p50() / 1e3, s.p95() / 1e3,
                s.max() / 1e3);
    }
}
