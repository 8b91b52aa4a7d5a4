// The MCP tools of LoreKeeper over the store. Tools never see a transport: the protocol layer calls
// Engine::call with validated JSON and turns the ToolResult into a CallToolResult.
// Not thread-safe: one Engine per thread (each holds its own store connection).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lorekeeper/search/ranker.hpp"
#include "lorekeeper/search/semantic.hpp"
#include "lorekeeper/store/store.hpp"
#include "lorekeeper/tools/params.hpp"

namespace lorekeeper::tools {

struct ToolSpec {
  std::string name;
  std::string title;
  std::string description;
  std::vector<ParamSpec> params;
  ojson output_schema;
};

struct ToolResult {
  json structured = json::object();  // matches the tool's outputSchema when !is_error
  std::string text;                  // Markdown for the model
  bool is_error = false;
};

// A tool error: `message` as the text, isError set (the message names the parameter and what is valid).
inline ToolResult error_result(const std::string& message) {
  ToolResult r;
  r.is_error = true;
  r.text = message;
  return r;
}

// The outputSchema of a tool that answers one object: {result, total, message, filters}, result and total required.
ojson object_answer_schema(ojson result);

// The tools, in the order tools/list presents them; with `include_legacy`, followed by the older names
// (see legacy.hpp).
const std::vector<ToolSpec>& tool_specs();
std::vector<const ToolSpec*> tool_specs(bool include_legacy);
const ToolSpec* find_tool(const std::string& name, bool include_legacy = false);

// How search words are ranked (search/ranker.hpp).
using Ranking = search::Ranking;

class Engine {
 public:
  // Creates a store at a path where there is none (e.g. from the bundled snapshot); called on first use.
  using Bootstrap = std::function<Status(const std::string& db_path)>;

  // `db_path` is opened on first use, and re-tried on later calls while it does not exist, holds no documents or
  // is damaged, so a store created or rebuilt by `lorekeeper sync` in another process is picked up without a
  // restart. With `bootstrap`, a missing store is first created by it.
  explicit Engine(std::string db_path, Bootstrap bootstrap = nullptr);
  Engine(Engine&&) = default;
  ~Engine();

  // Runs a tool. Unknown names are the caller's to reject (find_tool); bad arguments give is_error results.
  ToolResult call(const std::string& name, const json& arguments);

  // The store, opening it if needed; nullptr (with the reason in *why) when there is none or it is unreadable.
  store::Store* store(std::string* why);
  // Why store() last returned nullptr: NotFound when there is no store (an empty answer says how to fill it),
  // anything else when the file is damaged, foreign or cannot be read (tools answer with an error).
  const Status& store_status() const { return store_status_; }
  const std::string& db_path() const { return db_path_; }

  // A note about the data that every answer carries while it is non-empty (e.g. "refreshing in the background").
  // The function is called on the engine's thread and must be thread-safe with respect to whoever updates it.
  void set_notice(std::function<std::string()> notice) { notice_ = std::move(notice); }

  // The shared meaning-based search service (may be null: lexical only).
  void set_semantic(std::shared_ptr<const search::Semantic> semantic) { semantic_ = std::move(semantic); }
  void set_ranking(Ranking r) { ranking_ = r; }
  // Whether full-text ranking reads the store's in-memory copy of its text index (Store::set_text_index_in_memory):
  // for long-lived engines (serve, eval), which load it once; one-shot commands query FTS5.
  void set_text_index_in_memory(bool on);
  // Whether the store is checked whole (store::Store::check) when it is opened, before its first answer: for
  // engines that answer for long (serve). Any engine checks a store that a writer did not close cleanly.
  void set_check_on_open(bool on) { check_on_open_ = on; }
  // Whether the store is read through a memory mapping (the default) or page by page into SQLite's bounded page
  // cache (Store::set_memory_mapped). Long-lived engines read page by page: mapped, every page a search touches,
  // and the neighbours the kernel maps with it, stays resident for the process's life (about 50 MB after 20
  // searches of the bundled store), for no measurable speed (the file stays in the kernel's page cache).
  void set_memory_mapped(bool on);

  // The edition listed first among the editions of one name, and picked when one is needed (model::edition_before):
  // "5e-2014" (default) or "5e-2024".
  void set_preferred_edition(std::string game_system) { preferred_edition_ = std::move(game_system); }
  const std::string& preferred_edition() const { return preferred_edition_; }

  // Whether the older tool names (lookup_*, search_dnd_content) are served.
  void set_legacy_tools(bool on) { legacy_tools_ = on; }
  bool legacy_tools() const { return legacy_tools_; }
  const search::Semantic* semantic() const { return semantic_.get(); }
  Ranking ranking() const { return ranking_; }

  // Gives back what the store connection caches (its page cache); the next call reads the pages again.
  void release_memory();

  // Entity names starting with (or containing) `prefix`, for argument completion; at most `max`.
  std::vector<std::string> complete_names(const std::vector<model::Kind>& kinds, const std::string& prefix, size_t max);

 private:
  void apply_memory_mapped();
  Status store_status_;
  std::string db_path_;
  Bootstrap bootstrap_;
  std::function<std::string()> notice_;
  bool legacy_tools_ = false;
  std::string preferred_edition_{model::kDefaultPreferredEdition};
  std::shared_ptr<const search::Semantic> semantic_;
  Ranking ranking_ = Ranking::kHybrid;
  bool text_index_in_memory_ = false;
  bool memory_mapped_ = true;
  bool check_on_open_ = false;
  std::unique_ptr<store::Store> store_;
};

}  // namespace lorekeeper::tools
