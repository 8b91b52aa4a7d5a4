// Parity of the native encoder with the reference sentence-transformers embeddings (tests/golden). Needs the
// model files (scripts/setup.sh installs them; LOREKEEPER_MODEL_DIR overrides the location).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/embed/encoder.hpp"

namespace lorekeeper::embed {
namespace {

using nlohmann::json;

const Encoder& encoder() {
  static std::unique_ptr<Encoder> e = [] {
    auto r = Encoder::load(default_model_dir());
    if (!r) {
      std::fprintf(stderr, "model not loadable from %s: %s (run scripts/setup.sh)\n", default_model_dir().c_str(),
                   r.status().to_string().c_str());
      std::abort();
    }
    return std::move(*r);
  }();
  return *e;
}

void check(const std::string& file, double* worst_cos, double* worst_diff,
           Encoder::Precision precision = Encoder::Precision::kFloat, double max_diff = 1e-4) {
  std::ifstream in(std::string(LOREKEEPER_GOLDEN) + "/" + file);
  ASSERT_TRUE(in) << file;
  std::string line;
  int rows = 0;
  while (std::getline(in, line)) {
    std::string err;
    auto row = json_util::parse(line, &err);
    ASSERT_TRUE(row.has_value());
    const std::vector<float> expected = (*row)["vector"];
    const std::vector<float> actual =
        encoder().encode_ids(encoder().tokenizer().encode((*row)["text"].get<std::string>()), precision);
    ASSERT_EQ(actual.size(), expected.size());
    double dot = 0, na = 0, nb = 0, diff = 0;
    for (size_t i = 0; i < actual.size(); ++i) {
      dot += static_cast<double>(actual[i]) * expected[i];
      na += static_cast<double>(actual[i]) * actual[i];
      nb += static_cast<double>(expected[i]) * expected[i];
      diff = std::max(diff, static_cast<double>(std::fabs(actual[i] - expected[i])));
    }
    const double cos = dot / std::sqrt(na * nb);
    *worst_cos = std::min(*worst_cos, cos);
    *worst_diff = std::max(*worst_diff, diff);
    EXPECT_GE(cos, 0.9999) << file << " row " << rows << ": " << json_util::dump((*row)["text"]).substr(0, 120);
    EXPECT_LE(diff, max_diff) << file << " row " << rows << ": " << json_util::dump((*row)["text"]).substr(0, 120);
    ++rows;
  }
  EXPECT_GT(rows, 0);
}

TEST(Encoder, MatchesTheReferenceOnEdgeCases) {
  double cos = 1, diff = 0;
  check("embeddings.jsonl", &cos, &diff);
  std::printf("edge cases: worst cosine %.9f, worst component difference %.3g\n", cos, diff);
}

TEST(Encoder, MatchesTheReferenceOnTheCorpus) {
  double cos = 1, diff = 0;
  check("embeddings-corpus.jsonl", &cos, &diff);
  std::printf("corpus: worst cosine %.9f, worst component difference %.3g\n", cos, diff);
}

// Queries (up to 48 tokens) may use half-precision weights: close to the reference, though not to 1e-4.
TEST(Encoder, QueryPrecisionStaysCloseToTheReference) {
  if (!encoder().has_half_weights()) GTEST_SKIP() << "no F16C on this CPU: queries are encoded in float";
  double cos = 1, diff = 0;
  check("embeddings.jsonl", &cos, &diff, Encoder::Precision::kQuery, 5e-4);
  check("embeddings-corpus.jsonl", &cos, &diff, Encoder::Precision::kQuery, 5e-4);
  std::printf("query precision: worst cosine %.9f, worst component difference %.3g\n", cos, diff);
  // It is a different computation for short inputs, and the same one for long ones.
  const auto short_ids = encoder().tokenizer().encode("teleport a short distance as a bonus action");
  EXPECT_NE(encoder().encode_ids(short_ids, Encoder::Precision::kQuery), encoder().encode_ids(short_ids));
  std::string text;
  for (int i = 0; i < 60; ++i) text += "word ";
  const auto long_ids = encoder().tokenizer().encode(text);
  ASSERT_GT(long_ids.size(), 48u);
  EXPECT_EQ(encoder().encode_ids(long_ids, Encoder::Precision::kQuery), encoder().encode_ids(long_ids));
}

TEST(Encoder, MissingOrCorruptModelIsAnError) {
  EXPECT_EQ(Encoder::load("/nonexistent").status().code(), StatusCode::kNotFound);
  const std::string junk = "\x10\x00\x00\x00\x00\x00\x00\x00{not json at all}";
  auto st = SafeTensors::parse(reinterpret_cast<const unsigned char*>(junk.data()), junk.size());
  EXPECT_EQ(st.status().code(), StatusCode::kCorruption);
}

}  // namespace
}  // namespace lorekeeper::embed
