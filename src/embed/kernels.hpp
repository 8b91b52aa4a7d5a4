// Numeric kernels of the encoder: the element-wise parts of a BERT layer (GELU, softmax, LayerNorm, residual
// adds) written so the compiler vectorizes them, compiled for x86-64-v3 (AVX2, FMA) with a portable fallback
// chosen at load time, and matrix products for a few rows that stream the weights once per call (in float, or in
// half precision packed once beforehand) instead of packing them at every call as a general sgemm does.
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

// Half-precision weights for linear_few_rows_packed: panels of kPanel output columns, and within a panel, for
// each input index k, the kPanel weights W[o][k] side by side. One panel is a row of kPanel halves per input.
inline constexpr int kPanel = 32;

// W [out x in] (PyTorch's Linear layout) rounded to half precision and packed as above into `dst`, which holds
// out * in halves. `out` must be a multiple of kPanel.
void pack_half(const float* w, int out, int in, uint16_t* dst);

// The instruction sets linear_few_rows_packed can use; kBest picks the widest this CPU has.
enum class Isa { kBest, kAvx2, kAvx512 };

// Whether linear_few_rows_packed can run on this CPU with `isa` (kAvx2: AVX2, FMA and F16C; kAvx512: AVX-512F).
bool has_packed(Isa isa = Isa::kBest);

// y[rows x out] = x[rows x in] * W^T + b with W packed by pack_half; products and sums in float, each output
// summed over k in order. The weights are read once per call and every row of x is applied to each weight while
// it is in a register, which is what a query of a few tokens is bound by. Returns false (y untouched) when
// has_packed(isa) is false or `out` is not a multiple of kPanel.
bool linear_few_rows_packed(const float* x, int rows, int in, const uint16_t* packed, const float* b, int out, float* y,
                            Isa isa = Isa::kBest);

// The same for the output columns [first, last) only (multiples of kPanel): the other columns of y are untouched,
// and each column computed is exactly what linear_few_rows_packed computes, so disjoint ranges can run on
// different threads. Returns false (y untouched) also for a range that is not whole panels within [0, out).
bool linear_few_rows_packed_columns(const float* x, int rows, int in, const uint16_t* packed, const float* b, int out,
                                    float* y, int first, int last, Isa isa = Isa::kBest);

}  // namespace lorekeeper::embed::kernels
