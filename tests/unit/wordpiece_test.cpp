#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/embed/wordpiece.hpp"

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

}  // namespace
}  // namespace lorekeeper::embed
