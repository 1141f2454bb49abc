package dev.aorta.agent;

import dev.aorta.agent.capture.RecordingAdvice;
import net.bytebuddy.agent.builder.AgentBuilder;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.IllegalClassFormatException;
import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The recording advice, woven in and taken out by retransformation. Its transformer weaves only while the advice is
 * on, so a class loaded while it is off loads as the library wrote it; turning it on or off retransforms the classes of
 * its types loaded so far, and the JVM gives each its original bytes, which come back with the advice or unchanged.
 * The JIT drops the compiled code that inlined the old methods and compiles the new.
 *
 * <p>A class's woven bytes are made once and kept: weaving again returns them. ByteBuddy's weaving of JCuda's
 * {@code JCudaDriver} (hundreds of methods) made tens of MB of garbage each time, and 300 weaves and unweaves in one
 * run grew an H100 host's process to 1.1 GB against 350 MB with the advice left woven.
 */
final class RetransformingAdvice implements RecordingAdvice {
    private final Instrumentation inst;
    private final Set<String> types = ConcurrentHashMap.newKeySet();
    private final Map<ClassLoader, Map<String, Woven>> woven = new WeakHashMap<>();
    private volatile boolean on;

    /** A class's original bytes (by length and hash) and what weaving made of them. */
    private record Woven(int length, int hash, byte[] bytes) {
        boolean of(byte[] original) {
            return original.length == length && Arrays.hashCode(original) == hash;
        }
    }

    RetransformingAdvice(Instrumentation inst, boolean on) {
        this.inst = inst;
        this.on = on;
    }

    /** Matches the type named; the recording builder's types are the ones this weaves in and takes out. */
    AgentBuilder.RawMatcher matching(String typeName) {
        types.add(typeName);
        return (type, loader, module, redefined, domain) -> type.getName().equals(typeName);
    }

    /** Registers the recording builder's transformer, behind this one's switch and cache; weaves loaded classes if on. */
    void install(AgentBuilder recording) {
        ClassFileTransformer weaver = recording.makeRaw();
        inst.addTransformer(new ClassFileTransformer() {
            @Override
            public byte[] transform(Module module, ClassLoader loader, String className, Class<?> redefined,
                                    ProtectionDomain domain, byte[] original) throws IllegalClassFormatException {
                if (!on || className == null || loader == null || !types.contains(className.replace('/', '.'))) {
                    return null;
                }
                Woven known = known(loader, className);
                if (known != null && known.of(original)) {
                    return known.bytes();
                }
                byte[] bytes = weaver.transform(module, loader, className, redefined, domain, original);
                if (bytes != null) {
                    remember(loader, className, new Woven(original.length, Arrays.hashCode(original), bytes));
                }
                return bytes;
            }
        }, true);
        if (on) {
            retransformLoaded(true);   // attached late: the classes already loaded get the advice now
        }
    }

    private synchronized Woven known(ClassLoader loader, String className) {
        Map<String, Woven> byName = woven.get(loader);
        return byName == null ? null : byName.get(className);
    }

    private synchronized void remember(ClassLoader loader, String className, Woven w) {
        woven.computeIfAbsent(loader, l -> new HashMap<>()).put(className, w);
    }

    @Override
    public synchronized void setWoven(boolean wanted) {
        if (wanted == on) {
            return;
        }
        on = wanted;
        retransformLoaded(wanted);
    }

    private void retransformLoaded(boolean weaving) {
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
            AgentLog.debug(String.format(Locale.ROOT, "recording advice %s %d classes in %.1f ms (metaspace %.1f MB,"
                            + " code cache %.1f MB in use)", weaving ? "woven into" : "taken out of", loaded.size(),
                    (System.nanoTime() - t0) / 1e6, used("Metaspace") / 1e6, used("CodeHeap") / 1e6));
        } catch (UnmodifiableClassException | RuntimeException | LinkageError e) {
            AgentLog.error("the recording advice could not be " + (weaving ? "woven into " : "taken out of ") + loaded
                    + " (" + e + ")" + (weaving ? "; their calls are not recorded in this window" : "; it stays, gated"));
        }
    }

    /** Bytes in use in the memory pools whose names start with {@code prefix}. */
    private static long used(String prefix) {
        long sum = 0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getName().startsWith(prefix)) {
                sum += p.getUsage().getUsed();
            }
        }
        return sum;
    }
}
