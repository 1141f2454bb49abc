package dev.aorta.workloads.overhead;

import com.fasterxml.jackson.databind.JsonNode;
import dev.aorta.workloads.result.ResultJson;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ResultMetricsTest {
    private static JsonNode json(String text) throws Exception {
        return ResultJson.MAPPER.readTree(text.replace('\'', '"'));
    }

    @Test
    void launchOverheadGivesEachMeasuredPatternsMsPerStep() throws Exception {
        JsonNode r = json("{'schema':'aorta.launch_overhead/1','summary':[{'pattern':'argmin','ms_per_step_mean':3.2},"
                + "{'pattern':'all_reduce','skipped':'needs 2'},{'pattern':'balanced','ms_per_step_mean':700}]}");
        assertThat(ResultMetrics.from(r)).containsExactly(java.util.Map.entry("argmin ms/step", 3.2),
                java.util.Map.entry("balanced ms/step", 700.0));
    }

    @Test
    void aHarnessRunGivesTheMedianIterationAndTheHostTimePerLaunch() throws Exception {
        JsonNode r = json("{'schema':'aorta.run/1','workload_name':'tiny_kernel_stress','latency_ms':{'p50':2.5},"
                + "'host_enqueue':{'us_per_launch':3.1}}");
        assertThat(ResultMetrics.from(r)).containsEntry("tiny_kernel_stress iteration ms p50", 2.5)
                .containsEntry("tiny_kernel_stress host us/launch", 3.1);
    }

    @Test
    void aTrainingRunGivesItsMedianStepOnlyNotItsLoopOrProcessTime() throws Exception {
        JsonNode r = json("{'schema':'aorta.train/1','steps':400,'planned_steps':400,'median_step_ms':3.6,"
                + "'loop_s':1.7}");
        assertThat(ResultMetrics.from(r)).containsExactly(java.util.Map.entry("train median step ms", 3.6));
    }

    @Test
    void otherFilesAreRefusedNamingWhatIsRead() throws Exception {
        assertThatThrownBy(() -> ResultMetrics.from(json("{'schema':'aorta.sweep/1'}")))
                .hasMessageContaining("unknown result schema 'aorta.sweep/1'").hasMessageContaining("aorta.run/1")
                .hasMessageContaining("aorta.train/1");
    }
}
