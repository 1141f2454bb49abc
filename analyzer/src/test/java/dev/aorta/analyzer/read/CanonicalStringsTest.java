package dev.aorta.analyzer.read;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** CanonicalStrings gives each string value its text, one shared String per distinct text. */
class CanonicalStringsTest {
    @Test
    void aRepeatedTextIsOneStringAndEveryTextIsItsOwn() throws IOException {
        // long names equal in length and in the characters the hash samples, different in one character between
        String base = "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>(Params)";
        List<String> texts = new ArrayList<>();
        for (int at = 0; at < base.length(); at++) {
            texts.add(base.substring(0, at) + '#' + base.substring(at + 1));
        }
        for (int i = 0; i < 5000; i++) {  // enough to grow the table several times
            texts.add("aten::op_" + i);
        }
        texts.add("");
        texts.add("é€𝄞");
        CanonicalStrings canonical = new CanonicalStrings();

        List<String> first = readAll(canonical, texts);
        List<String> second = readAll(canonical, texts);

        assertThat(first).containsExactlyElementsOf(texts);
        for (int i = 0; i < texts.size(); i++) {
            assertThat(second.get(i)).as(texts.get(i)).isSameAs(first.get(i));
        }
    }

    @Test
    void pastItsLimitTextsAreStillRightThoughNotShared() throws IOException {
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < 70_000; i++) {
            texts.add("id-" + i);
        }
        CanonicalStrings canonical = new CanonicalStrings();

        assertThat(readAll(canonical, texts)).containsExactlyElementsOf(texts);
        assertThat(readAll(canonical, texts)).containsExactlyElementsOf(texts);
    }

    private static List<String> readAll(CanonicalStrings canonical, List<String> texts) throws IOException {
        StringBuilder json = new StringBuilder("[");
        for (String t : texts) {
            json.append(json.length() > 1 ? "," : "").append('"').append(t).append('"');
        }
        List<String> out = new ArrayList<>();
        try (JsonParser p = TraceEventsJson.JSON.createParser(
                json.append(']').toString().getBytes(StandardCharsets.UTF_8))) {
            p.nextToken();
            while (p.nextToken() == JsonToken.VALUE_STRING) {
                out.add(canonical.text(p));
            }
        }
        return out;
    }
}
