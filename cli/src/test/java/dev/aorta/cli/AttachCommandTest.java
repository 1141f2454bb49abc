package dev.aorta.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class AttachCommandTest {

    @Test
    void pathOptionsAreMadeAbsoluteBecauseTheTargetHasItsOwnWorkingDirectory() {
        AttachCommand c = new AttachCommand();
        c.config = Path.of("agent.yaml");
        c.options.add("output=prof");
        c.options.add("bind-collectives=true");
        assertThat(c.agentArguments()).isEqualTo("config=" + Path.of("agent.yaml").toAbsolutePath()
                + ",output=" + Path.of("prof").toAbsolutePath() + ",bind-collectives=true");
    }

    @Test
    void aMissingAgentJarIsOneClearError(@TempDir Path dir) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream old = System.err;
        System.setErr(new PrintStream(err, true));
        int code;
        try {
            code = AortaCli.run("attach", "12345", "--agent-jar", dir.resolve("none.jar").toString());
        } finally {
            System.setErr(old);
        }
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("aorta attach: option --agent-jar: no agent jar at '")
                .contains("expected the shaded aorta-agent.jar");
    }

    @Test
    void anOptionWithoutValueOrWithACommaIsRejected() {
        AttachCommand c = new AttachCommand();
        c.options.add("verbose");
        org.assertj.core.api.Assertions.assertThatThrownBy(c::agentArguments)
                .hasMessage("option --option: expected KEY=VALUE, got 'verbose'");
        AttachCommand d = new AttachCommand();
        d.options.add("output=a,rank=1");
        org.assertj.core.api.Assertions.assertThatThrownBy(d::agentArguments).hasMessageContaining("contains ','");
    }
}
