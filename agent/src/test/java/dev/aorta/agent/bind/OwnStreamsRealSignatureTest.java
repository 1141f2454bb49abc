package dev.aorta.agent.bind;

import dev.aorta.agent.RealAortaGpu;
import net.bytebuddy.description.type.TypeDescription;
import org.junit.jupiter.api.Test;

import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;
import static org.assertj.core.api.Assertions.assertThat;

/** What {@link OwnStreams} reaches by name in the real aorta-gpu Stream: the address field and the constructor. */
class OwnStreamsRealSignatureTest {

    @Test
    void theRealStreamHasALongAddressAndAnIntBooleanConstructor() {
        TypeDescription stream = RealAortaGpu.POOL.describe(OwnStreams.STREAM).resolve();
        assertThat(stream.getDeclaredFields().filter(named(OwnStreams.ADDRESS_FIELD))).singleElement()
                .satisfies(f -> assertThat(f.getType().represents(long.class)).as("address is a long").isTrue());
        assertThat(stream.getDeclaredMethods().filter(isConstructor().and(takesArguments(int.class, boolean.class))))
                .as(OwnStreams.STREAM + "(int, boolean)").hasSize(1);
    }
}
