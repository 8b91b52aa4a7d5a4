// From a tool's validated arguments to what the store is asked: the search tools' filters as a store::Query, and
// the `documents` argument resolved to document keys. Private to lk_tools.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lorekeeper/store/store.hpp"
#include "lorekeeper/tools/engine.hpp"

namespace lorekeeper::tools {

// An argument of the given type, or empty/nullopt when it is absent or of another type.
std::string str_arg(const json& args, const char* name);
std::optional<int> int_arg(const json& args, const char* name);
std::optional<double> num_arg(const json& args, const char* name);
std::optional<bool> bool_arg(const json& args, const char* name);

// A query builder per search tool: validated arguments -> constraints, or a message naming the bad value.
using QueryBuilder = std::function<Result<store::Query>(const json& args)>;
Result<store::Query> spell_query(const json& args);
Result<store::Query> creature_query(const json& args);
Result<store::Query> character_option_query(const json& args);
Result<store::Query> equipment_query(const json& args);
Result<store::Query> rule_query(const json& args);

// The documents a call selects (its `documents` argument, with known aliases of document keys).
struct DocFilter {
  std::optional<std::vector<std::string>> keys;  // nullopt: no constraint
  std::string message;                           // set when something was not understood
  bool select_nothing = false;                   // `documents: []` or nothing known
};
DocFilter resolve_documents(store::Store& st, const json& args);
// The same, for a call that must select some document (it reads entries of them): an InvalidArgument with the
// filter's message, or "No source document selected.", when it selects none.
Result<DocFilter> required_documents(store::Store& st, const json& args);

}  // namespace lorekeeper::tools
