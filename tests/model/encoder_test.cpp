// Parity of the native encoder with the reference sentence-transformers embeddings (tests/golden). Needs the
// model files (scripts/setup.sh installs them; LOREKEEPER_MODEL_DIR overrides the location).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "../unit/test_support.hpp"
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

// The query weights come from their cache file beside the model when it matches: the same bits as packing them,
// with nothing rewritten; a damaged file is packed again and replaced.
TEST(Encoder, QueryWeightsAreMappedFromTheirCacheFile) {
  if (!encoder().has_half_weights()) GTEST_SKIP() << "no F16C on this CPU: queries are encoded in float";
  namespace fs = std::filesystem;
  const std::string dir = testing::temp_dir();
  fs::create_symlink(default_model_dir() + "/model.safetensors", dir + "/model.safetensors");
  for (const char* f : {"vocab.txt", "config.json"}) fs::copy_file(default_model_dir() + "/" + f, dir + "/" + f);
  const std::string cache = dir + "/query-weights.f16";
  auto inode = [&cache] {
    struct stat st {};
    return ::stat(cache.c_str(), &st) == 0 ? static_cast<long long>(st.st_ino) : -1LL;
  };
  auto query_vector = [&dir] {
    auto e = Encoder::load(dir);
    EXPECT_TRUE(e.is_ok()) << e.status().to_string();
    EXPECT_TRUE((*e)->has_half_weights());
    EXPECT_TRUE((*e)->self_check(Encoder::Precision::kQuery).is_ok());
    return (*e)->encode_query("a monster that turns people to stone");
  };
  ASSERT_FALSE(fs::exists(cache));
  const std::vector<float> packed = query_vector();
  ASSERT_TRUE(fs::exists(cache)) << "the first encoder writes the cache";
  EXPECT_EQ(packed, encoder().encode_query("a monster that turns people to stone"));
  const long long written = inode();
  EXPECT_EQ(query_vector(), packed) << "mapped from the cache: the same bits";
  EXPECT_EQ(inode(), written) << "a matching cache is not written again";
  // One flipped byte in the weights: refused, packed again, replaced.
  std::string bytes = testing::read_file(cache);
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x40);
  fs::remove(cache);
  testing::write_file(cache, bytes);
  const long long damaged = inode();
  EXPECT_EQ(query_vector(), packed);
  EXPECT_NE(inode(), damaged) << "the damaged cache was replaced";
  const long long replaced = inode();
  EXPECT_EQ(query_vector(), packed);
  EXPECT_EQ(inode(), replaced) << "and the replacement is used";
}

TEST(Encoder, MissingOrCorruptModelIsAnError) {
  EXPECT_EQ(Encoder::load("/nonexistent").status().code(), StatusCode::kNotFound);
  const std::string junk = "\x10\x00\x00\x00\x00\x00\x00\x00{not json at all}";
  auto st = SafeTensors::parse(reinterpret_cast<const unsigned char*>(junk.data()), junk.size());
  EXPECT_EQ(st.status().code(), StatusCode::kCorruption);
}

}  // namespace
}  // namespace lorekeeper::embed
