package dev.aorta.cli;

import dev.aorta.workloads.session.GpuSessionFactory;
import picocli.CommandLine;

import java.lang.reflect.Constructor;

/** Creates commands, handing the GPU session factory to those whose constructor takes one. */
final class CommandFactory implements CommandLine.IFactory {
    private final GpuSessionFactory gpu;
    private final CommandLine.IFactory fallback = CommandLine.defaultFactory();

    CommandFactory(GpuSessionFactory gpu) {
        this.gpu = gpu;
    }

    @Override
    public <K> K create(Class<K> type) throws Exception {
        for (Constructor<?> c : type.getDeclaredConstructors()) {
            if (c.getParameterCount() == 1 && c.getParameterTypes()[0] == GpuSessionFactory.class) {
                c.setAccessible(true);
                return type.cast(c.newInstance(gpu));
            }
        }
        return fallback.create(type);
    }
}
