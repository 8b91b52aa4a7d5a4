// The tools that rank: search_spell, search_creature, search_character_option, search_equipment, search_rule
// (one function, given its query builder), search_all and find_similar, over search::rank and
// search::similar_to; and the lookups get_entity and compare_editions share with them. Private to lk_tools.
#pragma once

#include <string>
#include <vector>

#include "lorekeeper/search/ranker.hpp"
#include "lorekeeper/store/store.hpp"
#include "lorekeeper/tools/engine.hpp"
#include "queries.hpp"

namespace lorekeeper::tools {

// What a search may use besides the store: the meaning-based index, the rankings to apply, the preferred
// edition, and the call's query embeddings.
struct SearchContext {
  Ranking ranking = Ranking::kHybrid;
  std::string preferred_edition{model::kDefaultPreferredEdition};
  search::QueryEmbeddings embeddings{nullptr};  // its semantic(): the meaning-based service, or null
};

// A ranking as the tools answer it: each hit as a result object with its score, reasons and snippet.
struct Found {
  std::vector<json> results;
  int total = 0;
  std::string how;
  int exact_total = 0;
  bool semantic = false;
  std::string note;
  std::vector<search::QueryFacet> understood;
  std::vector<search::Ranked::NearMiss> near_misses;  // search::Ranked's: for an empty answer's message
};
// Ranks (search::rank) and turns the hits into results; `group_editions`: the editions of one name take one place
// (search::RankOptions::group_editions), named in `_other_editions`.
Result<Found> find(store::Store& st, store::Query q, const std::string& search, int limit,
                   search::Match match = search::Match::kNamesAndText, const SearchContext& ctx = {},
                   search::OnExactName on_exact = search::OnExactName::kOnlyIt, bool group_editions = false);

// The error for a key that several kinds share ("srd_acolyte": a background and a creature), naming the kinds:
// get_entity and find_similar ask for `kind` rather than take one.
std::string several_kinds_message(const std::string& key, const std::vector<model::Entity>& entries);

// Whether a search answer groups the editions of one name into one place: unless the caller chose documents or a
// game system, which narrows the editions itself.
bool groups_editions(const json& args);

// Up to `max` names nearest `search` in spelling that some entry allowed by `filters` has (its kinds, documents,
// game system and attribute filters), nearest first, for "did you mean" messages.
std::vector<std::string> closest_names(store::Store& st, const store::Query& filters, const std::string& search,
                                       size_t max);

// Adds children (subclasses, subspecies) to class and species results: those of the documents and game system a
// call was held to (`scope`'s document_keys and game_system; every one when unset), so that an answer about SRD 5.1's
// Paladin lists SRD 5.1's oaths. A result whose other children are left out says how many (`subclasses_elsewhere`).
void add_children(store::Store& st, std::vector<json>& results, const store::Query& scope = {});

// A search tool: documents, name matching, filters (`build`), editions grouped, explanation of empty answers.
ToolResult run_search_tool(store::Store& st, const json& args, const QueryBuilder& build, bool top_level_default,
                           search::Match match, const SearchContext& ctx);
ToolResult search_all(store::Store& st, const json& args, const SearchContext& ctx);
ToolResult find_similar(store::Store& st, const json& args, const SearchContext& ctx);

}  // namespace lorekeeper::tools
