package dev.aorta.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.junit.jupiter.api.Assumptions;

/**
 * Compiles a kernel source with the CUDA toolkit's {@code nvcc} for tests that check our CUDA C where NVRTC (a
 * driver-side library) is not installed: a build machine without a GPU often has the toolkit's compiler, and a
 * syntax or type error in a kernel should fail the build there rather than on the GPU machine.
 *
 * <p>The kernels are written for NVRTC, which gets no include path: callers pass the source with its shared headers
 * already inlined, so nvcc sees exactly the text NVRTC will. nvcc adds the CUDA runtime headers that NVRTC lacks;
 * a kernel that used them by accident would compile here and fail under NVRTC, which the GPU tests then catch.
 * NVRTC is run with {@code -default-device}, nvcc has no such switch: our kernels mark their helpers
 * {@code __device__} explicitly, which both accept.
 */
public final class NvccCompiler {
    private static final long TIMEOUT_SECONDS = 300;

    private final Path nvcc;

    private NvccCompiler(Path nvcc) {
        this.nvcc = nvcc;
    }

    /** The toolkit's nvcc from {@code PATH} or {@code /usr/local/cuda/bin}, if there is one. */
    public static Optional<NvccCompiler> find() {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String dir : (path + java.io.File.pathSeparator + "/usr/local/cuda/bin").split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty()) {
                Path candidate = Path.of(dir, "nvcc");
                if (Files.isExecutable(candidate)) {
                    return Optional.of(new NvccCompiler(candidate));
                }
            }
        }
        return Optional.empty();
    }

    /** A kernel compiler with NVRTC's shape, so that tests can pass {@code Nvrtc.get()::compile} without this module depending on it. */
    @FunctionalInterface
    public interface Compiler {
        byte[] compile(String source, String name, String arch);
    }

    /**
     * Compiles {@code source} with NVRTC where {@code nvrtc} yields it, else with nvcc, else aborts the calling test
     * with both reasons (a skip, printed by {@link SkipReasonPrinter}).
     */
    public static byte[] compileOrSkip(String source, String name, String arch, Supplier<Compiler> nvrtc)
            throws IOException, InterruptedException {
        Compiler compiler;
        try {
            compiler = nvrtc.get();
        } catch (RuntimeException | LinkageError e) {
            Optional<NvccCompiler> nvcc = find();
            if (nvcc.isEmpty()) {
                Assumptions.abort("neither NVRTC (" + e.getMessage() + ") nor nvcc (not on PATH or in /usr/local/cuda/bin) is here");
            }
            return nvcc.get().compile(source, name, arch);
        }
        return compiler.compile(source, name, arch);
    }

    /**
     * Compiles {@code source} (named {@code name} in messages) to a cubin for {@code arch} such as "sm_90" and
     * returns its bytes; a compile error throws with nvcc's own messages.
     */
    public byte[] compile(String source, String name, String arch) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("aorta-nvcc");
        try {
            Path cu = dir.resolve(name.endsWith(".cu") ? name : name + ".cu");
            Path cubin = dir.resolve("out.cubin");
            Files.writeString(cu, source, StandardCharsets.UTF_8);
            Process p = new ProcessBuilder(List.of(nvcc.toString(), "-arch=" + arch, "-std=c++17", "-cubin",
                    "-o", cubin.toString(), cu.toString())).directory(dir.toFile()).redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("nvcc did not finish compiling " + name + " within " + TIMEOUT_SECONDS + " s");
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException("nvcc could not compile " + name + " (exit " + p.exitValue() + "):\n"
                        + output.replace(cu.toString(), name));
            }
            return Files.readAllBytes(cubin);
        } finally {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    @Override
    public String toString() {
        return nvcc.toString();
    }
}
