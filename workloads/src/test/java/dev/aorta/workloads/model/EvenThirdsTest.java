package dev.aorta.workloads.model;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

class EvenThirdsTest {
    private static Map<String, Integer> sizes(dev.aorta.workloads.spi.Workload w, int streams) {
        Map<String, Integer> sizes = new TreeMap<>();
        for (int i = 0; i < streams; i++) {
            sizes.merge(w.streamRole(i, streams), 1, Integer::sum);
        }
        return sizes;
    }

    /**
     * zero_offload's 4 layers and activation_ckpt's 4 segments give every stream of a role work at every count of
     * their range 4..12 only if no role gets more than 4 streams: the roles' sizes differ by at most one.
     */
    @Test
    void everyCountOfTheRangeSplitsIntoThirdsThatDifferByAtMostOne() {
        for (var w : new dev.aorta.workloads.spi.Workload[] {new ZeroOffload(), new ActivationCkpt()}) {
            for (int n = 4; n <= 12; n++) {
                Map<String, Integer> sizes = sizes(w, n);
                assertThat(sizes).as(w.name() + " at " + n).hasSize(3);
                int max = sizes.values().stream().max(Integer::compare).orElseThrow();
                int min = sizes.values().stream().min(Integer::compare).orElseThrow();
                assertThat(max - min).as(w.name() + " at " + n + ": " + sizes).isLessThanOrEqualTo(1);
                assertThat(max).as(w.name() + " at " + n).isLessThanOrEqualTo(4);
            }
        }
    }

    @Test
    void theRolesAreConsecutiveAndTheLaterOnesTakeTheRemainder() {
        ZeroOffload w = new ZeroOffload();
        StringBuilder roles = new StringBuilder();
        for (int i = 0; i < 11; i++) {
            roles.append(w.streamRole(i, 11).charAt(0));
        }
        assertThat(roles).hasToString("ooopppp" + "cccc");
    }
}
