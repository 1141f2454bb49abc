package dev.aorta.agent.pipeline;

import dev.aorta.agent.spi.CallKind;
import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** device-activity=validate: a sampled kernel is compared with CUPTI's record of the same launch. */
class SampledKernelComparisonTest {
    static final long CUPTI_AHEAD = 5_000_000_000L;

    @Test
    void sampleLaunchAndCuptiKernelMeetInAnyOrder() throws Exception {
        SampledKernelComparison c = new SampledKernelComparison();
        c.anchor(new ClockAnchor(ClockDomain.CUPTI, CUPTI_AHEAD, ClockDomain.HOST_MONOTONIC, 0));
        // launch 1 (CUPTI id 101): sample first, then the joined launch record, then CUPTI's kernel; the pair is
        // 0.4 µs longer and starts 1 µs earlier
        c.sample(sampled(1, 10_000, 30_400));
        c.call(launch(1, 101));
        c.activity(cupti(101, 11_000, 31_000));
        // launch 2 (CUPTI id 102): CUPTI's kernel first, then the launch, then the sample; 0.2 µs shorter
        c.activity(cupti(102, 50_000, 60_000));
        c.call(launch(2, 102));
        c.sample(sampled(2, 50_000, 59_800));
        // launch 3: sampled, but CUPTI's record of it never came
        c.sample(sampled(3, 70_000, 71_000));
        c.call(launch(3, 103));
        // a launch that was not sampled, and a copy: neither counts
        c.call(launch(4, 104));
        c.activity(cupti(104, 80_000, 81_000));

        assertThat(c.summary()).isEqualTo("validate: 2 of 3 sampled kernels matched to CUPTI's record of the same launch:"
                + " |duration event pair - CUPTI| median 0.300 us, p95 0.390 us, max 0.400 us (mean signed +0.100 us);"
                + " |start difference| median 0.500 us, p95 0.950 us, max 1.000 us");
    }

    @Test
    void withoutJoinedLaunchesItSaysWhyNothingMatched() {
        SampledKernelComparison c = new SampledKernelComparison();
        c.sample(sampled(1, 0, 1_000));

        assertThat(c.summary()).isEqualTo("validate: none of the 1 sampled kernels could be matched to CUPTI's record"
                + " of its launch (are CUPTI's driver records on? correlate=true)");
    }

    private static CallRecord launch(long correlation, long cupti) {
        return new CallRecord().reset("cuLaunchKernel", CallKind.LAUNCH, 1, 0x7f00, correlation * 10, correlation * 10 + 5,
                correlation, 0).arg("grid_x", 1).arg("cupti_correlation", cupti).arg("cupti_calls", 1);
    }

    private static DeviceActivity sampled(long correlation, long start, long end) {
        return kernel(correlation, start, end, ClockDomain.HOST_MONOTONIC);
    }

    private static DeviceActivity cupti(long correlation, long start, long end) {
        return kernel(correlation, start + CUPTI_AHEAD, end + CUPTI_AHEAD, ClockDomain.CUPTI);
    }

    private static DeviceActivity kernel(long correlation, long start, long end, ClockDomain clock) {
        return new DeviceActivity(ActivityKind.KERNEL, "k", 0, 0, 0x7f00, start, end, correlation, DeviceActivity.UNKNOWN,
                DeviceActivity.UNKNOWN, new Dim3(1, 1, 1), new Dim3(1, 1, 1), 0, clock);
    }
}
