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

std::optional<json> parse(const std::string& text, std::string* error) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) {
    if (error) *error = "not valid JSON";
    return std::nullopt;
  }
  return j;
}

}  // namespace lorekeeper::json_util
