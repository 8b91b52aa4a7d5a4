// MCP prompts: user-chosen templates (slash commands in hosts) whose arguments complete from the store.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lorekeeper/core/status.hpp"
#include "lorekeeper/tools/engine.hpp"

namespace lorekeeper::tools {

struct PromptArgument {
  std::string name;
  std::string description;
  bool required = false;
};

struct PromptSpec {
  std::string name;
  std::string title;
  std::string description;
  std::vector<PromptArgument> arguments;
};

const std::vector<PromptSpec>& prompt_specs();

// The messages of prompt `name` with `arguments` (strings). NotFound for an unknown prompt, InvalidArgument for
// a missing required argument or an invalid value.
Result<nlohmann::json> get_prompt(Engine& engine, const std::string& name, const nlohmann::json& arguments);

// Completion values (at most `max`) for argument `argument` of prompt `name` starting with `value`;
// `context` holds the other arguments already chosen.
std::vector<std::string> complete_prompt_argument(Engine& engine, const std::string& name, const std::string& argument,
                                                  const std::string& value, const nlohmann::json& context, size_t max);

}  // namespace lorekeeper::tools
