package dev.aorta.cli;

import java.io.IOException;
import java.net.URL;
import java.util.Enumeration;

/**
 * Opens the jars of the class path on a thread of its own while the main thread builds the command line. Every
 * command looks up service providers (trace readers, analyses, workloads), and the first lookup opens and indexes
 * every jar on the class path, one after the other (about 0.02-0.03 s for dist/lib on a 2-CPU machine at start-up,
 * when the JIT has compiled none of it). Nothing before that lookup reads the jars (the classes come from the AOT
 * cache), so by the time the main thread gets there they are open.
 */
final class ClassPathJars {
    /** A lookup that visits every jar: providers are listed in each jar that has some. */
    private static final String EVERY_JAR = "META-INF/services/dev.aorta.analyzer.read.TraceReader";

    private ClassPathJars() {
    }

    static void openInBackground() {
        Thread.ofPlatform().daemon().name("aorta-open-jars").start(() -> {
            try {
                Enumeration<URL> found = ClassLoader.getSystemClassLoader().getResources(EVERY_JAR);
                while (found.hasMoreElements()) {
                    found.nextElement();
                }
            } catch (IOException | RuntimeException e) {
                // nothing lost: the main thread's own lookup opens the jars and reports what is wrong with one
            }
        });
    }
}
