package dev.aorta.analyzer.read;

import dev.aorta.analyzer.trace.TraceSink;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Marker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A large plain Kineto file is read in two halves at once; the sink gets what a one-pass read sends, record for
 * record, and a file the halves cannot read cleanly (cut short) is read in one pass with its usual warning.
 */
class KinetoHalvesTest {
    private static final Path SAMPLE = Path.of("..", "samples", "traces", "a100-allreduce",
            "a100_allreduce_rank0_of2.json.gz");

    @TempDir
    Path dir;

    @Test
    void twoHalvesSendWhatOnePassSends() throws IOException {
        TraceSource source = TraceSource.of(plainCopy(Integer.MAX_VALUE));
        Recording halves = new Recording();
        assertThat(KinetoReader.readInHalves(source, halves)).as("read in halves").isTrue();
        Recording onePass = new Recording();
        new KinetoReader(Long.MAX_VALUE).read(source, onePass);
        assertThat(onePass.log).hasSizeGreaterThan(10_000);
        assertThat(halves.byKind()).isEqualTo(onePass.byKind());
    }

    @Test
    void aFileCutShortIsReadInOnePassWithItsWarning() throws IOException {
        TraceSource source = TraceSource.of(plainCopy(8_000_000));  // the sample is 9.8 MB: cut in its second half
        Recording halves = new Recording();
        assertThat(KinetoReader.readInHalves(source, halves)).isFalse();
        assertThat(halves.log).isEmpty();
        Recording splitting = new Recording();
        new KinetoReader(1).read(source, splitting);
        Recording onePass = new Recording();
        new KinetoReader(Long.MAX_VALUE).read(source, onePass);
        assertThat(splitting.byKind()).isEqualTo(onePass.byKind());
        assertThat(onePass.log).anySatisfy(line -> assertThat(line).startsWith("warning ").contains("truncated"));
    }

    private Path plainCopy(int bytes) throws IOException {
        Path plain = dir.resolve("rank0.json");
        try (InputStream in = new GZIPInputStream(Files.newInputStream(SAMPLE))) {
            byte[] all = in.readAllBytes();
            Files.write(plain, Arrays.copyOf(all, Math.min(bytes, all.length)));
        }
        return plain;
    }

    /** Everything the reader sends, as text in order of arrival. */
    private static final class Recording implements TraceSink {
        final List<String> log = new ArrayList<>();

        /**
         * The log per kind of record, each in order of arrival: the loader keeps each kind in a list of its own, so
         * the order across kinds (a device record before or after a marker) is not part of what a read gives.
         */
        Map<String, List<String>> byKind() {
            Map<String, List<String>> out = new TreeMap<>();
            log.forEach(line -> out.computeIfAbsent(line.substring(0, line.indexOf(' ')), k -> new ArrayList<>())
                    .add(line));
            return out;
        }

        @Override
        public void activity(DeviceActivity a) {
            log.add("activity " + a);
        }

        @Override
        public void api(ApiCall c) {
            log.add("api " + c);
        }

        @Override
        public void marker(Marker m) {
            log.add("marker " + m);
        }

        @Override
        public void dependency(Dependency d) {
            log.add("dependency " + d);
        }

        @Override
        public void anchor(ClockAnchor a) {
            log.add("anchor " + a);
        }

        @Override
        public void declaredRank(int rank, int worldSize) {
            log.add("rank " + rank + " of " + worldSize);
        }

        @Override
        public void warning(String message) {
            log.add("warning " + message);
        }
    }
}
