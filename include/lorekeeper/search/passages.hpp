// What is embedded for an entity: the text people search by, as one or more passages of at most about 256
// tokens (the model truncates there). Each passage starts with the entity's name and a short descriptor built
// from its facets ("Level 3 evocation spell", "Large monstrosity", "Wondrous item, uncommon, requires
// attunement", "Martial melee weapon, slashing 1d8, versatile"), followed by a window of its description:
// for creatures their traits and actions (Open5e v2 creatures have no prose description), for spells the
// description with its higher-level text, for items their properties and rarity. An entity with a search hint
// (hints.hpp) has it after the descriptor, in every passage.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lorekeeper/model/entity.hpp"
#include "lorekeeper/model/hints.hpp"

namespace lorekeeper::search {

// The recipe's version: part of every text hash, so changing the recipe re-embeds what it changes.
inline constexpr std::string_view kPassageRecipe = "p2";

// Up to `max_passages` passages (at least one, even for an entity with no text).
std::vector<std::string> passages(const model::Entity& e, int max_passages,
                                  const model::Hints& hints = model::Hints::bundled());

// A stable 64-bit FNV-1a hash of `model` + recipe + `text`, as 16 hex digits.
std::string text_hash(std::string_view model, std::string_view text);

}  // namespace lorekeeper::search
