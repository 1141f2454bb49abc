package dev.aorta.gpu;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A shared library found by name: first the file named by its environment variable (e.g.
 * {@code AORTA_CUBLAS_LIBRARY}), then each file name in {@code LD_LIBRARY_PATH}, {@code CUDA_HOME} and the
 * usual CUDA/driver directories, then the system loader (ldconfig cache). Loaded once, never unloaded.
 */
public final class NativeLibrary {
    private static final Linker LINKER = Linker.nativeLinker();
    private final String displayName;
    private final Path path;
    private final SymbolLookup symbols;

    private NativeLibrary(String displayName, Path path, SymbolLookup symbols) {
        this.displayName = displayName;
        this.path = path;
        this.symbols = symbols;
    }

    /**
     * Loads {@code displayName} (e.g. "cuBLAS") from the first of {@code fileNames} found.
     *
     * @throws LibraryNotFoundException naming the library, the places looked at and the override variable
     */
    public static NativeLibrary load(String displayName, String envVar, String... fileNames) {
        List<String> tried = new ArrayList<>();
        Throwable last = null;
        String override = System.getenv(envVar);
        if (override != null && !override.isBlank()) {
            Path p = Path.of(override);
            try {
                return new NativeLibrary(displayName, p, SymbolLookup.libraryLookup(p, Arena.global()));
            } catch (IllegalArgumentException e) {
                throw new LibraryNotFoundException(displayName, List.of(override), List.of(envVar + "=" + override),
                        envVar, e);
            }
        }
        for (Path dir : searchDirectories()) {
            for (String name : fileNames) {
                Path p = dir.resolve(name);
                if (Files.exists(p)) {
                    try {
                        return new NativeLibrary(displayName, p, SymbolLookup.libraryLookup(p, Arena.global()));
                    } catch (IllegalArgumentException e) {
                        last = e;
                    }
                }
            }
            tried.add(dir.toString());
        }
        for (String name : fileNames) {
            try {
                return new NativeLibrary(displayName, Path.of(name), SymbolLookup.libraryLookup(name, Arena.global()));
            } catch (IllegalArgumentException e) {
                last = e;
            }
        }
        throw new LibraryNotFoundException(displayName, List.of(fileNames), tried, envVar, last);
    }

    private static Set<Path> searchDirectories() {
        Set<Path> dirs = new LinkedHashSet<>();
        String ld = System.getenv("LD_LIBRARY_PATH");
        if (ld != null) {
            for (String d : ld.split(":")) {
                if (!d.isBlank()) {
                    dirs.add(Path.of(d));
                }
            }
        }
        for (String env : new String[] {"CUDA_HOME", "CUDA_PATH"}) {
            String home = System.getenv(env);
            if (home != null && !home.isBlank()) {
                dirs.add(Path.of(home, "lib64"));
                dirs.add(Path.of(home, "extras", "CUPTI", "lib64"));
            }
        }
        for (String d : new String[] {"/usr/local/cuda/lib64", "/usr/local/cuda-13.0/lib64",
                "/usr/local/cuda/extras/CUPTI/lib64", "/usr/local/cuda-13.0/extras/CUPTI/lib64",
                "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/local/nvidia/lib64", "/usr/local/nvidia/lib"}) {
            dirs.add(Path.of(d));
        }
        dirs.removeIf(d -> !Files.isDirectory(d));
        return dirs;
    }

    /** Where the library was loaded from (a bare file name when the system loader found it). */
    public Path path() {
        return path;
    }

    public String displayName() {
        return displayName;
    }

    /** A downcall handle for {@code name}; fails with a message naming the library when the symbol is missing. */
    public MethodHandle function(String name, FunctionDescriptor descriptor) {
        MemorySegment address = symbols.find(name).orElseThrow(() -> new GpuException(
                displayName + " at " + path + " has no function " + name + " (library too old?)", null));
        return LINKER.downcallHandle(address, descriptor);
    }

    /** Like {@link #function}, but empty when the library lacks the symbol (optional features). */
    public Optional<MethodHandle> optionalFunction(String name, FunctionDescriptor descriptor) {
        return symbols.find(name).map(a -> LINKER.downcallHandle(a, descriptor));
    }
}
