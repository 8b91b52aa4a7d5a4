// get_entity (one entry in full, by key or a name only it has) and list_documents (the documents in the store), the
// lookups beside the search tools. Private to lk_tools.
#pragma once

#include <string_view>

#include "lorekeeper/store/store.hpp"
#include "lorekeeper/tools/engine.hpp"

namespace lorekeeper::tools {

// Each takes arguments validated against its spec (specs.cpp). `preferred` picks among the editions of a name given
// for a key.
ToolResult get_entity(store::Store& st, const json& args, std::string_view preferred);
ToolResult list_documents(store::Store& st, const json& args);

}  // namespace lorekeeper::tools
