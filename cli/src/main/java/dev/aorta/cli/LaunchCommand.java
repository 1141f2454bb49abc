package dev.aorta.cli;

import dev.aorta.launch.GpuCount;
import dev.aorta.launch.RankLauncher;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

@Command(name = "launch", mixinStandardHelpOptions = true,
        description = "Start N ranks of an aorta command on this node (one GPU each), like torchrun: "
                + "aorta launch --nproc-per-node 2 -- overlap --mode comms_only")
final class LaunchCommand implements Callable<Integer> {

    @Option(names = "--nproc-per-node", required = true, paramLabel = "N", description = "Ranks on this node (one GPU each).")
    int nprocPerNode;

    @Option(names = "--nnodes", defaultValue = "1", paramLabel = "M", description = "Nodes of the job (default: ${DEFAULT-VALUE}).")
    int nnodes;

    @Option(names = "--node-rank", defaultValue = "0", paramLabel = "R",
            description = "This node's index 0..M-1; node 0 runs rank 0 (default: ${DEFAULT-VALUE}).")
    int nodeRank;

    @Option(names = "--master-addr", defaultValue = "127.0.0.1", paramLabel = "A",
            description = "Address of node 0, where rank 0 serves the communicator id (default: ${DEFAULT-VALUE}).")
    String masterAddr;

    @Option(names = "--master-port", defaultValue = "29500", paramLabel = "P",
            description = "Port of that rendezvous (default: ${DEFAULT-VALUE}).")
    int masterPort;

    @Option(names = "--timeout", paramLabel = "SECONDS",
            description = "Stop every rank when the job runs longer (default: no limit).")
    Integer timeoutSeconds;

    @Option(names = "--no-gpu",
            description = "Start the ranks although fewer GPUs than ranks are visible: for commands that need no GPU "
                    + "(e.g. simulated ranks).")
    boolean noGpu;

    @Option(names = "--java-opts", paramLabel = "OPTS",
            description = "JVM options of the ranks only (e.g. -javaagent:dist/lib/aorta-agent.jar=output=DIR), "
                    + "not of the launcher itself.")
    String javaOpts;

    @Parameters(paramLabel = "COMMAND", arity = "1..*",
            description = "The aorta command every rank runs, after --, e.g. -- overlap --mode comms_only.")
    List<String> command = new ArrayList<>();

    @Override
    public Integer call() throws IOException {
        validate();
        if (nodeRank == 0) {
            requirePortFree(masterAddr, masterPort);
        }
        List<String> argv = new ArrayList<>(aortaCommand(javaOpts));
        argv.addAll(command);
        Map<String, String> extra = javaOpts == null ? Map.of() : Map.of("AORTA_JAVA_OPTS", javaOpts);
        RankLauncher launcher = new RankLauncher(new RankLauncher.Spec(nprocPerNode, nnodes, nodeRank, masterAddr,
                masterPort, timeoutSeconds == null ? null : Duration.ofSeconds(timeoutSeconds), argv, extra),
                System.out, System.err);
        Thread onSignal = new Thread(() -> {
            List<Integer> stopped = launcher.interrupt();
            if (!stopped.isEmpty()) {
                System.err.println("aorta launch: interrupted; stopped ranks " + stopped);
            }
        }, "aorta-launch-stop");
        Runtime.getRuntime().addShutdownHook(onSignal);
        try {
            return launcher.run();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(onSignal);
            } catch (IllegalStateException e) {
                // the JVM is already shutting down: the hook runs and stops the ranks
            }
        }
    }

    private void validate() {
        if (nprocPerNode < 1) {
            throw new IllegalArgumentException("--nproc-per-node must be 1 or more, got " + nprocPerNode);
        }
        if (nnodes < 1) {
            throw new IllegalArgumentException("--nnodes must be 1 or more, got " + nnodes);
        }
        if (nodeRank < 0 || nodeRank >= nnodes) {
            throw new IllegalArgumentException("--node-rank must be 0.." + (nnodes - 1) + " for --nnodes " + nnodes
                    + ", got " + nodeRank);
        }
        if (masterPort < 1 || masterPort > 65535) {
            throw new IllegalArgumentException("--master-port must be 1..65535, got " + masterPort);
        }
        if (timeoutSeconds != null && timeoutSeconds < 1) {
            throw new IllegalArgumentException("--timeout must be 1 second or more, got " + timeoutSeconds);
        }
        if (command.getFirst().equals("launch")) {
            throw new IllegalArgumentException("COMMAND: the ranks cannot run launch themselves");
        }
        if (!noGpu) {
            try {
                GpuCount.requireGpusForRanks(nprocPerNode, "--nproc-per-node " + nprocPerNode);
            } catch (IllegalArgumentException tooFew) {
                throw new IllegalArgumentException(tooFew.getMessage() + "; --no-gpu starts ranks that need none");
            }
        }
    }

    /** Node 0's rank 0 will listen there: a port already taken is an error now, not after N JVMs started. */
    static void requirePortFree(String addr, int port) {
        InetAddress address;
        try {
            address = InetAddress.getByName(addr);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("--master-addr '" + addr + "' is not a known host");
        }
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(new InetSocketAddress(address, port));
        } catch (BindException e) {
            if (String.valueOf(e.getMessage()).contains("in use")) {
                throw new IllegalArgumentException("--master-port " + port + " on " + addr + " is already in use ("
                        + e.getMessage() + "); choose a free port");
            }
            throw new IllegalArgumentException("--master-addr " + addr + " is not an address of this host, where rank 0 "
                    + "must listen (" + e.getMessage() + "); give node 0's own address");
        } catch (IOException e) {
            throw new IllegalArgumentException("--master-addr " + addr + " --master-port " + port + ": " + e.getMessage());
        }
    }

    /**
     * The same aorta as this one: {@code $aorta.home/bin/aorta} (set by dist/bin/aorta), else this JVM with its
     * class path (a development or test run).
     */
    static List<String> aortaCommand(String javaOpts) {
        String home = System.getProperty("aorta.home");
        if (home != null && Files.isExecutable(Path.of(home, "bin", "aorta"))) {
            return List.of(Path.of(home, "bin", "aorta").toString());
        }
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> argv = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED"));
        if (javaOpts != null && !javaOpts.isBlank()) {
            argv.addAll(List.of(javaOpts.trim().split("\\s+")));
        }
        argv.addAll(List.of("-cp", System.getProperty("java.class.path"), AortaCli.class.getName()));
        return argv;
    }
}
