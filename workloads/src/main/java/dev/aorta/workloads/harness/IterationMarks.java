package dev.aorta.workloads.harness;

import dev.aorta.api.Aorta;

/**
 * Where the harness says an iteration begins and ends: {@link Aorta}'s markers, empty calls the JIT removes unless the
 * agent is attached, whose capture schedules ({@code wait=,warmup=,active=}) then count the harness's iterations.
 */
interface IterationMarks {
    IterationMarks AORTA = new IterationMarks() {
        @Override
        public void begin() {
            Aorta.stepBegin();
        }

        @Override
        public void end() {
            Aorta.stepEnd();
        }
    };

    void begin();

    void end();
}
