// The tool names of the earlier LoreKeeper contract (lookup_spell, ..., search_dnd_content), as thin aliases:
// each validates its own parameters (`name`, `type`, and the spellings `challenge_rating`, `item_type`,
// `option_type`, `rule_type`), then runs the current tool. Served only when enabled (LOREKEEPER_LEGACY_TOOLS=1
// or `serve --legacy-tools`).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "lorekeeper/core/status.hpp"
#include "lorekeeper/tools/engine.hpp"

namespace lorekeeper::tools {

const std::vector<ToolSpec>& legacy_tool_specs();

// The current tool and its arguments for a call of legacy tool `name` with validated `arguments`.
// InvalidArgument when two spellings of one parameter disagree or a required one is missing.
Result<std::pair<std::string, json>> translate_legacy_call(const std::string& name, const json& arguments);

}  // namespace lorekeeper::tools
