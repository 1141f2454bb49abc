/**
 * The float64 CPU reference of each op, forward and backward, on small row-major arrays: the second oracle
 * of the GPU tests (next to PyTorch) and checked itself against finite differences in CI. Written for
 * clarity, not speed. Gradients follow PyTorch's semantics (loss reductions, weight layouts).
 */
package dev.aorta.model.reference;
