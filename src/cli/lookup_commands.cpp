#include <cstdio>
#include <optional>

#include "command.hpp"
#include "lookup.hpp"
#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/serve/engines.hpp"

namespace lorekeeper::cli {

namespace {

using json = nlohmann::json;
using serve::make_engine;
using serve::one_shot_semantic;

int cmd_search(const Config& cfg, const SearchRequest& request, Output output) {
  if (auto call = search_call(request); !call) {  // a usage error is found before the store is opened
    std::fprintf(stderr, "lorekeeper search: %s\n", call.status().message().c_str());
    return 2;
  }
  tools::Engine engine = make_engine(cfg);
  engine.set_semantic(one_shot_semantic(cfg, engine));
  return run_search(engine, request, output);
}

int cmd_get(const Config& cfg, const std::string& key_or_name, const std::string& kind, bool include_source,
            Output output) {
  tools::Engine engine = make_engine(cfg);
  engine.set_semantic(one_shot_semantic(cfg, engine));
  return run_get(engine, key_or_name, kind, include_source, output);
}

int cmd_tool(const Config& cfg, const std::string& name, const std::string& args_text, bool as_json) {
  if (tools::find_tool(name, cfg.legacy_tools) == nullptr) {
    std::vector<std::string> names;
    for (const auto* s : tools::tool_specs(cfg.legacy_tools)) names.push_back(s->name);
    std::fprintf(stderr, "lorekeeper tool: unknown tool '%s'. Tools: %s\n", name.c_str(),
                 text::join(names, ", ").c_str());
    return 2;
  }
  std::string why;
  auto parsed = args_text.empty() ? std::optional<json>(json::object()) : json_util::parse(args_text, &why);
  if (!parsed || !parsed->is_object()) {
    std::fprintf(stderr, "lorekeeper tool: ARGS must be a JSON object%s\n", parsed ? "" : (" (" + why + ")").c_str());
    return 2;
  }
  const json& args = *parsed;
  tools::Engine engine = make_engine(cfg);
  engine.set_semantic(one_shot_semantic(cfg, engine));
  return print_tool_result(engine.call(name, args), as_json);
}

class SearchCommand : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* search = app.add_subcommand("search", "Search like the MCP tools do");
    search->add_option("query", request_.query, "Name or words (may be empty with --kind and filters)");
    search->add_option("-k,--kind", request_.kind,
                       "spell, creature, class, race, background, feat, weapon, armor, item, magic-item, equipment, "
                       "or a rule type (rule, condition, skill, ...); default: all kinds");
    // One value per -f and -d, so that a query after them ("-f cr=5 goblin") stays the query.
    search
        ->add_option("-f,--filter", request_.filters,
                     "Tool parameter as key=value, read as the parameter's type (level=3, school=evocation, "
                     "documents=srd-2014,tob); repeatable")
        ->allow_extra_args(false);
    search->add_option("-d,--document", request_.documents, "Only this source document (repeatable)")
        ->allow_extra_args(false);
    search->add_option("-n,--limit", request_.limit, "Maximum results (1-100)");
    search->add_option("-e,--edition", request_.edition,
                       "Only these rules: 2014 (SRD 5.1), 2024 (SRD 5.2) or a5e (Level Up)");
    auto* json_opt = search->add_flag("--json", as_json_, "Print the structured result as JSON");
    auto* table_opt = search->add_flag("--table", table_, "One line per result (the default on a terminal)");
    search->add_flag("--full", full_, "Every result in full, as the tools answer (the default in a pipe)")
        ->excludes(table_opt)
        ->excludes(json_opt);
    table_opt->excludes(json_opt);
    return search;
  }
  int run(Config& cfg) override {
    const Output output = as_json_ ? Output::kJson : full_ ? Output::kFull : table_ ? Output::kTable : Output::kAuto;
    return cmd_search(cfg, request_, output);
  }

 private:
  SearchRequest request_;
  bool as_json_ = false;
  bool table_ = false;
  bool full_ = false;
};

class GetCommand : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* get = app.add_subcommand("get", "Print one entity by key, or by name (every kind of that name)");
    get->add_option("key", key_, "Key (srd_fireball) or exact name (Fireball)")->required();
    get->add_option("-k,--kind", kind_, "Kind, when a key or name has several (spell, armor, ...)");
    get->add_flag("--source", source_, "Add the original API record");
    get->add_flag("--json", as_json_, "Print the structured result as JSON");
    return get;
  }
  int run(Config& cfg) override { return cmd_get(cfg, key_, kind_, source_, as_json_ ? Output::kJson : Output::kAuto); }

 private:
  std::string key_;
  std::string kind_;
  bool as_json_ = false;
  bool source_ = false;
};

class ToolCommand : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* tool = app.add_subcommand("tool", "Call one MCP tool directly with JSON arguments");
    tool->add_option("name", name_, "Tool name (e.g. search_spell)")->required();
    tool->add_option("args", args_, "Arguments as a JSON object");
    tool->add_flag("--json", as_json_, "Print the structured result as JSON");
    return tool;
  }
  int run(Config& cfg) override { return cmd_tool(cfg, name_, args_, as_json_); }

 private:
  std::string name_;
  std::string args_;
  bool as_json_ = false;
};

}  // namespace

std::unique_ptr<Command> search_command() { return std::make_unique<SearchCommand>(); }
std::unique_ptr<Command> get_command() { return std::make_unique<GetCommand>(); }
std::unique_ptr<Command> tool_command() { return std::make_unique<ToolCommand>(); }

}  // namespace lorekeeper::cli
