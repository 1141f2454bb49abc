package dev.aorta.trainer.loop;

import dev.aorta.model.LrSchedule;
import dev.aorta.trainer.config.OptimizerConfig;
import dev.aorta.trainer.config.SchedulerConfig;

/**
 * The learning rate of each optimizer step: the model module's {@link LrSchedule} (warmup (s+1)/warmup·lr, then a
 * linear decay that reaches 0 at step total_steps − 1) from 0 to 0; 0 after total_steps, when training runs longer
 * than the schedule (as AORTA's LambdaLR, which clamps at 0); {@code optimizer.lr} throughout when
 * {@code scheduler.total_steps} is 0 (AORTA then builds no scheduler). AORTA's decay reaches 0 one step later,
 * at total_steps; the difference is lr/(total_steps − warmup_steps) at most.
 */
public final class LearningRate {
    private final double lr;
    private final LrSchedule schedule;

    public LearningRate(OptimizerConfig optimizer, SchedulerConfig scheduler) {
        this.lr = optimizer.lr();
        this.schedule = scheduler.totalSteps() == 0 ? null
                : new LrSchedule(optimizer.lr(), 0, scheduler.warmupSteps(), scheduler.totalSteps());
    }

    /** The rate of optimizer step {@code step}, counted from 0. */
    public double at(int step) {
        if (schedule == null) {
            return lr;
        }
        return step < schedule.totalSteps() ? schedule.lr(step) : 0;
    }
}
