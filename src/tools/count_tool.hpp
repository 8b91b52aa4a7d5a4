// count_entities: how many entities of a kind match some filters, counted by document, level, CR, type, rarity
// or any derived facet, so a model can plan before pulling text. Private to lk_tools: its row (tool_table.hpp)
// supplies the query, built from the filters of the kind's own search tool.
#pragma once

#include <functional>

#include "lorekeeper/store/store.hpp"
#include "lorekeeper/tools/engine.hpp"

namespace lorekeeper::tools::count_tool {

// The store query for entities of `kind` under `filters` (the parameters of that kind's search tool, without
// search, detail or limit). An InvalidArgument status names a bad filter.
using QueryFor = std::function<Result<store::Query>(model::Kind kind, const json& filters)>;

ToolSpec spec();

// Takes arguments validated against spec(): kind, by (facet names; a default per kind), filters.
ToolResult count_entities(store::Store& st, const json& args, const QueryFor& query_for);

}  // namespace lorekeeper::tools::count_tool
