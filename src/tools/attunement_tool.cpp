#include "attunement_tool.hpp"

#include <algorithm>

#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/attunement.hpp"
#include "lorekeeper/model/spellcasting.hpp"
#include "lorekeeper/search/ranker.hpp"
#include "queries.hpp"
#include "search_tools.hpp"
#include "specs.hpp"

namespace lorekeeper::tools::attunement_tool {

using model::Entity;
using model::Kind;

namespace {

// The rules' limit: a creature can be attuned to no more than three magic items at the same time.
constexpr int kAttunementSlots = 3;
constexpr size_t kMaxItems = 20;

// The entity `given` names among `kinds` (a key in any case, or a name in the call's documents, the preferred
// edition first); nullopt with `why` set when there is none.
std::optional<Entity> entity_named(store::Store& st, const std::string& given, const std::vector<Kind>& kinds,
                                   const store::Query& scope, std::string_view preferred, std::string* why) {
  if (given.find('_') != std::string::npos && given.find(' ') == std::string::npos) {
    for (Kind k : kinds) {
      auto got = st.get(text::lower(given), k, false);
      if (got && !got->empty()) return std::move(got->front());
    }
  }
  store::Query q = scope;
  q.kinds = kinds;
  auto named = search::editions_named(st, q, given, preferred);
  if (named && !named->empty()) {
    for (const auto& e : *named) {
      if (e.facets.parent_key.empty()) {
        auto got = st.get(e.key, e.kind, false);
        if (got && !got->empty()) return std::move(got->front());
      }
    }
  }
  auto close = closest_names(st, q, given, 3);
  *why = "no entry is named '" + given + "'" + (close.empty() ? "" : "; closest: " + text::join(close, ", "));
  return std::nullopt;
}

// Whether a class casts spells at some level, and from which: its table's spellcasting columns.
int casting_from(const Entity& cls) {
  const json& table = cls.data.contains("class_table") ? cls.data["class_table"] : json();
  for (int level = 1; level <= 20; ++level) {
    if (auto row = model::caster_level(table, level); row && row->casts()) return level;
  }
  return 0;
}

struct Verdict {
  std::optional<bool> allowed;  // nullopt: the answer depends on what the call did not say
  std::string why;
};

}  // namespace

ToolSpec spec() {
  ParamSpec items{"items",
                  ParamType::kStringArray,
                  "The magic items, by key or name (\"srd_staff-of-power\", \"Cloak of Protection\").",
                  {},
                  {},
                  {},
                  json(),
                  true,
                  {}};
  items.max_items = kMaxItems;
  items.max_length = 200;
  auto string = [](const char* name, const char* desc) {
    ParamSpec p{name, ParamType::kString, desc, {}, {}, {}, json(), false, {}};
    p.max_length = 100;
    return p;
  };
  return {"check_attunement",
          "Check attunement",
          "For magic items: which need attunement and by whom (a class, a spellcaster, a species, an alignment), how "
          "many of a character's three attunement slots they take, and, given the character's class (and alignment "
          "or species), which it may not attune to ({\"items\": [\"Staff of Power\", \"Cloak of Protection\"], "
          "\"class\": \"fighter\"}).",
          {items, string("class", "The character's class, by name or key."),
           string("alignment", "The character's alignment (\"lawful good\")."),
           string("species", "The character's species or race (\"dwarf\")."), documents_param(), game_system_param()},
          object_answer_schema({{"type", "object"},
                                {"properties",
                                 {{"items", {{"type", "array"}, {"items", {{"type", "object"}}}}},
                                  {"attuned", {{"type", "integer"}}},
                                  {"slots", {{"type", "integer"}}}}},
                                {"required", {"items", "attuned", "slots"}}})};
}

ToolResult check_attunement(store::Store& st, const json& args,
                            const std::optional<std::vector<std::string>>& document_keys,
                            std::string_view preferred_edition) {
  store::Query scope;
  scope.document_keys = document_keys;
  scope.game_system = str_arg(args, "game_system");
  const std::string class_given = text::trim(str_arg(args, "class"));
  const std::string alignment = text::lower(text::trim(str_arg(args, "alignment")));
  const std::string species = text::fold(text::trim(str_arg(args, "species")));
  std::optional<Entity> cls;
  if (!class_given.empty()) {
    std::string why;
    store::Query class_scope;  // a class is looked for in any document: an item's book rarely has classes
    class_scope.game_system = scope.game_system;
    cls = entity_named(st, class_given, {Kind::kClass}, class_scope, preferred_edition, &why);
    if (!cls) return error_result("Parameter 'class': " + why + ".");
  }
  // The store's class and species names, to tell a "by" part's kind.
  std::vector<std::string> class_names, species_names;
  if (auto names = st.names({Kind::kClass})) {
    for (const auto& n : *names) class_names.push_back(n.name_fold);
  }
  if (auto names = st.names({Kind::kSpecies})) {
    for (const auto& n : *names) species_names.push_back(n.name_fold);
  }
  const auto has = [](const std::vector<std::string>& list, const std::string& folded) {
    return std::find(list.begin(), list.end(), folded) != list.end();
  };
  const int casts_from = cls ? casting_from(*cls) : 0;

  json list = json::array();
  int attuned = 0;
  std::string rows;
  std::vector<std::string> refused, unknown;
  for (const auto& item : args.value("items", json::array())) {
    const std::string given = text::trim(item.get<std::string>());
    std::string why;
    auto e = entity_named(st, given, {Kind::kMagicItem, Kind::kWeapon, Kind::kArmor, Kind::kItem}, scope,
                          preferred_edition, &why);
    if (!e) {
      list.push_back({{"given", given}, {"found", false}, {"why", why}});
      rows += "| " + given + " | not found: " + why + " | |\n";
      unknown.push_back(given);
      continue;
    }
    const bool needs = e->data.value("requires_attunement", false);
    const std::string detail = e->data.value("attunement_detail", "");
    json one = {{"given", given},
                {"found", true},
                {"key", e->key},
                {"name", e->name},
                {"document", e->document.key},
                {"requires_attunement", needs}};
    Verdict v;
    std::string who = needs ? "required" : "not required";
    if (needs) {
      ++attuned;
      const model::AttunementRestriction r = model::attunement_restriction(detail);
      if (!detail.empty()) {
        one["attunement_detail"] = detail;
        who = detail;
      }
      // Each "by" part is a way to qualify: a class, any spellcaster, a species, or something the call cannot tell.
      json classes = json::array(), kinds = json::array(), others = json::array();
      bool unknown_part = false;
      bool met = false;
      for (const auto& part : r.by) {
        const std::string f = text::fold(part);
        if (f == "spellcaster") {
          classes.push_back("spellcaster");
          if (cls) met |= casts_from > 0;
          if (!cls) unknown_part = true;
        } else if (has(class_names, f)) {
          classes.push_back(part);
          if (cls) met |= text::fold(cls->name) == f;
          if (!cls) unknown_part = true;
        } else if (has(species_names, f)) {
          kinds.push_back(part);
          if (!species.empty()) met |= species == f;
          if (species.empty()) unknown_part = true;
        } else {
          others.push_back(part);
          unknown_part = true;
        }
      }
      if (!classes.empty()) one["classes"] = classes;
      if (!kinds.empty()) one["species"] = kinds;
      if (!others.empty()) one["other"] = others;
      if (!r.alignment.empty()) one["alignment"] = r.alignment;
      if (!r.condition.empty()) one["condition"] = r.condition;
      if (!r.by.empty()) {
        if (met) {
          v = {true, "qualifies"};
        } else if (!unknown_part) {
          v = {false, (cls ? cls->name : std::string("the character")) + " is none of " + text::join(r.by, ", ")};
        } else {
          std::vector<std::string> give;
          if (!cls && !classes.empty()) give.push_back("class");
          if (species.empty() && !kinds.empty()) give.push_back("species");
          v = {std::nullopt, "depends on being " + text::join(r.by, " or ") +
                                 (give.empty() ? "" : " (give " + text::join(give, " and ") + ")")};
        }
      } else if (!r.alignment.empty()) {
        if (alignment.empty()) {
          v = {std::nullopt, "depends on alignment: give alignment"};
        } else if (alignment.find(r.alignment) != std::string::npos) {
          v = {true, "qualifies"};
        } else {
          v = {false, "a " + alignment + " creature is not of " + r.alignment + " alignment"};
        }
      } else if (!r.condition.empty()) {
        v = {std::nullopt, "attunement only " + r.condition};
      } else {
        v = {true, detail.empty() ? "the record names no restriction" : "no restriction"};
      }
      // A class was asked about: a spellcaster that casts only from a later level says so.
      if (v.allowed == true && cls && casts_from > 1 && classes.size() == 1 && classes[0] == "spellcaster") {
        v.why = cls->name + " is a spellcaster from level " + std::to_string(casts_from);
      }
    } else {
      v = {true, "no attunement needed"};
    }
    if (v.allowed.has_value()) one["allowed"] = *v.allowed;
    one["why"] = v.why;
    if (v.allowed == false) refused.push_back(e->name);
    list.push_back(one);
    rows += "| " + e->name + " (`" + e->key + "`) | " + who + " | " +
            (v.allowed == false  ? "**no**: "
             : v.allowed == true ? "yes: "
                                 : "unknown: ") +
            v.why + " |\n";
  }
  const std::string character = cls ? "a " + cls->name + (alignment.empty() ? "" : " (" + alignment + ")")
                                : alignment.empty() ? "the character"
                                                    : "a " + alignment + " character";
  std::string text_out = "## Attunement: " + std::to_string(attuned) + " of " + std::to_string(list.size()) +
                         " item(s) need it; a creature has " + std::to_string(kAttunementSlots) + " slots\n\n";
  if (attuned > kAttunementSlots) {
    text_out += "**Over the limit:** " + std::to_string(attuned) + " items need attunement and at most " +
                std::to_string(kAttunementSlots) + " can be attuned at once; choose which.\n\n";
  }
  if (!refused.empty()) text_out += "**Not for " + character + ":** " + text::join(refused, ", ") + ".\n\n";
  text_out += "| item | attunement | for " + character + " |\n|---|---|---|\n" + rows;
  json result = {
      {"items", list}, {"attuned", attuned}, {"slots", kAttunementSlots}, {"over_limit", attuned > kAttunementSlots}};
  if (cls) {
    result["class"] = {{"key", cls->key}, {"name", cls->name}, {"document", cls->document.key}};
    if (casts_from > 0) result["class"]["casts_from_level"] = casts_from;
  }
  ToolResult r;
  r.text = text_out;
  r.structured = {{"result", result}, {"total", static_cast<int>(list.size())}, {"filters", args}};
  if (!unknown.empty()) r.structured["message"] = "Not found: " + text::join(unknown, ", ") + ".";
  return r;
}

}  // namespace lorekeeper::tools::attunement_tool
