package dev.aorta.core.jsonl;

/**
 * The agent's {@code rank_<r>_activity.jsonl} schema: one JSON object per line, its kind in {@code "type"}.
 * Written by {@link EventJsonlWriter}, read by {@link EventJsonlReader}; times are integer nanoseconds
 * in the clock named by {@code "clock"}.
 *
 * <pre>
 * {"type":"activity","kind":"KERNEL","name":..,"rank":0,"device":0,"stream":..,"start":..,"end":..,
 *  "correlation":..,"queued":..,"submitted":..,"grid":[x,y,z],"block":[x,y,z],"bytes":..,"clock":"cupti"}
 * {"type":"api","name":"cuLaunchKernel","thread":..,"stream":..,"start":..,"end":..,"correlation":..,
 *  "result":0,"args":{..},"window":2,"clock":"host-monotonic"}     (window: the agent's capture window, if any)
 * {"type":"stream","id":..,"device":0,"priority":-1,"flags":1,"role":"comm"}
 * {"type":"marker","kind":"ITERATION","name":"step","rank":0,"step":3,"start":..,"end":..,"clock":..}
 * {"type":"marker","kind":"CAPTURE","name":"capture 2","rank":0,"step":2,"start":..,"end":..,"clock":..}  (step: window index)
 * {"type":"dependency","event":..,"record_stream":..,"record":..,"wait_stream":..,"wait":..,"clock":..}
 * {"type":"anchor","from":"cupti","from_ns":..,"to":"host-monotonic","to_ns":..}
 * </pre>
 */
public final class EventJsonl {
    public static final String TYPE = "type";

    private EventJsonl() {
    }
}
