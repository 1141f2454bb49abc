package dev.aorta.agent.config;

import dev.aorta.agent.config.AgentOptions.Category;
import dev.aorta.agent.config.AgentOptions.Sink;
import dev.aorta.agent.capture.BetweenWindows;
import dev.aorta.agent.capture.CaptureSchedule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AgentOptionsTest {

    @Test
    void defaultsWhenNothingIsGiven() {
        AgentOptions o = AgentOptions.resolve(null, Map.of());
        assertThat(o.output()).isEqualTo(Path.of("aorta-out"));
        assertThat(o.rank(Map.of())).isZero();
        assertThat(o.worldSize(Map.of())).isEqualTo(1);
        assertThat(o.categories()).containsExactlyInAnyOrder(Category.values());
        assertThat(o.sinks()).containsExactlyInAnyOrder(Sink.JSONL, Sink.METRICS, Sink.JFR);
        assertThat(o.bindCollectives()).isFalse();
        assertThat(o.join()).isEqualTo(JoinMode.IMMEDIATE);
        assertThat(o.iterationMethod()).isNull();
    }

    @Test
    void agentArgumentsBeatEnvironmentWhichBeatsTheConfigFile(@TempDir Path dir) throws Exception {
        Path yaml = Files.writeString(dir.resolve("aorta.yaml"), """
                agent:
                  output: from-file
                  join: iteration-end
                  bind-collectives: true
                  comm-stream-priority: -4
                """);
        AgentOptions o = AgentOptions.resolve("config=" + yaml + ",output=from-args",
                Map.of("AORTA_OUTPUT", "from-env", "AORTA_JOIN", "next-sync"));
        assertThat(o.output()).isEqualTo(Path.of("from-args"));
        assertThat(o.join()).isEqualTo(JoinMode.NEXT_SYNC);
        assertThat(o.bindCollectives()).isTrue();
        assertThat(o.commStreamPriority()).isEqualTo(-4);
    }

    @Test
    void theConfigFileCanBeNamedByEnvironmentAndBeAPropertiesFile(@TempDir Path dir) throws Exception {
        Path props = Files.writeString(dir.resolve("agent.properties"), "record=launch+collective\nsinks=jsonl\n");
        AgentOptions o = AgentOptions.resolve("", Map.of("AORTA_CONFIG", props.toString()));
        assertThat(o.categories()).containsExactlyInAnyOrder(Category.LAUNCH, Category.COLLECTIVE);
        assertThat(o.sinks()).containsExactly(Sink.JSONL);
    }

    @Test
    void aortaVariablesThatAreNotOptionsAreNotOurs() {
        AgentOptions o = AgentOptions.resolve("", Map.of("AORTA_JAVA_HOME", "/opt/jdk", "AORTA_VERBOSE", "true"));
        assertThat(o.verbose()).isTrue();
    }

    @Test
    void rankComesFromTheOptionElseTheLaunchersEnvironment() {
        AgentOptions none = AgentOptions.resolve("", Map.of());
        assertThat(none.rank(Map.of("RANK", "3", "LOCAL_RANK", "1"))).isEqualTo(3);
        assertThat(none.rank(Map.of("SLURM_PROCID", "5"))).isEqualTo(5);
        assertThat(none.rank(Map.of("LOCAL_RANK", "2"))).isEqualTo(2);
        assertThat(none.worldSize(Map.of("SLURM_NTASKS", "8"))).isEqualTo(8);
        assertThat(AgentOptions.resolve("rank=7", Map.of()).rank(Map.of("RANK", "3"))).isEqualTo(7);
        assertThatThrownBy(() -> none.rank(Map.of("RANK", "zero")))
                .hasMessage("environment variable RANK (used for option 'rank'): expected an integer, got 'zero'");
    }

    @Test
    void anUnknownOptionIsNamedWithTheListOfValidOnes() {
        assertThatThrownBy(() -> AgentOptions.resolve("outptu=x", Map.of()))
                .isInstanceOf(OptionsException.class)
                .hasMessageStartingWith("unknown option 'outptu' in agent argument; valid options: output, rank, world-size,")
                .hasMessageContaining("bind-collectives");
    }

    @Test
    void badValuesNameTheOptionAndWhatWasExpected(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> AgentOptions.resolve("join=later", Map.of()))
                .hasMessage("option 'join': expected immediate, next-sync or iteration-end, got 'later'");
        assertThatThrownBy(() -> AgentOptions.resolve("buffer-records=1000", Map.of()))
                .hasMessage("option 'buffer-records': expected a power of two in 64..1048576, got '1000'");
        assertThatThrownBy(() -> AgentOptions.resolve("bind-collectives=yes", Map.of()))
                .hasMessage("option 'bind-collectives': expected true or false, got 'yes'");
        assertThatThrownBy(() -> AgentOptions.resolve("record=launch+kernels", Map.of()))
                .hasMessageStartingWith("option 'record': unknown value 'kernels'; expected one of [blas, collective, copy,");
        assertThatThrownBy(() -> AgentOptions.resolve("iteration-method=Trainer.step", Map.of()))
                .hasMessage("option 'iteration-method': expected fully.qualified.Class#method, got 'Trainer.step'");
        assertThatThrownBy(() -> AgentOptions.resolve("verbose", Map.of()))
                .hasMessageStartingWith("agent argument 'verbose' is not key=value; valid keys: output,");
        assertThatThrownBy(() -> AgentOptions.resolve("config=" + dir.resolve("missing.yaml"), Map.of()))
                .hasMessageStartingWith("option 'config': cannot read '").hasMessageEndingWith("(expected a .properties or YAML file)");
        Path bad = Files.writeString(dir.resolve("bad.yaml"), "output: [a, b]\n");
        assertThatThrownBy(() -> AgentOptions.resolve("config=" + bad, Map.of()))
                .hasMessage("config file " + bad + ": option 'output' must be a scalar, found ARRAY");
        Path unknown = Files.writeString(dir.resolve("unknown.yaml"), "ouput: x\n");
        assertThatThrownBy(() -> AgentOptions.resolve("config=" + unknown, Map.of()))
                .hasMessageStartingWith("unknown option 'ouput' in config file " + unknown + "; valid options: output,");
    }

    @Test
    void aBadValueNamesWhereItCameFrom_theEnvironmentVariableOrTheConfigFile(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> AgentOptions.resolve("", Map.of("AORTA_BUFFER_RECORDS", "7")))
                .hasMessage("environment variable AORTA_BUFFER_RECORDS (option 'buffer-records'): expected a power of two"
                        + " in 64..1048576, got '7'");
        assertThatThrownBy(() -> AgentOptions.resolve("", Map.of("AORTA_JOIN", "later")))
                .hasMessage("environment variable AORTA_JOIN (option 'join'): expected immediate, next-sync or iteration-end,"
                        + " got 'later'");
        assertThatThrownBy(() -> AgentOptions.resolve("", Map.of("AORTA_CONFIG", dir.resolve("missing.yaml").toString())))
                .hasMessageStartingWith("environment variable AORTA_CONFIG (option 'config'): cannot read '");
        Path yaml = Files.writeString(dir.resolve("agent.yaml"), "sample-every: 0\n");
        assertThatThrownBy(() -> AgentOptions.resolve("config=" + yaml, Map.of()))
                .hasMessage("option 'sample-every' in config file " + yaml + ": expected >= 1, got '0'");
        // the agent argument overrides the variable, and so does its name in the message
        assertThatThrownBy(() -> AgentOptions.resolve("buffer-records=9", Map.of("AORTA_BUFFER_RECORDS", "7")))
                .hasMessage("option 'buffer-records': expected a power of two in 64..1048576, got '9'");
    }

    @Test
    void everyOptionIsDescribed() {
        String table = AgentOptions.describe();
        for (AgentOptions.Option o : AgentOptions.Option.values()) {
            assertThat(table).contains(o.key());
            assertThat(o.description()).isNotBlank();
        }
    }

    @Test
    void aCaptureScheduleIsOverIterationsOrOverTime() {
        CaptureSchedule it = AgentOptions.resolve("wait=5,warmup=1,active=3,repeat=2,between-windows=off", Map.of())
                .captureSchedule();
        assertThat(it).isEqualTo(CaptureSchedule.iterations(5, 1, 3, 2));
        assertThat(AgentOptions.resolve("start-after=30s,duration=500ms", Map.of()).captureSchedule())
                .isEqualTo(CaptureSchedule.time(30_000_000_000L, 500_000_000L));
        assertThat(AgentOptions.resolve("capture=on-demand", Map.of()).captureSchedule()).isEqualTo(CaptureSchedule.ON_DEMAND);
        assertThat(AgentOptions.resolve("", Map.of()).captureSchedule()).isEqualTo(CaptureSchedule.ALWAYS);
        assertThat(AgentOptions.resolve("between-windows=off", Map.of()).betweenWindows()).isEqualTo(BetweenWindows.OFF);
        assertThat(AgentOptions.resolve("between-windows=gated", Map.of()).betweenWindows()).isEqualTo(BetweenWindows.GATED);
    }

    @Test
    void aScheduleThatCannotBeParsedNamesTheField() {
        assertThatThrownBy(() -> AgentOptions.resolve("wait=5,active=three", Map.of()))
                .hasMessage("option 'active': expected an integer, got 'three'");
        assertThatThrownBy(() -> AgentOptions.resolve("wait=5", Map.of()))
                .hasMessage("option 'active': expected the iterations per window (>= 1) with wait=5, got nothing");
        assertThatThrownBy(() -> AgentOptions.resolve("active=0", Map.of()))
                .hasMessage("option 'active': expected an integer >= 1, got '0'");
        assertThatThrownBy(() -> AgentOptions.resolve("start-after=30 s,duration=5s", Map.of()))
                .hasMessage("option 'start-after': expected a duration such as 30s, 500ms or 2m, got '30 s'");
        assertThatThrownBy(() -> AgentOptions.resolve("start-after=30s", Map.of()))
                .hasMessage("option 'duration': expected how long the window stays open (e.g. 5s) with start-after=30s,"
                        + " got nothing");
        assertThatThrownBy(() -> AgentOptions.resolve("active=2,duration=5s", Map.of()))
                .hasMessageStartingWith("option 'start-after': a schedule is either over iterations");
        assertThatThrownBy(() -> AgentOptions.resolve("", Map.of("AORTA_REPEAT", "-1", "AORTA_ACTIVE", "1")))
                .hasMessage("environment variable AORTA_REPEAT (option 'repeat'): expected an integer >= 0, got '-1'");
        assertThatThrownBy(() -> AgentOptions.resolve("between-windows=none", Map.of()))
                .hasMessage("option 'between-windows': unknown value 'none'; expected one of [api, gated, off]");
        assertThatThrownBy(() -> AgentOptions.resolve("between-windows=off,unweave-gap=1 s", Map.of()))
                .hasMessage("option 'unweave-gap': expected a duration such as 30s, 500ms or 2m, got '1 s'");
        assertThat(AgentOptions.resolve("", Map.of()).unweaveGapNs()).isEqualTo(1_000_000_000L);
        assertThat(AgentOptions.resolve("unweave-gap=250ms", Map.of()).unweaveGapNs()).isEqualTo(250_000_000L);
    }

    @Test
    void unknownAortaVariablesAreNamed_theLaunchersAndTheGpuRuntimesAreNot() {
        assertThat(AgentOptions.unknownVariables(Map.of("AORTA_OUTPTU", "x", "AORTA_OUTPUT", "y", "AORTA_JAVA_HOME", "/jdk",
                "AORTA_CUPTI_LIBRARY", "/lib", "AORTA_PLUGINS", "p", "PATH", "/bin"))).containsExactly("AORTA_OUTPTU");
        assertThat(AgentOptions.variableNames()).contains("AORTA_OUTPUT", "AORTA_BETWEEN_WINDOWS");
    }
}
