package dev.aorta.agent.spi;

/**
 * One intercepted method: where it is, what a call means and which advice records it.
 *
 * @param type        fully qualified name of the declaring class
 * @param method      method name
 * @param arity       number of parameters, or -1 for any (overload families such as cublas*gemm*)
 * @param kind        what a call means
 * @param advice      the stateless advice class woven into the method
 * @param unitBytes   bytes per counted element (memsetD32: 4); 1 when the count is already bytes
 * @param copyKind    "HtoD", "DtoH", "DtoD", ... for copies whose direction the name tells, else null
 */
public record Interception(String type, String method, int arity, CallKind kind, Class<?> advice, int unitBytes,
                           String copyKind) {

    public static Interception of(String type, String method, int arity, CallKind kind, Class<?> advice) {
        return new Interception(type, method, arity, kind, advice, 1, null);
    }

    public Interception unit(int bytes) {
        return new Interception(type, method, arity, kind, advice, bytes, copyKind);
    }

    public Interception copy(String direction) {
        return new Interception(type, method, arity, kind, advice, unitBytes, direction);
    }
}
