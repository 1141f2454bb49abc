package dev.aorta.agent.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/** Work the device did (CUPTI): kernel, copy, memset, with device timestamps. */
@Name("aorta.DeviceActivity")
@Label("Device Activity")
@Category("aorta")
@Description("Work the device did (CUPTI): kernel, copy, memset, with device timestamps.")
@StackTrace(false)
public final class DeviceActivityEvent extends jdk.jfr.Event {
    @Label("Kind")
    public String kind;
    @Label("Name")
    public String name;
    @Label("Stream")
    public long stream;
    @Label("Device")
    public int device;
    @Label("Device Start") @Description("device start in the clock named by Clock (e.g. cupti)")
    public long deviceStartNanos;
    @Label("Device Duration") @Timespan(Timespan.NANOSECONDS)
    public long deviceDuration;
    @Label("Clock")
    public String clock;
    @Label("Correlation Id")
    public long correlationId;
    @Label("Bytes") @jdk.jfr.DataAmount
    public long bytes;
}
