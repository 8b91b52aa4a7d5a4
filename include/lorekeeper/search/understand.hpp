// What the words of a query say about facets the data has: "that flies" is a creature's fly speed, "from a distance"
// a ranged attack, "fire damage" a damage type, "that paralyzes" a condition it inflicts, "Dexterity save",
// "concentration", "ritual", "cantrip", "as a bonus action", "heals". The ranker (ranker.hpp) uses them to re-rank:
// an entry with the facet gains weight, one without keeps its place among the others; nothing is filtered out.
// The rules are a vocabulary over the facets (docs/SEARCH.md "Facets read from the query"), not per entry.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lorekeeper/model/entity.hpp"
#include "lorekeeper/store/store.hpp"

namespace lorekeeper::search {

struct QueryFacet {
  // The store filter it stands for (store::Query's field of that name): "movement", "skill", "attack_range",
  // "property", "damage_type", "condition", "save_ability", "concentration", "ritual", "level", "casting_time",
  // "trait", "type", "size", "school", "rarity", "kind".
  std::string field;
  std::vector<std::string> values;  // an entry has the facet when it has any of these
  std::vector<model::Kind> kinds;   // the kinds it applies to (among those searched)
  std::string phrase;               // the query's words that said it, as folded ("flies", "from a distance")

  // How an answer names it: "fly speed", "ranged attack", "fire damage", "inflicts paralyzed", ...
  std::string label() const;
  // Whether the facet is an effect or ability its entries have more or less of in their text (a condition
  // inflicted, a damage type, a way of moving, a skill, an attack range, a weapon property, a trait), so that
  // the nearer an entry is in meaning to the label, the more it is about it. A class an entry merely belongs to
  // (creature type, size, school, level, rarity, kind, a yes/no) is had by its entries alike.
  bool graded() const;
};

// The facets `query` names for entries of `kinds` (empty: every kind), in the order the query says them, one per
// field and value set. A facet the caller already filters by (`filters`) is left out. Words in a protective sense
// ("resistance to fire", "protect from fire damage", "immune to being frightened") name no damage or condition.
std::vector<QueryFacet> understand(std::string_view query, const store::Query& filters);

// `q` narrowed to the entries with `facet`'s value `value_index` (and to the facet's kinds).
store::Query narrowed(const store::Query& q, const QueryFacet& facet, size_t value_index);

}  // namespace lorekeeper::search
