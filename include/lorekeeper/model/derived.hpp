// Facets derived at ingest from what a creature's or a spell's text says: the spells a creature casts, the
// conditions it or a spell can inflict, the damage types dealt, the saving throws called for, the kinds of attack,
// and a few traits (legendary, spellcaster; a spell that heals, summons or teleports). Open5e and OrcBrew records
// pass through the same rules, which read the data fields docs/entity-model.md lists (a creature's traits and
// action lists, a spell's desc and higher_level) and are documented with their measured precision and recall in
// docs/entity-model.md ("Derived facets").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lorekeeper/model/entity.hpp"

namespace lorekeeper::model {

// Names the rules below: a store whose facets were derived by other rules re-derives them when opened.
inline constexpr std::string_view kDerivedFacetsVersion = "7";

// The conditions of the rules, as facet values ("blinded", ..., "exhaustion").
const std::vector<std::string>& condition_names();
// The damage types of the rules, as facet values ("acid", ..., "thunder").
const std::vector<std::string>& damage_type_names();
// The six abilities, as facet values ("strength", ...).
const std::vector<std::string>& ability_names();
// The values of Facets::attack_ranges and Facets::traits.
inline constexpr std::string_view kAttackRanges[] = {"melee", "ranged", "reach"};
inline constexpr std::string_view kDerivedTraits[] = {"legendary", "spellcaster", "heals", "summons", "teleports"};
// The values of Facets::movement.
inline constexpr std::string_view kMovementModes[] = {"burrow", "climb", "fly", "swim"};

// A creature record that lists this many environments or more lists (nearly) every one: it lives anywhere, not
// especially in any (140 Open5e records list all 31; the others at most 16). Facets::environments then holds
// kAnywhere besides the names.
inline constexpr size_t kAnywhereFrom = 20;
inline constexpr std::string_view kAnywhere = "anywhere";
// An environment as asked ("  Swamp! "), as the words of its letters and digits, folded ("swamp"), without joining
// words at either end ("plane of": "plane"); nullopt when it names no place: nothing but punctuation or joining words
// ("or", "of", "the"), which every "Swamp or Marsh" and "Plane of Fire" would match.
std::optional<std::string> environment_asked(std::string_view given);
// The environments facet of a record's `environments` list: each name folded, once, and kAnywhere after them for
// kAnywhereFrom different names or more.
std::vector<std::string> environment_values(const nlohmann::json& environments);
// Whether an environment a record lists (folded, "swamp or marsh") is the one asked (environment_asked's): the whole
// name or one of its words ("swamp", "marsh"). Store::Query::environments applies the same rule in SQL.
bool environment_matches(std::string_view listed, std::string_view asked);

// Fills the derived facets of a creature, a spell or a weapon from its `data` (other kinds are left as they are):
//   casts          (creature) the folded names (text::fold) of the spells its spellcasting lists or "casts X"
//                  sentences name, in the order written; notes such as "(self only)" dropped
//   conditions     conditions it imposes on others ("or be paralyzed", "is knocked prone", "has the Poisoned
//                  condition"); not immunities, resistances, conditions it checks for ("if the target is prone"),
//                  ends or removes
//   damage_types   (creature) the types its own attacks and effects deal ("7 (2d6) fire damage", "extra fire
//                  damage"); (spell) added to the record's list
//   save_abilities saving throws it calls for ("DC 13 Dexterity saving throw", "Dexterity Saving Throw: DC 13",
//                  "must succeed on a Wisdom saving throw"); a spell's saving_throw_ability included
//   attack_ranges  (creature) "melee", "ranged" (weapon or spell attacks, from the prose and the attack records),
//                  "reach" for a melee attack of 10 feet or more; (weapon) "melee" (data.is_melee), "ranged" (not
//                  melee, or thrown: a thrown weapon's attack is a ranged attack), "reach" (the reach property)
//   movement       (creature) the speeds besides walking it has, above 0 (data.speed: burrow, climb, fly, swim)
//   skills         (creature) the skills its stat block lists a bonus for (data.skill_bonuses), lower-case
//   environments   (creature) the environments its record lists (data.environments), folded ("swamp or marsh");
//                  and kAnywhere when it lists kAnywhereFrom different ones or more
//   traits         (creature) "legendary" (legendary actions), "spellcaster" (it casts spells);
//                  (spell) "heals" (creatures regain hit points), "summons" (creatures summoned or conjured),
//                  "teleports"
// Values are lower-case, without duplicates, sorted (casts keeps the order written). Linear in the text's length
// (RE2), whatever the text holds.
void derive_facets(Entity& e);

}  // namespace lorekeeper::model
