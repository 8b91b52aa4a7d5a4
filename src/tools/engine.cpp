#include "lorekeeper/tools/engine.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <future>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <tuple>

#include "compare_tool.hpp"
#include "count_tool.hpp"
#include "gm_tools.hpp"
#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/core/log.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/gm/encounter_math.hpp"
#include "lorekeeper/model/derived.hpp"
#include "lorekeeper/model/hints.hpp"
#include "lorekeeper/search/ranker.hpp"
#include "lorekeeper/search/similar.hpp"
#include "lorekeeper/tools/legacy.hpp"
#include "lorekeeper/tools/render.hpp"
#include "related.hpp"

namespace lorekeeper::tools {

using model::Entity;
using model::Kind;
using store::Query;

namespace {

// Answer budgets, in characters of text plus structuredContent (about four characters a token): a default
// (`detail` standard) answer stays under about 4,000 tokens, a `detail` full one under about 20,000, well under
// the 25,000-token limit hosts enforce on a tool result.
constexpr size_t kStandardBudget = 16000;
constexpr size_t kFullBudget = 80000;
// Results a standard answer shows in full; the others are one line each.
constexpr size_t kStandardInFull = 3;
// The shortest a text field of the first result is cut to while it does not fit (it is shown in full whatever
// the room; get_entity gives the rest).
constexpr size_t kFirstFieldFloor = 100;
// The longest text field an answer carries, per detail; longer ones are cut where a word ends and say so.
constexpr size_t kStandardFieldChars = 3000;
constexpr size_t kFullFieldChars = 20000;
// search_all's results in all (its `limit` is per kind).
constexpr int kMaxAllResults = 50;

// ---------------------------------------------------------------------------------------------------------
// Parameter and tool specifications.

const std::vector<std::string> kSchools = {"abjuration", "conjuration", "divination", "enchantment",
                                           "evocation",  "illusion",    "necromancy", "transmutation"};
const std::vector<std::string> kCreatureTypes = {"aberration",  "beast", "celestial", "construct", "dragon",
                                                 "elemental",   "fey",   "fiend",     "giant",     "humanoid",
                                                 "monstrosity", "ooze",  "plant",     "undead"};
const std::vector<std::string> kSizes = {"Tiny", "Small", "Medium", "Large", "Huge", "Gargantuan"};
const std::vector<std::string> kDamageTypes = {"acid",      "bludgeoning", "cold",     "fire",   "force",
                                               "lightning", "necrotic",    "piercing", "poison", "psychic",
                                               "radiant",   "slashing",    "thunder"};
const std::vector<std::string> kAttackRanges = {"melee", "ranged", "reach"};
const std::vector<std::string> kMovementModes(std::begin(model::kMovementModes), std::end(model::kMovementModes));
const std::vector<std::string> kSpellEffects = {"heals", "summons", "teleports"};
const std::vector<std::string> kRarities = {"common", "uncommon", "rare", "very rare", "legendary", "artifact"};
const std::vector<std::string> kCastingTimes = {"action",   "bonus-action", "reaction", "turn",   "round",  "1minute",
                                                "5minutes", "10minutes",    "1hour",    "4hours", "7hours", "8hours",
                                                "9hours",   "12hours",      "24hours",  "1week"};
const std::vector<std::string> kGameSystems = {"5e-2014", "5e-2024", "a5e"};
const std::vector<std::string> kRuleTypes = {"rule",          "condition",     "damage-type",   "weapon-property",
                                             "skill",         "ability-score", "magic-school",  "language",
                                             "proficiency",   "alignment",     "rule-section",  "size",
                                             "creature-type", "item-rarity",   "item-category", "environment"};

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
ParamSpec documents_param() {
  return {"documents",
          ParamType::kStringArray,
          "Source documents by key (\"srd-2014\", \"srd-2024\", \"tob\") or name; see list_documents. Omitted: all.",
          {},
          {},
          {},
          json(),
          false,
          {}};
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
ParamSpec detail_param() {
  return {"detail",
          ParamType::kString,
          "standard: the first 3 results in full, the rest one line each; summary: one line each; full: all in full.",
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
        str_param("inflicts_condition", "Condition it can inflict.", model::condition_names()),
        str_param("deals_damage_type", "Damage type it deals, itself or by a spell it casts.", kDamageTypes),
        str_param("save_ability", "Ability of a saving throw it calls for.", model::ability_names()),
        str_param("attack_range", "Has an attack of this range (reach: 10 ft. or more).", kAttackRanges),
        str_param("movement", "Has a speed of this kind.", kMovementModes),
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
                   {str_param("type", "Kind of option; omitted: all four.", {"class", "race", "background", "feat"}),
                    search_param(), documents_param(), game_system_param(), detail_param(), limit_param()},
                   list_output_schema()});
  {
    ToolSpec s{"search_equipment",
               "Search equipment",
               "Find weapons, armor, gear and magic items by name, words or meaning (search \"cloak that makes "
               "you invisible\"); weapon filters (damage_dice, is_*) select weapons, rarity and requires_attunement "
               "magic items.",
               {str_param("type", "Equipment kind; item is mundane gear.",
                          {"weapon", "armor", "magic-item", "item", "all"}, false, json("all")),
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
       {str_param("rule_type", "Kind of entry; omitted: every kind (give search).", kRuleTypes), search_param(),
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
       "One entry in full by its key (from a search result), e.g. \"srd_fireball\".",
       {str_param("key", "The entry's key.", {}, true), kind_param("kind", "Its kind, when a key exists in several."),
        bool_param("include_source", "Also return the original source record.")},
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
  for (auto& s : gm_tools::specs(specs[1].params)) specs.push_back(std::move(s));
  specs.push_back(count_tool::spec());
  specs.push_back(compare_tool::spec());
  return specs;
}

// ---------------------------------------------------------------------------------------------------------
// Helpers.

json document_json(const model::Document& d) {
  json j = {{"key", d.key}, {"name", d.name}};
  if (!d.display_name.empty()) j["display_name"] = d.display_name;
  if (!d.publisher.empty()) j["publisher"] = d.publisher;
  if (!d.license.empty()) j["license"] = d.license;
  if (!d.game_system.empty()) j["game_system"] = d.game_system;
  return j;
}

json to_result(const Entity& e) {
  json r = e.data.is_object() ? e.data : json::object();
  r["key"] = e.key;
  r["name"] = e.name;
  r["kind"] = std::string(model::kind_name(e.kind));
  r["document"] = document_json(e.document);
  r["source_api"] = e.source_api;
  r["url"] = e.url;
  return r;
}

// How much of each result an answer shows (the search tools' `detail`).
enum class Detail { kSummary, kStandard, kFull };

// One result as a summary: what identifies it and the kind's key facts (level and school, CR and type, rarity,
// category, cost), marked `summarized`, with its `_score` (search_all's groups are ordered across kinds by it);
// get_entity gives it in full. With `reasons`, also why it ranked there (`_matched`, a snippet of the text that
// matched); an answer without room for them leaves them out (see one_line).
json summary_of(const json& r, bool reasons = true) {
  // Every result names its source: the document (key, name, publisher, licence, game system), the source API and
  // the API URL it came from. The document's display name is left to the entry in full.
  json doc = json::object();
  for (const char* f : {"key", "name", "publisher", "license", "game_system"}) {
    if (r["document"].contains(f)) doc[f] = r["document"][f];
  }
  json s = {
      {"key", r["key"]}, {"name", r["name"]}, {"kind", r["kind"]}, {"document", doc}, {"source_api", r["source_api"]},
      {"url", r["url"]}, {"summarized", true}};
  // The kind's key facts: a spell's level, school and casting; a creature's CR, size and type; an item's
  // category, rarity and cost; a weapon's range, dice and damage; an armor's class. The rest is get_entity's.
  const std::string kind = r.value("kind", "");
  const auto keep = [&](const char* fact) {
    if (r.contains(fact) && !r[fact].is_null() && !r[fact].is_object()) s[fact] = r[fact];
  };
  for (const char* fact : {"level", "school", "concentration", "ritual", "casting_time", "challenge_rating", "size",
                           "type", "rarity", "requires_attunement", "category", "is_melee", "cost_gp", "subclass_of",
                           "subspecies_of", "section", "_score", "_other_editions"}) {
    keep(fact);
  }
  if (reasons) {
    for (const char* why : {"_matched", "_snippet"}) keep(why);
  }
  if (kind == "weapon") {
    keep("damage_dice");
    keep("damage_type");
  }
  if (kind == "armor") keep("armor_class");
  // A one-line result's snippet says why it matched in a phrase, not a paragraph: cut where a word ends.
  constexpr size_t kSummarySnippet = 80;
  if (s.contains("_snippet") && s["_snippet"].is_string() &&
      s["_snippet"].get<std::string>().size() > kSummarySnippet) {
    s["_snippet"] = text::cut_at_word(s["_snippet"].get<std::string>(), kSummarySnippet) + "...";
  }
  return s;
}

// Cuts every text field of `r` longer than `max_chars` where a word ends, marking the result `truncated`: one
// entity of any size (a homebrew description of megabytes) stays within an answer's budget.
void clip_fields(json& r, size_t max_chars) {
  bool clipped = false;
  std::function<void(json&)> walk = [&](json& v) {
    if (v.is_string()) {
      std::string& t = v.get_ref<std::string&>();
      if (t.size() <= max_chars) return;
      t = text::cut_at_word(t, max_chars) + " […]";
      clipped = true;
    } else if (v.is_array() || v.is_object()) {
      for (auto& x : v) walk(x);
    }
  };
  walk(r);
  if (clipped) r["truncated"] = "Long text is cut short here ([…]); get_entity with detail full shows more.";
}

double round3(double v) { return std::round(v * 1000.0) / 1000.0; }

std::string str_arg(const json& args, const char* name);

Detail detail_of(const json& args) {
  const std::string d = str_arg(args, "detail");
  return d == "summary" ? Detail::kSummary : d == "full" ? Detail::kFull : Detail::kStandard;
}

// One result whole: its text fields cut at `cap` characters, then at half as many again and again while its
// Markdown (`render`) and JSON together exceed `room`, until the cap falls below `floor`. `fits` says whether it
// ended within `room`.
struct Whole {
  json result;
  std::string text;
  bool fits = false;
};
Whole whole_within(const json& r, size_t cap, size_t room, size_t floor,
                   const std::function<std::string(const json&)>& render) {
  for (;; cap /= 2) {
    Whole w{r, {}, false};
    clip_fields(w.result, cap);
    if (render) w.text = render(w.result);
    w.fits = w.text.size() + w.result.dump().size() <= room;
    if (w.fits || cap < floor) return w;
  }
}

// Room left in a budget once `used` and `reserve` are spent.
size_t room_left(size_t budget, size_t used, size_t reserve) {
  return budget > used + reserve ? budget - used - reserve : 0;
}

// What one-line results cost, in characters of their Markdown line and their summary, with their reasons and
// without them.
struct LineCosts {
  std::vector<size_t> full;           // per result, with its reasons
  std::vector<size_t> compact;        // per result, without them
  std::vector<size_t> full_after;     // the lines with reasons of the results from i on
  std::vector<size_t> compact_after;  // the compact lines of the results from i on: what those after one keep
};
size_t line_cost(const json& s) { return render_summary_line(s).size() + 3 + s.dump().size(); }
LineCosts line_costs(const std::vector<json>& results) {
  LineCosts c;
  c.full_after.assign(results.size() + 1, 0);
  c.compact_after.assign(results.size() + 1, 0);
  for (const auto& r : results) {
    c.full.push_back(line_cost(summary_of(r, true)));
    c.compact.push_back(line_cost(summary_of(r, false)));
  }
  for (size_t i = results.size(); i-- > 0;) {
    c.full_after[i] = c.full_after[i + 1] + c.full[i];
    c.compact_after[i] = c.compact_after[i + 1] + c.compact[i];
  }
  return c;
}

// Result i as one line: with its reasons while the budget holds them and the compact lines of the results after
// it; compact past that, so a list of many results stays within the budget as long as its compact lines do.
json one_line(const json& r, size_t i, const LineCosts& c, size_t budget, size_t used) {
  return summary_of(r, used + c.full[i] + c.compact_after[i + 1] <= budget);
}

// Assembles a list answer: Markdown of each result within the budget, summaries past it.
ToolResult list_answer(std::vector<json> results, const std::string& header, std::string message, int total,
                       const json& filters, Detail detail) {
  ToolResult out;
  const size_t budget = detail == Detail::kFull ? kFullBudget : kStandardBudget;
  // What the envelope costs: the header, notes and filters, with room for the notes added below.
  size_t used = header.size() + message.size() + filters.dump().size() + 400;
  std::string body;
  std::vector<json> shown;
  size_t summarized = 0;
  // What each result costs as one line (its Markdown line and its summary object): the results after one shown
  // in full keep the room their lines with reasons take, so the results in full never push the answer past the
  // budget. One-line results are never dropped: past the budget they lose their reasons, and an answer with more
  // compact lines than the budget holds is that much larger.
  const LineCosts costs = line_costs(results);
  for (size_t i = 0; i < results.size(); ++i) {
    json& r = results[i];
    const bool in_full = detail == Detail::kFull || (detail == Detail::kStandard && i < kStandardInFull);
    if (in_full) {
      // The first result is always shown in full, its long fields cut shorter until it fits; it keeps its text
      // before the lines after it keep their reasons. The others in full yield to the lines with reasons.
      const size_t reserve = i == 0 ? costs.compact_after[1] : costs.full_after[i + 1];
      Whole w = whole_within(r, detail == Detail::kFull ? kFullFieldChars : kStandardFieldChars,
                             room_left(budget, used, reserve), i == 0 ? kFirstFieldFloor : SIZE_MAX,
                             [](const json& c) { return render_entity(c) + "\n---\n\n"; });
      if (w.fits || i == 0) {
        used += w.text.size() + w.result.dump().size();
        body += w.text;
        shown.push_back(std::move(w.result));
        continue;
      }
    }
    // Results are never dropped: past the budget they are one line each (a few hundred characters).
    json s = one_line(r, i, costs, budget, used);
    std::string line = "- " + render_summary_line(s) + "\n";
    used += line.size() + s.dump().size();
    if (detail != Detail::kSummary) ++summarized;
    body += line;
    shown.push_back(std::move(s));
  }
  if (summarized > 0) {
    std::string note =
        std::to_string(summarized) + " result(s) are shown as one line; get_entity(key) gives one in full";
    note += detail == Detail::kFull ? "." : ", detail \"full\" more of them.";
    message = message.empty() ? note : message + " " + note;
  }
  out.text = header + "\n";
  if (!message.empty()) out.text += message + "\n";
  out.text += "\n" + body;
  out.structured = {{"result", std::move(shown)}, {"total", total}, {"filters", filters}};
  if (!message.empty()) out.structured["message"] = message;
  return out;
}

// "class" -> "classes", "species" and "armor" unchanged, "spell" -> "spells".
std::string plural_of(const std::string& noun) {
  auto ends_with = [&](std::string_view tail) {
    return noun.size() >= tail.size() && noun.compare(noun.size() - tail.size(), tail.size(), tail) == 0;
  };
  if (ends_with("species") || ends_with("armor")) return noun;
  if (!noun.empty() && (noun.back() == 's' || noun.back() == 'x')) return noun + "es";
  return noun + "s";
}

std::string plural(const std::string& kind_label, int n) {
  return std::to_string(n) + " " + (n == 1 ? kind_label : plural_of(kind_label));
}

// Known aliases for document keys: older LoreKeeper examples and Open5e v1 slugs.
const std::map<std::string, std::string>& document_aliases() {
  static const std::map<std::string, std::string> kAliases = {
      {"srd-5e", "srd-2014"},  {"srd5e", "srd-2014"},   {"wotc-srd", "srd-2014"}, {"srd-5-1", "srd-2014"},
      {"srd-5-2", "srd-2024"}, {"menagerie", "a5e-mm"}, {"blackflag", "bfrd"},    {"cc", "ccdx"},
      {"dmag", "deepm"},       {"dmag-e", "deepmx"},    {"a5e", "a5e-ag"},        {"taldorei", "tdcs"},
      {"o5e", "open5e"},       {"warlock", "wz"},
  };
  return kAliases;
}

struct DocFilter {
  std::optional<std::vector<std::string>> keys;  // nullopt: no constraint
  std::string message;                           // set when something was not understood
  bool select_nothing = false;                   // `documents: []` or nothing known
};

DocFilter resolve_documents(store::Store& st, const json& args) {
  DocFilter f;
  if (!args.contains("documents")) return f;
  const json& values = args["documents"];
  if (values.empty()) {
    f.keys = std::vector<std::string>{};
    f.select_nothing = true;
    f.message =
        "documents is an empty list, so no source is searched. Omit documents (or pass null) to search "
        "every source.";
    return f;
  }
  auto docs = st.documents();
  std::vector<model::Document> known;
  if (docs) {
    for (const auto& d : *docs) known.push_back(d.document);
  }
  std::vector<std::string> keys;
  std::vector<std::string> unknown;
  for (const auto& v : values) {
    const std::string given = v.get<std::string>();
    const std::string g = text::fold(given);
    std::string match;
    for (const auto& d : known) {
      if (d.key == given) match = d.key;
    }
    if (match.empty()) {
      for (const auto& d : known) {
        if (text::fold(d.key) == g || text::fold(d.name) == g ||
            (!d.display_name.empty() && text::fold(d.display_name) == g)) {
          match = d.key;
          break;
        }
      }
    }
    if (match.empty()) {
      if (auto it = document_aliases().find(model::slug(given)); it != document_aliases().end()) {
        for (const auto& d : known) {
          if (d.key == it->second) match = d.key;
        }
      }
    }
    if (match.empty())
      unknown.push_back(given);
    else if (std::find(keys.begin(), keys.end(), match) == keys.end())
      keys.push_back(match);
  }
  f.keys = keys;
  if (!unknown.empty()) {
    // Closest known documents, by edit distance on folded keys and names.
    std::vector<std::pair<int, std::string>> scored;
    for (const auto& d : known) {
      int best = 1000;
      for (const auto& u : unknown) {
        best = std::min({best, text::edit_distance(text::fold(u), text::fold(d.key), 20),
                         text::edit_distance(text::fold(u), text::fold(d.name), 20)});
      }
      scored.push_back({best, d.key});
    }
    std::sort(scored.begin(), scored.end());
    std::vector<std::string> close;
    for (size_t i = 0; i < scored.size() && i < 5; ++i) close.push_back(scored[i].second);
    f.message = "Unknown document(s): " + text::join(unknown, ", ") + ". Closest known: " + text::join(close, ", ") +
                " (see list_documents).";
  }
  if (keys.empty()) f.select_nothing = true;
  return f;
}

// Closest names of the given kinds to `search`, for "did you mean" messages.
std::vector<std::string> closest_names(store::Store& st, const std::vector<Kind>& kinds, const std::string& search,
                                       size_t max) {
  const std::string q = text::fold(search);
  const int budget = std::max(2, static_cast<int>(q.size()) / 3);
  std::vector<std::pair<int, std::string>> scored;
  std::set<std::string> seen;
  Status visited = st.for_each_name(kinds, [&](const store::NameEntry& n) {
    const std::string& f = n.name_fold;
    if (!seen.insert(f).second) return true;
    int d = text::edit_distance(q, f, budget);
    // A query that is a prefix of a word in the name counts as close.
    if (d > budget && f.find(q.substr(0, std::min<size_t>(q.size(), 4))) == 0) d = budget;
    if (d <= budget) scored.push_back({d, n.name});
    return true;
  });
  if (!visited.is_ok()) return {};
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && out.size() < max; ++i) out.push_back(scored[i].second);
  return out;
}

using search::Match;
using search::OnExactName;

// find_similar: how alike (search::similar_to's score) a neighbour must be to the reference.
constexpr double kSimilarFloor = 0.25;

// What a search may use besides the store: the meaning-based index, the rankings to apply, the preferred
// edition, and the call's query embeddings.
struct SearchContext {
  Ranking ranking = Ranking::kHybrid;
  std::string preferred_edition{model::kDefaultPreferredEdition};
  search::QueryEmbeddings embeddings{nullptr};  // its semantic(): the meaning-based service, or null
};

// A ranking as the tools answer it: each hit as a result object with its score, reasons and snippet.
struct Found {
  std::vector<json> results;
  int total = 0;
  std::string how;
  int exact_total = 0;
  bool semantic = false;
  std::string note;
  std::vector<search::QueryFacet> understood;
};

Result<Found> find(store::Store& st, Query q, const std::string& search, int limit, Match match = Match::kNamesAndText,
                   const SearchContext& ctx = {}, OnExactName on_exact = OnExactName::kOnlyIt) {
  search::RankOptions options;
  options.match = match;
  options.on_exact = on_exact;
  options.ranking = ctx.ranking;
  options.embeddings = ctx.embeddings.semantic() ? &ctx.embeddings : nullptr;
  options.preferred_edition = ctx.preferred_edition;
  auto ranked = search::rank(st, std::move(q), search, limit, options);
  if (!ranked) return ranked.status();
  Found out;
  out.total = ranked->total;
  out.how = std::move(ranked->how);
  out.exact_total = ranked->exact_total;
  out.semantic = ranked->semantic;
  out.note = std::move(ranked->note);
  out.understood = std::move(ranked->understood);
  for (auto& h : ranked->hits) {
    json r = to_result(h.entity);
    if (h.score) r["_score"] = round3(*h.score);
    if (!h.matched.empty()) r["_matched"] = h.matched;
    if (!h.snippet.empty()) r["_snippet"] = std::move(h.snippet);
    out.results.push_back(std::move(r));
  }
  return out;
}

}  // namespace

const std::vector<ToolSpec>& tool_specs() {
  static const std::vector<ToolSpec> kSpecs = build_specs();
  return kSpecs;
}

std::vector<const ToolSpec*> tool_specs(bool include_legacy) {
  std::vector<const ToolSpec*> out;
  for (const auto& s : tool_specs()) out.push_back(&s);
  if (include_legacy) {
    for (const auto& s : legacy_tool_specs()) out.push_back(&s);
  }
  return out;
}

const ToolSpec* find_tool(const std::string& name, bool include_legacy) {
  for (const ToolSpec* s : tool_specs(include_legacy)) {
    if (s->name == name) return s;
  }
  return nullptr;
}

Engine::Engine(std::string db_path, Bootstrap bootstrap)
    : db_path_(std::move(db_path)), bootstrap_(std::move(bootstrap)) {}
Engine::~Engine() = default;

store::Store* Engine::store(std::string* why) {
  if (store_) return store_.get();
  auto opened = store::Store::open(db_path_, store::Store::Mode::kExistingOnly);
  if (!opened && opened.status().code() == StatusCode::kNotFound && bootstrap_) {
    Status built = bootstrap_(db_path_);
    if (!built.is_ok()) log::error("building the store failed: " + built.to_string());
    opened = store::Store::open(db_path_, store::Store::Mode::kExistingOnly);
  }
  if (!opened) {
    if (why) *why = opened.status().message();
    store_status_ = opened.status();
    return nullptr;
  }
  store_status_ = Status::ok();
  store_ = std::move(*opened);
  store_->set_text_index_in_memory(text_index_in_memory_);
  if (!memory_mapped_) apply_memory_mapped();
  return store_.get();
}

void Engine::set_text_index_in_memory(bool on) {
  text_index_in_memory_ = on;
  if (store_) store_->set_text_index_in_memory(on);
}

void Engine::set_memory_mapped(bool on) {
  memory_mapped_ = on;
  if (store_) apply_memory_mapped();
}

void Engine::apply_memory_mapped() {
  if (Status s = store_->set_memory_mapped(memory_mapped_); !s.is_ok()) log::debug(s.to_string());
}

std::vector<std::string> Engine::complete_names(const std::vector<Kind>& kinds, const std::string& prefix, size_t max) {
  std::vector<std::string> out;
  store::Store* st = store(nullptr);
  if (st == nullptr) return out;
  auto names = st->names(kinds);
  if (!names) return out;
  const std::string p = text::fold(prefix);
  std::set<std::string> seen;
  std::vector<std::string> contains;
  for (const auto& n : *names) {
    const std::string f = text::fold(n.name);
    if (seen.count(n.name)) continue;
    if (f.rfind(p, 0) == 0) {
      seen.insert(n.name);
      out.push_back(n.name);
    } else if (!p.empty() && f.find(p) != std::string::npos) {
      contains.push_back(n.name);
    }
    if (out.size() >= max) return out;
  }
  for (const auto& c : contains) {
    if (out.size() >= max) break;
    if (seen.insert(c).second) out.push_back(c);
  }
  return out;
}

namespace {

// The state one tool call needs.
struct Call {
  store::Store& st;
  const json& args;
};

std::string str_arg(const json& args, const char* name) {
  auto it = args.find(name);
  return it != args.end() && it->is_string() ? it->get<std::string>() : std::string();
}
std::optional<int> int_arg(const json& args, const char* name) {
  auto it = args.find(name);
  if (it == args.end() || !it->is_number()) return std::nullopt;
  return static_cast<int>(it->get<long long>());
}
std::optional<double> num_arg(const json& args, const char* name) {
  auto it = args.find(name);
  if (it == args.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}
std::optional<bool> bool_arg(const json& args, const char* name) {
  auto it = args.find(name);
  if (it == args.end() || !it->is_boolean()) return std::nullopt;
  return it->get<bool>();
}

// A query builder per search tool: validated arguments -> constraints, or a message naming the bad value.
using QueryBuilder = std::function<Result<Query>(const json& args)>;

Result<Query> spell_query(const json& args) {
  Query q;
  q.kinds = {Kind::kSpell};
  q.level = int_arg(args, "level");
  q.level_min = int_arg(args, "level_min");
  q.level_max = int_arg(args, "level_max");
  if (q.level_min && q.level_max && *q.level_min > *q.level_max) {
    return Status::invalid_argument("level_min (" + std::to_string(*q.level_min) + ") is greater than level_max (" +
                                    std::to_string(*q.level_max) + ").");
  }
  q.school = str_arg(args, "school");
  const std::string cls = text::trim(str_arg(args, "class_key"));
  if (!cls.empty()) q.class_key = cls.find('_') != std::string::npos ? text::lower(cls) : text::fold(cls);
  q.concentration = bool_arg(args, "concentration");
  q.ritual = bool_arg(args, "ritual");
  const std::string ct = str_arg(args, "casting_time");
  if (!ct.empty()) {
    q.casting_time = model::normalize_casting_time(ct);
    if (std::find(kCastingTimes.begin(), kCastingTimes.end(), q.casting_time) == kCastingTimes.end()) {
      return Status::invalid_argument("Parameter 'casting_time': unknown value '" + ct +
                                      "'. Valid values: 1 Action, 1 Bonus Action, Reaction, 1 Turn, 1 Round, "
                                      "1 Minute, 5 Minutes, 10 Minutes, 1 Hour, 4/7/8/9/12/24 Hours, 1 Week.");
    }
  }
  q.damage_type = str_arg(args, "damage_type");
  q.condition = str_arg(args, "inflicts_condition");
  q.save_ability = str_arg(args, "save_ability");
  if (std::string effect = str_arg(args, "effect"); !effect.empty()) q.traits.push_back(effect);
  q.game_system = str_arg(args, "game_system");
  return q;
}

Result<Query> creature_query(const json& args) {
  Query q;
  q.kinds = {Kind::kCreature};
  q.cr = num_arg(args, "cr");
  q.cr_min = num_arg(args, "cr_min");
  q.cr_max = num_arg(args, "cr_max");
  if (q.cr_min && q.cr_max && *q.cr_min > *q.cr_max) {
    return Status::invalid_argument("cr_min (" + text::format_number(*q.cr_min) + ") is greater than cr_max (" +
                                    text::format_number(*q.cr_max) + ").");
  }
  q.type = text::lower(str_arg(args, "type"));
  q.size = text::lower(str_arg(args, "size"));
  q.armor_class_min = int_arg(args, "armor_class_min");
  q.hit_points_min = int_arg(args, "hit_points_min");
  if (std::string spell = text::fold(str_arg(args, "casts_spell")); !spell.empty()) {
    q.casts_spell.push_back(spell);
    // Stat blocks name some spells without their inventor ("hideous laughter" for Tasha's Hideous Laughter).
    const std::string given = text::trim(str_arg(args, "casts_spell"));
    const size_t space = spell.find(' ');
    const size_t mark = given.find_first_of(" '\xE2");
    if (space != std::string::npos && mark != std::string::npos &&
        (given.compare(mark, 2, "'s") == 0 || given.compare(mark, 4, "\xE2\x80\x99s") == 0)) {
      q.casts_spell.push_back(spell.substr(space + 1));
    }
  }
  q.condition = str_arg(args, "inflicts_condition");
  q.damage_type = str_arg(args, "deals_damage_type");
  q.save_ability = str_arg(args, "save_ability");
  q.attack_range = str_arg(args, "attack_range");
  q.movement = str_arg(args, "movement");
  for (const char* trait : {"legendary", "spellcaster"}) {
    if (auto b = bool_arg(args, trait)) (*b ? q.traits : q.without_traits).push_back(trait);
  }
  q.game_system = str_arg(args, "game_system");
  return q;
}

Result<Query> character_option_query(const json& args) {
  Query q;
  const std::string type = str_arg(args, "type");
  if (type == "class")
    q.kinds = {Kind::kClass};
  else if (type == "race")
    q.kinds = {Kind::kSpecies};
  else if (type == "background")
    q.kinds = {Kind::kBackground};
  else if (type == "feat")
    q.kinds = {Kind::kFeat};
  else
    q.kinds = {Kind::kClass, Kind::kSpecies, Kind::kBackground, Kind::kFeat};
  q.game_system = str_arg(args, "game_system");
  return q;
}

Result<Query> equipment_query(const json& args) {
  Query q;
  const std::string type = str_arg(args, "type");
  if (type == "weapon")
    q.kinds = {Kind::kWeapon};
  else if (type == "armor")
    q.kinds = {Kind::kArmor};
  else if (type == "magic-item")
    q.kinds = {Kind::kMagicItem};
  else if (type == "item")
    q.kinds = {Kind::kItem};
  else
    q.kinds = {Kind::kWeapon, Kind::kArmor, Kind::kItem, Kind::kMagicItem};
  // Filters that only one kind has narrow the kinds searched: they are hard constraints.
  auto restrict_to = [&](Kind k, const char* param) -> Status {
    if (std::find(q.kinds.begin(), q.kinds.end(), k) == q.kinds.end()) {
      return Status::invalid_argument(std::string("Parameter '") + param + "' applies only to " +
                                      plural_of(std::string(model::kind_name(k))) + ", but type is '" + type + "'.");
    }
    q.kinds = {k};
    return Status::ok();
  };
  if (args.contains("rarity")) {
    LOREKEEPER_RETURN_IF_ERROR(restrict_to(Kind::kMagicItem, "rarity"));
    q.rarity = model::slug(str_arg(args, "rarity"));
  }
  if (auto v = bool_arg(args, "requires_attunement")) {
    q.requires_attunement = *v;
    LOREKEEPER_RETURN_IF_ERROR(restrict_to(Kind::kMagicItem, "requires_attunement"));
  }
  const std::vector<std::pair<const char*, const char*>> props = {{"is_light", "light"},
                                                                  {"is_versatile", "versatile"},
                                                                  {"is_thrown", "thrown"},
                                                                  {"is_finesse", "finesse"},
                                                                  {"is_two_handed", "two-handed"}};
  for (const auto& [param, prop] : props) {
    if (auto v = bool_arg(args, param)) {
      LOREKEEPER_RETURN_IF_ERROR(restrict_to(Kind::kWeapon, param));
      if (*v) {
        q.properties.push_back(prop);
      } else {
        return Status::invalid_argument(std::string("Parameter '") + param +
                                        "': only true is supported (weapons that have the property).");
      }
    }
  }
  if (args.contains("damage_dice")) {
    LOREKEEPER_RETURN_IF_ERROR(restrict_to(Kind::kWeapon, "damage_dice"));
    q.damage_dice = text::lower(text::trim(str_arg(args, "damage_dice")));
  }
  if (auto v = bool_arg(args, "is_simple")) {
    LOREKEEPER_RETURN_IF_ERROR(restrict_to(Kind::kWeapon, "is_simple"));
    q.is_simple = v;
  }
  q.cost_min = num_arg(args, "cost_min");
  q.cost_max = num_arg(args, "cost_max");
  q.weight_max = num_arg(args, "weight_max");
  if (q.cost_min && q.cost_max && *q.cost_min > *q.cost_max) {
    return Status::invalid_argument("cost_min is greater than cost_max.");
  }
  q.game_system = str_arg(args, "game_system");
  return q;
}

Result<Query> rule_query(const json& args) {
  Query q;
  const std::string t = str_arg(args, "rule_type");
  static const std::map<std::string, std::vector<Kind>> kKinds = {
      {"rule", {Kind::kRule, Kind::kRuleSection}},
      {"rule-section", {Kind::kRuleSection}},
      {"condition", {Kind::kCondition}},
      {"damage-type", {Kind::kDamageType}},
      {"weapon-property", {Kind::kWeaponProperty}},
      {"skill", {Kind::kSkill}},
      {"ability-score", {Kind::kAbilityScore}},
      {"magic-school", {Kind::kSpellSchool}},
      {"language", {Kind::kLanguage}},
      {"proficiency", {Kind::kSkill, Kind::kWeaponProperty}},
      {"alignment", {Kind::kAlignment}},
      {"size", {Kind::kSize}},
      {"creature-type", {Kind::kCreatureType}},
      {"item-rarity", {Kind::kItemRarity}},
      {"item-category", {Kind::kItemCategory}},
      {"environment", {Kind::kEnvironment}},
  };
  if (t.empty()) {
    for (const auto& [name, kinds] : kKinds) {
      for (Kind k : kinds) {
        if (std::find(q.kinds.begin(), q.kinds.end(), k) == q.kinds.end()) q.kinds.push_back(k);
      }
    }
  } else {
    q.kinds = kKinds.at(t);
  }
  q.game_system = str_arg(args, "game_system");
  const std::string section = text::trim(str_arg(args, "section"));
  if (!section.empty()) {
    if (!t.empty() && t != "rule" && t != "rule-section") {
      return Status::invalid_argument("Parameter 'section' applies only to rule_type \"rule\".");
    }
    q.kinds = {Kind::kRule};
    if (section.find('_') != std::string::npos)
      q.parent_key = text::lower(section);
    else
      q.section = model::slug(section);
  }
  return q;
}

std::string kind_label(const std::vector<Kind>& kinds) {
  if (kinds.size() == 1) {
    std::string n(model::kind_name(kinds[0]));
    std::replace(n.begin(), n.end(), '-', ' ');
    return n;
  }
  return "result";
}

// Adds children (subclasses, subspecies) to class and species results.
void add_children(store::Store& st, std::vector<json>& results) {
  for (auto& r : results) {
    const std::string kind = r.value("kind", "");
    if (kind != "class" && kind != "species") continue;
    // Some records name their parent by key only ("subspecies_of": "srd_elf"): show its name.
    const char* parent_field = kind == "class" ? "subclass_of" : "subspecies_of";
    if (r.contains(parent_field) && r[parent_field].is_string()) {
      auto parent = st.get(r[parent_field].get<std::string>(), kind == "class" ? Kind::kClass : Kind::kSpecies, false);
      if (parent && parent->size() == 1) r[parent_field] = (*parent)[0].name;
    }
    Query q;
    q.kinds = {kind == "class" ? Kind::kClass : Kind::kSpecies};
    q.parent_key = r.value("key", "");
    q.limit = 100;
    auto kids = st.query(q);
    if (!kids || kids->entities.empty()) continue;
    // Each child with its key and, when it comes from another document than its parent, that document's name.
    const std::string own_document = r.value("document", json::object()).value("key", "");
    json children = json::array();
    for (const auto& e : kids->entities) {
      json c = {{"name", e.name}, {"key", e.key}, {"document", e.document.key}};
      if (e.document.key != own_document) c["source"] = e.document.name;
      children.push_back(std::move(c));
    }
    r[kind == "class" ? "subclasses" : "subspecies"] = std::move(children);
  }
}

// A search tool: documents, name matching, filters, explanation of empty answers.
// The most results ranked for one grouped answer (a name has a handful of editions).
constexpr int kMaxGroupPool = 400;

model::Document document_of(const json& r) {
  model::Document d;
  const json& doc = r.value("document", json::object());
  d.key = doc.value("key", "");
  d.publisher = doc.value("publisher", "");
  d.game_system = doc.value("game_system", "");
  return d;
}

// The editions of one name (same kind) take one place, at the best rank any of them reached: the preferred
// edition is shown (model::edition_before), with the best-ranked edition's score and reasons, and the others are
// named in `_other_editions` with their keys. At most `limit` places; editions ranked below the cut still join
// their name's place.
std::vector<json> group_editions(std::vector<json> ranked, size_t limit, std::string_view preferred) {
  std::vector<json> out;
  std::map<std::pair<std::string, std::string>, size_t> place;  // (kind, folded name) -> index in out
  for (auto& r : ranked) {
    const auto id = std::make_pair(r.value("kind", ""), text::fold(r.value("name", "")));
    auto at = place.find(id);
    if (at == place.end()) {
      if (out.size() >= limit) continue;
      place.emplace(id, out.size());
      r["_other_editions"] = json::array();
      out.push_back(std::move(r));
      continue;
    }
    json& shown = out[at->second];
    if (model::edition_before(document_of(r), document_of(shown), preferred)) {
      // The preferred edition takes the place, keeping what ranked the place.
      for (const char* k : {"_score", "_matched", "_snippet"}) {
        if (shown.contains(k)) {
          r[k] = shown[k];
        } else {
          r.erase(k);
        }
      }
      json editions = std::move(shown["_other_editions"]);
      editions.push_back({{"key", shown.value("key", "")}, {"document", shown["document"].value("key", "")}});
      r["_other_editions"] = std::move(editions);
      shown = std::move(r);
    } else {
      shown["_other_editions"].push_back({{"key", r.value("key", "")}, {"document", r["document"].value("key", "")}});
    }
  }
  for (auto& r : out) {
    if (r["_other_editions"].empty()) r.erase("_other_editions");
  }
  return out;
}

// For an empty answer to an exact CR or spell level: how many match one step either side, by value ("0 CR 5
// fiends in srd-2014; at CR 4-6: CR 4 (2), CR 6 (1)"). Empty when neither was asked or nothing is near.
std::string nearby_counts(store::Store& st, const json& args, const QueryBuilder& build,
                          const std::optional<std::vector<std::string>>& documents, const std::string& search,
                          Match match, const SearchContext& ctx) {
  const bool by_cr = args.contains("cr");
  if (!by_cr && !args.contains("level")) return "";
  const std::string field = by_cr ? "cr" : "level";
  // A range of the caller's own is theirs to widen.
  if (args.contains(field + "_min") || args.contains(field + "_max")) return "";
  const double v = args[field].get<double>();
  const auto [lo, hi] = by_cr ? gm::neighbouring_crs(v) : std::pair{std::max(0.0, v - 1), std::min(9.0, v + 1)};
  json wider = args;
  wider.erase(field);
  wider[field + "_min"] = lo;
  wider[field + "_max"] = hi;
  auto built = build(wider);
  if (!built) return "";
  Query q = *built;
  q.document_keys = documents;
  const auto shown = [&](double x) { return by_cr ? text::format_cr(x) : text::format_number(x); };
  const std::string range = (by_cr ? "CR " : "level ") + shown(lo) + "-" + shown(hi);
  const std::string widen = " (" + field + "_min and " + field + "_max widen the search)";
  if (!text::trim(search).empty()) {
    auto n = find(st, q, search, 1, match, ctx);
    if (!n || n->total == 0) return "";
    return "At " + range + " there would be " + std::to_string(n->total) + widen + ".";
  }
  auto counted = st.count_by(q, field);
  if (!counted || counted->empty()) return "";
  std::vector<std::pair<double, int>> values;
  for (const auto& [value, count] : *counted) values.emplace_back(std::strtod(value.c_str(), nullptr), count);
  std::sort(values.begin(), values.end());
  std::vector<std::string> parts;
  for (const auto& [value, count] : values) {
    parts.push_back((by_cr ? "CR " : "level ") + shown(value) + " (" + std::to_string(count) + ")");
  }
  return "At " + range + ": " + text::join(parts, ", ") + widen + ".";
}

// What an answer says of the facets read from its query: their labels (for `understood`) and a sentence for the
// text (" Ranked higher for what the words name (not required): fly speed (\"fly\")."), both empty without any.
std::pair<json, std::string> understood_labels(const std::vector<search::QueryFacet>& facets) {
  json labels = json::array();
  std::vector<std::string> said;
  for (const auto& f : facets) {
    labels.push_back(f.label());
    said.push_back(f.label() + " (\"" + f.phrase + "\")");
  }
  if (said.empty()) return {labels, ""};
  return {labels, " Ranked higher for what the words name (not required): " + text::join(said, ", ") + "."};
}

ToolResult run_search_tool(store::Store& st, const json& args, const QueryBuilder& build, bool top_level_default,
                           Match match, const SearchContext& ctx) {
  auto built = build(args);
  if (!built) return error_result(built.status().message());
  Query q = *built;
  const int limit = int_arg(args, "limit").value_or(20);
  const std::string search = str_arg(args, "search");
  if (top_level_default && text::trim(search).empty()) q.top_level = true;
  DocFilter docs = resolve_documents(st, args);
  q.document_keys = docs.keys;
  const std::string label = kind_label(q.kinds);
  if (docs.select_nothing) {
    return list_answer({}, "No " + plural_of(label) + ": no source document selected.", docs.message, 0, args,
                       detail_of(args));
  }
  // Editions of one name take one place in a ranked answer, unless the caller chose documents or a game system:
  // a wider pool is ranked so that `limit` different things can be shown.
  const bool group = match == Match::kNamesAndText && !text::trim(search).empty() && !args.contains("documents") &&
                     !args.contains("game_system");
  auto found = find(st, q, search, group ? std::min(std::max(limit * 4, 20), kMaxGroupPool) : limit, match, ctx);
  if (!found) return error_result("Search failed: " + found.status().to_string());
  if (found->how == "exact name" || !group) {
    if (found->results.size() > static_cast<size_t>(limit)) found->results.resize(static_cast<size_t>(limit));
  } else {
    found->results = group_editions(std::move(found->results), static_cast<size_t>(limit), ctx.preferred_edition);
  }
  add_children(st, found->results);
  std::string header;
  if (found->how == "exact name") {
    const int exact = found->exact_total;
    header = "Found " + plural(label, exact) + " named \"" + search + "\"" +
             (found->total > exact ? ", then " + std::to_string(found->total - exact) + " other match(es)" : "") +
             (found->total > static_cast<int>(found->results.size())
                  ? " (showing " + std::to_string(found->results.size()) + ")."
                  : ".");
  } else if (found->how != "filters") {
    const std::string also = found->semantic ? " and meaning" : "";
    const std::string how = found->how == "name contains" ? "by name, then by text" + also
                            : found->how == "close name"  ? "by close spellings of the name, then by text" + also
                            : found->semantic             ? "by the words and meaning of their text"
                                                          : "by the words of their text and search hints";
    header = "Found " + plural(label, found->total) + " for \"" + search + "\", ranked " + how +
             (found->total > static_cast<int>(found->results.size())
                  ? " (showing " + std::to_string(found->results.size()) + ")."
                  : ".");
  } else {
    header = "Found " + plural(label, found->total) +
             (found->total > static_cast<int>(found->results.size())
                  ? " (showing the first " + std::to_string(found->results.size()) +
                        " by name; raise limit or "
                        "add filters for others)."
                  : ".");
  }
  std::string message = docs.message;
  if (!found->note.empty()) message = message.empty() ? found->note : message + " " + found->note;
  json understood = json::array();
  if (!found->results.empty()) {
    auto [labels, sentence] = understood_labels(found->understood);
    understood = std::move(labels);
    header += sentence;
  }
  if (found->results.empty()) {
    std::vector<std::string> hints;
    if (!text::trim(search).empty()) {
      auto close = closest_names(st, q.kinds, search, 5);
      if (!close.empty())
        hints.push_back("Closest names: " + text::join(close, ", ") + ".");
      else
        hints.push_back("Nothing matches \"" + search + "\" by name, text" +
                        (found->semantic ? " or meaning." : " (meaning-based search is not ready)."));
    }
    // Which filter emptied the answer: drop each one and see whether anything would match.
    for (auto it = args.begin(); it != args.end(); ++it) {
      const std::string& name = it.key();
      if (name == "search" || name == "limit" || name == "type" || name == "rule_type") continue;
      json fewer = args;
      fewer.erase(name);
      auto q2 = build(fewer);
      if (!q2) continue;
      Query probe = *q2;
      if (name != "documents") probe.document_keys = docs.keys;
      if (top_level_default && text::trim(search).empty()) probe.top_level = true;
      auto n = find(st, probe, search, 1, match, ctx);
      if (n && n->total > 0) {
        hints.push_back("Without '" + name + "' there would be " + plural(label, n->total) + ".");
      }
    }
    if (std::string nearby = nearby_counts(st, args, build, docs.keys, search, match, ctx); !nearby.empty()) {
      hints.push_back(nearby);
    }
    if (hints.empty()) hints.push_back("Nothing in the store matches these filters.");
    message = (message.empty() ? "" : message + " ") + text::join(hints, " ");
    header = "No " + plural_of(label) + " found.";
  }
  ToolResult answer = list_answer(std::move(found->results), header, message, found->total, args, detail_of(args));
  if (!understood.empty() && answer.structured.is_object()) answer.structured["understood"] = std::move(understood);
  return answer;
}

// search_all's content types (validated against content_types_param's enum) as kinds.
std::vector<Kind> parse_content_types(const json& values) {
  std::vector<Kind> kinds;
  auto add = [&](Kind k) {
    if (std::find(kinds.begin(), kinds.end(), k) == kinds.end()) kinds.push_back(k);
  };
  for (const auto& v : values) {
    const std::string n = v.get<std::string>();
    if (n == "equipment") {
      for (Kind k : {Kind::kWeapon, Kind::kArmor, Kind::kItem, Kind::kMagicItem}) add(k);
    } else if (n == "item") {
      add(Kind::kItem);
      add(Kind::kMagicItem);
    } else if (auto k = model::parse_kind(n)) {
      add(*k);
    }
  }
  return kinds;
}

ToolResult search_all(store::Store& st, const json& args, const SearchContext& ctx) {
  const std::string query = text::trim(str_arg(args, "query"));
  if (query.empty()) return error_result("Parameter 'query' must not be empty.");
  std::vector<Kind> kinds = model::all_kinds();
  if (args.contains("content_types") && !args["content_types"].empty()) {
    kinds = parse_content_types(args["content_types"]);
  }
  const int limit_per_kind = int_arg(args, "limit").value_or(5);
  DocFilter docs = resolve_documents(st, args);
  ToolResult out;
  json groups = json::object();
  int total = 0;
  std::string body;
  std::string message = docs.message;
  std::pair<json, std::string> understood;
  if (!docs.select_nothing) {
    // One ranking across the kinds (so scores compare), then grouped by kind in order of each kind's best.
    Query q;
    q.kinds = kinds;
    q.document_keys = docs.keys;
    q.game_system = str_arg(args, "game_system");
    // `limit` is per kind: one ranking deep enough to fill several kinds, then at most `limit` of each kind and
    // kMaxAllResults in all, in ranking order.
    const int pool = kMaxAllResults * 4;
    auto f = find(st, q, query, pool, Match::kNamesAndText, ctx, OnExactName::kItFirst);
    if (!f) return error_result("Search failed: " + f.status().to_string());
    understood = understood_labels(f->understood);
    {
      std::map<std::string, int> taken;
      std::vector<json> kept;
      for (auto& r : f->results) {
        if (static_cast<int>(kept.size()) >= kMaxAllResults) break;
        if (++taken[r.value("kind", "")] <= limit_per_kind) kept.push_back(std::move(r));
      }
      f->results = std::move(kept);
    }
    add_children(st, f->results);
    // In ranking order, the first results stay whole in structuredContent and the rest are summaries, as in the
    // other search tools' answers (the text lists every result as one line, counted with it).
    const Detail detail = detail_of(args);
    const size_t budget = detail == Detail::kFull ? kFullBudget : kStandardBudget;
    const LineCosts costs = line_costs(f->results);
    size_t used = query.size() + message.size() + 400;
    for (size_t i = 0; i < f->results.size(); ++i) {
      json& r = f->results[i];
      const bool whole = detail == Detail::kFull || (detail == Detail::kStandard && i < kStandardInFull);
      if (whole) {
        const size_t reserve = i == 0 ? costs.compact_after[1] : costs.full_after[i + 1];
        Whole w = whole_within(r, detail == Detail::kFull ? kFullFieldChars : kStandardFieldChars,
                               room_left(budget, used, reserve), SIZE_MAX,
                               [](const json& c) { return render_summary_line(c) + "\n"; });
        if (w.fits) {
          used += w.text.size() + w.result.dump().size();
          r = std::move(w.result);
          continue;
        }
      }
      r = one_line(r, i, costs, budget, used);
      used += line_cost(r);
    }
    std::vector<std::pair<std::string, std::vector<json>>> per_kind;
    for (auto& r : f->results) {
      const std::string k = r.value("kind", "");
      auto it = std::find_if(per_kind.begin(), per_kind.end(), [&](const auto& g) { return g.first == k; });
      if (it == per_kind.end()) it = per_kind.insert(per_kind.end(), {k, {}});
      it->second.push_back(std::move(r));
    }
    for (auto& [k, results] : per_kind) {
      total += static_cast<int>(results.size());
      body += "## " + k + " (" + std::to_string(results.size()) + ")\n\n";
      for (const auto& r : results) body += "- " + render_summary_line(r) + "\n";
      body += "\n";
      groups[k] = std::move(results);
    }
  }
  if (total == 0 && !docs.select_nothing) {
    auto close = closest_names(st, kinds, query, 5);
    const search::Semantic* meaning = ctx.embeddings.semantic();
    const bool semantic = meaning && meaning->index() && ctx.ranking != Ranking::kLexical;
    const std::string hint = close.empty() ? "Nothing matches \"" + query + "\" by name, text" +
                                                 (semantic ? " or meaning." : " (meaning-based search is not ready).")
                                           : "Closest names: " + text::join(close, ", ") + ".";
    message = (message.empty() ? "" : message + " ") + hint;
  }
  out.text = (total > 0 ? "Found " + std::to_string(total) + " result(s) for \"" + query +
                              "\", grouped by kind. "
                              "Use get_entity(key) for "
                              "one in full." +
                              understood.second
                        : "Nothing found for \"" + query + "\".") +
             "\n";
  if (!message.empty()) out.text += message + "\n";
  out.text += "\n" + body;
  out.structured = {{"result", groups}, {"total", total}, {"filters", args}};
  if (!message.empty()) out.structured["message"] = message;
  if (total > 0 && !understood.first.empty()) out.structured["understood"] = understood.first;
  return out;
}

ToolResult get_entity(store::Store& st, const json& args, std::string_view preferred) {
  const std::string key = text::trim(str_arg(args, "key"));
  std::optional<Kind> kind;
  if (args.contains("kind")) {
    kind = model::parse_kind(str_arg(args, "kind"));
    if (!kind) {
      std::vector<std::string> valid;
      for (Kind k : model::all_kinds()) valid.emplace_back(model::kind_name(k));
      return error_result("Parameter 'kind': unknown value '" + str_arg(args, "kind") +
                          "'. Valid values: " + text::join(valid, ", ") + ".");
    }
  }
  const bool with_raw = bool_arg(args, "include_source").value_or(false);
  auto found = st.get(key, kind, with_raw);
  if (!found) return error_result("Lookup failed: " + found.status().to_string());
  if (found->empty()) {
    // Perhaps a name was given instead of a key: its editions' keys, in edition order.
    Query q;
    if (kind) q.kinds = {*kind};
    auto by_name = search::editions_named(st, q, key, preferred);
    std::string msg = "No entry has the key '" + key + "'" +
                      (kind ? " among " + plural_of(std::string(model::kind_name(*kind))) : "") + ".";
    if (by_name && !by_name->empty()) {
      std::vector<std::string> keys;
      for (const auto& e : *by_name) keys.push_back(e.key + " (" + e.document.key + ")");
      msg += " Entries named '" + key + "' have the keys: " + text::join(keys, ", ") + ".";
    } else {
      auto close = closest_names(st, kind ? std::vector<Kind>{*kind} : std::vector<Kind>{}, key, 5);
      if (!close.empty()) msg += " Closest names: " + text::join(close, ", ") + " (search for them to get keys).";
    }
    return error_result(msg);
  }
  if (found->size() > 1) {
    std::vector<std::string> kinds;
    for (const auto& e : *found) kinds.emplace_back(model::kind_name(e.kind));
    return error_result("The key '" + key + "' exists in several kinds (" + text::join(kinds, ", ") +
                        "); pass kind to choose one.");
  }
  const Entity& e = found->front();
  std::vector<json> one = {to_result(e)};
  add_children(st, one);
  json r = std::move(one.front());
  if (with_raw) r["source_record"] = e.raw;
  // What answers the next question: the creatures that cast this spell, what inflicts this condition, ...
  if (json rel = related(st, e); !rel.empty()) r["_related"] = std::move(rel);
  // Within the full budget whatever the entry's size: long text fields are cut shorter until it fits.
  const size_t envelope = json{{"filters", args}, {"result", 0}, {"total", 1}}.dump().size() - 1;
  Whole w = whole_within(r, kFullFieldChars, room_left(kFullBudget, envelope, 0), 1000, [&](const json& c) {
    std::string text = render_entity(c) + render_related(c.value("_related", json()));
    if (with_raw) text += "\n**Source record:**\n```json\n" + json_util::dump(c["source_record"]) + "\n```\n";
    return text;
  });
  ToolResult out;
  out.text = std::move(w.text);
  out.structured = {{"result", std::move(w.result)}, {"total", 1}, {"filters", args}};
  return out;
}

// Similarity by shared attributes, until semantic search provides embeddings.
ToolResult find_similar(store::Store& st, const json& args, const SearchContext& ctx) {
  std::string key = text::trim(str_arg(args, "key"));
  const std::string name = text::trim(str_arg(args, "name"));
  std::optional<Kind> kind;
  if (args.contains("kind")) {
    kind = model::parse_kind(str_arg(args, "kind"));
    if (!kind) return error_result("Parameter 'kind': unknown value '" + str_arg(args, "kind") + "'.");
  }
  if (key.empty() && name.empty()) return error_result("Give the reference entry's key or name.");
  std::vector<Entity> refs;
  if (!key.empty()) {
    auto got = st.get(key, kind, false);
    if (!got) return error_result("Lookup failed: " + got.status().to_string());
    refs = *got;
  } else {
    // The entry of that name in the preferred edition (model::edition_before).
    Query q;
    if (kind) q.kinds = {*kind};
    auto got = search::editions_named(st, q, name, ctx.preferred_edition);
    if (!got) return error_result("Lookup failed: " + got.status().to_string());
    refs = std::move(*got);
  }
  if (refs.empty()) {
    auto close = closest_names(st, kind ? std::vector<Kind>{*kind} : std::vector<Kind>{}, key.empty() ? name : key, 5);
    return error_result("No reference entry '" + (key.empty() ? name : key) + "' found." +
                        (close.empty() ? "" : " Closest names: " + text::join(close, ", ") + "."));
  }
  const Entity& ref = refs.front();
  Query q;
  q.kinds = {ref.kind};
  DocFilter docs = resolve_documents(st, args);
  q.document_keys = docs.keys;
  q.game_system = str_arg(args, "game_system");
  const int limit = int_arg(args, "limit").value_or(10);
  // Meaning takes part when the embedding index covers the reference.
  std::shared_ptr<const search::VectorIndex> ix =
      ctx.embeddings.semantic() && ctx.ranking != Ranking::kLexical ? ctx.embeddings.semantic()->index() : nullptr;
  const bool unindexed_reference = ix && !ix->find(ref.kind, ref.key);
  if (unindexed_reference) ix = nullptr;
  // Editions of one name take one place, as in search answers, unless the caller chose documents.
  const bool group = !args.contains("documents") && !args.contains("game_system");
  std::vector<json> results;
  int total = 0;
  if (!docs.select_nothing) {
    // Every candidate is scored (at most the 200 nearest in meaning), so `total` does not depend on `limit`.
    auto likes = search::similar_to(st, ref, q, kMaxGroupPool, ix);
    if (!likes) return error_result("Search failed: " + likes.status().to_string());
    for (auto& like : *likes) {
      if (like.score < kSimilarFloor) continue;
      json r = to_result(like.entity);
      r["_score"] = round3(like.score);
      r["_matched"] = ix ? json::array({"meaning", "facet"}) : json::array({"facet"});
      results.push_back(std::move(r));
    }
    total = static_cast<int>(results.size());
    if (group) {
      results = group_editions(std::move(results), static_cast<size_t>(limit), ctx.preferred_edition);
    } else if (results.size() > static_cast<size_t>(limit)) {
      results.resize(static_cast<size_t>(limit));
    }
  }
  std::string message = docs.message;
  const std::string how =
      ix ? "Ranked by meaning and by what it is (its kind's facets: level, school, damage and saves of a spell; type, "
           "challenge rating, size and movement of a creature; range, category and properties of a weapon)."
      : unindexed_reference
          ? "Ranked by what it is (its kind's facets): this entry has no meaning vector yet (it is being embedded)."
          : "Ranked by what it is (its kind's facets): meaning-based similarity is not ready.";
  message = message.empty() ? how : message + " " + how;
  const std::string header = "Entries like " + ref.name + " (" + ref.key + "):";
  return list_answer(std::move(results), header, message, total, args, detail_of(args));
}

ToolResult list_documents(store::Store& st, const json& args) {
  auto docs = st.documents();
  if (!docs) return error_result("Listing documents failed: " + docs.status().to_string());
  const std::string source = str_arg(args, "source");
  std::vector<store::DocumentInfo> rows;
  for (const auto& d : *docs) {
    if (!source.empty() && d.document.source_api != source) continue;
    rows.push_back(d);
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.entity_count > b.entity_count; });
  json result = json::array();
  std::string body = "| document | name | game system | publisher | entities |\n|---|---|---|---|---|\n";
  for (const auto& d : rows) {
    json types = json::object();
    for (const auto& [k, n] : d.entity_types) types[k] = n;
    result.push_back({{"document", d.document.key},
                      {"key", d.document.key},
                      {"name", d.document.name},
                      {"display_name", d.document.display_name},
                      {"source_api", d.document.source_api},
                      {"publisher", d.document.publisher},
                      {"license", d.document.license},
                      {"game_system", d.document.game_system},
                      {"entity_count", d.entity_count},
                      {"entity_types", types}});
    body += "| `" + d.document.key + "` | " + d.document.name + " | " + d.document.game_system + " | " +
            d.document.publisher + " | " + std::to_string(d.entity_count) + " |\n";
  }
  ToolResult out;
  std::string message;
  if (rows.empty()) {
    message = source.empty() ? "The store holds no documents yet." : "No documents from source '" + source + "'.";
  }
  out.text = std::to_string(rows.size()) + " document(s). Use the `document` keys in the documents parameter.\n" +
             (message.empty() ? "" : message + "\n") + "\n" + body;
  out.structured = {{"result", result}, {"total", static_cast<int>(rows.size())}, {"filters", args}};
  if (!message.empty()) out.structured["message"] = message;
  return out;
}

}  // namespace

namespace {
ToolResult dispatch_call(Engine& engine, const std::string& name, const json& arguments,
                         Match match = Match::kNamesAndText);
}  // namespace

ToolResult Engine::call(const std::string& name, const json& arguments) {
  ToolResult r;
  // One snapshot of the store for the whole call: an import or sync committing meanwhile is seen by the next
  // call, never by half of this one.
  std::optional<store::Store::ReadSnapshot> snapshot;
  if (store::Store* st = store(nullptr)) snapshot.emplace(*st);
  if (legacy_tools_ && find_tool(name) == nullptr && find_tool(name, true) != nullptr) {
    // An older name: validate its own parameters, then run the current tool.
    auto args = validate_arguments(find_tool(name, true)->params, arguments);
    if (!args) return error_result(args.status().message());
    auto current = translate_legacy_call(name, *args);
    if (!current) return error_result(current.status().message());
    // The older tools' `name` is matched against names only, as they documented.
    r = dispatch_call(*this, current->first, current->second,
                      current->first == "search_all" ? Match::kNamesAndText : Match::kNamesOnly);
  } else {
    r = dispatch_call(*this, name, arguments);
  }
  const std::string note = notice_ ? notice_() : std::string();
  if (!note.empty() && !r.is_error) {
    const std::string message = r.structured.value("message", "");
    r.structured["message"] = message.empty() ? note : message + " " + note;
    // The notice heads the text of answers that search; one entry's text (get_entity, and resources/read, which
    // shows it), the list of documents and the arithmetic tools' answers stay as they are.
    if (name.rfind("search_", 0) == 0 || name == "find_similar" || name == "build_encounter") {
      r.text = note + "\n\n" + r.text;
    }
  }
  return r;
}

namespace {

ToolResult dispatch_call(Engine& engine, const std::string& name, const json& arguments, Match match) {
  const ToolSpec* spec = find_tool(name);
  if (spec == nullptr) return error_result("Unknown tool '" + name + "'.");
  auto args = validate_arguments(spec->params, arguments);
  if (!args) return error_result(args.status().message());
  if (name == "roll_dice") return gm_tools::roll_dice(*args);
  std::string why;
  store::Store* st = engine.store(&why);
  if (st == nullptr && engine.store_status().code() == StatusCode::kInvalidArgument) {
    return error_result("The LoreKeeper store cannot be used: " + why +
                        ". Point LOREKEEPER_DB_PATH (or --db) at a LoreKeeper store, or at a new file.");
  }
  if (st == nullptr && engine.store_status().code() == StatusCode::kCorruption) {
    return error_result("The LoreKeeper store " + engine.db_path() + " cannot be used: " + why +
                        ". Nothing was changed. To rebuild it, move the file aside and load the bundled data: "
                        "`lorekeeper sync --source bundled --move-aside`.");
  }
  if (st == nullptr && engine.store_status().code() != StatusCode::kNotFound) {
    return error_result("The LoreKeeper store " + engine.db_path() + " cannot be used: " + why + ".");
  }
  if (st == nullptr) {
    const std::string message =
        "The LoreKeeper store is empty: " + why +
        ". Fill it with `lorekeeper sync --source bundled` (offline) or `lorekeeper sync` (live API), then ask "
        "again.";
    // Tools whose answer is one object, not a list, say so as an error.
    if (name == "get_entity" || name == "find_similar" || name == "compare_editions" || name == "count_entities") {
      return error_result(message);
    }
    ToolResult r;
    r.text = message;
    r.structured = {{"result", name == "search_all" ? json::object() : json::array()},
                    {"total", 0},
                    {"message", message},
                    {"filters", *args}};
    return r;
  }
  const json& a = *args;
  const search::Semantic* semantic = engine.semantic() && engine.semantic()->has_model() ? engine.semantic() : nullptr;
  // A search made while a starting serve reads its stored vectors (about a second) waits for them rather than
  // answer by words alone; bounded, so a slow disk costs one lexical answer, not a hung call.
  const bool ranks = name.rfind("search_", 0) == 0 || name == "find_similar" || name == "build_encounter";
  if (semantic && ranks && engine.ranking() != Ranking::kLexical) semantic->wait_loaded(std::chrono::seconds(3));
  const SearchContext ctx{engine.ranking(), engine.preferred_edition(), search::QueryEmbeddings(semantic)};
  if (name == "search_spell") return run_search_tool(*st, a, spell_query, false, match, ctx);
  if (name == "search_creature") return run_search_tool(*st, a, creature_query, false, match, ctx);
  if (name == "search_character_option") return run_search_tool(*st, a, character_option_query, true, match, ctx);
  if (name == "search_equipment") return run_search_tool(*st, a, equipment_query, false, match, ctx);
  if (name == "search_rule") return run_search_tool(*st, a, rule_query, false, match, ctx);
  if (name == "search_all") return search_all(*st, a, ctx);
  if (name == "get_entity") return get_entity(*st, a, ctx.preferred_edition);
  if (name == "find_similar") return find_similar(*st, a, ctx);
  if (name == "list_documents") return list_documents(*st, a);
  if (name == "count_entities") {
    // The filters are those of the kind's own search tool, validated and mapped as that tool does.
    const count_tool::QueryFor query_for = [&](Kind kind, const json& filters) -> Result<Query> {
      for (const char* not_filter : {"search", "limit", "detail"}) {
        if (filters.contains(not_filter)) {
          return Status::invalid_argument(std::string("'") + not_filter +
                                          "' is not a filter: count_entities counts what the filters select.");
        }
      }
      const char* tool = nullptr;
      QueryBuilder build;
      switch (kind) {
        case Kind::kSpell: tool = "search_spell", build = spell_query; break;
        case Kind::kCreature: tool = "search_creature", build = creature_query; break;
        case Kind::kWeapon:
        case Kind::kArmor:
        case Kind::kItem:
        case Kind::kMagicItem: tool = "search_equipment", build = equipment_query; break;
        case Kind::kClass:
        case Kind::kSpecies:
        case Kind::kBackground:
        case Kind::kFeat: tool = "search_character_option", build = character_option_query; break;
        default: break;
      }
      static const std::vector<ParamSpec> kDocumentsOnly = {documents_param(), game_system_param()};
      auto valid = validate_arguments(tool ? find_tool(tool, false)->params : kDocumentsOnly, filters);
      if (!valid) return Status::invalid_argument("Parameter 'filters': " + valid.status().message());
      Query q;
      if (build) {
        auto built = build(*valid);
        if (!built) return built.status();
        q = *built;
      } else {
        q.game_system = str_arg(*valid, "game_system");
      }
      if (build && tool != std::string("search_creature") && valid->contains("type")) {
        return Status::invalid_argument("Parameter 'filters': 'type' chooses a kind in " + std::string(tool) +
                                        "; count_entities takes the kind from 'kind'.");
      }
      q.kinds = {kind};
      // As the search tools list them: classes and species without their subclasses and subspecies.
      if (kind == Kind::kClass || kind == Kind::kSpecies) {
        q.top_level = true;
      } else {
        q.top_level.reset();
      }
      DocFilter docs = resolve_documents(*st, *valid);
      if (docs.select_nothing || (docs.keys && docs.keys->empty())) {
        return Status::invalid_argument(docs.message.empty() ? "No source document selected." : docs.message);
      }
      q.document_keys = docs.keys;
      return q;
    };
    return count_tool::count_entities(*st, a, query_for);
  }
  if (name == "evaluate_encounter" || name == "build_encounter") {
    // The encounter tools read creatures as search_creature finds them, filters and ranking included.
    const gm_tools::CreatureSearch creatures = [&](const json& sargs) -> Result<std::vector<json>> {
      auto built = creature_query(sargs);
      if (!built) return built.status();
      Query q = *built;
      DocFilter docs = resolve_documents(*st, sargs);
      // A document that is not known is an error here: a fight's creatures cannot come from it.
      if (docs.select_nothing || (docs.keys && docs.keys->empty())) {
        return Status::invalid_argument(docs.message.empty() ? "No source document selected." : docs.message);
      }
      q.document_keys = docs.keys;
      auto found = find(*st, q, str_arg(sargs, "search"), int_arg(sargs, "limit").value_or(20), match, ctx);
      if (!found) return found.status();
      return std::move(found->results);
    };
    return name == "build_encounter" ? gm_tools::build_encounter(a, creatures, ctx.preferred_edition)
                                     : gm_tools::evaluate_encounter(a, creatures, ctx.preferred_edition);
  }
  if (name == "compare_editions") {
    DocFilter docs = resolve_documents(*st, a);
    if (docs.select_nothing || (docs.keys && docs.keys->empty())) {
      return error_result(docs.message.empty() ? "No source document selected." : docs.message);
    }
    const compare_tool::Suggest suggest = [&](const std::vector<Kind>& kinds, const std::string& given) {
      return closest_names(*st, kinds, given, 5);
    };
    ToolResult r = compare_tool::compare_editions(*st, a, docs.keys, ctx.preferred_edition, suggest);
    if (!docs.message.empty() && !r.is_error) {
      r.structured["message"] = docs.message;
      r.text = docs.message + "\n\n" + r.text;
    }
    return r;
  }
  return error_result("Unknown tool '" + name + "'.");
}

}  // namespace

}  // namespace lorekeeper::tools
