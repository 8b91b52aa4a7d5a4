// Small helpers over nlohmann::json that never throw.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

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
// The deepest nesting of arrays and objects parse() accepts. Every JSON that crosses a boundary (protocol
// messages, API pages, files) is parsed through parse(), so no value deeper than this exists in the process and
// the recursive operations on values (copy, compare, dump) stay far from the stack's limit. The recorded Open5e
// API nests at most 10 levels; MCP messages fewer.
inline constexpr size_t kMaxDepth = 64;

enum class ParseFailure { kNone, kSyntax, kTooDeep };

// Deepest nesting of arrays and objects in `text`, scanning strings correctly; for text that is not JSON the
// figure is what the brackets outside strings say. Stops counting once past `stop_after`.
size_t nesting_depth(std::string_view text, size_t stop_after = SIZE_MAX);

// Parses text; returns nullopt (and an error message, and why) instead of throwing. Text nesting deeper than
// `max_depth` is refused before it is parsed (failure kTooDeep).
std::optional<json> parse(std::string_view text, std::string* error, ParseFailure* failure = nullptr,
                          size_t max_depth = kMaxDepth);

}  // namespace lorekeeper::json_util
