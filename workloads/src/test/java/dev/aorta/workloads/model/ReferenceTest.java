package dev.aorta.workloads.model;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ReferenceTest {

    @Test
    void aResultWithinTheRelativeToleranceIsRightAndOneBeyondItIsNamed() {
        assertThat(Reference.compare("y", new float[] {1f, 2f}, new double[] {1.00001, 2.0})).isEmpty();
        assertThat(Reference.compare("y", new float[] {1f, 2.1f}, new double[] {1.0, 2.0}))
                .hasValueSatisfying(m -> assertThat(m).startsWith("y: relative L2 error 0.0447")
                        .endsWith("against the float64 reference (tolerance 1.0E-4)"));
        assertThat(Reference.compare("y", new float[] {Float.NaN}, new double[] {1.0})).isPresent();
        assertThat(Reference.compare("y", new float[] {1f}, new double[] {1.0, 2.0}))
                .hasValue("y: 1 values, expected 2");
    }

    @Test
    void theLinearReferenceAppliesBiasAndGelu() {
        // x = [1, 2], W = [[1, 0], [0, 1], [1, 1]], b = [0, 0, -3]: [1, 2, 0]; GELU(0) = 0, GELU(1) = 0.8413
        double[] y = Reference.linear(new double[] {1, 2}, new float[] {1, 0, 0, 1, 1, 1}, new float[] {0, 0, -3},
                1, 2, 3, true);
        assertThat(y[0]).isCloseTo(0.841345, org.assertj.core.api.Assertions.within(1e-6));
        assertThat(y[2]).isZero();
    }
}
