// The optimizer step over all parameters in one launch (multi-tensor): a table in device memory lists each
// parameter's value, gradient and moment buffers (float* addresses) and where its elements start in the
// concatenated index space (starts: count + 1 prefix sums of element counts). Every kernel walks the tensors
// in turn, the whole grid striding over each, so a thread never searches for its tensor. The global gradient
// norm is two launches (block partials, then one block), and the AdamW step reads it on the device to clip,
// so no host sync is needed.

// partial[block] = sum of squared gradients of this block's grid-stride share. blockDim.x must be 256.
// 16-byte loads where a tensor's length is a multiple of 4 (allocator buffers are 512-byte aligned).
extern "C" __global__ void grad_sum_squares(const long long* grads, const long long* starts, int count,
                                            float* partial) {
    __shared__ float part[256];
    long long tid = blockIdx.x * (long long) blockDim.x + threadIdx.x;
    long long stride = (long long) gridDim.x * blockDim.x;
    float s = 0.0f;
    for (int t = 0; t < count; t++) {
        long long n = starts[t + 1] - starts[t];
        const float* g = (const float*) grads[t];
        if ((n & 3) == 0) {
            for (long long j = tid; j < n / 4; j += stride) {
                float4 v = reinterpret_cast<const float4*>(g)[j];
                s += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
            }
        } else {
            for (long long j = tid; j < n; j += stride) {
                s += g[j] * g[j];
            }
        }
    }
    part[threadIdx.x] = s;
    __syncthreads();
    for (int stride2 = 128; stride2 > 0; stride2 >>= 1) {
        if (threadIdx.x < stride2) {
            part[threadIdx.x] += part[threadIdx.x + stride2];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = part[0];
    }
}

// Every gradient set to zero in one launch (instead of one memset per tensor).
extern "C" __global__ void zero_grads(const long long* grads, const long long* starts, int count) {
    long long tid = blockIdx.x * (long long) blockDim.x + threadIdx.x;
    long long stride = (long long) gridDim.x * blockDim.x;
    for (int t = 0; t < count; t++) {
        long long n = starts[t + 1] - starts[t];
        float* g = (float*) grads[t];
        if ((n & 3) == 0) {
            for (long long j = tid; j < n / 4; j += stride) {
                reinterpret_cast<float4*>(g)[j] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            }
        } else {
            for (long long j = tid; j < n; j += stride) {
                g[j] = 0.0f;
            }
        }
    }
}

// norm[0] = sqrt(sum of the partials), from one block of 256 threads.
extern "C" __global__ void grad_norm_finish(const float* partial, int blocks, float* norm) {
    __shared__ float part[256];
    float s = 0.0f;
    for (int i = threadIdx.x; i < blocks; i += blockDim.x) {
        s += partial[i];
    }
    part[threadIdx.x] = s;
    __syncthreads();
    for (int stride = 128; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) {
            part[threadIdx.x] += part[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        norm[0] = sqrtf(part[0]);
    }
}

// torch.optim.AdamW's arithmetic: p *= 1 - lr*wd; m = lerp(m, g, 1-b1); v = b2*v + (1-b2)*g*g;
// p -= step_size * m / (sqrt(v) / bc2_sqrt + eps), step_size = lr / (1 - b1^t), bc2_sqrt = sqrt(1 - b2^t).
// The gradient is first unscaled (times inv_scale: 1, or 1/loss scale under fp16), then with norm != null and
// max_norm > 0 clipped by min(1, max_norm / (norm * inv_scale + 1e-6)) (clip_grad_norm_ of the unscaled norm).
extern "C" __global__ void adamw_step(const long long* params, const long long* grads, const long long* ms,
                                      const long long* vs, const long long* starts, int count, float lr, float beta1, float beta2, float eps, float wd,
                                      float step_size, float bc2_sqrt, const float* norm, float max_norm,
                                      float inv_scale) {
    float clip = inv_scale;
    if (norm != nullptr && max_norm > 0.0f) {
        clip = inv_scale * fminf(1.0f, max_norm / (norm[0] * inv_scale + 1e-6f));
    }
    long long tid = blockIdx.x * (long long) blockDim.x + threadIdx.x;
    long long stride = (long long) gridDim.x * blockDim.x;
    for (int t = 0; t < count; t++) {
        long long n = starts[t + 1] - starts[t];
        float* p = (float*) params[t];
        float* m = (float*) ms[t];
        float* v = (float*) vs[t];
        const float* gt = (const float*) grads[t];
        for (long long j = tid; j < n; j += stride) {
            float g = gt[j] * clip;
            float mj = m[j] + (1.0f - beta1) * (g - m[j]);
            float vj = beta2 * v[j] + (1.0f - beta2) * g * g;
            m[j] = mj;
            v[j] = vj;
            float pj = p[j] * (1.0f - lr * wd);
            p[j] = pj - step_size * mj / (sqrtf(vj) / bc2_sqrt + eps);
        }
    }
}
