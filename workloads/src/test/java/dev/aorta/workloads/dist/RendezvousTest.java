package dev.aorta.workloads.dist;

import dev.aorta.workloads.session.CommunicatorId;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** On 127.0.0.1 only. */
class RendezvousTest {
    private static final String LOCAL = "127.0.0.1";
    private final CommunicatorId id = new CommunicatorId(new byte[] {1, 2, 3, 4, 5, 6, 7, 8});

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(LOCAL))) {
            return s.getLocalPort();
        }
    }

    @Test
    void everyOtherRankGetsRankZerosIdEvenWhenItAsksBeforeRankZeroListens() throws Exception {
        int port = freePort();
        List<CompletableFuture<CommunicatorId>> fetched = List.of(1, 2, 3).stream()
                .map(r -> CompletableFuture.supplyAsync(() -> Rendezvous.fetch(LOCAL, port, r, 4, Duration.ofSeconds(20))))
                .toList();
        Thread.sleep(300);  // the others are already retrying
        try (Rendezvous.Server server = Rendezvous.serve(id, LOCAL, port, 4)) {
            for (CompletableFuture<CommunicatorId> f : fetched) {
                assertThat(f.get(20, TimeUnit.SECONDS)).isEqualTo(id);
            }
            assertThat(server.allServed()).isTrue();
        }
    }

    @Test
    void aRankGivesUpAfterItsTimeoutNamingTheAddress() throws Exception {
        int port = freePort();
        long start = System.nanoTime();
        assertThatThrownBy(() -> Rendezvous.fetch(LOCAL, port, 1, 2, Duration.ofSeconds(1)))
                .hasMessageStartingWith("rank 1 could not fetch the communicator id from rank 0 at 127.0.0.1:" + port
                        + " within 1 s");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void aPortInUseIsAClearError() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName(LOCAL))) {
            int port = taken.getLocalPort();
            assertThatThrownBy(() -> Rendezvous.serve(id, LOCAL, port, 2))
                    .hasMessageStartingWith("rank 0 cannot listen on 127.0.0.1:" + port)
                    .hasMessageContaining("port " + port + " already in use");
        }
    }

    @Test
    void ranksThatDisagreeOnTheWorldSizeAreRefused() throws Exception {
        int port = freePort();
        try (Rendezvous.Server ignored = Rendezvous.serve(id, LOCAL, port, 2)) {
            assertThatThrownBy(() -> Rendezvous.fetch(LOCAL, port, 1, 3, Duration.ofSeconds(5)))
                    .hasMessageContaining("rank 1 says the world has 3 ranks, rank 0 says 2");
        }
    }
}
