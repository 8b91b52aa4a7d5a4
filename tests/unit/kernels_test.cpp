// The encoder's packed half-precision product against a double-precision reference over the same rounded
// weights, for every instruction set this CPU has and every row count a tile can hold.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "kernels.hpp"
#include "lorekeeper/core/half.hpp"

namespace lorekeeper::embed::kernels {
namespace {

struct Case {
  int rows, in, out;
};

void check_packed(Isa isa, const Case& c) {
  std::mt19937 rng(static_cast<unsigned>(c.rows * 7919 + c.in * 31 + c.out));
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(static_cast<size_t>(c.rows) * c.in), w(static_cast<size_t>(c.out) * c.in),
      b(static_cast<size_t>(c.out));
  for (auto& v : x) v = normal(rng);
  for (auto& v : w) v = 0.05f * normal(rng);
  for (auto& v : b) v = normal(rng);
  std::vector<uint16_t> packed(w.size());
  pack_half(w.data(), c.out, c.in, packed.data());
  std::vector<float> y(static_cast<size_t>(c.rows) * c.out, NAN);
  ASSERT_TRUE(linear_few_rows_packed(x.data(), c.rows, c.in, packed.data(), b.data(), c.out, y.data(), isa));
  double worst = 0;
  for (int r = 0; r < c.rows; ++r) {
    for (int o = 0; o < c.out; ++o) {
      double sum = b[static_cast<size_t>(o)], magnitude = std::fabs(sum);
      for (int k = 0; k < c.in; ++k) {
        const double term = static_cast<double>(x[static_cast<size_t>(r) * c.in + k]) *
                            half::to_float(half::from_float(w[static_cast<size_t>(o) * c.in + k]));
        sum += term;
        magnitude += std::fabs(term);
      }
      const double got = y[static_cast<size_t>(r) * c.out + o];
      // Float sums of `in` terms: error well under in * 2^-24 of the terms' magnitude.
      const double err = std::fabs(got - sum) / magnitude;
      worst = std::max(worst, err);
      ASSERT_LE(err, c.in * 6e-8) << "row " << r << " column " << o;
    }
  }
  EXPECT_GT(worst, 0.0);  // float arithmetic, not a copy of the reference
}

TEST(Kernels, PackedHalfProductMatchesAReferenceOnEveryInstructionSet) {
  int ran = 0;
  for (Isa isa : {Isa::kAvx2, Isa::kAvx512}) {
    if (!has_packed(isa)) continue;
    ++ran;
    for (int rows = 1; rows <= 26; ++rows) check_packed(isa, {rows, 64, 96});
    check_packed(isa, {12, 384, 384});
    check_packed(isa, {12, 384, 1536});
    check_packed(isa, {13, 1536, 384});
  }
  if (ran == 0) GTEST_SKIP() << "this CPU has neither AVX2+FMA+F16C nor AVX-512F";
}

TEST(Kernels, PackedHalfProductRefusesShapesItCannotTake) {
  if (!has_packed()) GTEST_SKIP() << "no packed kernel on this CPU";
  std::vector<float> x(8, 1.0f), b(48, 0.0f), y(48, -1.0f);
  std::vector<uint16_t> packed(48 * 8, 0);
  EXPECT_FALSE(linear_few_rows_packed(x.data(), 1, 8, packed.data(), b.data(), 48, y.data()));
  EXPECT_EQ(y[0], -1.0f);  // untouched
}

TEST(Kernels, ColumnRangesOfThePackedProductAreExactlyTheWholeProduct) {
  if (!has_packed()) GTEST_SKIP() << "no packed kernel on this CPU";
  constexpr int rows = 29, in = 384, out = 1536;
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(static_cast<size_t>(rows) * in), w(static_cast<size_t>(out) * in), b(out);
  for (auto& v : x) v = normal(rng);
  for (auto& v : w) v = 0.05f * normal(rng);
  for (auto& v : b) v = normal(rng);
  std::vector<uint16_t> packed(w.size());
  pack_half(w.data(), out, in, packed.data());
  std::vector<float> whole(static_cast<size_t>(rows) * out, NAN), split(whole.size(), NAN);
  ASSERT_TRUE(linear_few_rows_packed(x.data(), rows, in, packed.data(), b.data(), out, whole.data()));
  // Two threads' shares, as the query encoder splits a product: uneven, in either order.
  const int mid = 23 * kPanel;
  ASSERT_TRUE(linear_few_rows_packed_columns(x.data(), rows, in, packed.data(), b.data(), out, split.data(), mid, out));
  for (int r = 0; r < rows; ++r) EXPECT_TRUE(std::isnan(split[static_cast<size_t>(r) * out])) << "column 0 written";
  ASSERT_TRUE(linear_few_rows_packed_columns(x.data(), rows, in, packed.data(), b.data(), out, split.data(), 0, mid));
  EXPECT_EQ(std::memcmp(whole.data(), split.data(), whole.size() * sizeof(float)), 0);
  // Ranges that are not whole panels within the product are refused, y untouched.
  std::vector<float> y(whole.size(), -1.0f);
  for (auto [first, last] :
       {std::pair{0, 16}, std::pair{16, 64}, std::pair{-32, 32}, std::pair{64, 32}, std::pair{0, out + kPanel}}) {
    EXPECT_FALSE(
        linear_few_rows_packed_columns(x.data(), rows, in, packed.data(), b.data(), out, y.data(), first, last))
        << first << ".." << last;
  }
  EXPECT_EQ(y[0], -1.0f);
  EXPECT_TRUE(linear_few_rows_packed_columns(x.data(), rows, in, packed.data(), b.data(), out, y.data(), 64, 64));
  EXPECT_EQ(y[0], -1.0f);  // an empty range computes nothing
}

TEST(Kernels, PackHalfLaysPanelsOutByInputIndex) {
  constexpr int kOut = 2 * kPanel, kIn = 3;
  std::vector<float> w(static_cast<size_t>(kOut) * kIn);
  for (int o = 0; o < kOut; ++o) {
    for (int k = 0; k < kIn; ++k) w[static_cast<size_t>(o) * kIn + k] = static_cast<float>(o * 10 + k);
  }
  std::vector<uint16_t> packed(w.size());
  pack_half(w.data(), kOut, kIn, packed.data());
  // Second panel (outputs 32..63), input index 2, its fifth column: W[36][2].
  EXPECT_EQ(half::to_float(packed[static_cast<size_t>(kPanel) * kIn + 2 * kPanel + 4]), 362.0f);
  EXPECT_EQ(half::to_float(packed[1]), 10.0f);  // W[1][0]
}

}  // namespace
}  // namespace lorekeeper::embed::kernels
