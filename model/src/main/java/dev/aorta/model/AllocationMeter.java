package dev.aorta.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the layers of an {@link OpContext#meta} context asked to allocate, request by request, in the bytes the
 * device's allocator would have handed out ({@link Tensor#empty}'s). Lets a test hold a formula for the memory a
 * model needs against the model's own allocation code, without a GPU. Requests are counted as made: meta tensors
 * are never given back, so this is what a model holds once everything it allocates exists.
 */
public final class AllocationMeter {
    /** One allocation: the op that asked (the owner the allocator's statistics name), what for, its bytes. */
    public record Request(String op, String what, DType dtype, long bytes) {
    }

    private final List<Request> requests = new ArrayList<>();

    void record(String op, String what, DType dtype, int[] shape) {
        requests.add(new Request(op, what, dtype, Tensor.allocationBytes(dtype, shape)));
    }

    /** Every request so far, in order. */
    public List<Request> requests() {
        return List.copyOf(requests);
    }

    /** How many requests so far: a mark to take {@link #since} from. */
    public int mark() {
        return requests.size();
    }

    /** The requests made after {@code mark}. */
    public List<Request> since(int mark) {
        return List.copyOf(requests.subList(mark, requests.size()));
    }

    /** Bytes by owning op, in the order the owners first asked. */
    public static Map<String, Long> byOwner(List<Request> requests) {
        Map<String, Long> m = new LinkedHashMap<>();
        for (Request r : requests) {
            m.merge(r.op(), r.bytes(), Long::sum);
        }
        return m;
    }

    public static long total(List<Request> requests) {
        return requests.stream().mapToLong(Request::bytes).sum();
    }
}
