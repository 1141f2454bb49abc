package dev.aorta.trainer.metrics;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.metric.CollectiveBandwidth;
import dev.aorta.trainer.config.TrainerConfig;
import dev.aorta.trainer.plan.Collective;
import dev.aorta.trainer.plan.ShardingPlan;
import dev.aorta.trainer.schedule.ScheduledOp;
import dev.aorta.trainer.schedule.StepSchedule;
import dev.aorta.trainer.schedule.StreamRole;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class StepCollectivesTest {
    private static final TrainerConfig CONFIG = TrainerConfig.defaults();
    private static final ShardingPlan PLAN = ShardingPlan.forRun(CONFIG, 2, 2);
    private static final List<ScheduledOp> OPS = StepSchedule.of(PLAN, CONFIG).ops();
    private static final Map<Long, StreamRole> ROLES = new HashMap<>();

    static {
        for (StreamRole r : StreamRole.values()) {
            ROLES.put(100L + r.ordinal(), r);
        }
    }

    private static long stream(StreamRole r) {
        return 100L + r.ordinal();
    }

    private static DeviceActivity kernel(String name, long stream, long start, long end) {
        return new DeviceActivity(ActivityKind.KERNEL, name, 0, 0, stream, start, end, 0, DeviceActivity.UNKNOWN,
                DeviceActivity.UNKNOWN, null, null, 0, ClockDomain.CUPTI);
    }

    private static String ncclName(Collective.Kind k) {
        return switch (k) {
            case ALL_GATHER -> "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
            case REDUCE_SCATTER -> "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
            case ALL_REDUCE -> "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
        };
    }

    /** One NCCL kernel per scheduled collective, on its stream, collective i lasting 1000 + i ns; a GEMM between. */
    private static List<DeviceActivity> records() {
        List<DeviceActivity> out = new ArrayList<>();
        long t = 0;
        for (ScheduledOp op : OPS) {
            if (op.isCollective()) {
                out.add(kernel(ncclName(op.collective().kind()), stream(op.stream()), t, t + 1000 + op.index()));
            }
            out.add(kernel("sm90_xmma_gemm_bf16", stream(StreamRole.COMPUTE), t, t + 500));
            t += 10_000;
        }
        return out;
    }

    @Test
    void eachCollectiveOfTheScheduleGetsItsKernelsDeviceTimeAndItsBytes() {
        List<DeviceActivity> shuffled = new ArrayList<>(records());
        Collections.shuffle(shuffled, new java.util.Random(7)); // CUPTI hands records over in buffer order, not time

        List<CollectiveBandwidth.Call> calls = StepCollectives.of(OPS, shuffled, ROLES, g -> 2).orElseThrow();

        List<ScheduledOp> collectives = OPS.stream().filter(ScheduledOp::isCollective).toList();
        assertThat(collectives).isNotEmpty();
        assertThat(calls).hasSize(collectives.size());
        Map<StreamRole, List<ScheduledOp>> byStream = new EnumMap<>(StreamRole.class);
        collectives.forEach(o -> byStream.computeIfAbsent(o.stream(), r -> new ArrayList<>()).add(o));
        List<ScheduledOp> inCallOrder = byStream.values().stream().flatMap(List::stream).toList();
        for (int i = 0; i < calls.size(); i++) {
            Collective c = inCallOrder.get(i).collective();
            assertThat(calls.get(i).durationNs()).isEqualTo(1000 + inCallOrder.get(i).index());
            assertThat(calls.get(i).messageBytes()).isEqualTo(Math.max(c.sendBytes(), c.receiveBytes()));
            assertThat(calls.get(i).kind().label()).isEqualTo(c.kind().name().toLowerCase());
            assertThat(calls.get(i).groupSize()).isEqualTo(2);
        }
    }

    @Test
    void theAllGathersOfAFullShardStepAreNcclTestsSizedByTheirWholeOutput() {
        List<CollectiveBandwidth.Call> calls = StepCollectives.of(OPS, records(), ROLES, g -> 2).orElseThrow();
        List<CollectiveBandwidth> groups = CollectiveBandwidth.of(calls);

        assertThat(groups).extracting(CollectiveBandwidth::kind)
                .contains(CollectiveBandwidth.Kind.ALL_GATHER, CollectiveBandwidth.Kind.REDUCE_SCATTER);
        for (ScheduledOp op : OPS) {
            if (op.isCollective() && op.collective().kind() == Collective.Kind.ALL_GATHER) {
                assertThat(op.collective().receiveBytes()).isEqualTo(2 * op.collective().sendBytes());
            }
        }
        for (CollectiveBandwidth g : groups) {
            double factor = g.kind() == CollectiveBandwidth.Kind.ALL_REDUCE ? 1.0 : 0.5; // 2(n-1)/n and (n-1)/n
            assertThat(g.busbwGbps()).isCloseTo(g.algbwGbps() * factor, org.assertj.core.api.Assertions.within(1e-12));
        }
    }

    @Test
    void aMissingKernelLeavesTheStepOutRatherThanPairingWrongly() {
        List<DeviceActivity> r = new ArrayList<>(records());
        r.remove(r.stream().filter(a -> a.name().startsWith("nccl")).findFirst().orElseThrow());

        assertThat(StepCollectives.of(OPS, r, ROLES, g -> 2)).isEqualTo(Optional.empty());
    }

    @Test
    void aKernelOfAnotherKindInACollectivesPlaceLeavesTheStepOut() {
        List<DeviceActivity> r = new ArrayList<>();
        for (DeviceActivity a : records()) {
            r.add(a.name().contains("ReduceScatter") ? kernel(ncclName(Collective.Kind.ALL_REDUCE), a.stream(),
                    a.startNs(), a.endNs()) : a);
        }

        assertThat(StepCollectives.of(OPS, r, ROLES, g -> 2)).isEqualTo(Optional.empty());
    }

    @Test
    void kernelsOnStreamsThatAreNotTheTrainersAreNotItsCollectives() {
        List<DeviceActivity> r = new ArrayList<>(records());
        r.add(kernel(ncclName(Collective.Kind.ALL_REDUCE), 999, 0, 10));

        assertThat(StepCollectives.of(OPS, r, ROLES, g -> 2)).isPresent();
    }
}
