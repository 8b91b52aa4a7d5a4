#include "lorekeeper/embed/wordpiece.hpp"

#include <utf8proc.h>

#include <fstream>
#include <sstream>

#include "lorekeeper/core/files.hpp"
#include "lorekeeper/core/text.hpp"

namespace lorekeeper::embed {

namespace {

using Codepoints = std::vector<utf8proc_int32_t>;

Codepoints decode(std::string_view s) {
  Codepoints out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    utf8proc_int32_t cp = 0;
    const utf8proc_ssize_t n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(s.data() + i),
                                                static_cast<utf8proc_ssize_t>(s.size() - i), &cp);
    if (n <= 0) {
      out.push_back(0xFFFD);
      ++i;
      continue;
    }
    out.push_back(cp);
    i += static_cast<size_t>(n);
  }
  return out;
}

bool is_whitespace(utf8proc_int32_t cp) {
  if (cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r') return true;
  return utf8proc_category(cp) == UTF8PROC_CATEGORY_ZS;
}

bool is_control(utf8proc_int32_t cp) {
  if (cp == '\t' || cp == '\n' || cp == '\r') return false;
  switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_CC:
    case UTF8PROC_CATEGORY_CF:
    case UTF8PROC_CATEGORY_CN:
    case UTF8PROC_CATEGORY_CO: return true;
    default: return false;
  }
}

bool is_punctuation(utf8proc_int32_t cp) {
  if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126)) {
    return true;
  }
  switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_PC:
    case UTF8PROC_CATEGORY_PD:
    case UTF8PROC_CATEGORY_PS:
    case UTF8PROC_CATEGORY_PE:
    case UTF8PROC_CATEGORY_PI:
    case UTF8PROC_CATEGORY_PF:
    case UTF8PROC_CATEGORY_PO: return true;
    default: return false;
  }
}

bool is_cjk(utf8proc_int32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x20000 && cp <= 0x2A6DF) ||
         (cp >= 0x2A700 && cp <= 0x2B73F) || (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B820 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

// BertNormalizer: clean, pad CJK, strip accents (NFD, drop Mn), lower-case.
Codepoints normalize(const Codepoints& in) {
  Codepoints cleaned;
  cleaned.reserve(in.size());
  for (auto cp : in) {
    if (cp == 0 || cp == 0xFFFD || is_control(cp)) continue;
    if (is_whitespace(cp)) {
      cleaned.push_back(' ');
    } else if (is_cjk(cp)) {
      cleaned.push_back(' ');
      cleaned.push_back(cp);
      cleaned.push_back(' ');
    } else {
      cleaned.push_back(cp);
    }
  }
  Codepoints out;
  out.reserve(cleaned.size());
  utf8proc_int32_t buf[32];
  for (auto cp : cleaned) {
    int last_boundclass = 0;
    const utf8proc_ssize_t n = utf8proc_decompose_char(cp, buf, 32, UTF8PROC_DECOMPOSE, &last_boundclass);
    const utf8proc_ssize_t count = n > 0 && n <= 32 ? n : 0;
    if (count == 0) buf[0] = cp;
    for (utf8proc_ssize_t i = 0; i < (count ? count : 1); ++i) {
      if (utf8proc_category(buf[i]) == UTF8PROC_CATEGORY_MN) continue;
      out.push_back(utf8proc_tolower(buf[i]));
    }
  }
  return out;
}

}  // namespace

Result<WordPieceTokenizer> WordPieceTokenizer::from_vocab(const std::string& vocab_text) {
  WordPieceTokenizer t;
  std::istringstream in(vocab_text);
  std::string line;
  int32_t id = 0;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    t.vocab_.emplace(line, id++);
  }
  auto find = [&](const char* token) {
    auto it = t.vocab_.find(token);
    return it == t.vocab_.end() ? -1 : it->second;
  };
  t.cls_ = find("[CLS]");
  t.sep_ = find("[SEP]");
  t.unk_ = find("[UNK]");
  if (t.cls_ < 0 || t.sep_ < 0 || t.unk_ < 0) {
    return Status::invalid_argument("vocabulary lacks [CLS], [SEP] or [UNK] (" + std::to_string(id) + " lines)");
  }
  return t;
}

Result<WordPieceTokenizer> WordPieceTokenizer::load(const std::string& vocab_path) {
  // A vocabulary is a few hundred kilobytes (all-MiniLM-L6-v2's: 232 KB).
  auto text = files::read_regular_file(vocab_path, 16 << 20);
  if (!text && text.status().code() == StatusCode::kNotFound)
    return Status::not_found("no vocabulary at " + vocab_path);
  if (!text) return text.status();
  auto t = from_vocab(*text);
  if (!t) return Status(t.status().code(), vocab_path + ": " + t.status().message());
  return t;
}

std::vector<int32_t> WordPieceTokenizer::encode(std::string_view text, size_t max_tokens) const {
  std::vector<int32_t> ids = {cls_};
  const size_t budget = max_tokens >= 2 ? max_tokens - 1 : 1;  // room left for [SEP]
  const Codepoints normalized = normalize(decode(text));
  // Pre-tokenize: whitespace separates words; each punctuation character is a word of its own.
  std::vector<Codepoints> words;
  Codepoints current;
  auto flush = [&] {
    if (!current.empty()) words.push_back(std::move(current));
    current.clear();
  };
  for (auto cp : normalized) {
    if (cp == ' ') {
      flush();
    } else if (is_punctuation(cp)) {
      flush();
      words.push_back({cp});
    } else {
      current.push_back(cp);
    }
  }
  flush();
  for (const auto& word : words) {
    if (ids.size() >= budget) break;
    if (word.size() > 100) {
      ids.push_back(unk_);
      continue;
    }
    // Greedy longest match, continuation pieces prefixed with "##".
    std::vector<int32_t> pieces;
    size_t start = 0;
    bool bad = false;
    while (start < word.size()) {
      size_t end = word.size();
      int32_t found = -1;
      while (start < end) {
        std::string piece = start > 0 ? "##" : "";
        for (size_t i = start; i < end; ++i) text::append_utf8(piece, static_cast<char32_t>(word[i]));
        auto it = vocab_.find(piece);
        if (it != vocab_.end()) {
          found = it->second;
          break;
        }
        --end;
      }
      if (found < 0) {
        bad = true;
        break;
      }
      pieces.push_back(found);
      start = end;
    }
    if (bad) {
      ids.push_back(unk_);
    } else {
      for (auto p : pieces) {
        if (ids.size() >= budget) break;
        ids.push_back(p);
      }
    }
  }
  ids.push_back(sep_);
  return ids;
}

}  // namespace lorekeeper::embed
