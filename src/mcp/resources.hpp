// The resources `resources/list` shows a host's picker: one per source document (lorekeeper://documents/{key}),
// one per kind of content (lorekeeper://kinds/{kind}), each a short Markdown guide with counts, and what the data
// is known to lack (lorekeeper://coverage). Entries
// themselves are read through the template lorekeeper://{kind}/{key} (with completion), not listed: nearly ten
// thousand of them would be pages of noise in a picker.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lorekeeper/core/status.hpp"
#include "lorekeeper/store/store.hpp"

namespace lorekeeper::mcp {

inline constexpr const char* kDocumentsPrefix = "lorekeeper://documents/";
inline constexpr const char* kKindsPrefix = "lorekeeper://kinds/";
// What each document is known to lack (model::coverage), with its entries per kind.
inline constexpr const char* kCoverageUri = "lorekeeper://coverage";

// The listed resources ({uri, name, title, description, mimeType}): documents by name, the coverage, then kinds in
// the model's order; only kinds the store holds.
Result<std::vector<nlohmann::json>> guide_resources(store::Store& store);

// The Markdown of a listed resource; nullopt when `uri` is not a documents/ or kinds/ URI or the coverage, NotFound
// when it is one of something the store does not hold.
std::optional<Result<std::string>> read_guide_resource(store::Store& store, const std::string& uri);

}  // namespace lorekeeper::mcp
