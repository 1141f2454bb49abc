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
 * A large plain Kineto file is read in pieces on two threads; the sink gets what a one-pass read sends, record for
 * record, and a file the pieces cannot read cleanly (cut short, a piece that does not start at an event) is read in
 * one pass with its usual warning.
 */
class KinetoPiecesTest {
    private static final Path SAMPLE = Path.of("..", "samples", "traces", "a100-allreduce",
            "a100_allreduce_rank0_of2.json.gz");

    @TempDir
    Path dir;

    @Test
    void piecesSendWhatOnePassSends() throws IOException {
        TraceSource source = TraceSource.of(plainCopy(Integer.MAX_VALUE));
        Recording onePass = new Recording();
        new KinetoReader(Long.MAX_VALUE).read(source, onePass);
        assertThat(onePass.log).hasSizeGreaterThan(10_000);
        for (int pieces : new int[] {2, 3, 4, 16, 101}) {
            Recording read = new Recording();
            assertThat(KinetoReader.readInPieces(source, read, pieces)).as("read in %d pieces", pieces).isTrue();
            assertThat(read.byKind()).as("%d pieces", pieces).isEqualTo(onePass.byKind());
        }
        Recording asLoaded = new Recording();
        assertThat(KinetoReader.readInPieces(source, asLoaded)).as("in the pieces its size gives").isTrue();
        assertThat(asLoaded.byKind()).isEqualTo(onePass.byKind());
    }

    @Test
    void streamWaitsFindTheirCallsInEveryPiece() throws IOException {
        // five "Stream Wait Event" records, whose cudaEventRecord and cudaStreamWaitEvent calls may be in other pieces
        Path plain = dir.resolve("event_sync.json");
        try (InputStream in = new GZIPInputStream(Files.newInputStream(SAMPLE.resolveSibling(
                Path.of("..", "a100-event-sync", "a100_event_sync_3streams.json.gz"))))) {
            Files.write(plain, in.readAllBytes());
        }
        TraceSource source = TraceSource.of(plain);
        Recording onePass = new Recording();
        new KinetoReader(Long.MAX_VALUE).read(source, onePass);
        assertThat(onePass.byKind().get("dependency")).isNotEmpty();
        for (int pieces : new int[] {2, 3, 5, 8}) {
            Recording read = new Recording();
            assertThat(KinetoReader.readInPieces(source, read, pieces)).as("read in %d pieces", pieces).isTrue();
            assertThat(read.byKind()).as("%d pieces", pieces).isEqualTo(onePass.byKind());
        }
    }

    @Test
    void aFileCutShortIsReadInOnePassWithItsWarning() throws IOException {
        TraceSource source = TraceSource.of(plainCopy(8_000_000));  // the sample is 9.8 MB: cut in its last piece
        for (int pieces : new int[] {2, 5, 16}) {
            Recording read = new Recording();
            assertThat(KinetoReader.readInPieces(source, read, pieces)).isFalse();
            assertThat(read.log).isEmpty();
        }
        Recording splitting = new Recording();
        new KinetoReader(1).read(source, splitting);
        Recording onePass = new Recording();
        new KinetoReader(Long.MAX_VALUE).read(source, onePass);
        assertThat(splitting.byKind()).isEqualTo(onePass.byKind());
        assertThat(onePass.log).anySatisfy(line -> assertThat(line).startsWith("warning ").contains("truncated"));
    }

    @Test
    void aPieceThatDoesNotStartAtAnEventSendsNothing() throws IOException {
        // an event whose name holds what looks like the end of one event and the start of the next, "}, {", where a
        // piece would start: the piece before it finds no event starting there, and the file is read in one pass
        Path plain = plainCopy(Integer.MAX_VALUE);
        String text = Files.readString(plain);
        int middle = text.indexOf("\"name\": \"", text.length() / 2) + 9;
        // the file's middle falls in the run of "_", and the next "}, {" after it is the one in the name
        String tricky = text.substring(0, middle) + "_".repeat(1 << 17) + "}, {\\\"" + text.substring(middle);
        Files.writeString(plain, tricky);
        TraceSource source = TraceSource.of(plain);
        Recording read = new Recording();
        assertThat(KinetoReader.readInPieces(source, read, 2)).isFalse();
        assertThat(read.log).isEmpty();
        Recording splitting = new Recording();
        new KinetoReader(1).read(source, splitting);
        Recording onePass = new Recording();
        new KinetoReader(Long.MAX_VALUE).read(source, onePass);
        assertThat(splitting.byKind()).isEqualTo(onePass.byKind());
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
