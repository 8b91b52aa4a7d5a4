// The subcommands of the command line. Each is a class in the file of its group (store_commands.cpp: status, sync,
// documents; lookup_commands.cpp: search, get, tool; table_commands.cpp: roll, encounter, spells, odds;
// meaning_commands.cpp: embed, index, eval; import_commands.cpp: import, remove; serve_command.cpp; model_fetch.cpp:
// model fetch), holding its options and its handler; `commands()` lists them in the order `--help` shows. Adding a
// command is one class and one line of that list.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "lorekeeper/core/config.hpp"
#include "lorekeeper/tools/engine.hpp"

namespace lorekeeper::cli {

class Command {
 public:
  virtual ~Command() = default;
  // Adds the subcommand and its options to `app` (the options write into the command's own fields) and returns it.
  virtual CLI::App* add(CLI::App& app) = 0;
  // Whether the command line chose this command (by default: its subcommand was parsed).
  virtual bool chosen(const CLI::App& sub) const { return sub.parsed(); }
  // Runs it once the command line is parsed and the settings are read; returns the exit code.
  virtual int run(Config& cfg) = 0;
};

// Every command, in the order --help lists them.
std::vector<std::unique_ptr<Command>> commands();

std::unique_ptr<Command> serve_command();
std::unique_ptr<Command> status_command();
std::unique_ptr<Command> sync_command();
std::unique_ptr<Command> search_command();
std::unique_ptr<Command> get_command();
std::unique_ptr<Command> documents_command();
std::unique_ptr<Command> embed_command();
std::unique_ptr<Command> index_command();
std::unique_ptr<Command> eval_command();
std::unique_ptr<Command> import_command();
std::unique_ptr<Command> remove_command();
std::unique_ptr<Command> model_command();
std::unique_ptr<Command> roll_command();
std::unique_ptr<Command> encounter_command();
std::unique_ptr<Command> spells_command();
std::unique_ptr<Command> odds_command();
std::unique_ptr<Command> tool_command();

// The program's version, as `--version` and `status` print it.
inline constexpr const char* kVersion = LOREKEEPER_VERSION;

// Writes `s` to stdout and flushes it.
void out(const std::string& s);
// Prints a tool's answer (its Markdown, or its structured result as JSON); a tool error goes to stderr, exit 1.
int print_tool_result(const tools::ToolResult& r, bool as_json);

}  // namespace lorekeeper::cli
