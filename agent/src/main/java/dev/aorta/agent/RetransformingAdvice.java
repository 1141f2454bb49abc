package dev.aorta.agent;

import dev.aorta.agent.capture.RecordingAdvice;
import net.bytebuddy.agent.builder.AgentBuilder;

import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The recording advice woven in and taken out by retransformation. The recording transformer matches its types only
 * while the advice is on ({@link #matching}), so a class loaded while it is off loads as the library wrote it; turning
 * it on or off retransforms the classes of those types loaded so far, and the JVM gives each its original bytes with
 * the advice applied or not. The JIT drops the compiled code that inlined the old methods and compiles the new.
 */
final class RetransformingAdvice implements RecordingAdvice {
    private final Instrumentation inst;
    private final Set<String> types = ConcurrentHashMap.newKeySet();
    private volatile boolean woven;

    RetransformingAdvice(Instrumentation inst, boolean woven) {
        this.inst = inst;
        this.woven = woven;
    }

    /** Matches the type named while the advice is woven. */
    AgentBuilder.RawMatcher matching(String typeName) {
        types.add(typeName);
        return (type, loader, module, redefined, domain) -> woven && type.getName().equals(typeName);
    }

    @Override
    public synchronized void setWoven(boolean on) {
        if (on == woven) {
            return;
        }
        woven = on;
        long t0 = System.nanoTime();
        List<Class<?>> loaded = new ArrayList<>();
        for (Class<?> c : inst.getAllLoadedClasses()) {
            if (types.contains(c.getName()) && inst.isModifiableClass(c)) {
                loaded.add(c);
            }
        }
        if (loaded.isEmpty()) {
            return;
        }
        try {
            inst.retransformClasses(loaded.toArray(new Class<?>[0]));
            AgentLog.debug(String.format(Locale.ROOT, "recording advice %s %d classes in %.1f ms",
                    on ? "woven into" : "taken out of", loaded.size(), (System.nanoTime() - t0) / 1e6));
        } catch (UnmodifiableClassException | RuntimeException | LinkageError e) {
            AgentLog.error("the recording advice could not be " + (on ? "woven into " : "taken out of ") + loaded
                    + " (" + e + ")" + (on ? "; their calls are not recorded in this window" : "; it stays, gated"));
        }
    }
}
