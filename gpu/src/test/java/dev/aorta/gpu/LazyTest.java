package dev.aorta.gpu;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LazyTest {

    @Test
    void theValueIsMadeOnceOnFirstUse() {
        AtomicInteger made = new AtomicInteger();
        Lazy<String> lazy = new Lazy<>(() -> "lib" + made.incrementAndGet());
        assertThat(made).hasValue(0);
        assertThat(lazy.get()).isEqualTo("lib1");
        assertThat(lazy.get()).isSameAs(lazy.get());
        assertThat(made).hasValue(1);
    }

    @Test
    void aFailingFactoryIsTriedAgainOnTheNextUse() {
        AtomicInteger attempts = new AtomicInteger();
        Lazy<String> lazy = new Lazy<>(() -> {
            if (attempts.incrementAndGet() == 1) {
                throw new IllegalStateException("library missing");
            }
            return "loaded";
        });
        assertThatThrownBy(lazy::get).hasMessage("library missing");
        assertThat(lazy.get()).isEqualTo("loaded");
    }
}
