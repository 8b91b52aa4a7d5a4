#include "lookup_tools.hpp"

#include <algorithm>
#include <optional>

#include "answer.hpp"
#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/search/ranker.hpp"
#include "lorekeeper/tools/render.hpp"
#include "queries.hpp"
#include "related.hpp"
#include "search_tools.hpp"

namespace lorekeeper::tools {

using model::Entity;
using model::Kind;
using store::Query;

ToolResult get_entity(store::Store& st, const json& args, std::string_view preferred) {
  const std::string key = text::trim(str_arg(args, "key"));
  std::optional<Kind> kind;
  if (args.contains("kind")) {
    kind = model::parse_kind(str_arg(args, "kind"));
    if (!kind) {
      std::vector<std::string> valid;
      for (Kind k : model::all_kinds()) valid.emplace_back(model::kind_name(k));
      return error_result("Parameter 'kind': unknown value '" + str_arg(args, "kind") +
                          "'. Valid values: " + text::join(valid, ", ") + ".");
    }
  }
  if (key.empty()) {
    return error_result(
        "Parameter 'key' must not be empty: give an entry's key as search results show it "
        "(\"srd_fireball\"), or its name.");
  }
  const bool with_raw = bool_arg(args, "include_source").value_or(false);
  auto found = st.get(key, kind, with_raw);
  if (!found) return error_result("Lookup failed: " + found.status().to_string());
  std::string named;  // said when a name was given for a key and one entry has it
  if (found->empty()) {
    // Perhaps a name was given instead of a key: the one entry of that name, or its editions' keys in edition order.
    Query q;
    if (kind) q.kinds = {*kind};
    auto by_name = search::editions_named(st, q, key, preferred);
    if (by_name && by_name->size() == 1) {
      found = st.get(by_name->front().key, by_name->front().kind, with_raw);
      if (!found) return error_result("Lookup failed: " + found.status().to_string());
      named = "'" + key + "' is a name; its entry's key is " + by_name->front().key + ".";
    }
  }
  if (found->empty()) {
    Query q;
    if (kind) q.kinds = {*kind};
    auto by_name = search::editions_named(st, q, key, preferred);
    std::string msg = "No entry has the key '" + key + "'" +
                      (kind ? " among " + plural_of(std::string(model::kind_name(*kind))) : "") + ".";
    if (by_name && !by_name->empty()) {
      // A name has a handful of editions; the list is cut all the same, so no answer grows with the store.
      constexpr size_t kMaxKeys = 20;
      std::vector<std::string> keys;
      for (size_t i = 0; i < by_name->size() && i < kMaxKeys; ++i) {
        keys.push_back((*by_name)[i].key + " (" + (*by_name)[i].document.key + ")");
      }
      if (by_name->size() > kMaxKeys) keys.push_back("and " + std::to_string(by_name->size() - kMaxKeys) + " more");
      msg += " Entries named '" + key + "' have the keys: " + text::join(keys, ", ") + ".";
    } else {
      store::Query filters;
      if (kind) filters.kinds = {*kind};
      auto close = closest_names(st, filters, key, 5);
      if (!close.empty()) msg += " Closest names: " + text::join(close, ", ") + " (search for them to get keys).";
    }
    return error_result(msg);
  }
  if (found->size() > 1) return error_result(several_kinds_message(key, *found));
  const Entity& e = found->front();
  std::vector<json> one = {to_result(e)};
  add_children(st, one);
  json r = std::move(one.front());
  // The API record as sent; an entry completed from a second record shows that one beside it.
  if (with_raw && e.raw.contains(model::kRawPrimary) && e.raw.contains(model::kRawSecondary)) {
    r["source_record"] = e.raw[model::kRawPrimary];
    r["source_record_v1"] = e.raw[model::kRawSecondary];
  } else if (with_raw) {
    r["source_record"] = e.raw;
  }
  // What answers the next question: the creatures that cast this spell, what inflicts this condition, ...
  if (json rel = related(st, e); !rel.empty()) r["_related"] = std::move(rel);
  // Within the full budget whatever the entry's size: long text fields are cut shorter until it fits.
  const size_t envelope = json{{"filters", args}, {"result", 0}, {"total", 1}}.dump().size() - 1;
  Whole w = whole_within(
      r, SIZE_MAX, room_left(kFullBudget, envelope, 0), 1000,
      [&](const json& c) {
        std::string text = render_entity(c) + render_related(c.value("_related", json()));
        if (with_raw) text += "\n**Source record:**\n```json\n" + json_util::dump(c["source_record"]) + "\n```\n";
        if (with_raw && c.contains("source_record_v1"))
          text += "\n**Source record (v1, which completed it):**\n```json\n" + json_util::dump(c["source_record_v1"]) +
                  "\n```\n";
        return text;
      },
      "an answer holds at most " + std::to_string(kFullBudget / 1000) + ",000 characters");
  ToolResult out;
  out.text = named.empty() ? std::move(w.text) : named + "\n\n" + w.text;
  out.structured = {{"result", std::move(w.result)}, {"total", 1}, {"filters", args}};
  if (!named.empty()) out.structured["message"] = named;
  return out;
}

ToolResult list_documents(store::Store& st, const json& args) {
  auto docs = st.documents();
  if (!docs) return error_result("Listing documents failed: " + docs.status().to_string());
  const std::string source = str_arg(args, "source");
  std::vector<store::DocumentInfo> rows;
  for (const auto& d : *docs) {
    if (!source.empty() && d.document.source_api != source) continue;
    rows.push_back(d);
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.entity_count > b.entity_count; });
  json result = json::array();
  std::string body = "| document | name | game system | publisher | entities |\n|---|---|---|---|---|\n";
  for (const auto& d : rows) {
    json types = json::object();
    for (const auto& [k, n] : d.entity_types) types[k] = n;
    result.push_back({{"document", d.document.key},
                      {"key", d.document.key},
                      {"name", d.document.name},
                      {"display_name", d.document.display_name},
                      {"source_api", d.document.source_api},
                      {"publisher", d.document.publisher},
                      {"license", d.document.license},
                      {"game_system", d.document.game_system},
                      {"entity_count", d.entity_count},
                      {"entity_types", types}});
    body += "| `" + d.document.key + "` | " + d.document.name + " | " + d.document.game_system + " | " +
            d.document.publisher + " | " + std::to_string(d.entity_count) + " |\n";
  }
  ToolResult out;
  std::string message;
  if (rows.empty()) {
    message = source.empty() ? "The store holds no documents yet." : "No documents from source '" + source + "'.";
  }
  out.text = std::to_string(rows.size()) + " document(s). Use the `document` keys in the documents parameter.\n" +
             (message.empty() ? "" : message + "\n") + "\n" + body;
  out.structured = {{"result", result}, {"total", static_cast<int>(rows.size())}, {"filters", args}};
  if (!message.empty()) out.structured["message"] = message;
  return out;
}

}  // namespace lorekeeper::tools
