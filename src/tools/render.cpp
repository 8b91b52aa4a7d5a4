#include "lorekeeper/tools/render.hpp"

#include <cctype>
#include <cmath>
#include <map>
#include <vector>

#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/challenge.hpp"
#include "lorekeeper/model/derived.hpp"

namespace lorekeeper::tools {

using json = nlohmann::json;
using json_util::num;
using json_util::str;

namespace {

std::string scalar(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) return text::format_number(v.get<double>());
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_array()) {
    std::vector<std::string> parts;
    for (const auto& x : v) parts.push_back(x.is_object() ? str(x, "name") : scalar(x));
    return text::join(parts, ", ");
  }
  return "";
}

void field(std::string& out, const char* label, const json& r, const char* key) {
  auto it = r.find(key);
  if (it == r.end() || it->is_null()) return;
  const std::string s = scalar(*it);
  if (s.empty()) return;
  out += "**" + std::string(label) + ":** " + s + "  \n";
}

// "+6", "-1", "+0".
std::string signed_number(double v) { return (v >= 0 ? "+" : "") + text::format_number(v); }

std::string modifier(double score) { return signed_number(std::floor((score - 10) / 2)); }

// A skill's key as the books write it: "sleight_of_hand" -> "Sleight of Hand", "animal_handling" -> "Animal
// Handling".
std::string skill_title(const std::string& key) {
  std::string out;
  size_t start = 0;
  while (start <= key.size()) {
    size_t end = key.find('_', start);
    if (end == std::string::npos) end = key.size();
    std::string w = key.substr(start, end - start);
    start = end + 1;
    if (w.empty()) continue;
    if (w != "of" && w != "and") w[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(w[0])));
    out += (out.empty() ? "" : " ") + w;
  }
  return out;
}

std::string signed_map(const json& m) {
  std::vector<std::string> parts;
  for (auto it = m.begin(); it != m.end(); ++it) {
    if (!it->is_number()) continue;
    const double v = it->get<double>();
    parts.push_back(skill_title(it.key()) + " " + signed_number(v));
  }
  return text::join(parts, ", ");
}

// Per-ability values in stat-block order (Str, Dex, Con, Int, Wis, Cha): "Dex +6, Con +13".
std::string ability_map(const json& m) {
  static const std::pair<const char*, const char*> kAbilities[] = {{"strength", "Str"},     {"dexterity", "Dex"},
                                                                   {"constitution", "Con"}, {"intelligence", "Int"},
                                                                   {"wisdom", "Wis"},       {"charisma", "Cha"}};
  std::vector<std::string> parts;
  for (const auto& [key, label] : kAbilities) {
    auto v = num(m, key);
    if (!v) continue;
    parts.push_back(std::string(label) + " " + signed_number(*v));
  }
  // Keys that are not the six abilities (an importer's own spelling) follow, as recorded.
  for (auto it = m.begin(); it != m.end(); ++it) {
    if (!it->is_number()) continue;
    bool known = false;
    for (const auto& [key, label] : kAbilities) known = known || it.key() == key;
    if (known) continue;
    parts.push_back(it.key() + " " + signed_number(it->get<double>()));
  }
  return text::join(parts, ", ");
}

void named_entries(std::string& out, const char* heading, const json& list, const std::string& intro = "") {
  if (!list.is_array() || list.empty()) return;
  out += "\n**" + std::string(heading) + "**\n\n";
  if (!intro.empty()) out += intro + "\n\n";
  for (const auto& x : list) {
    std::string name = str(x, "name");
    if (auto u = str(x, "usage"); !u.empty()) name += " (" + u + ")";
    if (auto l = str(x, "limited_to"); !l.empty()) name += " (" + l + ")";
    if (auto sp = str(x, "spell"); !sp.empty()) name += " (" + sp + ")";
    if (auto c = num(x, "cost"); c) name += " (Costs " + text::format_number(*c) + " Actions)";
    if (x.contains("levels") && x["levels"].is_array()) {
      std::vector<std::string> lv;
      const json& details = json_util::child(x, "level_details");
      for (const auto& l : x["levels"]) {
        std::string level = text::format_number(l.get<double>());
        // "17: two uses"; a bare number as the class table writes it: Extra Attack "11 (2)".
        if (const std::string detail = str(details, level.c_str()); !detail.empty()) {
          const bool number = detail.find_first_not_of("0123456789") == std::string::npos;
          level += number ? " (" + detail + ")" : ": " + detail;
        }
        lv.push_back(std::move(level));
      }
      name += " (level " + text::join(lv, ", ") + ")";
    }
    const std::string desc = str(x, "desc");
    out += name.empty() ? "- " + desc + "\n" : "- ***" + name + ".*** " + desc + "\n";
  }
}

// "3rd-level evocation", "Evocation cantrip"; empty without a level.
std::string spell_level_line(const json& r) {
  const auto level = num(r, "level");
  if (!level) return "";
  return *level == 0 ? str(r, "school") + " cantrip"
                     : text::ordinal(static_cast<int>(*level)) + "-level " + text::lower(str(r, "school"));
}

// "simple melee weapon".
std::string weapon_line(const json& r) {
  return str(r, "category") + (r.value("is_melee", true) ? " melee" : " ranged") + " weapon";
}

void render_spell(std::string& out, const json& r) {
  std::string line = spell_level_line(r);
  if (r.value("ritual", false)) line += " (ritual)";
  if (!line.empty()) out += "*" + line + "*\n\n";
  std::string casting = str(r, "casting_time");
  if (!str(r, "reaction_condition").empty()) casting += ", " + str(r, "reaction_condition");
  if (!casting.empty()) out += "**Casting Time:** " + casting + "  \n";
  field(out, "Range", r, "range");
  std::string comps = str(r, "components");
  if (!str(r, "material").empty()) comps += " (" + str(r, "material") + ")";
  if (!comps.empty()) out += "**Components:** " + comps + "  \n";
  std::string duration = str(r, "duration");
  if (r.value("concentration", false)) duration = "Concentration, " + duration;
  if (!duration.empty()) out += "**Duration:** " + duration + "  \n";
  field(out, "Classes", r, "classes");
  field(out, "Subclass Grants", r, "subclass_grants");
  field(out, "Damage", r, "damage_roll");
  field(out, "Healing", r, "healing_roll");
  field(out, "Roll", r, "roll");
  field(out, "Damage Types", r, "damage_types");
  if (std::string save = str(r, "saving_throw_ability"); !save.empty()) {
    save[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(save[0])));  // "dexterity" -> "Dexterity"
    out += "**Saving Throw:** " + save + "  \n";
  }
  field(out, "Area", r, "area");
  if (!str(r, "desc").empty()) out += "\n" + str(r, "desc") + "\n";
  if (!str(r, "higher_level").empty()) out += "\n***At Higher Levels.*** " + str(r, "higher_level") + "\n";
}

void render_creature(std::string& out, const json& r) {
  std::string line = str(r, "size") + " " + text::lower(str(r, "type"));
  if (!str(r, "subcategory").empty()) line += " (" + str(r, "subcategory") + ")";
  if (!str(r, "alignment").empty()) line += ", " + str(r, "alignment");
  out += "*" + line + "*\n\n";
  std::string ac = r.contains("armor_class") ? scalar(r["armor_class"]) : "";
  if (!str(r, "armor_detail").empty()) ac += " (" + str(r, "armor_detail") + ")";
  if (!ac.empty()) out += "**Armor Class:** " + ac + "  \n";
  if (auto init = num(r, "initiative_bonus")) {
    out += "**Initiative:** " + signed_number(*init) + " (" + text::format_number(10 + *init) + ")  \n";
  }
  std::string hp = r.contains("hit_points") ? scalar(r["hit_points"]) : "";
  if (!str(r, "hit_dice").empty()) hp += " (" + str(r, "hit_dice") + ")";
  if (!hp.empty()) out += "**Hit Points:** " + hp + "  \n";
  if (r.contains("speed") && r["speed"].is_object()) {
    std::vector<std::string> parts;
    const json& sp = r["speed"];
    if (auto walk = num(sp, "walk")) parts.push_back(text::format_number(*walk) + " ft.");
    for (auto it = sp.begin(); it != sp.end(); ++it) {
      if (!it->is_number() || it.key() == "walk") continue;
      parts.push_back(it.key() + " " + text::format_number(it->get<double>()) + " ft.");
    }
    if (sp.value("hover", false)) parts.back() += " (hover)";
    std::string speeds = text::join(parts, ", ");
    if (!str(r, "speed_note").empty()) speeds += " (" + str(r, "speed_note") + ")";
    out += "**Speed:** " + speeds + "  \n";
  }
  if (r.contains("ability_scores") && r["ability_scores"].is_object()) {
    const auto& a = r["ability_scores"];
    out += "\n| STR | DEX | CON | INT | WIS | CHA |\n|---|---|---|---|---|---|\n|";
    for (const std::string& k : model::ability_names()) {
      const double v = num(a, k.c_str()).value_or(10);
      out += " " + text::format_number(v) + " (" + modifier(v) + ") |";
    }
    out += "\n\n";
  }
  if (r.contains("saving_throws")) out += "**Saving Throws:** " + ability_map(r["saving_throws"]) + "  \n";
  if (r.contains("skill_bonuses")) out += "**Skills:** " + signed_map(r["skill_bonuses"]) + "  \n";
  field(out, "Damage Vulnerabilities", r, "damage_vulnerabilities");
  field(out, "Damage Resistances", r, "damage_resistances");
  field(out, "Damage Immunities", r, "damage_immunities");
  field(out, "Condition Immunities", r, "condition_immunities");
  if (std::string detail = str(r, "senses_detail"); !detail.empty()) {
    const auto pp = r.contains("senses") ? num(r["senses"], "passive_perception") : std::nullopt;
    if (pp && text::fold(detail).find("passive perception") == std::string::npos)
      detail += ", passive Perception " + text::format_number(*pp);
    out += "**Senses:** " + detail + "  \n";
  } else if (r.contains("senses") && r["senses"].is_object()) {
    std::vector<std::string> parts;
    for (auto it = r["senses"].begin(); it != r["senses"].end(); ++it) {
      if (it.key() == "passive_perception") continue;
      parts.push_back(it.key() + " " + scalar(*it) + " ft.");
    }
    if (auto pp = num(r["senses"], "passive_perception"))
      parts.push_back("passive Perception " + text::format_number(*pp));
    out += "**Senses:** " + text::join(parts, ", ") + "  \n";
  }
  field(out, "Languages", r, "languages");
  if (auto cr = num(r, "challenge_rating")) {
    std::string c = model::cr_text(*cr);
    if (auto xp = num(r, "experience_points")) c += " (" + text::format_number(*xp) + " XP)";
    out += "**Challenge:** " + c + "  \n";
  }
  named_entries(out, "Traits", r.value("traits", json()));
  named_entries(out, "Actions", r.value("actions", json()));
  named_entries(out, "Bonus Actions", r.value("bonus_actions", json()));
  named_entries(out, "Reactions", r.value("reactions", json()));
  named_entries(out, "Legendary Actions", r.value("legendary_actions", json()), str(r, "legendary_desc"));
  named_entries(out, "Mythic Actions", r.value("mythic_actions", json()));
  named_entries(out, "Lair Actions", r.value("lair_actions", json()), str(r, "lair_desc"));
  if (!str(r, "desc").empty()) out += "\n" + str(r, "desc") + "\n";
}

// "Finesse, Thrown (range 20/60), Nick [Mastery]".
std::string property_list(const json& props) {
  std::vector<std::string> parts;
  if (!props.is_array()) return "";
  for (const auto& p : props) {
    std::string s = str(p, "name");
    if (!str(p, "detail").empty()) s += " (" + str(p, "detail") + ")";
    if (!str(p, "type").empty()) s += " [" + str(p, "type") + "]";
    parts.push_back(s);
  }
  return text::join(parts, ", ");
}

// Cost in the coins a price list uses: 0.05 gp is "5 cp", 0.2 gp "2 sp", 2000 gp "2,000 gp".
std::string format_cost(double gp) {
  auto grouped = [](double v) {
    std::string digits = text::format_number(v);
    const size_t dot = digits.find('.');
    const size_t int_end = dot == std::string::npos ? digits.size() : dot;
    for (size_t i = int_end; i > 3; i -= 3) digits.insert(i - 3, ",");
    return digits;
  };
  if (gp >= 1 || gp <= 0) return grouped(gp) + " gp";
  const double sp = gp * 10;
  if (std::abs(sp - std::round(sp)) < 1e-9) return text::format_number(std::round(sp)) + " sp";
  return text::format_number(std::round(gp * 100 * 1000) / 1000) + " cp";
}

// "15 gp", a service's "8 sp per day"; empty without a price.
std::string price(const json& r) {
  const auto c = num(r, "cost_gp");
  if (!c || *c <= 0) return {};
  const std::string per = str(r, "cost_per");
  return format_cost(*c) + (per.empty() ? "" : " " + per);
}

void cost_and_weight(std::string& out, const json& r) {
  if (const std::string p = price(r); !p.empty()) out += "**Cost:** " + p + "  \n";
  if (auto w = num(r, "weight"); w && *w > 0) {
    const std::string unit = str(r, "weight_unit").empty() ? "lb" : str(r, "weight_unit");
    out += "**Weight:** " + text::format_number(*w) + " " + unit + ".  \n";
  }
}

// A weapon's or armor's description from its item, unless it only names the thing ("A longsword.").
void gear_description(std::string& out, const json& r) {
  if (!str(r, "desc").empty() && text::fold(str(r, "desc")) != text::fold("A " + str(r, "name")))
    out += "\n" + str(r, "desc") + "\n";
}

std::string armor_class_line(const json& r) {
  const std::string ac = str(r, "armor_class");
  return !ac.empty() && ac[0] == '+' ? ac + " AC" : ac;
}

void render_weapon(std::string& out, const json& r) {
  out += "*" + weapon_line(r) + "*\n\n";
  field(out, "Damage", r, "damage_dice");
  field(out, "Damage Type", r, "damage_type");
  field(out, "Versatile", r, "versatile_dice");
  if (r.contains("range")) {
    out += "**Range:** " + scalar(r["range"]) + "/" + scalar(r.value("long_range", json(0))) + " " +
           str(r, "distance_unit") + "  \n";
  }
  if (const std::string props = property_list(r.value("properties", json())); !props.empty())
    out += "**Properties:** " + props + "  \n";
  cost_and_weight(out, r);
  gear_description(out, r);
}

void render_armor(std::string& out, const json& r) {
  out += "*" + (str(r, "category") == "shield" ? std::string("shield") : str(r, "category") + " armor") + "*\n\n";
  if (const std::string ac = armor_class_line(r); !ac.empty()) out += "**Armor Class:** " + ac + "  \n";
  field(out, "Strength Required", r, "strength_required");
  out += std::string("**Stealth:** ") + (r.value("stealth_disadvantage", false) ? "Disadvantage" : "—") + "  \n";
  cost_and_weight(out, r);
  gear_description(out, r);
}

// A magic weapon's or armor's base item: "**Base weapon:** Longsword (martial; 1d8 slashing; Sap [Mastery], ...)".
void base_item(std::string& out, const json& r) {
  if (const json& w = r.value("base_weapon", json()); w.is_object()) {
    std::vector<std::string> parts;
    if (!str(w, "category").empty()) parts.push_back(str(w, "category"));
    std::string dmg = str(w, "damage_dice");
    if (!str(w, "damage_type").empty()) dmg += (dmg.empty() ? "" : " ") + text::lower(str(w, "damage_type"));
    if (!dmg.empty()) parts.push_back(dmg);
    if (const std::string props = property_list(w.value("properties", json())); !props.empty()) parts.push_back(props);
    out += "**Base weapon:** " + str(w, "name") + (parts.empty() ? "" : " (" + text::join(parts, "; ") + ")") + "  \n";
  }
  if (const json& a = r.value("base_armor", json()); a.is_object()) {
    std::vector<std::string> parts;
    if (!str(a, "category").empty()) parts.push_back(str(a, "category"));
    if (const std::string ac = armor_class_line(a); !ac.empty()) parts.push_back("AC " + ac);
    if (auto s = num(a, "strength_required"); s && *s > 0) parts.push_back("Str " + text::format_number(*s));
    if (a.value("stealth_disadvantage", false)) parts.push_back("Stealth disadvantage");
    out += "**Base armor:** " + str(a, "name") + (parts.empty() ? "" : " (" + text::join(parts, "; ") + ")") + "  \n";
  }
}

void render_item(std::string& out, const json& r) {
  std::string line = str(r, "category");
  if (!str(r, "rarity").empty()) line += ", " + text::lower(str(r, "rarity"));
  if (r.value("requires_attunement", false)) {
    // Some records' detail repeats the words ("Requires Attunement by a Paladin"): said once.
    std::string detail = text::trim(str(r, "attunement_detail"));
    constexpr std::string_view kSaid = "requires attunement";
    if (text::lower(detail.substr(0, kSaid.size())) == kSaid) detail = text::trim(detail.substr(kSaid.size()));
    line += " (requires attunement" + (detail.empty() ? "" : " " + detail) + ")";
  }
  if (!line.empty()) out += "*" + line + "*\n\n";
  base_item(out, r);
  cost_and_weight(out, r);
  if (!str(r, "desc").empty()) out += "\n" + str(r, "desc") + "\n";
}

// "**Subclasses:** School of Evocation, Circle of the Many (Tome of Heroes)": a child from another document than
// its parent names it.
void child_list(std::string& out, const json& r, const char* key, const char* label) {
  const json& list = r.value(key, json());
  const int elsewhere = r.value(std::string(key) + "_elsewhere", 0);
  const std::string more =
      elsewhere > 0 ? " (" + std::to_string(elsewhere) + " more in documents the call left out)" : "";
  if (!list.is_array() || list.empty()) {
    if (elsewhere > 0) out += "**" + std::string(label) + ":** none in these documents" + more + "  \n";
    return;
  }
  std::vector<std::string> parts;
  for (const auto& c : list) {
    if (c.is_string()) {
      parts.push_back(c.get<std::string>());
    } else {
      parts.push_back(str(c, "name") + (str(c, "source").empty() ? "" : " (" + str(c, "source") + ")"));
    }
  }
  out += "**" + std::string(label) + ":** " + text::join(parts, ", ") + more + "  \n";
}

void class_table(std::string& out, const json& t) {
  if (!t.is_object() || !t.contains("header") || !t.contains("rows")) return;
  const json& header = t["header"];
  out += "\n| ";
  std::string rule = "|";
  for (const auto& h : header) {
    out += (h.is_string() ? h.get<std::string>() : std::string()) + " | ";
    rule += "---|";
  }
  out += "\n" + rule + "\n";
  for (const auto& row : t["rows"]) {
    out += "| ";
    for (const auto& v : row) out += (v.is_string() ? v.get<std::string>() : scalar(v)) + " | ";
    out += "\n";
  }
}

void render_generic(std::string& out, const json& r) {
  field(out, "Subclass of", r, "subclass_of");
  field(out, "Subspecies of", r, "subspecies_of");
  field(out, "Section", r, "section");
  if (str(r, "kind") == "feat") field(out, "Feat Type", r, "type");
  field(out, "Prerequisite", r, "prerequisite");
  field(out, "Hit Dice", r, "hit_dice");
  field(out, "Saving Throws", r, "saving_throws");
  if (str(r, "kind") == "skill" && !str(r, "ability").empty()) {
    // The record names the ability by its key ("str").
    static const std::map<std::string, std::string> kAbilities = {{"str", "Strength"},     {"dex", "Dexterity"},
                                                                  {"con", "Constitution"}, {"int", "Intelligence"},
                                                                  {"wis", "Wisdom"},       {"cha", "Charisma"}};
    auto it = kAbilities.find(text::lower(str(r, "ability")));
    out += "**Ability:** " + (it == kAbilities.end() ? str(r, "ability") : it->second) + "  \n";
  }
  if (str(r, "kind") == "ability-score") field(out, "Skills", r, "skills");
  child_list(out, r, "subclasses", "Subclasses");
  child_list(out, r, "subspecies", "Subspecies");
  class_table(out, r.value("class_table", json()));
  if (!str(r, "desc").empty()) out += "\n" + str(r, "desc") + "\n";
  named_entries(out, "Traits", r.value("traits", json()));
  named_entries(out, "Benefits", r.value("benefits", json()));
  named_entries(out, "Features", r.value("features", json()));
}

}  // namespace

std::string key_facts(const json& r) {
  const std::string kind = str(r, "kind");
  std::vector<std::string> facts;
  if (kind == "spell") {
    if (const std::string level = spell_level_line(r); !level.empty()) facts.push_back(level);
  } else if (kind == "creature") {
    std::string c;
    if (auto cr = num(r, "challenge_rating")) c = "CR " + model::cr_text(*cr);
    const std::string what = text::trim(str(r, "size") + " " + text::lower(str(r, "type")));
    if (!what.empty()) c += (c.empty() ? "" : " ") + what;
    if (!c.empty()) facts.push_back(c);
  } else if (kind == "magic-item") {
    std::string c = text::lower(str(r, "rarity"));
    if (r.value("requires_attunement", false)) c += (c.empty() ? "" : ", ") + std::string("requires attunement");
    if (!c.empty()) facts.push_back(c);
  } else if (kind == "weapon") {
    facts.push_back(weapon_line(r) + (str(r, "damage_dice").empty() ? "" : ", " + str(r, "damage_dice")));
  } else if (kind == "armor") {
    if (!str(r, "armor_class").empty()) facts.push_back("AC " + str(r, "armor_class"));
  } else if (kind == "class" && !str(r, "subclass_of").empty()) {
    facts.push_back("subclass of " + str(r, "subclass_of"));
  } else if (kind == "species" && !str(r, "subspecies_of").empty()) {
    facts.push_back("subspecies of " + str(r, "subspecies_of"));
  }
  if (kind == "weapon" || kind == "armor" || kind == "item") {
    if (const std::string p = price(r); !p.empty()) facts.push_back(p);
  }
  return text::join(facts, ", ");
}

namespace {

// "`srd-2024_wraith` (srd-2024), `a5e-mm_wraith` (a5e-mm)" for a result standing for several editions.
std::string other_editions(const json& r) {
  if (!r.contains("_other_editions") || !r["_other_editions"].is_array()) return "";
  std::vector<std::string> parts;
  for (const auto& o : r["_other_editions"]) parts.push_back("`" + str(o, "key") + "` (" + str(o, "document") + ")");
  return text::join(parts, ", ");
}

}  // namespace

std::string render_summary_line(const json& r) {
  std::string s = "**" + str(r, "name") + "** (" + str(r, "kind") + ", `" + str(r, "key") + "`)";
  if (const std::string facts = key_facts(r); !facts.empty()) s += ": " + facts;
  const json& doc = r.value("document", json::object());
  if (!str(doc, "name").empty()) s += " — " + str(doc, "name");
  if (auto score = num(r, "_score")) {
    // Cut, not rounded, to two places: only an exact name's 1 reads "1.00" (a corrected name's 0.999 is "0.99").
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.2f", std::floor(*score * 100 + 1e-9) / 100);
    s += " · score " + std::string(buf);
  }
  if (const std::string also = other_editions(r); !also.empty()) s += " · also " + also;
  return s;
}

namespace {

// A corrected field's value as a reader knows it: a named object ({"name":"Rare","key":"rare"}) by its name.
std::string shown_value(const json& v) {
  if (v.is_string()) return v.get<std::string>().empty() ? "empty" : "\"" + v.get<std::string>() + "\"";
  if (v.is_object() && v.contains("name") && v["name"].is_string()) return v["name"].get<std::string>();
  return v.dump();
}

// What the sync corrected in the API's record, and why (docs/entity-model.md: record errors).
std::string corrections_line(const json& r) {
  std::string out;
  for (const auto& c : r.value("corrections", json::array())) {
    if (!c.is_object()) continue;
    std::string line = "*Corrected: the Open5e record's `" + str(c, "field") + "`";
    if (c.contains("was") && c.contains("value"))
      line += " is " + shown_value(c["was"]) + ", here " + shown_value(c["value"]);
    out += line + ": " + str(c, "reason") + "*\n\n";  // the evidence is in the structured answer
  }
  return out;
}

}  // namespace

std::string render_entity(const json& r) {
  std::string out = "### " + str(r, "name") + "\n";
  const json& doc = r.value("document", json::object());
  std::string source = "*Source: " + str(doc, "name");
  if (!str(doc, "game_system").empty()) source += " (" + str(doc, "game_system") + ")";
  source += " · key `" + str(r, "key") + "` · " + str(r, "kind") + "*\n\n";
  out += source;
  if (const std::string also = other_editions(r); !also.empty()) out += "*Other editions: " + also + "*\n\n";
  out += corrections_line(r);
  const std::string kind = str(r, "kind");
  if (kind == "spell")
    render_spell(out, r);
  else if (kind == "creature")
    render_creature(out, r);
  else if (kind == "weapon")
    render_weapon(out, r);
  else if (kind == "armor")
    render_armor(out, r);
  else if (kind == "item" || kind == "magic-item")
    render_item(out, r);
  else
    render_generic(out, r);
  // What was left out or cut to fit the answer, and where the rest is.
  if (const std::string cut = str(r, "truncated"); !cut.empty()) out += "\n*" + cut + "*\n";
  return out;
}

}  // namespace lorekeeper::tools
