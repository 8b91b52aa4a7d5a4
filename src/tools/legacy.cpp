#include "lorekeeper/tools/legacy.hpp"

#include "lorekeeper/core/text.hpp"
#include "tool_table.hpp"

namespace lorekeeper::tools {

namespace {

// The current tool's parameter `name`, copied so the alias states the same type, enum and range.
ParamSpec param_of(const std::string& tool, const std::string& name) {
  for (const auto& p : find_tool(tool)->params) {
    if (p.name == name) return p;
  }
  return {name, ParamType::kString, "", {}, {}, {}, json(), false, {}};
}

ParamSpec renamed(ParamSpec p, std::string name, std::string description = "") {
  p.name = std::move(name);
  p.required = false;
  p.default_value = json();
  if (!description.empty()) p.description = std::move(description);
  return p;
}

ParamSpec name_param(const char* what) {
  return {"name",
          ParamType::kString,
          std::string(what) +
              " name: an exact name returns that entry (every edition of it); a partial name "
              "returns the entries whose names contain it.",
          {},
          {},
          {},
          json(),
          false,
          {}};
}

ojson output_of(const std::string& tool) { return find_tool(tool)->output_schema; }

std::vector<ToolSpec> build() {
  std::vector<ToolSpec> specs;
  specs.push_back({"lookup_spell",
                   "Look up spells (older name)",
                   "Older name of search_spell (prefer search_spell): spells by name, level, school, class, "
                   "concentration, ritual or casting time.",
                   {name_param("Spell"), param_of("search_spell", "level"), param_of("search_spell", "school"),
                    param_of("search_spell", "class_key"), param_of("search_spell", "concentration"),
                    param_of("search_spell", "ritual"), param_of("search_spell", "casting_time"),
                    param_of("search_spell", "documents"), param_of("search_spell", "limit")},
                   output_of("search_spell")});
  specs.push_back({"lookup_creature",
                   "Look up creatures (older name)",
                   "Older name of search_creature (prefer search_creature): stat blocks by name, challenge rating "
                   "(cr or challenge_rating, cr_min, cr_max), type and size.",
                   {name_param("Creature"), param_of("search_creature", "cr"),
                    renamed(param_of("search_creature", "cr"), "challenge_rating", "Same as cr."),
                    param_of("search_creature", "cr_min"), param_of("search_creature", "cr_max"),
                    param_of("search_creature", "type"), param_of("search_creature", "size"),
                    param_of("search_creature", "documents"), param_of("search_creature", "limit")},
                   output_of("search_creature")});
  specs.push_back(
      {"lookup_character_option",
       "Look up character options (older name)",
       "Older name of search_character_option (prefer it): classes, races, backgrounds and feats. "
       "Give type (or option_type).",
       {renamed(param_of("search_character_option", "type"), "type",
                "class, race, background or feat (required, here or as option_type)."),
        renamed(param_of("search_character_option", "type"), "option_type", "Same as type."), name_param("Option"),
        param_of("search_character_option", "documents"), param_of("search_character_option", "limit")},
       output_of("search_character_option")});
  specs.push_back(
      {"lookup_equipment",
       "Look up equipment (older name)",
       "Older name of search_equipment (prefer search_equipment): weapons, armor, gear and magic items "
       "by name, rarity, damage dice, simple/martial and attunement.",
       {renamed(param_of("search_equipment", "type"), "type", "weapon, armor, magic-item or all (default)."),
        renamed(param_of("search_equipment", "type"), "item_type", "Same as type."),
        name_param("Item"),
        param_of("search_equipment", "rarity"),
        param_of("search_equipment", "damage_dice"),
        param_of("search_equipment", "is_simple"),
        {"requires_attunement",
         ParamType::kString,
         "Magic items needing attunement: \"requires attunement\" (or \"yes\"); \"\" (or \"no\") for items that "
         "do not.",
         {},
         {},
         {},
         json(),
         false,
         {}},
        param_of("search_equipment", "documents"),
        param_of("search_equipment", "limit")},
       output_of("search_equipment")});
  specs.push_back(
      {"lookup_rule",
       "Look up rules (older name)",
       "Older name of search_rule (prefer search_rule): rules, conditions and reference entries. Give "
       "type (or rule_type).",
       {renamed(param_of("search_rule", "rule_type"), "type",
                "rule, condition, damage-type, weapon-property, skill, ability-score, magic-school, "
                "language, proficiency or alignment (required, here or as rule_type)."),
        renamed(param_of("search_rule", "rule_type"), "rule_type", "Same as type."), name_param("Entry"),
        param_of("search_rule", "section"), param_of("search_rule", "documents"), param_of("search_rule", "limit")},
       output_of("search_rule")});
  specs.push_back({"search_dnd_content",
                   "Search everything (older name)",
                   "Older name of search_all (prefer search_all): one query across every kind of content.",
                   {param_of("search_all", "query"), param_of("search_all", "content_types"),
                    param_of("search_all", "documents"), param_of("search_all", "limit")},
                   output_of("search_all")});
  return specs;
}

// One value from two spellings of a parameter; an error when both are given and differ.
Result<json> either(const json& args, const char* a, const char* b) {
  const bool has_a = args.contains(a);
  const bool has_b = args.contains(b);
  if (has_a && has_b && args[a] != args[b]) {
    return Status::invalid_argument(std::string("Parameters '") + a + "' and '" + b +
                                    "' are the same setting but disagree: " + args[a].dump() + " and " +
                                    args[b].dump() + ".");
  }
  if (has_a) return args[a];
  if (has_b) return args[b];
  return json();
}

}  // namespace

const std::vector<ToolSpec>& legacy_tool_specs() {
  static const std::vector<ToolSpec> kSpecs = build();
  return kSpecs;
}

Result<std::pair<std::string, json>> translate_legacy_call(const std::string& name, const json& arguments) {
  json args = arguments;
  // The older tools answered with whole entries: they show results in full, within the full budget.
  if (name != "search_dnd_content") args["detail"] = "full";
  if (args.contains("name")) {
    args["search"] = args["name"];
    args.erase("name");
  }
  auto merge = [&](const char* primary, const char* alias, const char* target, bool required,
                   const char* valid) -> Status {
    auto v = either(args, primary, alias);
    if (!v) return v.status();
    args.erase(primary);
    args.erase(alias);
    if (v->is_null()) {
      if (required) {
        return Status::invalid_argument(std::string("Missing required parameter '") + primary + "' (or '" + alias +
                                        "'); one of: " + valid + ".");
      }
      return Status::ok();
    }
    args[target] = *v;
    return Status::ok();
  };
  if (name == "lookup_spell") return std::make_pair(std::string("search_spell"), args);
  if (name == "lookup_creature") {
    LOREKEEPER_RETURN_IF_ERROR(merge("cr", "challenge_rating", "cr", false, ""));
    return std::make_pair(std::string("search_creature"), args);
  }
  if (name == "lookup_character_option") {
    LOREKEEPER_RETURN_IF_ERROR(merge("type", "option_type", "type", true, "class, race, background, feat"));
    return std::make_pair(std::string("search_character_option"), args);
  }
  if (name == "lookup_equipment") {
    LOREKEEPER_RETURN_IF_ERROR(merge("type", "item_type", "type", false, ""));
    // The older tool took attunement as text; search_equipment takes a boolean.
    if (args.contains("requires_attunement") && args["requires_attunement"].is_string()) {
      const std::string v = text::fold(args["requires_attunement"].get<std::string>());
      if (v == "requires attunement" || v == "yes" || v == "true" || v == "required") {
        args["requires_attunement"] = true;
      } else if (v.empty() || v == "no" || v == "false" || v == "none") {
        args["requires_attunement"] = false;
      } else {
        return Status::invalid_argument("Parameter 'requires_attunement': unknown value '" +
                                        args["requires_attunement"].get<std::string>() +
                                        "'. Valid values: \"requires attunement\" (or \"yes\"), \"\" (or \"no\").");
      }
    }
    return std::make_pair(std::string("search_equipment"), args);
  }
  if (name == "lookup_rule") {
    LOREKEEPER_RETURN_IF_ERROR(merge("type", "rule_type", "rule_type", true,
                                     "rule, condition, damage-type, weapon-property, skill, ability-score, "
                                     "magic-school, language, proficiency, alignment"));
    return std::make_pair(std::string("search_rule"), args);
  }
  if (name == "search_dnd_content") return std::make_pair(std::string("search_all"), args);
  return Status::not_found("Unknown tool '" + name + "'.");
}

std::vector<ToolDef> legacy_rows() {
  std::vector<ToolDef> rows;
  for (const ToolSpec& spec : legacy_tool_specs()) {
    ToolDef d{spec};
    // search_dnd_content searches as search_all does: its text opens with the engine's notice too.
    d.notice_heads_text = spec.name == "search_dnd_content";
    d.forward = [name = spec.name](const json& args) -> Result<Forwarded> {
      auto current = translate_legacy_call(name, args);
      if (!current) return current.status();
      // The older tools' `name` is matched against names only, as they documented.
      const search::Match match =
          current->first == "search_all" ? search::Match::kNamesAndText : search::Match::kNamesOnly;
      return Forwarded{current->first, std::move(current->second), match};
    };
    rows.push_back(std::move(d));
  }
  return rows;
}

}  // namespace lorekeeper::tools
