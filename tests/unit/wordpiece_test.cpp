#include <sys/stat.h>

#include <gtest/gtest.h>

#include <filesystem>

#include <fstream>
#include <string>

#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/embed/encoder.hpp"
#include "lorekeeper/embed/safetensors.hpp"
#include "lorekeeper/embed/wordpiece.hpp"
#include "test_support.hpp"

namespace lorekeeper::embed {
namespace {

using nlohmann::json;

const WordPieceTokenizer& tokenizer() {
  static const WordPieceTokenizer t = [] {
    auto r = WordPieceTokenizer::load(std::string(LOREKEEPER_FIXTURES) + "/model/vocab.txt");
    if (!r) std::abort();
    return std::move(*r);
  }();
  return t;
}

// Compares every row of a golden file (reference Python tokenizer output) with ours; reports the mismatches.
void check_golden(const std::string& file) {
  std::ifstream in(std::string(LOREKEEPER_GOLDEN) + "/" + file);
  ASSERT_TRUE(in) << file;
  std::string line;
  int rows = 0;
  int mismatches = 0;
  while (std::getline(in, line)) {
    std::string err;
    auto row = json_util::parse(line, &err);
    ASSERT_TRUE(row.has_value()) << line;
    const std::string text = (*row)["text"];
    const std::vector<int32_t> expected = (*row)["ids"];
    const std::vector<int32_t> actual = tokenizer().encode(text);
    ++rows;
    if (actual != expected) {
      ++mismatches;
      if (mismatches <= 10) {
        ADD_FAILURE() << file << " row " << rows << ": " << json_util::dump(text).substr(0, 200) << "\n  expected "
                      << json(expected).dump().substr(0, 300) << "\n  actual   " << json(actual).dump().substr(0, 300);
      }
    }
  }
  EXPECT_GT(rows, 0);
  EXPECT_EQ(mismatches, 0) << mismatches << " of " << rows << " rows differ in " << file;
}

TEST(WordPiece, MatchesTheReferenceOnEdgeCases) { check_golden("tokenizer.jsonl"); }

TEST(WordPiece, MatchesTheReferenceOnTheCorpus) { check_golden("tokenizer-corpus.jsonl"); }

TEST(WordPiece, BasicShapes) {
  const auto& t = tokenizer();
  EXPECT_EQ(t.vocab_size(), 30522u);
  EXPECT_EQ(t.encode(""), (std::vector<int32_t>{101, 102}));
  EXPECT_EQ(t.encode("Fireball"), (std::vector<int32_t>{101, 2543, 7384, 102}));
  EXPECT_EQ(t.encode(std::string(150, 'a')), (std::vector<int32_t>{101, 100, 102}));
  std::string many;
  for (int i = 0; i < 1000; ++i) many += "dragon ";
  const auto ids = t.encode(many);
  EXPECT_EQ(ids.size(), 256u);
  EXPECT_EQ(ids.back(), 102);
}

TEST(WordPiece, RejectsAVocabularyWithoutSpecialTokens) {
  EXPECT_FALSE(WordPieceTokenizer::from_vocab("a\nb\nc\n").is_ok());
  EXPECT_FALSE(WordPieceTokenizer::load("/nonexistent/vocab.txt").is_ok());
}

TEST(WordPiece, InvalidUtf8IsNotACrash) {
  const std::string bad = "fire\xff\xfe\xc3ball \xe2\x82";
  const auto ids = tokenizer().encode(bad);
  EXPECT_EQ(ids.front(), 101);
  EXPECT_EQ(ids.back(), 102);
}

// Model files that would load and silently ruin meaning-based search, or hang the loader, are refused: a
// vocabulary cut short (its ids no longer name the embedding rows they index), a vocabulary that is a FIFO, and
// weights whose tensors share bytes.
TEST(ModelFiles, ACutVocabularyAFifoAndOverlappingTensorsAreRefused) {
  const std::string dir = testing::temp_dir();
  std::string vocab = testing::read_file(std::string(LOREKEEPER_FIXTURES) + "/model/vocab.txt");
  size_t cut = 0;
  for (int lines = 0; lines < 30000; ++lines) cut = vocab.find('\n', cut) + 1;
  testing::write_file(dir + "/vocab.txt", vocab.substr(0, cut));
  auto loaded = Encoder::load(dir);
  ASSERT_FALSE(loaded.is_ok());
  EXPECT_NE(loaded.status().message().find("has 30000 entries"), std::string::npos) << loaded.status().message();

  std::filesystem::remove(dir + "/vocab.txt");
  ASSERT_EQ(::mkfifo((dir + "/vocab.txt").c_str(), 0600), 0);
  loaded = Encoder::load(dir);
  ASSERT_FALSE(loaded.is_ok());
  EXPECT_NE(loaded.status().message().find("not a regular file"), std::string::npos) << loaded.status().message();
  ASSERT_EQ(::mkfifo((dir + "/model.safetensors").c_str(), 0600), 0);
  auto weights = SafeTensors::open(dir + "/model.safetensors");
  ASSERT_FALSE(weights.is_ok());
  EXPECT_NE(weights.status().message().find("not a regular file"), std::string::npos);

  // Two F32 tensors of 2 values each; the second's range starts inside the first's.
  const std::string header =
      R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})";
  std::string file(8, '\0');
  for (size_t i = 0; i < 8; ++i) file[i] = static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  file += header + std::string(12, '\0');
  auto parsed = SafeTensors::parse(reinterpret_cast<const unsigned char*>(file.data()), file.size());
  ASSERT_FALSE(parsed.is_ok());
  EXPECT_NE(parsed.status().message().find("overlap"), std::string::npos) << parsed.status().message();
  // The same tensors side by side load.
  const std::string apart =
      R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})";
  std::string ok_file(8, '\0');
  for (size_t i = 0; i < 8; ++i) ok_file[i] = static_cast<char>((apart.size() >> (8 * i)) & 0xFF);
  ok_file += apart + std::string(16, '\0');
  EXPECT_TRUE(SafeTensors::parse(reinterpret_cast<const unsigned char*>(ok_file.data()), ok_file.size()).is_ok());
}

}  // namespace
}  // namespace lorekeeper::embed
