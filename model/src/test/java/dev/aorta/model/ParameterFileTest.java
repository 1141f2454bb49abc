package dev.aorta.model;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ParameterFileTest {
    @TempDir
    Path dir;

    @Test
    void everyDtypeRoundTripsBitForBit() {
        Map<String, HostTensor> in = new LinkedHashMap<>();
        in.put("w", Init.uniform(7, "w", 0.5f, 3, 5));
        in.put("b16", HostTensor.ofFloats(DType.BF16, new int[] {3}, new float[] {1.5f, -2.25f, 3e-3f}));
        in.put("h16", HostTensor.ofFloats(DType.FP16, new int[] {2}, new float[] {0.1f, 65504f}));
        in.put("ids", HostTensor.ofInts(new int[] {2, 2}, new int[] {0, 1, Integer.MAX_VALUE, -1}));
        in.put("scalar", HostTensor.ofFloats(DType.FP32, new int[0], new float[] {42f}));
        Path f = dir.resolve("p.safetensors");
        ParameterFile.write(f, in);
        Map<String, HostTensor> out = ParameterFile.read(f);
        assertThat(out.keySet()).containsExactly("w", "b16", "h16", "ids", "scalar");
        assertThat(out).isEqualTo(in);
        assertThat(out.get("ids").toInts()).containsExactly(0, 1, Integer.MAX_VALUE, -1);
    }

    @Test
    void theHeaderIsSafetensorsJsonAndTheDataIsAligned() throws IOException {
        Path f = dir.resolve("p.safetensors");
        ParameterFile.write(f, Map.of("a", Init.constant(1f, 2)));
        byte[] all = Files.readAllBytes(f);
        long n = ByteBuffer.wrap(all, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        assertThat(n % 8).isZero();
        assertThat(new String(all, 8, (int) n, StandardCharsets.UTF_8).strip())
                .isEqualTo("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}");
        assertThat(ByteBuffer.wrap(all, 8 + (int) n, 4).order(ByteOrder.LITTLE_ENDIAN).getFloat()).isEqualTo(1f);
    }

    @Test
    void aTruncatedFileNamesTheFileAndTheTensor() throws IOException {
        Path f = dir.resolve("p.safetensors");
        ParameterFile.write(f, Map.of("enc.w", Init.constant(1f, 4, 4)));
        byte[] all = Files.readAllBytes(f);
        Files.write(f, Arrays.copyOf(all, all.length - 4));
        assertThatThrownBy(() -> ParameterFile.read(f))
                .hasMessageContaining(f.toString())
                .hasMessageContaining("tensor enc.w fp32 [4, 4] needs 64 bytes but its data_offsets are [0, 64) in 60");
    }

    @Test
    void aTensorOfTheWrongShapeOrDtypeNamesFileTensorAndExpectation() {
        Path f = dir.resolve("p.safetensors");
        ParameterFile.write(f, Map.of("ln.gamma", HostTensor.ofFloats(DType.BF16, new int[] {4}, new float[4])));
        Map<String, HostTensor> t = ParameterFile.read(f);
        assertThatThrownBy(() -> ParameterFile.require(f, t, "ln.gamma", DType.FP32, 4))
                .hasMessage("parameter file " + f + ": tensor ln.gamma is bf16 [4], expected fp32 [4]");
        assertThatThrownBy(() -> ParameterFile.require(f, t, "ln.beta", DType.FP32, 4))
                .hasMessageContaining("has no tensor ln.beta (expected fp32 [4]; it holds [ln.gamma])");
    }

    @Test
    void readsAFileWrittenByPythonWithJsonAndNumpy() throws Exception {
        // written by scripts/model-param-fixture.py
        Path f = Path.of(ParameterFileTest.class.getResource("/python-written.safetensors").toURI());
        Map<String, HostTensor> t = ParameterFile.read(f);
        assertThat(t.keySet()).containsExactly("layers.0.linear1.weight", "norm.gamma", "h", "ids");
        assertThat(ParameterFile.require(f, t, "layers.0.linear1.weight", DType.FP32, 2, 3).toFloats())
                .containsExactly(1.5f, -2.0f, 0.25f, 3.0f, 1e-3f, -7.5f);
        assertThat(t.get("norm.gamma").toFloats()).containsExactly(1.0f, -0.5f, 3.140625f);
        assertThat(t.get("h").dtype()).isEqualTo(DType.FP16);
        assertThat(t.get("h").toFloats()).containsExactly(0.5f, -65504f);
        assertThat(ParameterFile.require(f, t, "ids", DType.I32, 2, 2).toInts())
                .containsExactly(0, 7, -1, Integer.MAX_VALUE);
    }
}
