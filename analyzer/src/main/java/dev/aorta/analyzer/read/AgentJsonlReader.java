package dev.aorta.analyzer.read;

import dev.aorta.analyzer.trace.TraceSink;
import dev.aorta.core.jsonl.EventJsonl;
import dev.aorta.core.jsonl.EventJsonlReader;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * The agent's {@code rank_<r>_activity.jsonl} (schema in {@link EventJsonl}), read with the core codec. A line
 * cut short by a killed run is reported with its line number and skipped; a truncated gzip keeps what came before.
 */
public final class AgentJsonlReader implements TraceReader {
    private static final Pattern FIRST_RECORD =
            Pattern.compile("^\\{\\s*\"type\"\\s*:\\s*\"(activity|api|stream|marker|dependency|anchor)\"");

    @Override
    public String format() {
        return "aorta-agent-jsonl";
    }

    @Override
    public boolean accepts(TraceSource source) {
        return FIRST_RECORD.matcher(source.firstLine()).find();
    }

    @Override
    public void read(TraceSource source, TraceSink sink) throws IOException {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(source.open(), StandardCharsets.UTF_8), 1 << 16)) {
            new EventJsonlReader().read(in, sink);
        } catch (java.io.EOFException | java.util.zip.ZipException e) {
            sink.warning(PartialReadWarning.of(source, e, "after the last complete line", "the complete lines before it"));
            return;
        }
        if (!source.endsWithLineEnd()) {
            // the agent ends every line it writes: a last line without one is where the file was cut (a complete
            // record there may have been followed by others)
            sink.warning(source.path() + ": the file is truncated: its last line has no line end, so records after it"
                    + " may be missing; kept every complete line");
        }
    }
}
