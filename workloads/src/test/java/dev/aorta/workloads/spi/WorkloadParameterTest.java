package dev.aorta.workloads.spi;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WorkloadParameterTest {

    @Test
    void aValueInsideTheDeclaredRangeIsItsInteger() {
        assertThat(WorkloadParameter.positive("size", "256", "elements").parse(" 512 ")).isEqualTo(512);
        assertThat(new WorkloadParameter("offset", "0", "any").parse("-7")).isEqualTo(-7);
        assertThat(new WorkloadParameter("ways", "2", "ways", 1, 4).parse("4")).isEqualTo(4);
    }

    @Test
    void aBadValueNamesTheParameterTheValueAndWhatIsAllowed() {
        assertThatThrownBy(() -> WorkloadParameter.positive("size", "256", "elements").parse("abc"))
                .hasMessage("--param size=abc: expected an integer of 1 or more");
        assertThatThrownBy(() -> new WorkloadParameter("ways", "2", "ways", 1, 4).parse("5"))
                .hasMessage("--param ways=5: expected an integer from 1 to 4");
        assertThatThrownBy(() -> new WorkloadParameter("offset", "0", "any").parse("1e3"))
                .hasMessage("--param offset=1e3: expected an integer");
        assertThatThrownBy(() -> new WorkloadParameter("tilt", "0", "t", Integer.MIN_VALUE, 0).parse("2"))
                .hasMessage("--param tilt=2: expected an integer of 0 or less");
    }

    @Test
    void aChoiceTakesOnlyItsWordsAndItsDefaultMustBeOne() {
        WorkloadParameter pattern = WorkloadParameter.choice("pattern", "argmin", "p", "argmin", "balanced");
        assertThat(pattern.parseChoice(" balanced")).isEqualTo("balanced");
        assertThatThrownBy(() -> pattern.check("greedy"))
                .hasMessage("--param pattern=greedy: expected one of argmin, balanced");
        assertThatThrownBy(() -> WorkloadParameter.choice("graphs", "maybe", "g", "true", "false"))
                .hasMessage("graphs: default maybe is not one of [true, false]");
    }
}
