#include "lorekeeper/tools/routes.hpp"

#include <algorithm>

namespace lorekeeper::tools {

using model::Kind;

const std::vector<KindRoute>& kind_routes() {
  static const std::vector<KindRoute> kRoutes = {
      {"search_spell", "", "spell", {Kind::kSpell}},
      {"search_creature", "", "creature", {Kind::kCreature}},
      // "race" and "species" are one: the 2014 books' word and the 2024 books' (and the results').
      {"search_character_option", "type", "class", {Kind::kClass}},
      {"search_character_option", "type", "race", {Kind::kSpecies}},
      {"search_character_option", "type", "species", {Kind::kSpecies}},
      {"search_character_option", "type", "background", {Kind::kBackground}},
      {"search_character_option", "type", "feat", {Kind::kFeat}},
      {"search_equipment", "type", "weapon", {Kind::kWeapon}},
      {"search_equipment", "type", "armor", {Kind::kArmor}},
      {"search_equipment", "type", "magic-item", {Kind::kMagicItem}},
      {"search_equipment", "type", "item", {Kind::kItem}},
      {"search_rule", "rule_type", "rule", {Kind::kRule, Kind::kRuleSection}},
      {"search_rule", "rule_type", "condition", {Kind::kCondition}},
      {"search_rule", "rule_type", "damage-type", {Kind::kDamageType}},
      {"search_rule", "rule_type", "weapon-property", {Kind::kWeaponProperty}},
      {"search_rule", "rule_type", "skill", {Kind::kSkill}},
      {"search_rule", "rule_type", "ability-score", {Kind::kAbilityScore}},
      {"search_rule", "rule_type", "magic-school", {Kind::kSpellSchool}},
      {"search_rule", "rule_type", "language", {Kind::kLanguage}},
      {"search_rule", "rule_type", "proficiency", {Kind::kSkill, Kind::kWeaponProperty}},
      {"search_rule", "rule_type", "alignment", {Kind::kAlignment}},
      {"search_rule", "rule_type", "rule-section", {Kind::kRuleSection}},
      {"search_rule", "rule_type", "size", {Kind::kSize}},
      {"search_rule", "rule_type", "creature-type", {Kind::kCreatureType}},
      {"search_rule", "rule_type", "item-rarity", {Kind::kItemRarity}},
      {"search_rule", "rule_type", "item-category", {Kind::kItemCategory}},
      {"search_rule", "rule_type", "environment", {Kind::kEnvironment}},
  };
  return kRoutes;
}

std::vector<std::string> type_values(std::string_view tool) {
  std::vector<std::string> out;
  for (const KindRoute& r : kind_routes()) {
    if (r.tool == tool && !r.param.empty()) out.emplace_back(r.value);
  }
  return out;
}

std::vector<Kind> kinds_of(std::string_view tool, std::string_view value) {
  for (const KindRoute& r : kind_routes()) {
    if (r.tool == tool && r.value == value) return r.kinds;
  }
  std::vector<Kind> all;
  for (const KindRoute& r : kind_routes()) {
    if (r.tool != tool) continue;
    for (Kind k : r.kinds) {
      if (std::find(all.begin(), all.end(), k) == all.end()) all.push_back(k);
    }
  }
  return all;
}

const KindRoute* route_of(Kind kind) {
  for (const KindRoute& r : kind_routes()) {
    if (r.kinds.size() == 1 && r.kinds.front() == kind) return &r;
  }
  for (const KindRoute& r : kind_routes()) {
    if (std::find(r.kinds.begin(), r.kinds.end(), kind) != r.kinds.end()) return &r;
  }
  return nullptr;
}

const KindRoute* route_named(std::string_view value) {
  for (const KindRoute& r : kind_routes()) {
    if (r.value == value) return &r;
  }
  return nullptr;
}

}  // namespace lorekeeper::tools
