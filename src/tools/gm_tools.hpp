// The game master's arithmetic as MCP tools: roll_dice (seeded rolls and exact odds), evaluate_encounter (the
// difficulty of a planned fight) and build_encounter (groups of creatures that land on a difficulty), over
// lorekeeper::gm. Private to lk_tools: their rows (tool_table.hpp) run them.
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "lorekeeper/tools/engine.hpp"

namespace lorekeeper::tools::gm_tools {

// Creatures from the store: runs a creature search with search_creature's validated arguments (`search`, its
// filters, `limit`) and returns its results best first, each an object with at least key, name, kind, document
// and, when the creature has one, challenge_rating. An error status for bad filters (e.g. an unknown document).
using CreatureSearch = std::function<Result<std::vector<json>>(const json& args)>;

// The specs of the three tools. `creature_filters` are search_creature's own parameters for type, size, cr_min,
// cr_max, documents and game_system, so the filters read and validate the same everywhere.
std::vector<ToolSpec> specs(const std::vector<ParamSpec>& creature_filters);

// Each takes arguments validated against its spec. `preferred_edition` ("5e-2014" or "5e-2024") picks the rules
// when the caller names none. roll_dice needs no store.
ToolResult roll_dice(const json& args);
ToolResult evaluate_encounter(const json& args, const CreatureSearch& search, std::string_view preferred_edition);
ToolResult build_encounter(const json& args, const CreatureSearch& search, std::string_view preferred_edition);

}  // namespace lorekeeper::tools::gm_tools
