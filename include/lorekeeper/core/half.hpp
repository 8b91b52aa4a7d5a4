// IEEE 754 half precision (binary16) storage for float data: half the memory and memory traffic, 11 significant
// bits (relative rounding error at most 2^-11 for normal values). Conversions use the CPU's F16C instructions
// when it has them and an exact portable equivalent otherwise; both round to nearest, ties to even.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lorekeeper::half {

// x rounded to half precision (values past the half range become infinities), without F16C.
uint16_t from_float(float x);

// out[i] = x[i] rounded to half precision, as from_float does.
void from_floats(const float* x, size_t n, uint16_t* out);

// x = h widened to float (exact).
float to_float(uint16_t h);

// out[i] = h[i] widened to float, as to_float does.
void to_floats(const uint16_t* h, size_t n, float* out);

// The dot product of float `q` with half-precision `v`, both of length n, summed in float.
float dot(const float* q, const uint16_t* v, size_t n);

// Whether this CPU converts in hardware (AVX2, FMA and F16C): callers with a float alternative may prefer it.
bool hardware();

}  // namespace lorekeeper::half
