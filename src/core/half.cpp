#include "lorekeeper/core/half.hpp"

#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace lorekeeper::half {

namespace {

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Round to nearest even, as F16C's _MM_FROUND_TO_NEAREST_INT does.
uint16_t portable_from_float(float f) {
  const uint32_t u = bits_of(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t abs = u & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or nan (nan stays a quiet nan)
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x0200u | ((abs >> 13) & 0x03ffu) : 0u));
  }
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504: inf
  if (abs < 0x38800000u) {
    // Subnormal half (or zero): the value in units of 2^-24, rounded to nearest even.
    if (abs < 0x33000000u) return sign;  // under half the smallest subnormal: zero
    const uint32_t exponent = abs >> 23;
    const uint32_t mantissa = (abs & 0x007fffffu) | 0x00800000u;
    const uint32_t shift = 126u - exponent;  // 14..24: mantissa * 2^(exponent-150) / 2^-24
    uint32_t h = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1u);
    if (rest > halfway || (rest == halfway && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  // Normal: rebias the exponent, keep 10 mantissa bits, round to nearest even (a carry may raise the exponent).
  uint32_t h = ((abs >> 13) - ((127u - 15u) << 10));
  const uint32_t rest = abs & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

float portable_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x03ffu;
  if (exponent == 0x1fu) {  // inf, or nan made quiet as F16C does
    return float_of(sign | 0x7f800000u | (mantissa ? (mantissa | 0x0200u) << 13 : 0u));
  }
  if (exponent != 0) return float_of(sign | ((exponent + 127u - 15u) << 23) | (mantissa << 13));
  // Zero or subnormal: mantissa * 2^-24, exact in float.
  const float v = static_cast<float>(mantissa) * float_of(0x33800000u);
  return sign ? -v : v;
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma,f16c"))) void from_floats_f16c(const float* x, size_t n, uint16_t* out) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
  }
  for (; i < n; ++i) out[i] = portable_from_float(x[i]);
}

__attribute__((target("avx2,fma,f16c"))) void to_floats_f16c(const uint16_t* h, size_t n, float* out) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(h + i))));
  }
  for (; i < n; ++i) out[i] = portable_to_float(h[i]);
}

__attribute__((target("avx2,fma,f16c"))) float dot_f16c(const float* q, const uint16_t* v, size_t n) {
  __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 v0 = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(v + i)));
    const __m256 v1 = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(v + i + 8)));
    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i), v0, a0);
    a1 = _mm256_fmadd_ps(_mm256_loadu_ps(q + i + 8), v1, a1);
  }
  const __m256 a = _mm256_add_ps(a0, a1);
  const __m128 s = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
  const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
  float sum = _mm_cvtss_f32(_mm_add_ss(t, _mm_shuffle_ps(t, t, 1)));
  for (; i < n; ++i) sum += q[i] * portable_to_float(v[i]);
  return sum;
}
#endif

}  // namespace

bool hardware() {
#if defined(__x86_64__)
  // F16C is read from CPUID (leaf 1, ECX bit 29): clang's __builtin_cpu_supports does not know "f16c". The
  // builtin's AVX2 test also checks that the OS saves the YMM registers, which F16C needs as well.
  static const bool has = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0;
    return f16c && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return has;
#else
  return false;
#endif
}

void from_floats(const float* x, size_t n, uint16_t* out) {
#if defined(__x86_64__)
  if (hardware()) return from_floats_f16c(x, n, out);
#endif
  for (size_t i = 0; i < n; ++i) out[i] = portable_from_float(x[i]);
}

uint16_t from_float(float x) { return portable_from_float(x); }

float to_float(uint16_t h) { return portable_to_float(h); }

void to_floats(const uint16_t* h, size_t n, float* out) {
#if defined(__x86_64__)
  if (hardware()) return to_floats_f16c(h, n, out);
#endif
  for (size_t i = 0; i < n; ++i) out[i] = portable_to_float(h[i]);
}

float dot(const float* q, const uint16_t* v, size_t n) {
#if defined(__x86_64__)
  if (hardware()) return dot_f16c(q, v, n);
#endif
  float sum = 0;
  for (size_t i = 0; i < n; ++i) sum += q[i] * portable_to_float(v[i]);
  return sum;
}

}  // namespace lorekeeper::half
