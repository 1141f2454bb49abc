// Just enough CUDA to run simple kernels on the CPU for tests: one OS thread per CUDA thread, blocks one after
// another, __syncthreads a std::barrier, __shared__ variables static (shared by the threads of the one running
// block). No warps, no atomics, no streams.
#include <barrier>
#include <cstring>
#include <thread>
#include <vector>

struct EmulatedDim3 {
    unsigned x = 1, y = 1, z = 1;
};
thread_local EmulatedDim3 threadIdx, blockIdx;
EmulatedDim3 blockDim, gridDim;
std::barrier<>* emulatedBlockBarrier;

#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static

inline void __syncthreads() { emulatedBlockBarrier->arrive_and_wait(); }

inline float __int_as_float(int i) {
    float f;
    std::memcpy(&f, &i, sizeof f);
    return f;
}

template <class Kernel> void launch(unsigned grid, unsigned block, Kernel kernel) {
    gridDim.x = grid;
    blockDim.x = block;
    for (unsigned b = 0; b < grid; b++) {
        std::barrier<> barrier(block);
        emulatedBlockBarrier = &barrier;
        std::vector<std::thread> threads;
        for (unsigned t = 0; t < block; t++) {
            threads.emplace_back([=] {
                blockIdx.x = b;
                threadIdx.x = t;
                kernel();
            });
        }
        for (auto& t : threads) {
            t.join();
        }
    }
}
