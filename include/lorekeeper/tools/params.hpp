// Declarative tool parameters: one description per parameter drives both the JSON Schema a client sees and
// the validation of the arguments a client sends, so the two cannot drift apart.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lorekeeper/core/status.hpp"

namespace lorekeeper::tools {

using nlohmann::json;
using ojson = nlohmann::ordered_json;

// kFraction: a number, or a string holding one or a fraction ("1/4", "0.5", "3"), validated to a number (challenge
// ratings are written both ways).
// kIntegerArray: integers within minimum/maximum. kObjectArray: objects, each validated against `fields`.
// kObject: an object whose members the tool itself validates (count_entities' filters, checked against the
// search tool of the kind counted).
enum class ParamType {
  kString,
  kInteger,
  kNumber,
  kFraction,
  kBoolean,
  kStringArray,
  kIntegerArray,
  kObjectArray,
  kObject
};

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::kString;
  std::string description;
  std::vector<std::string> enum_values;  // accepted case-insensitively; reported in this spelling
  std::optional<double> minimum;
  std::optional<double> maximum;
  json default_value;  // null: none
  bool required = false;
  // Extra accepted spellings mapped to an enum value (e.g. "very rare" -> "very-rare"); not in the schema.
  std::vector<std::pair<std::string, std::string>> aliases;
  std::vector<ParamSpec> fields = {};               // kObjectArray: the parameters of each object
  std::optional<size_t> max_items = std::nullopt;   // arrays: at most this many items (kMaxItems when unset)
  std::optional<size_t> max_length = std::nullopt;  // strings and string items: at most this many characters
                                                    // (code points; kMaxStringLength when unset)
};

// Every string and array parameter is bounded, so no legal call can make a tool's work or answer grow without
// limit: a string (a search, a name, a dice expression) holds at most kMaxStringLength characters unless its spec
// says fewer, an array at most kMaxItems items. The schema states each bound as maxLength and maxItems.
inline constexpr size_t kMaxStringLength = 1000;
inline constexpr size_t kMaxItems = 64;
// A document given by key or name: recorded keys and names are a few dozen characters long.
inline constexpr size_t kMaxDocumentNameLength = 200;

// The bounds that apply to a parameter (its own, or the defaults above).
size_t max_length_of(const ParamSpec& p);
size_t max_items_of(const ParamSpec& p);

// The JSON Schema (2020-12, flat and portable: type/description/enum/default/minimum/maximum; anyOf of a number
// and a pattern-checked string for kFraction; enum on the items of a string array) of a parameter list, as used
// for a tool's inputSchema.
ojson input_schema(const std::vector<ParamSpec>& params);

// Validates `arguments` (an object, or null for none) against `params`. On success returns an object holding
// only the parameters given (nulls dropped), enum values in their canonical spelling, defaults filled in.
// On failure returns InvalidArgument with a message that names the parameter and what is valid.
Result<json> validate_arguments(const std::vector<ParamSpec>& params, const json& arguments);

}  // namespace lorekeeper::tools
