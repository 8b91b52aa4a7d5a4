#include "lorekeeper/tools/engine.hpp"

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>

#include "lorekeeper/core/log.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/search/ranker.hpp"
#include "search_tools.hpp"
#include "tool_table.hpp"

namespace lorekeeper::tools {

using model::Kind;
using search::Match;

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

// Runs a tool's row: validates the arguments against its spec, forwards an older name's call to the current tool,
// opens the store when the call reads it (an empty store answers as the row says), waits for the stored vectors
// when it ranks, and calls the handler.
ToolResult run_row(Engine& engine, const ToolDef& def, const json& arguments, Match match) {
  auto args = validate_arguments(def.spec.params, arguments);
  if (!args) return error_result(args.status().message());
  if (def.forward) {
    auto current = def.forward(*args);
    if (!current) return error_result(current.status().message());
    const ToolDef* to = find_tool_def(current->tool);
    if (to == nullptr) return error_result("Unknown tool '" + current->tool + "'.");
    return run_row(engine, *to, current->args, current->match);
  }
  store::Store* st = nullptr;
  if (!def.needs_store || def.needs_store(*args)) {
    std::string why;
    st = engine.store(&why);
    const StatusCode code = engine.store_status().code();
    if (st == nullptr && code == StatusCode::kInvalidArgument) {
      return error_result("The LoreKeeper store cannot be used: " + why +
                          ". Point LOREKEEPER_DB_PATH (or --db) at a LoreKeeper store, or at a new file.");
    }
    if (st == nullptr && code == StatusCode::kCorruption) {
      return error_result("The LoreKeeper store " + engine.db_path() + " cannot be used: " + why +
                          ". Nothing was changed. To rebuild it, move the file aside and load the bundled data: "
                          "`lorekeeper sync --source bundled --move-aside`.");
    }
    if (st == nullptr && code != StatusCode::kNotFound) {
      return error_result("The LoreKeeper store " + engine.db_path() + " cannot be used: " + why + ".");
    }
    if (st == nullptr) {
      const std::string message =
          "The LoreKeeper store is empty: " + why +
          ". Fill it with `lorekeeper sync --source bundled` (offline) or `lorekeeper sync` (live API), then ask "
          "again.";
      if (def.empty_store == EmptyStoreAnswer::kError) return error_result(message);
      ToolResult r;
      r.text = message;
      r.structured = {{"result", def.empty_store == EmptyStoreAnswer::kEmptyByKind ? json::object() : json::array()},
                      {"total", 0},
                      {"message", message},
                      {"filters", *args}};
      return r;
    }
  }
  // Only a call that reads the store looks at the meaning-based service (whose model may still be loading).
  const search::Semantic* semantic =
      st != nullptr && engine.semantic() && engine.semantic()->has_model() ? engine.semantic() : nullptr;
  // A search made while a starting serve reads its stored vectors (about a second) waits for them rather than
  // answer by words alone; bounded, so a slow disk costs one lexical answer, not a hung call.
  if (semantic && def.ranks && engine.ranking() != Ranking::kLexical) {
    semantic->wait_loaded(std::chrono::seconds(3));
  }
  const SearchContext ctx{engine.ranking(), engine.preferred_edition(), search::QueryEmbeddings(semantic)};
  return def.run(ToolCall{st, *args, ctx, match});
}

}  // namespace

ToolResult Engine::call(const std::string& name, const json& arguments) {
  // One snapshot of the store for the whole call: an import or sync committing meanwhile is seen by the next
  // call, never by half of this one.
  std::optional<store::Store::ReadSnapshot> snapshot;
  if (store::Store* st = store(nullptr)) snapshot.emplace(*st);
  const ToolDef* def = find_tool_def(name, legacy_tools_);
  if (def == nullptr) return error_result("Unknown tool '" + name + "'.");
  ToolResult r = run_row(*this, *def, arguments, Match::kNamesAndText);
  const std::string note = notice_ ? notice_() : std::string();
  if (!note.empty() && !r.is_error) {
    const std::string message = r.structured.value("message", "");
    r.structured["message"] = message.empty() ? note : message + " " + note;
    // The notice heads the text of answers that search; one entry's text (get_entity, and resources/read, which
    // shows it), the list of documents and the arithmetic tools' answers stay as they are.
    if (def->notice_heads_text) r.text = note + "\n\n" + r.text;
  }
  return r;
}

}  // namespace lorekeeper::tools
