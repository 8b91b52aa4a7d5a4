// The search tools' and lookups' specs and rows (search_tool_rows() in tool_table.hpp), and the parameters every
// search tool shares. Private to lk_tools.
#pragma once

#include <string>
#include <vector>

#include "lorekeeper/tools/params.hpp"

namespace lorekeeper::tools {

// The `documents` and `game_system` parameters as every search tool takes them.
ParamSpec documents_param();
ParamSpec game_system_param();

}  // namespace lorekeeper::tools
