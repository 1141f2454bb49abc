package dev.aorta.trainer.metrics;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.metric.ActivityClass;
import dev.aorta.core.metric.ActivityClassifier;
import dev.aorta.core.metric.CollectiveBandwidth;
import dev.aorta.trainer.plan.Collective;
import dev.aorta.trainer.schedule.ScheduledOp;
import dev.aorta.trainer.schedule.StreamRole;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToIntFunction;

/**
 * The collectives of one step as they ran on the device, for their bandwidth ({@link CollectiveBandwidth}): the
 * schedule says what each collective moved and over how many ranks, the CUPTI records how long its kernel ran.
 * NCCL runs each collective the trainer issues as one kernel on the stream it was issued on, in issue order, so on
 * each stream the k-th collective kernel of the step is the k-th collective the schedule issued there. A step whose
 * collective kernels on some stream do not number the schedule's collectives there gives no calls at all, rather
 * than pairs that could be wrong.
 */
public final class StepCollectives {
    private static final ActivityClassifier CLASSIFIER = ActivityClassifier.defaults();

    private StepCollectives() {
    }

    /**
     * The step's collectives with their device times, or empty when they cannot be paired with its kernels.
     *
     * @param ops       the step's schedule, in issue order
     * @param records   the step's device records
     * @param roles     stream address to role
     * @param groupSize the ranks of a collective's group (shard or replica)
     */
    public static Optional<List<CollectiveBandwidth.Call>> of(List<ScheduledOp> ops, List<DeviceActivity> records,
                                                              Map<Long, StreamRole> roles,
                                                              ToIntFunction<Collective.Group> groupSize) {
        Map<StreamRole, List<ScheduledOp>> issued = new EnumMap<>(StreamRole.class);
        for (ScheduledOp op : ops) {
            if (op.isCollective()) {
                issued.computeIfAbsent(op.stream(), r -> new ArrayList<>()).add(op);
            }
        }
        Map<StreamRole, List<DeviceActivity>> ran = new EnumMap<>(StreamRole.class);
        for (DeviceActivity a : records) {
            StreamRole role = roles.get(a.stream());
            if (role != null && a.kind() == ActivityKind.KERNEL
                    && CLASSIFIER.classify(a) == ActivityClass.COMMUNICATION) {
                ran.computeIfAbsent(role, r -> new ArrayList<>()).add(a);
            }
        }
        List<CollectiveBandwidth.Call> calls = new ArrayList<>();
        for (StreamRole role : StreamRole.values()) {
            List<ScheduledOp> want = issued.getOrDefault(role, List.of());
            List<DeviceActivity> got = new ArrayList<>(ran.getOrDefault(role, List.of()));
            if (want.size() != got.size()) {
                return Optional.empty();
            }
            got.sort(Comparator.comparingLong(DeviceActivity::startNs));
            for (int i = 0; i < want.size(); i++) {
                Collective c = want.get(i).collective();
                CollectiveBandwidth.Kind kind = switch (c.kind()) {
                    case ALL_GATHER -> CollectiveBandwidth.Kind.ALL_GATHER;
                    case REDUCE_SCATTER -> CollectiveBandwidth.Kind.REDUCE_SCATTER;
                    case ALL_REDUCE -> CollectiveBandwidth.Kind.ALL_REDUCE;
                };
                if (CollectiveBandwidth.Kind.of(got.get(i).name()) != kind) {
                    return Optional.empty();
                }
                calls.add(new CollectiveBandwidth.Call(kind, Math.max(c.sendBytes(), c.receiveBytes()),
                        groupSize.applyAsInt(c.group()), got.get(i).endNs() - got.get(i).startNs()));
            }
        }
        return Optional.of(calls);
    }
}
