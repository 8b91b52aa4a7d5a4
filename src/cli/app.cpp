#include "lorekeeper/cli/app.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <vector>

#include "command.hpp"
#include "lorekeeper/core/config.hpp"
#include "lorekeeper/core/log.hpp"
#include "lorekeeper/core/text.hpp"

namespace lorekeeper::cli {

std::vector<std::unique_ptr<Command>> commands() {
  std::vector<std::unique_ptr<Command>> all;
  all.push_back(serve_command());
  all.push_back(status_command());
  all.push_back(sync_command());
  all.push_back(search_command());
  all.push_back(get_command());
  all.push_back(documents_command());
  all.push_back(embed_command());
  all.push_back(index_command());
  all.push_back(eval_command());
  all.push_back(import_command());
  all.push_back(remove_command());
  all.push_back(model_command());
  all.push_back(roll_command());
  all.push_back(encounter_command());
  all.push_back(spells_command());
  all.push_back(odds_command());
  all.push_back(tool_command());
  return all;
}

void out(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fflush(stdout);
}

int print_tool_result(const tools::ToolResult& r, bool as_json) {
  if (r.is_error) {
    std::fprintf(stderr, "lorekeeper: %s\n", r.text.c_str());
    return 1;
  }
  out(as_json ? r.structured.dump(2) + "\n" : r.text);
  return 0;
}

int run(int argc, char** argv) {
  CLI::App app{"LoreKeeper: D&D 5e reference content for AI assistants, over MCP and on the command line.",
               "lorekeeper"};
  app.set_version_flag("--version", std::string("lorekeeper ") + kVersion);
  app.require_subcommand(1);
  std::string db_flag;
  std::string log_level_flag;
  std::string env_file = ".env";
  app.add_option("--db", db_flag,
                 "Store file (default: $LOREKEEPER_DB_PATH, else $XDG_DATA_HOME/lorekeeper/lorekeeper.db)");
  app.add_option("--log-level", log_level_flag,
                 "debug, info, warning, error or off (default: $LOREKEEPER_LOG_LEVEL or info)");
  app.add_option("--env-file", env_file, "Settings file read before the environment (default: ./.env)");
  app.footer(
      "Settings, highest precedence first: flags, LOREKEEPER_* environment variables, the .env file, defaults.\n"
      "Environment: LOREKEEPER_DB_PATH, LOREKEEPER_LOG_LEVEL, LOREKEEPER_ENV_FILE, LOREKEEPER_OPEN5E_BASE_URL,\n"
      "LOREKEEPER_CACHE_TTL_DAYS, LOREKEEPER_ERROR_CACHE_TTL_SECONDS, LOREKEEPER_LEGACY_TOOLS.");

  const std::vector<std::unique_ptr<Command>> all = commands();
  std::vector<CLI::App*> subs;
  for (const auto& c : all) subs.push_back(c->add(app));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // An unknown first word is a command the user expected to exist: name the ones that do.
    const std::vector<std::string> rest = app.remaining();
    if (e.get_exit_code() != 0 && !rest.empty() && !rest.front().empty() && rest.front()[0] != '-' &&
        app.get_subcommands().empty()) {
      std::vector<std::string> names;
      for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; }))
        names.push_back(sub->get_name());
      std::fprintf(stderr, "lorekeeper: unknown command '%s'. Commands: %s.\nRun with --help for more information.\n",
                   rest.front().c_str(), text::join(names, ", ").c_str());
      return 2;
    }
    // --help and --version exit 0; every usage error exits 2, as documented.
    return app.exit(e) == 0 ? 0 : 2;
  }

  auto env = process_env();
  if (auto f = env("LOREKEEPER_ENV_FILE"); f && env_file == ".env") env_file = *f;
  auto cfg = load_config(env, env_file);
  if (!cfg) {
    std::fprintf(stderr, "lorekeeper: %s\n", cfg.status().message().c_str());
    return 2;
  }
  if (!db_flag.empty()) {
    cfg->db_path = db_flag;
    cfg->origin["db_path"] = "flag";
  }
  if (!log_level_flag.empty()) {
    cfg->log_level = log_level_flag;
    cfg->origin["log_level"] = "flag";
  }
  log::Level level;
  if (!log::parse_level(cfg->log_level, &level)) {
    std::fprintf(stderr, "lorekeeper: unknown log level '%s' (debug, info, warning, error, off)\n",
                 cfg->log_level.c_str());
    return 2;
  }
  log::set_level(level);

  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i]->chosen(*subs[i])) return all[i]->run(*cfg);
  }
  return 2;
}

}  // namespace lorekeeper::cli
