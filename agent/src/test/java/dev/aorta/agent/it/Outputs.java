package dev.aorta.agent.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Marker;
import dev.aorta.core.event.StreamInfo;
import dev.aorta.core.jsonl.EventJsonlReader;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** What the agent wrote for one rank, read back with the project's own reader. */
final class Outputs {
    final List<ApiCall> calls = new ArrayList<>();
    final List<StreamInfo> streams = new ArrayList<>();
    final List<Dependency> dependencies = new ArrayList<>();
    final List<Marker> markers = new ArrayList<>();
    final List<DeviceActivity> activities = new ArrayList<>();
    final List<ClockAnchor> anchors = new ArrayList<>();
    final List<String> malformed = new ArrayList<>();
    final List<JsonNode> metrics = new ArrayList<>();

    static Outputs read(Path dir, int rank) throws IOException {
        Outputs o = new Outputs();
        try (BufferedReader in = Files.newBufferedReader(dir.resolve("rank_" + rank + "_activity.jsonl"))) {
            new EventJsonlReader().read(in, new EventJsonlReader.Sink() {
                @Override
                public void api(ApiCall c) {
                    o.calls.add(c);
                }

                @Override
                public void stream(StreamInfo s) {
                    o.streams.add(s);
                }

                @Override
                public void dependency(Dependency d) {
                    o.dependencies.add(d);
                }

                @Override
                public void marker(Marker m) {
                    o.markers.add(m);
                }

                @Override
                public void activity(DeviceActivity a) {
                    o.activities.add(a);
                }

                @Override
                public void anchor(ClockAnchor a) {
                    o.anchors.add(a);
                }

                @Override
                public void malformed(long line, String reason) {
                    o.malformed.add(line + ": " + reason);
                }
            });
        }
        Path metrics = dir.resolve("rank_" + rank + "_metrics.jsonl");
        if (Files.exists(metrics)) {
            ObjectMapper json = new ObjectMapper();
            for (String line : Files.readAllLines(metrics)) {
                o.metrics.add(json.readTree(line));
            }
        }
        return o;
    }

    List<ApiCall> calls(String name) {
        return calls.stream().filter(c -> c.name().equals(name)).toList();
    }

    ApiCall call(String name) {
        return calls.stream().filter(c -> c.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + name + " call among " + calls.stream().map(ApiCall::name).distinct().toList()));
    }
}
