package dev.aorta.cli;

import picocli.CommandLine.Command;

import java.util.concurrent.Callable;

@Command(name = "info", description = "Print JVM, OS, GPUs, GPU libraries found and scheduling-related environment.")
final class InfoCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        System.out.println("java " + Runtime.version());
        return 0;
    }
}
