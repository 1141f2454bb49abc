package dev.aorta.agent.advice;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Bound by the agent, per intercepted method, to that method's last {@code long} parameter: how our own
 * FFM bindings pass the stream (a {@code cudaStream_t} address) to methods of varying arity.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface LastLongArgument {
}
