package dev.aorta.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Named tensors in a file, in the safetensors layout, so that a PyTorch or numpy script reads and writes the
 * same weights without our code (and without the safetensors package: json plus numpy.frombuffer suffice):
 *
 * <pre>
 *   8 bytes   N, the header length, unsigned little-endian
 *   N bytes   UTF-8 JSON: {"name": {"dtype": "F32"|"BF16"|"F16"|"I32", "shape": [..],
 *                                  "data_offsets": [begin, end]}, ...}
 *             (padded with spaces to a multiple of 8 so the data is aligned)
 *   the data  each tensor's elements, row-major, little-endian, at [begin, end) counted from the data start
 * </pre>
 *
 * Tensors are written in the map's order, back to back. Reading checks that the offsets tile the data exactly.
 */
public final class ParameterFile {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ParameterFile() {
    }

    public static void write(Path file, Map<String, HostTensor> tensors) {
        ObjectNode header = JSON.createObjectNode();
        long at = 0;
        for (Map.Entry<String, HostTensor> e : tensors.entrySet()) {
            ObjectNode t = header.putObject(e.getKey());
            t.put("dtype", e.getValue().dtype().fileName());
            var shape = t.putArray("shape");
            for (int d : e.getValue().shape()) {
                shape.add(d);
            }
            long end = at + e.getValue().data().length;
            t.putArray("data_offsets").add(at).add(end);
            at = end;
        }
        byte[] json;
        try {
            json = JSON.writeValueAsBytes(header);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int padded = (json.length + 7) / 8 * 8;
        ByteBuffer out = ByteBuffer.allocate(Math.toIntExact(8 + padded + at)).order(ByteOrder.LITTLE_ENDIAN);
        out.putLong(padded).put(json);
        for (int i = json.length; i < padded; i++) {
            out.put((byte) ' ');
        }
        for (HostTensor t : tensors.values()) {
            out.put(t.data());
        }
        try {
            Files.write(file, out.array());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write parameter file " + file, e);
        }
    }

    /** Every tensor of the file, in the header's order. */
    public static Map<String, HostTensor> read(Path file) {
        byte[] all;
        try {
            all = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read parameter file " + file, e);
        }
        if (all.length < 8) {
            throw new IllegalArgumentException("parameter file " + file + " is " + all.length
                    + " bytes, too short for the 8-byte header length");
        }
        long headerLength = ByteBuffer.wrap(all, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        if (headerLength < 2 || headerLength > all.length - 8) {
            throw new IllegalArgumentException("parameter file " + file + " says its header is " + headerLength
                    + " bytes but the file is " + all.length + " bytes");
        }
        int dataStart = 8 + (int) headerLength;
        JsonNode header;
        try {
            header = JSON.readTree(new String(all, 8, (int) headerLength, StandardCharsets.UTF_8).strip());
        } catch (IOException e) {
            throw new IllegalArgumentException("parameter file " + file + ": header is not JSON: " + e.getMessage(), e);
        }
        Map<String, HostTensor> out = new LinkedHashMap<>();
        long dataLength = all.length - dataStart;
        long covered = 0;
        for (Iterator<Map.Entry<String, JsonNode>> it = header.properties().iterator(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getKey().equals("__metadata__")) {
                continue;
            }
            String name = e.getKey();
            JsonNode t = e.getValue();
            DType dtype = DType.ofFileName(t.path("dtype").asText());
            JsonNode shapeNode = t.path("shape");
            int[] shape = new int[shapeNode.size()];
            for (int i = 0; i < shape.length; i++) {
                shape[i] = shapeNode.get(i).asInt();
            }
            long begin = t.path("data_offsets").path(0).asLong(-1);
            long end = t.path("data_offsets").path(1).asLong(-1);
            long expected = Shapes.numel(shape) * dtype.bytes();
            if (begin < 0 || end > dataLength || end - begin != expected) {
                throw new IllegalArgumentException("parameter file " + file + ": tensor " + name + " " + dtype + " "
                        + Shapes.format(shape) + " needs " + expected + " bytes but its data_offsets are [" + begin
                        + ", " + end + ") in " + dataLength + " bytes of data");
            }
            covered += expected;
            out.put(name, new HostTensor(dtype, shape,
                    Arrays.copyOfRange(all, dataStart + (int) begin, dataStart + (int) end)));
        }
        if (covered != dataLength) {
            throw new IllegalArgumentException("parameter file " + file + " has " + dataLength
                    + " bytes of data but its tensors account for " + covered);
        }
        return out;
    }

    /**
     * The tensor {@code name} of an already read file, which must have {@code dtype} and {@code shape}; the
     * message of a mismatch names the file, the tensor, what it holds and what was expected.
     */
    public static HostTensor require(Path file, Map<String, HostTensor> tensors, String name, DType dtype,
                                     int... shape) {
        HostTensor t = tensors.get(name);
        if (t == null) {
            throw new IllegalArgumentException("parameter file " + file + " has no tensor " + name + " (expected "
                    + dtype + " " + Shapes.format(shape) + "; it holds " + tensors.keySet() + ")");
        }
        if (t.dtype() != dtype || !Arrays.equals(t.shape(), shape)) {
            throw new IllegalArgumentException("parameter file " + file + ": tensor " + name + " is " + t.dtype()
                    + " " + Shapes.format(t.shape()) + ", expected " + dtype + " " + Shapes.format(shape));
        }
        return t;
    }
}
