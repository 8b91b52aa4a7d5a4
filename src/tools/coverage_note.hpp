// The line an answer adds when it touches what the data lacks (model::coverage). Private to lk_tools.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lorekeeper/model/entity.hpp"
#include "lorekeeper/store/store.hpp"

namespace lorekeeper::tools {

// What a search covered: the kinds it searched, the question asked, the documents and game system it was held to
// (nullopt and empty: every one), whether an entry has the name asked, and whether the question is a name no entry
// has.
struct Asked {
  std::vector<model::Kind> kinds;
  std::string query;
  std::optional<std::vector<std::string>> document_keys;
  std::string game_system;
  bool exact_name = false;
  bool found_nothing_named = false;
};

// For each statement of a document in scope (in the store, among the documents and of the game system asked) about
// a kind searched: when the question asks for one of its topics and no entry has the name asked ("Jump" is a
// spell's), the statement and where the topic is under other rules (a document of the store: "its results here
// are the 5e-2014 rules" when the answer holds them, else the argument that finds them); when the call searched
// that one kind, was held to documents or a game system, and asked for a name no entry has, a statement that
// names no topics (what the document holds of the kind). Empty when nothing is touched.
std::string coverage_note(store::Store& st, const Asked& asked);

}  // namespace lorekeeper::tools
