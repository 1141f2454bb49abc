package dev.aorta.agent.recorder;

import dev.aorta.agent.spi.Interception;

import java.util.ArrayList;
import java.util.List;

/**
 * Interceptions by the small integer id that advice records instead of a name, so that the hot path
 * stores a constant int and the drain thread looks up what it means.
 */
public final class CallTable {
    private static final List<Interception> BY_ID = new ArrayList<>();

    private CallTable() {
    }

    public static synchronized int register(Interception i) {
        for (int id = 0; id < BY_ID.size(); id++) {
            Interception known = BY_ID.get(id);
            if (known.type().equals(i.type()) && known.method().equals(i.method()) && known.arity() == i.arity()) {
                return id;
            }
        }
        BY_ID.add(i);
        return BY_ID.size() - 1;
    }

    public static synchronized Interception get(int id) {
        return id >= 0 && id < BY_ID.size() ? BY_ID.get(id) : null;
    }
}
