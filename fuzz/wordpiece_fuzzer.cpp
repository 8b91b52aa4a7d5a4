// Fuzz target: arbitrary bytes (invalid UTF-8 included) through the WordPiece tokenizer. Every input must give
// [CLS] ... [SEP] within the length limit, with ids inside the vocabulary. The vocabulary is
// LOREKEEPER_FUZZ_VOCAB (tests use tests/fixtures/model/vocab.txt).
#include <cstdint>
#include <cstdlib>
#include <string>

#include "lorekeeper/embed/wordpiece.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const lorekeeper::embed::WordPieceTokenizer tokenizer = [] {
    const char* vocab = std::getenv("LOREKEEPER_FUZZ_VOCAB");
    auto t = lorekeeper::embed::WordPieceTokenizer::load(vocab ? vocab : "tests/fixtures/model/vocab.txt");
    if (!t) std::abort();
    return std::move(*t);
  }();
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (size_t max_tokens : {size_t{2}, size_t{16}, size_t{256}}) {
    const auto ids = tokenizer.encode(text, max_tokens);
    if (ids.size() < 2 || ids.size() > max_tokens || ids.front() != tokenizer.cls_id() ||
        ids.back() != tokenizer.sep_id()) {
      std::abort();
    }
    for (auto id : ids) {
      if (id < 0 || static_cast<size_t>(id) >= tokenizer.vocab_size()) std::abort();
    }
  }
  return 0;
}
