package dev.aorta.trainer.run;

import dev.aorta.trainer.metrics.DeviceRange;
import dev.aorta.trainer.metrics.MetricsJsonlWriter;
import dev.aorta.trainer.metrics.StepProfile;
import dev.aorta.trainer.metrics.StepRecord;
import dev.aorta.trainer.schedule.StreamRole;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The child process of {@link StopSignalTest}: a loop shaped like the trainer's (the stop is checked before each
 * step, never inside one), whose steps take 300 ms and write one metrics line each.
 */
public final class StopSignalChild {
    private StopSignalChild() {
    }

    public static void main(String[] args) throws Exception {
        int steps = 0;
        String stoppedBy;
        try (StopSignal stop = StopSignal.install();
             MetricsJsonlWriter w = MetricsJsonlWriter.open(Path.of(args[0]), 0)) {
            for (int s = 0; s < 1000 && stop.received() == null; s++) {
                System.out.println("step " + s + " begins");
                Thread.sleep(300);
                w.write(record(s));
                System.out.println("step " + s + " done");
                steps++;
            }
            stoppedBy = stop.received();
        }
        System.out.println("stopped by " + stoppedBy + " after " + steps + " steps");
    }

    private static StepRecord record(int step) {
        StepProfile profile = new StepProfile(step, 300_000_000L,
                List.of(new DeviceRange(StreamRole.COMPUTE, "step" + step, 0, 250_000_000L, false, Map.of())),
                List.of());
        return new StepRecord(0, 1, 0, step, step, 0.5, 1.0, 3e-4, profile, 300.0,
                StepRecord.DeviceTimeSource.CUPTI);
    }
}
