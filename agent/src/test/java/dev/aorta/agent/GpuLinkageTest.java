package dev.aorta.agent;

import dev.aorta.agent.device.CuptiLoader;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * aorta-gpu is on the agent's compile class path for the Java 22 classes only: a class compiled for Java 17 that
 * linked to it would fail on Java 17 and wherever the application has no aorta-gpu. Those reach it by name (and
 * the Real*Signature tests check the names).
 */
class GpuLinkageTest {
    private static final int JAVA_17 = 61;
    private static final byte[] GPU = "dev/aorta/gpu/".getBytes(StandardCharsets.UTF_8);

    @Test
    void onlyClassesCompiledForJava22LinkToAortaGpu() throws IOException, URISyntaxException {
        Path classes = Path.of(CuptiLoader.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<Path> all;
        try (Stream<Path> files = Files.walk(classes)) {
            all = files.filter(p -> p.toString().endsWith(".class")).toList();
        }
        List<String> linking = all.stream().filter(GpuLinkageTest::linksToGpu)
                .map(p -> classes.relativize(p) + " (class file version " + major(p) + ")").toList();
        assertThat(linking).as("the CUPTI source does, so the scan sees such links")
                .contains("dev/aorta/agent/device/CuptiActivitySource.class (class file version 66)");
        assertThat(linking).filteredOn(l -> l.endsWith("(class file version " + JAVA_17 + ")")).isEmpty();
    }

    private static boolean linksToGpu(Path classFile) {
        byte[] b = read(classFile);
        outer:
        for (int i = 0; i <= b.length - GPU.length; i++) {
            for (int j = 0; j < GPU.length; j++) {
                if (b[i + j] != GPU[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static int major(Path classFile) {
        byte[] b = read(classFile);
        return ((b[6] & 0xff) << 8) | (b[7] & 0xff);
    }

    private static byte[] read(Path p) {
        try {
            return Files.readAllBytes(p);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
