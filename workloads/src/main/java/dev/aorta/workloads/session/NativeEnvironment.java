package dev.aorta.workloads.session;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Sets a variable in the process's C environment, which is where the CUDA driver reads its settings
 * (e.g. {@code CUDA_DEVICE_MAX_CONNECTIONS}) when it initializes: so it must run before the first
 * session opens. {@link System#getenv()} does not see the change; callers record what they set.
 */
public final class NativeEnvironment {
    private NativeEnvironment() {
    }

    public static void set(String name, String value) {
        Linker linker = Linker.nativeLinker();
        MethodHandle setenv = linker.downcallHandle(
                linker.defaultLookup().find("setenv").orElseThrow(
                        () -> new IllegalStateException("the C library has no setenv")),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS,
                        ValueLayout.JAVA_INT));
        try (Arena arena = Arena.ofConfined()) {
            int rc = (int) setenv.invokeExact(arena.allocateFrom(name), arena.allocateFrom(value), 1);
            if (rc != 0) {
                throw new IllegalStateException("setenv(" + name + ") failed with " + rc);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("setenv(" + name + ") failed: " + t, t);
        }
    }

    /** Reads the C environment (sees {@link #set} changes, unlike {@link System#getenv(String)}). */
    public static String get(String name) {
        Linker linker = Linker.nativeLinker();
        MethodHandle getenv = linker.downcallHandle(
                linker.defaultLookup().find("getenv").orElseThrow(
                        () -> new IllegalStateException("the C library has no getenv")),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS));
        try (Arena arena = Arena.ofConfined()) {
            var result = (java.lang.foreign.MemorySegment) getenv.invokeExact(arena.allocateFrom(name));
            return result.address() == 0 ? null : result.reinterpret(Long.MAX_VALUE).getString(0);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("getenv(" + name + ") failed: " + t, t);
        }
    }
}
