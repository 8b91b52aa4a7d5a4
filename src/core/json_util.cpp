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

std::optional<json> parse(std::string_view text, std::string* error, ParseFailure* failure, size_t max_depth) {
  if (nesting_depth(text, max_depth) > max_depth) {
    if (error) *error = "nested deeper than " + std::to_string(max_depth) + " levels";
    if (failure) *failure = ParseFailure::kTooDeep;
    return std::nullopt;
  }
  json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded()) {
    if (error) *error = "not valid JSON";
    if (failure) *failure = ParseFailure::kSyntax;
    return std::nullopt;
  }
  if (failure) *failure = ParseFailure::kNone;
  return j;
}

}  // namespace lorekeeper::json_util
