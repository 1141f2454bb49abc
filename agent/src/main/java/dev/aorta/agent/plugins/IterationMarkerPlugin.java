package dev.aorta.agent.plugins;

import dev.aorta.agent.advice.IterationMethodAdvice;
import dev.aorta.agent.advice.MarkerAdvice;
import dev.aorta.agent.advice.StepAdvice;
import dev.aorta.agent.spi.CallKind;
import dev.aorta.agent.spi.Interception;
import dev.aorta.agent.spi.InterceptionPlugin;

import java.util.ArrayList;
import java.util.List;

/**
 * Iteration markers: the dependency-free {@code dev.aorta.api.Aorta} API, and optionally one application
 * method (option {@code iteration-method}) whose calls are iterations. Built in, not discovered, because
 * it depends on the configuration.
 */
public final class IterationMarkerPlugin implements InterceptionPlugin {
    static final String API = "dev.aorta.api.Aorta";
    private final String[] iterationMethod;

    /** @param iterationMethod {class, method}, or null */
    public IterationMarkerPlugin(String[] iterationMethod) {
        this.iterationMethod = iterationMethod;
    }

    @Override
    public String name() {
        return "iteration-markers";
    }

    @Override
    public String probeClass() {
        return API;
    }

    @Override
    public List<Interception> interceptions() {
        List<Interception> out = new ArrayList<>(List.of(
                Interception.of(API, "stepBegin", 0, CallKind.ITERATION_BEGIN, MarkerAdvice.class),
                Interception.of(API, "stepEnd", 0, CallKind.ITERATION_END, MarkerAdvice.class),
                Interception.of(API, "step", 1, CallKind.ITERATION_STEP, StepAdvice.class),
                Interception.of(API, "finish", 0, CallKind.ITERATION_FINISH, MarkerAdvice.class)));
        if (iterationMethod != null) {
            out.add(Interception.of(iterationMethod[0], iterationMethod[1], -1, CallKind.ITERATION_CALL,
                    IterationMethodAdvice.class));
        }
        return out;
    }
}
