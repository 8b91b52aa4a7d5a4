// Where each kind is searched: one row per value of a search tool's type parameter (and one for each tool of a
// single kind), with the kinds that value selects. The search tools' type enums and query builders,
// count_entities and the CLI's `search --kind` read these rows; nothing else spells which tool holds which kind.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lorekeeper/model/entity.hpp"

namespace lorekeeper::tools {

struct KindRoute {
  std::string_view tool;           // the search tool ("search_equipment")
  std::string_view param;          // its type parameter ("type", "rule_type"); empty for a tool of one kind
  std::string_view value;          // the parameter's value ("magic-item"); for a tool of one kind, the kind's name
  std::vector<model::Kind> kinds;  // what the value selects
};

// Every row, each tool's in the order of its type parameter's enum.
const std::vector<KindRoute>& kind_routes();

// The values of `tool`'s type parameter, in enum order (without "all", which a tool may add).
std::vector<std::string> type_values(std::string_view tool);

// The kinds `tool`'s type parameter selects with `value`; every kind of the tool (in table order, each once) when
// `value` is empty or names no row.
std::vector<model::Kind> kinds_of(std::string_view tool, std::string_view value);

// The first row that selects `kind` alone, else the first that selects it among others (rule: "rule", which also
// selects rule sections); null for a kind no search tool holds.
const KindRoute* route_of(model::Kind kind);

// The row whose value is `value` (a kind's name or a type value: "creature", "species", "magic-item",
// "condition"), or null.
const KindRoute* route_named(std::string_view value);

}  // namespace lorekeeper::tools
