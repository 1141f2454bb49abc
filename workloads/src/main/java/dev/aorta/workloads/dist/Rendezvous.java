package dev.aorta.workloads.dist;

import dev.aorta.workloads.session.CommunicatorId;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

/**
 * Hands the communicator id from rank 0 to the other ranks over TCP: rank 0 {@link #serve serves} it at
 * MASTER_ADDR:port, the others {@link #fetch} it, retrying until rank 0 listens or their timeout passes.
 * One line each way: {@code AORTA-RDZV 1 <rank> <world>} and {@code ID <base64>} (or {@code ERR <why>}).
 */
public final class Rendezvous {
    static final String HELLO = "AORTA-RDZV 1";
    private static final int IO_TIMEOUT_MS = 10_000;

    private Rendezvous() {
    }

    /** Rank 0's side: listening when this returns; serves every other rank once, then stops by itself. */
    public static Server serve(CommunicatorId id, String addr, int port, int worldSize) {
        InetAddress bindAddress = resolve(addr);
        ServerSocket socket;
        try {
            socket = new ServerSocket();
            socket.setReuseAddress(true);  // a previous run's connections in TIME_WAIT must not block the port
            socket.bind(new InetSocketAddress(bindAddress, port), 64);
        } catch (BindException e) {
            boolean inUse = String.valueOf(e.getMessage()).contains("in use");
            throw new IllegalStateException("rank 0 cannot listen on " + addr + ":" + port + " for the rendezvous: "
                    + e.getMessage() + (inUse
                    ? " (port " + port + " already in use by another job? choose another with --master-port or MASTER_PORT)"
                    : " (MASTER_ADDR " + addr + " is not an address of rank 0's host)"), e);
        } catch (IOException e) {
            throw new IllegalStateException("rank 0 cannot listen on " + addr + ":" + port + ": " + e.getMessage(), e);
        }
        return new Server(socket, id, worldSize);
    }

    /** A non-zero rank's side: the id from rank 0, or a clear error once {@code timeout} has passed. */
    public static CommunicatorId fetch(String addr, int port, int rank, int worldSize, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long backoffMs = 50;
        String lastProblem = "no attempt";
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(resolve(addr), port), IO_TIMEOUT_MS);
                s.setSoTimeout(IO_TIMEOUT_MS);
                OutputStream out = s.getOutputStream();
                out.write((HELLO + " " + rank + " " + worldSize + "\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                String reply = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII))
                        .readLine();
                if (reply != null && reply.startsWith("ID ")) {
                    return CommunicatorId.fromBase64(reply.substring(3));
                }
                if (reply != null && reply.startsWith("ERR ")) {
                    throw new IllegalStateException("rank " + rank + ": the rendezvous at " + addr + ":" + port
                            + " refused it: " + reply.substring(4));
                }
                lastProblem = "unexpected reply " + (reply == null ? "(connection closed)" : "'" + reply + "'");
            } catch (ConnectException | SocketTimeoutException e) {
                lastProblem = e.getMessage();
            } catch (IOException e) {
                lastProblem = e.toString();
            }
            if (System.nanoTime() >= deadline) {
                throw new IllegalStateException("rank " + rank + " could not fetch the communicator id from rank 0 at "
                        + addr + ":" + port + " within " + timeout.toSeconds() + " s (" + lastProblem
                        + "); is rank 0 running, and are MASTER_ADDR/MASTER_PORT the same on every rank?");
            }
            sleep(Math.min(backoffMs, Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
            backoffMs = Math.min(1000, backoffMs * 2);
        }
    }

    private static InetAddress resolve(String addr) {
        try {
            return InetAddress.getByName(addr);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("MASTER_ADDR '" + addr + "' is not a known host", e);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the rendezvous", e);
        }
    }

    /** The listening side; serves on a daemon thread until every other rank has its id or it is closed. */
    public static final class Server implements AutoCloseable {
        private final ServerSocket socket;
        private final CommunicatorId id;
        private final int worldSize;
        private final Set<Integer> served = new HashSet<>();
        private final Thread thread;

        Server(ServerSocket socket, CommunicatorId id, int worldSize) {
            this.socket = socket;
            this.id = id;
            this.worldSize = worldSize;
            this.thread = Thread.ofPlatform().daemon().name("aorta-rendezvous").start(this::serveAll);
        }

        public int port() {
            return socket.getLocalPort();
        }

        private void serveAll() {
            while (!socket.isClosed() && servedCount() < worldSize - 1) {
                try (Socket client = socket.accept()) {
                    client.setSoTimeout(IO_TIMEOUT_MS);
                    String hello = new BufferedReader(new InputStreamReader(client.getInputStream(),
                            StandardCharsets.US_ASCII)).readLine();
                    String reply = answer(hello);
                    client.getOutputStream().write((reply + "\n").getBytes(StandardCharsets.US_ASCII));
                    client.getOutputStream().flush();
                } catch (IOException e) {
                    // a client that went away or a port scan: the next accept serves the next rank
                }
            }
            closeQuietly();
        }

        private String answer(String hello) {
            if (hello == null || !hello.startsWith(HELLO + " ")) {
                return "ERR not an aorta rendezvous request";
            }
            String[] parts = hello.substring(HELLO.length() + 1).trim().split(" ");
            try {
                int rank = Integer.parseInt(parts[0]);
                int world = Integer.parseInt(parts[1]);
                if (world != worldSize) {
                    return "ERR rank " + rank + " says the world has " + world + " ranks, rank 0 says " + worldSize;
                }
                if (rank <= 0 || rank >= worldSize) {
                    return "ERR rank " + rank + " is not a rank 1.." + (worldSize - 1) + " of the world";
                }
                synchronized (served) {
                    served.add(rank);
                }
                return "ID " + id.toBase64();
            } catch (RuntimeException e) {
                return "ERR malformed request '" + hello + "'";
            }
        }

        private int servedCount() {
            synchronized (served) {
                return served.size();
            }
        }

        /** Whether every other rank has fetched the id (the server stops then). */
        public boolean allServed() {
            return servedCount() >= worldSize - 1;
        }

        private void closeQuietly() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing a listening socket: nothing left to do
            }
        }

        @Override
        public void close() {
            closeQuietly();
            try {
                thread.join(Duration.ofSeconds(2));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
