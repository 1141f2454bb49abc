package dev.aorta.analyzer.read;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** Utf8Repair passes valid UTF-8 through unchanged and turns each byte that is not part of it into one '?'. */
class Utf8RepairTest {
    @Test
    void validUtf8PassesThroughWhateverTheChunksAndTheBufferBoundaries() throws IOException {
        Random random = new Random(5);
        StringBuilder text = new StringBuilder();
        String[] pieces = {"{\"name\":\"kernel\"}", "é", "€", "𝄞", "x", " ", "ncclKernel_AllReduce", "深"};
        while (text.length() < 200_000) {  // several 64 KiB buffers, multi-byte sequences across their ends
            text.append(pieces[random.nextInt(pieces.length)]);
        }
        byte[] in = text.toString().getBytes(StandardCharsets.UTF_8);

        Utf8Repair repair = new Utf8Repair(new ByteArrayInputStream(in));
        byte[] out = readInChunks(repair, random);

        assertThat(out).isEqualTo(in);
        assertThat(repair.replaced()).isZero();
    }

    /** A bad byte at every position of an eight-byte word (the ASCII scan reads eight at a time) is found. */
    @Test
    void eachInvalidByteBecomesOneQuestionMarkWhereverItLies() throws IOException {
        for (int at = 0; at < 24; at++) {
            for (int bad : new int[] {0xff, 0x80, 0xc0, 0xe2}) {  // never valid, a stray continuation, cut sequences
                byte[] in = "abcdefghijklmnopqrstuvwxyz0123456789".getBytes(StandardCharsets.US_ASCII);
                in[at] = (byte) bad;
                Utf8Repair repair = new Utf8Repair(new ByteArrayInputStream(in));

                byte[] out = repair.readAllBytes();

                byte[] expected = in.clone();
                expected[at] = '?';
                assertThat(out).as("0x%x at %d", bad, at).isEqualTo(expected);
                assertThat(repair.replaced()).isEqualTo(1);
            }
        }
    }

    private static byte[] readInChunks(InputStream in, Random random) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] chunk = new byte[9000];
        for (int n; (n = in.read(chunk, 0, 1 + random.nextInt(chunk.length))) > 0; ) {
            out.write(chunk, 0, n);
        }
        return out.toByteArray();
    }
}
