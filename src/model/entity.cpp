#include "lorekeeper/model/entity.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <tuple>

namespace lorekeeper::model {

namespace {

// One row per kind: its name as stored, its plural, and the other words people use for it (folded as parse_kind
// folds: lower case, '-' for '_' and spaces). The one place kinds are named.
struct KindRow {
  Kind kind;
  std::string_view name;
  std::string_view plural;
  std::array<std::string_view, 5> synonyms;
};

constexpr std::array<KindRow, 25> kKinds = {{
    {Kind::kSpell, "spell", "spells", {}},
    {Kind::kCreature, "creature", "creatures", {"monster", "monsters"}},
    {Kind::kClass, "class", "classes", {"subclass", "subclasses"}},
    {Kind::kSpecies, "species", "species", {"race", "races", "subrace", "subraces", "subspecies"}},
    {Kind::kBackground, "background", "backgrounds", {}},
    {Kind::kFeat, "feat", "feats", {}},
    {Kind::kWeapon, "weapon", "weapons", {}},
    {Kind::kArmor, "armor", "armor", {}},
    {Kind::kItem, "item", "items", {"equipment"}},
    {Kind::kMagicItem, "magic-item", "magic-items", {"magicitem", "magicitems"}},
    {Kind::kRule, "rule", "rules", {}},
    {Kind::kRuleSection, "rule-section", "rule-sections", {"ruleset", "rulesets"}},
    {Kind::kCondition, "condition", "conditions", {}},
    {Kind::kDamageType, "damage-type", "damage-types", {}},
    {Kind::kWeaponProperty, "weapon-property", "weapon-properties", {}},
    {Kind::kSkill, "skill", "skills", {}},
    {Kind::kAbilityScore, "ability-score", "ability-scores", {"ability", "abilities"}},
    {Kind::kSpellSchool, "spell-school", "spell-schools", {"magic-school", "magic-schools"}},
    {Kind::kLanguage, "language", "languages", {}},
    {Kind::kAlignment, "alignment", "alignments", {}},
    {Kind::kSize, "size", "sizes", {}},
    {Kind::kCreatureType, "creature-type", "creature-types", {}},
    {Kind::kItemRarity, "item-rarity", "item-rarities", {}},
    {Kind::kItemCategory, "item-category", "item-categories", {}},
    {Kind::kEnvironment, "environment", "environments", {}},
}};

}  // namespace

const std::vector<Kind>& all_kinds() {
  static const std::vector<Kind> kinds = [] {
    std::vector<Kind> v;
    for (const auto& row : kKinds) v.push_back(row.kind);
    return v;
  }();
  return kinds;
}

std::string_view kind_name(Kind k) {
  for (const auto& row : kKinds) {
    if (row.kind == k) return row.name;
  }
  return "unknown";
}

std::string_view kind_plural(Kind k) {
  for (const auto& row : kKinds) {
    if (row.kind == k) return row.plural;
  }
  return "unknown";
}

std::optional<Kind> parse_kind(std::string_view name) {
  std::string n;
  for (char c : name) {
    char l = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    n.push_back(l == '_' || l == ' ' ? '-' : l);
  }
  for (const auto& row : kKinds) {
    if (n == row.name || n == row.plural) return row.kind;
  }
  for (const auto& row : kKinds) {
    for (std::string_view synonym : row.synonyms) {
      if (!synonym.empty() && n == synonym) return row.kind;
    }
  }
  return std::nullopt;
}

}  // namespace lorekeeper::model

namespace lorekeeper::model {

std::string slug(std::string_view s) {
  std::string out;
  bool dash = false;
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      if (dash && !out.empty()) out.push_back('-');
      dash = false;
      out.push_back(static_cast<char>(std::tolower(u)));
    } else if (c == '\'' || c == '\x27') {
      continue;
    } else {
      dash = true;
    }
  }
  return out;
}

std::string normalize_casting_time(std::string_view s) {
  std::string t = slug(s);  // "1-bonus-action", "10-minutes", "action"
  for (const char* unit : {"action", "bonus-action", "reaction", "turn", "round"}) {
    if (t == std::string("1-") + unit) return unit;
  }
  if (t == "bonus" || t == "bonus-actions") return "bonus-action";
  std::string out;
  for (char c : t) {
    if (c != '-') out.push_back(c);
  }
  if (out == "bonusaction") return "bonus-action";
  return out;
}

std::string casting_time_text(std::string_view t) {
  for (std::string_view unit : {"action", "bonus-action", "reaction", "turn", "round"}) {
    if (t == unit) {
      std::string out = "1 " + std::string(unit);
      std::replace(out.begin(), out.end(), '-', ' ');
      return out;
    }
  }
  size_t digits = 0;
  while (digits < t.size() && std::isdigit(static_cast<unsigned char>(t[digits]))) ++digits;
  const std::string_view unit = t.substr(digits);
  static const std::string_view kUnits[] = {"minute", "minutes", "hour", "hours", "day", "days", "week", "weeks"};
  if (digits == 0 || std::find(std::begin(kUnits), std::end(kUnits), unit) == std::end(kUnits)) return std::string(t);
  return std::string(t.substr(0, digits)) + " " + std::string(unit);
}

bool is_preferred_edition(std::string_view game_system) { return game_system == "5e-2014" || game_system == "5e-2024"; }

namespace {

// A document's standing among editions: its game system (the preferred one, the other 5e rules, any other), then
// whether it is an SRD (published by Wizards of the Coast).
std::pair<int, int> standing(const Document& d, std::string_view preferred) {
  const int system = d.game_system == preferred ? 0 : is_preferred_edition(d.game_system) ? 1 : 2;
  const int srd = d.publisher == "Wizards of the Coast" ? 0 : 1;
  return {system, srd};
}

}  // namespace

bool edition_before(const Document& a, const Document& b, std::string_view preferred) {
  const auto sa = standing(a, preferred), sb = standing(b, preferred);
  return sa != sb ? sa < sb : a.key < b.key;
}

bool edition_preferred(const Document& a, const Document& b, std::string_view preferred) {
  return standing(a, preferred) < standing(b, preferred);
}

}  // namespace lorekeeper::model
