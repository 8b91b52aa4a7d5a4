// `lorekeeper search` and `lorekeeper get`: one tool call, printed for a person at a terminal (a table of results,
// a stat block for one entity) or for a script (the tool's Markdown, or its structured result as JSON).
#pragma once

#include <string>
#include <vector>

#include "lorekeeper/core/status.hpp"
#include "lorekeeper/tools/engine.hpp"

namespace lorekeeper::cli {

// How an answer is printed. kAuto: a table of results on a terminal, the tool's Markdown elsewhere (so pipes and
// scripts read what a model reads); an exact name prints its stat block either way.
enum class Output { kAuto, kTable, kFull, kJson };

// Where the answer goes: a terminal (then colour unless NO_COLOR is set or TERM is "dumb", and its width).
struct Terminal {
  bool tty = false;
  bool colour = false;
  int width = 0;  // columns; 0: unknown (nothing is cut)
};
Terminal stdout_terminal();

struct SearchRequest {
  std::string query;
  std::string kind;                  // "" or "all": every kind
  std::vector<std::string> filters;  // "key=value": a tool parameter, the value read as the parameter's type
  std::vector<std::string> documents;
  int limit = 0;        // 0: the tool's default
  std::string edition;  // "" (all), or a game_system value or alias ("2014", "2024", "a5e")
};

// The tool and arguments a search request calls. InvalidArgument (a usage error) for a filter that is not
// key=value or an unknown kind; the message names the kinds.
struct ToolCall {
  std::string tool;
  nlohmann::json args;
};
Result<ToolCall> search_call(const SearchRequest& request);

// The kinds `--kind` accepts, in the order the usage text lists them.
std::vector<std::string> search_kinds();

// A list answer's results (search_all's per-kind groups flattened, in order) as an aligned table: name, kind (when
// several), key facts, document and key, fitted to the terminal's width (names and facts are cut first).
std::string render_table(const std::vector<nlohmann::json>& results, const Terminal& terminal);

// Runs a search and prints it; returns the exit code (1 for a tool error, 2 for a usage error).
int run_search(tools::Engine& engine, const SearchRequest& request, Output output);

// Prints one entity by key (every kind that has the key, unless `kind` is given), or by name (its preferred
// edition, the others named by key; with several kinds of that name, one of each). Exit code 1 when nothing has that
// key or name (the message suggests close names).
int run_get(tools::Engine& engine, const std::string& key_or_name, const std::string& kind, bool include_source,
            Output output);

}  // namespace lorekeeper::cli
