// attack_odds: the exact odds of attack rolls against an armor class and of saving throws against a DC, and the
// damage they deal on average, for a bonus and dice given or for a creature's attacks read from its stat block
// (each attack, and the Multiattack routine when its text states one plainly). Over gm/attack_math (the
// arithmetic) and model/multiattack (the routine). Private to lk_tools.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lorekeeper/store/store.hpp"
#include "lorekeeper/tools/engine.hpp"

namespace lorekeeper::tools::attack_odds_tool {

ToolSpec spec();

// Takes arguments validated against spec(). `st` is read only for a creature (it may be null otherwise).
// `document_keys`: the documents the call chose (nullopt: none chosen), where a creature named is looked for;
// `preferred_edition` picks among editions of a name.
ToolResult attack_odds(store::Store* st, const json& args, const std::optional<std::vector<std::string>>& document_keys,
                       std::string_view preferred_edition);

}  // namespace lorekeeper::tools::attack_odds_tool
