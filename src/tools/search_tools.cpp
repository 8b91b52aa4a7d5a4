#include "search_tools.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "answer.hpp"
#include "coverage_note.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/challenge.hpp"
#include "lorekeeper/model/derived.hpp"
#include "lorekeeper/model/open_content.hpp"
#include "lorekeeper/search/editions.hpp"
#include "lorekeeper/search/ranker.hpp"
#include "lorekeeper/search/similar.hpp"
#include "lorekeeper/tools/render.hpp"

namespace lorekeeper::tools {

using model::Entity;
using model::Kind;
using search::Match;
using search::OnExactName;
using store::Query;

namespace {

// find_similar: how alike (search::similar_to's score) a neighbour must be to the reference.
constexpr double kSimilarFloor = 0.25;

// A result's kind as a noun ("spell", "magic item"), or "result" for several kinds.
std::string kind_label(const std::vector<Kind>& kinds) {
  if (kinds.size() == 1) {
    std::string n(model::kind_name(kinds[0]));
    std::replace(n.begin(), n.end(), '-', ' ');
    return n;
  }
  return "result";
}

}  // namespace

std::vector<std::string> closest_names(store::Store& st, const Query& filters, const std::string& search, size_t max) {
  const std::string q = text::fold(search);
  const int budget = std::max(2, static_cast<int>(q.size()) / 3);
  std::vector<std::pair<int, std::string>> scored;
  std::set<std::string> seen;
  Status visited = st.for_each_name(filters.kinds, [&](const store::NameEntry& n) {
    if (filters.document_keys && std::find(filters.document_keys->begin(), filters.document_keys->end(),
                                           n.document_key) == filters.document_keys->end()) {
      return true;
    }
    const std::string& f = n.name_fold;
    if (!seen.insert(f).second) return true;
    int d = text::edit_distance(q, f, budget);
    // A query that is a prefix of a word in the name counts as close.
    if (d > budget && f.find(q.substr(0, std::min<size_t>(q.size(), 4))) == 0) d = budget;
    if (d <= budget) scored.push_back({d, n.name});
    return true;
  });
  if (!visited.is_ok()) return {};
  std::sort(scored.begin(), scored.end());
  // A name is offered only if some entry of it meets the other filters too (a level, a game system): a hint the
  // same call could not find would send the caller after an answer the filters exclude.
  const bool other_filters = store::has_attribute_filters(filters);
  constexpr size_t kTries = 50;
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < kTries && out.size() < max; ++i) {
    if (other_filters) {
      Query named = filters;
      named.name_exact = scored[i].second;
      named.name_contains.clear();
      named.offset = 0;
      named.limit = 1;
      auto hits = st.match_names(named);
      if (!hits || hits->empty()) continue;
    }
    out.push_back(scored[i].second);
  }
  return out;
}

Result<Found> find(store::Store& st, Query q, const std::string& search, int limit, Match match,
                   const SearchContext& ctx, OnExactName on_exact, bool group_editions) {
  search::RankOptions options;
  options.match = match;
  options.on_exact = on_exact;
  options.group_editions = group_editions;
  options.ranking = ctx.ranking;
  options.embeddings = ctx.embeddings.semantic() ? &ctx.embeddings : nullptr;
  options.preferred_edition = ctx.preferred_edition;
  auto ranked = search::rank(st, std::move(q), search, limit, options);
  if (!ranked) return ranked.status();
  Found out;
  out.total = ranked->total;
  out.how = std::move(ranked->how);
  out.exact_total = ranked->exact_total;
  out.semantic = ranked->semantic;
  out.note = std::move(ranked->note);
  out.understood = std::move(ranked->understood);
  out.near_misses = std::move(ranked->near_misses);
  for (auto& h : ranked->hits) {
    json r = to_result(h.entity);
    if (h.score) r["_score"] = round3(*h.score);
    if (!h.matched.empty()) r["_matched"] = h.matched;
    if (!h.snippet.empty()) r["_snippet"] = std::move(h.snippet);
    if (!h.other_editions.empty()) {
      json editions = json::array();
      for (auto& o : h.other_editions)
        editions.push_back({{"key", std::move(o.key)}, {"document", std::move(o.document_key)}});
      r["_other_editions"] = std::move(editions);
    }
    out.results.push_back(std::move(r));
  }
  return out;
}

std::string several_kinds_message(const std::string& key, const std::vector<model::Entity>& entries) {
  std::vector<std::string> kinds;
  for (const auto& e : entries) kinds.emplace_back(model::kind_name(e.kind));
  return "The key '" + key + "' exists in several kinds (" + text::join(kinds, ", ") + "); pass kind to choose one.";
}

bool groups_editions(const json& args) { return !args.contains("documents") && !args.contains("game_system"); }

void add_children(store::Store& st, std::vector<json>& results, const Query& scope) {
  for (auto& r : results) {
    const std::string kind = r.value("kind", "");
    if (kind != "class" && kind != "species") continue;
    // Some records name their parent by key only ("subspecies_of": "srd_elf"): show its name.
    const char* parent_field = kind == "class" ? "subclass_of" : "subspecies_of";
    if (r.contains(parent_field) && r[parent_field].is_string()) {
      auto parent = st.get(r[parent_field].get<std::string>(), kind == "class" ? Kind::kClass : Kind::kSpecies, false);
      if (parent && parent->size() == 1) r[parent_field] = (*parent)[0].name;
    }
    Query q;
    q.kinds = {kind == "class" ? Kind::kClass : Kind::kSpecies};
    q.parent_key = r.value("key", "");
    q.limit = 100;
    Query held = q;
    held.document_keys = scope.document_keys;
    held.game_system = scope.game_system;
    auto kids = st.query(held);
    if (!kids) continue;
    const char* field = kind == "class" ? "subclasses" : "subspecies";
    if (held.document_keys || !held.game_system.empty()) {
      // The children outside the call's documents are counted, not listed.
      auto every = st.query(q);
      if (every && every->total > kids->total) {
        r[std::string(field) + "_elsewhere"] = every->total - kids->total;
      }
    }
    if (kids->entities.empty()) continue;
    // Each child with its key and, when it comes from another document than its parent, that document's name.
    const std::string own_document = r.value("document", json::object()).value("key", "");
    json children = json::array();
    for (const auto& e : kids->entities) {
      json c = {{"name", e.name}, {"key", e.key}, {"document", e.document.key}};
      if (e.document.key != own_document) c["source"] = e.document.name;
      children.push_back(std::move(c));
    }
    r[field] = std::move(children);
  }
}

namespace {

// The most neighbours find_similar scores for one grouped answer (a name has a handful of editions).
constexpr int kMaxGroupPool = 400;

model::Document document_of(const json& r) {
  model::Document d;
  const json& doc = r.value("document", json::object());
  d.key = doc.value("key", "");
  d.publisher = doc.value("publisher", "");
  d.game_system = doc.value("game_system", "");
  return d;
}

// Results grouped as search::group_editions does: the shown edition of each place keeps the best-ranked edition's
// score and reasons, and names the others in `_other_editions`.
std::vector<json> group_editions(std::vector<json> ranked, size_t limit, std::string_view preferred) {
  std::vector<model::Document> documents;
  documents.reserve(ranked.size());
  for (const auto& r : ranked) documents.push_back(document_of(r));
  std::vector<search::RankedEdition> editions;
  editions.reserve(ranked.size());
  for (size_t i = 0; i < ranked.size(); ++i) {
    editions.push_back({model::parse_kind(ranked[i].value("kind", "")).value_or(Kind::kSpell),
                        text::fold(ranked[i].value("name", "")), &documents[i]});
  }
  std::vector<json> out;
  for (const auto& place : search::group_editions(editions, limit, preferred)) {
    json shown = ranked[place.shown];
    for (const char* k : {"_score", "_matched", "_snippet"}) {
      if (ranked[place.best].contains(k)) {
        shown[k] = ranked[place.best][k];
      } else {
        shown.erase(k);
      }
    }
    json others = json::array();
    for (size_t o : place.others) {
      others.push_back({{"key", ranked[o].value("key", "")}, {"document", ranked[o]["document"].value("key", "")}});
    }
    if (!others.empty()) shown["_other_editions"] = std::move(others);
    out.push_back(std::move(shown));
  }
  return out;
}

// For an empty answer to an exact CR or spell level: how many match one step either side, by value ("0 CR 5
// fiends in srd-2014; at CR 4-6: CR 4 (2), CR 6 (1)"). Empty when neither was asked or nothing is near.
std::string nearby_counts(store::Store& st, const json& args, const QueryBuilder& build,
                          const std::optional<std::vector<std::string>>& documents, const std::string& search,
                          Match match, const SearchContext& ctx) {
  const bool by_cr = args.contains("cr");
  if (!by_cr && !args.contains("level")) return "";
  const std::string field = by_cr ? "cr" : "level";
  // A range of the caller's own is theirs to widen.
  if (args.contains(field + "_min") || args.contains(field + "_max")) return "";
  const double v = args[field].get<double>();
  const auto [lo, hi] = by_cr ? model::neighbouring_crs(v) : std::pair{std::max(0.0, v - 1), std::min(9.0, v + 1)};
  json wider = args;
  wider.erase(field);
  wider[field + "_min"] = lo;
  wider[field + "_max"] = hi;
  auto built = build(wider);
  if (!built) return "";
  Query q = *built;
  q.document_keys = documents;
  const auto shown = [&](double x) { return by_cr ? model::cr_text(x) : text::format_number(x); };
  const std::string range = (by_cr ? "CR " : "level ") + shown(lo) + "-" + shown(hi);
  const std::string widen = " (" + field + "_min and " + field + "_max widen the search)";
  if (!text::trim(search).empty()) {
    auto n = find(st, q, search, 1, match, ctx);
    if (!n || n->total == 0) return "";
    return "At " + range + " there would be " + std::to_string(n->total) + widen + ".";
  }
  auto counted = st.count_by(q, field);
  if (!counted || counted->empty()) return "";
  std::vector<std::pair<double, int>> values;
  for (const auto& [value, count] : *counted) values.emplace_back(std::strtod(value.c_str(), nullptr), count);
  std::sort(values.begin(), values.end());
  std::vector<std::string> parts;
  for (const auto& [value, count] : values) {
    parts.push_back((by_cr ? "CR " : "level ") + shown(value) + " (" + std::to_string(count) + ")");
  }
  return "At " + range + ": " + text::join(parts, ", ") + widen + ".";
}

// What an answer says of the facets read from its query: their labels (for `understood`) and a sentence for the
// text (" Ranked higher for what the words name (not required): fly speed (\"fly\")."), both empty without any.
std::pair<json, std::string> understood_labels(const std::vector<search::QueryFacet>& facets) {
  json labels = json::array();
  std::vector<std::string> said;
  for (const auto& f : facets) {
    labels.push_back(f.label());
    said.push_back(f.label() + " (\"" + f.phrase + "\")");
  }
  if (said.empty()) return {labels, ""};
  return {labels, " Ranked higher for what the words name (not required): " + text::join(said, ", ") + "."};
}

}  // namespace

namespace {

// A query that names something rather than describing it: one to four words, each written with a capital ("Mind
// Flayer", "Beholder"), or a name the open licences leave out. When no entry has that name the answer says so
// before anything that only shares its words or meaning.
bool names_something(const std::string& query) {
  if (!model::product_identity_name(query).empty()) return true;
  std::vector<std::string> words;
  for (size_t at = 0; at < query.size();) {
    const size_t space = query.find(' ', at);
    const size_t end = space == std::string::npos ? query.size() : space;
    if (end > at) words.push_back(query.substr(at, end - at));
    at = end + 1;
  }
  if (words.empty() || words.size() > 4) return false;
  return std::all_of(words.begin(), words.end(), [](const std::string& w) {
    const auto c = static_cast<unsigned char>(w[0]);
    return std::isupper(c) || std::isdigit(c);
  });
}

// "No creature is named "Mind Flayer" in these documents." and, for a name the open licences leave out, why.
std::string not_named(const std::string& label, const std::string& search, bool documents_chosen) {
  std::string out = "No " + label + " is named " + quoted_query(text::trim(search)) +
                    (documents_chosen ? " in these documents." : " in any document.");
  if (const std::string_view pi = model::product_identity_name(search); !pi.empty()) {
    out += " The " + std::string(pi) +
           " is Wizards of the Coast's product identity (SRD 5.1, Legal Information), outside every open licence: "
           "no open document describes it. Search by what it does to find open creatures like it.";
  }
  return out;
}

// The creatures of the documents and game system `scope` is held to.
Query creatures_in(const Query& scope) {
  Query creatures;
  creatures.kinds = {Kind::kCreature};
  creatures.document_keys = scope.document_keys;
  creatures.game_system = scope.game_system;
  return creatures;
}

// The environments creature records list (folded, model::kAnywhere aside) among the entries `scope` selects.
std::vector<std::string> listed_environments(store::Store& st, const Query& scope) {
  std::vector<std::string> out;
  if (auto counted = st.count_by(creatures_in(scope), "environment")) {
    for (const auto& [value, n] : *counted) {
      if (value != model::kAnywhere) out.push_back(value);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// How an environment filter's answer is made of the two kinds of record that list the place.
struct EnvironmentSplit {
  int there_shown = 0;     // shown, whose records name the place among a few
  int anywhere_shown = 0;  // shown, whose records list (nearly) every environment
  int there_total = 0, anywhere_total = 0;
};

// What an environment filter finds: the creatures whose records name the place among a few first; those whose
// records list (nearly) every environment (model::kAnywhere) after them, up to the limit. A name asked leads the
// answer whichever kind of record has it, and an answer that is a name holds only it (as without the filter).
Result<Found> find_by_environment(store::Store& st, const Query& q, const std::string& search, int limit, Match match,
                                  const SearchContext& ctx, bool group, EnvironmentSplit& split) {
  if (q.environments.size() != 1 || q.environments.front() == model::kAnywhere) {
    return find(st, q, search, limit, match, ctx, OnExactName::kOnlyIt, group);
  }
  Query there_q = q, anywhere_q = q;
  there_q.lives_anywhere = false;
  anywhere_q.lives_anywhere = true;
  auto there = find(st, there_q, search, limit, match, ctx, OnExactName::kOnlyIt, group);
  if (!there) return there.status();
  auto anywhere = find(st, anywhere_q, search, limit, match, ctx, OnExactName::kOnlyIt, group);
  if (!anywhere) return anywhere.status();
  split.there_total = there->total;
  split.anywhere_total = anywhere->total;
  const bool lead_anywhere = there->results.empty() || (anywhere->how == "exact name" && there->how != "exact name");
  Found out = lead_anywhere ? std::move(*anywhere) : std::move(*there);
  Found& follow = lead_anywhere ? *there : *anywhere;
  const size_t led = out.results.size();
  if (out.how == "exact name") {
    // The name is the answer, as without the filter: the other kind of record is neither shown nor counted.
    (lead_anywhere ? split.there_total : split.anywhere_total) = 0;
  } else {
    for (auto& r : follow.results) {
      if (out.results.size() >= static_cast<size_t>(limit)) break;
      out.results.push_back(std::move(r));
    }
    out.total += follow.total;
  }
  const int followed = static_cast<int>(out.results.size() - led);
  split.there_shown = lead_anywhere ? followed : static_cast<int>(led);
  split.anywhere_shown = lead_anywhere ? static_cast<int>(led) : followed;
  return out;
}

// The message of an environment filter: which results live anywhere; the documents searched whose creatures list no
// environment (none of theirs can be among the results); when nothing matched, whether the records searched list
// environments at all, and which they list.
std::string environment_note(store::Store& st, const Query& q, const std::string& asked, const EnvironmentSplit& split,
                             bool empty_answer) {
  if (q.environments.empty()) return "";
  const std::string place = "'" + text::trim(asked) + "'";
  const std::string every_place =
      "list (nearly) every environment (" + std::to_string(model::kAnywhereFrom) + " or more)";
  const std::string anywhere = every_place + ", " + place + " among them: they live anywhere, not especially there";
  std::vector<std::string> notes;
  if (split.anywhere_shown > 0 && split.there_shown > 0) {
    notes.push_back("The last " + std::to_string(split.anywhere_shown) + " of these creatures' records " + anywhere +
                    "; those before them name it among a few.");
  } else if (split.anywhere_shown > 0) {
    notes.push_back("These creatures' records " + anywhere + "." +
                    (split.there_total > 0
                         ? " " + plural("creature", split.there_total) + " whose records name it among a few match too."
                         : " No match's record names it among a few."));
  } else if (split.anywhere_total > 0) {
    notes.push_back("Of these, " + std::to_string(split.anywhere_total) + " whose records " + every_place +
                    " come after the ones shown: they live anywhere, not especially in " + place + ".");
  }
  const std::vector<std::string> in_scope = listed_environments(st, q);
  Query listing = creatures_in(q);
  std::vector<std::string> silent;
  if (auto all = st.count_by(listing, "document")) {
    listing.environments = in_scope;
    std::set<std::string> with;
    if (!in_scope.empty()) {
      if (auto listed = st.count_by(listing, "document")) {
        for (const auto& [key, n] : *listed) with.insert(key);
      }
    }
    for (const auto& [key, n] : *all) {
      if (!with.count(key)) silent.push_back(key);
    }
  }
  if (in_scope.empty()) {
    Query every;
    every.kinds = {Kind::kCreature};
    every.environments = listed_environments(st, Query{});
    std::vector<std::string> names;
    if (!every.environments.empty()) {
      if (auto docs = st.count_by(every, "document")) {
        for (const auto& [key, n] : *docs) names.push_back(key);
      }
    }
    std::sort(names.begin(), names.end());
    notes.push_back("No creature record of the documents and rules searched lists environments" +
                    (names.empty() ? std::string(".") : "; the records of " + text::join(names, ", ") + " do."));
    return text::join(notes, " ");
  }
  if (!silent.empty()) {
    std::sort(silent.begin(), silent.end());
    notes.push_back("The creature records of " + text::join_first(silent, 6) +
                    " list no environment, so none of theirs is among these.");
  }
  if (empty_answer && std::none_of(in_scope.begin(), in_scope.end(), [&](const std::string& v) {
        return model::environment_matches(v, q.environments.front());
      })) {
    notes.push_back("No creature record here lists the environment " + place +
                    "; they list: " + text::join(in_scope, ", ") + ".");
  }
  return text::join(notes, " ");
}

}  // namespace

ToolResult run_search_tool(store::Store& st, const json& args, const QueryBuilder& build, bool top_level_default,
                           Match match, const SearchContext& ctx) {
  auto built = build(args);
  if (!built) return error_result(built.status().message());
  Query q = *built;
  const int limit = int_arg(args, "limit").value_or(20);
  const std::string search = str_arg(args, "search");
  if (top_level_default && text::trim(search).empty()) q.top_level = true;
  DocFilter docs = resolve_documents(st, args);
  q.document_keys = docs.keys;
  const std::string label = kind_label(q.kinds);
  if (docs.select_nothing) {
    return list_answer({}, "No " + plural_of(label) + ": no source document selected.", docs.message, 0, args,
                       detail_of(args));
  }
  // Editions of one name take one place in a ranked answer (the ranker groups them: `limit` counts places), unless
  // the caller chose documents or a game system.
  const bool group = match == Match::kNamesAndText && !text::trim(search).empty() && groups_editions(args);
  EnvironmentSplit split;
  auto found = q.environments.empty() ? find(st, q, search, limit, match, ctx, OnExactName::kOnlyIt, group)
                                      : find_by_environment(st, q, search, limit, match, ctx, group, split);
  if (!found) return error_result("Search failed: " + found.status().to_string());
  add_children(st, found->results, q);
  std::string header;
  bool nothing_named = false;  // the answer says no entry has the name asked
  if (found->how == "exact name") {
    const int exact = found->exact_total;
    header = "Found " + plural(label, exact) + " named " + quoted_query(search) +
             (found->total > exact ? ", then " + std::to_string(found->total - exact) + " other match(es)" : "") +
             (found->total > static_cast<int>(found->results.size())
                  ? " (showing " + std::to_string(found->results.size()) + ")."
                  : ".");
  } else if (found->how != "filters" && names_something(search) &&
             (!model::product_identity_name(search).empty() ||
              (found->how != "name contains" && found->how != "close name"))) {
    // Nothing is named so: what follows only shares words or meaning with the name.
    nothing_named = true;
    header = not_named(label, search, args.contains("documents") || args.contains("game_system")) +
             " Near matches by the words" + (found->semantic ? " and meaning" : "") +
             " of their text, not it: " + plural(label, found->total) +
             (found->total > static_cast<int>(found->results.size())
                  ? " (showing " + std::to_string(found->results.size()) + ")."
                  : ".");
  } else if (found->how != "filters") {
    const std::string also = found->semantic ? " and meaning" : "";
    const std::string how = found->how == "name contains" ? "by name, then by text" + also
                            : found->how == "close name"  ? "by close spellings of the name, then by text" + also
                            : found->semantic             ? "by the words and meaning of their text"
                                                          : "by the words of their text and search hints";
    header = "Found " + plural(label, found->total) + " for " + quoted_query(search) + ", ranked " + how +
             (found->total > static_cast<int>(found->results.size())
                  ? " (showing " + std::to_string(found->results.size()) + ")."
                  : ".");
  } else {
    // An environment filter lists two blocks, each by name: the creatures whose records name the place, then those
    // that live anywhere.
    const bool two_blocks = split.there_total > 0 && split.anywhere_total > 0;
    header =
        "Found " + plural(label, found->total) +
        (found->total > static_cast<int>(found->results.size())
             ? " (showing the first " + std::to_string(found->results.size()) +
                   (two_blocks ? ": those whose records name the place, then those that live anywhere, each by name"
                               : " by name") +
                   "; raise limit or add filters for others)."
             : ".");
  }
  std::string message = docs.message;
  if (!found->note.empty()) message = message.empty() ? found->note : message + " " + found->note;
  if (!found->results.empty()) {
    if (std::string place = environment_note(st, q, str_arg(args, "environment"), split, false); !place.empty())
      message = message.empty() ? place : message + " " + place;
  }
  json understood = json::array();
  if (!found->results.empty()) {
    auto [labels, sentence] = understood_labels(found->understood);
    understood = std::move(labels);
    header += sentence;
  }
  if (found->results.empty()) {
    std::vector<std::string> hints;
    if (!model::product_identity_name(search).empty())
      hints.push_back(not_named(label, search, args.contains("documents") || args.contains("game_system")));
    if (!text::trim(search).empty()) {
      auto close = closest_names(st, q, search, 5);
      if (!close.empty())
        hints.push_back("Closest names: " + text::join(close, ", ") + ".");
      else
        hints.push_back("Nothing matches " + quoted_query(search) + " by name, text" +
                        (found->semantic ? " or meaning." : " (meaning-based search is not ready)."));
      if (!found->near_misses.empty()) {
        std::vector<std::string> near;
        for (const auto& m : found->near_misses) {
          char similarity[16];
          std::snprintf(similarity, sizeof similarity, "%.2f", m.similarity);
          near.push_back(m.entity.name + " (`" + m.entity.key + "`, " + similarity + ")");
        }
        hints.push_back("Nearest in meaning, too far to count as answers: " + text::join(near, ", ") +
                        "; get_entity(key) shows one, other words may find it.");
      }
    }
    // A class no spell lists (a misspelling, or a class without spells in these documents) is named as such, with
    // the classes that do.
    if (q.kinds == std::vector<Kind>{Kind::kSpell} && !q.class_key.empty()) {
      Query spells;
      spells.kinds = {Kind::kSpell};
      auto classes = st.count_by(spells, "class");
      const std::string asked = text::fold(q.class_key);
      if (classes &&
          std::none_of(classes->begin(), classes->end(), [&](const auto& c) { return text::fold(c.first) == asked; })) {
        std::vector<std::string> names;
        for (const auto& c : *classes) {
          if (c.first.find('_') == std::string::npos) names.push_back(c.first);  // names, not keys
        }
        std::sort(names.begin(), names.end());
        hints.push_back("No spell lists the class '" + str_arg(args, "class_key") +
                        "'; the classes spells list: " + text::join(names, ", ") + ".");
      }
    }
    // Which filter emptied the answer: drop each one and see whether anything would match.
    for (auto it = args.begin(); it != args.end(); ++it) {
      const std::string& name = it.key();
      if (name == "search" || name == "limit" || name == "type" || name == "rule_type") continue;
      json fewer = args;
      fewer.erase(name);
      auto q2 = build(fewer);
      if (!q2) continue;
      Query probe = *q2;
      if (name != "documents") probe.document_keys = docs.keys;
      if (top_level_default && text::trim(search).empty()) probe.top_level = true;
      auto n = find(st, probe, search, 1, match, ctx);
      if (n && n->total > 0) {
        hints.push_back("Without '" + name + "' there would be " + plural(label, n->total) + ".");
      }
    }
    if (std::string nearby = nearby_counts(st, args, build, docs.keys, search, match, ctx); !nearby.empty()) {
      hints.push_back(nearby);
    }
    if (std::string place = environment_note(st, q, str_arg(args, "environment"), split, true); !place.empty())
      hints.insert(hints.begin(), place);
    if (hints.empty()) hints.push_back("Nothing in the store matches these filters.");
    message = (message.empty() ? "" : message + " ") + text::join(hints, " ");
    header = "No " + plural_of(label) + " found.";
  }
  // What the data lacks, when the question touches it (a topic a document in scope does not hold).
  const std::string gap = coverage_note(st, {q.kinds, search, docs.keys, q.game_system, found->how == "exact name",
                                             nothing_named || (found->results.empty() && names_something(search))});
  if (!gap.empty()) message = message.empty() ? gap : gap + " " + message;
  ToolResult answer = list_answer(std::move(found->results), header, message, found->total, args, detail_of(args));
  if (!understood.empty() && answer.structured.is_object()) answer.structured["understood"] = std::move(understood);
  return answer;
}

namespace {

// search_all's content types (validated against content_types_param's enum) as kinds.
std::vector<Kind> parse_content_types(const json& values) {
  std::vector<Kind> kinds;
  auto add = [&](Kind k) {
    if (std::find(kinds.begin(), kinds.end(), k) == kinds.end()) kinds.push_back(k);
  };
  for (const auto& v : values) {
    const std::string n = v.get<std::string>();
    if (n == "equipment") {
      for (Kind k : {Kind::kWeapon, Kind::kArmor, Kind::kItem, Kind::kMagicItem}) add(k);
    } else if (n == "item") {
      add(Kind::kItem);
      add(Kind::kMagicItem);
    } else if (auto k = model::parse_kind(n)) {
      add(*k);
    }
  }
  return kinds;
}

}  // namespace

ToolResult search_all(store::Store& st, const json& args, const SearchContext& ctx) {
  const std::string query = text::trim(str_arg(args, "query"));
  if (query.empty()) return error_result("Parameter 'query' must not be empty.");
  std::vector<Kind> kinds = model::all_kinds();
  if (args.contains("content_types") && !args["content_types"].empty()) {
    kinds = parse_content_types(args["content_types"]);
  }
  const int limit_per_kind = int_arg(args, "limit").value_or(5);
  DocFilter docs = resolve_documents(st, args);
  ToolResult out;
  json groups = json::object();
  int total = 0;
  std::string body;
  std::string message = docs.message;
  std::pair<json, std::string> understood;
  std::string how;  // how the first results matched: "exact name", "name contains", "close name", ...
  if (!docs.select_nothing) {
    // One ranking across the kinds (so scores compare), then grouped by kind in order of each kind's best.
    Query q;
    q.kinds = kinds;
    q.document_keys = docs.keys;
    q.game_system = str_arg(args, "game_system");
    // `limit` is per kind: one ranking deep enough to fill several kinds, then at most `limit` of each kind and
    // kMaxAllResults in all, in ranking order.
    const int pool = kMaxAllResults * 4;
    // Editions of one name take one place, as in the other search tools.
    const bool group = groups_editions(args);
    auto f = find(st, q, query, pool, Match::kNamesAndText, ctx, OnExactName::kItFirst, group);
    if (!f) return error_result("Search failed: " + f.status().to_string());
    understood = understood_labels(f->understood);
    how = f->how;
    // What the ranking says of its answer (words and meaning that disagree, which the first result follows).
    if (!f->note.empty()) message = message.empty() ? f->note : message + " " + f->note;
    {
      std::map<std::string, int> taken;
      std::vector<json> kept;
      for (auto& r : f->results) {
        if (static_cast<int>(kept.size()) >= kMaxAllResults) break;
        if (++taken[r.value("kind", "")] <= limit_per_kind) kept.push_back(std::move(r));
      }
      f->results = std::move(kept);
    }
    add_children(st, f->results, q);
    // In ranking order, the first results stay whole in structuredContent and the rest are summaries, as in the
    // other search tools' answers (the text lists every result as one line, counted with it).
    const Detail detail = detail_of(args);
    const size_t budget = detail == Detail::kFull ? kFullBudget : kStandardBudget;
    const LineCosts costs = line_costs(f->results);
    size_t used = query.size() + message.size() + 400;
    for (size_t i = 0; i < f->results.size(); ++i) {
      json& r = f->results[i];
      const bool whole = detail == Detail::kFull || (detail == Detail::kStandard && i < kStandardInFull);
      if (whole) {
        const size_t reserve = i == 0 ? costs.compact_after[1] : costs.full_after[i + 1];
        Whole w = whole_within(
            r, detail == Detail::kFull ? kFullFieldChars : kStandardFieldChars, room_left(budget, used, reserve),
            SIZE_MAX, [](const json& c) { return render_summary_line(c) + "\n"; },
            "get_entity(key) gives the entry whole");
        if (w.fits) {
          used += w.text.size() + w.result.dump().size();
          r = std::move(w.result);
          continue;
        }
      }
      r = one_line(r, i, costs, budget, used);
      used += line_cost(r);
    }
    std::vector<std::pair<std::string, std::vector<json>>> per_kind;
    for (auto& r : f->results) {
      const std::string k = r.value("kind", "");
      auto it = std::find_if(per_kind.begin(), per_kind.end(), [&](const auto& g) { return g.first == k; });
      if (it == per_kind.end()) it = per_kind.insert(per_kind.end(), {k, {}});
      it->second.push_back(std::move(r));
    }
    for (auto& [k, results] : per_kind) {
      total += static_cast<int>(results.size());
      body += "## " + k + " (" + std::to_string(results.size()) + ")\n\n";
      for (const auto& r : results) body += "- " + render_summary_line(r) + "\n";
      body += "\n";
      groups[k] = std::move(results);
    }
  }
  if (total == 0 && !docs.select_nothing) {
    Query filters;
    filters.kinds = kinds;
    filters.document_keys = docs.keys;
    filters.game_system = str_arg(args, "game_system");
    auto close = closest_names(st, filters, query, 5);
    const search::Semantic* meaning = ctx.embeddings.semantic();
    const bool semantic = meaning && meaning->index() && ctx.ranking != Ranking::kLexical;
    const std::string hint = close.empty() ? "Nothing matches " + quoted_query(query) + " by name, text" +
                                                 (semantic ? " or meaning." : " (meaning-based search is not ready).")
                                           : "Closest names: " + text::join(close, ", ") + ".";
    message = (message.empty() ? "" : message + " ") + hint;
  }
  const bool documents_chosen = args.contains("documents") || args.contains("game_system");
  // A name nothing has: said first, before what only shares its words or meaning (as the other search tools do).
  std::string not_it;
  // A product identity name is never a misspelling of another name (Beholder is not Bewilder).
  const bool pi = !model::product_identity_name(query).empty();
  if (names_something(query) && how != "exact name" && (pi || (how != "name contains" && how != "close name"))) {
    not_it = not_named("entry", query, documents_chosen) + (total > 0 ? " Near matches, not it: " : " ");
  }
  if (!docs.select_nothing) {
    const std::string gap = coverage_note(
        st, {kinds, query, docs.keys, str_arg(args, "game_system"), how == "exact name", !not_it.empty()});
    if (!gap.empty()) message = message.empty() ? gap : gap + " " + message;
  }
  out.text = not_it +
             (total > 0 ? "Found " + std::to_string(total) + " result(s) for " + quoted_query(query) +
                              ", grouped by kind. "
                              "Use get_entity(key) for "
                              "one in full." +
                              understood.second
                        : "Nothing found for " + quoted_query(query) + ".") +
             "\n";
  if (!message.empty()) out.text += message + "\n";
  out.text += "\n" + body;
  out.structured = {{"result", groups}, {"total", total}, {"filters", args}};
  if (!message.empty()) out.structured["message"] = message;
  if (total > 0 && !understood.first.empty()) out.structured["understood"] = understood.first;
  return out;
}

ToolResult find_similar(store::Store& st, const json& args, const SearchContext& ctx) {
  std::string key = text::trim(str_arg(args, "key"));
  const std::string name = text::trim(str_arg(args, "name"));
  std::optional<Kind> kind;
  if (args.contains("kind")) {
    kind = model::parse_kind(str_arg(args, "kind"));
    if (!kind) return error_result("Parameter 'kind': unknown value '" + str_arg(args, "kind") + "'.");
  }
  if (key.empty() && name.empty()) return error_result("Give the reference entry's key or name.");
  std::vector<Entity> refs;
  if (!key.empty()) {
    auto got = st.get(key, kind, false);
    if (!got) return error_result("Lookup failed: " + got.status().to_string());
    refs = *got;
    if (refs.size() > 1) return error_result(several_kinds_message(key, refs));
  }
  // By name: given as such, or a key that is no entry's key but some entry's name ("Fireball").
  const std::string by_name = key.empty() ? name : !refs.empty() ? std::string() : !name.empty() ? name : key;
  if (!by_name.empty()) {
    // The entry of that name in the preferred edition (model::edition_before).
    Query q;
    if (kind) q.kinds = {*kind};
    auto got = search::editions_named(st, q, by_name, ctx.preferred_edition);
    if (!got) return error_result("Lookup failed: " + got.status().to_string());
    refs = std::move(*got);
  }
  if (refs.empty()) {
    Query filters;
    if (kind) filters.kinds = {*kind};
    auto close = closest_names(st, filters, key.empty() ? name : key, 5);
    return error_result("No reference entry '" + (key.empty() ? name : key) + "' found." +
                        (close.empty() ? "" : " Closest names: " + text::join(close, ", ") + "."));
  }
  const Entity& ref = refs.front();
  Query q;
  q.kinds = {ref.kind};
  DocFilter docs = resolve_documents(st, args);
  q.document_keys = docs.keys;
  q.game_system = str_arg(args, "game_system");
  const int limit = int_arg(args, "limit").value_or(10);
  // Meaning takes part when the embedding index covers the reference.
  std::shared_ptr<const search::VectorIndex> ix =
      ctx.embeddings.semantic() && ctx.ranking != Ranking::kLexical ? ctx.embeddings.semantic()->index() : nullptr;
  const bool unindexed_reference = ix && !ix->find(ref.kind, ref.key);
  if (unindexed_reference) ix = nullptr;
  // Editions of one name take one place, as in search answers.
  const bool group = groups_editions(args);
  std::vector<json> results;
  int total = 0;
  if (!docs.select_nothing) {
    // Every candidate is scored (at most the 200 nearest in meaning), so `total` does not depend on `limit`.
    auto likes = search::similar_to(st, ref, q, kMaxGroupPool, ix);
    if (!likes) return error_result("Search failed: " + likes.status().to_string());
    for (auto& like : *likes) {
      if (like.score < kSimilarFloor) continue;
      json r = to_result(like.entity);
      r["_score"] = round3(like.score);
      r["_matched"] = ix ? json::array({"meaning", "facet"}) : json::array({"facet"});
      results.push_back(std::move(r));
    }
    total = static_cast<int>(results.size());
    if (group) {
      results = group_editions(std::move(results), static_cast<size_t>(limit), ctx.preferred_edition);
    } else if (results.size() > static_cast<size_t>(limit)) {
      results.resize(static_cast<size_t>(limit));
    }
  }
  std::string message = docs.message;
  const std::string how =
      ix ? "Ranked by meaning and by what it is (its kind's facets: level, school, damage and saves of a spell; type, "
           "challenge rating, size and movement of a creature; range, category and properties of a weapon)."
      : unindexed_reference
          ? "Ranked by what it is (its kind's facets): this entry has no meaning vector yet (it is being embedded)."
          : "Ranked by what it is (its kind's facets): meaning-based similarity is not ready.";
  message = message.empty() ? how : message + " " + how;
  const std::string header = "Entries like " + ref.name + " (" + ref.key + "):";
  return list_answer(std::move(results), header, message, total, args, detail_of(args));
}

}  // namespace lorekeeper::tools
