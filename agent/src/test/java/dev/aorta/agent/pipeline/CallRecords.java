package dev.aorta.agent.pipeline;

import dev.aorta.agent.spi.CallKind;
import dev.aorta.core.event.ApiCall;

import java.util.Map;

/** Decoded-call records made from the event model's calls, for tests that feed the pipeline by hand. */
final class CallRecords {
    private CallRecords() {
    }

    static CallRecord of(ApiCall c, CallKind kind) {
        CallRecord r = new CallRecord().reset(c.name(), kind, c.thread(), c.stream(), c.startNs(), c.endNs(),
                c.correlationId(), c.result());
        for (Map.Entry<String, Object> e : c.args().entrySet()) {
            if (e.getValue() instanceof Number n) {
                r.arg(e.getKey(), n.longValue());
            } else {
                r.arg(e.getKey(), String.valueOf(e.getValue()));
            }
        }
        return r;
    }
}
