#include "lorekeeper/core/json_util.hpp"

#include <cstdlib>

namespace lorekeeper::json_util {

namespace {
const json& null_json() {
  static const json kNull;
  return kNull;
}
}  // namespace

std::string str(const json& obj, const char* key) {
  if (!obj.is_object()) return {};
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return {};
  return it->get<std::string>();
}

std::optional<double> num(const json& obj, const char* key) {
  if (!obj.is_object()) return std::nullopt;
  auto it = obj.find(key);
  if (it == obj.end()) return std::nullopt;
  if (it->is_number()) return it->get<double>();
  if (it->is_string()) {
    const std::string& s = it->get_ref<const std::string&>();
    if (s.empty()) return std::nullopt;
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (end != nullptr && *end == '\0') return v;
  }
  return std::nullopt;
}

std::optional<bool> boolean(const json& obj, const char* key) {
  if (!obj.is_object()) return std::nullopt;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_boolean()) return std::nullopt;
  return it->get<bool>();
}

const json& child(const json& obj, const char* key) {
  if (!obj.is_object()) return null_json();
  auto it = obj.find(key);
  if (it == obj.end()) return null_json();
  return *it;
}

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

size_t nesting_depth(std::string_view text, size_t stop_after) {
  size_t depth = 0;
  size_t deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > stop_after) return deepest;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

namespace {

// The value of the four hex digits at text[i..i+4), or -1.
int hex4(std::string_view text, size_t i) {
  if (i + 4 > text.size()) return -1;
  int v = 0;
  for (size_t k = i; k < i + 4; ++k) {
    const char c = text[k];
    const int d = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

// `text` with every escape of an unpaired UTF-16 surrogate (a high one not followed by a low one, a low one not
// after a high one) written as the escape of U+FFFD, the replacement character; nullopt when there is none.
std::optional<std::string> without_lone_surrogates(std::string_view text) {
  std::string out;
  bool changed = false;
  size_t copied = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (!in_string) {
      in_string = c == '"';
      continue;
    }
    if (c == '"') {
      in_string = false;
      continue;
    }
    if (c != '\\' || i + 1 >= text.size()) continue;
    if (text[i + 1] != 'u') {
      ++i;
      continue;
    }
    const int v = hex4(text, i + 2);
    if (v >= 0xD800 && v <= 0xDBFF) {
      const bool paired = i + 7 < text.size() && text[i + 6] == '\\' && text[i + 7] == 'u' &&
                          hex4(text, i + 8) >= 0xDC00 && hex4(text, i + 8) <= 0xDFFF;
      if (paired) {
        i += 11;  // the pair, whole
        continue;
      }
    } else if (!(v >= 0xDC00 && v <= 0xDFFF)) {
      i += 5;
      continue;
    }
    out.append(text.substr(copied, i - copied));
    out += "\\ufffd";
    copied = i + 6;
    i += 5;
    changed = true;
  }
  if (!changed) return std::nullopt;
  out.append(text.substr(copied));
  return out;
}

}  // namespace

std::optional<json> parse(std::string_view text, std::string* error, ParseFailure* failure, size_t max_depth) {
  if (nesting_depth(text, max_depth) > max_depth) {
    if (error) *error = "nested deeper than " + std::to_string(max_depth) + " levels";
    if (failure) *failure = ParseFailure::kTooDeep;
    return std::nullopt;
  }
  json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded()) {
    // An unpaired surrogate escape (of U+D800, say, which a JavaScript string may hold) is not valid JSON, but the
    // message around it is: it is read as U+FFFD, so the message keeps its id and gets an answer.
    if (auto repaired = without_lone_surrogates(text)) j = json::parse(*repaired, nullptr, false);
  }
  if (j.is_discarded()) {
    if (error) *error = "not valid JSON";
    if (failure) *failure = ParseFailure::kSyntax;
    return std::nullopt;
  }
  if (failure) *failure = ParseFailure::kNone;
  return j;
}

}  // namespace lorekeeper::json_util
