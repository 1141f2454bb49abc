package dev.aorta.agent;

import dev.aorta.agent.advice.CallId;
import dev.aorta.agent.bind.BinderListener;
import dev.aorta.agent.bind.CollectiveBinder;
import dev.aorta.agent.jcuda.JCudaNatives;
import dev.aorta.agent.bind.OwnStreams;
import dev.aorta.agent.capture.CaptureControl;
import dev.aorta.agent.capture.CaptureSchedule;
import dev.aorta.agent.capture.CaptureWindows;
import dev.aorta.agent.clock.ClockAnchors;
import dev.aorta.agent.config.AgentOptions;
import dev.aorta.agent.config.OptionsException;
import dev.aorta.agent.device.CuptiLoader;
import dev.aorta.agent.device.DeviceActivitySource;
import dev.aorta.agent.device.BothSources;
import dev.aorta.agent.device.EventPairSampler;
import dev.aorta.agent.pipeline.Drainer;
import dev.aorta.agent.pipeline.Pipeline;
import dev.aorta.agent.pipeline.SampledKernelComparison;
import dev.aorta.agent.pipeline.WindowRecords;
import dev.aorta.agent.plugins.IterationMarkerPlugin;
import dev.aorta.agent.recorder.CallTable;
import dev.aorta.agent.jcuda.NativeAddress;
import dev.aorta.agent.recorder.HostClock;
import dev.aorta.agent.recorder.OsThreadIds;
import dev.aorta.agent.recorder.Recorder;
import dev.aorta.agent.spi.Interception;
import dev.aorta.agent.spi.InterceptionPlugin;
import dev.aorta.core.event.ApiCall;
import dev.aorta.core.event.ClockAnchor;
import dev.aorta.core.event.ClockDomain;
import dev.aorta.core.event.DeviceActivity;
import dev.aorta.core.event.Dependency;
import dev.aorta.core.event.StreamInfo;
import dev.aorta.core.spi.ServiceProviders;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.Nexus;
import net.bytebuddy.implementation.SuperMethodCall;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.utility.JavaModule;

import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import static net.bytebuddy.matcher.ElementMatchers.isNative;
import static net.bytebuddy.matcher.ElementMatchers.isSynthetic;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

/** Reads the options, starts the pipeline and the device source, and weaves every plugin's advice. */
public final class AgentInstaller {
    private static final AtomicBoolean STARTED = new AtomicBoolean();
    /** Where a started agent writes, for a second attach's message and for {@code aorta attach} to read. */
    public static final String OUTPUT_PROPERTY = "aorta.agent.output";
    /** The running agent's drain thread, for commands. */
    private static volatile Drainer drainer;
    static final String NATIVE_PREFIX = "aorta$";

    private AgentInstaller() {
    }

    static void install(String args, Instrumentation inst, boolean lateAttach) {
        if (AgentOptions.HELP.equals(args == null ? "" : args.trim())) {
            AgentLog.info("agent not started; its options (key=value after -javaagent:aorta-agent.jar=, separated by ','),"
                    + " with their defaults:\n" + AgentOptions.describe());
            return;
        }
        if (AgentCommand.isCommand(args)) {
            if (!STARTED.get()) {
                throw new IllegalStateException("no aorta agent is running in this JVM; attach it first (aorta attach)");
            }
            AgentCommand.run(args, drainer);
            return;
        }
        AgentOptions options;
        try {
            options = AgentOptions.resolve(args, System.getenv());
        } catch (OptionsException e) {
            // one line, so that it stands out in the application's own output; the table is one option away
            AgentLog.error(e.getMessage() + "; agent not started, the application runs unprofiled (all options:"
                    + " docs/agent.md, or -javaagent:aorta-agent.jar=" + AgentOptions.HELP + ")");
            if (lateAttach) {
                throw e;
            }
            return;
        }
        if (!STARTED.compareAndSet(false, true)) {
            String where = System.getProperty(OUTPUT_PROPERTY, "?");
            if (lateAttach) {
                String refusal = "the aorta agent is already attached to this JVM, writing to " + where
                        + "; use aorta detach to stop it, or aorta capture to open a window";
                AgentLog.info(refusal);
                throw new IllegalStateException(refusal);
            }
            AgentLog.info("agent already active in this JVM (writing to " + where + "); ignoring the second start ("
                    + options + ")");
            return;
        }
        for (String unknown : AgentOptions.unknownVariables(System.getenv())) {
            AgentLog.error("environment variable " + unknown + " is not an agent option, so it is ignored; the agent's"
                    + " variables: " + AgentOptions.variableNames());
        }
        AgentLog.setVerbose(options.verbose());
        HostClock.Selection.request(options.clock());
        Recorder.configure(options.bufferRecords());
        Pipeline pipeline = Pipeline.start(options, System.getenv());
        Drainer drainer = pipeline.drainer();
        AgentInstaller.drainer = drainer;
        drainer.deviceSource(startDeviceSource(options, drainer, pipeline));
        startCapture(options, drainer, pipeline.rank());

        PluginFolder.install(PluginFolder.ofThisAgent(), inst);
        List<InterceptionPlugin> plugins = new ArrayList<>(ServiceProviders.load(InterceptionPlugin.class,
                AgentInstaller.class.getClassLoader(), AgentLog::error));
        plugins.add(new IterationMarkerPlugin(options.iterationMethod()));
        if (options.bindCollectives()) {
            installBinder(options, drainer);
        }
        weave(plugins, options, inst, lateAttach);
    }

    /**
     * The capture windows, the anchors taken now (every window adds its own) and the JMX control. After the device
     * source, which a schedule then pauses until its first window.
     */
    private static void startCapture(AgentOptions options, Drainer drainer, int rank) {
        ClockAnchors clocks = ClockAnchors.open();
        clocks.take().forEach(drainer::submit);
        if (clocks.bootTimeMissing() != null) {
            AgentLog.debug("no CLOCK_BOOTTIME anchors (" + clocks.bootTimeMissing() + "); rocprofv3 traces of this run"
                    + " cannot be placed beside its records");
        }
        CaptureSchedule schedule = options.captureSchedule();
        CaptureWindows windows = new CaptureWindows(schedule, options.betweenWindows(),
                new WindowRecords(drainer, clocks, rank), System.nanoTime(),
                HostClock::ticks, !HostClock.usesTsc());
        CaptureWindows.current = windows;
        String output = options.output().toAbsolutePath().toString();
        System.setProperty(OUTPUT_PROPERTY, output);
        if (schedule.kind() != CaptureSchedule.Kind.ALWAYS) {
            AgentLog.info("capture windows: " + schedule + "; between windows: "
                    + options.betweenWindows().name().toLowerCase(java.util.Locale.ROOT));
        }
        try {
            new CaptureControl(windows, output).register();
        } catch (Exception | LinkageError e) {
            AgentLog.error("JMX control " + CaptureControl.NAME + " not registered (" + e + "); aorta capture still works");
        }
    }

    private static DeviceActivitySource startDeviceSource(AgentOptions options, Drainer drainer, Pipeline pipeline) {
        int rank = pipeline.rank();
        AgentOptions.DeviceSource mode = options.deviceSource();
        if (mode == AgentOptions.DeviceSource.NONE) {
            AgentLog.info("device activity: none (device-activity=none); host-side API timing only");
            return DeviceActivitySource.NONE;
        }
        String whyNotCupti = "device-activity=events";
        if (mode != AgentOptions.DeviceSource.EVENTS) {
            CuptiLoader.Started cupti = CuptiLoader.tryStart(rank, options.correlate(), new CuptiLoader.Sink() {
                @Override
                public void activity(DeviceActivity activity) {
                    drainer.submitDeviceRecord(activity);
                }

                @Override
                public void driverCall(ApiCall call) {
                    drainer.submitDeviceRecord(new Drainer.DriverCall(call));
                }

                @Override
                public void anchor(ClockAnchor anchor) {
                    drainer.submit(anchor);
                }

                @Override
                public void subscribing(long hostNs) {
                    drainer.cuptiCoverage().subscribing(hostNs);
                }

                @Override
                public void unsubscribing(long hostNs) {
                    drainer.cuptiCoverage().unsubscribing(hostNs);
                }

                @Override
                public void stopped(long hostNs) {
                    drainer.deviceActivityStopped(hostNs);
                }
            });
            if (cupti.source() != null) {
                OsThreadIds.enable();   // the join pairs each thread with CUPTI's by its ids
            }
            if (cupti.source() != null && mode == AgentOptions.DeviceSource.VALIDATE) {
                return validating(cupti.source(), options, rank, pipeline.comparison());
            }
            if (cupti.source() != null) {
                return cupti.source();
            }
            whyNotCupti = cupti.whyNot();
            if (mode == AgentOptions.DeviceSource.VALIDATE) {
                AgentLog.error("device-activity=validate needs CUPTI (" + whyNotCupti + "), so nothing can be compared;"
                        + " device activity: none");
                return DeviceActivitySource.NONE;
            }
            if (mode == AgentOptions.DeviceSource.CUPTI) {
                AgentLog.info("device activity: none (" + whyNotCupti + "; device-activity=cupti); host-side API timing only");
                return DeviceActivitySource.NONE;
            }
        }
        if (ClassLoader.getSystemResource("jcuda/driver/JCudaDriver.class") == null) {
            AgentLog.info("device activity: none (" + whyNotCupti + "; sampled event pairs need JCuda, which is not"
                    + " on the class path); host-side API timing only");
            return DeviceActivitySource.NONE;
        }
        AgentLog.info("device activity: sampled event pairs around every " + options.sampleEvery()
                + "th kernel launch (" + whyNotCupti + ")");
        return EventPairSampler.install(options.sampleEvery(), rank, drainer::submit);
    }

    /** CUPTI for the records, plus event pairs whose samples only go to the comparison with CUPTI's. */
    private static DeviceActivitySource validating(DeviceActivitySource cupti, AgentOptions options, int rank,
                                                   SampledKernelComparison comparison) {
        if (ClassLoader.getSystemResource("jcuda/driver/JCudaDriver.class") == null) {
            AgentLog.error("device-activity=validate: sampled event pairs need JCuda, which is not on the class path;"
                    + " CUPTI alone, nothing to compare");
            return cupti;
        }
        AgentLog.info("device activity: CUPTI, and sampled event pairs around every " + options.sampleEvery()
                + "th kernel launch of each stream compared with it (device-activity=validate; the comparison is"
                + " logged at exit)");
        return new BothSources(cupti, EventPairSampler.install(options.sampleEvery(), rank, comparison::sample));
    }

    private static void installBinder(AgentOptions options, Drainer drainer) {
        BinderListener listener = new BinderListener() {
            @Override
            public void commStreamCreated(long stream, int device, int priority, int flags) {
                drainer.submit(new StreamInfo(stream, device, priority, flags, "comm"));
            }

            @Override
            public void dependencyAdded(long event, long recordStream, long waitStream, long atNs) {
                drainer.submit(new Dependency(event, recordStream, atNs, waitStream, atNs, ClockDomain.HOST_MONOTONIC));
            }
        };
        try {
            CollectiveBinder.install(new JCudaNatives(), options.join(), options.commStreamPriority(), listener);
            AgentLog.info("bind-collectives: collectives move to a comm stream per device (priority "
                    + options.commStreamPriority() + ", join " + options.join().option() + ")");
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            // JavaCPP's cudart can drive the streams instead: its first collective supplies them
            CollectiveBinder.awaitOps(options.join(), options.commStreamPriority(), listener);
            AgentLog.info("bind-collectives: JCuda's driver API is not on the class path (" + e + "); aorta-gpu and"
                    + " JCuda collectives stay on the application's streams, JavaCPP NCCL collectives are bound through"
                    + " JavaCPP's cudart (with the javacpp-cuda plugin)");
        }
    }

    private static void weave(List<InterceptionPlugin> plugins, AgentOptions options, Instrumentation inst,
                              boolean lateAttach) {
        // advice is inlined, so no initializer needs injecting; without this, building the AgentBuilder
        // touches sun.misc.Unsafe and JDK 24+ prints warnings into the application's stderr
        System.setProperty(Nexus.PROPERTY, "true");
        AgentBuilder builder = adviceOnly();
        // the recording advice in a transformer of its own, so that between-windows=off can take it out between
        // windows while the iteration markers, which drive the schedule, and cuCtxDestroy's advice stay
        AgentBuilder recordingBuilder = adviceOnly();
        CaptureWindows windows = CaptureWindows.current;
        boolean unweave = windows.unweavesBetweenWindows() && !options.bindCollectives();
        RetransformingAdvice recording = new RetransformingAdvice(inst, !unweave);
        if (windows.unweavesBetweenWindows() && options.bindCollectives()) {
            AgentLog.info("between-windows=off with bind-collectives: the advice stays woven between windows (it binds"
                    + " collectives) and records nothing there");
        }
        List<String> present = new ArrayList<>();
        List<String> absent = new ArrayList<>();
        // native methods (JavaCPP) are wrapped under a prefixed name: a class format change, so only at load time
        AgentBuilder nativeBuilder = new AgentBuilder.Default()
                .enableNativeMethodPrefix(NATIVE_PREFIX)
                .with(AgentBuilder.InitializationStrategy.NoOp.INSTANCE)
                .with(AgentBuilder.RedefinitionStrategy.DISABLED)
                .with(new ErrorListener())
                .ignore(nameStartsWith("dev.aorta.agent.").or(isSynthetic()));
        boolean anyNative = false;
        boolean everything = options.bindCollectives();
        for (InterceptionPlugin plugin : plugins) {
            Map<String, List<Interception>> byType = new LinkedHashMap<>();
            for (Interception i : plugin.interceptions()) {
                // with bind-collectives every sync is a possible join point, recorded or not
                if (everything || i.kind().alwaysWoven() || options.categories().contains(i.kind().category())) {
                    byType.computeIfAbsent(i.type(), t -> new ArrayList<>()).add(i);
                }
            }
            boolean found = ClassLoader.getSystemResource(plugin.probeClass().replace('.', '/') + ".class") != null;
            (found ? present : absent).add(plugin.name());
            if (plugin.needsLoadTimeTransformation()) {
                if (lateAttach || !inst.isNativeMethodPrefixSupported()) {
                    if (found) {
                        AgentLog.info(plugin.name() + ": its native methods can only be wrapped as their classes first load"
                                + " (start the application with -javaagent); not instrumented now");
                    }
                    continue;
                }
                for (Map.Entry<String, List<Interception>> e : byType.entrySet()) {
                    nativeBuilder = nativeBuilder.type(named(e.getKey())).transform(new NativeWrapper(plugin, e.getValue()));
                    anyNative = true;
                }
                continue;
            }
            for (Map.Entry<String, List<Interception>> e : byType.entrySet()) {
                List<Interception> always = e.getValue().stream().filter(i -> i.kind().alwaysWoven()).toList();
                List<Interception> calls = e.getValue().stream().filter(i -> !i.kind().alwaysWoven()).toList();
                if (!always.isEmpty()) {
                    builder = builder.type(named(e.getKey())).transform(new PluginTransformer(plugin, always));
                }
                if (!calls.isEmpty()) {
                    recordingBuilder = recordingBuilder.type(recording.matching(e.getKey()))
                            .transform(new PluginTransformer(plugin, calls));
                }
            }
        }
        builder.installOn(inst);
        recording.install(recordingBuilder);
        if (anyNative) {
            nativeBuilder.installOn(inst);
        }
        if (unweave) {
            windows.weaveOnlyInWindows(recording, options.unweaveGapNs());
        }
        AgentLog.info("agent " + version() + " active (" + options + "); host clock: " + HostClock.description()
                + "; libraries found: "
                + (present.isEmpty() ? "none" : String.join(", ", present))
                + (absent.isEmpty() ? "" : "; not on the class path (idle): " + String.join(", ", absent)));
    }

    /** A builder whose transformations only inline advice, so that loaded classes can be retransformed. */
    private static AgentBuilder adviceOnly() {
        return new AgentBuilder.Default()
                .disableClassFormatChanges()
                .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
                .with(new ErrorListener())
                .ignore(nameStartsWith("dev.aorta.agent.").or(isSynthetic()));
    }

    private static String version() {
        String v = AgentInstaller.class.getPackage().getImplementationVersion();
        return v == null ? "(development build)" : v;
    }

    /** Weaves one plugin's advice into one type, after checking that the type is a version the plugin knows. */
    private static final class PluginTransformer implements AgentBuilder.Transformer {
        private final InterceptionPlugin plugin;
        private final List<Interception> interceptions;

        PluginTransformer(InterceptionPlugin plugin, List<Interception> interceptions) {
            this.plugin = plugin;
            this.interceptions = interceptions;
        }

        @Override
        public DynamicType.Builder<?> transform(DynamicType.Builder<?> builder, TypeDescription type,
                                                ClassLoader loader, JavaModule module,
                                                java.security.ProtectionDomain domain) {
            List<String> missing = missing(type);
            if (!missing.isEmpty()) {
                AgentLog.once("unsupported-" + type.getName(), plugin.name() + ": unsupported version of " + type.getName()
                        + " (missing " + String.join(", ", missing) + "); left uninstrumented");
                return builder;
            }
            if (type.getName().startsWith("jcuda.")) {
                NativeAddress.jcudaFoundIn(loader);
            } else if (type.getName().startsWith("dev.aorta.gpu.")) {
                OwnStreams.foundIn(loader);
            }
            int methods = 0;
            for (Interception i : interceptions) {
                int id = CallTable.register(i);
                ElementMatcher.Junction<MethodDescription> matcher = named(i.method());
                if (i.arity() >= 0) {
                    matcher = matcher.and(takesArguments(i.arity()));
                }
                methods += type.getDeclaredMethods().filter(matcher).size();
                builder = builder.visit(Advice.withCustomMapping().bind(CallId.class, id).to(i.advice()).on(matcher));
            }
            AgentLog.debug(plugin.name() + ": instrumented " + methods + " methods of " + type.getName());
            return builder;
        }

        private List<String> missing(TypeDescription type) {
            List<String> missing = new ArrayList<>();
            for (String r : plugin.requiredMethods()) {
                String[] nameArity = r.split("/");
                if (type.getDeclaredMethods().filter(named(nameArity[0])
                        .and(takesArguments(Integer.parseInt(nameArity[1])))).isEmpty()) {
                    missing.add(nameArity[0] + "(" + nameArity[1] + " args)");
                }
            }
            for (String f : plugin.requiredFields(type.getName())) {
                if (type.getDeclaredFields().filter(named(f)).isEmpty()) {
                    missing.add("field " + f);
                }
            }
            return missing;
        }

    }

    /**
     * Wraps native methods: the original becomes {@code aorta$name} (still native, bound by the JVM through
     * the registered prefix) and {@code name} becomes a Java method that runs the advice around a call to it.
     */
    private static final class NativeWrapper implements AgentBuilder.Transformer {
        private final InterceptionPlugin plugin;
        private final List<Interception> interceptions;

        NativeWrapper(InterceptionPlugin plugin, List<Interception> interceptions) {
            this.plugin = plugin;
            this.interceptions = interceptions;
        }

        @Override
        public DynamicType.Builder<?> transform(DynamicType.Builder<?> builder, TypeDescription type,
                                                ClassLoader loader, JavaModule module,
                                                java.security.ProtectionDomain domain) {
            int methods = 0;
            for (Interception i : interceptions) {
                ElementMatcher.Junction<MethodDescription> matcher = named(i.method()).and(isNative());
                if (i.arity() >= 0) {
                    matcher = matcher.and(takesArguments(i.arity()));
                }
                methods += type.getDeclaredMethods().filter(matcher).size();
                builder = builder.method(matcher).intercept(Advice.withCustomMapping()
                        .bind(CallId.class, CallTable.register(i)).to(i.advice()).wrap(SuperMethodCall.INSTANCE));
            }
            AgentLog.debug(plugin.name() + ": wrapped " + methods + " native methods of " + type.getName());
            return builder;
        }
    }

    /** A type that cannot be instrumented costs one line, and the application goes on. */
    private static final class ErrorListener extends AgentBuilder.Listener.Adapter {
        @Override
        public void onError(String typeName, ClassLoader loader, JavaModule module, boolean loaded, Throwable t) {
            AgentLog.once("error-" + typeName, "cannot instrument " + typeName + " (" + t + "); it runs unprofiled");
        }
    }
}
