// Weapons, armor, items and magic items from Open5e v2 and v1: the gear half of the mapper (mapper_parts.hpp).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/core/text.hpp"
#include "mapper_parts.hpp"

namespace lorekeeper::open5e {

using json_util::child;
using json_util::num;
using json_util::str;

namespace detail {

namespace {

// The SRD weapon tables sort weapons into melee and ranged. v1 records state that category; v2 records do not
// (and v2's item sets list the 2024 thrown melee weapons among the ranged ones), so for the two SRDs' weapons it
// comes from these tables: their ranged weapons (SRD 5.1 "Weapons" table, SRD 5.2 "Weapons" table). Any other
// weapon without a stated category is ranged when it has the Ammunition property. Having a range decides nothing:
// the thrown melee weapons (Dagger, Handaxe, Javelin, Light Hammer, Spear, Trident) have one.
bool is_ranged_weapon(const std::string& document_key, const std::string& name,
                      const std::vector<std::string>& property_slugs) {
  static const std::set<std::string> kSrdRanged = {
      // folded names: "Crossbow, hand" is "crossbow hand"
      "blowgun",  "crossbow hand", "crossbow heavy", "crossbow light", "dart",           "longbow", "net",
      "shortbow", "sling",         "hand crossbow",  "heavy crossbow", "light crossbow", "musket",  "pistol"};
  if (document_key == "srd-2014" || document_key == "srd-2024") return kSrdRanged.count(text::fold(name)) > 0;
  return std::find(property_slugs.begin(), property_slugs.end(), "ammunition") != property_slugs.end();
}

// Whether an item and the weapon or armor it links to are one thing: the same name, or the armor's name with
// "Armor" added ("Plate Armor" for "Plate").
bool same_gear(const std::string& item_name, const std::string& target_name) {
  const std::string a = text::fold(item_name);
  const std::string b = text::fold(target_name);
  return a == b || a == b + " armor" || b == a + " armor";
}

// The Armor Class a bonus item's description states: "increases your Armor Class by 2" -> 2.
std::optional<int> stated_ac_bonus(const std::string& desc) {
  const std::string folded = text::fold(desc);
  const std::string marker = "armor class by ";
  const size_t at = folded.find(marker);
  if (at == std::string::npos) return std::nullopt;
  size_t i = at + marker.size();
  int v = 0;
  size_t digits = 0;
  while (i < folded.size() && std::isdigit(static_cast<unsigned char>(folded[i])) && digits < 3) {
    v = v * 10 + (folded[i++] - '0');
    ++digits;
  }
  if (digits == 0) return std::nullopt;
  return v;
}

// An Armor Class below 10 is a bonus added to another (a shield's "+2"), never a creature's whole Armor Class.
std::string armor_class_text(const std::string& display, std::optional<double> base) {
  if (base && *base > 0 && *base < 10 && (display.empty() || display == text::format_number(*base)))
    return "+" + text::format_number(*base);
  return display;
}

// "25 gp" / "5 sp" / "2 cp" / "2,000 gp" -> gold pieces.
std::optional<double> parse_cost(const std::string& raw) {
  std::string s;
  for (size_t i = 0; i < raw.size(); ++i) {
    // A comma between digits groups thousands.
    if (raw[i] == ',' && i > 0 && i + 1 < raw.size() && std::isdigit(static_cast<unsigned char>(raw[i - 1])) &&
        std::isdigit(static_cast<unsigned char>(raw[i + 1]))) {
      continue;
    }
    s.push_back(raw[i]);
  }
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || !std::isfinite(v) || v < 0) return std::nullopt;
  const std::string unit = text::lower(text::trim(end));
  if (unit.rfind("gp", 0) == 0 || unit.empty()) return v;
  if (unit.rfind("sp", 0) == 0) return v / 10;
  if (unit.rfind("cp", 0) == 0) return v / 100;
  if (unit.rfind("pp", 0) == 0) return v * 10;
  if (unit.rfind("ep", 0) == 0) return v / 2;
  return std::nullopt;
}

// "8 lb." -> 8, "1/4 lb." -> 0.25.
std::optional<double> parse_weight(const std::string& s) {
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || !std::isfinite(v) || v < 0) return std::nullopt;
  if (*end == '/') {
    char* denom_end = nullptr;
    const double denom = std::strtod(end + 1, &denom_end);
    if (denom_end == end + 1 || !(denom > 0) || !std::isfinite(denom)) return std::nullopt;
    v /= denom;
  }
  return v;
}

// A v1 record's price and weight as text ("2,000 gp", "1/4 lb.") into cost_gp and weight in pounds.
void v1_cost_and_weight(const json& rec, Entity& e) {
  e.facets.cost = parse_cost(str(rec, "cost"));
  e.facets.weight = parse_weight(str(rec, "weight"));
  if (e.facets.cost) e.data["cost_gp"] = *e.facets.cost;
  if (e.facets.weight) {
    e.data["weight"] = *e.facets.weight;
    e.data["weight_unit"] = "lb";
  }
}

// A /v2/items/ record's cost and weight (decimal strings in gold pieces and its weight unit) into cost_gp and weight.
// A cost of "0.00" is no price: every magic item without one has it (2,000 of them), and so do a few gear items
// the SRD prices (SRD 5.1's Acid, 25 gp); read as free, they would pass every cost_max.
void v2_cost_and_weight(const json& item, Entity& e) {
  e.facets.cost = num(item, "cost");
  if (e.facets.cost && *e.facets.cost <= 0) e.facets.cost.reset();
  e.facets.weight = num(item, "weight");
  if (e.facets.cost) e.data["cost_gp"] = *e.facets.cost;
  if (e.facets.weight) {
    e.data["weight"] = *e.facets.weight;
    put_str(e.data, "weight_unit", str(item, "weight_unit"));
  }
}

// A property as v1 writes it, "thrown (range 20/60)", as its name and detail: {"thrown", "range 20/60"}.
std::pair<std::string, std::string> split_property(const std::string& text) {
  if (const auto open = text.find(" ("); open != std::string::npos && !text.empty() && text.back() == ')')
    return {text.substr(0, open), text.substr(open + 2, text.size() - open - 3)};
  return {text, ""};
}

// "two-handed" -> "Two-Handed": a v1 property name spelled as v2 spells its property names.
std::string property_title(std::string name) {
  bool start = true;
  for (auto& c : name) {
    if (start) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    start = c == ' ' || c == '-';
  }
  return name;
}

// v2's properties of an SRD 5.1 weapon replaced by the SRD table's (see note_srd_weapon) when the two disagree in
// names or in a detail both state; Mastery properties (none in SRD 5.1) stay.
json with_table_properties(json props, const std::vector<std::string>& table) {
  if (table.empty()) return props;
  std::map<std::string, const json*> v2;  // folded name ("special" for v2's "Special (Lance)") -> v2's property
  for (const auto& p : props) {
    if (str(p, "type") != "Mastery") v2[text::fold(split_property(str(p, "name")).first)] = &p;
  }
  bool same = v2.size() == table.size();
  for (const auto& entry : table) {
    const auto [name, detail] = split_property(entry);
    const auto it = v2.find(text::fold(name));
    if (it == v2.end() || (!detail.empty() && text::fold(detail) != text::fold(str(*it->second, "detail"))))
      same = false;
  }
  if (same) return props;
  json out = json::array();
  for (const auto& entry : table) {
    const auto [name, detail] = split_property(entry);
    const auto it = v2.find(text::fold(name));
    json x = {{"name", it != v2.end() ? str(*it->second, "name") : property_title(name)}};
    put_str(x, "detail", !detail.empty() ? detail : it != v2.end() ? str(*it->second, "detail") : std::string());
    out.push_back(std::move(x));
  }
  for (const auto& p : props) {
    if (str(p, "type") == "Mastery") out.push_back(p);
  }
  return out;
}

// A v2 weapon's (or a magic item's base weapon's) properties: [{name, type ("Mastery"), detail ("1d10")}]; an
// SRD 5.1 weapon's as its table gives them.
json v2_weapon_properties(const json& weapon, const MappingContext& ctx) {
  json props = json::array();
  const json& ps = child(weapon, "properties");
  if (ps.is_array()) {
    for (const auto& p : ps) {
      const json& prop = child(p, "property");
      const std::string n = name_of(prop);
      if (n.empty()) continue;
      json x = {{"name", n}};
      put_str(x, "type", str(prop, "type"));
      put_str(x, "detail", str(p, "detail"));
      props.push_back(std::move(x));
    }
  }
  if (const auto it = ctx.srd_weapon_properties.find(key_of(weapon)); it != ctx.srd_weapon_properties.end())
    return with_table_properties(std::move(props), it->second);
  return props;
}

// Armor that adds to another Armor Class (a shield): shown "+2", its facet the bonus.
void set_ac_bonus(Entity& e, int bonus) {
  e.data["armor_class"] = "+" + std::to_string(bonus);
  e.data["ac_base"] = bonus;
  e.facets.armor_class = bonus;
}

}  // namespace

void map_weapon(const json& rec, Entity& e, const MappingContext& ctx) {
  auto& f = e.facets;
  auto& d = e.data;
  f.damage_dice = text::lower(str(rec, "damage_dice"));
  put_str(d, "damage_dice", str(rec, "damage_dice"));
  const json& dt = child(rec, "damage_type");
  put_str(d, "damage_type", name_of(dt));
  if (!key_of(dt).empty()) f.damage_types.push_back(text::lower(key_of(dt)));
  f.is_simple = json_util::boolean(rec, "is_simple").value_or(false);
  d["category"] = *f.is_simple ? "simple" : "martial";
  f.type = *f.is_simple ? "simple" : "martial";
  const auto range = num(rec, "range").value_or(0);
  const auto long_range = num(rec, "long_range").value_or(0);
  if (range > 0) {
    d["range"] = range;
    d["long_range"] = long_range;
    put_str(d, "distance_unit", str(rec, "distance_unit"));
  }
  if (json_util::boolean(rec, "is_improvised").value_or(false)) d["is_improvised"] = true;
  const json props = v2_weapon_properties(rec, ctx);
  std::vector<std::string> parts;
  for (const auto& p : props) {
    const std::string n = str(p, "name");
    const std::string detail = str(p, "detail");
    if (text::lower(n) == "versatile" && !detail.empty()) d["versatile_dice"] = detail;
    f.properties.push_back(model::slug(n));
    parts.push_back(n + (detail.empty() ? "" : " (" + detail + ")"));
  }
  put_if(d, "properties", props);
  d["is_melee"] = !is_ranged_weapon(e.document.key, e.name, f.properties);
  e.text = name_of(dt) + " damage " + str(rec, "damage_dice") + ". " + text::join(parts, ", ");
}

// Cost and weight of a weapon or armor, from the /v2/items/ record that describes it (see note_gear_item).
void add_gear_info(Entity& e, const MappingContext& ctx) {
  auto it = ctx.gear.find(e.key);
  if (it == ctx.gear.end()) return;
  const json& item = it->second;
  v2_cost_and_weight(item, e);
  put_str(e.data, "desc", str(item, "desc"));
}

void map_armor(const json& rec, Entity& e) {
  auto& f = e.facets;
  auto& d = e.data;
  f.type = text::lower(str(rec, "category"));
  put_str(d, "category", str(rec, "category"));
  put_str(d, "armor_class", armor_class_text(str(rec, "ac_display"), num(rec, "ac_base")));
  if (auto b = num(rec, "ac_base")) {
    d["ac_base"] = *b;
    f.armor_class = static_cast<int>(*b);
  }
  if (auto v = json_util::boolean(rec, "ac_add_dexmod")) d["ac_add_dex_modifier"] = *v;
  if (auto v = num(rec, "ac_cap_dexmod")) d["ac_dex_modifier_max"] = *v;
  d["stealth_disadvantage"] = json_util::boolean(rec, "grants_stealth_disadvantage").value_or(false);
  if (auto v = num(rec, "strength_score_required")) d["strength_required"] = *v;
  // Body armor sets AC to 10 or more; a flat base under 10 without Dexterity is a bonus worn on top: a shield,
  // whatever category the record names (SRD 5.2's Shield is recorded as heavy armor).
  const auto base = num(rec, "ac_base");
  if (base && *base > 0 && *base < 10 && !json_util::boolean(rec, "ac_add_dexmod").value_or(false)) {
    f.type = "shield";
    d["category"] = "shield";
  }
  e.text = str(d, "category") + " armor. AC " + str(d, "armor_class");
}

// An item that is armor with no armor record: see map_standalone_armor.
void map_item_armor(const json& rec, Entity& e, const MappingContext& ctx) {
  map_item_common(rec, e, ctx);
  auto& f = e.facets;
  auto& d = e.data;
  f.type = key_of(child(rec, "category")) == "shield" ? "shield" : text::lower(name_of(child(rec, "category")));
  d["category"] = f.type;
  d["stealth_disadvantage"] = false;
  if (auto bonus = stated_ac_bonus(str(rec, "desc"))) set_ac_bonus(e, *bonus);
  e.text = f.type + " armor. AC " + str(d, "armor_class") + ". " + str(rec, "desc");
}

void map_service(const json& rec, Entity& e) {
  e.facets.type = "service";
  e.data["category"] = "Service";
  v2_cost_and_weight(rec, e);
  std::string per = text::trim(str(rec, "detail"));
  if (text::fold(per) == "1 day") per = "per day";
  if (!per.empty() && text::fold(per) != "none") e.data["cost_per"] = per;
  put_str(e.data, "desc", str(rec, "desc"));
  e.text = str(rec, "desc");
}

void map_item_common(const json& rec, Entity& e, const MappingContext& ctx) {
  auto& f = e.facets;
  auto& d = e.data;
  const json& cat = child(rec, "category");
  f.type = text::lower(key_of(cat));
  put_str(d, "category", name_of(cat));
  v2_cost_and_weight(rec, e);
  put_str(d, "size", name_of(child(rec, "size")));
  put_str(d, "desc", str(rec, "desc"));
  if (const json& w = child(rec, "weapon"); w.is_object()) {
    put_str(d, "weapon", name_of(w));
    json base = {{"name", name_of(w)}};
    put_str(base, "key", key_of(w));
    put_str(base, "damage_dice", str(w, "damage_dice"));
    put_str(base, "damage_type", name_of(child(w, "damage_type")));
    put_if(base, "properties", v2_weapon_properties(w, ctx));
    if (auto simple = json_util::boolean(w, "is_simple")) base["category"] = *simple ? "simple" : "martial";
    d["base_weapon"] = std::move(base);
  }
  if (const json& a = child(rec, "armor"); a.is_object()) {
    put_str(d, "armor", name_of(a));
    json base = {{"name", name_of(a)}};
    put_str(base, "key", key_of(a));
    put_str(base, "category", str(a, "category"));
    put_str(base, "armor_class", armor_class_text(str(a, "ac_display"), num(a, "ac_base")));
    if (auto v = json_util::boolean(a, "grants_stealth_disadvantage")) base["stealth_disadvantage"] = *v;
    if (auto v = num(a, "strength_score_required")) base["strength_required"] = *v;
    d["base_armor"] = std::move(base);
  }
  e.text = str(rec, "desc");
}

void map_magic_item(const json& rec, Entity& e, const MappingContext& ctx) {
  map_item_common(rec, e, ctx);
  auto& f = e.facets;
  auto& d = e.data;
  const json& rarity = child(rec, "rarity");
  f.rarity = text::lower(key_of(rarity));
  put_str(d, "rarity", name_of(rarity));
  f.requires_attunement = json_util::boolean(rec, "requires_attunement").value_or(false);
  d["requires_attunement"] = *f.requires_attunement;
  put_str(d, "attunement_detail", str(rec, "attunement_detail"));
}

void map_v1_magic_item(const json& rec, Entity& e) {
  auto& f = e.facets;
  auto& d = e.data;
  put_str(d, "category", str(rec, "type"));
  f.type = model::slug(str(rec, "type"));
  put_str(d, "rarity", str(rec, "rarity"));
  f.rarity = model::slug(str(rec, "rarity"));
  const std::string att = text::lower(str(rec, "requires_attunement"));
  f.requires_attunement = att.find("requires attunement") != std::string::npos;
  d["requires_attunement"] = *f.requires_attunement;
  const size_t by = att.find("by ");
  if (*f.requires_attunement && by != std::string::npos)
    d["attunement_detail"] = str(rec, "requires_attunement").substr(by);
  put_str(d, "desc", str(rec, "desc"));
  e.text = str(rec, "desc");
}

void map_v1_weapon(const json& rec, Entity& e) {
  auto& f = e.facets;
  auto& d = e.data;
  const std::string category = text::lower(str(rec, "category"));  // "martial melee weapons"
  f.is_simple = category.find("simple") != std::string::npos;
  d["category"] = *f.is_simple ? "simple" : "martial";
  f.type = *f.is_simple ? "simple" : "martial";
  d["is_melee"] = category.find("ranged") == std::string::npos;
  f.damage_dice = text::lower(str(rec, "damage_dice"));
  put_str(d, "damage_dice", str(rec, "damage_dice"));
  put_str(d, "damage_type", str(rec, "damage_type"));
  if (!str(rec, "damage_type").empty()) f.damage_types.push_back(text::lower(str(rec, "damage_type")));
  v1_cost_and_weight(rec, e);
  json props = json::array();
  std::vector<std::string> parts;
  const json& ps = child(rec, "properties");
  if (ps.is_array()) {
    for (const auto& p : ps) {
      if (!p.is_string()) continue;
      const auto [name, detail] = split_property(p.get<std::string>());
      json x = {{"name", name}};
      put_str(x, "detail", detail);
      if (text::lower(name) == "versatile" && !detail.empty()) d["versatile_dice"] = detail;
      f.properties.push_back(model::slug(name));
      props.push_back(std::move(x));
      parts.push_back(p.get<std::string>());
    }
  }
  put_if(d, "properties", props);
  e.text = str(rec, "damage_type") + " damage " + str(rec, "damage_dice") + ". " + text::join(parts, ", ");
}

void map_v1_armor(const json& rec, Entity& e) {
  auto& f = e.facets;
  auto& d = e.data;
  std::string category = text::lower(str(rec, "category"));  // "light armor"
  if (const auto sp = category.find(" armor"); sp != std::string::npos) category = category.substr(0, sp);
  f.type = category;
  d["category"] = category;
  put_str(d, "armor_class", str(rec, "ac_string"));
  if (auto b = num(rec, "base_ac")) {
    d["ac_base"] = *b;
    f.armor_class = static_cast<int>(*b);
  }
  if (auto v = json_util::boolean(rec, "plus_dex_mod")) d["ac_add_dex_modifier"] = *v;
  if (auto m = num(rec, "plus_max"); m && *m > 0) d["ac_dex_modifier_max"] = *m;
  // A flat bonus on a base of 0 is a bonus item (SRD 5.1's Shield is recorded as base 0, "0 +2"); so is a shield's,
  // whatever base it is recorded with (Tome of Heroes writes its shields as "11 + Dex modifier +2", the AC of one
  // who wears nothing else): a shield adds its bonus, never a base or Dexterity (ac_add_dex_modifier false).
  if (auto flat = num(rec, "plus_flat_mod");
      flat && *flat > 0 && (num(rec, "base_ac").value_or(0) == 0 || category == "shield")) {
    set_ac_bonus(e, static_cast<int>(*flat));
    d["ac_add_dex_modifier"] = false;
    d.erase("ac_dex_modifier_max");
  }
  d["stealth_disadvantage"] = json_util::boolean(rec, "stealth_disadvantage").value_or(false);
  if (auto v = num(rec, "strength_requirement"); v && *v > 0) d["strength_required"] = *v;
  v1_cost_and_weight(rec, e);
  e.text = category + " armor. AC " + str(d, "armor_class");
}

}  // namespace detail

using detail::key_of;
using detail::name_of;
using detail::same_gear;

bool note_gear_item(const json& rec, MappingContext& ctx) {
  for (const char* link : {"weapon", "armor"}) {
    const json& target = child(rec, link);
    if (!target.is_object()) continue;
    const std::string key = key_of(target);
    if (key.empty() || !same_gear(str(rec, "name"), name_of(target))) continue;
    ctx.gear[key] = rec;
    return true;
  }
  // An item that is armor with no armor record of its own (SRD 5.1's Shield) becomes an armor entity.
  const std::string category = key_of(child(rec, "category"));
  if ((category == "shield" || category == "armor") && child(rec, "armor").is_null() && !str(rec, "key").empty()) {
    ctx.standalone_armor.push_back(rec);
    return true;
  }
  return false;
}

bool note_srd_weapon(const json& rec, MappingContext& ctx) {
  const std::string slug = str(rec, "slug");
  if (str(rec, "document__slug") != "wotc-srd" || slug.empty()) return false;
  const json& ps = child(rec, "properties");
  if (!ps.is_array() || ps.empty()) return false;
  std::vector<std::string> properties;
  for (const auto& p : ps) {
    if (!p.is_string() || p.get_ref<const std::string&>().empty()) return false;
    properties.push_back(p.get<std::string>());
  }
  ctx.srd_weapon_properties["srd_" + slug] = std::move(properties);
  return true;
}

std::vector<std::string> noted_properties(const Entity& weapon) {
  std::vector<std::string> out;
  const json& ps = child(weapon.data, "properties");
  if (!ps.is_array()) return out;
  for (const auto& p : ps) {
    if (str(p, "type") == "Mastery" || str(p, "name").empty()) continue;
    const std::string detail = str(p, "detail");
    out.push_back(text::lower(str(p, "name")) + (detail.empty() ? "" : " (" + detail + ")"));
  }
  return out;
}

}  // namespace lorekeeper::open5e
