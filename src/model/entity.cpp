#include "lorekeeper/model/entity.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <tuple>

namespace lorekeeper::model {

namespace {

struct KindName {
  Kind kind;
  std::string_view name;
};

constexpr std::array<KindName, 25> kKindNames = {{
    {Kind::kSpell, "spell"},
    {Kind::kCreature, "creature"},
    {Kind::kClass, "class"},
    {Kind::kSpecies, "species"},
    {Kind::kBackground, "background"},
    {Kind::kFeat, "feat"},
    {Kind::kWeapon, "weapon"},
    {Kind::kArmor, "armor"},
    {Kind::kItem, "item"},
    {Kind::kMagicItem, "magic-item"},
    {Kind::kRule, "rule"},
    {Kind::kRuleSection, "rule-section"},
    {Kind::kCondition, "condition"},
    {Kind::kDamageType, "damage-type"},
    {Kind::kWeaponProperty, "weapon-property"},
    {Kind::kSkill, "skill"},
    {Kind::kAbilityScore, "ability-score"},
    {Kind::kSpellSchool, "spell-school"},
    {Kind::kLanguage, "language"},
    {Kind::kAlignment, "alignment"},
    {Kind::kSize, "size"},
    {Kind::kCreatureType, "creature-type"},
    {Kind::kItemRarity, "item-rarity"},
    {Kind::kItemCategory, "item-category"},
    {Kind::kEnvironment, "environment"},
}};

}  // namespace

const std::vector<Kind>& all_kinds() {
  static const std::vector<Kind> kinds = [] {
    std::vector<Kind> v;
    for (const auto& kn : kKindNames) v.push_back(kn.kind);
    return v;
  }();
  return kinds;
}

std::string_view kind_name(Kind k) {
  for (const auto& kn : kKindNames) {
    if (kn.kind == k) return kn.name;
  }
  return "unknown";
}

std::optional<Kind> parse_kind(std::string_view name) {
  std::string n;
  for (char c : name) {
    char l = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    n.push_back(l == '_' || l == ' ' ? '-' : l);
  }
  for (const auto& kn : kKindNames) {
    if (n == kn.name) return kn.kind;
  }
  // Plurals and common synonyms.
  if (n == "spells") return Kind::kSpell;
  if (n == "creatures" || n == "monster" || n == "monsters") return Kind::kCreature;
  if (n == "classes" || n == "subclass" || n == "subclasses") return Kind::kClass;
  if (n == "race" || n == "races" || n == "subrace" || n == "subraces" || n == "subspecies") return Kind::kSpecies;
  if (n == "backgrounds") return Kind::kBackground;
  if (n == "feats") return Kind::kFeat;
  if (n == "weapons") return Kind::kWeapon;
  if (n == "items" || n == "equipment") return Kind::kItem;
  if (n == "magic-items" || n == "magicitem" || n == "magicitems") return Kind::kMagicItem;
  if (n == "rules") return Kind::kRule;
  if (n == "rule-sections" || n == "ruleset" || n == "rulesets") return Kind::kRuleSection;
  if (n == "conditions") return Kind::kCondition;
  if (n == "magic-school" || n == "spell-schools" || n == "magic-schools") return Kind::kSpellSchool;
  if (n == "ability" || n == "abilities" || n == "ability-scores") return Kind::kAbilityScore;
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
