package dev.aorta.workloads.harness;

import dev.aorta.core.spi.ServiceProviders;
import dev.aorta.workloads.spi.Priority;
import dev.aorta.workloads.spi.Workload;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** The workloads on a class path, found with {@link java.util.ServiceLoader}; each lookup makes a fresh instance. */
public final class WorkloadRegistry {
    private final ClassLoader loader;

    public WorkloadRegistry(ClassLoader loader) {
        this.loader = loader;
    }

    /** The workloads of the current thread's context class loader, which the CLI extends with its plugins folder. */
    public static WorkloadRegistry onClassPath() {
        return new WorkloadRegistry(Thread.currentThread().getContextClassLoader());
    }

    /** Fresh instances of every workload, by priority then name; a plugin that cannot be loaded is one line on stderr. */
    public List<Workload> all() {
        List<Workload> result = new ArrayList<>(ServiceProviders.load(Workload.class, loader,
                skipped -> System.err.println("aorta: warning: " + skipped)));
        result.sort(Comparator.comparing(Workload::priority).thenComparing(Workload::name));
        return result;
    }

    public List<Workload> withPriority(Priority priority) {
        return all().stream().filter(w -> w.priority() == priority).toList();
    }

    /** A fresh instance of the named workload; the error lists the closest names and every known one. */
    public Workload create(String name) {
        List<Workload> all = all();
        for (Workload w : all) {
            if (w.name().equals(name)) {
                return w;
            }
        }
        List<String> names = all.stream().map(Workload::name).toList();
        List<String> close = names.stream()
                .filter(n -> editDistance(n, name) <= Math.max(3, name.length() / 3) || n.contains(name)
                        || name.contains(n))
                .sorted(Comparator.comparingInt(n -> editDistance(n, name)))
                .limit(3).toList();
        throw new IllegalArgumentException("unknown workload '" + name + "'"
                + (close.isEmpty() ? "" : "; did you mean " + String.join(", ", close) + "?")
                + "; known: " + String.join(", ", names) + " (aorta list describes them)");
    }

    static int editDistance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
