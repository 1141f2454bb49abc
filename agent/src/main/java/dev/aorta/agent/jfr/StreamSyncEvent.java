package dev.aorta.agent.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** A host wait for the device: stream, context or event synchronize. */
@Name("aorta.StreamSync")
@Label("Stream Synchronize")
@Category("aorta")
@Description("A host wait for the device: stream, context or event synchronize.")
@StackTrace(false)
public final class StreamSyncEvent extends HostCallEvent {
}
