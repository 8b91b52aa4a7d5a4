#include "lorekeeper/tools/engine.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>

#include "answer.hpp"
#include "attack_odds_tool.hpp"
#include "attunement_tool.hpp"
#include "class_spells_tool.hpp"
#include "compare_tool.hpp"
#include "count_tool.hpp"
#include "gm_tools.hpp"
#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/core/log.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/derived.hpp"
#include "lorekeeper/search/ranker.hpp"
#include "lorekeeper/tools/legacy.hpp"
#include "lorekeeper/tools/render.hpp"
#include "queries.hpp"
#include "related.hpp"
#include "search_tools.hpp"
#include "specs.hpp"

namespace lorekeeper::tools {

using model::Entity;
using model::Kind;
using search::Match;
using store::Query;

Engine::Engine(std::string db_path, Bootstrap bootstrap)
    : db_path_(std::move(db_path)), bootstrap_(std::move(bootstrap)) {}
Engine::~Engine() = default;

namespace {

// Store::check, once per store file (device and inode) in the process: the engines of a serve's workers open the
// same file, and one check serves them all; engines opening it together wait for the first one's check rather
// than each run their own. A file replaced since (a rebuild, a store moved aside) is another inode and is checked
// again.
Status check_once(store::Store& st, const std::string& path) {
  static std::mutex mu;
  static std::set<std::pair<dev_t, ino_t>> checked;
  const std::lock_guard<std::mutex> lock(mu);
  struct stat sb {};
  const bool known = ::stat(path.c_str(), &sb) == 0;
  if (known && checked.count({sb.st_dev, sb.st_ino}) > 0) return Status::ok();
  Status s = st.check();
  if (s.is_ok() && known) checked.insert({sb.st_dev, sb.st_ino});
  return s;
}

}  // namespace

store::Store* Engine::store(std::string* why) {
  if (store_) return store_.get();
  // A write-ahead log beside the store means a writer is at work or one stopped without closing it (a kill, a
  // crash, a power cut): the store is checked before it is trusted, as it is by engines that answer for long.
  std::error_code ec;
  const bool unclean = std::filesystem::file_size(db_path_ + "-wal", ec) > 0 && !ec;
  auto opened = store::Store::open(db_path_, store::Store::Mode::kExistingOnly);
  if (!opened && opened.status().code() == StatusCode::kNotFound && bootstrap_) {
    Status built = bootstrap_(db_path_);
    if (!built.is_ok()) log::error("building the store failed: " + built.to_string());
    opened = store::Store::open(db_path_, store::Store::Mode::kExistingOnly);
  }
  if (opened && (check_on_open_ || unclean)) {
    if (Status checked = check_once(**opened, db_path_); !checked.is_ok()) opened = checked;
  }
  // A store that holds nothing (its first import did not finish, a file made empty) is reported as empty, never
  // searched as if the data had nothing to say; it is opened again by the next call, which may find it filled.
  if (opened) {
    auto empty = (*opened)->is_empty();
    if (!empty) {
      opened = empty.status();
    } else if (*empty) {
      opened = Status::not_found(db_path_ +
                                 " holds no documents (a sync or import into it did not finish, or the "
                                 "file was made empty)");
    }
  }
  if (!opened) {
    if (why) *why = opened.status().message();
    store_status_ = opened.status();
    return nullptr;
  }
  store_status_ = Status::ok();
  store_ = std::move(*opened);
  store_->set_text_index_in_memory(text_index_in_memory_);
  if (!memory_mapped_) apply_memory_mapped();
  return store_.get();
}

void Engine::release_memory() {
  if (!store_) return;
  if (Status released = store_->release_memory(); !released.is_ok()) log::debug(released.to_string());
}

void Engine::set_text_index_in_memory(bool on) {
  text_index_in_memory_ = on;
  if (store_) store_->set_text_index_in_memory(on);
}

void Engine::set_memory_mapped(bool on) {
  memory_mapped_ = on;
  if (store_) apply_memory_mapped();
}

void Engine::apply_memory_mapped() {
  if (Status s = store_->set_memory_mapped(memory_mapped_); !s.is_ok()) log::debug(s.to_string());
}

std::vector<std::string> Engine::complete_names(const std::vector<Kind>& kinds, const std::string& prefix, size_t max) {
  std::vector<std::string> out;
  store::Store* st = store(nullptr);
  if (st == nullptr) return out;
  auto names = st->names(kinds);
  if (!names) return out;
  const std::string p = text::fold(prefix);
  std::set<std::string> seen;
  std::vector<std::string> contains;
  for (const auto& n : *names) {
    const std::string f = text::fold(n.name);
    if (seen.count(n.name)) continue;
    if (f.rfind(p, 0) == 0) {
      seen.insert(n.name);
      out.push_back(n.name);
    } else if (!p.empty() && f.find(p) != std::string::npos) {
      contains.push_back(n.name);
    }
    if (out.size() >= max) return out;
  }
  for (const auto& c : contains) {
    if (out.size() >= max) break;
    if (seen.insert(c).second) out.push_back(c);
  }
  return out;
}

namespace {

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

}  // namespace

namespace {
ToolResult dispatch_call(Engine& engine, const std::string& name, const json& arguments,
                         Match match = Match::kNamesAndText);
}  // namespace

ToolResult Engine::call(const std::string& name, const json& arguments) {
  ToolResult r;
  // One snapshot of the store for the whole call: an import or sync committing meanwhile is seen by the next
  // call, never by half of this one.
  std::optional<store::Store::ReadSnapshot> snapshot;
  if (store::Store* st = store(nullptr)) snapshot.emplace(*st);
  if (legacy_tools_ && find_tool(name) == nullptr && find_tool(name, true) != nullptr) {
    // An older name: validate its own parameters, then run the current tool.
    auto args = validate_arguments(find_tool(name, true)->params, arguments);
    if (!args) return error_result(args.status().message());
    auto current = translate_legacy_call(name, *args);
    if (!current) return error_result(current.status().message());
    // The older tools' `name` is matched against names only, as they documented.
    r = dispatch_call(*this, current->first, current->second,
                      current->first == "search_all" ? Match::kNamesAndText : Match::kNamesOnly);
  } else {
    r = dispatch_call(*this, name, arguments);
  }
  const std::string note = notice_ ? notice_() : std::string();
  if (!note.empty() && !r.is_error) {
    const std::string message = r.structured.value("message", "");
    r.structured["message"] = message.empty() ? note : message + " " + note;
    // The notice heads the text of answers that search; one entry's text (get_entity, and resources/read, which
    // shows it), the list of documents and the arithmetic tools' answers stay as they are.
    if (name.rfind("search_", 0) == 0 || name == "find_similar" || name == "build_encounter") {
      r.text = note + "\n\n" + r.text;
    }
  }
  return r;
}

namespace {

ToolResult dispatch_call(Engine& engine, const std::string& name, const json& arguments, Match match) {
  const ToolSpec* spec = find_tool(name);
  if (spec == nullptr) return error_result("Unknown tool '" + name + "'.");
  auto args = validate_arguments(spec->params, arguments);
  if (!args) return error_result(args.status().message());
  if (name == "roll_dice") return gm_tools::roll_dice(*args);
  // Odds for a bonus or a DC given need no store; a creature's are read from it.
  if (name == "attack_odds" && !args->contains("creature")) {
    return attack_odds_tool::attack_odds(nullptr, *args, std::nullopt, engine.preferred_edition());
  }
  std::string why;
  store::Store* st = engine.store(&why);
  if (st == nullptr && engine.store_status().code() == StatusCode::kInvalidArgument) {
    return error_result("The LoreKeeper store cannot be used: " + why +
                        ". Point LOREKEEPER_DB_PATH (or --db) at a LoreKeeper store, or at a new file.");
  }
  if (st == nullptr && engine.store_status().code() == StatusCode::kCorruption) {
    return error_result("The LoreKeeper store " + engine.db_path() + " cannot be used: " + why +
                        ". Nothing was changed. To rebuild it, move the file aside and load the bundled data: "
                        "`lorekeeper sync --source bundled --move-aside`.");
  }
  if (st == nullptr && engine.store_status().code() != StatusCode::kNotFound) {
    return error_result("The LoreKeeper store " + engine.db_path() + " cannot be used: " + why + ".");
  }
  if (st == nullptr) {
    const std::string message =
        "The LoreKeeper store is empty: " + why +
        ". Fill it with `lorekeeper sync --source bundled` (offline) or `lorekeeper sync` (live API), then ask "
        "again.";
    // Tools whose answer is one object, not a list, say so as an error.
    if (name == "get_entity" || name == "find_similar" || name == "compare_editions" || name == "count_entities" ||
        name == "class_spells" || name == "attack_odds" || name == "check_attunement") {
      return error_result(message);
    }
    ToolResult r;
    r.text = message;
    r.structured = {{"result", name == "search_all" ? json::object() : json::array()},
                    {"total", 0},
                    {"message", message},
                    {"filters", *args}};
    return r;
  }
  const json& a = *args;
  const search::Semantic* semantic = engine.semantic() && engine.semantic()->has_model() ? engine.semantic() : nullptr;
  // A search made while a starting serve reads its stored vectors (about a second) waits for them rather than
  // answer by words alone; bounded, so a slow disk costs one lexical answer, not a hung call.
  const bool ranks = name.rfind("search_", 0) == 0 || name == "find_similar" || name == "build_encounter";
  if (semantic && ranks && engine.ranking() != Ranking::kLexical) semantic->wait_loaded(std::chrono::seconds(3));
  const SearchContext ctx{engine.ranking(), engine.preferred_edition(), search::QueryEmbeddings(semantic)};
  if (name == "search_spell") return run_search_tool(*st, a, spell_query, false, match, ctx);
  if (name == "search_creature") return run_search_tool(*st, a, creature_query, false, match, ctx);
  if (name == "search_character_option") return run_search_tool(*st, a, character_option_query, true, match, ctx);
  if (name == "search_equipment") return run_search_tool(*st, a, equipment_query, false, match, ctx);
  if (name == "search_rule") return run_search_tool(*st, a, rule_query, false, match, ctx);
  if (name == "search_all") return search_all(*st, a, ctx);
  if (name == "get_entity") return get_entity(*st, a, ctx.preferred_edition);
  if (name == "find_similar") return find_similar(*st, a, ctx);
  if (name == "list_documents") return list_documents(*st, a);
  if (name == "count_entities") {
    // The filters are those of the kind's own search tool, validated and mapped as that tool does.
    const count_tool::QueryFor query_for = [&](Kind kind, const json& filters) -> Result<Query> {
      for (const char* not_filter : {"search", "limit", "detail"}) {
        if (filters.contains(not_filter)) {
          return Status::invalid_argument(std::string("'") + not_filter +
                                          "' is not a filter: count_entities counts what the filters select.");
        }
      }
      const char* tool = nullptr;
      QueryBuilder build;
      switch (kind) {
        case Kind::kSpell: tool = "search_spell", build = spell_query; break;
        case Kind::kCreature: tool = "search_creature", build = creature_query; break;
        case Kind::kWeapon:
        case Kind::kArmor:
        case Kind::kItem:
        case Kind::kMagicItem: tool = "search_equipment", build = equipment_query; break;
        case Kind::kClass:
        case Kind::kSpecies:
        case Kind::kBackground:
        case Kind::kFeat: tool = "search_character_option", build = character_option_query; break;
        default: break;
      }
      static const std::vector<ParamSpec> kDocumentsOnly = {documents_param(), game_system_param()};
      auto valid = validate_arguments(tool ? find_tool(tool, false)->params : kDocumentsOnly, filters);
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
      if (build && tool != std::string("search_creature") && filters.contains("type")) {
        return Status::invalid_argument("Parameter 'filters': 'type' chooses a kind in " + std::string(tool) +
                                        "; count_entities takes the kind from 'kind'.");
      }
      q.kinds = {kind};
      // As the search tools list them: classes and species without their subclasses and subspecies.
      if (kind == Kind::kClass || kind == Kind::kSpecies) {
        q.top_level = true;
      } else {
        q.top_level.reset();
      }
      auto docs = required_documents(*st, *valid);
      if (!docs) return docs.status();
      q.document_keys = docs->keys;
      return q;
    };
    return count_tool::count_entities(*st, a, query_for);
  }
  if (name == "evaluate_encounter" || name == "build_encounter") {
    // The encounter tools read creatures as search_creature finds them, filters and ranking included.
    const gm_tools::CreatureSearch creatures = [&](const json& sargs) -> Result<std::vector<json>> {
      auto built = creature_query(sargs);
      if (!built) return built.status();
      Query q = *built;
      // A document that is not known is an error here: a fight's creatures cannot come from it.
      auto docs = required_documents(*st, sargs);
      if (!docs) return docs.status();
      q.document_keys = docs->keys;
      auto found = find(*st, q, str_arg(sargs, "search"), int_arg(sargs, "limit").value_or(20), match, ctx);
      if (!found) return found.status();
      return std::move(found->results);
    };
    return name == "build_encounter" ? gm_tools::build_encounter(a, creatures, ctx.preferred_edition)
                                     : gm_tools::evaluate_encounter(a, creatures, ctx.preferred_edition);
  }
  if (name == "compare_editions") {
    auto docs = required_documents(*st, a);
    if (!docs) return error_result(docs.status().message());
    const compare_tool::Suggest suggest = [&](const std::vector<Kind>& kinds, const std::string& given) {
      // compare_editions finds a name in any document (`documents` only narrows the versions shown).
      store::Query filters;
      filters.kinds = kinds;
      return closest_names(*st, filters, given, 5);
    };
    ToolResult r = compare_tool::compare_editions(*st, a, docs->keys, ctx.preferred_edition, suggest);
    if (!docs->message.empty() && !r.is_error) {
      r.structured["message"] = docs->message;
      r.text = docs->message + "\n\n" + r.text;
    }
    return r;
  }
  if (name == "class_spells") {
    auto docs = required_documents(*st, a);
    if (!docs) return error_result(docs.status().message());
    ToolResult r = class_spells_tool::class_spells(*st, a, docs->keys, ctx.preferred_edition);
    if (!docs->message.empty() && !r.is_error) r.text = docs->message + "\n\n" + r.text;
    return r;
  }
  if (name == "attack_odds") {
    auto docs = required_documents(*st, a);
    if (!docs) return error_result(docs.status().message());
    return attack_odds_tool::attack_odds(st, a, docs->keys, ctx.preferred_edition);
  }
  if (name == "check_attunement") {
    auto docs = required_documents(*st, a);
    if (!docs) return error_result(docs.status().message());
    return attunement_tool::check_attunement(*st, a, docs->keys, ctx.preferred_edition);
  }
  return error_result("Unknown tool '" + name + "'.");
}

}  // namespace

}  // namespace lorekeeper::tools
