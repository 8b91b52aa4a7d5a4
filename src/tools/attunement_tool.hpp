// check_attunement: for a list of magic items, which need attunement and by whom (classes, a spellcaster, a
// species, an alignment, a condition), how many of the three attunement slots they take, and which a given
// character (class, alignment, species) may not attune to. Over model/attunement (reading the restriction) and the
// class records (whether a class casts spells). Private to lk_tools.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lorekeeper/store/store.hpp"
#include "lorekeeper/tools/engine.hpp"

namespace lorekeeper::tools::attunement_tool {

ToolSpec spec();

// Takes arguments validated against spec(). `document_keys`: the documents the call chose (nullopt: none), where
// items and the class are looked for; `preferred_edition` picks among editions of a name.
ToolResult check_attunement(store::Store& st, const json& args,
                            const std::optional<std::vector<std::string>>& document_keys,
                            std::string_view preferred_edition);

}  // namespace lorekeeper::tools::attunement_tool
