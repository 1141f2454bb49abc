package dev.aorta.workloads.harness;

import dev.aorta.workloads.spi.WorkloadContext;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;

/** tiny_kernel_stress that claims every stream the harness made but launches on all of them except the last. */
final class IdlingWorkload extends TinyKernelStressWrapper {
    @Override
    public void setup(WorkloadContext context) {
        inner.setup((WorkloadContext) Proxy.newProxyInstance(WorkloadContext.class.getClassLoader(),
                new Class<?>[] {WorkloadContext.class}, (proxy, method, args) -> {
                    if (method.getName().equals("streams") && method.getParameterCount() == 0) {
                        var all = context.streams();
                        return all.subList(0, all.size() - 1);
                    }
                    try {
                        return method.invoke(context, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                }));
    }
}
