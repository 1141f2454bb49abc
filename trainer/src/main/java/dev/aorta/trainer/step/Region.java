package dev.aorta.trainer.step;

/**
 * Elements [offset, offset + count) of one unit's buffer in {@code arena} (the unit is its index in
 * {@link dev.aorta.trainer.plan.ShardingPlan#units()}; 0 for {@link Arena#GRAD_NORM}).
 */
public record Region(Arena arena, int unit, long offset, long count) {
    public Region {
        if (offset < 0 || count < 0) {
            throw new IllegalArgumentException("region of " + arena + " unit " + unit + " at " + offset + " with "
                    + count + " elements");
        }
    }

    public long end() {
        return offset + count;
    }
}
