// The tools as one table. A row is one tool: its spec (what tools/list shows), the traits the engine runs it by, and
// its handler. Each tool's file owns its rows; tool_table.cpp lists them in tools/list order, and the older names
// (legacy.hpp) follow as rows that forward to a current tool. Adding a tool is its file (spec, handler, row), the
// row's declaration below and one line in tool_table.cpp (and the file in CMakeLists.txt). Private to lk_tools.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lorekeeper/core/status.hpp"
#include "lorekeeper/search/ranker.hpp"
#include "lorekeeper/store/store.hpp"
#include "lorekeeper/tools/engine.hpp"
#include "search_tools.hpp"

namespace lorekeeper::tools {

// What a handler is given: the store (null only for a call its row runs without one), the arguments validated
// against its spec (defaults filled in), what a search may use, and how a search's words match.
struct ToolCall {
  store::Store* st = nullptr;
  const json& args;
  const SearchContext& ctx;
  search::Match match = search::Match::kNamesAndText;  // names only for an older tool's `name`
};

// What a tool answers while the store is empty: an empty list, an empty object of lists by kind (search_all), or an
// error (a tool whose answer is one object).
enum class EmptyStoreAnswer { kEmptyList, kEmptyByKind, kError };

// A call of an older tool as the current tool it stands for.
struct Forwarded {
  std::string tool;
  json args;
  search::Match match = search::Match::kNamesAndText;
};

struct ToolDef {
  explicit ToolDef(ToolSpec s) : spec(std::move(s)) {}
  ToolSpec spec;
  EmptyStoreAnswer empty_store = EmptyStoreAnswer::kEmptyList;
  // It ranks by meaning: a call waits (bounded) for the stored vectors while a starting serve reads them.
  bool ranks = false;
  // Its text opens with the engine's notice (a refresh under way); every answer carries it in `message`.
  bool notice_heads_text = false;
  // Whether a call needs the store (checked, and given to the handler); unset: every call does.
  std::function<bool(const json& args)> needs_store;
  std::function<ToolResult(const ToolCall&)> run;
  // Set on an older name's row instead of `run`: the current tool its validated call stands for.
  std::function<Result<Forwarded>(const json& args)> forward;
};

// The row of a tool whose answer is one object (an empty store is an error) and whose call must select some document
// (required_documents: an unknown or empty `documents` is an error): `run` is given the documents resolved, or none
// chosen (keys nullopt) for a call its row runs without the store. Documents given that no store holds, beside
// known ones, are said ahead of the answer's text and in its message.
ToolDef documents_row(ToolSpec spec, std::function<ToolResult(const ToolCall&, const DocFilter& docs)> run);

// The current tools, in tools/list order; the older names' rows (served when enabled).
const std::vector<ToolDef>& tool_table();
const std::vector<ToolDef>& legacy_tool_table();
// The row of `name`, among the older names too with `include_legacy`; null when there is none.
const ToolDef* find_tool_def(std::string_view name, bool include_legacy = false);

// The rows each tool's file owns, in tools/list order within it.
std::vector<ToolDef> search_tool_rows();  // specs.cpp
std::vector<ToolDef> legacy_rows();       // legacy.cpp
namespace gm_tools {
std::vector<ToolDef> rows(const std::vector<ParamSpec>& creature_filters);  // gm_tools.cpp
}  // namespace gm_tools
namespace count_tool {
ToolDef row();  // count_tool.cpp
}  // namespace count_tool
namespace compare_tool {
ToolDef row();  // compare_tool.cpp
}  // namespace compare_tool
namespace class_spells_tool {
ToolDef row();  // class_spells_tool.cpp
}  // namespace class_spells_tool
namespace attack_odds_tool {
ToolDef row();  // attack_odds_tool.cpp
}  // namespace attack_odds_tool
namespace attunement_tool {
ToolDef row();  // attunement_tool.cpp
}  // namespace attunement_tool

}  // namespace lorekeeper::tools
