package dev.aorta.gpu;

import dev.aorta.gpu.cuda.CudaDevice;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Runs the annotated test only where a CUDA GPU is present; elsewhere skips it and prints why. */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(RequiresGpu.Condition.class)
public @interface RequiresGpu {

    final class Condition implements ExecutionCondition {
        private static final String WHY_NOT = probe();

        private static String probe() {
            try {
                return CudaDevice.deviceCount() > 0 ? null : "the CUDA driver reports no GPU";
            } catch (RuntimeException | LinkageError e) {
                return e.getMessage();
            }
        }

        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            if (WHY_NOT == null) {
                return ConditionEvaluationResult.enabled("a GPU is present");
            }
            String reason = "GPU test skipped: " + WHY_NOT;
            if (context.getTestMethod().isEmpty()) {
                System.out.println("[SKIPPED] " + context.getDisplayName() + ": " + reason);
            }
            return ConditionEvaluationResult.disabled(reason);
        }
    }
}
