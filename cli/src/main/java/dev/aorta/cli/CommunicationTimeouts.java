package dev.aorta.cli;

import picocli.CommandLine.Option;

import java.time.Duration;

/** The time limits of commands that open a communicator across ranks (picocli mixin). */
final class CommunicationTimeouts {
    @Option(names = "--comm-timeout", defaultValue = "120", paramLabel = "SECONDS",
            description = "Abort the communicators when the host makes no progress this long (default: ${DEFAULT-VALUE}).")
    int commTimeout;

    @Option(names = "--rendezvous-timeout", defaultValue = "120", paramLabel = "SECONDS",
            description = "How long ranks other than 0 try to fetch the communicator id (default: ${DEFAULT-VALUE}).")
    int rendezvousTimeout;

    /** @throws IllegalArgumentException naming the options, before any GPU work */
    void validate() {
        if (commTimeout < 1 || rendezvousTimeout < 1) {
            throw new IllegalArgumentException("--comm-timeout and --rendezvous-timeout must be 1 second or more");
        }
    }

    Duration comm() {
        return Duration.ofSeconds(commTimeout);
    }

    Duration rendezvous() {
        return Duration.ofSeconds(rendezvousTimeout);
    }
}
