// Schema migrations of the store, applied in order; migration N brings user_version from N-1 to N.
#pragma once

#include <vector>

namespace lorekeeper::store {

const std::vector<const char*>& migrations();

// Whether migration `version` leaves much of the file free (it rewrote a large table), so the store is compacted
// once it is applied.
bool migration_frees_pages(int version);

// Whether migration `version` only changes how rows are laid out (the program reads and writes both layouts alike),
// so an existing store whose disk has no room for the rewrite keeps its layout and is only marked upgraded.
bool migration_is_layout_only(int version);

}  // namespace lorekeeper::store
