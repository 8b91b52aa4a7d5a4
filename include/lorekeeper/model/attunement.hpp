// Who may attune to a magic item, as its record states it ("requires attunement by a sorcerer, warlock, or
// wizard", "by a creature of good alignment", "by a spellcaster", "outdoors at night"): the parts of the "by"
// clause, an alignment, and what is neither. Classes and species are told apart by the caller, which knows the
// store's names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace lorekeeper::model {

struct AttunementRestriction {
  std::vector<std::string> by;  // "sorcerer", "warlock", "wizard"; "spellcaster"; "dwarf" (lower case, no article)
  std::string alignment;        // "good", "evil", "lawful", "chaotic", "neutral"; empty when none is named
  std::string condition;        // what the text says besides "by ..." ("outdoors at night"); empty when nothing
};

// The restriction of an item's attunement detail; empty parts for "requires attunement" alone or an empty text.
AttunementRestriction attunement_restriction(std::string_view detail);

}  // namespace lorekeeper::model
