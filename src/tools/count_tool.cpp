#include "count_tool.hpp"

#include <algorithm>
#include <map>
#include <string_view>

#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/challenge.hpp"
#include "lorekeeper/tools/routes.hpp"
#include "queries.hpp"
#include "specs.hpp"
#include "tool_table.hpp"

namespace lorekeeper::tools::count_tool {
namespace {

// The facets one may count by, as Store::count_by names them.
const std::vector<std::string> kFacets = {"document", "game_system", "level",  "school", "casting_time", "cr",
                                          "type",     "size",        "rarity", "class",  "property",     "damage_type",
                                          "casts",    "condition",   "save",   "attack", "trait",        "environment"};
// Values of a facet shown in one answer; the rest are counted as "more".
constexpr size_t kMaxValues = 40;

std::vector<std::string> default_facets(model::Kind kind) {
  switch (kind) {
    case model::Kind::kSpell: return {"level", "school"};
    case model::Kind::kCreature: return {"cr", "type"};
    case model::Kind::kMagicItem: return {"rarity", "document"};
    default: return {"document"};
  }
}

// Numbers are listed in their order (CR 1/8 before CR 1); names by count, as the store returns them.
bool numeric(const std::string& facet) { return facet == "level" || facet == "cr"; }

std::string shown(const std::string& facet, const std::string& value) {
  if (facet == "cr") {
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    return end != value.c_str() ? model::cr_text(v) : value;
  }
  return value;
}

}  // namespace

ToolSpec spec() {
  std::vector<std::string> kinds;
  for (model::Kind k : model::all_kinds()) kinds.emplace_back(model::kind_name(k));
  // Every field given, as specs.cpp's parameters are: name, type, description, values, minimum, maximum,
  // default, required, aliases.
  ParamSpec kind{"kind", ParamType::kString, "Kind of entity to count.", kinds, {}, {}, json(), true, {}};
  ParamSpec by{"by",
               ParamType::kStringArray,
               "Facets to count by; default: level and school (spells), cr and type (creatures), rarity (magic "
               "items), else document. damage_type counts a creature's own attacks, not its spells'.",
               kFacets,
               {},
               {},
               json(),
               false,
               {}};
  by.max_items = kFacets.size();
  ParamSpec filters{"filters",
                    ParamType::kObject,
                    "The filters of the kind's search tool (search_spell, search_creature, ...), e.g. "
                    "{\"type\": \"fiend\", \"documents\": [\"srd-2014\"]}.",
                    {},
                    {},
                    {},
                    json(),
                    false,
                    {}};
  ojson counts = {{"type", "array"},
                  {"items",
                   {{"type", "object"},
                    {"properties", {{"value", {{"type", "string"}}}, {"count", {{"type", "integer"}}}}},
                    {"required", {"value", "count"}}}}};
  ojson output =
      object_answer_schema({{"type", "object"},
                            {"properties",
                             {{"kind", {{"type", "string"}}},
                              {"by", {{"type", "object"}, {"additionalProperties", counts}}},
                              {"more", {{"type", "object"}, {"additionalProperties", {{"type", "integer"}}}}}}},
                            {"required", {"kind", "by"}}});
  return {"count_entities",
          "Count entities",
          "Count entities of a kind under a search tool's filters, by document, CR, level, school, type, rarity or "
          "what they do (condition, damage_type, save, casts, attack, trait), to plan before pulling text "
          "(kind \"creature\", filters {\"inflicts_condition\": \"frightened\"}, by [\"cr\"]).",
          {kind, by, filters},
          output};
}

ToolResult count_entities(store::Store& st, const json& args, const QueryFor& query_for) {
  const auto kind = model::parse_kind(args.value("kind", ""));
  if (!kind) return error_result("Parameter 'kind': unknown kind.");
  const json filters = args.value("filters", json::object());
  auto built = query_for(*kind, filters);
  if (!built) return error_result(built.status().message());
  store::Query q = *built;
  q.limit = 0;
  auto total = st.query(q);
  if (!total) return error_result("The store could not be read: " + total.status().message());
  std::vector<std::string> by;
  if (auto it = args.find("by"); it != args.end()) {
    for (const auto& f : *it) by.push_back(f.get<std::string>());
  }
  if (by.empty()) by = default_facets(*kind);
  const std::string kind_text(model::kind_name(*kind));
  json result = {{"kind", kind_text}, {"by", json::object()}};
  std::string text = "**" + text::group_thousands(total->total) + "** " + kind_text + " entities match" +
                     (filters.empty() ? "" : " " + filters.dump()) + ".\n";
  for (const std::string& facet : by) {
    auto counted = st.count_by(q, facet);
    if (!counted) return error_result(counted.status().message());
    std::vector<std::pair<std::string, int>> values = std::move(*counted);
    if (numeric(facet)) {
      std::stable_sort(values.begin(), values.end(), [](const auto& a, const auto& b) {
        return std::strtod(a.first.c_str(), nullptr) < std::strtod(b.first.c_str(), nullptr);
      });
    }
    json list = json::array();
    std::string line = "\n**By " + facet + "**: ";
    for (size_t i = 0; i < values.size() && i < kMaxValues; ++i) {
      const std::string value = shown(facet, values[i].first);
      list.push_back({{"value", value}, {"count", values[i].second}});
      line += (i ? ", " : "") + value + " " + std::to_string(values[i].second);
    }
    if (values.empty()) line += "(none)";
    if (values.size() > kMaxValues) line += ", and " + std::to_string(values.size() - kMaxValues) + " more values";
    result["by"][facet] = std::move(list);
    if (values.size() > kMaxValues) result["more"][facet] = static_cast<int>(values.size() - kMaxValues);
    text += line + "\n";
  }
  ToolResult r;
  r.text = text;
  r.structured = {{"result", std::move(result)}, {"total", total->total}, {"filters", args}};
  return r;
}

ToolDef row() {
  using model::Kind;
  using store::Query;
  ToolDef d{spec()};
  d.empty_store = EmptyStoreAnswer::kError;
  d.run = [](const ToolCall& c) {
    // The filters are those of the kind's own search tool, validated and mapped as that tool does.
    const QueryFor query_for = [&c](Kind kind, const json& filters) -> Result<Query> {
      for (const char* not_filter : {"search", "limit", "detail"}) {
        if (filters.contains(not_filter)) {
          return Status::invalid_argument(std::string("'") + not_filter +
                                          "' is not a filter: count_entities counts what the filters select.");
        }
      }
      // The kind's search tool and its query; the rules' reference kinds are counted under documents alone.
      static const std::map<std::string_view, QueryBuilder> kFiltered = {
          {"search_spell", spell_query},
          {"search_creature", creature_query},
          {"search_equipment", equipment_query},
          {"search_character_option", character_option_query}};
      const KindRoute* route = route_of(kind);
      const auto filtered = route ? kFiltered.find(route->tool) : kFiltered.end();
      const std::string tool = filtered != kFiltered.end() ? std::string(filtered->first) : "";
      const QueryBuilder build = filtered != kFiltered.end() ? filtered->second : QueryBuilder();
      static const std::vector<ParamSpec> kDocumentsOnly = {documents_param(), game_system_param()};
      auto valid = validate_arguments(build ? find_tool(tool, false)->params : kDocumentsOnly, filters);
      if (!valid) return Status::invalid_argument("Parameter 'filters': " + valid.status().message());
      Query q;
      if (build) {
        auto built = build(*valid);
        if (!built) return built.status();
        q = *built;
      } else {
        q.game_system = str_arg(*valid, "game_system");
      }
      // (The caller's filters: validation adds the parameters' defaults, search_equipment's `type` among them.)
      if (build && route->param == "type" && filters.contains("type")) {
        return Status::invalid_argument("Parameter 'filters': 'type' chooses a kind in " + tool +
                                        "; count_entities takes the kind from 'kind'.");
      }
      q.kinds = {kind};
      // As the search tools list them: classes and species without their subclasses and subspecies.
      if (kind == Kind::kClass || kind == Kind::kSpecies) {
        q.top_level = true;
      } else {
        q.top_level.reset();
      }
      auto docs = required_documents(*c.st, *valid);
      if (!docs) return docs.status();
      q.document_keys = docs->keys;
      return q;
    };
    return count_entities(*c.st, c.args, query_for);
  };
  return d;
}

}  // namespace lorekeeper::tools::count_tool
