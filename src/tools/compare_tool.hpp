// compare_editions: one entity's versions across editions and documents side by side (search/editions.hpp finds
// them), with the fields that differ, the entries (actions, traits) added, removed or reworded, and the text that
// changed, in a few lines. Private to lk_tools: its row resolves the documents.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lorekeeper/store/store.hpp"
#include "lorekeeper/tools/engine.hpp"

namespace lorekeeper::tools::compare_tool {

// Names close to an unknown one, for the error ("did you mean").
using Suggest = std::function<std::vector<std::string>(const std::vector<model::Kind>& kinds, const std::string& name)>;

ToolSpec spec();

// Takes arguments validated against spec(): name (a name or key), kind, documents (already resolved to keys by the
// caller: nullopt for every document). `preferred_edition` orders the versions and picks the reference by name.
ToolResult compare_editions(store::Store& st, const json& args,
                            const std::optional<std::vector<std::string>>& documents,
                            std::string_view preferred_edition, const Suggest& suggest);

// The word-level difference of two texts: how much is shared (2 x common words / all words, 0-1) and up to
// `max_hunks` changed spans, each side cut to a few words. Texts past a few hundred words are compared on their
// beginning (`truncated`).
struct TextChange {
  double similarity = 1;
  std::vector<std::pair<std::string, std::string>> hunks;  // (removed, added); either may be empty
  bool truncated = false;
};
TextChange text_change(const std::string& from, const std::string& to, size_t max_hunks = 4);

// The sentences that differ between two texts (model::sentence_spans; compared without case, spacing or a final full
// stop), in the order of `from`: a sentence reworded as a before/after pair (the two share most of their words), one
// removed (`after` empty) or added (`before` empty); at most `max_changes` (the reworded first, then removed and
// added in turn), `more` counting the rest. Each sentence
// whole up to a few hundred characters; `numbers` lists the numbers and dice one side has and the other does not
// ("3rd" -> "2nd-level").
struct SentenceChange {
  std::string before;
  std::string after;
  std::vector<std::string> numbers_before;
  std::vector<std::string> numbers_after;
};
struct SentenceChanges {
  std::vector<SentenceChange> changes;
  size_t more = 0;
};
SentenceChanges sentence_changes(const std::string& from, const std::string& to, size_t max_changes = 6);

}  // namespace lorekeeper::tools::compare_tool
