#include "lorekeeper/edn/edn.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <ostream>
#include <utility>

#include "lorekeeper/core/text.hpp"

namespace lorekeeper::edn {

namespace {

// Byte classes, so the hot loops are one table lookup per byte.
enum : uint8_t {
  kWhite = 1,  // separates forms
  kTerm = 2,   // ends a token (whitespace included)
  kCtrl = 4,   // control characters other than whitespace: never part of a token
};

constexpr std::array<uint8_t, 256> make_classes() {
  std::array<uint8_t, 256> t{};
  for (int c : {' ', '\t', '\n', '\r', '\f', '\v', ','}) t[static_cast<size_t>(c)] = kWhite | kTerm;
  for (int c : {'"', ';', '^', '(', ')', '[', ']', '{', '}', '\\'}) t[static_cast<size_t>(c)] = kTerm;
  for (int c = 0; c < 0x20; ++c) {
    if (t[static_cast<size_t>(c)] == 0) t[static_cast<size_t>(c)] = kCtrl | kTerm;
  }
  t[0x7F] = kCtrl | kTerm;
  return t;
}
constexpr std::array<uint8_t, 256> kClass = make_classes();

inline uint8_t byte_class(char c) { return kClass[static_cast<unsigned char>(c)]; }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Length (2-4) of the well-formed UTF-8 sequence starting at s[i] (a byte >= 0x80) and its code point, or 0 for a
// malformed one: stray continuation byte, overlong form, surrogate, above U+10FFFF or truncated.
size_t utf8_sequence(std::string_view s, size_t i, char32_t* cp) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  size_t len;
  char32_t c;
  char32_t min;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2, c = b0 & 0x1F, min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3, c = b0 & 0x0F, min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4, c = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (s.size() - i < len) return 0;
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    c = (c << 6) | (b & 0x3F);
  }
  if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
  *cp = c;
  return len;
}

void append_hex4(std::string& out, uint32_t v) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (int shift = 12; shift >= 0; shift -= 4) out.push_back(kHex[(v >> shift) & 0xF]);
}

// Reads 4 hex digits at s[i]; -1 if there are not 4.
int32_t read_hex4(std::string_view s, size_t i) {
  if (i > s.size() || s.size() - i < 4) return -1;
  int32_t v = 0;
  for (size_t k = 0; k < 4; ++k) {
    const int h = hex_value(s[i + k]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

int two_digits(std::string_view s, size_t i) { return (s[i] - '0') * 10 + (s[i + 1] - '0'); }

// The RFC 3339 subset Clojure's #inst reader accepts: yyyy[-mm[-dd[Thh[:mm[:ss[.f+]]]]]] then Z or +-hh:mm, or
// nothing; fields in range (day within its month).
bool valid_inst(std::string_view s) {
  size_t i = 0;
  auto digits = [&](size_t n) {
    if (s.size() - i < n) return false;
    for (size_t k = 0; k < n; ++k) {
      if (!is_digit(s[i + k])) return false;
    }
    return true;
  };
  if (!digits(4)) return false;
  const int year = two_digits(s, 0) * 100 + two_digits(s, 2);
  i = 4;
  if (i < s.size() && s[i] == '-') {
    ++i;
    if (!digits(2)) return false;
    const int month = two_digits(s, i);
    if (month < 1 || month > 12) return false;
    i += 2;
    if (i < s.size() && s[i] == '-') {
      ++i;
      if (!digits(2)) return false;
      const int day = two_digits(s, i);
      static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
      const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
      const int max_day = kDays[month - 1] + (month == 2 && leap ? 1 : 0);
      if (day < 1 || day > max_day) return false;
      i += 2;
      if (i < s.size() && s[i] == 'T') {
        ++i;
        if (!digits(2) || two_digits(s, i) > 23) return false;
        i += 2;
        if (i < s.size() && s[i] == ':') {
          ++i;
          if (!digits(2) || two_digits(s, i) > 59) return false;
          i += 2;
          if (i < s.size() && s[i] == ':') {
            ++i;
            if (!digits(2) || two_digits(s, i) > 60) return false;
            i += 2;
            if (i < s.size() && s[i] == '.') {
              ++i;
              if (!digits(1)) return false;
              while (i < s.size() && is_digit(s[i])) ++i;
            }
          }
        }
      }
    }
  }
  if (i == s.size()) return true;
  if (s[i] == 'Z') return i + 1 == s.size();
  if (s[i] != '+' && s[i] != '-') return false;
  ++i;
  if (!digits(2) || two_digits(s, i) > 23) return false;
  i += 2;
  if (i >= s.size() || s[i] != ':') return false;
  ++i;
  if (!digits(2) || two_digits(s, i) > 59) return false;
  return i + 2 == s.size();
}

bool valid_uuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < 36; ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (s[i] != '-') return false;
    } else if (hex_value(s[i]) < 0) {
      return false;
    }
  }
  return true;
}

const char* collection_name(char open) {
  switch (open) {
    case '(': return "list";
    case '[': return "vector";
    case '{': return "map";
    default: return "set";
  }
}

// `text` quoted for a message: at most 40 code points, with control characters and malformed UTF-8 escaped so
// that messages are always valid UTF-8.
std::string quoted(std::string_view text) {
  std::string out = "'";
  size_t count = 0;
  for (size_t i = 0; i < text.size(); ++count) {
    if (count == 40) {
      out += "...";
      break;
    }
    const auto b = static_cast<unsigned char>(text[i]);
    char32_t cp;
    size_t n = 0;
    if (b < 0x20 || b == 0x7F) {
      out += "\\u";
      append_hex4(out, b);
      ++i;
    } else if (b < 0x80) {
      out.push_back(static_cast<char>(b));
      ++i;
    } else if ((n = utf8_sequence(text, i, &cp)) > 0) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      out += "\\x";
      out.push_back("0123456789abcdef"[b >> 4]);
      out.push_back("0123456789abcdef"[b & 0xF]);
      ++i;
    }
  }
  out += "'";
  return out;
}

bool starts_with_bom(std::string_view s) { return s.substr(0, 3) == "\xEF\xBB\xBF"; }

// Whether `tok` reads as a symbol by itself: not a number, nil, true or false, and not starting with a byte order
// mark (which the reader skips at the start of the text).
bool standalone_symbol(std::string_view tok) {
  if (tok.empty() || tok == "nil" || tok == "true" || tok == "false" || starts_with_bom(tok)) return false;
  const char c = tok[0];
  if ((c == '+' || c == '-' || c == '.') && tok.size() > 1 && is_digit(tok[1])) return false;
  return is_alpha(c) || static_cast<unsigned char>(c) >= 0x80 || std::strchr(".*+!-_?$%&=<>/", c) != nullptr;
}

// A short, printable rendering of a value for messages.
std::string brief(const Value& v) {
  std::string s = to_string(v);
  if (s.size() > 60) {
    s.resize(57);
    while (!s.empty() && (static_cast<unsigned char>(s.back()) & 0xC0) == 0x80) s.pop_back();
    if (!s.empty() && static_cast<unsigned char>(s.back()) >= 0xC0) s.pop_back();
    s += "...";
  }
  return s;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// Reader

class Parser {
 public:
  Parser(std::string_view text, const ParseOptions& options) : options_(options) {
    if (starts_with_bom(text)) text.remove_prefix(3);
    s_ = text;
  }

  // Reads one form, skipping whitespace, comments and discards before it. `expected` names the form in the
  // message when there is none ("a value").
  bool read_form(Value& out, int depth, const char* expected);
  // Skips whitespace, comments and discarded forms.
  bool skip_ignorable(int depth);
  bool at_end() const { return pos_ >= s_.size(); }

  Status error() const { return Status::invalid_argument(location(error_offset_) + ": " + error_); }
  void fail_trailing() { fail(pos_, "expected end of input after the value, found " + found(pos_)); }
  void fill(ParseReport* report);

 private:
  bool fail(size_t offset, std::string what) {
    if (!failed_) {
      failed_ = true;
      error_offset_ = offset;
      error_ = std::move(what);
    }
    return false;
  }
  std::string location(size_t offset) const;
  std::string found(size_t offset) const;
  bool enter(int depth, size_t offset);

  void skip_whitespace();
  size_t token_end(size_t from) const;
  bool read_collection(Value& out, int depth, char open, std::string_view map_ns);
  bool read_string(Value& out);
  bool read_character(Value& out);
  bool read_number(Value& out);
  bool read_symbol(Value& out);
  bool read_keyword(Value& out);
  bool read_dispatch(Value& out, int depth);
  bool check_name(std::string_view tok, size_t at, const char* what, uint32_t* ns_len);
  bool finish_map(size_t base, std::string_view map_ns);
  bool remove_duplicates(size_t base, size_t stride, bool is_map);

  std::string_view s_;
  size_t pos_ = 0;
  const ParseOptions& options_;
  size_t values_ = 0;  // read so far (ParseOptions::max_values)
  bool failed_ = false;
  size_t error_offset_ = 0;
  std::string error_;
  // Elements of the collections being read, innermost last; each collection moves its own out when it closes,
  // so building a vector costs one exact-size allocation.
  std::vector<Value> stack_;
  std::vector<size_t> offsets_;  // start offset of each element in stack_, for messages
  size_t duplicate_keys_ = 0;
  size_t duplicate_elements_ = 0;
  std::vector<std::pair<size_t, std::string>> warnings_;  // offset, message
};

std::string Parser::location(size_t offset) const {
  size_t line = 1;
  size_t column = 1;
  const size_t end = std::min(offset, s_.size());
  for (size_t i = 0; i < end; ++i) {
    const auto b = static_cast<unsigned char>(s_[i]);
    if (b == '\n') {
      ++line;
      column = 1;
    } else if ((b & 0xC0) != 0x80) {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

std::string Parser::found(size_t offset) const {
  if (offset >= s_.size()) return "end of input";
  const auto b = static_cast<unsigned char>(s_[offset]);
  switch (b) {
    case '\n': return "a newline";
    case '\r': return "a carriage return";
    case '\t': return "a tab";
    case ' ': return "a space";
    default: break;
  }
  if (b >= 0x20 && b < 0x7F) return std::string("'") + static_cast<char>(b) + "'";
  if (b >= 0x80) {
    char32_t cp;
    const size_t n = utf8_sequence(s_, offset, &cp);
    if (n > 0) return "'" + std::string(s_.substr(offset, n)) + "'";
    std::string hex = "invalid UTF-8 byte 0x";
    hex.push_back("0123456789abcdef"[b >> 4]);
    hex.push_back("0123456789abcdef"[b & 0xF]);
    return hex;
  }
  std::string u = "control character U+";
  append_hex4(u, b);
  return u;
}

bool Parser::enter(int depth, size_t offset) {
  if (depth < options_.max_depth) return true;
  return fail(offset, "nesting deeper than " + std::to_string(options_.max_depth) + " levels");
}

void Parser::skip_whitespace() {
  while (pos_ < s_.size()) {
    const char c = s_[pos_];
    if (byte_class(c) & kWhite) {
      ++pos_;
    } else if (c == ';') {
      const void* nl = std::memchr(s_.data() + pos_, '\n', s_.size() - pos_);
      pos_ = nl ? static_cast<size_t>(static_cast<const char*>(nl) - s_.data()) + 1 : s_.size();
    } else {
      return;
    }
  }
}

bool Parser::skip_ignorable(int depth) {
  for (;;) {
    skip_whitespace();
    if (pos_ + 1 < s_.size() && s_[pos_] == '#' && s_[pos_ + 1] == '_') {
      if (!enter(depth, pos_)) return false;
      pos_ += 2;
      Value dropped;
      if (!read_form(dropped, depth + 1, "a form to discard after #_")) return false;
      continue;
    }
    return true;
  }
}

size_t Parser::token_end(size_t from) const {
  while (from < s_.size() && !(byte_class(s_[from]) & kTerm)) ++from;
  return from;
}

bool Parser::read_form(Value& out, int depth, const char* expected) {
  if (!skip_ignorable(depth)) return false;
  if (pos_ >= s_.size()) return fail(pos_, std::string("expected ") + expected + ", found end of input");
  if (options_.max_values > 0 && ++values_ > options_.max_values) {
    return fail(pos_, "more than " + std::to_string(options_.max_values) + " values");
  }
  const char c = s_[pos_];
  switch (c) {
    case '(':
    case '[':
    case '{': return read_collection(out, depth, c, {});
    case '"': return read_string(out);
    case ':': return read_keyword(out);
    case '\\': return read_character(out);
    case '#': return read_dispatch(out, depth);
    case '^': return fail(pos_, "metadata ('^') is not EDN");
    default: break;
  }
  if (is_digit(c)) return read_number(out);
  if ((c == '+' || c == '-') && pos_ + 1 < s_.size() && is_digit(s_[pos_ + 1])) return read_number(out);
  const auto b = static_cast<unsigned char>(c);
  if (b == 0xEF && starts_with_bom(s_.substr(pos_))) {
    // Skipped only at the start of the text: a symbol starting with one would print as text whose leading mark
    // the reader skips.
    return fail(pos_, std::string("expected ") + expected + ", found a byte order mark (U+FEFF) after the start");
  }
  if (is_alpha(c) || b >= 0x80 || (c != '\0' && std::strchr(".*+!-_?$%&=<>/", c) != nullptr)) return read_symbol(out);
  return fail(pos_, std::string("expected ") + expected + ", found " + found(pos_));
}

bool Parser::read_collection(Value& out, int depth, char open, std::string_view map_ns) {
  const size_t open_pos = pos_ - (open == '#' ? 1 : 0);  // a set starts at its '#'
  if (!enter(depth, open_pos)) return false;
  const char close = open == '(' ? ')' : open == '[' ? ']' : '}';
  ++pos_;
  const size_t base = stack_.size();
  for (;;) {
    if (!skip_ignorable(depth + 1)) return false;
    if (pos_ >= s_.size() || s_[pos_] == ')' || s_[pos_] == ']' || s_[pos_] == '}') {
      if (pos_ < s_.size() && s_[pos_] == close) break;
      return fail(pos_, std::string("expected '") + close + "' to close the " + collection_name(open) + " opened at " +
                            location(open_pos) + ", found " + found(pos_));
    }
    const size_t start = pos_;
    Value v;
    if (!read_form(v, depth + 1, "a value")) return false;
    stack_.push_back(std::move(v));
    offsets_.push_back(start);
  }
  if (open == '{' && !finish_map(base, map_ns)) return false;
  if (open == '#' && !remove_duplicates(base, 1, false)) return false;
  ++pos_;  // the closing bracket
  Value v;
  v.kind_ = open == '(' ? Kind::kList : open == '[' ? Kind::kVector : open == '{' ? Kind::kMap : Kind::kSet;
  v.items_.assign(std::make_move_iterator(stack_.begin() + static_cast<ptrdiff_t>(base)),
                  std::make_move_iterator(stack_.end()));
  stack_.resize(base);
  offsets_.resize(base);
  out = std::move(v);
  return true;
}

bool Parser::finish_map(size_t base, std::string_view map_ns) {
  const size_t n = stack_.size() - base;
  if (n % 2 != 0) {
    return fail(pos_, "expected a value for the map key " + brief(stack_.back()) + " at " + location(offsets_.back()) +
                          ", found '}'");
  }
  if (!map_ns.empty()) {
    // #:ns{...}: keys without a namespace get `ns`; keys in the namespace "_" lose theirs.
    for (size_t i = base; i < stack_.size(); i += 2) {
      Value& k = stack_[i];
      if (k.kind_ != Kind::kKeyword && k.kind_ != Kind::kSymbol) continue;
      if (k.ns_len_ == 0) {
        k.text_.insert(0, std::string(map_ns) + "/");
        k.ns_len_ = static_cast<uint32_t>(map_ns.size());
      } else if (k.ns() == "_") {
        // What remains must read back as the same key on its own.
        const bool is_keyword = k.kind_ == Kind::kKeyword;
        const std::string_view rest = std::string_view(k.text_).substr(2);
        const size_t at = offsets_[i] + (is_keyword ? 3 : 2);
        uint32_t ns_len = 0;
        if (!check_name(rest, at, is_keyword ? "keyword" : "symbol", &ns_len)) return false;
        if (!is_keyword && !standalone_symbol(rest)) {
          return fail(at, "expected a symbol after '_/', found " + quoted(rest));
        }
        // ":_/:i" would leave the keyword "::i", which is no EDN keyword (auto-resolved).
        if (is_keyword && rest.front() == ':') {
          return fail(at, "expected a keyword name after ':_/', found " + quoted(rest));
        }
        k.text_.erase(0, 2);
        k.ns_len_ = ns_len;
      }
    }
  }
  return remove_duplicates(base, 2, true);
}

// Drops later duplicates of a key (maps, stride 2) or element (sets, stride 1) in stack_[base...]: the first
// occurrence keeps its position and, in a map, takes the value of the last occurrence.
bool Parser::remove_duplicates(size_t base, size_t stride, bool is_map) {
  const size_t n = (stack_.size() - base) / stride;
  if (n < 2) return true;
  std::vector<uint32_t> dup_of;  // for entry i: the entry it duplicates, or i itself
  auto on_duplicate = [&](size_t first, size_t later) {
    if (options_.reject_duplicates) {
      return fail(offsets_[base + later * stride],
                  std::string(is_map ? "duplicate map key " : "duplicate set element ") +
                      brief(stack_[base + later * stride]) + " (first at " + location(offsets_[base + first * stride]) +
                      ")");
    }
    if (dup_of.empty()) {
      dup_of.resize(n);
      for (size_t i = 0; i < n; ++i) dup_of[i] = static_cast<uint32_t>(i);
    }
    dup_of[later] = static_cast<uint32_t>(first);
    if (is_map) {
      stack_[base + first * 2 + 1] = std::move(stack_[base + later * 2 + 1]);
      ++duplicate_keys_;
    } else {
      ++duplicate_elements_;
    }
    if (warnings_.size() < ParseReport::kMaxWarnings) {
      warnings_.emplace_back(
          offsets_[base + later * stride],
          is_map ? "duplicate map key " + brief(stack_[base + later * stride]) + " (the last value is kept)"
                 : "duplicate set element " + brief(stack_[base + later * stride]) + " (dropped)");
    }
    return true;
  };
  if (n <= 16) {
    for (size_t i = 1; i < n; ++i) {
      for (size_t j = 0; j < i; ++j) {
        if ((dup_of.empty() || dup_of[j] == j) && stack_[base + i * stride] == stack_[base + j * stride]) {
          if (!on_duplicate(j, i)) return false;
          break;
        }
      }
    }
  } else {
    // Sort (hash, index) so equal keys sit together in text order; compare only within a run of equal hashes.
    std::vector<std::pair<size_t, uint32_t>> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = {stack_[base + i * stride].hash(), static_cast<uint32_t>(i)};
    std::sort(order.begin(), order.end());
    for (size_t run = 0; run < n;) {
      size_t end = run + 1;
      while (end < n && order[end].first == order[run].first) ++end;
      for (size_t a = run + 1; a < end; ++a) {
        const size_t i = order[a].second;
        for (size_t b = run; b < a; ++b) {
          const size_t j = order[b].second;
          if ((dup_of.empty() || dup_of[j] == j) && stack_[base + i * stride] == stack_[base + j * stride]) {
            if (!on_duplicate(j, i)) return false;
            break;
          }
        }
      }
      run = end;
    }
  }
  if (dup_of.empty()) return true;
  size_t w = base;
  for (size_t i = 0; i < n; ++i) {
    if (dup_of[i] != i) continue;
    for (size_t k = 0; k < stride; ++k) {
      if (w != base + i * stride + k) {
        stack_[w] = std::move(stack_[base + i * stride + k]);
        offsets_[w] = offsets_[base + i * stride + k];
      }
      ++w;
    }
  }
  stack_.resize(w);
  offsets_.resize(w);
  return true;
}

bool Parser::read_string(Value& out) {
  const size_t open = pos_++;
  std::string text;
  size_t chunk = pos_;
  for (;;) {
    while (pos_ < s_.size()) {
      const auto b = static_cast<unsigned char>(s_[pos_]);
      if (b == '"' || b == '\\' || b >= 0x80) break;
      ++pos_;
    }
    if (pos_ >= s_.size()) {
      return fail(pos_, "expected '\"' to close the string opened at " + location(open) + ", found end of input");
    }
    const auto b = static_cast<unsigned char>(s_[pos_]);
    if (b == '"') {
      text.append(s_.data() + chunk, pos_ - chunk);
      ++pos_;
      break;
    }
    if (b >= 0x80) {
      char32_t cp;
      const size_t n = utf8_sequence(s_, pos_, &cp);
      if (n == 0) return fail(pos_, "expected UTF-8 text in the string, found " + found(pos_));
      pos_ += n;
      continue;
    }
    // An escape.
    text.append(s_.data() + chunk, pos_ - chunk);
    const size_t esc = pos_;
    if (pos_ + 1 >= s_.size()) {
      return fail(pos_, "expected '\"' to close the string opened at " + location(open) + ", found end of input");
    }
    const char e = s_[pos_ + 1];
    pos_ += 2;
    switch (e) {
      case 't': text.push_back('\t'); break;
      case 'r': text.push_back('\r'); break;
      case 'n': text.push_back('\n'); break;
      case '\\': text.push_back('\\'); break;
      case '"': text.push_back('"'); break;
      case 'b': text.push_back('\b'); break;
      case 'f': text.push_back('\f'); break;
      case 'u': {
        const int32_t u = read_hex4(s_, pos_);
        if (u < 0) return fail(esc, "expected four hex digits after \\u in the string, found " + found(pos_));
        pos_ += 4;
        char32_t cp = static_cast<char32_t>(u);
        if (u >= 0xDC00 && u <= 0xDFFF) {
          return fail(esc,
                      "expected a high surrogate before the low surrogate \\u" + std::string(s_.substr(esc + 2, 4)));
        }
        if (u >= 0xD800 && u <= 0xDBFF) {
          const int32_t low =
              pos_ + 1 < s_.size() && s_[pos_] == '\\' && s_[pos_ + 1] == 'u' ? read_hex4(s_, pos_ + 2) : -1;
          if (low < 0xDC00 || low > 0xDFFF) {
            return fail(esc, "expected a low surrogate \\uDC00-\\uDFFF after the high surrogate \\u" +
                                 std::string(s_.substr(esc + 2, 4)));
          }
          pos_ += 6;
          cp = 0x10000 + ((static_cast<char32_t>(u) - 0xD800) << 10) + (static_cast<char32_t>(low) - 0xDC00);
        }
        lorekeeper::text::append_utf8(text, cp);
        break;
      }
      default:
        return fail(esc, "expected one of \\t \\r \\n \\\\ \\\" \\b \\f \\uXXXX in the string, found '\\' then " +
                             found(esc + 1));
    }
    chunk = pos_;
  }
  out = Value();
  out.kind_ = Kind::kString;
  out.text_ = std::move(text);
  return true;
}

bool Parser::read_character(Value& out) {
  const size_t start = pos_;
  if (pos_ + 1 >= s_.size()) return fail(pos_, "expected a character after '\\', found end of input");
  const char c = s_[pos_ + 1];
  if ((byte_class(c) & kWhite) && c != ',') {
    return fail(pos_ + 1, "expected a character after '\\', found " + found(pos_ + 1));
  }
  char32_t cp = static_cast<unsigned char>(c);
  size_t first_len = 1;
  if (cp >= 0x80) {
    first_len = utf8_sequence(s_, pos_ + 1, &cp);
    if (first_len == 0) return fail(pos_ + 1, "expected a character after '\\', found " + found(pos_ + 1));
  } else if (byte_class(c) & kCtrl) {
    return fail(pos_ + 1, "expected a character after '\\', found " + found(pos_ + 1));
  }
  const size_t end = token_end(pos_ + 1 + first_len);
  const std::string_view tok = s_.substr(pos_ + 1, end - pos_ - 1);
  if (tok.size() > first_len) {
    if (tok == "newline") {
      cp = '\n';
    } else if (tok == "space") {
      cp = ' ';
    } else if (tok == "tab") {
      cp = '\t';
    } else if (tok == "return") {
      cp = '\r';
    } else if (tok == "backspace") {
      cp = '\b';
    } else if (tok == "formfeed") {
      cp = '\f';
    } else if (tok.size() == 5 && tok[0] == 'u' && read_hex4(tok, 1) >= 0) {
      cp = static_cast<char32_t>(read_hex4(tok, 1));
      if (cp >= 0xD800 && cp <= 0xDFFF) {
        return fail(start, "expected a character, found the surrogate " + quoted(tok));
      }
    } else if (tok.size() >= 2 && tok.size() <= 4 && tok[0] == 'o' &&
               std::all_of(tok.begin() + 1, tok.end(), [](char d) { return d >= '0' && d <= '7'; })) {
      cp = 0;
      for (size_t i = 1; i < tok.size(); ++i) cp = cp * 8 + static_cast<char32_t>(tok[i] - '0');
      if (cp > 0377) return fail(start, "expected an octal character \\o0 to \\o377, found " + quoted(tok));
    } else {
      return fail(start,
                  "expected a character name (newline, space, tab, return, backspace, formfeed, uXXXX, "
                  "oNNN) after '\\', found " +
                      quoted(tok));
    }
  }
  pos_ = end;
  out = Value();
  out.kind_ = Kind::kCharacter;
  out.char_ = cp;
  return true;
}

bool Parser::read_number(Value& out) {
  const size_t start = pos_;
  const size_t end = token_end(pos_);
  const std::string_view tok = s_.substr(start, end - start);
  auto invalid = [&](const std::string& why) { return fail(start, "expected a number, found " + quoted(tok) + why); };
  size_t i = 0;
  const bool negative = tok[0] == '-';
  if (tok[0] == '+' || tok[0] == '-') ++i;
  const size_t int_begin = i;
  while (i < tok.size() && is_digit(tok[i])) ++i;
  const size_t int_end = i;
  if (i < tok.size()) {
    if (tok[int_begin] == '0' && int_end - int_begin == 1 && (tok[i] == 'x' || tok[i] == 'X')) {
      return invalid(" (hexadecimal numbers are not EDN)");
    }
    if (tok[i] == 'r' || tok[i] == 'R') return invalid(" (radix numbers are not EDN)");
    if (tok[i] == '/') return invalid(" (ratios are not supported)");
  }
  bool is_float = false;
  size_t frac_begin = 0;
  size_t frac_end = 0;
  if (i < tok.size() && tok[i] == '.') {
    is_float = true;
    frac_begin = ++i;
    while (i < tok.size() && is_digit(tok[i])) ++i;
    frac_end = i;
  }
  int64_t exponent = 0;
  if (i < tok.size() && (tok[i] == 'e' || tok[i] == 'E')) {
    is_float = true;
    ++i;
    bool exp_negative = false;
    if (i < tok.size() && (tok[i] == '+' || tok[i] == '-')) exp_negative = tok[i++] == '-';
    const size_t exp_begin = i;
    while (i < tok.size() && is_digit(tok[i])) {
      exponent = std::min<int64_t>(exponent * 10 + (tok[i] - '0'), 1'000'000'000);
      ++i;
    }
    if (i == exp_begin) return invalid(" (the exponent has no digits)");
    if (exp_negative) exponent = -exponent;
  }
  bool big_suffix = false;
  bool decimal_suffix = false;
  if (i < tok.size() && tok[i] == 'N' && !is_float) {
    big_suffix = true;
    ++i;
  } else if (i < tok.size() && tok[i] == 'M') {
    decimal_suffix = true;
    is_float = true;
    ++i;
  }
  if (i != tok.size()) return invalid("");
  if (int_end - int_begin > 1 && tok[int_begin] == '0') return invalid(" (leading zeros are not allowed)");
  (void)big_suffix;

  out = Value();
  if (!is_float) {
    const std::string_view digits = tok.substr(int_begin, int_end - int_begin);
    const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
    uint64_t v = 0;
    bool overflow = false;
    for (char d : digits) {
      const auto digit = static_cast<uint64_t>(d - '0');
      if (v > (limit - digit) / 10) {
        overflow = true;
        break;
      }
      v = v * 10 + digit;
    }
    out.kind_ = Kind::kInteger;
    if (overflow) {
      out.big_ = true;
      out.text_.reserve(digits.size() + 1);
      if (negative) out.text_.push_back('-');
      out.text_.append(digits);
    } else {
      out.int_ = negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
    }
    pos_ = end;
    return true;
  }
  // from_chars takes no '+' and no suffix; the grammar is checked above.
  const char* first = tok.data() + (tok[0] == '+' ? 1 : 0);
  const char* last = tok.data() + tok.size() - (decimal_suffix ? 1 : 0);
  double d = 0;
  const auto [ptr, ec] = std::from_chars(first, last, d, std::chars_format::general);
  if (ec == std::errc::result_out_of_range) {
    // Decide overflow or underflow from the decimal position of the first significant digit.
    int64_t magnitude = 0;
    bool nonzero = false;
    for (size_t k = int_begin; k < int_end && !nonzero; ++k) {
      if (tok[k] != '0') {
        nonzero = true;
        magnitude = static_cast<int64_t>(int_end - k);
      }
    }
    for (size_t k = frac_begin; k < frac_end && !nonzero; ++k) {
      if (tok[k] != '0') {
        nonzero = true;
        magnitude = -static_cast<int64_t>(k - frac_begin);
      }
    }
    const double sign = negative ? -1.0 : 1.0;
    d = nonzero && magnitude + exponent > 0 ? sign * std::numeric_limits<double>::infinity() : sign * 0.0;
  } else if (ec != std::errc() || ptr != last) {
    return invalid("");
  }
  out.kind_ = Kind::kFloat;
  out.float_ = d;
  pos_ = end;
  return true;
}

// Checks a symbol, keyword or tag body and finds its namespace: valid UTF-8; no trailing ':'; either '/' alone, or
// no '/', or a non-empty namespace up to the first '/' and a non-empty name after it. The name may hold further
// '/' (ClojureScript's `keyword` function writes such names; its reader refuses them, which helps nobody).
bool Parser::check_name(std::string_view tok, size_t at, const char* what, uint32_t* ns_len) {
  for (size_t i = 0; i < tok.size();) {
    const auto b = static_cast<unsigned char>(tok[i]);
    if (b < 0x80) {
      ++i;
      continue;
    }
    char32_t cp;
    const size_t n = utf8_sequence(tok, i, &cp);
    if (n == 0) return fail(at + i, std::string("expected UTF-8 text in the ") + what + ", found " + found(at + i));
    i += n;
  }
  auto bad = [&](const char* why) {
    return fail(at, std::string("expected a ") + what + ", found " + quoted(tok) + " (" + why + ")");
  };
  if (tok.back() == ':') return bad("it ends with ':'");
  *ns_len = 0;
  const size_t slash = tok.find('/');
  if (slash == std::string_view::npos || tok == "/") return true;
  if (slash == 0) return bad("empty namespace before '/'");
  const std::string_view name = tok.substr(slash + 1);
  if (name.empty()) return bad("empty name after '/'");
  if (tok[slash - 1] == ':') return bad("the namespace ends with ':'");
  *ns_len = static_cast<uint32_t>(slash);
  return true;
}

bool Parser::read_symbol(Value& out) {
  const size_t start = pos_;
  const size_t end = token_end(pos_);
  const std::string_view tok = s_.substr(start, end - start);
  out = Value();
  pos_ = end;
  if (tok == "nil") return true;
  if (tok == "true" || tok == "false") {
    out.kind_ = Kind::kBool;
    out.bool_ = tok[0] == 't';
    return true;
  }
  if (tok.size() >= 2 && tok[0] == '.' && is_digit(tok[1])) {
    return fail(start, "expected a number or a symbol, found " + quoted(tok) + " (a number needs a digit before '.')");
  }
  uint32_t ns_len = 0;
  if (!check_name(tok, start, "symbol", &ns_len)) return false;
  out.kind_ = Kind::kSymbol;
  out.text_.assign(tok);
  out.ns_len_ = ns_len;
  return true;
}

bool Parser::read_keyword(Value& out) {
  const size_t start = pos_;
  const size_t end = token_end(pos_ + 1);
  const std::string_view tok = s_.substr(start + 1, end - start - 1);
  if (tok.empty()) return fail(start + 1, "expected a keyword name after ':', found " + found(start + 1));
  if (tok[0] == ':') return fail(start, "auto-resolved keywords ('::name') are not EDN");
  uint32_t ns_len = 0;
  if (!check_name(tok, start + 1, "keyword", &ns_len)) return false;
  out = Value();
  out.kind_ = Kind::kKeyword;
  out.text_.assign(tok);
  out.ns_len_ = ns_len;
  pos_ = end;
  return true;
}

bool Parser::read_dispatch(Value& out, int depth) {
  const size_t start = pos_;
  if (pos_ + 1 >= s_.size()) return fail(pos_ + 1, "expected a dispatch character after '#', found end of input");
  const char c = s_[pos_ + 1];
  if (c == '{') {
    ++pos_;
    return read_collection(out, depth, '#', {});
  }
  if (c == '#') {
    const size_t end = token_end(pos_ + 2);
    const std::string_view tok = s_.substr(pos_ + 2, end - pos_ - 2);
    double d;
    if (tok == "NaN") {
      d = std::numeric_limits<double>::quiet_NaN();
    } else if (tok == "Inf") {
      d = std::numeric_limits<double>::infinity();
    } else if (tok == "-Inf") {
      d = -std::numeric_limits<double>::infinity();
    } else {
      return fail(start, "expected ##NaN, ##Inf or ##-Inf, found " + quoted(s_.substr(start, end - start)));
    }
    out = Value();
    out.kind_ = Kind::kFloat;
    out.float_ = d;
    pos_ = end;
    return true;
  }
  if (c == ':') {
    // #:ns{...}
    const size_t end = token_end(pos_ + 2);
    const std::string_view ns = s_.substr(pos_ + 2, end - pos_ - 2);
    if (!ns.empty() && ns[0] == ':') return fail(start, "auto-resolved namespaced maps ('#::{...}') are not EDN");
    if (ns.empty()) return fail(pos_ + 2, "expected a namespace after '#:', found " + found(pos_ + 2));
    uint32_t ns_len = 0;
    if (!check_name(ns, pos_ + 2, "namespace", &ns_len)) return false;
    if (ns.find('/') != std::string_view::npos ||
        !(is_alpha(ns[0]) || ns[0] == '_' || (static_cast<unsigned char>(ns[0]) >= 0x80 && !starts_with_bom(ns)))) {
      return fail(pos_ + 2, "expected a namespace after '#:', found " + quoted(ns));
    }
    pos_ = end;
    skip_whitespace();
    if (pos_ >= s_.size() || s_[pos_] != '{') {
      return fail(pos_, "expected '{' after the namespace " + quoted(ns) + ", found " + found(pos_));
    }
    return read_collection(out, depth, '{', ns);
  }
  if (is_alpha(c)) {
    // A tagged value: #tag form.
    const size_t end = token_end(pos_ + 1);
    const std::string_view tag = s_.substr(pos_ + 1, end - pos_ - 1);
    uint32_t ns_len = 0;
    if (!check_name(tag, pos_ + 1, "tag", &ns_len)) return false;
    if (!enter(depth, start)) return false;
    pos_ = end;
    Value inner;
    if (!read_form(inner, depth + 1, "a value after the tag")) return false;
    if (tag == "inst" || tag == "uuid") {
      const bool inst = tag == "inst";
      if (inner.kind_ != Kind::kString) {
        return fail(start,
                    std::string("expected a string after #") + (inst ? "inst" : "uuid") + ", found " + brief(inner));
      }
      if (inst ? !valid_inst(inner.text_) : !valid_uuid(inner.text_)) {
        return fail(start, std::string("expected ") +
                               (inst ? "an RFC 3339 timestamp after #inst" : "a UUID (8-4-4-4-12 hex) after #uuid") +
                               ", found " + brief(inner));
      }
    }
    out = Value();
    out.kind_ = Kind::kTagged;
    out.text_.assign(tag);
    out.ns_len_ = ns_len;
    out.items_.push_back(std::move(inner));
    return true;
  }
  switch (c) {
    case '"': return fail(start, "regular expressions ('#\"...\"') are not EDN");
    case '(': return fail(start, "anonymous functions ('#(...)') are not EDN");
    case '\'': return fail(start, "var quotes ('#'') are not EDN");
    case '?': return fail(start, "reader conditionals ('#?') are not EDN");
    case '=': return fail(start, "read-time evaluation ('#=') is not EDN");
    case '^': return fail(start, "metadata ('#^') is not EDN");
    default: break;
  }
  return fail(pos_ + 1, "expected a tag, '{', '_', '#' or ':' after '#', found " + found(pos_ + 1));
}

void Parser::fill(ParseReport* report) {
  if (report == nullptr) return;
  report->duplicate_map_keys += duplicate_keys_;
  report->duplicate_set_elements += duplicate_elements_;
  std::stable_sort(warnings_.begin(), warnings_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  // One pass over the text for all locations.
  size_t line = 1;
  size_t column = 1;
  size_t at = 0;
  for (const auto& [offset, message] : warnings_) {
    if (report->warnings.size() >= ParseReport::kMaxWarnings) break;
    for (; at < offset && at < s_.size(); ++at) {
      const auto b = static_cast<unsigned char>(s_[at]);
      if (b == '\n') {
        ++line;
        column = 1;
      } else if ((b & 0xC0) != 0x80) {
        ++column;
      }
    }
    report->warnings.push_back("line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + message);
  }
}

Result<Value> parse(std::string_view text, const ParseOptions& options, ParseReport* report) {
  Parser p(text, options);
  Value v;
  if (!p.read_form(v, 0, "a value") || !p.skip_ignorable(0)) return p.error();
  if (!p.at_end()) {
    p.fail_trailing();
    return p.error();
  }
  p.fill(report);
  return v;
}

Result<std::vector<Value>> parse_all(std::string_view text, const ParseOptions& options, ParseReport* report) {
  Parser p(text, options);
  std::vector<Value> values;
  for (;;) {
    if (!p.skip_ignorable(0)) return p.error();
    if (p.at_end()) break;
    values.emplace_back();
    if (!p.read_form(values.back(), 0, "a value")) return p.error();
  }
  p.fill(report);
  return values;
}

// ---------------------------------------------------------------------------------------------------------------
// Values

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::kNil: return "nil";
    case Kind::kBool: return "boolean";
    case Kind::kInteger: return "integer";
    case Kind::kFloat: return "float";
    case Kind::kString: return "string";
    case Kind::kCharacter: return "character";
    case Kind::kKeyword: return "keyword";
    case Kind::kSymbol: return "symbol";
    case Kind::kList: return "list";
    case Kind::kVector: return "vector";
    case Kind::kMap: return "map";
    case Kind::kSet: return "set";
    case Kind::kTagged: return "tagged value";
  }
  return "unknown";
}

Value Value::boolean(bool b) {
  Value v;
  v.kind_ = Kind::kBool;
  v.bool_ = b;
  return v;
}

Value Value::integer(int64_t i) {
  Value v;
  v.kind_ = Kind::kInteger;
  v.int_ = i;
  return v;
}

Value Value::big_integer(std::string digits) {
  Value v;
  v.kind_ = Kind::kInteger;
  v.big_ = true;
  v.text_ = std::move(digits);
  return v;
}

Value Value::floating(double d) {
  Value v;
  v.kind_ = Kind::kFloat;
  v.float_ = d;
  return v;
}

Value Value::string(std::string s) {
  Value v;
  v.kind_ = Kind::kString;
  v.text_ = std::move(s);
  return v;
}

Value Value::character(char32_t c) {
  Value v;
  v.kind_ = Kind::kCharacter;
  v.char_ = c;
  return v;
}

namespace {

void set_qualified(std::string& text, uint32_t& ns_len, std::string_view ns, std::string_view name) {
  text.clear();
  if (!ns.empty()) {
    text.append(ns);
    text.push_back('/');
  }
  text.append(name);
  ns_len = static_cast<uint32_t>(ns.size());
}

}  // namespace

Value Value::keyword(std::string_view ns, std::string_view name) {
  Value v;
  v.kind_ = Kind::kKeyword;
  set_qualified(v.text_, v.ns_len_, ns, name);
  return v;
}

Value Value::symbol(std::string_view ns, std::string_view name) {
  Value v;
  v.kind_ = Kind::kSymbol;
  set_qualified(v.text_, v.ns_len_, ns, name);
  return v;
}

Value Value::list(std::vector<Value> items) {
  Value v;
  v.kind_ = Kind::kList;
  v.items_ = std::move(items);
  return v;
}

Value Value::vector(std::vector<Value> items) {
  Value v;
  v.kind_ = Kind::kVector;
  v.items_ = std::move(items);
  return v;
}

Value Value::set(std::vector<Value> items) {
  Value v;
  v.kind_ = Kind::kSet;
  v.items_ = std::move(items);
  return v;
}

Value Value::map(std::vector<Value> keys_and_values) {
  Value v;
  v.kind_ = Kind::kMap;
  v.items_ = std::move(keys_and_values);
  if (v.items_.size() % 2 != 0) v.items_.emplace_back();
  return v;
}

Value Value::tagged(std::string_view tag, Value inner) {
  Value v;
  v.kind_ = Kind::kTagged;
  const size_t slash = tag.find('/');
  v.text_.assign(tag);
  v.ns_len_ = slash == std::string_view::npos || slash == 0 || tag == "/" ? 0 : static_cast<uint32_t>(slash);
  v.items_.push_back(std::move(inner));
  return v;
}

std::optional<bool> Value::as_bool() const {
  if (kind_ != Kind::kBool) return std::nullopt;
  return bool_;
}

std::optional<int64_t> Value::as_int() const {
  if (kind_ != Kind::kInteger || big_) return std::nullopt;
  return int_;
}

std::optional<double> Value::as_double() const {
  if (kind_ == Kind::kFloat) return float_;
  if (kind_ != Kind::kInteger) return std::nullopt;
  if (!big_) return static_cast<double>(int_);
  double d = 0;
  const char* first = text_.data();
  const char* last = text_.data() + text_.size();
  const auto [ptr, ec] = std::from_chars(first, last, d);
  if (ec == std::errc::result_out_of_range) {
    return (!text_.empty() && text_[0] == '-' ? -1.0 : 1.0) * std::numeric_limits<double>::infinity();
  }
  if (ec != std::errc()) return std::nullopt;
  return d;
}

std::optional<std::string_view> Value::as_string() const {
  if (kind_ != Kind::kString) return std::nullopt;
  return std::string_view(text_);
}

std::optional<char32_t> Value::as_char() const {
  if (kind_ != Kind::kCharacter) return std::nullopt;
  return char_;
}

std::string_view Value::ns() const {
  if (kind_ != Kind::kKeyword && kind_ != Kind::kSymbol && kind_ != Kind::kTagged) return {};
  return std::string_view(text_).substr(0, ns_len_);
}

std::string_view Value::name() const {
  if (kind_ != Kind::kKeyword && kind_ != Kind::kSymbol && kind_ != Kind::kTagged) return {};
  return ns_len_ == 0 ? std::string_view(text_) : std::string_view(text_).substr(ns_len_ + 1);
}

const Value* Value::get(std::string_view keyword) const {
  if (kind_ != Kind::kMap) return nullptr;
  for (size_t i = 0; i + 1 < items_.size(); i += 2) {
    if (items_[i].kind_ == Kind::kKeyword && items_[i].text_ == keyword) return &items_[i + 1];
  }
  return nullptr;
}

const Value* Value::find(const Value& key) const {
  if (kind_ != Kind::kMap) return nullptr;
  for (size_t i = 0; i + 1 < items_.size(); i += 2) {
    if (items_[i] == key) return &items_[i + 1];
  }
  return nullptr;
}

const Value& Value::tagged_value() const {
  static const Value kNil{};
  return kind_ == Kind::kTagged && !items_.empty() ? items_[0] : kNil;
}

bool operator==(const Value& a, const Value& b) {
  if (a.kind_ != b.kind_) return false;
  switch (a.kind_) {
    case Kind::kNil: return true;
    case Kind::kBool: return a.bool_ == b.bool_;
    case Kind::kInteger: return a.big_ == b.big_ && (a.big_ ? a.text_ == b.text_ : a.int_ == b.int_);
    case Kind::kFloat:
      if (std::isnan(a.float_)) return std::isnan(b.float_);
      return a.float_ == b.float_ && std::signbit(a.float_) == std::signbit(b.float_);
    case Kind::kCharacter: return a.char_ == b.char_;
    case Kind::kString:
    case Kind::kKeyword:
    case Kind::kSymbol: return a.text_ == b.text_;
    case Kind::kTagged: return a.text_ == b.text_ && a.items_ == b.items_;
    case Kind::kList:
    case Kind::kVector:
    case Kind::kMap:
    case Kind::kSet: return a.items_ == b.items_;
  }
  return false;
}

size_t Value::hash() const {
  auto mix = [](size_t h, size_t v) { return h ^ (v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2)); };
  size_t h = static_cast<size_t>(kind_) * 0x100000001B3ull;
  switch (kind_) {
    case Kind::kNil: break;
    case Kind::kBool: h = mix(h, bool_ ? 1 : 0); break;
    case Kind::kInteger:
      h = big_ ? mix(h, std::hash<std::string_view>()(text_)) : mix(h, std::hash<int64_t>()(int_));
      break;
    case Kind::kFloat: h = mix(h, std::isnan(float_) ? 0x7FF8 : std::hash<double>()(float_)); break;
    case Kind::kCharacter: h = mix(h, char_); break;
    case Kind::kString:
    case Kind::kKeyword:
    case Kind::kSymbol:
    case Kind::kTagged: h = mix(h, std::hash<std::string_view>()(text_)); break;
    default: break;
  }
  for (const Value& item : items_) h = mix(h, item.hash());
  return h;
}

// ---------------------------------------------------------------------------------------------------------------
// Printer

namespace {

void print_string(std::string_view s, std::string& out) {
  out.push_back('"');
  size_t chunk = 0;
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b >= 0x20 && b != '"' && b != '\\' && b < 0x80) {
      ++i;
      continue;
    }
    if (b >= 0x80) {
      char32_t cp;
      const size_t n = utf8_sequence(s, i, &cp);
      if (n > 0) {
        i += n;
        continue;
      }
    }
    out.append(s.data() + chunk, i - chunk);
    switch (b) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (b < 0x20) {
          out += "\\u";
          append_hex4(out, b);
        } else {
          out += "\xEF\xBF\xBD";  // a byte of malformed UTF-8
        }
        break;
    }
    chunk = ++i;
  }
  out.append(s.data() + chunk, s.size() - chunk);
  out.push_back('"');
}

void print_character(char32_t c, std::string& out) {
  out.push_back('\\');
  switch (c) {
    case '\n': out += "newline"; return;
    case ' ': out += "space"; return;
    case '\t': out += "tab"; return;
    case '\r': out += "return"; return;
    case '\b': out += "backspace"; return;
    case '\f': out += "formfeed"; return;
    default: break;
  }
  // Control characters, the comma (whitespace to EDN readers) and anything that is not a Unicode scalar value
  // print as \uXXXX; characters beyond the BMP have no \u form and print as themselves.
  if (c < 0x20 || c == 0x7F || c == ',' || (c >= 0xD800 && c <= 0xDFFF)) {
    out.push_back('u');
    append_hex4(out, static_cast<uint32_t>(c));
  } else if (c > 0x10FFFF) {
    out += "uFFFD";
  } else {
    text::append_utf8(out, c);
  }
}

void print_float(double d, std::string& out) {
  if (std::isnan(d)) {
    out += "##NaN";
    return;
  }
  if (std::isinf(d)) {
    out += d > 0 ? "##Inf" : "##-Inf";
    return;
  }
  char buf[64];
  const auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, d);
  (void)ec;
  const std::string_view s(buf, static_cast<size_t>(ptr - buf));
  out += s;
  // "1" or "1e+20" would read back as an integer or is fine; add ".0" only when there is neither '.' nor 'e'.
  if (s.find_first_of(".e") == std::string_view::npos) out += ".0";
}

}  // namespace

void print(const Value& v, std::string& out) {
  switch (v.kind()) {
    case Kind::kNil: out += "nil"; return;
    case Kind::kBool: out += *v.as_bool() ? "true" : "false"; return;
    case Kind::kInteger:
      if (v.is_big_integer()) {
        out += v.text();
        out.push_back('N');
      } else {
        char buf[24];
        const auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, *v.as_int());
        (void)ec;
        out.append(buf, ptr);
      }
      return;
    case Kind::kFloat: print_float(*v.as_double(), out); return;
    case Kind::kString: print_string(v.text(), out); return;
    case Kind::kCharacter: print_character(*v.as_char(), out); return;
    case Kind::kKeyword:
      out.push_back(':');
      out += v.text();
      return;
    case Kind::kSymbol: out += v.text(); return;
    case Kind::kTagged:
      out.push_back('#');
      out += v.text();
      out.push_back(' ');
      print(v.tagged_value(), out);
      return;
    case Kind::kList:
    case Kind::kVector:
    case Kind::kSet: {
      out += v.is(Kind::kList) ? "(" : v.is(Kind::kVector) ? "[" : "#{";
      bool first = true;
      for (const Value& item : v.items()) {
        if (!first) out.push_back(' ');
        first = false;
        print(item, out);
      }
      out.push_back(v.is(Kind::kList) ? ')' : v.is(Kind::kVector) ? ']' : '}');
      return;
    }
    case Kind::kMap: {
      out.push_back('{');
      bool first = true;
      for (const auto& [key, value] : v.entries()) {
        if (!first) out += ", ";
        first = false;
        print(key, out);
        out.push_back(' ');
        print(value, out);
      }
      out.push_back('}');
      return;
    }
  }
}

std::string to_string(const Value& value) {
  std::string out;
  print(value, out);
  return out;
}

std::ostream& operator<<(std::ostream& os, const Value& value) { return os << to_string(value); }

}  // namespace lorekeeper::edn
