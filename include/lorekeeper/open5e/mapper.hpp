// Maps records of the Open5e v2 API into the canonical entity model.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lorekeeper/core/status.hpp"
#include "lorekeeper/model/entity.hpp"

namespace lorekeeper::open5e {

using model::Document;
using model::Entity;
using model::json;
using model::Kind;

// A v2 list endpoint the store is filled from, and the kind its records become.
struct Endpoint {
  std::string_view path;  // "spells" (under /v2/)
  Kind kind;
};

// Every v2 endpoint LoreKeeper reads, in load order: documents first, rule sections before rules.
const std::vector<Endpoint>& v2_endpoints();

// What the mapper needs to know beyond one record: the documents (by key) and rule-section names.
struct MappingContext {
  std::string base_url = "https://api.open5e.com";
  std::map<std::string, Document> documents;
  std::map<std::string, std::string> rule_section_names;  // ruleset key -> name
};

// A /v2/documents/ record as a Document.
Result<Document> map_v2_document(const json& record);

// Maps one record of `endpoint` into an Entity. Errors (InvalidArgument) name what is missing or malformed;
// the caller skips such records and reports them.
Result<Entity> map_v2_record(const Endpoint& endpoint, const json& record, const MappingContext& ctx);

}  // namespace lorekeeper::open5e
