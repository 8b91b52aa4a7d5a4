// Small helpers over nlohmann::json that never throw.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace lorekeeper::json_util {

using nlohmann::json;

// The string at obj[key], or "" when absent, null or not a string.
std::string str(const json& obj, const char* key);
// A number at obj[key] (numbers, or strings holding a number such as "1.000"), if any.
std::optional<double> num(const json& obj, const char* key);
std::optional<bool> boolean(const json& obj, const char* key);
// obj[key] if it is an object/array, else nullptr json.
const json& child(const json& obj, const char* key);

// Compact serialisation that replaces invalid UTF-8 instead of throwing.
std::string dump(const json& j);
// Parses text; returns nullopt (and an error message) instead of throwing.
std::optional<json> parse(const std::string& text, std::string* error);

}  // namespace lorekeeper::json_util
