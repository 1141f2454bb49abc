package dev.aorta.gpu.nvrtc;

import dev.aorta.gpu.Ffm;
import dev.aorta.gpu.GpuException;
import dev.aorta.gpu.Lazy;
import dev.aorta.gpu.NativeLibrary;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * NVRTC (CUDA 13) through FFM: compiles CUDA C kernel sources at run time to a cubin for the device's
 * architecture. Results are cached by a hash of (source, architecture, options, NVRTC version), in memory and
 * in {@code $AORTA_KERNEL_CACHE} (default {@code ~/.cache/aorta/kernels}), so a workload compiles once.
 */
public final class Nvrtc {
    private static final Lazy<Nvrtc> INSTANCE = new Lazy<>(Nvrtc::new);

    private final NativeLibrary lib;
    private final MethodHandle version, createProgram, compileProgram, getLogSize, getLog, getCubinSize, getCubin,
            destroyProgram, errorString;
    private final int major, minor;
    private final Map<String, byte[]> memoryCache = new ConcurrentHashMap<>();
    private final Path diskCache;

    private Nvrtc() {
        lib = NativeLibrary.load("NVRTC", "AORTA_NVRTC_LIBRARY", "libnvrtc.so.13", "libnvrtc.so");
        version = lib.function("nvrtcVersion", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        createProgram = lib.function("nvrtcCreateProgram",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS));
        compileProgram = lib.function("nvrtcCompileProgram", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
        getLogSize = lib.function("nvrtcGetProgramLogSize", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        getLog = lib.function("nvrtcGetProgramLog", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        getCubinSize = lib.function("nvrtcGetCUBINSize", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        getCubin = lib.function("nvrtcGetCUBIN", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        destroyProgram = lib.function("nvrtcDestroyProgram", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        errorString = lib.function("nvrtcGetErrorString", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ma = a.allocate(JAVA_INT);
            MemorySegment mi = a.allocate(JAVA_INT);
            check("nvrtcVersion", (int) version.invokeExact(ma, mi));
            major = ma.get(JAVA_INT, 0);
            minor = mi.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw Ffm.callFailed("nvrtcVersion", t);
        }
        String dir = System.getenv("AORTA_KERNEL_CACHE");
        diskCache = dir != null && !dir.isBlank() ? Path.of(dir)
                : Path.of(System.getProperty("user.home"), ".cache", "aorta", "kernels");
    }

    /** The process-wide NVRTC (loaded on first use). */
    public static Nvrtc get() {
        return INSTANCE.get();
    }

    public String version() {
        return major + "." + minor;
    }

    public NativeLibrary library() {
        return lib;
    }

    /** Reads a kernel source shipped as a class-path resource (e.g. "/kernels/elementwise.cu"). */
    public static String resource(Class<?> anchor, String path) {
        try (InputStream in = anchor.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalArgumentException("kernel source " + path + " is not on the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read kernel source " + path, e);
        }
    }

    /**
     * Compiles {@code source} for {@code arch} (e.g. "sm_90") into a cubin, or returns the cached one.
     *
     * @param name a file name for diagnostics, e.g. "elementwise.cu"
     * @throws GpuException with the compiler's log when compilation fails
     */
    public byte[] compile(String source, String name, String arch, String... extraOptions) {
        List<String> options = new java.util.ArrayList<>(List.of("--gpu-architecture=" + arch, "--std=c++17",
                "-default-device"));
        options.addAll(List.of(extraOptions));
        String key = hash(source, arch, String.join(" ", options), version());
        byte[] cubin = memoryCache.get(key);
        if (cubin != null) {
            return cubin;
        }
        Path file = diskCache.resolve(key + ".cubin");
        try {
            if (Files.isRegularFile(file)) {
                cubin = Files.readAllBytes(file);
            }
        } catch (IOException unreadable) {
            cubin = null; // compile again below
        }
        if (cubin == null) {
            cubin = compileNow(source, name, options);
            store(file, cubin);
        }
        memoryCache.put(key, cubin);
        return cubin;
    }

    private byte[] compileNow(String source, String name, List<String> options) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment progPtr = a.allocate(ADDRESS);
            check("nvrtcCreateProgram(" + name + ")", (int) createProgram.invokeExact(progPtr, a.allocateFrom(source),
                    a.allocateFrom(name), 0, MemorySegment.NULL, MemorySegment.NULL));
            MemorySegment prog = progPtr.get(ADDRESS, 0);
            try {
                MemorySegment opts = a.allocate(ADDRESS, options.size());
                for (int i = 0; i < options.size(); i++) {
                    opts.setAtIndex(ADDRESS, i, a.allocateFrom(options.get(i)));
                }
                int rc = (int) compileProgram.invokeExact(prog, options.size(), opts);
                if (rc != 0) {
                    throw new GpuException("nvrtcCompileProgram(" + name + ", " + options + ")", rc,
                            message(rc) + "\n" + log(a, prog));
                }
                MemorySegment size = a.allocate(JAVA_LONG);
                check("nvrtcGetCUBINSize", (int) getCubinSize.invokeExact(prog, size));
                MemorySegment out = a.allocate(size.get(JAVA_LONG, 0));
                check("nvrtcGetCUBIN", (int) getCubin.invokeExact(prog, out));
                return out.toArray(JAVA_BYTE);
            } finally {
                check("nvrtcDestroyProgram", (int) destroyProgram.invokeExact(progPtr));
            }
        } catch (Throwable t) {
            throw Ffm.callFailed("nvrtc compile of " + name, t);
        }
    }

    private String log(Arena a, MemorySegment prog) throws Throwable {
        MemorySegment size = a.allocate(JAVA_LONG);
        check("nvrtcGetProgramLogSize", (int) getLogSize.invokeExact(prog, size));
        MemorySegment text = a.allocate(Math.max(1, size.get(JAVA_LONG, 0)));
        check("nvrtcGetProgramLog", (int) getLog.invokeExact(prog, text));
        return text.getString(0);
    }

    private static void store(Path file, byte[] cubin) {
        try {
            Files.createDirectories(file.getParent());
            Path tmp = Files.createTempFile(file.getParent(), "cubin", ".tmp");
            Files.write(tmp, cubin);
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            // the disk cache is an optimisation: an unwritable cache only costs a recompile next run
            System.err.println("aorta: kernel cache " + file.getParent() + " is not writable (" + e.getMessage()
                    + "); kernels will be compiled again next run");
        }
    }

    private static String hash(String... parts) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String p : parts) {
                sha.update(p.getBytes(StandardCharsets.UTF_8));
                sha.update((byte) 0);
            }
            return HexFormat.of().formatHex(sha.digest(), 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private void check(String call, int rc) {
        if (rc != 0) {
            throw new GpuException(call, rc, message(rc));
        }
    }

    private String message(int rc) {
        try {
            return Ffm.string((MemorySegment) errorString.invokeExact(rc));
        } catch (Throwable t) {
            return "nvrtcResult " + rc;
        }
    }
}
