// Schema migrations of the store, applied in order; migration N brings user_version from N-1 to N.
#pragma once

#include <vector>

namespace lorekeeper::store {

const std::vector<const char*>& migrations();

// Whether migration `version` leaves much of the file free (it rewrote a large table), so the store is compacted
// once it is applied.
bool migration_frees_pages(int version);

}  // namespace lorekeeper::store
