package dev.aorta.agent;

import dev.aorta.gpu.cupti.CuptiRecords;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.pool.TypePool;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The real aorta-gpu classes of this build, read as class files (never loaded: the test doubles of the same
 * names come first on the test class path), together with the real JCuda jar they refer to. The agent depends
 * on aorta-gpu (provided), so these are always there: a check against them fails the build after a rename.
 */
public final class RealAortaGpu {
    /** The aorta-gpu jar or classes folder: where the one aorta-gpu class without a double comes from. */
    public static final Path LOCATION = location();
    public static final ClassFileLocator LOCATOR = locator();
    public static final TypePool POOL = TypePool.Default.of(LOCATOR);

    private RealAortaGpu() {
    }

    private static Path location() {
        try {
            return Path.of(CuptiRecords.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ClassFileLocator locator() {
        Path jcuda = Path.of(System.getProperty("aorta.real.jcuda", "target/real-jcuda")).resolve("jcuda.jar");
        try {
            ClassFileLocator gpu = Files.isDirectory(LOCATION) ? new ClassFileLocator.ForFolder(LOCATION.toFile())
                    : ClassFileLocator.ForJarFile.of(LOCATION.toFile());
            return new ClassFileLocator.Compound(gpu, ClassFileLocator.ForJarFile.of(jcuda.toFile()),
                    ClassFileLocator.ForClassLoader.ofBootLoader());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
