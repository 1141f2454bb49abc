// 2-D convolution on NCHW fp32 tensors as im2col + GEMM (the GEMMs are cuBLAS's, on the tensor cores under
// autocast), max pooling and global average pooling.
//
// The column matrix of nb images is col[img][k][p], k = (ci, kh, kw) and p = (oh, ow): row-major [K][P] per image,
// which cuBLAS reads as the column-major P x K matrix A, so that y_img (P x co column-major, i.e. NCHW's
// [co][P]) = A * W^T. col_source() is the index mapping; dev.aorta.model.ops.Im2col is its host twin, tested
// against the float64 reference.

#include "round16.cuh"

// the shape travels as eleven int parameters (the launcher passes scalars and pointers only)
#define SHAPE_PARAMS int n_, int ci_, int h_, int w_, int co_, int kh_, int kw_, int stride_, int pad_, int oh_, int ow_

// the offset in one image [ci][h][w] that column element (k, p) reads, or -1 where the window hangs over the padding
__device__ __forceinline__ long long col_source(int k, int p, int ci_, int h_, int w_, int kh_, int kw_, int stride_,
                                                int pad_, int ow_) {
    int q = k % kw_;
    int r = k / kw_ % kh_;
    int c = k / (kw_ * kh_);
    int ih = p / ow_ * stride_ - pad_ + r;
    int iw = p % ow_ * stride_ - pad_ + q;
    if (ih < 0 || ih >= h_ || iw < 0 || iw >= w_) {
        return -1;
    }
    return ((long long) c * h_ + ih) * w_ + iw;
}

// col[img][k][p] of images 0 .. n_ - 1 of x (x and n_ already offset and sized to the chunk). fp32 col.
extern "C" __global__ void conv_im2col_f32(const float* x, float* col, SHAPE_PARAMS) {
    int K = ci_ * kh_ * kw_;
    int P = oh_ * ow_;
    long long total = (long long) n_ * K * P;
    for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < total; i += (long long) gridDim.x * blockDim.x) {
        int p = (int) (i % P);
        int k = (int) (i / P % K);
        long long img = i / ((long long) P * K);
        long long src = col_source(k, p, ci_, h_, w_, kh_, kw_, stride_, pad_, ow_);
        col[i] = src < 0 ? 0.0f : x[img * ci_ * h_ * w_ + src];
    }
}

// As conv_im2col_f32, col rounded to 16 bits (half = 1: fp16, else bf16) for the autocast GEMMs: the cast costs no pass.
extern "C" __global__ void conv_im2col_16(const float* x, unsigned short* col, int half, SHAPE_PARAMS) {
    int K = ci_ * kh_ * kw_;
    int P = oh_ * ow_;
    long long total = (long long) n_ * K * P;
    for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < total; i += (long long) gridDim.x * blockDim.x) {
        int p = (int) (i % P);
        int k = (int) (i / P % K);
        long long img = i / ((long long) P * K);
        long long src = col_source(k, p, ci_, h_, w_, kh_, kw_, stride_, pad_, ow_);
        col[i] = round16(src < 0 ? 0.0f : x[img * ci_ * h_ * w_ + src], half);
    }
}

// dx[img, c, ih, iw] = sum of dcol[img][k][p] over the (k, p) whose col_source is this element (col2im); overwrites.
// A gather, one thread per dx element: the taps (r, q) with (ih + pad - r) / stride and (iw + pad - q) / stride
// whole and inside the output. Deterministic (no atomics).
extern "C" __global__ void conv_col2im(const float* dcol, float* dx, SHAPE_PARAMS) {
    int K = ci_ * kh_ * kw_;
    int P = oh_ * ow_;
    long long total = (long long) n_ * ci_ * h_ * w_;
    for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < total; i += (long long) gridDim.x * blockDim.x) {
        int iw = (int) (i % w_);
        int ih = (int) (i / w_ % h_);
        int c = (int) (i / ((long long) w_ * h_) % ci_);
        long long img = i / ((long long) w_ * h_ * ci_);
        const float* d = dcol + img * K * P;
        float acc = 0.0f;
        for (int r = 0; r < kh_; r++) {
            int th = ih + pad_ - r;
            if (th < 0 || th % stride_ != 0 || th / stride_ >= oh_) {
                continue;
            }
            for (int q = 0; q < kw_; q++) {
                int tw = iw + pad_ - q;
                if (tw < 0 || tw % stride_ != 0 || tw / stride_ >= ow_) {
                    continue;
                }
                acc += d[(long long) ((c * kh_ + r) * kw_ + q) * P + th / stride_ * ow_ + tw / stride_];
            }
        }
        dx[i] = acc;
    }
}

// y[img, c, p] = act(y + b[c]) over the GEMM's NCHW output (b may be null; relu = 1: max(0, .)); one pass.
extern "C" __global__ void conv_bias_act(float* y, const float* b, long long n, int channels, int plane, int relu) {
    for (long long i = blockIdx.x * (long long) blockDim.x + threadIdx.x; i < n; i += (long long) gridDim.x * blockDim.x) {
        float v = y[i] + (b != nullptr ? b[i / plane % channels] : 0.0f);
        y[i] = relu && v < 0.0f ? 0.0f : v;
    }
}

// db[co] += sum over images and positions of dy; one block of 256 threads per output channel.
extern "C" __global__ void conv2d_backward_bias(const float* dy, float* db, SHAPE_PARAMS) {
    __shared__ float part[256];
    int co = blockIdx.x;
    int hw = oh_ * ow_;
    float acc = 0.0f;
    for (long long i = threadIdx.x; i < (long long) n_ * hw; i += blockDim.x) {
        long long img = i / hw;
        acc += dy[(img * co_ + co) * hw + i % hw];
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
