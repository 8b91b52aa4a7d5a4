// Entries like a given one, by what it is: its kind's facets (a weapon's range and properties, a spell's level,
// school, damage and save, a creature's type, challenge rating, size and movement) and the meaning of its text
// together. The reference's own other editions are not "similar", they are the same entry (editions.hpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lorekeeper/core/status.hpp"
#include "lorekeeper/model/entity.hpp"
#include "lorekeeper/search/vector_index.hpp"
#include "lorekeeper/store/store.hpp"

namespace lorekeeper::search {

// How alike `other` is to `ref` by the facets of their kind, 0..1: each facet the reference has counts by its
// weight, equal values (or near numbers, or shared list members) score it; the reference's own document counts a
// little. Entries of other kinds score 0. A spell's damage types are its theme, which meaning says when it takes
// part: they count only with `theme` (facets alone).
double facet_likeness(const model::Entity& ref, const model::Entity& other, bool theme = false);

// Whether `e` has any facet of its kind to compare by (a spell's level or school, a creature's type or CR, a
// weapon's range or properties, an item's type, rarity or category). Without one, facet_likeness is 0 and
// similar_to ranks by meaning alone (backgrounds, species, classes, conditions, rules), or finds nothing without a
// meaning index.
bool has_kind_facets(const model::Entity& e);

struct Like {
  model::Entity entity;
  double score = 0;     // 0..1, best first
  double meaning = -1;  // cosine of the mean passage vectors; -1 without a meaning index
  double facets = 0;    // facet_likeness
};

// Weights of the two signals when both are there (meaning is rescaled from [kLikeMeaningFloor, 1] to [0, 1]).
inline constexpr double kLikeMeaningWeight = 0.4;
inline constexpr double kLikeFacetWeight = 0.6;
inline constexpr double kLikeMeaningFloor = 0.3;
// Entries whose names hold the reference's whole name (its variants: "Goblin Boss" for Goblin) take at most this
// many of the first places; the others follow the rest.
inline constexpr size_t kMaxNameVariants = 2;

// Up to `limit` entries of `ref`'s kind that `filters` allow, most alike first, without `ref` and its other
// editions. With `index` (covering `ref`), candidates are the 200 nearest in meaning; without, every entry of the
// kind is scored by its facets alone.
Result<std::vector<Like>> similar_to(store::Store& st, const model::Entity& ref, store::Query filters, int limit,
                                     std::shared_ptr<const VectorIndex> index);

}  // namespace lorekeeper::search
