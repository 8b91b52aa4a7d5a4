#include "lorekeeper/tools/params.hpp"

#include <cmath>

#include "lorekeeper/core/text.hpp"

namespace lorekeeper::tools {

namespace {

// What a fraction parameter's schema allows of a string: never less than parse_fraction accepts (spaces around
// the number and the slash; the range is checked on the value).
constexpr const char* kFractionPattern = "^\\s*[0-9]+(\\.[0-9]+|\\s*/\\s*[0-9]+)?\\s*$";

// A NUL inside a string would end it early in SQLite's full-text query parser; no name or word holds one.
constexpr const char* kNoNul = " must not contain a NUL character (U+0000).";

const char* type_name(ParamType t) {
  switch (t) {
    case ParamType::kString: return "string";
    case ParamType::kInteger: return "integer";
    case ParamType::kNumber: return "number";
    case ParamType::kFraction: return "number";
    case ParamType::kBoolean: return "boolean";
    case ParamType::kStringArray:
    case ParamType::kIntegerArray:
    case ParamType::kObjectArray: return "array";
    case ParamType::kObject: return "object";
  }
  return "string";
}

std::string describe_type(ParamType t) {
  switch (t) {
    case ParamType::kString: return "a string";
    case ParamType::kInteger: return "an integer";
    case ParamType::kNumber: return "a number";
    case ParamType::kFraction: return "a number or a fraction such as \"1/4\"";
    case ParamType::kBoolean: return "true or false";
    case ParamType::kStringArray: return "an array of strings";
    case ParamType::kIntegerArray: return "an array of integers";
    case ParamType::kObjectArray: return "an array of objects";
    case ParamType::kObject: return "an object";
  }
  return "a value";
}

std::string range_text(const ParamSpec& p) {
  if (p.minimum && p.maximum) return text::format_number(*p.minimum) + " to " + text::format_number(*p.maximum);
  if (p.minimum) return "at least " + text::format_number(*p.minimum);
  if (p.maximum) return "at most " + text::format_number(*p.maximum);
  return "";
}

std::string short_value(const json& v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (s.size() > 60) s = s.substr(0, text::utf8_boundary(s, 57)) + "...";
  return s;
}

// The canonical enum value matching `given` (case-, space- and dash-insensitively), if any.
std::optional<std::string> match_enum(const ParamSpec& p, const std::string& given) {
  const std::string g = text::fold(given);
  for (const auto& v : p.enum_values) {
    if (text::fold(v) == g) return v;
  }
  for (const auto& [alias, value] : p.aliases) {
    if (text::fold(alias) == g) return value;
  }
  return std::nullopt;
}

// A number written as "3", "0.25" or "1/4" (spaces around the parts allowed); nullopt when it is none of these.
std::optional<double> parse_fraction(const std::string& given) {
  const std::string s = text::trim(given);
  auto number = [](const std::string& part, bool integer_only) -> std::optional<double> {
    const std::string t = text::trim(part);
    if (t.empty() || t.size() > 12) return std::nullopt;
    int dots = 0;
    for (char c : t) {
      if (c == '.') {
        ++dots;
      } else if (c < '0' || c > '9') {
        return std::nullopt;
      }
    }
    if (dots > (integer_only ? 0 : 1) || t.front() == '.' || t.back() == '.') return std::nullopt;
    return std::stod(t);
  };
  const size_t slash = s.find('/');
  if (slash == std::string::npos) return number(s, false);
  auto num = number(s.substr(0, slash), true);
  auto den = number(s.substr(slash + 1), true);
  if (!num || !den || *den == 0) return std::nullopt;
  return *num / *den;
}

size_t code_points(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// The checks every string value of a parameter gets: no NUL, no more than its maximum length.
Status check_string(const ParamSpec& p, const std::string& where, const std::string& s) {
  if (s.find('\0') != std::string::npos) return Status::invalid_argument(where + kNoNul);
  if (const size_t n = code_points(s); n > max_length_of(p)) {
    return Status::invalid_argument(where + " is " + text::group_thousands(static_cast<long long>(n)) +
                                    " characters long; at most " +
                                    text::group_thousands(static_cast<long long>(max_length_of(p))) + " are allowed.");
  }
  return Status::ok();
}

Status check_items(const ParamSpec& p, const std::string& where, const json& v) {
  if (v.size() > max_items_of(p)) {
    return Status::invalid_argument(where + " has " + std::to_string(v.size()) + " items; at most " +
                                    std::to_string(max_items_of(p)) + " are allowed.");
  }
  return Status::ok();
}

void put_range(ojson& s, const ParamSpec& p) {
  if (p.minimum) {
    if (p.type == ParamType::kInteger)
      s["minimum"] = static_cast<long long>(*p.minimum);
    else
      s["minimum"] = *p.minimum;
  }
  if (p.maximum) {
    if (p.type == ParamType::kInteger)
      s["maximum"] = static_cast<long long>(*p.maximum);
    else
      s["maximum"] = *p.maximum;
  }
}

}  // namespace

size_t max_length_of(const ParamSpec& p) { return p.max_length.value_or(kMaxStringLength); }
size_t max_items_of(const ParamSpec& p) { return p.max_items.value_or(kMaxItems); }

ojson input_schema(const std::vector<ParamSpec>& params) {
  ojson props = ojson::object();
  ojson required = ojson::array();
  for (const auto& p : params) {
    ojson s = ojson::object();
    if (p.type == ParamType::kFraction) {
      ojson as_number = {{"type", "number"}};
      put_range(as_number, p);
      s["anyOf"] = ojson::array({as_number, {{"type", "string"}, {"pattern", kFractionPattern}}});
    } else {
      s["type"] = type_name(p.type);
    }
    if (p.type == ParamType::kStringArray) {
      s["items"] = {{"type", "string"}};
      if (!p.enum_values.empty())
        s["items"]["enum"] = p.enum_values;
      else
        s["items"]["maxLength"] = max_length_of(p);
    } else if (p.type == ParamType::kIntegerArray) {
      ojson item = {{"type", "integer"}};
      ParamSpec as_integer = p;
      as_integer.type = ParamType::kInteger;
      put_range(item, as_integer);
      s["items"] = std::move(item);
    } else if (p.type == ParamType::kObjectArray) {
      s["items"] = input_schema(p.fields);
    }
    if (p.type == ParamType::kStringArray || p.type == ParamType::kIntegerArray || p.type == ParamType::kObjectArray) {
      s["maxItems"] = max_items_of(p);
    }
    if (p.type == ParamType::kString && p.enum_values.empty()) s["maxLength"] = max_length_of(p);
    s["description"] = p.description;
    if (!p.enum_values.empty() && p.type != ParamType::kStringArray) s["enum"] = p.enum_values;
    if (p.type != ParamType::kFraction && p.type != ParamType::kIntegerArray) put_range(s, p);
    if (!p.default_value.is_null()) s["default"] = ojson::parse(p.default_value.dump());
    props[p.name] = std::move(s);
    if (p.required) required.push_back(p.name);
  }
  ojson schema = {{"type", "object"}, {"properties", std::move(props)}};
  if (!required.empty()) schema["required"] = std::move(required);
  schema["additionalProperties"] = false;  // validate_arguments refuses unknown parameters
  return schema;
}

Result<json> validate_arguments(const std::vector<ParamSpec>& params, const json& arguments) {
  if (!arguments.is_null() && !arguments.is_object()) {
    return Status::invalid_argument("Arguments must be an object, got " + short_value(arguments) + ".");
  }
  json out = json::object();
  if (arguments.is_object()) {
    for (auto it = arguments.begin(); it != arguments.end(); ++it) {
      bool known = false;
      for (const auto& p : params) known = known || p.name == it.key();
      if (!known) {
        std::vector<std::string> names;
        for (const auto& p : params) names.push_back(p.name);
        return Status::invalid_argument("Unknown parameter '" + it.key() +
                                        "'. Valid parameters: " + text::join(names, ", ") + ".");
      }
    }
  }
  for (const auto& p : params) {
    const json* given = nullptr;
    if (arguments.is_object()) {
      auto it = arguments.find(p.name);
      if (it != arguments.end() && !it->is_null()) given = &*it;
    }
    if (given == nullptr) {
      if (p.required) {
        std::string msg = "Missing required parameter '" + p.name + "'";
        if (!p.enum_values.empty()) msg += "; one of: " + text::join(p.enum_values, ", ");
        return Status::invalid_argument(msg + ".");
      }
      if (!p.default_value.is_null()) out[p.name] = p.default_value;
      continue;
    }
    const json& v = *given;
    const std::string where = "Parameter '" + p.name + "'";
    switch (p.type) {
      case ParamType::kString: {
        if (!v.is_string()) {
          return Status::invalid_argument(where + " must be " + describe_type(p.type) + ", got " + short_value(v) +
                                          ".");
        }
        std::string s = v.get<std::string>();
        if (Status checked = check_string(p, where, s); !checked.is_ok()) return checked;
        if (!p.enum_values.empty()) {
          auto m = match_enum(p, s);
          if (!m) {
            return Status::invalid_argument(where + ": unknown value '" + s +
                                            "'. Valid values: " + text::join(p.enum_values, ", ") + ".");
          }
          s = *m;
        }
        out[p.name] = s;
        break;
      }
      case ParamType::kInteger:
      case ParamType::kNumber:
      case ParamType::kFraction: {
        std::optional<double> written;
        if (p.type == ParamType::kFraction && v.is_string()) {
          written = parse_fraction(v.get<std::string>());
          if (!written) {
            return Status::invalid_argument(where + " must be " + describe_type(p.type) + ", got " + short_value(v) +
                                            ".");
          }
        }
        if (!v.is_number() && !written) {
          return Status::invalid_argument(where + " must be " + describe_type(p.type) + ", got " + short_value(v) +
                                          (range_text(p).empty() ? "" : " (valid: " + range_text(p) + ")") + ".");
        }
        const double d = written ? *written : v.get<double>();
        if (!std::isfinite(d) || (p.type == ParamType::kInteger && std::floor(d) != d)) {
          return Status::invalid_argument(where + " must be " + describe_type(p.type) + ", got " + short_value(v) +
                                          ".");
        }
        if ((p.minimum && d < *p.minimum) || (p.maximum && d > *p.maximum)) {
          return Status::invalid_argument(where + " is out of range: " + short_value(v) + ". Valid: " + range_text(p) +
                                          ".");
        }
        if (p.type == ParamType::kInteger)
          out[p.name] = static_cast<long long>(d);
        else
          out[p.name] = d;
        break;
      }
      case ParamType::kBoolean:
        if (!v.is_boolean()) {
          return Status::invalid_argument(where + " must be true or false, got " + short_value(v) + ".");
        }
        out[p.name] = v.get<bool>();
        break;
      case ParamType::kObject:
        if (!v.is_object()) {
          return Status::invalid_argument(where + " must be an object, got " + short_value(v) + ".");
        }
        out[p.name] = v;
        break;
      case ParamType::kIntegerArray:
      case ParamType::kObjectArray: {
        if (!v.is_array()) {
          return Status::invalid_argument(where + " must be " + describe_type(p.type) + ", got " + short_value(v) +
                                          ".");
        }
        if (Status checked = check_items(p, where, v); !checked.is_ok()) return checked;
        json arr = json::array();
        for (size_t i = 0; i < v.size(); ++i) {
          const json& x = v[i];
          const std::string item = where + " item " + std::to_string(i + 1);
          if (p.type == ParamType::kObjectArray) {
            if (!x.is_object()) {
              return Status::invalid_argument(item + " must be an object, got " + short_value(x) + ".");
            }
            auto fields = validate_arguments(p.fields, x);
            if (!fields) return Status::invalid_argument(item + ": " + fields.status().message());
            arr.push_back(std::move(*fields));
            continue;
          }
          const double d = x.is_number() ? x.get<double>() : NAN;
          if (!x.is_number() || !std::isfinite(d) || std::floor(d) != d) {
            return Status::invalid_argument(item + " must be an integer, got " + short_value(x) + ".");
          }
          if ((p.minimum && d < *p.minimum) || (p.maximum && d > *p.maximum)) {
            return Status::invalid_argument(item + " is out of range: " + short_value(x) + ". Valid: " + range_text(p) +
                                            ".");
          }
          arr.push_back(static_cast<long long>(d));
        }
        out[p.name] = std::move(arr);
        break;
      }
      case ParamType::kStringArray: {
        if (!v.is_array()) {
          return Status::invalid_argument(where + " must be an array of strings, got " + short_value(v) + ".");
        }
        if (Status checked = check_items(p, where, v); !checked.is_ok()) return checked;
        json arr = json::array();
        for (const auto& x : v) {
          if (!x.is_string()) {
            return Status::invalid_argument(where + " must hold only strings, got " + short_value(x) + ".");
          }
          std::string s = x.get<std::string>();
          if (Status checked = check_string(p, where + " item", s); !checked.is_ok()) return checked;
          if (!p.enum_values.empty()) {
            auto m = match_enum(p, s);
            if (!m) {
              return Status::invalid_argument(where + ": unknown value '" + s +
                                              "'. Valid values: " + text::join(p.enum_values, ", ") + ".");
            }
            s = *m;
          }
          arr.push_back(s);
        }
        out[p.name] = std::move(arr);
        break;
      }
    }
  }
  return out;
}

}  // namespace lorekeeper::tools
