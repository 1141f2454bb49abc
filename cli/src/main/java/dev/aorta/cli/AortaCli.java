package dev.aorta.cli;

import dev.aorta.launch.LauncherWatch;
import dev.aorta.workloads.session.GpuSessionFactory;
import dev.aorta.workloads.session.GpuSessions;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.util.Arrays;
import java.util.List;

/** Entry point of the {@code aorta} command: one subcommand per job. */
@Command(name = "aorta", mixinStandardHelpOptions = true, versionProvider = AortaCli.Version.class,
        description = "GPU performance toolkit for the JVM.")
public final class AortaCli {
    /** Every subcommand, in the order {@code aorta --help} lists them. */
    static final List<Class<?>> SUBCOMMANDS = List.of(InfoCommand.class, CheckCommand.class, ListCommand.class,
            RunCommand.class, SweepCommand.class, RunPriorityCommand.class, CompareCommand.class,
            LaunchOverheadCommand.class, OverheadCommand.class, AnalyzeCommand.class, ReportCommand.class,
            MergeCommand.class, DiffCommand.class, AttachCommand.class, CaptureCommand.class, DetachCommand.class,
            OverlapCommand.class, LaunchCommand.class, LaunchProbeCommand.class, ProfileCommand.class,
            TrainCommand.class);

    public static void main(String[] args) {
        LauncherWatch.startIfLaunched();
        ClassPathJars.openInBackground();
        System.exit(run(args));
    }

    /** Runs the CLI and returns its exit code (for tests). */
    public static int run(String... args) {
        return run(GpuSessions::open, args);
    }

    /** Runs the CLI with GPU sessions from {@code gpu} (tests pass a test double). */
    public static int run(GpuSessionFactory gpu, String... args) {
        // analyze's plain arguments skip picocli's model, whose annotation proxies were a fifth of a short run
        AnalyzeCommand plain = args.length > 0 && args[0].equals("analyze")
                ? PlainAnalyzeArguments.parse(Arrays.asList(args).subList(1, args.length)) : null;
        CommandLine cli = plain == null ? commandLine(gpu, args) : null;
        if (cli != null) {
            cli.setExecutionExceptionHandler(new ErrorHandler());
        }
        // every command finds workloads, readers and analyses in the context class loader: plugins included
        ClassLoader plugins = PluginFolders.of(System.getProperty("aorta.home"), System.getenv(PluginFolders.ENV))
                .loader(AortaCli.class.getClassLoader(), problem -> System.err.println("aorta: warning: " + problem));
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(plugins);
        try {
            return cli != null ? cli.execute(args) : runPlain(plain, gpu, args);
        } catch (OutOfMemoryError | StackOverflowError e) {
            // picocli hands only Exceptions to the ErrorHandler; by now the unwound stack has freed the memory
            System.err.println("aorta: " + ErrorHandler.resourceSentence(e));
            if (Arrays.asList(args).contains("--verbose") || "1".equals(System.getenv("AORTA_VERBOSE"))) {
                e.printStackTrace();
            }
            return 2;
        } finally {
            thread.setContextClassLoader(previous);
            closePlugins(plugins);
        }
    }

    /**
     * Runs {@code analyze} parsed by {@link PlainAnalyzeArguments}, as {@link CommandLine#execute} would have run it:
     * the exit code its {@code call()} returns, or an exception escaping it handed to the {@link ErrorHandler} with
     * picocli's model of the same arguments, built then (it names the option a failing file belongs to).
     */
    private static int runPlain(AnalyzeCommand command, GpuSessionFactory gpu, String... args) {
        try {
            return command.call();
        } catch (Exception e) {
            CommandLine cli = commandLine(gpu, args);
            CommandLine.ParseResult parsed = cli.parseArgs(args);
            return new ErrorHandler().handleExecutionException(e, parsed.subcommand().commandSpec().commandLine(), parsed);
        }
    }

    /**
     * The command line for {@code args}: when they name a subcommand, only that one is modelled, since picocli reads
     * every option of every subcommand it is given by reflection at each start ({@code aorta analyze --help} took
     * 0.51 s with all of them, 0.45 s with one). Without a subcommand name (help, version, a typo that picocli
     * suggests a name for) all of them are.
     */
    static CommandLine commandLine(GpuSessionFactory gpu, String... args) {
        // picocli's default factory looks for Groovy's Closure class when it is first used, which no command needs:
        // a class found in no jar makes the class loader open and index every jar on the class path, here on the
        // main thread while it builds the command line (ClassPathJars does that beside it)
        System.setProperty("picocli.disable.closures", "true");
        CommandLine cli = new CommandLine(new AortaCli(), new CommandFactory(gpu));
        String named = Arrays.stream(args).filter(a -> !a.startsWith("-")).findFirst().orElse(null);
        List<Class<?>> one = SUBCOMMANDS.stream().filter(c -> isNamed(c, named)).toList();
        (one.isEmpty() ? SUBCOMMANDS : one).forEach(cli::addSubcommand);
        return cli;
    }

    private static boolean isNamed(Class<?> subcommand, String name) {
        Command command = subcommand.getAnnotation(Command.class);
        return command.name().equals(name) || Arrays.asList(command.aliases()).contains(name);
    }

    /** Releases the plugin jars (tests delete them); the commands are done with their classes. */
    private static void closePlugins(ClassLoader plugins) {
        if (plugins instanceof java.io.Closeable closeable) {
            try {
                closeable.close();
            } catch (java.io.IOException e) {
                System.err.println("aorta: warning: could not close the plugin jars (" + e.getMessage() + ")");
            }
        }
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = AortaCli.class.getPackage().getImplementationVersion();
            return new String[] {"aorta " + (v == null ? "development build" : v)};
        }
    }
}
