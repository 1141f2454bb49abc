package dev.aorta.trainer.schedule;

import java.util.BitSet;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The order the device must respect for a schedule: op a happens before op b when b runs after a on the same
 * stream, or waits for a's event, or transitively so. What any GPU execution of the schedule guarantees, whatever
 * the durations.
 */
final class HappensBefore {
    private final BitSet[] before;

    HappensBefore(StepSchedule schedule) {
        List<ScheduledOp> ops = schedule.ops();
        before = new BitSet[ops.size()];
        Map<StreamRole, Integer> last = new EnumMap<>(StreamRole.class);
        for (ScheduledOp op : ops) {
            BitSet b = new BitSet();
            Integer prev = last.get(op.stream());
            if (prev != null) {
                b.or(before[prev]);
                b.set(prev);
            }
            for (int w : op.waits()) {
                b.or(before[w]);
                b.set(w);
            }
            before[op.index()] = b;
            last.put(op.stream(), op.index());
        }
    }

    boolean ordered(ScheduledOp first, ScheduledOp then) {
        return before[then.index()].get(first.index());
    }
}
