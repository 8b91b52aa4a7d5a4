// Schema migrations of the store, applied in order; migration N brings user_version from N-1 to N.
#pragma once

#include <vector>

namespace lorekeeper::store {

const std::vector<const char*>& migrations();

}  // namespace lorekeeper::store
