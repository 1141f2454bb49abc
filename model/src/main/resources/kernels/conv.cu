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

// Grids of the passes below are two-dimensional: y walks rows (a column-matrix row, a channel plane), x the
// positions within one, so that the per-element index arithmetic is 32-bit with one division (p / ow_). Nsight
// Compute on an H200 showed the first im2col of this shape compute-bound (issue slots 78% busy, 430 GB/s) on
// the per-row setup, two 64-bit divisions and three 32-bit ones, paid by every thread for one element: now a thread
// takes IM2COL_PER_THREAD positions of its row, in 32-bit arithmetic.
#define IM2COL_PER_THREAD 8

// the column-matrix rows (img, k) of x: the p-th element of a row reads x[img, c, ih, iw], 0 in the padding
template <typename Out, typename Store>
__device__ __forceinline__ void im2col_rows(const float* __restrict__ x, Out* __restrict__ col, Store store,
                                            SHAPE_PARAMS) {
    int K = ci_ * kh_ * kw_;
    int P = oh_ * ow_;
    int rows = n_ * K;
    for (int row = blockIdx.y; row < rows; row += gridDim.y) {
        int img = row / K;
        int k = row - img * K;
        int q = k % kw_;
        int r = k / kw_ % kh_;
        int c = k / (kw_ * kh_);
        const float* plane = x + ((long long) img * ci_ + c) * h_ * w_;
        Out* out = col + (long long) row * P;
        for (int p0 = blockIdx.x * blockDim.x * IM2COL_PER_THREAD; p0 < P;
             p0 += gridDim.x * blockDim.x * IM2COL_PER_THREAD) {
#pragma unroll
            for (int e = 0; e < IM2COL_PER_THREAD; e++) {
                int p = p0 + e * blockDim.x + threadIdx.x;
                if (p < P) {
                    int oh = p / ow_;
                    int ih = oh * stride_ - pad_ + r;
                    int iw = (p - oh * ow_) * stride_ - pad_ + q;
                    out[p] = store(ih >= 0 && ih < h_ && iw >= 0 && iw < w_ ? plane[ih * w_ + iw] : 0.0f);
                }
            }
        }
    }
}

struct StoreF32 {
    __device__ float operator()(float v) const { return v; }
};

struct Store16 {
    int half;
    __device__ unsigned short operator()(float v) const { return round16(v, half); }
};

// col[img][k][p] of images 0 .. n_ - 1 of x (x and n_ already offset and sized to the chunk). fp32 col.
extern "C" __global__ void conv_im2col_f32(const float* x, float* col, SHAPE_PARAMS) {
    im2col_rows(x, col, StoreF32{}, n_, ci_, h_, w_, co_, kh_, kw_, stride_, pad_, oh_, ow_);
}

// As conv_im2col_f32, col rounded to 16 bits (half = 1: fp16, else bf16) for the autocast GEMMs: the cast costs no pass.
extern "C" __global__ void conv_im2col_16(const float* x, unsigned short* col, int half, SHAPE_PARAMS) {
    im2col_rows(x, col, Store16{half}, n_, ci_, h_, w_, co_, kh_, kw_, stride_, pad_, oh_, ow_);
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

// y[img, c, p] = act(y + b[c]) over the GEMM's NCHW output (b may be null; relu = 1: max(0, .)); one pass, a
// plane (img, c) per grid row.
extern "C" __global__ void conv_bias_act(float* y, const float* b, long long planes, int channels, int plane, int relu) {
    for (long long row = blockIdx.y; row < planes; row += gridDim.y) {
        float bias = b != nullptr ? b[row % channels] : 0.0f;
        float* out = y + row * plane;
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < plane; i += gridDim.x * blockDim.x) {
            float v = out[i] + bias;
            out[i] = relu && v < 0.0f ? 0.0f : v;
        }
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

// The maximum of plane `in`'s window at output (i, j) (padding counts as -inf; a window always holds one input,
// as padding <= k/2) and its flat index within the plane, the first maximum in row-major window order.
__device__ __forceinline__ float window_max(const float* in, int h, int w, int i, int j, int k, int stride, int pad,
                                            int* at) {
    float best = 0.0f;
    int where = -1;
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
            float v = in[ih * w + iw];
            if (where < 0 || v > best) {
                best = v;
                where = ih * w + iw;
            }
        }
    }
    *at = where;
    return best;
}

// max_pool2d over planes of h x w: y and the flat input index of each window's first maximum, which the backward
// pass adds the gradient to; a plane per grid row.
extern "C" __global__ void maxpool_forward(const float* x, float* y, int* argmax, long long planes, int h, int w,
                                           int oh, int ow, int k, int stride, int pad) {
    int outputs = oh * ow;
    for (long long c = blockIdx.y; c < planes; c += gridDim.y) {
        const float* in = x + c * h * w;
        for (int o = blockIdx.x * blockDim.x + threadIdx.x; o < outputs; o += gridDim.x * blockDim.x) {
            int i = o / ow;
            int at;
            y[c * outputs + o] = window_max(in, h, w, i, o - i * ow, k, stride, pad, &at);
            argmax[c * outputs + o] = (int) (c * h * w + at);
        }
    }
}

// y = max_pool2d(act(x + b[channel])) for inference (no argmax; b may be null, relu = 1: max(0, .)). As t -> act(t + b)
// never decreases, and neither does its floating-point rounding, that is exactly act(max(window) + b): the bias and
// ReLU of the convolution before take no pass over its (four times larger) output.
extern "C" __global__ void maxpool_bias_act_forward(const float* x, const float* b, float* y, long long planes,
                                                    int channels, int h, int w, int oh, int ow, int k, int stride,
                                                    int pad, int relu) {
    int outputs = oh * ow;
    for (long long c = blockIdx.y; c < planes; c += gridDim.y) {
        const float* in = x + c * h * w;
        float bias = b != nullptr ? b[c % channels] : 0.0f;
        for (int o = blockIdx.x * blockDim.x + threadIdx.x; o < outputs; o += gridDim.x * blockDim.x) {
            int i = o / ow;
            int at;
            float v = window_max(in, h, w, i, o - i * ow, k, stride, pad, &at) + bias;
            y[c * outputs + o] = relu && v < 0.0f ? 0.0f : v;
        }
    }
}

// dx (zeroed by the caller) += dy at each window's maximum; windows overlap when stride < k, hence atomics.
extern "C" __global__ void maxpool_backward(const float* dy, const int* argmax, float* dx, long long n) {
    for (long long o = blockIdx.x * (long long) blockDim.x + threadIdx.x; o < n; o += (long long) gridDim.x * blockDim.x) {
        atomicAdd(&dx[argmax[o]], dy[o]);
    }
}

// y[c] = mean of act(x + b[c % channels]) over plane c's hw values (b may be null, relu 0: the plain mean, as
// act is then the identity); one warp per plane.
extern "C" __global__ void global_avgpool_forward(const float* x, const float* b, float* y, long long planes,
                                                  int channels, int hw, int relu) {
    long long c = blockIdx.x * (long long) (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (c >= planes) {
        return;
    }
    float bias = b != nullptr ? b[c % channels] : 0.0f;
    float s = 0.0f;
    for (int i = lane; i < hw; i += 32) {
        float v = x[c * hw + i] + bias;
        s += relu && v < 0.0f ? 0.0f : v;
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
