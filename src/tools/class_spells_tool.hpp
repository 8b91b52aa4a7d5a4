// class_spells: what a character of a class can cast at a level, from the store's records: the class's own spell
// list by spell level up to the highest it can cast, its slots (or Pact Magic), cantrips known, spells known or
// prepared (the SRD 5.2 table's number, or the 2014 rule with its ability), and a subclass's granted spells marked
// as the subclass's. Private to lk_tools.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lorekeeper/store/store.hpp"
#include "lorekeeper/tools/engine.hpp"

namespace lorekeeper::tools::class_spells_tool {

ToolSpec spec();

// Takes arguments validated against spec(). `document_keys`: the documents the call chose (nullopt: none chosen);
// the class is looked for in them, and its spell list is drawn from them (from the class's own document when none
// were chosen). `preferred_edition` picks among editions of a class named in several.
ToolResult class_spells(store::Store& st, const json& args,
                        const std::optional<std::vector<std::string>>& document_keys,
                        std::string_view preferred_edition);

}  // namespace lorekeeper::tools::class_spells_tool
