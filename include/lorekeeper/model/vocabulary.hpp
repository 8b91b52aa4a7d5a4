// The closed sets of the game that the data's fields take, as the store keeps them: the tools' enums, the query
// builders and the importers read them here. (The damage types, conditions, abilities, attack ranges and movement
// modes are the derived facets' own: derived.hpp.)
#pragma once

#include <string>
#include <vector>

namespace lorekeeper::model {

// Casting times in their stored form (normalize_casting_time): "action", "bonus-action", "reaction", "turn",
// "round", "1minute", "5minutes", "10minutes", "1hour", "4hours", "7hours", "8hours", "9hours", "12hours",
// "24hours", "1week".
const std::vector<std::string>& casting_times();

// The eight schools of magic, folded ("abjuration", ...).
const std::vector<std::string>& spell_schools();

// The fourteen creature types, folded ("aberration", ...).
const std::vector<std::string>& creature_types();

// Size categories as stat blocks write them, smallest first ("Tiny", ..., "Gargantuan"); "Titanic" is Level Up's
// size above Gargantuan (the Titanic Dragon Turtle and Kraken).
const std::vector<std::string>& sizes();

// Magic item rarities, folded, from common to artifact ("very rare" with its space).
const std::vector<std::string>& rarities();

}  // namespace lorekeeper::model
