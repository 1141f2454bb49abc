package dev.aorta.workloads.dist;

import java.util.Map;

/**
 * Where this process stands in a multi-process job, read from the environment of whichever launcher started
 * it: {@code aorta launch} and {@code torchrun} ({@code RANK}, {@code LOCAL_RANK}, {@code WORLD_SIZE},
 * {@code LOCAL_WORLD_SIZE}, {@code MASTER_ADDR}, {@code MASTER_PORT}), or Slurm's {@code srun}
 * ({@code SLURM_PROCID}, {@code SLURM_NTASKS}, {@code SLURM_LOCALID}, rank 0 on the first host of
 * {@code SLURM_JOB_NODELIST}). Without either, a single process of a world of one.
 *
 * @param rendezvousPort the port rank 0 serves the communicator id on: {@code MASTER_PORT}, except under
 *                       torchrun, whose agent may already listen there with its own TCP store
 *                       ({@code TORCHELASTIC_USE_AGENT_STORE}): then MASTER_PORT + 1
 */
public record DistributedEnvironment(Launcher launcher, int rank, int worldSize, int localRank, int localWorldSize,
                                     String masterAddr, int masterPort, int rendezvousPort) {

    /** Who started the process. */
    public enum Launcher {
        SINGLE("single process"), AORTA("aorta launch"), TORCHRUN("torchrun (RANK/WORLD_SIZE)"), SLURM("Slurm");

        private final String label;

        Launcher(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** Set by {@code aorta launch} in every child's environment, to tell it apart from torchrun. */
    public static final String LAUNCHER_VARIABLE = "AORTA_LAUNCHER";
    static final int DEFAULT_PORT = 29500;

    public DistributedEnvironment {
        if (worldSize < 1) {
            throw new IllegalArgumentException("the world size must be at least 1, got " + worldSize);
        }
        if (rank < 0 || rank >= worldSize) {
            throw new IllegalArgumentException("rank " + rank + " is outside the world of " + worldSize + " ranks");
        }
        if (localRank < 0 || localRank >= localWorldSize) {
            throw new IllegalArgumentException("local rank " + localRank + " is outside the " + localWorldSize
                    + " ranks of this node");
        }
    }

    public static DistributedEnvironment single() {
        return new DistributedEnvironment(Launcher.SINGLE, 0, 1, 0, 1, "127.0.0.1", DEFAULT_PORT, DEFAULT_PORT);
    }

    public static DistributedEnvironment current() {
        return from(System.getenv());
    }

    /** Reads the variables of {@code env}; a variable that is present but wrong is an error naming it. */
    public static DistributedEnvironment from(Map<String, String> env) {
        if (env.containsKey("RANK") || env.containsKey("WORLD_SIZE")) {
            Launcher launcher = "aorta".equals(env.get(LAUNCHER_VARIABLE)) ? Launcher.AORTA : Launcher.TORCHRUN;
            int world = integer(env, "WORLD_SIZE", null);
            int rank = integer(env, "RANK", null);
            int localWorld = integer(env, "LOCAL_WORLD_SIZE", world);
            int local = integer(env, "LOCAL_RANK", rank % localWorld);
            String addr = master(env, world, null);
            int port = integer(env, "MASTER_PORT", world > 1 ? null : DEFAULT_PORT);
            // torchrun's agent store listens on MASTER_PORT (not always announced): stay beside it, never on it
            return new DistributedEnvironment(launcher, rank, world, local, localWorld, addr, port,
                    launcher == Launcher.TORCHRUN ? port + 1 : port);
        }
        if (env.containsKey("SLURM_PROCID")) {
            int world = integer(env, "SLURM_NTASKS", null);
            int rank = integer(env, "SLURM_PROCID", null);
            int local = integer(env, "SLURM_LOCALID", 0);
            int localWorld = env.containsKey("SLURM_NTASKS_PER_NODE")
                    ? firstCount(env, "SLURM_NTASKS_PER_NODE")
                    : env.containsKey("SLURM_TASKS_PER_NODE") ? firstCount(env, "SLURM_TASKS_PER_NODE") : world;
            String nodes = env.getOrDefault("SLURM_JOB_NODELIST", env.get("SLURM_NODELIST"));
            String addr = env.containsKey("MASTER_ADDR") ? env.get("MASTER_ADDR")
                    : nodes != null ? SlurmNodeList.firstHost(nodes) : master(env, world, "127.0.0.1");
            // Jobs sharing a node must not share a port: derive it from the job id unless MASTER_PORT is given.
            int port = env.containsKey("MASTER_PORT") ? integer(env, "MASTER_PORT", null)
                    : env.containsKey("SLURM_JOB_ID") ? 20000 + integer(env, "SLURM_JOB_ID", null) % 10000 : DEFAULT_PORT;
            return new DistributedEnvironment(Launcher.SLURM, rank, world, local, Math.max(localWorld, local + 1),
                    addr, port, port);
        }
        return single();
    }

    public boolean distributed() {
        return worldSize > 1;
    }

    /** One line for the run's output: who launched it and where this rank stands. */
    public String describe() {
        return launcher.label() + ": rank " + rank + " of " + worldSize + ", local rank " + localRank + " of "
                + localWorldSize + (distributed() ? ", rendezvous " + masterAddr + ":" + rendezvousPort : "");
    }

    private static String master(Map<String, String> env, int world, String fallback) {
        String addr = env.get("MASTER_ADDR");
        if (addr == null || addr.isBlank()) {
            if (world > 1 && fallback == null) {
                throw new IllegalArgumentException("MASTER_ADDR is not set: a world of " + world
                        + " ranks needs the address of rank 0's host");
            }
            return fallback == null ? "127.0.0.1" : fallback;
        }
        return addr.trim();
    }

    private static int integer(Map<String, String> env, String name, Integer fallback) {
        String text = env.get(name);
        if (text == null || text.isBlank()) {
            if (fallback == null) {
                throw new IllegalArgumentException(name + " is not set; expected an integer");
            }
            return fallback;
        }
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + "='" + text + "' is not an integer");
        }
    }

    /** Slurm's task counts per node look like {@code 4(x2),3}: the first node's count. */
    private static int firstCount(Map<String, String> env, String name) {
        String text = env.get(name).trim();
        int end = 0;
        while (end < text.length() && Character.isDigit(text.charAt(end))) {
            end++;
        }
        if (end == 0) {
            throw new IllegalArgumentException(name + "='" + text + "' does not start with a task count");
        }
        return Integer.parseInt(text.substring(0, end));
    }
}
