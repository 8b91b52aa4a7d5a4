// The BERT uncased WordPiece tokenizer of all-MiniLM-L6-v2, matching the reference (Hugging Face `tokenizers`
// BertNormalizer + BertPreTokenizer + WordPiece) id for id:
//   clean text (drop NUL, U+FFFD and control characters; whitespace becomes a space), pad CJK ideographs with
//   spaces, NFD and strip combining marks, lower-case; split on whitespace and on every punctuation character
//   (ASCII symbol ranges and Unicode P* categories); greedy longest-match word pieces with the "##" prefix,
//   "[UNK]" for a word over 100 characters or one that cannot be pieced; "[CLS]" ... "[SEP]", truncated to
//   `max_tokens` ids in all.
// Immutable after load; safe to use from several threads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lorekeeper/core/status.hpp"

namespace lorekeeper::embed {

class WordPieceTokenizer {
 public:
  // Reads a vocab.txt (one token per line, id = line number). InvalidArgument if it lacks the special tokens.
  static Result<WordPieceTokenizer> load(const std::string& vocab_path);
  static Result<WordPieceTokenizer> from_vocab(const std::string& vocab_text);

  // Token ids for `text` (any bytes; invalid UTF-8 is replaced by U+FFFD, which cleaning removes).
  std::vector<int32_t> encode(std::string_view text, size_t max_tokens = 256) const;

  size_t vocab_size() const { return vocab_.size(); }
  int32_t cls_id() const { return cls_; }
  int32_t sep_id() const { return sep_; }
  int32_t unk_id() const { return unk_; }

 private:
  std::unordered_map<std::string, int32_t> vocab_;
  int32_t cls_ = -1, sep_ = -1, unk_ = -1;
};

}  // namespace lorekeeper::embed
