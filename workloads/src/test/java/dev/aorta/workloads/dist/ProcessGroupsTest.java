package dev.aorta.workloads.dist;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ProcessGroupsTest {

    @Test
    void eachRankWorksInTheGroupThatHoldsIt() {
        ProcessGroups g = ProcessGroups.parse(" [0,1,2,3] , [4,5,6,7]").validateFor(8);
        assertThat(g.groups()).containsExactly(List.of(0, 1, 2, 3), List.of(4, 5, 6, 7));
        assertThat(g.groupIndexOf(5)).isEqualTo(1);
        assertThat(g.membersOf(6)).containsExactly(4, 5, 6, 7);
        assertThat(g).hasToString("[0,1,2,3],[4,5,6,7]");
    }

    @Test
    void membersAreInRankOrderWhateverOrderTheyWereWritten() {
        assertThat(ProcessGroups.parse("[3,1],[2,0]").validateFor(4).membersOf(1)).containsExactly(1, 3);
    }

    @Test
    void singletonGroupsAreAllowed() {
        ProcessGroups g = ProcessGroups.parse("[0],[1]").validateFor(2);
        assertThat(g.membersOf(1)).containsExactly(1);
    }

    @Test
    void emptyOptionOrGroupIsRejected() {
        assertThatThrownBy(() -> ProcessGroups.parse("  ")).hasMessage(
                "--process-groups is empty; expected groups of ranks like [0,1],[2,3]");
        assertThatThrownBy(() -> ProcessGroups.parse("[0,1],[]")).hasMessage("--process-groups: group 2 is empty");
    }

    @Test
    void negativeRankIsRejected() {
        assertThatThrownBy(() -> ProcessGroups.parse("[0,-1]")).hasMessage("--process-groups: rank -1 in group 1 is negative");
    }

    @Test
    void duplicateRanksAreRejectedWithinAndAcrossGroups() {
        assertThatThrownBy(() -> ProcessGroups.parse("[0,1],[2,3],[3]")).hasMessage(
                "--process-groups: rank 3 appears in groups 2 and 3; every rank belongs to one group");
        assertThatThrownBy(() -> ProcessGroups.parse("[1,1]")).hasMessageStartingWith(
                "--process-groups: rank 1 appears twice in group 1");
    }

    @Test
    void nonIntegerIsRejected() {
        assertThatThrownBy(() -> ProcessGroups.parse("[0,x]")).hasMessage(
                "--process-groups: 'x' in group 1 is not an integer");
        assertThatThrownBy(() -> ProcessGroups.parse("[0,1.5]")).hasMessageContaining("'1.5' in group 1 is not an integer");
    }

    @Test
    void malformedSyntaxSaysWhatWasExpected() {
        assertThatThrownBy(() -> ProcessGroups.parse("0,1")).hasMessageContaining("expected '[' to open group 1");
        assertThatThrownBy(() -> ProcessGroups.parse("[0,1")).hasMessageContaining("group 1 has no closing ']'");
        assertThatThrownBy(() -> ProcessGroups.parse("[0][1]")).hasMessageContaining("expected ',' between groups");
        assertThatThrownBy(() -> ProcessGroups.parse("[0,,1]")).hasMessageContaining("group 1 has an empty entry");
    }

    @Test
    void everyRankOfTheWorldMustBeInAGroupAndNoneOutsideIt() {
        assertThatThrownBy(() -> ProcessGroups.parse("[0,1],[3]").validateFor(4)).hasMessage(
                "--process-groups: rank 2 is in no group; every rank of the world of 4 must be in one");
        assertThatThrownBy(() -> ProcessGroups.parse("[0,1],[2,3,5]").validateFor(4)).hasMessage(
                "--process-groups: rank 5 is outside the world of 4 ranks (0..3)");
    }
}
