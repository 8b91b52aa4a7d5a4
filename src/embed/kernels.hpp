// Numeric kernels of the encoder: the element-wise parts of a BERT layer (GELU, softmax, LayerNorm, residual
// adds) written so the compiler vectorizes them, compiled for x86-64-v3 (AVX2, FMA) with a portable fallback
// chosen at load time, and a matrix product for a few rows that streams the weights once instead of packing
// them as a general sgemm does.
//
// Accuracy: exp and erf are polynomial approximations (relative error of exp about 2e-7, absolute error of erf
// under 2e-7), far inside the parity tolerance against the reference (1e-4 per component); sums are taken in
// 16 independent float lanes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lorekeeper::embed::kernels {

// x[i] = x[i] * Phi(x[i]) (the exact, erf-based GELU), in place.
void gelu(float* x, size_t n);

// Each of `rows` rows of length `cols` (stride `stride`) becomes its softmax.
void softmax_rows(float* s, int rows, int cols, int stride);

// Each of `rows` rows of length `dim` is normalised to zero mean and unit variance (plus `eps`), then scaled
// by gamma and shifted by beta.
void layer_norm(float* x, int rows, int dim, const float* gamma, const float* beta, float eps);

// y[i] += x[i].
void add(float* y, const float* x, size_t n);

// y[rows x out] = x[rows x in] * W^T + b with W stored [out x in] (PyTorch's Linear layout). Uses the streaming
// kernel when the CPU has AVX2 and FMA and `in` is a multiple of 8 and `out` of 4; returns false (y untouched)
// otherwise, for the caller to use a general sgemm.
bool linear_few_rows(const float* x, int rows, int in, const float* w, const float* b, int out, float* y);

// The longest input row linear_few_rows_half takes (MiniLM's FFN width).
inline constexpr int kMaxHalfIn = 1536;

// linear_few_rows with W in half precision (as half::from_floats makes it); the products and sums are in float. Returns
// false (y untouched) without AVX2, FMA and F16C, or when `in` is not a multiple of 8 up to kMaxHalfIn or `out`
// not a multiple of 4.
bool linear_few_rows_half(const float* x, int rows, int in, const uint16_t* w, const float* b, int out, float* y);

}  // namespace lorekeeper::embed::kernels
