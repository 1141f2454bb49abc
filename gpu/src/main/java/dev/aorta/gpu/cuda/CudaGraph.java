package dev.aorta.gpu.cuda;

import jcuda.driver.CUgraph;
import jcuda.driver.CUgraphExec;
import jcuda.driver.JCudaDriver;

/** Work captured from a stream, instantiated once and replayed with one launch. */
public final class CudaGraph implements AutoCloseable {
    private final CUgraph graph;
    private final CUgraphExec exec = new CUgraphExec();
    private boolean closed;

    CudaGraph(CUgraph graph) {
        this.graph = graph;
        Cu.check("cuGraphInstantiate", JCudaDriver.cuGraphInstantiate(exec, graph, 0));
    }

    public void launch(Stream stream) {
        Cu.check("cuGraphLaunch", JCudaDriver.cuGraphLaunch(exec, stream.handle()));
        stream.enqueues().increment(); // one call, however many kernels the graph replays
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            Cu.check("cuGraphExecDestroy", JCudaDriver.cuGraphExecDestroy(exec));
            Cu.check("cuGraphDestroy", JCudaDriver.cuGraphDestroy(graph));
        }
    }
}
