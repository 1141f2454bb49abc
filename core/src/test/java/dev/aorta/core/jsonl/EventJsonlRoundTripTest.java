package dev.aorta.core.jsonl;

import dev.aorta.core.event.ActivityKind;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dim3;
import dev.aorta.core.event.Marker;
import dev.aorta.core.event.StreamInfo;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class EventJsonlRoundTripTest {

    @Test
    void everyRecordTypeSurvivesWriteThenRead() throws Exception {
        var activity = new DeviceActivity(ActivityKind.KERNEL, "gemm", 1, 0, 0x7f00L, 100, 250, 42, 90, 95,
                new Dim3(64, 2, 1), new Dim3(256, 1, 1), 0, ClockDomain.CUPTI);
        var api = new ApiCall("cuLaunchKernel", 7, 0x7f00L, 10, 20, 42, 0, Map.of("grid_x", 64L, "op", "sum"),
                ClockDomain.HOST_MONOTONIC);
        var stream = new StreamInfo(0x7f00L, 0, -1, 1, "comm");
        var marker = new Marker(Marker.Kind.ITERATION, "step", 1, 3, 5, 500, ClockDomain.HOST_MONOTONIC);
        var dep = new Dependency(0xabc, 1, 11, 2, 12, ClockDomain.HOST_MONOTONIC);
        var anchor = new ClockAnchor(ClockDomain.CUPTI, 1000, ClockDomain.HOST_MONOTONIC, 2000);

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (EventJsonlWriter w = new EventJsonlWriter(bytes)) {
            w.write(activity);
            w.write(api);
            w.write(stream);
            w.write(marker);
            w.write(dep);
            w.write(anchor);
        }
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertThat(text.lines()).hasSize(6).allSatisfy(line -> assertThat(line).startsWith("{\"type\":").endsWith("}"));
        assertThat(text).endsWith("\n");

        List<Object> read = new ArrayList<>();
        long n = new EventJsonlReader().read(new BufferedReader(new StringReader(text)), collector(read, new ArrayList<>()));
        assertThat(n).isEqualTo(6);
        assertThat(read).containsExactly(activity, api, stream, marker, dep, anchor);
    }

    @Test
    void namesThatNeedEscapingAndMoreDistinctNamesThanTheWriterKeepsEncodedComeBackUnchanged() throws Exception {
        List<ApiCall> calls = new ArrayList<>();
        calls.add(api("void k<\"quoted\", \\back\\slash>\t\u00e9\u4e2d\ud83d\ude80"));
        for (int i = 0; i < EventJsonlWriter.MAX_CACHED_VALUES + 10; i++) {
            calls.add(api("kernel_" + i));
        }
        calls.add(api("kernel_1"));  // again, after the cache started over
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (EventJsonlWriter w = new EventJsonlWriter(bytes)) {
            for (ApiCall c : calls) {
                w.write(c);
            }
        }
        List<Object> read = new ArrayList<>();
        new EventJsonlReader().read(new BufferedReader(new StringReader(bytes.toString(StandardCharsets.UTF_8))),
                collector(read, new ArrayList<>()));
        assertThat(read).containsExactlyElementsOf(calls);
    }

    private static ApiCall api(String name) {
        return new ApiCall(name, 1, 2, 3, 4, 5, 0, Map.of(), ClockDomain.HOST_MONOTONIC);
    }

    @Test
    void aTruncatedLastLineIsReportedAndTheRestIsKept() throws Exception {
        String good = "{\"type\":\"stream\",\"id\":5,\"device\":0,\"priority\":0,\"flags\":0}";
        String text = good + "\n" + good + "\n{\"type\":\"activity\",\"kind\":\"KER";
        List<Object> read = new ArrayList<>();
        List<String> bad = new ArrayList<>();
        long n = new EventJsonlReader().read(new BufferedReader(new StringReader(text)), collector(read, bad));
        assertThat(n).isEqualTo(2);
        assertThat(bad).singleElement().asString().startsWith("3:");
    }

    private static EventJsonlReader.Sink collector(List<Object> into, List<String> bad) {
        return new EventJsonlReader.Sink() {
            public void activity(DeviceActivity a) { into.add(a); }
            public void api(ApiCall c) { into.add(c); }
            public void stream(StreamInfo s) { into.add(s); }
            public void marker(Marker m) { into.add(m); }
            public void dependency(Dependency d) { into.add(d); }
            public void anchor(ClockAnchor a) { into.add(a); }
            public void malformed(long line, String reason) { bad.add(line + ": " + reason); }
        };
    }
}
