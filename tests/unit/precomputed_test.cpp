// The precomputed vector file (search/precomputed.hpp): what is written is read back within int8 precision, looked
// up by text hash only, and every damaged file is refused with a reason rather than read out of bounds.
#include "lorekeeper/search/precomputed.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "lorekeeper/search/indexer.hpp"
#include "lorekeeper/search/passages.hpp"

namespace lorekeeper::search {
namespace {

constexpr int kDims = 384;

std::vector<float> random_unit(std::mt19937& rng) {
  std::normal_distribution<float> n(0, 1);
  std::vector<float> v(kDims);
  double norm = 0;
  for (float& x : v) {
    x = n(rng);
    norm += x * x;
  }
  for (float& x : v) x = static_cast<float>(x / std::sqrt(norm));
  return v;
}

double cosine(const std::vector<float>& a, const std::vector<float>& b) {
  double dot = 0, na = 0, nb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / std::sqrt(na * nb);
}

std::vector<store::Store::VectorRow> sample_rows(int n) {
  std::mt19937 rng(7);
  std::vector<store::Store::VectorRow> rows;
  for (int i = 0; i < n; ++i) {
    rows.push_back({model::Kind::kSpell, "k" + std::to_string(i), 0,
                    text_hash(kModelId, "passage " + std::to_string(i)), random_unit(rng), ""});
  }
  return rows;
}

std::string sample_file(int n = 50) {
  auto bytes = serialize_precomputed(sample_rows(n), kModelId, std::string(64, 'a'), kDims);
  EXPECT_TRUE(bytes.is_ok()) << bytes.status().to_string();
  return *bytes;
}

TEST(Precomputed, WhatIsWrittenIsReadBackByTextHash) {
  const auto rows = sample_rows(50);
  const std::string bytes = sample_file();
  EXPECT_EQ(bytes.size(), 160u + 50u * (12u + kDims));
  auto set = PrecomputedVectors::parse(bytes);
  ASSERT_TRUE(set.is_ok()) << set.status().to_string();
  EXPECT_EQ(set->size(), 50u);
  EXPECT_EQ(set->dimensions(), kDims);
  EXPECT_EQ(set->model(), kModelId);
  EXPECT_EQ(set->model_sha256(), std::string(64, 'a'));
  EXPECT_EQ(set->recipe(), kPassageRecipe);
  for (const auto& r : rows) {
    const auto v = set->find(r.text_hash);
    ASSERT_EQ(v.size(), static_cast<size_t>(kDims)) << r.key;
    EXPECT_GT(cosine(v, r.vector), 0.9998) << r.key;
    double norm = 0;
    for (float x : v) norm += x * x;
    EXPECT_NEAR(norm, 1.0, 1e-5);
  }
  EXPECT_TRUE(set->find(text_hash(kModelId, "a passage nobody embedded")).empty());
  EXPECT_TRUE(set->find("not a hash").empty());
  EXPECT_TRUE(set->find("").empty());
  EXPECT_TRUE(PrecomputedVectors{}.find(rows[0].text_hash).empty());
}

TEST(Precomputed, OneVectorPerTextHash) {
  auto rows = sample_rows(3);
  rows.push_back(rows[1]);  // the same passage text under another entity
  rows.back().key = "other";
  auto bytes = serialize_precomputed(rows, kModelId, "", kDims);
  ASSERT_TRUE(bytes.is_ok());
  auto set = PrecomputedVectors::parse(*bytes);
  ASSERT_TRUE(set.is_ok());
  EXPECT_EQ(set->size(), 3u);
}

TEST(Precomputed, BadRowsAreNotWritten) {
  auto rows = sample_rows(2);
  rows[0].text_hash = "xyz";
  EXPECT_FALSE(serialize_precomputed(rows, kModelId, "", kDims).is_ok());
  rows = sample_rows(2);
  rows[1].vector.pop_back();
  EXPECT_FALSE(serialize_precomputed(rows, kModelId, "", kDims).is_ok());
  rows = sample_rows(2);
  rows[1].vector[3] = std::nanf("");
  EXPECT_FALSE(serialize_precomputed(rows, kModelId, "", kDims).is_ok());
  rows = sample_rows(2);
  std::fill(rows[0].vector.begin(), rows[0].vector.end(), 0.0f);
  EXPECT_FALSE(serialize_precomputed(rows, kModelId, "", kDims).is_ok());
  EXPECT_FALSE(serialize_precomputed(sample_rows(1), std::string(65, 'm'), "", kDims).is_ok());
}

TEST(Precomputed, DamagedFilesAreRefused) {
  const std::string good = sample_file(4);
  const size_t row = 12 + kDims;
  ASSERT_TRUE(PrecomputedVectors::parse(good).is_ok());
  EXPECT_FALSE(PrecomputedVectors::parse("").is_ok());
  EXPECT_FALSE(PrecomputedVectors::parse(good.substr(0, 100)).is_ok());              // header cut
  EXPECT_FALSE(PrecomputedVectors::parse(good.substr(0, good.size() - 1)).is_ok());  // last row cut
  EXPECT_FALSE(PrecomputedVectors::parse(good + "x").is_ok());                       // trailing bytes
  std::string bad = good;
  bad[0] = 'X';  // magic
  EXPECT_FALSE(PrecomputedVectors::parse(bad).is_ok());
  bad = good;
  const uint32_t huge = 0xffffffffu;  // a count whose size overflows nothing but matches nothing
  std::memcpy(bad.data() + 12, &huge, 4);
  EXPECT_FALSE(PrecomputedVectors::parse(bad).is_ok());
  bad = good;
  const uint32_t zero = 0;  // no dimensions
  std::memcpy(bad.data() + 8, &zero, 4);
  EXPECT_FALSE(PrecomputedVectors::parse(bad).is_ok());
  bad = good;  // rows 0 and 1 swapped: hashes out of order
  std::string r0 = bad.substr(160, row);
  bad.replace(160, row, bad.substr(160 + row, row));
  bad.replace(160 + row, row, r0);
  EXPECT_FALSE(PrecomputedVectors::parse(bad).is_ok());
  bad = good;  // a duplicate hash
  bad.replace(160 + row, 8, bad.substr(160, 8));
  EXPECT_FALSE(PrecomputedVectors::parse(bad).is_ok());
  for (float scale : {0.0f, -1.0f, std::nanf(""), INFINITY}) {
    bad = good;
    std::memcpy(bad.data() + 160 + row + 8, &scale, 4);
    EXPECT_FALSE(PrecomputedVectors::parse(bad).is_ok()) << scale;
  }
}

TEST(Precomputed, TheBundledSetIsForThisModelAndRecipe) {
  const auto& set = PrecomputedVectors::bundled();
  EXPECT_GT(set.size(), 9000u) << "data/open5e-vectors.bin is missing or unusable: run scripts/make-vectors.sh";
  EXPECT_EQ(set.model(), kModelId);
  EXPECT_EQ(set.recipe(), kPassageRecipe);
  EXPECT_EQ(set.dimensions(), kDims);
}

}  // namespace
}  // namespace lorekeeper::search
