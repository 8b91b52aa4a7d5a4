#include "kernels.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "lorekeeper/core/half.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#define LK_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define LK_VECTOR_CLONES
#endif

namespace lorekeeper::embed::kernels {

namespace {

constexpr int kLanes = 16;

// exp(x) for x in float range, by 2^n * p(r) with r = x - n ln2 (Cody-Waite split), |r| <= ln2/2, and a
// degree-7 polynomial for e^r. Inputs below -87.3 are clamped (their result, ~1e-38, is 0 for our uses).
inline float exp_approx(float x) {
  x = std::min(std::max(x, -87.3f), 88.7f);
  // Round to nearest by the 1.5 * 2^23 trick: vectorizes everywhere, unlike floor without SSE4.1.
  const float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  const float r = x - n * 0.693359375f + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

// erf(z) by Abramowitz & Stegun 7.1.26 (absolute error <= 1.5e-7), odd-extended.
inline float erf_approx(float z) {
  const float a = std::fabs(z);
  const float t = 1.0f / (1.0f + 0.3275911f * a);
  float p = 1.061405429f;
  p = p * t - 1.453152027f;
  p = p * t + 1.421413741f;
  p = p * t - 0.284496736f;
  p = p * t + 0.254829592f;
  const float e = 1.0f - p * t * exp_approx(-a * a);
  return std::copysign(e, z);
}

inline float lane_sum(const float* acc) {
  float s = 0;
  for (int l = 0; l < kLanes; ++l) s += acc[l];
  return s;
}

}  // namespace

LK_VECTOR_CLONES void gelu(float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] = 0.5f * x[i] * (1.0f + erf_approx(x[i] * 0.70710678118654752f));
}

LK_VECTOR_CLONES void softmax_rows(float* s, int rows, int cols, int stride) {
  for (int r = 0; r < rows; ++r) {
    float* row = s + static_cast<size_t>(r) * stride;
    float mx[kLanes];
    std::fill(mx, mx + kLanes, row[0]);
    int c = 0;
    for (; c + kLanes <= cols; c += kLanes) {
      for (int l = 0; l < kLanes; ++l) mx[l] = std::max(mx[l], row[c + l]);
    }
    float m = *std::max_element(mx, mx + kLanes);
    for (; c < cols; ++c) m = std::max(m, row[c]);
    for (int i = 0; i < cols; ++i) row[i] = exp_approx(row[i] - m);
    float acc[kLanes] = {};
    c = 0;
    for (; c + kLanes <= cols; c += kLanes) {
      for (int l = 0; l < kLanes; ++l) acc[l] += row[c + l];
    }
    float sum = lane_sum(acc);
    for (; c < cols; ++c) sum += row[c];
    const float inv = 1.0f / sum;
    for (int i = 0; i < cols; ++i) row[i] *= inv;
  }
}

LK_VECTOR_CLONES void layer_norm(float* x, int rows, int dim, const float* gamma, const float* beta, float eps) {
  for (int r = 0; r < rows; ++r) {
    float* v = x + static_cast<size_t>(r) * dim;
    float acc[kLanes] = {};
    int i = 0;
    for (; i + kLanes <= dim; i += kLanes) {
      for (int l = 0; l < kLanes; ++l) acc[l] += v[i + l];
    }
    float sum = lane_sum(acc);
    for (; i < dim; ++i) sum += v[i];
    const float mean = sum / static_cast<float>(dim);
    std::fill(acc, acc + kLanes, 0.0f);
    i = 0;
    for (; i + kLanes <= dim; i += kLanes) {
      for (int l = 0; l < kLanes; ++l) acc[l] += (v[i + l] - mean) * (v[i + l] - mean);
    }
    float sq = lane_sum(acc);
    for (; i < dim; ++i) sq += (v[i] - mean) * (v[i] - mean);
    const float inv = 1.0f / std::sqrt(sq / static_cast<float>(dim) + eps);
    for (int j = 0; j < dim; ++j) v[j] = (v[j] - mean) * inv * gamma[j] + beta[j];
  }
}

LK_VECTOR_CLONES void add(float* y, const float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] += x[i];
}

#if defined(__x86_64__)
namespace {

__attribute__((target("avx2,fma"))) inline float hsum(__m256 v) {
  const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 h = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(h, _mm_shuffle_ps(h, h, 1)));
}

// R input rows against 4 weight rows: R x 4 accumulators. With R = 3 that is 12 accumulators, 3 input and 1
// weight register, all 16 of AVX2.
template <int R>
__attribute__((target("avx2,fma"), always_inline)) inline void block(const float* x, int in, const float* w,
                                                                     const float* b, int out, float* y) {
  __m256 acc[R][4];
  for (int r = 0; r < R; ++r) {
    for (int j = 0; j < 4; ++j) acc[r][j] = _mm256_setzero_ps();
  }
  for (int k = 0; k < in; k += 8) {
    __m256 xv[R];
    for (int r = 0; r < R; ++r) xv[r] = _mm256_loadu_ps(x + static_cast<size_t>(r) * in + k);
    for (int j = 0; j < 4; ++j) {
      const __m256 wv = _mm256_loadu_ps(w + static_cast<size_t>(j) * in + k);
      for (int r = 0; r < R; ++r) acc[r][j] = _mm256_fmadd_ps(wv, xv[r], acc[r][j]);
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int j = 0; j < 4; ++j) y[static_cast<size_t>(r) * out + j] = b[j] + hsum(acc[r][j]);
  }
}

// Every input row against one block of 4 weight rows (4 x in floats, in L1): y[t][0..3] for each row t.
__attribute__((target("avx2,fma"))) inline void rows_against_block(const float* x, int rows, int in, const float* wo,
                                                                   const float* b, int out, float* y) {
  int t = 0;
  for (; t + 3 <= rows; t += 3)
    block<3>(x + static_cast<size_t>(t) * in, in, wo, b, out, y + static_cast<size_t>(t) * out);
  if (rows - t == 2) block<2>(x + static_cast<size_t>(t) * in, in, wo, b, out, y + static_cast<size_t>(t) * out);
  if (rows - t == 1) block<1>(x + static_cast<size_t>(t) * in, in, wo, b, out, y + static_cast<size_t>(t) * out);
}

// Prefetches `bytes` from `p` into L2 (into L1 they would crowd out the block being computed).
inline void prefetch_l2(const void* p, size_t bytes) {
  const char* c = static_cast<const char*>(p);
  for (size_t off = 0; off < bytes; off += 64) _mm_prefetch(c + off, _MM_HINT_T1);
}

// Four output columns at a time: their weight rows (4 x in floats) are read from memory once and stay in L1
// while every input row passes over them; the next block's rows are prefetched meanwhile.
__attribute__((target("avx2,fma"))) void linear_few_rows_avx2(const float* x, int rows, int in, const float* w,
                                                              const float* b, int out, float* y) {
  const size_t block_floats = static_cast<size_t>(4) * in;
  for (int o = 0; o < out; o += 4) {
    const float* wo = w + static_cast<size_t>(o) * in;
    if (o + 4 < out) prefetch_l2(wo + block_floats, block_floats * sizeof(float));
    rows_against_block(x, rows, in, wo, b + o, out, y + o);
  }
}

// Packed half-precision weights (see pack_half), outer-product form: for each input index k the panel's weights
// are widened once and multiplied by x[r][k] of every row r of the tile, into R x kPanel float accumulators that
// stay in registers for the whole sum over k. The loops over rows are unrolled by pragma: left to itself GCC keeps
// the accumulator array on the stack and stores it at every k, which halves the rate.

// AVX-512: R rows x 2 registers of 16 columns; R = 12 takes 24 accumulators, 2 weight and 1 broadcast register
// of the 32.
template <int R>
__attribute__((target("avx512f"), always_inline)) inline void panel_tile_512(const float* x, int in, const uint16_t* p,
                                                                             const float* b, int out, float* y) {
  __m512 acc[R][2];
  const __m512 b0 = _mm512_loadu_ps(b);
  const __m512 b1 = _mm512_loadu_ps(b + 16);
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) acc[r][0] = b0, acc[r][1] = b1;
  for (int k = 0; k < in; ++k) {
    const uint16_t* pk = p + static_cast<size_t>(k) * kPanel;
    // The zero-masking form: the plain one leaves an "undefined" source that GCC warns about once inlined.
    const __m512 w0 = _mm512_maskz_cvtph_ps(0xFFFF, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pk)));
    const __m512 w1 = _mm512_maskz_cvtph_ps(0xFFFF, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pk + 16)));
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const __m512 xv = _mm512_set1_ps(x[static_cast<size_t>(r) * in + k]);
      acc[r][0] = _mm512_fmadd_ps(w0, xv, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(w1, xv, acc[r][1]);
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    _mm512_storeu_ps(y + static_cast<size_t>(r) * out, acc[r][0]);
    _mm512_storeu_ps(y + static_cast<size_t>(r) * out + 16, acc[r][1]);
  }
}

// AVX2: one half of the panel (16 columns, `half` 0 or 1) at a time, R rows x 2 registers; R = 6 takes 12
// accumulators, 2 weight and 1 broadcast register of the 16.
template <int R>
__attribute__((target("avx2,fma,f16c"), always_inline)) inline void panel_tile_256(const float* x, int in,
                                                                                   const uint16_t* p, int half,
                                                                                   const float* b, int out, float* y) {
  const int c = half * 16;
  __m256 acc[R][2];
  const __m256 b0 = _mm256_loadu_ps(b + c);
  const __m256 b1 = _mm256_loadu_ps(b + c + 8);
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) acc[r][0] = b0, acc[r][1] = b1;
  for (int k = 0; k < in; ++k) {
    const uint16_t* pk = p + static_cast<size_t>(k) * kPanel + c;
    const __m256 w0 = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(pk)));
    const __m256 w1 = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(pk + 8)));
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const __m256 xv = _mm256_broadcast_ss(x + static_cast<size_t>(r) * in + k);
      acc[r][0] = _mm256_fmadd_ps(w0, xv, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(w1, xv, acc[r][1]);
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    _mm256_storeu_ps(y + static_cast<size_t>(r) * out + c, acc[r][0]);
    _mm256_storeu_ps(y + static_cast<size_t>(r) * out + c + 8, acc[r][1]);
  }
}

template <int... R>
__attribute__((target("avx512f"))) void tile_512(int rows, const float* x, int in, const uint16_t* p, const float* b,
                                                 int out, float* y, std::integer_sequence<int, R...>) {
  // rows is 1..12: the tile instantiated for exactly that many rows.
  ((rows == R + 1 ? panel_tile_512<R + 1>(x, in, p, b, out, y) : void()), ...);
}

template <int... R>
__attribute__((target("avx2,fma,f16c"))) void tile_256(int rows, const float* x, int in, const uint16_t* p, int half,
                                                       const float* b, int out, float* y,
                                                       std::integer_sequence<int, R...>) {
  ((rows == R + 1 ? panel_tile_256<R + 1>(x, in, p, half, b, out, y) : void()), ...);
}

// Panels outside, row tiles inside: a panel (in x kPanel halves, at most 96 KiB) is read from memory once and
// from cache by the further tiles.
__attribute__((target("avx512f"))) void linear_packed_512(const float* x, int rows, int in, const uint16_t* packed,
                                                          const float* b, int out, float* y, int first, int last) {
  constexpr int kTile = 12;
  for (int o = first; o < last; o += kPanel) {
    const uint16_t* p = packed + static_cast<size_t>(o) * in;
    for (int t = 0; t < rows; t += kTile) {
      tile_512(std::min(kTile, rows - t), x + static_cast<size_t>(t) * in, in, p, b + o, out,
               y + static_cast<size_t>(t) * out + o, std::make_integer_sequence<int, kTile>());
    }
  }
}

__attribute__((target("avx2,fma,f16c"))) void linear_packed_256(const float* x, int rows, int in,
                                                                const uint16_t* packed, const float* b, int out,
                                                                float* y, int first, int last) {
  constexpr int kTile = 6;
  for (int o = first; o < last; o += kPanel) {
    const uint16_t* p = packed + static_cast<size_t>(o) * in;
    for (int half = 0; half < 2; ++half) {
      for (int t = 0; t < rows; t += kTile) {
        tile_256(std::min(kTile, rows - t), x + static_cast<size_t>(t) * in, in, p, half, b + o, out,
                 y + static_cast<size_t>(t) * out + o, std::make_integer_sequence<int, kTile>());
      }
    }
  }
}

bool cpu_has_avx512f() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}

bool cpu_has_avx2_fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}

}  // namespace
#endif

void pack_half(const float* w, int out, int in, uint16_t* dst) {
  std::vector<float> row(kPanel);
  for (int o = 0; o < out; o += kPanel) {
    for (int k = 0; k < in; ++k) {
      for (int j = 0; j < kPanel; ++j) row[static_cast<size_t>(j)] = w[static_cast<size_t>(o + j) * in + k];
      half::from_floats(row.data(), kPanel, dst + (static_cast<size_t>(o) * in + static_cast<size_t>(k) * kPanel));
    }
  }
}

bool has_packed(Isa isa) {
#if defined(__x86_64__)
  switch (isa) {
    case Isa::kBest: return half::hardware() || cpu_has_avx512f();
    case Isa::kAvx2: return half::hardware();
    case Isa::kAvx512: return cpu_has_avx512f();
  }
#else
  (void)isa;
#endif
  return false;
}

bool linear_few_rows_packed(const float* x, int rows, int in, const uint16_t* packed, const float* b, int out, float* y,
                            Isa isa) {
  return linear_few_rows_packed_columns(x, rows, in, packed, b, out, y, 0, out, isa);
}

bool linear_few_rows_packed_columns(const float* x, int rows, int in, const uint16_t* packed, const float* b, int out,
                                    float* y, int first, int last, Isa isa) {
#if defined(__x86_64__)
  if (out % kPanel != 0 || first % kPanel != 0 || last % kPanel != 0 || first < 0 || last > out || first > last ||
      !has_packed(isa)) {
    return false;
  }
  if (isa == Isa::kAvx512 || (isa == Isa::kBest && cpu_has_avx512f())) {
    linear_packed_512(x, rows, in, packed, b, out, y, first, last);
  } else {
    linear_packed_256(x, rows, in, packed, b, out, y, first, last);
  }
  return true;
#else
  (void)x, (void)rows, (void)in, (void)packed, (void)b, (void)out, (void)y, (void)first, (void)last, (void)isa;
  return false;
#endif
}

bool linear_few_rows(const float* x, int rows, int in, const float* w, const float* b, int out, float* y) {
#if defined(__x86_64__)
  if (in % 8 != 0 || out % 4 != 0 || !cpu_has_avx2_fma()) return false;
  linear_few_rows_avx2(x, rows, in, w, b, out, y);
  return true;
#else
  (void)x, (void)rows, (void)in, (void)w, (void)b, (void)out, (void)y;
  return false;
#endif
}

}  // namespace lorekeeper::embed::kernels
