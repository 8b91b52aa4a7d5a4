#include "coverage_note.hpp"

#include <algorithm>

#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/coverage.hpp"

namespace lorekeeper::tools {
namespace {

// The document `key` when the store holds it and the search's scope includes it.
std::optional<model::Document> in_scope(store::Store& st, const Asked& asked, const std::string& key) {
  if (asked.document_keys &&
      std::find(asked.document_keys->begin(), asked.document_keys->end(), key) == asked.document_keys->end()) {
    return std::nullopt;
  }
  auto doc = st.document(key);
  if (!doc || !*doc) return std::nullopt;
  if (!asked.game_system.empty() && (*doc)->game_system != asked.game_system) return std::nullopt;
  return **doc;
}

bool searched(const Asked& asked, const std::string& kind) {
  return std::any_of(asked.kinds.begin(), asked.kinds.end(),
                     [&](model::Kind k) { return model::kind_name(k) == kind; });
}

// Where the missing content is under other rules: said of the answer's own results when the scope holds that
// document, else the argument that would find it (the call's documents widened, or the other game system).
std::string elsewhere(store::Store& st, const Asked& asked, const std::string& key, std::string_view what) {
  if (key.empty()) return {};
  auto doc = st.document(key);
  if (!doc || !*doc) return {};
  const model::Document& d = **doc;
  if (in_scope(st, asked, key)) {
    return " Results from " + d.name + " are the " + d.game_system + " rules, which may differ.";
  }
  const std::string how =
      asked.document_keys ? "add \"" + d.key + "\" to documents" : "search with game_system \"" + d.game_system + "\"";
  return " " + d.name + " has " + std::string(what) + " under the " + d.game_system + " rules: " + how + ".";
}

}  // namespace

std::string coverage_note(store::Store& st, const Asked& asked) {
  std::vector<std::string> notes;
  const bool one_kind = asked.kinds.size() == 1;
  const bool scoped = asked.document_keys.has_value() || !asked.game_system.empty();
  for (const auto& statement : model::coverage()) {
    if (!searched(asked, statement.kind) || !in_scope(st, asked, statement.document)) continue;
    if (const auto* topic = model::topic_asked(statement, asked.query); topic && !asked.exact_name) {
      notes.push_back("Not in this data: " + topic->name + " as " + statement.document + " defines it. " +
                      statement.text + elsewhere(st, asked, topic->elsewhere, "it"));
    } else if (statement.topics.empty() && asked.found_nothing_named && one_kind && scoped) {
      notes.push_back(statement.text + elsewhere(st, asked, statement.elsewhere, "more"));
    }
  }
  return text::join(notes, " ");
}

}  // namespace lorekeeper::tools
