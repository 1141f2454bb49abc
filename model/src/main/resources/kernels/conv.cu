// 2-D convolution as an implicit GEMM, max pooling and global average pooling on NCHW fp32 tensors.
//
// conv2d: y[img, co, oh, ow] = b[co] + sum_k A[m, k] W[co, k] with m = (img, oh, ow) and k = (ci, kh, kw): A is
// the im2col matrix of x, never stored: each 16x16 tile of it is gathered from x into shared memory (zero
// where the window hangs over the padding). The weight gradient is the same implicit GEMM with dy in place of
// W (reduction over m); the input gradient gathers, for each x element, the outputs whose windows cover it.
// Blocks of 256 threads as 16x16 (tx = threadIdx.x % 16, ty = threadIdx.x / 16).

#define T16 16

struct ConvShape {
    int n, ci, h, w, co, kh, kw, stride, pad, oh, ow;
};

// the shape travels as eleven int parameters (the launcher passes scalars and pointers only)
#define SHAPE_PARAMS int n_, int ci_, int h_, int w_, int co_, int kh_, int kw_, int stride_, int pad_, int oh_, int ow_
#define SHAPE ConvShape s = {n_, ci_, h_, w_, co_, kh_, kw_, stride_, pad_, oh_, ow_}

// im2col element A[m, k], or 0 outside the matrix or over the padding
__device__ __forceinline__ float im2col(const float* x, const ConvShape& s, long long m, int k, long long M, int K) {
    if (m >= M || k >= K) {
        return 0.0f;
    }
    int ow = (int) (m % s.ow);
    int oh = (int) (m / s.ow % s.oh);
    int img = (int) (m / ((long long) s.ow * s.oh));
    int q = k % s.kw;
    int p = k / s.kw % s.kh;
    int ci = k / (s.kw * s.kh);
    int ih = oh * s.stride - s.pad + p;
    int iw = ow * s.stride - s.pad + q;
    if (ih < 0 || ih >= s.h || iw < 0 || iw >= s.w) {
        return 0.0f;
    }
    return x[(((long long) img * s.ci + ci) * s.h + ih) * s.w + iw];
}

// grid (ceil(co / 16), ceil(M / 16)); thread (ty, tx) computes y for m = 16*by + ty, co = 16*bx + tx
extern "C" __global__ void conv2d_forward(const float* x, const float* wt, const float* b, float* y, SHAPE_PARAMS) {
    SHAPE;
    __shared__ float As[T16][T16 + 1];
    __shared__ float Bs[T16][T16 + 1];
    int tx = threadIdx.x % T16;
    int ty = threadIdx.x / T16;
    long long M = (long long) s.n * s.oh * s.ow;
    int K = s.ci * s.kh * s.kw;
    long long m = (long long) blockIdx.y * T16 + ty;
    int co = blockIdx.x * T16 + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T16) {
        As[ty][tx] = im2col(x, s, m, k0 + tx, M, K);
        // Bs[kk][c] = W[16*bx + c, k0 + kk]: thread (ty, tx) loads kk = tx for output channel 16*bx + ty
        int wc = blockIdx.x * T16 + ty;
        Bs[tx][ty] = wc < s.co && k0 + tx < K ? wt[(long long) wc * K + k0 + tx] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < T16; kk++) {
            acc += As[ty][kk] * Bs[kk][tx];
        }
        __syncthreads();
    }
    if (m < M && co < s.co) {
        int ow = (int) (m % s.ow);
        int oh = (int) (m / s.ow % s.oh);
        long long img = m / ((long long) s.ow * s.oh);
        y[((img * s.co + co) * s.oh + oh) * s.ow + ow] = acc + (b != nullptr ? b[co] : 0.0f);
    }
}

// dW[co, k] += sum_m dy[m, co] A[m, k]; grid (ceil(K / 16), ceil(co / 16)); thread (ty, tx): co = 16*by + ty,
// k = 16*bx + tx. Deterministic (each dW element is one thread's sum in a fixed order).
extern "C" __global__ void conv2d_backward_weight(const float* x, const float* dy, float* dw, SHAPE_PARAMS) {
    SHAPE;
    __shared__ float Ds[T16][T16 + 1]; // [co][m]
    __shared__ float As[T16][T16 + 1]; // [m][k]
    int tx = threadIdx.x % T16;
    int ty = threadIdx.x / T16;
    long long M = (long long) s.n * s.oh * s.ow;
    int K = s.ci * s.kh * s.kw;
    int co = blockIdx.y * T16 + ty;
    int k = blockIdx.x * T16 + tx;
    float acc = 0.0f;
    for (long long m0 = 0; m0 < M; m0 += T16) {
        long long m = m0 + tx;
        float g = 0.0f;
        if (co < s.co && m < M) {
            int ow = (int) (m % s.ow);
            int oh = (int) (m / s.ow % s.oh);
            long long img = m / ((long long) s.ow * s.oh);
            g = dy[((img * s.co + co) * s.oh + oh) * s.ow + ow];
        }
        Ds[ty][tx] = g;
        As[ty][tx] = im2col(x, s, m0 + ty, blockIdx.x * T16 + tx, M, K);
        __syncthreads();
#pragma unroll
        for (int mm = 0; mm < T16; mm++) {
            acc += Ds[ty][mm] * As[mm][tx];
        }
        __syncthreads();
    }
    if (co < s.co && k < K) {
        dw[(long long) co * K + k] += acc;
    }
}

// db[co] += sum over images and positions of dy; one block of 256 threads per output channel.
extern "C" __global__ void conv2d_backward_bias(const float* dy, float* db, SHAPE_PARAMS) {
    SHAPE;
    __shared__ float part[256];
    int co = blockIdx.x;
    int hw = s.oh * s.ow;
    float acc = 0.0f;
    for (long long i = threadIdx.x; i < (long long) s.n * hw; i += blockDim.x) {
        long long img = i / hw;
        acc += dy[(img * s.co + co) * hw + i % hw];
    }
    part[threadIdx.x] = acc;
    __syncthreads();
    for (int stride = 128; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) {
            part[threadIdx.x] += part[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        db[co] += part[0];
    }
}

// dx[img, ci, ih, iw] = sum over co and the kernel taps (p, q) whose output position (ih + pad - p) / stride,
// (iw + pad - q) / stride is whole and inside the output, of dy[img, co, oh, ow] W[co, ci, p, q]. Overwrites.
extern "C" __global__ void conv2d_backward_input(const float* dy, const float* wt, float* dx, SHAPE_PARAMS) {
    SHAPE;
    long long n = (long long) s.n * s.ci * s.h * s.w;
    int K = s.ci * s.kh * s.kw;
    for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n; i += (long long) gridDim.x * blockDim.x) {
        int iw = (int) (i % s.w);
        int ih = (int) (i / s.w % s.h);
        int ci = (int) (i / ((long long) s.w * s.h) % s.ci);
        long long img = i / ((long long) s.w * s.h * s.ci);
        float acc = 0.0f;
        for (int p = 0; p < s.kh; p++) {
            int th = ih + s.pad - p;
            if (th < 0 || th % s.stride != 0 || th / s.stride >= s.oh) {
                continue;
            }
            int oh = th / s.stride;
            for (int q = 0; q < s.kw; q++) {
                int tw = iw + s.pad - q;
                if (tw < 0 || tw % s.stride != 0 || tw / s.stride >= s.ow) {
                    continue;
                }
                int ow = tw / s.stride;
                for (int co = 0; co < s.co; co++) {
                    acc += dy[((img * s.co + co) * s.oh + oh) * s.ow + ow]
                           * wt[(long long) co * K + (ci * s.kh + p) * s.kw + q];
                }
            }
        }
        dx[i] = acc;
    }
}

// max_pool2d over planes of h x w (padding counts as -inf): y and the flat input index of each window's first
// maximum (row-major window order), which the backward pass adds the gradient to.
extern "C" __global__ void maxpool_forward(const float* x, float* y, int* argmax, long long planes, int h, int w,
                                           int oh, int ow, int k, int stride, int pad) {
    long long n = planes * oh * ow;
    for (long long o = blockIdx.x * (long long) blockDim.x + threadIdx.x; o < n; o += (long long) gridDim.x * blockDim.x) {
        int j = (int) (o % ow);
        int i = (int) (o / ow % oh);
        long long c = o / ((long long) ow * oh);
        float best = 0.0f;
        long long at = -1;
        for (int p = 0; p < k; p++) {
            int ih = i * stride - pad + p;
            if (ih < 0 || ih >= h) {
                continue;
            }
            for (int q = 0; q < k; q++) {
                int iw = j * stride - pad + q;
                if (iw < 0 || iw >= w) {
                    continue;
                }
                long long idx = (c * h + ih) * w + iw;
                float v = x[idx];
                if (at < 0 || v > best) {
                    best = v;
                    at = idx;
                }
            }
        }
        y[o] = best;
        argmax[o] = (int) at;
    }
}

// dx (zeroed by the caller) += dy at each window's maximum; windows overlap when stride < k, hence atomics.
extern "C" __global__ void maxpool_backward(const float* dy, const int* argmax, float* dx, long long n) {
    for (long long o = blockIdx.x * (long long) blockDim.x + threadIdx.x; o < n; o += (long long) gridDim.x * blockDim.x) {
        atomicAdd(&dx[argmax[o]], dy[o]);
    }
}

// y[c] = mean of plane c's hw values; one warp per plane.
extern "C" __global__ void global_avgpool_forward(const float* x, float* y, long long planes, int hw) {
    long long c = blockIdx.x * (long long) (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (c >= planes) {
        return;
    }
    float s = 0.0f;
    for (int i = lane; i < hw; i += 32) {
        s += x[c * hw + i];
    }
    for (int o = 16; o > 0; o >>= 1) {
        s += __shfl_xor_sync(0xffffffffu, s, o);
    }
    if (lane == 0) {
        y[c] = s / hw;
    }
}

extern "C" __global__ void global_avgpool_backward(const float* dy, float* dx, long long planes, int hw) {
    long long n = planes * hw;
    for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n; i += (long long) gridDim.x * blockDim.x) {
        dx[i] = dy[i / hw] / hw;
    }
}
