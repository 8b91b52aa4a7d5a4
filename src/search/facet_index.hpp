// Which entries have a facet the query names, as masks over the meaning index, and the direction a graded facet's
// entries are ordered by. Private to lk_search (rank_flow.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "lorekeeper/core/status.hpp"
#include "lorekeeper/search/ranker.hpp"
#include "lorekeeper/search/understand.hpp"
#include "lorekeeper/search/vector_index.hpp"
#include "lorekeeper/store/store.hpp"

namespace lorekeeper::search {

// What a graded facet's label weighs against the query's words in the order of the facet's entries (see
// facet_direction); chosen on the facets tuning set over 0.25, 0.5, 0.75 and 1 (docs/SEARCH.md).
inline constexpr float kFacetLabelWeight = 0.5f;

// The direction a graded facet's entries are ordered by (QueryFacet::graded), as a unit vector (VectorIndex::top_k's
// error bound assumes one): the query's meaning pulled toward the facet's label, so the entries most about both
// come first ("stop enemies from moving" with "inflicts restrained or grappled or paralyzed": Hold Person and
// Entangle before the spells that mention a condition in passing). None when the query alone orders them: a facet
// that is not graded, or a label that cannot be embedded.
std::optional<std::vector<float>> facet_direction(const std::vector<float>& query, const QueryFacet& f,
                                                  const QueryEmbeddings& embeddings);

// The entries with value `v` of facet `f` (of the facet's kinds, under no other filter), as a mask over `ix`. The
// facets a query names recur across searches and finding their entries is an SQL query each, so the masks are
// kept while the index and the store's contents (its stamp) stay the same; a call applies its own filters by
// intersecting with its mask.
Result<std::shared_ptr<const std::vector<uint8_t>>> facet_mask(store::Store& st, const VectorIndex& ix,
                                                               const QueryFacet& f, size_t v);

// The sizes a size facet names, as masks over `ix`: the entries that have a size, and those within one size of a
// size it names; and whether the sizes it names are within one of each other ("small or Medium"; not "small ...
// large").
struct SizeMasks {
  std::vector<uint8_t> sized;
  std::vector<uint8_t> near;
  bool named_together = false;
};
Result<SizeMasks> size_masks(store::Store& st, const VectorIndex& ix, const QueryFacet& f);

}  // namespace lorekeeper::search
