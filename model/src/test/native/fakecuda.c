/*
 * A stand-in for libcuda.so.1 and libnvrtc.so.13 on a machine without a GPU, for LaunchPathBenchmark only: every
 * call the model's launch path makes returns success at once and hands out fixed fake handles, so what the
 * benchmark measures is the Java side of a launch (JCuda's JNI, the FFM downcall, our bookkeeping) and nothing
 * of the driver's. Built by scripts/model-jmh.sh; functions nobody calls are left out (the JVM loads libraries
 * with lazy binding).
 */
#include <stddef.h>
#include <string.h>

typedef int CUresult;

CUresult cuInit(unsigned flags) { return 0; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuDeviceGet(int *d, int ordinal) { *d = ordinal; return 0; }
CUresult cuDeviceGetName(char *name, int len, int d) { strncpy(name, "fake GPU", (size_t) len); return 0; }
CUresult cuDeviceTotalMem_v2(size_t *bytes, int d) { *bytes = (size_t) 80 << 30; return 0; }
CUresult cuDeviceGetPCIBusId(char *bus, int len, int d) { strncpy(bus, "0000:00:00.0", (size_t) len); return 0; }
CUresult cuDeviceGetAttribute(int *v, int attribute, int d) {
    switch (attribute) {
        case 16: *v = 132; break; /* multiprocessors */
        case 75: *v = 9; break;   /* compute capability major */
        case 76: *v = 0; break;
        default: *v = 1;
    }
    return 0;
}
CUresult cuDevicePrimaryCtxRetain(void **ctx, int d) { *ctx = (void *) 0x1000; return 0; }
CUresult cuDevicePrimaryCtxRelease_v2(int d) { return 0; }
CUresult cuDevicePrimaryCtxRelease(int d) { return 0; }
CUresult cuCtxSetCurrent(void *ctx) { return 0; }
CUresult cuCtxSynchronize(void) { return 0; }
CUresult cuCtxGetStreamPriorityRange(int *least, int *greatest) { *least = 0; *greatest = -5; return 0; }
CUresult cuStreamCreateWithPriority(void **s, unsigned flags, int priority) { *s = (void *) 0x4000; return 0; }
CUresult cuStreamDestroy_v2(void *s) { return 0; }
CUresult cuStreamDestroy(void *s) { return 0; }
CUresult cuModuleLoadData(void **m, const void *image) { *m = (void *) 0x2000; return 0; }
CUresult cuModuleUnload(void *m) { return 0; }
CUresult cuModuleGetFunction(void **f, void *m, const char *name) { *f = (void *) 0x3000; return 0; }
CUresult cuGetErrorName(int rc, const char **s) { *s = "CUDA_ERROR_FAKE"; return 0; }
CUresult cuGetErrorString(int rc, const char **s) { *s = "fake"; return 0; }
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void *stream, void **params, void **extra) { return 0; }

/* NVRTC: a "compilation" yields a 16-byte cubin the fake driver accepts. */
int nvrtcVersion(int *major, int *minor) { *major = 13; *minor = 0; return 0; }
int nvrtcCreateProgram(void **p, const char *src, const char *name, int n, const char *const *h,
                       const char *const *hn) { *p = (void *) 0x5000; return 0; }
int nvrtcCompileProgram(void *p, int n, const char *const *options) { return 0; }
int nvrtcGetProgramLogSize(void *p, size_t *n) { *n = 1; return 0; }
int nvrtcGetProgramLog(void *p, char *log) { log[0] = 0; return 0; }
int nvrtcGetCUBINSize(void *p, size_t *n) { *n = 16; return 0; }
int nvrtcGetCUBIN(void *p, char *cubin) { memset(cubin, 0, 16); return 0; }
int nvrtcDestroyProgram(void **p) { return 0; }
const char *nvrtcGetErrorString(int rc) { return "fake"; }

/* Device memory: addresses from a counter, never dereferenced. */
static unsigned long long next_address = 0x100000000ULL;
CUresult cuMemAlloc_v2(unsigned long long *p, size_t bytes) {
    *p = next_address;
    next_address += (bytes + 0xfff) & ~(size_t) 0xfff;
    return 0;
}
CUresult cuMemFree_v2(unsigned long long p) { return 0; }
