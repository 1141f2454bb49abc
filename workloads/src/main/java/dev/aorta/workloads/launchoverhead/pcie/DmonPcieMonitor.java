package dev.aorta.workloads.launchoverhead.pcie;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The fallback when NVML cannot be called from Java: runs {@code nvidia-smi dmon -s t -i INDEX} (one line per
 * second with the PCIe rx/tx throughput in MB/s) while the pattern runs, and parses its output.
 */
final class DmonPcieMonitor implements PcieMonitor {
    private final List<String> command;
    private final DmonParser parser = new DmonParser();
    private final PcieStats.Accumulator samples;
    private Process process;
    private Thread reader;
    private volatile String failure;

    DmonPcieMonitor(int index) {
        this(List.of("nvidia-smi", "dmon", "-s", "t", "-i", Integer.toString(index)), "nvidia-smi dmon -s t -i " + index);
    }

    DmonPcieMonitor(List<String> command, String source) {
        this.command = command;
        this.samples = new PcieStats.Accumulator(source);
    }

    @Override
    public void start() {
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            failure = "cannot start " + command.getFirst() + ": " + e.getMessage();
            return;
        }
        reader = Thread.ofPlatform().daemon().name("aorta-pcie-dmon").start(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    DmonParser.Sample s = parser.accept(line);
                    if (s != null) {
                        synchronized (samples) {
                            samples.add(s.rxMBps(), s.txMBps());
                        }
                    } else if (parser.lastProblem() != null) {
                        failure = parser.lastProblem();
                    }
                }
            } catch (IOException e) {
                failure = e.getMessage();
            }
        });
    }

    @Override
    public PcieStats stop() {
        if (process != null) {
            process.destroy();
            try {
                reader.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (samples) {
            return samples.stats(failure == null ? "no line of output while the pattern ran (it prints one per second)"
                    : failure);
        }
    }
}
