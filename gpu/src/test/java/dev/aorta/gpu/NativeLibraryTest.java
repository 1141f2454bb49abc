package dev.aorta.gpu;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NativeLibraryTest {

    @Test
    void aMissingLibraryIsNamedWithWhereItWasLookedForAndHowToOverride() {
        assertThatThrownBy(() -> NativeLibrary.load("Frobnicator", "AORTA_FROB_LIBRARY", "libfrob.so.7"))
                .isInstanceOf(LibraryNotFoundException.class)
                .hasMessageContaining("Frobnicator not found")
                .hasMessageContaining("libfrob.so.7")
                .hasMessageContaining("system loader path")
                .hasMessageContaining("set AORTA_FROB_LIBRARY=");
    }

    @Test
    void aLibraryOnTheSystemPathIsFoundAndItsFunctionsBound() throws Throwable {
        NativeLibrary libc = NativeLibrary.load("C library", "AORTA_TEST_LIBC", "libc.so.6");
        var strlen = libc.function("strlen", java.lang.foreign.FunctionDescriptor.of(
                java.lang.foreign.ValueLayout.JAVA_LONG, java.lang.foreign.ValueLayout.ADDRESS));
        try (var arena = java.lang.foreign.Arena.ofConfined()) {
            assertThat((long) strlen.invokeExact(arena.allocateFrom("aorta"))).isEqualTo(5);
        }
    }

    @Test
    void aMissingFunctionNamesTheLibraryAndTheFunction() {
        NativeLibrary libc = NativeLibrary.load("C library", "AORTA_TEST_LIBC", "libc.so.6");
        assertThatThrownBy(() -> libc.function("no_such_function_here",
                java.lang.foreign.FunctionDescriptor.ofVoid()))
                .hasMessageContaining("C library")
                .hasMessageContaining("no function no_such_function_here");
        assertThat(libc.optionalFunction("no_such_function_here", java.lang.foreign.FunctionDescriptor.ofVoid()))
                .isEmpty();
    }
}
