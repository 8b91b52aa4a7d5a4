#include "specs.hpp"

#include <algorithm>

#include "lookup_tools.hpp"
#include "lorekeeper/model/derived.hpp"
#include "lorekeeper/model/vocabulary.hpp"
#include "lorekeeper/tools/routes.hpp"
#include "queries.hpp"
#include "search_tools.hpp"
#include "tool_table.hpp"

namespace lorekeeper::tools {

using model::Kind;

namespace {

// The game's closed sets are the model's (model/vocabulary.hpp, model/derived.hpp).
const std::vector<std::string>& kSchools = model::spell_schools();
const std::vector<std::string>& kCreatureTypes = model::creature_types();
const std::vector<std::string>& kSizes = model::sizes();
// The damage types, attack ranges and movement modes are the derived facets' own (model/derived.hpp).
const std::vector<std::string>& kDamageTypes = model::damage_type_names();
const std::vector<std::string> kAttackRanges(std::begin(model::kAttackRanges), std::end(model::kAttackRanges));
const std::vector<std::string> kMovementModes(std::begin(model::kMovementModes), std::end(model::kMovementModes));
const std::vector<std::string> kSpellEffects = {"heals", "summons", "teleports"};
const std::vector<std::string>& kRarities = model::rarities();
const std::vector<std::string> kGameSystems = {"5e-2014", "5e-2024", "a5e"};

ParamSpec search_param() {
  return {"search",
          ParamType::kString,
          "Name or words. An exact name answers that entry alone (every edition); other words match names (typos "
          "forgiven), text and meaning, best first.",
          {},
          {},
          {},
          json(),
          false,
          {}};
}
}  // namespace

ParamSpec documents_param() {
  ParamSpec p{
      "documents",
      ParamType::kStringArray,
      "Source documents by key (\"srd-2014\", \"srd-2024\", \"tob\") or name; see list_documents. Omitted: all.",
      {},
      {},
      {},
      json(),
      false,
      {}};
  p.max_length = kMaxDocumentNameLength;
  return p;
}
ParamSpec game_system_param() {
  return {"game_system",
          ParamType::kString,
          "Edition: 5e-2014 (SRD 5.1), 5e-2024 (SRD 5.2) or a5e (Level Up).",
          kGameSystems,
          {},
          {},
          json(),
          false,
          {{"2014", "5e-2014"}, {"2024", "5e-2024"}, {"5e", "5e-2014"}}};
}
namespace {

ParamSpec detail_param() {
  return {"detail",
          ParamType::kString,
          "standard (the default, about 16,000 characters): the first result in full, the next two in full when "
          "they fit (a long stat block leaves room for one), the rest one line each; summary: one line each; full "
          "(about 40,000 characters): every result in full that fits, the rest one line each. A result that must "
          "be shortened loses a creature's lore first, then the sentences that state no rules, and only then has "
          "its longest texts cut; it names what it left out, and get_entity(key) gives the entry whole.",
          {"summary", "standard", "full"},
          {},
          {},
          json("standard"),
          false,
          {}};
}
ParamSpec limit_param(int def = 20) {
  return {"limit", ParamType::kInteger, "Maximum results.", {}, 1, 100, json(def), false, {}};
}
ParamSpec bool_param(const char* name, const char* desc) {
  return {name, ParamType::kBoolean, desc, {}, {}, {}, json(), false, {}};
}
ParamSpec int_param(const char* name, const char* desc, double lo, double hi) {
  return {name, ParamType::kInteger, desc, {}, lo, hi, json(), false, {}};
}
ParamSpec num_param(const char* name, const char* desc, double lo, double hi) {
  return {name, ParamType::kNumber, desc, {}, lo, hi, json(), false, {}};
}
ParamSpec str_param(const char* name, const char* desc, std::vector<std::string> values = {}, bool required = false,
                    json def = json()) {
  return {name, ParamType::kString, desc, std::move(values), {}, {}, std::move(def), required, {}};
}
ParamSpec cr_param(const char* name, const char* desc) {
  return {name, ParamType::kFraction, desc, {}, 0, 30, json(), false, {}};
}
// A kind of entry by its name (model::kind_name), or a plural or older name ("monster", "race", "magicitem").
ParamSpec kind_param(const char* name, const char* desc, ParamType type = ParamType::kString) {
  ParamSpec p{name, type, desc, {}, {}, {}, json(), false, {}};
  for (Kind k : model::all_kinds()) p.enum_values.emplace_back(model::kind_name(k));
  for (const char* synonym :
       {"spells",     "creatures",  "monster",     "monsters",   "classes",      "subclass", "race",        "races",
        "subrace",    "subspecies", "backgrounds", "feats",      "weapons",      "items",    "magic-items", "magicitem",
        "magicitems", "rules",      "ruleset",     "conditions", "magic-school", "ability",  "abilities"}) {
    if (auto k = model::parse_kind(synonym)) p.aliases.emplace_back(synonym, std::string(model::kind_name(*k)));
  }
  return p;
}

// search_all's kinds: every kind name, and "equipment" (weapons, armor, gear and magic items); "item" there means
// gear and magic items alike.
ParamSpec content_types_param() {
  ParamSpec p = kind_param("content_types",
                           "Kinds to search; default: all. \"item\" is gear and magic items, \"equipment\" "
                           "adds weapons and armor.",
                           ParamType::kStringArray);
  p.enum_values.emplace_back("equipment");
  return p;
}

ojson document_schema() {
  return {{"type", "object"},
          {"properties",
           {{"key", {{"type", "string"}}},
            {"name", {{"type", "string"}}},
            {"publisher", {{"type", "string"}}},
            {"license", {{"type", "string"}}},
            {"game_system", {{"type", "string"}}}}},
          {"required", {"key", "name"}}};
}

ojson result_item_schema() {
  return {{"type", "object"},
          {"properties",
           {{"key", {{"type", "string"}}},
            {"name", {{"type", "string"}}},
            {"kind", {{"type", "string"}}},
            {"document", document_schema()},
            {"source_api", {{"type", "string"}}},
            {"url", {{"type", "string"}}},
            {"_score", {{"type", "number"}, {"minimum", 0}, {"maximum", 1}}},
            {"_other_editions",
             {{"type", "array"},
              {"items",
               {{"type", "object"},
                {"properties", {{"key", {{"type", "string"}}}, {"document", {{"type", "string"}}}}},
                {"required", {"key", "document"}}}}}}}},
          {"required", {"key", "name", "kind", "document", "source_api", "url"}}};
}

ojson common_output_props() {
  return {{"message", {{"type", "string"}}},
          {"total", {{"type", "integer"}}},
          {"filters", {{"type", "object"}}},
          {"understood", {{"type", "array"}, {"items", {{"type", "string"}}}}}};
}

}  // namespace

ojson object_answer_schema(ojson result) {
  ojson props = common_output_props();
  props["result"] = std::move(result);
  return {{"type", "object"}, {"properties", props}, {"required", {"result", "total"}}};
}

namespace {

ojson list_output_schema() {
  ojson props = common_output_props();
  props["result"] = {{"type", "array"}, {"items", result_item_schema()}};
  return {{"type", "object"}, {"properties", props}, {"required", {"result"}}};
}

ojson grouped_output_schema() {
  ojson props = common_output_props();
  props["result"] = {{"type", "object"},
                     {"additionalProperties", {{"type", "array"}, {"items", result_item_schema()}}}};
  return {{"type", "object"}, {"properties", props}, {"required", {"result"}}};
}

ojson entity_output_schema() {
  ojson props = common_output_props();
  props["result"] = result_item_schema();
  return {{"type", "object"}, {"properties", props}, {"required", {"result"}}};
}

ojson documents_output_schema() {
  ojson item = {{"type", "object"},
                {"properties",
                 {{"document", {{"type", "string"}}},
                  {"name", {{"type", "string"}}},
                  {"source_api", {{"type", "string"}}},
                  {"publisher", {{"type", "string"}}},
                  {"license", {{"type", "string"}}},
                  {"game_system", {{"type", "string"}}},
                  {"entity_count", {{"type", "integer"}}},
                  {"entity_types", {{"type", "object"}}}}},
                {"required", {"document", "name", "source_api", "entity_count", "entity_types"}}};
  ojson props = common_output_props();
  props["result"] = {{"type", "array"}, {"items", item}};
  return {{"type", "object"}, {"properties", props}, {"required", {"result"}}};
}

// A search tool's row: it ranks, and its answer is a list whose text opens with the engine's notice.
ToolDef search_row(ToolSpec spec, QueryBuilder build, bool top_level_default) {
  ToolDef d{std::move(spec)};
  d.ranks = true;
  d.notice_heads_text = true;
  d.run = [build = std::move(build), top_level_default](const ToolCall& c) {
    return run_search_tool(*c.st, c.args, build, top_level_default, c.match, c.ctx);
  };
  return d;
}

std::vector<ToolSpec> build_specs() {
  std::vector<ToolSpec> specs;
  specs.push_back(
      {"search_spell",
       "Search spells",
       "Find spells by name, words of their text or meaning (search \"talk to animals\"), filtered by level, "
       "school, class, concentration, ritual, casting time, damage type, the condition it inflicts, the save it "
       "calls for and its effect (inflicts_condition \"paralyzed\").",
       {search_param(), int_param("level", "Spell level, 0 (cantrip) to 9.", 0, 9),
        int_param("level_min", "Minimum spell level (0-9).", 0, 9),
        int_param("level_max", "Maximum spell level (0-9).", 0, 9), str_param("school", "Magic school.", kSchools),
        str_param("class_key", "Class that can cast it, by name or key (e.g. \"wizard\", \"cleric\")."),
        bool_param("concentration", "true: only concentration spells; false: none."),
        bool_param("ritual", "true: only rituals; false: none."),
        str_param("casting_time",
                  "Casting time, e.g. \"1 Action\", \"1 Bonus Action\", \"Reaction\", \"1 Minute\", "
                  "\"10 Minutes\", \"1 Hour\"."),
        str_param("damage_type", "Damage type the spell deals.", kDamageTypes),
        str_param("inflicts_condition", "Condition the spell can inflict.", model::condition_names()),
        str_param("save_ability", "Ability of the saving throw it calls for.", model::ability_names()),
        str_param("effect", "What it does besides damage.", kSpellEffects), documents_param(), game_system_param(),
        detail_param(), limit_param()},
       list_output_schema()});
  specs.push_back(
      {"search_creature",
       "Search creatures",
       "Find monsters (stat blocks) by name, words or meaning (search \"turns people to stone\"), filtered by "
       "challenge rating, type, size, armor class, hit points and what they do: spells cast, conditions inflicted, "
       "damage dealt, saves called for, attack range (casts_spell \"fireball\").",
       {search_param(),
        cr_param("cr", "Exact challenge rating: 0, \"1/8\", \"1/4\", \"1/2\" or 1-30."),
        cr_param("cr_min", "Lowest challenge rating (as cr)."),
        cr_param("cr_max", "Highest challenge rating (as cr)."),
        str_param("type", "Creature type.", kCreatureTypes),
        str_param("size", "Size category.", kSizes),
        int_param("armor_class_min", "Minimum armor class.", 0, 50),
        int_param("hit_points_min", "Minimum hit points.", 0, 10000),
        str_param("casts_spell", "A spell it can cast, by name."),
        str_param("inflicts_condition", "Condition it can inflict, itself or by a spell it casts.",
                  model::condition_names()),
        str_param("deals_damage_type", "Damage type it deals, itself or by a spell it casts.", kDamageTypes),
        str_param("save_ability", "Ability of a saving throw it calls for.", model::ability_names()),
        str_param("attack_range", "Has an attack of this range (reach: 10 ft. or more).", kAttackRanges),
        str_param("movement", "Has a speed of this kind.", kMovementModes),
        str_param("environment",
                  "Its record lists this environment (\"swamp\", \"underworld\", \"forest\"); records that list "
                  "(nearly) every environment follow those that name it. Only some documents' records list "
                  "environments (SRD 5.1, Tome of Beasts, Creature Codex); the answer names those searched that "
                  "list none."),
        bool_param("legendary", "true: only creatures with legendary actions; false: none."),
        bool_param("spellcaster", "true: only creatures that cast spells; false: none."),
        documents_param(),
        game_system_param(),
        detail_param(),
        limit_param()},
       list_output_schema()});
  specs.push_back({"search_character_option",
                   "Search character options",
                   "Find classes (with subclasses and their table by level), species (with subspecies), backgrounds "
                   "and feats by name, words or meaning (type \"feat\", search \"better at grappling\").",
                   {str_param("type", "Kind of option (\"race\" and \"species\" are one); omitted: all four.",
                              type_values("search_character_option")),
                    search_param(), documents_param(), game_system_param(), detail_param(), limit_param()},
                   list_output_schema()});
  {
    std::vector<std::string> equipment_types = type_values("search_equipment");
    equipment_types.push_back("all");
    ToolSpec s{"search_equipment",
               "Search equipment",
               "Find weapons, armor, gear and magic items by name, words or meaning (search \"cloak that makes "
               "you invisible\"); weapon filters (damage_dice, is_*) select weapons, rarity and requires_attunement "
               "magic items.",
               {str_param("type", "Equipment kind; item is mundane gear.", equipment_types, false, json("all")),
                search_param(), str_param("rarity", "Magic item rarity.", kRarities),
                str_param("damage_dice", "Weapon damage dice, e.g. \"1d8\", \"2d6\"."),
                bool_param("is_simple", "true: simple weapons; false: martial weapons."),
                bool_param("requires_attunement", "true: magic items that need attunement; false: those that do not."),
                bool_param("is_light", "Weapons with the Light property."),
                bool_param("is_versatile", "Weapons with the Versatile property."),
                bool_param("is_thrown", "Weapons with the Thrown property."),
                bool_param("is_finesse", "Weapons with the Finesse property."),
                bool_param("is_two_handed", "Weapons with the Two-Handed property."),
                num_param("cost_min", "Minimum cost in gold pieces.", 0, 1e9),
                num_param("cost_max", "Maximum cost in gold pieces.", 0, 1e9),
                num_param("weight_max", "Maximum weight in pounds.", 0, 1e6), documents_param(), game_system_param(),
                detail_param(), limit_param()},
               list_output_schema()};
    s.params[0].aliases = {
        {"magic item", "magic-item"}, {"magicitem", "magic-item"}, {"weapons", "weapon"}, {"gear", "item"}};
    s.params[2].aliases = {{"very-rare", "very rare"}};
    specs.push_back(std::move(s));
  }
  specs.push_back(
      {"search_rule",
       "Search rules and reference",
       "Find rules, conditions and reference entries (damage types, weapon properties, skills, abilities, "
       "languages, sizes, ...) by name, words or meaning (search \"falling damage\").",
       {str_param("rule_type", "Kind of entry; omitted: every kind (give search).", type_values("search_rule")),
        search_param(),
        str_param("section",
                  "For rule_type=rule: rules section, e.g. \"combat\", \"spellcasting\", "
                  "\"adventuring\"."),
        documents_param(), game_system_param(), detail_param(), limit_param()},
       list_output_schema()});
  specs.push_back({"search_all",
                   "Search everything",
                   "Search every kind at once by name, words or meaning, grouped by kind; when the kind is known, "
                   "its own search_* tool filters better.",
                   {{"query", ParamType::kString, "Name or words to look for.", {}, {}, {}, json(), true, {}},
                    content_types_param(),
                    documents_param(),
                    game_system_param(),
                    detail_param(),
                    {"limit",
                     ParamType::kInteger,
                     "Maximum results per kind (1-100); 50 in all at most.",
                     {},
                     1,
                     100,
                     json(5),
                     false,
                     {}}},
                   grouped_output_schema()});
  specs.push_back(
      {"get_entity",
       "Get one entry",
       "One entry in full by its key (from a search result), e.g. \"srd_fireball\"; a name only one entry has is "
       "taken as its key (a name of several entries lists their keys).",
       {str_param("key", "The entry's key.", {}, true), kind_param("kind", "Its kind, when a key exists in several."),
        bool_param("include_source",
                   "Also return the original source record (and the v1 record that completed it, for a creature "
                   "Open5e keeps in both API versions).")},
       entity_output_schema()});
  specs.push_back({"find_similar",
                   "Find similar entries",
                   "Entries of the same kind most like a given one (by key or name); the entry itself and its "
                   "other editions are left out.",
                   {str_param("key", "Key of the reference entry."),
                    str_param("name", "Name of the reference entry (used when no key is given)."),
                    kind_param("kind", "Kind of the reference entry, to disambiguate a name."), documents_param(),
                    game_system_param(), detail_param(), limit_param(10)},
                   list_output_schema()});
  specs.push_back({"list_documents",
                   "List source documents",
                   "The source documents (books, SRDs, homebrew packs) in the store with entity counts; use their "
                   "keys in `documents`.",
                   {str_param("source", "Only documents from this source.", {"open5e_v2", "open5e_v1", "orcbrew"})},
                   documents_output_schema()});
  return specs;
}

}  // namespace

// The search tools' and lookups' rows, in tools/list order (the order of build_specs).
std::vector<ToolDef> search_tool_rows() {
  std::vector<ToolSpec> specs = build_specs();
  auto take = [&specs](std::string_view name) {
    auto it = std::find_if(specs.begin(), specs.end(), [&](const ToolSpec& s) { return s.name == name; });
    return it != specs.end() ? std::move(*it) : ToolSpec{std::string(name), "", "", {}, ojson::object()};
  };
  std::vector<ToolDef> rows;
  rows.push_back(search_row(take("search_spell"), spell_query, false));
  rows.push_back(search_row(take("search_creature"), creature_query, false));
  rows.push_back(search_row(take("search_character_option"), character_option_query, true));
  rows.push_back(search_row(take("search_equipment"), equipment_query, false));
  rows.push_back(search_row(take("search_rule"), rule_query, false));
  ToolDef all{take("search_all")};
  all.empty_store = EmptyStoreAnswer::kEmptyByKind;
  all.ranks = all.notice_heads_text = true;
  all.run = [](const ToolCall& c) { return search_all(*c.st, c.args, c.ctx); };
  rows.push_back(std::move(all));
  ToolDef entity{take("get_entity")};
  entity.empty_store = EmptyStoreAnswer::kError;
  entity.run = [](const ToolCall& c) { return get_entity(*c.st, c.args, c.ctx.preferred_edition); };
  rows.push_back(std::move(entity));
  ToolDef similar{take("find_similar")};
  similar.empty_store = EmptyStoreAnswer::kError;
  similar.ranks = similar.notice_heads_text = true;
  similar.run = [](const ToolCall& c) { return find_similar(*c.st, c.args, c.ctx); };
  rows.push_back(std::move(similar));
  ToolDef documents{take("list_documents")};
  documents.run = [](const ToolCall& c) { return list_documents(*c.st, c.args); };
  rows.push_back(std::move(documents));
  return rows;
}

}  // namespace lorekeeper::tools
