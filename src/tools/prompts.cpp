#include "lorekeeper/tools/prompts.hpp"

#include <algorithm>
#include <cmath>

#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/entity.hpp"
#include "lorekeeper/search/ranker.hpp"
#include "lorekeeper/tools/params.hpp"

namespace lorekeeper::tools {

using nlohmann::json;

namespace {

const std::vector<std::string> kEntryKinds = {"spell",  "creature", "class", "species",    "background", "feat",
                                              "weapon", "armor",    "item",  "magic-item", "rule",       "condition"};

std::vector<std::string> starting_with(const std::vector<std::string>& all, const std::string& value, size_t max) {
  std::vector<std::string> out;
  const std::string v = text::fold(value);
  for (const auto& a : all) {
    if (text::fold(a).rfind(v, 0) == 0) out.push_back(a);
    if (out.size() >= max) break;
  }
  return out;
}

std::string arg(const json& args, const char* name) {
  if (!args.is_object() || !args.contains(name) || !args[name].is_string()) return "";
  return text::trim(args[name].get<std::string>());
}

json user_text(const std::string& text) { return {{"role", "user"}, {"content", {{"type", "text"}, {"text", text}}}}; }

}  // namespace

const std::vector<PromptSpec>& prompt_specs() {
  static const std::vector<PromptSpec> kPrompts = {
      {"lookup_entry",
       "Look up an entry",
       "Explain one spell, creature, class, item or rule, quoting its LoreKeeper entry.",
       {{"kind",
         "spell, creature, class, species, background, feat, weapon, armor, item, magic-item, rule or "
         "condition",
         true},
        {"name", "The entry's name (completes from the store).", true}}},
      {"plan_encounter",
       "Plan an encounter",
       "Plan a combat encounter for a party, choosing creatures from LoreKeeper.",
       {{"party_level", "Average character level, 1-20.", true},
        {"party_size", "Number of characters, 1-8 (default 4).", false},
        {"environment", "Where it happens (completes from the store's environments).", false},
        {"creature_type", "A creature type to favour (e.g. undead).", false},
        {"difficulty", "easy, medium, hard or deadly (2014 rules); low, moderate or high (2024).", false}}},
  };
  return kPrompts;
}

Result<json> get_prompt(Engine& engine, const std::string& name, const json& arguments) {
  if (arguments.is_object()) {
    for (auto it = arguments.begin(); it != arguments.end(); ++it) {
      if (it->is_string() && it->get_ref<const std::string&>().size() > kMaxStringLength) {
        return Status::invalid_argument("Argument '" + it.key() + "' is longer than " +
                                        std::to_string(kMaxStringLength) + " characters.");
      }
    }
  }
  if (name == "lookup_entry") {
    const std::string kind_text = arg(arguments, "kind");
    const std::string entry = arg(arguments, "name");
    if (kind_text.empty() || entry.empty()) {
      return Status::invalid_argument("lookup_entry needs the arguments kind and name.");
    }
    auto kind = model::parse_kind(kind_text);
    if (!kind) {
      return Status::invalid_argument("Unknown kind '" + kind_text + "'; one of: " + text::join(kEntryKinds, ", ") +
                                      ".");
    }
    const std::string kind_name(model::kind_name(*kind));
    json messages = json::array();
    messages.push_back(user_text("Explain the D&D 5e " + kind_name + " \"" + entry +
                                 "\" for a player at the table: what it does, the numbers that matter, and any "
                                 "differences between editions. Base the answer on the LoreKeeper entries below "
                                 "and name their source documents."));
    std::string why;
    if (store::Store* st = engine.store(&why)) {
      store::Query q;
      q.kinds = {*kind};
      auto found = search::editions_named(*st, q, entry, engine.preferred_edition());
      if (found && !found->empty()) {
        // The first three editions in edition order.
        for (size_t i = 0; i < found->size() && i < 3; ++i) {
          const auto& e = (*found)[i];
          ToolResult r = engine.call("get_entity", {{"key", e.key}, {"kind", kind_name}});
          if (r.is_error) continue;
          messages.push_back({{"role", "user"},
                              {"content",
                               {{"type", "resource"},
                                {"resource",
                                 {{"uri", "lorekeeper://" + kind_name + "/" + e.key},
                                  {"mimeType", "text/markdown"},
                                  {"text", r.text}}}}}});
        }
      } else {
        messages.push_back(user_text("LoreKeeper has no " + kind_name + " named exactly \"" + entry +
                                     "\"; search for it with the LoreKeeper search tools first."));
      }
    }
    return json{{"description", "Explain the " + kind_name + " " + entry}, {"messages", messages}};
  }
  if (name == "plan_encounter") {
    const std::string level_text = arg(arguments, "party_level");
    char* end = nullptr;
    const long level = std::strtol(level_text.c_str(), &end, 10);
    if (level_text.empty() || *end != '\0' || level < 1 || level > 20) {
      return Status::invalid_argument("party_level must be a whole number from 1 to 20.");
    }
    std::string size_text = arg(arguments, "party_size");
    long size = 4;
    if (!size_text.empty()) {
      size = std::strtol(size_text.c_str(), &end, 10);
      if (*end != '\0' || size < 1 || size > 8) return Status::invalid_argument("party_size must be 1 to 8.");
    }
    const std::string env = arg(arguments, "environment");
    const std::string type = arg(arguments, "creature_type");
    const std::string difficulty = arg(arguments, "difficulty");
    std::string call = "party_size " + std::to_string(size) + ", party_level " + std::to_string(level);
    if (!difficulty.empty()) call += ", difficulty \"" + difficulty + "\"";
    const std::string theme = text::trim(env + " " + type);
    if (!theme.empty()) call += ", theme \"" + theme + "\"";
    if (!type.empty()) call += ", type \"" + type + "\"";
    std::string text = "Plan a combat encounter for " + std::to_string(size) + " characters of level " +
                       std::to_string(level) + (env.empty() ? "" : " in this environment: " + env) + ". ";
    text += "Call LoreKeeper's build_encounter tool with " + call +
            ": it proposes groups of creatures that land on the difficulty, each with its XP arithmetic. Choose "
            "one, read its stat blocks with get_entity, and if you change the group, check it again with "
            "evaluate_encounter. Present the group with its XP arithmetic as the tools gave it, a tactic for each "
            "creature, and the terrain features that matter.";
    return json{{"description", "Encounter for level " + std::to_string(level)}, {"messages", {user_text(text)}}};
  }
  return Status::not_found("Unknown prompt: " + name);
}

std::vector<std::string> complete_prompt_argument(Engine& engine, const std::string& name, const std::string& argument,
                                                  const std::string& value, const json& context, size_t max) {
  if (name == "lookup_entry" && argument == "kind") return starting_with(kEntryKinds, value, max);
  if (name == "lookup_entry" && argument == "name") {
    std::vector<model::Kind> kinds;
    if (auto k = model::parse_kind(arg(context, "kind"))) kinds.push_back(*k);
    return engine.complete_names(kinds, value, max);
  }
  if (name == "plan_encounter" && (argument == "party_level" || argument == "party_size")) {
    std::vector<std::string> numbers;
    for (int i = 1; i <= (argument == "party_level" ? 20 : 8); ++i) numbers.push_back(std::to_string(i));
    return starting_with(numbers, value, max);
  }
  if (name == "plan_encounter" && argument == "environment") {
    return engine.complete_names({model::Kind::kEnvironment}, value, max);
  }
  if (name == "plan_encounter" && argument == "difficulty") {
    return starting_with({"easy", "medium", "hard", "deadly", "low", "moderate", "high"}, value, max);
  }
  if (name == "plan_encounter" && argument == "creature_type") {
    return engine.complete_names({model::Kind::kCreatureType}, value, max);
  }
  return {};
}

}  // namespace lorekeeper::tools
