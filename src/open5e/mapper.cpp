#include "lorekeeper/open5e/mapper.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <optional>
#include <set>

#include <re2/re2.h>

#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/derived.hpp"
#include "mapper_parts.hpp"

namespace lorekeeper::open5e {

using json_util::child;
using json_util::num;
using json_util::str;

namespace detail {

std::string name_of(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  return str(v, "name");
}
std::string key_of(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  return str(v, "key");
}

void put_if(json& data, const char* field, const json& value) {
  if (value.is_null()) return;
  if (value.is_string() && value.get_ref<const std::string&>().empty()) return;
  if ((value.is_array() || value.is_object()) && value.empty()) return;
  data[field] = value;
}

void put_str(json& data, const char* field, const std::string& value) {
  if (!value.empty()) data[field] = value;
}

json named_list(const json& arr, const char* name_field) {
  json out = json::array();
  if (!arr.is_array()) return out;
  for (const auto& x : arr) {
    const std::string n = x.is_string() ? x.get<std::string>() : str(x, name_field);
    if (!n.empty()) out.push_back(n);
  }
  return out;
}

}  // namespace detail

using namespace detail;  // the shared helpers and the gear mappers (gear.cpp)

namespace {

const std::vector<Endpoint> kEndpoints = {
    {"spellschools", Kind::kSpellSchool},
    {"damagetypes", Kind::kDamageType},
    {"weaponproperties", Kind::kWeaponProperty},
    {"skills", Kind::kSkill},
    {"abilities", Kind::kAbilityScore},
    {"languages", Kind::kLanguage},
    {"alignments", Kind::kAlignment},
    {"sizes", Kind::kSize},
    {"creaturetypes", Kind::kCreatureType},
    {"itemrarities", Kind::kItemRarity},
    {"itemcategories", Kind::kItemCategory},
    {"environments", Kind::kEnvironment},
    {"conditions", Kind::kCondition},
    {"rulesets", Kind::kRuleSection},
    {"rules", Kind::kRule},
    {"spells", Kind::kSpell},
    {"creatures", Kind::kCreature},
    {"classes", Kind::kClass},
    {"species", Kind::kSpecies},
    {"backgrounds", Kind::kBackground},
    {"feats", Kind::kFeat},
    // Items before weapons and armor: an item that is a weapon or armor lends them its cost and weight.
    {"items", Kind::kItem},
    {"weapons", Kind::kWeapon},
    {"armor", Kind::kArmor},
    {"magicitems", Kind::kMagicItem},
};

// Text of a "descriptions" array (reference kinds carry one description per document).
std::string descriptions_text(const json& rec) {
  std::vector<std::string> parts;
  const std::string d = str(rec, "desc");
  if (!d.empty() && d != "[None provided]") parts.push_back(d);
  const json& ds = child(rec, "descriptions");
  if (ds.is_array()) {
    for (const auto& x : ds) {
      const std::string t = str(x, "desc");
      if (!t.empty()) parts.push_back(t);
    }
  }
  return text::join(parts, "\n\n");
}

// Resolves the record's document: an embedded object, or a key looked up in the documents list.
Result<Document> resolve_document(const json& rec, const MappingContext& ctx) {
  const json& d = child(rec, "document");
  std::string key;
  if (d.is_object())
    key = str(d, "key");
  else if (d.is_string())
    key = d.get<std::string>();
  if (key.empty()) {
    // Rules carry the document as a URL: https://api.open5e.com/v2/documents/srd-2024/
    return Status::invalid_argument("record has no document");
  }
  if (key.rfind("http", 0) == 0) {
    std::string k = key;
    while (!k.empty() && k.back() == '/') k.pop_back();
    key = k.substr(k.find_last_of('/') + 1);
  }
  Document doc;
  if (auto it = ctx.documents.find(key); it != ctx.documents.end()) {
    doc = it->second;
  } else {
    doc.key = key;
    if (d.is_object()) {
      doc.name = str(d, "name");
      doc.display_name = str(d, "display_name");
      doc.publisher = name_of(child(d, "publisher"));
      doc.game_system = key_of(child(d, "gamesystem"));
      doc.url = str(d, "permalink");
    }
    if (doc.name.empty()) doc.name = key;
  }
  doc.source_api = "open5e_v2";
  return doc;
}

std::string components_of(const json& rec) {
  std::vector<std::string> c;
  if (json_util::boolean(rec, "verbal").value_or(false)) c.push_back("V");
  if (json_util::boolean(rec, "somatic").value_or(false)) c.push_back("S");
  if (json_util::boolean(rec, "material").value_or(false)) c.push_back("M");
  return text::join(c, ", ");
}

// Where a spell's roll goes: "damage_roll" when it deals a damage type, "healing_roll" when instead its text says
// creatures regain hit points and never mentions damage, else "roll".
const char* spell_roll_field(const std::vector<std::string>& damage_types, const std::string& desc) {
  if (!damage_types.empty()) return "damage_roll";
  const std::string t = text::fold(desc);
  if (t.find("regain") != std::string::npos && t.find("hit point") != std::string::npos &&
      t.find("damage") == std::string::npos) {
    return "healing_roll";
  }
  return "roll";
}

// A spell's class lists as v1 states them (note_v1_spell): the classes v1 lists it for, after the record's own
// classes; a class of the record that v1 names only through a subclass's grant is removed (both API versions put
// the Light domain's Burning Hands on the Cleric's list), and the grants are kept as `subclass_grants`. Facets as
// map_spell writes them (an SRD 5.1 class's key is "srd_" + its slug).
void apply_v1_classes(const json& rec, const V1SpellClasses& noted, Entity& e) {
  std::set<std::string> granted_to, own;
  for (const auto& g : noted.subclass_grants) granted_to.insert(text::fold(g.substr(0, g.find(':'))));
  for (const auto& c : noted.classes) own.insert(text::fold(c));
  std::vector<std::string> names;
  std::map<std::string, std::string> keys;  // folded name -> the record's key for it
  const json& cls = child(rec, "classes");
  if (cls.is_array()) {
    for (const auto& c : cls) {
      const std::string n = name_of(c);
      const std::string folded = text::fold(n);
      if (n.empty() || (granted_to.count(folded) && !own.count(folded))) continue;
      names.push_back(n);
      if (!key_of(c).empty()) keys[folded] = text::lower(key_of(c));
    }
  }
  for (const auto& c : noted.classes) {
    const std::string folded = text::fold(c);
    if (std::none_of(names.begin(), names.end(), [&](const std::string& n) { return text::fold(n) == folded; }))
      names.push_back(c);
  }
  // v1's range or casting time where it goes on from v2's: Deep Magic's Black Sunshine is "Self (60-foot radius)"
  // where v2 says "Self", Anchoring Rope "1 action, or 1 reaction that you take while falling". A reaction's
  // casting time is v2's with its trigger (reaction_condition).
  for (const auto& [field, v1_text] : {std::pair{"range", &noted.range}, {"casting_time", &noted.casting_time}}) {
    const std::string stated = text::fold(str(e.data, field));
    const std::string fuller = text::fold(*v1_text);
    if (text::goes_on_from(fuller, stated) &&
        !(std::string(field) == "casting_time" && e.data.contains("reaction_condition")))
      e.data[field] = *v1_text;
  }
  e.data["classes"] = names;
  e.facets.classes.clear();
  for (const auto& n : names) {
    const std::string folded = text::fold(n);
    e.facets.classes.push_back(folded);
    if (auto it = keys.find(folded); it != keys.end()) {
      e.facets.classes.push_back(it->second);
    } else if (std::any_of(std::begin(kSrd51SpellClasses), std::end(kSrd51SpellClasses),
                           [&](std::string_view k) { return text::fold(k) == folded; })) {
      e.facets.classes.push_back("srd_" + model::slug(n));
    }
  }
  if (!noted.subclass_grants.empty()) e.data["subclass_grants"] = noted.subclass_grants;
}

void map_spell(const json& rec, Entity& e) {
  auto& f = e.facets;
  auto& d = e.data;
  if (auto lv = num(rec, "level")) {
    f.level = static_cast<int>(*lv);
    d["level"] = *f.level;
  }
  const json& school = child(rec, "school");
  f.school = text::lower(key_of(school));
  put_str(d, "school", name_of(school));
  const std::string ct = str(rec, "casting_time");
  f.casting_time = model::normalize_casting_time(ct);
  put_str(d, "casting_time", model::casting_time_text(f.casting_time));
  put_str(d, "reaction_condition", str(rec, "reaction_condition"));
  std::string range = str(rec, "range_text");
  if (range.empty()) {
    if (auto r = num(rec, "range")) range = text::format_number(*r) + " " + str(rec, "range_unit");
  }
  put_str(d, "range", range);
  put_str(d, "components", components_of(rec));
  put_str(d, "material", str(rec, "material_specified"));
  if (auto c = num(rec, "material_cost")) d["material_cost"] = *c;
  if (json_util::boolean(rec, "material_consumed").value_or(false)) d["material_consumed"] = true;
  put_str(d, "duration", str(rec, "duration"));
  f.concentration = json_util::boolean(rec, "concentration").value_or(false);
  f.ritual = json_util::boolean(rec, "ritual").value_or(false);
  d["concentration"] = *f.concentration;
  d["ritual"] = *f.ritual;
  put_str(d, "desc", str(rec, "desc"));
  put_str(d, "higher_level", str(rec, "higher_level"));
  json classes = json::array();
  const json& cls = child(rec, "classes");
  if (cls.is_array()) {
    for (const auto& c : cls) {
      const std::string n = name_of(c);
      const std::string k = key_of(c);
      if (!n.empty()) {
        classes.push_back(n);
        f.classes.push_back(text::fold(n));
      }
      if (!k.empty()) f.classes.push_back(text::lower(k));
    }
  }
  d["classes"] = classes;
  const json& dts = child(rec, "damage_types");
  if (dts.is_array()) {
    json types = json::array();
    for (const auto& t : dts) {
      const std::string k = text::lower(key_of(t));
      if (!k.empty()) {
        types.push_back(k);
        f.damage_types.push_back(k);
      }
    }
    put_if(d, "damage_types", types);
  }
  // The API's damage_roll is the spell's roll whatever it is for: Cure Wounds' healing, Bless's 1d4, Teleport's
  // 1d100. It is a damage roll only when the spell deals a damage type.
  put_str(d, spell_roll_field(f.damage_types, str(rec, "desc")), str(rec, "damage_roll"));
  put_str(d, "saving_throw_ability", str(rec, "saving_throw_ability"));
  if (json_util::boolean(rec, "attack_roll").value_or(false)) d["attack_roll"] = true;
  put_str(d, "target_type", str(rec, "target_type"));
  if (auto n = num(rec, "target_count")) d["target_count"] = *n;
  if (auto sz = num(rec, "shape_size")) {
    d["area"] = text::format_number(*sz) + "-" +
                (str(rec, "shape_size_unit") == "feet" ? "foot" : str(rec, "shape_size_unit")) + " " +
                str(rec, "shape_type");
  }
  const json& opts = child(rec, "casting_options");
  if (opts.is_array()) {
    json out = json::array();
    for (const auto& o : opts) {
      if (str(o, "type") == "default") continue;
      json x = json::object();
      for (auto it = o.begin(); it != o.end(); ++it) {
        if (!it->is_null()) x[it.key()] = *it;
      }
      if (x.size() > 1) out.push_back(std::move(x));
    }
    put_if(d, "casting_options", out);
  }
  std::vector<std::string> parts = {str(rec, "desc"), str(rec, "higher_level")};
  e.text = text::join(parts, "\n\n");
}

// The class table by level, as the book prints it: {"header": ["Level", "Proficiency Bonus", "Features", <the
// class's own columns: "Cantrips Known", "Rages", "Sneak Attack", ...>, <spell slot levels "1st".."9th">],
// "rows": [["1", "+2", "Spellcasting, Arcane Recovery", "3", "2", "—", ...], ...]}, from the record's column
// features (PROFICIENCY_BONUS, SPELL_SLOTS and every other feature with data for the table: CLASS_TABLE_DATA, and
// features such as SRD 5.1's Sneak Attack, Rages or Martial Arts, recorded as CLASS_LEVEL_FEATURE) and the levels
// its features are gained at. A column's two values for one level are an error in the record: equal ones are one
// value (SRD 5.2's Weapon Mastery at level 1); when the level before has none, the first is that level's (SRD 5.1's
// full casters give their 2nd-level slots for level 4 twice, "2" and "3", and none for level 3); otherwise both
// are shown ("2/3"). Null when the record has no columns.
json class_table(const json& feats, const json& features) {
  struct Column {
    std::string name;
    std::map<int, std::vector<std::string>> values;
  };
  std::vector<Column> pb, own, slots;
  int max_level = 0;
  if (!feats.is_array()) return json();
  for (const auto& ft : feats) {
    const std::string type = str(ft, "feature_type");
    const json& rows = child(ft, "data_for_class_table");
    if (!rows.is_array() || rows.empty()) continue;
    std::vector<Column>* into = type == "PROFICIENCY_BONUS" ? &pb : type == "SPELL_SLOTS" ? &slots : &own;
    Column c{str(ft, "name"), {}};
    for (const auto& row : rows) {
      const auto level = num(row, "level");
      const std::string value = str(row, "column_value");
      if (!level || *level < 1 || *level > 30) continue;
      c.values[static_cast<int>(*level)].push_back(value);
      max_level = std::max(max_level, static_cast<int>(*level));
    }
    for (auto& [level, values] : c.values) {
      if (values.size() == 2 && values[0] == values[1]) values.pop_back();
      if (values.size() == 2 && level > 1 && !c.values.count(level - 1)) {
        c.values[level - 1] = {values[0]};
        values.erase(values.begin());
      }
    }
    if (!c.values.empty()) into->push_back(std::move(c));
  }
  if (pb.empty() && own.empty() && slots.empty()) return json();
  std::map<int, std::vector<std::string>> gained;
  for (const auto& f : features) {
    if (!f.contains("levels")) continue;
    for (const auto& l : f["levels"]) {
      const int level = l.get<int>();
      if (level < 1 || level > max_level) continue;
      auto& names = gained[level];
      const std::string name = f.value("name", "");
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  json header = json::array({"Level"});
  std::vector<const Column*> columns;  // nullptr: the Features column
  for (const auto& c : pb) {
    header.push_back("Proficiency Bonus");
    columns.push_back(&c);
  }
  header.push_back("Features");
  columns.push_back(nullptr);
  for (const auto* group : {&own, &slots}) {
    for (const auto& c : *group) {
      header.push_back(c.name);
      columns.push_back(&c);
    }
  }
  json rows = json::array();
  for (int level = 1; level <= max_level; ++level) {
    json row = json::array({std::to_string(level)});
    for (const Column* c : columns) {
      if (!c) {
        row.push_back(gained.count(level) ? text::join(gained[level], ", ") : "—");
        continue;
      }
      auto it = c->values.find(level);
      row.push_back(it == c->values.end() ? "—" : text::join(it->second, "/"));
    }
    rows.push_back(std::move(row));
  }
  return {{"header", header}, {"rows", rows}};
}

// The place of an ability's name among model::ability_names() ("Constitution" -> 2), or none.
std::optional<size_t> ability_index(const std::string& name) {
  const auto& abilities = model::ability_names();
  const auto it = std::find(abilities.begin(), abilities.end(), text::fold(name));
  if (it == abilities.end()) return std::nullopt;
  return static_cast<size_t>(it - abilities.begin());
}

// Ability names in the books' order (Strength first, Charisma last); other names after them, as they came.
json in_ability_order(const json& names) {
  if (!names.is_array()) return names;
  std::vector<std::pair<size_t, json>> ordered;  // (ability's place, or past the six), name
  for (const auto& n : names) {
    const auto at = n.is_string() ? ability_index(n.get<std::string>()) : std::nullopt;
    ordered.emplace_back(at.value_or(model::ability_names().size()), n);
  }
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  json out = json::array();
  for (auto& [_, n] : ordered) out.push_back(std::move(n));
  return out;
}

// The abilities a row of a class's Core Traits table names ("| Saving Throw Proficiencies | Strength and
// Constitution |" -> ["Strength", "Constitution"]); empty unless the row names only abilities. SRD 5.2 records have
// the table, and it is the book's text: their `saving_throws` field gives the Fighter Dexterity and Strength, the
// Monk Dexterity and Wisdom, where the table (and the book) says Strength and Constitution, Strength and Dexterity.
json core_trait_abilities(const json& features, const std::string& row) {
  if (!features.is_array()) return json::array();
  for (const auto& ft : features) {
    if (str(ft, "feature_type") != "CORE_TRAITS_TABLE") continue;
    const std::string desc = str(ft, "desc");
    size_t start = 0;
    while (start < desc.size()) {
      size_t end = desc.find('\n', start);
      if (end == std::string::npos) end = desc.size();
      std::string line = text::trim(std::string_view(desc).substr(start, end - start));
      start = end + 1;
      // "|Saving Throw Proficiencies|Strength and Constitution|"
      if (line.size() < 2 || line.front() != '|' || line.back() != '|') continue;
      line = line.substr(1, line.size() - 2);
      const size_t bar = line.find('|');
      if (bar == std::string::npos || line.find('|', bar + 1) != std::string::npos) continue;
      if (text::fold(line.substr(0, bar)) != text::fold(row)) continue;
      std::string cell = line.substr(bar + 1);
      for (size_t at = cell.find(" and "); at != std::string::npos; at = cell.find(" and ")) cell.replace(at, 5, ",");
      json out = json::array();
      for (const auto& part : text::split_commas(cell)) {
        const auto at = ability_index(part);
        if (!at) return json::array();
        out.push_back(text::capitalised(model::ability_names()[*at]));  // "constitution" -> "Constitution"
      }
      return out;
    }
  }
  return json::array();
}

void map_class(const json& rec, Entity& e) {
  auto& d = e.data;
  const json& parent = child(rec, "subclass_of");
  if (parent.is_object() || parent.is_string()) {
    e.facets.parent_key = key_of(parent);
    put_str(d, "subclass_of", name_of(parent));
  }
  put_str(d, "desc", str(rec, "desc"));
  put_str(d, "hit_dice", str(rec, "hit_dice"));
  const json& hp = child(rec, "hit_points");
  if (hp.is_object()) {
    json h = json::object();
    for (const char* k : {"hit_points_at_1st_level", "hit_points_at_higher_levels"}) put_str(h, k, str(hp, k));
    put_if(d, "hit_points", h);
  }
  put_str(d, "caster_type", str(rec, "caster_type"));
  json saves = core_trait_abilities(child(rec, "features"), "Saving Throw Proficiencies");
  put_if(d, "saving_throws", in_ability_order(saves.empty() ? named_list(child(rec, "saving_throws")) : saves));
  put_if(d, "primary_abilities", named_list(child(rec, "primary_abilities")));
  std::vector<std::string> parts = {str(rec, "desc")};
  const json& feats = child(rec, "features");
  json features = json::array();
  if (feats.is_array()) {
    for (const auto& ft : feats) {
      const std::string type = str(ft, "feature_type");
      // A column's data, not a feature (some are recorded as CLASS_LEVEL_FEATURE: SRD 5.1's Rages and Rage Damage).
      if (type == "CLASS_TABLE_DATA" || type == "SPELL_SLOTS" || type == "PROFICIENCY_BONUS" ||
          text::trim(str(ft, "desc")) == "[Column data]") {
        continue;
      }
      json x = {{"name", str(ft, "name")}, {"desc", str(ft, "desc")}};
      std::vector<int> levels;
      json details = json::object();  // what the feature gives at a level ("17": "two uses"), where the record says
      const json& ga = child(ft, "gained_at");
      if (ga.is_array()) {
        for (const auto& g : ga) {
          auto l = num(g, "level");
          if (!l) continue;
          levels.push_back(static_cast<int>(*l));
          if (const std::string detail = text::trim(str(g, "detail")); !detail.empty())
            details[std::to_string(static_cast<int>(*l))] = detail;
        }
      }
      std::sort(levels.begin(), levels.end());
      if (!levels.empty()) x["levels"] = levels;
      if (!details.empty()) x["level_details"] = std::move(details);
      features.push_back(std::move(x));
      parts.push_back(str(ft, "name") + ". " + str(ft, "desc"));
    }
    std::stable_sort(features.begin(), features.end(), [](const json& a, const json& b) {
      const int la = a.contains("levels") ? a["levels"][0].get<int>() : 0;
      const int lb = b.contains("levels") ? b["levels"][0].get<int>() : 0;
      return la < lb;
    });
  }
  put_if(d, "features", features);
  put_if(d, "class_table", class_table(feats, features));
  e.text = text::join(parts, "\n");
}

void map_traits_kind(const json& rec, Entity& e, const char* list_field) {
  auto& d = e.data;
  put_str(d, "desc", str(rec, "desc"));
  std::vector<std::string> parts = {str(rec, "desc")};
  json items = json::array();
  const json& arr = child(rec, list_field);
  if (arr.is_array()) {
    for (const auto& t : arr) {
      json x = json::object();
      put_str(x, "name", str(t, "name"));
      put_str(x, "desc", str(t, "desc"));
      put_str(x, "type", str(t, "type"));
      items.push_back(x);
      parts.push_back(str(t, "name") + ". " + str(t, "desc"));
    }
  }
  put_if(d, list_field, items);
  e.text = text::join(parts, "\n");
}

void map_species(const json& rec, Entity& e) {
  const json& parent = child(rec, "subspecies_of");
  if (parent.is_object() || parent.is_string()) {
    e.facets.parent_key = key_of(parent);
    put_str(e.data, "subspecies_of", name_of(parent).empty() ? key_of(parent) : name_of(parent));
  }
  map_traits_kind(rec, e, "traits");
}

// A v1 race's traits: each "***Name.*** text" (or "**_Name._** text") paragraph of the fields that hold them, in
// the book's order; a field without such a heading is one trait named for it. A table or paragraph after a
// trait's first belongs to it (the Dragonborn's Draconic Ancestry table).
json v1_race_traits(const json& race) {
  static const RE2 kHeading(R"((?:\*\*\*|\*\*_)([^*_\n]{1,80}?)\.?(?:\*\*\*|_\*\*))");
  static const std::pair<const char*, const char*> kFields[] = {{"asi_desc", "Ability Score Increase"},
                                                                {"age", "Age"},
                                                                {"alignment", "Alignment"},
                                                                {"size", "Size"},
                                                                {"speed_desc", "Speed"},
                                                                {"languages", "Languages"},
                                                                {"vision", "Darkvision"},
                                                                {"traits", "Traits"}};
  json traits = json::array();
  for (const auto& [field, fallback] : kFields) {
    const std::string body = text::trim(str(race, field));
    if (body.empty()) continue;
    struct Heading {
      std::string name;
      size_t start, end;  // of the heading's markup in body
    };
    std::vector<Heading> headings;
    const re2::StringPiece input(body);
    re2::StringPiece m[2];
    for (size_t pos = 0; pos < body.size() && kHeading.Match(input, pos, body.size(), RE2::UNANCHORED, m, 2);) {
      const auto start = static_cast<size_t>(m[0].data() - body.data());
      headings.push_back({text::trim(std::string(m[1].data(), m[1].size())), start, start + m[0].size()});
      pos = headings.back().end;
    }
    const size_t first = headings.empty() ? body.size() : headings[0].start;
    if (const std::string before = text::trim(body.substr(0, first)); !before.empty())
      traits.push_back({{"name", fallback}, {"desc", before}});
    for (size_t i = 0; i < headings.size(); ++i) {
      const size_t end = i + 1 < headings.size() ? headings[i + 1].start : body.size();
      traits.push_back(
          {{"name", headings[i].name}, {"desc", text::trim(body.substr(headings[i].end, end - headings[i].end))}});
    }
  }
  return traits;
}

// Where the first Markdown heading line of `t` starts ("##### Frenzy"), or its size.
size_t heading_at(const std::string& t) {
  for (size_t at = 0; at < t.size();) {
    const size_t line_end = std::min(t.find('\n', at), t.size());
    const size_t first = t.find_first_not_of(" \t", at);
    if (first < line_end && t[first] == '#') return at;
    at = line_end + 1;
  }
  return t.size();
}

}  // namespace

std::string text_words(std::string_view t) {
  std::string out;
  for (char c : text::fold(t)) {
    if (std::isalnum(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80) {
      out += c;
    } else if (!out.empty() && out.back() != ' ') {
      out += ' ';
    }
  }
  return text::trim(out);
}

namespace {

// A class or subclass completed from v1's class or archetype text (the book's, as Markdown): the introduction
// before its first heading where v2 has no description (SRD 5.1's subclasses), and each headed part whose words no
// part of the entity holds, as a feature of that name (SRD 5.1's Wizard's Your Spellbook, the Druid's Sacred Plants
// and Wood, Tome of Heroes' Path of Hellfire's features, none of which v2 has).
void complete_class_from_v1(const std::string& v1_markdown, Entity& e) {
  // A sidebar is a quote ("> ### Your Spellbook"): its lines are read as the book's.
  std::string v1_text;
  for (size_t at = 0; at < v1_markdown.size();) {
    const size_t end = std::min(v1_markdown.find('\n', at), v1_markdown.size());
    std::string_view line(v1_markdown.data() + at, end - at);
    const size_t lead = line.find_first_not_of(" \t");
    if (lead != std::string_view::npos && line[lead] == '>') {
      line.remove_prefix(lead + 1);
      if (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    }
    v1_text.append(line);
    v1_text += '\n';
    at = end + 1;
  }
  const size_t first = heading_at(v1_text);
  const std::string intro = text::trim(v1_text.substr(0, first));
  if (!e.data.contains("desc") && !intro.empty()) {
    e.data["desc"] = intro;
    e.text = intro + "\n" + e.text;
  }
  json& features = e.data["features"];
  if (!features.is_array()) features = json::array();
  // A part is held when nine in ten of its runs of three words are in the entity's text: v1's wording of a feature
  // v2 has differs by a caption, a table header or a word ("Expert Necromancer" names another school).
  std::set<std::string> held;
  auto add_runs = [](const std::string& words, std::set<std::string>& runs) {
    std::vector<std::string> w;
    for (size_t at = 0; at < words.size();) {
      const size_t sp = std::min(words.find(' ', at), words.size());
      w.push_back(words.substr(at, sp - at));
      at = sp + 1;
    }
    for (size_t i = 0; i + 2 < w.size(); ++i) runs.insert(w[i] + ' ' + w[i + 1] + ' ' + w[i + 2]);
    if (w.size() < 3 && !words.empty()) runs.insert(words);
  };
  add_runs(text_words(e.text), held);
  for (size_t at = first; at < v1_text.size();) {
    const size_t line_end = std::min(v1_text.find('\n', at), v1_text.size());
    std::string name = text::trim(v1_text.substr(at, line_end - at));
    name = text::trim(name.substr(std::min(name.find_first_not_of('#'), name.size())));
    const size_t next =
        line_end >= v1_text.size() ? v1_text.size() : line_end + 1 + heading_at(v1_text.substr(line_end + 1));
    const std::string body =
        text::trim(v1_text.substr(std::min(line_end + 1, v1_text.size()), next - std::min(line_end + 1, next)));
    at = next;
    std::set<std::string> runs;
    add_runs(text_words(body), runs);
    const size_t there = static_cast<size_t>(
        std::count_if(runs.begin(), runs.end(), [&](const std::string& r) { return held.count(r); }));
    // v2's feature of the part's name is that feature, however differently worded ("Martial Archetype").
    const bool named = std::any_of(features.begin(), features.end(), [&](const json& f) {
      return f.is_object() && text::fold(f.value("name", "")) == text::fold(name);
    });
    if (name.empty() || runs.empty() || named || there * 10 >= runs.size() * 9) continue;
    json feature = {{"name", name}, {"desc", body}};
    // "At 3rd level", "Beginning at 6th level": the level the book gives the feature at.
    static const RE2 kLevel(R"((?i)\bat (\d{1,2})(?:st|nd|rd|th) level)");
    int level = 0;
    if (RE2::PartialMatch(body, kLevel, &level) && level >= 1 && level <= 20) feature["levels"] = json::array({level});
    features.push_back(std::move(feature));
    e.text += "\n" + name + ". " + body;
    held.insert(runs.begin(), runs.end());
  }
  if (features.empty()) e.data.erase("features");
}

// What the v1 record of the same name (note_v1_lore) gives an entity mapped from `rec` that lacks it: a species its
// traits, a background its description, a class its introduction and sidebars, a magic item the rest of a text v2
// cut short. An entity with a v1 record keeps both records in its raw.
void complete_from_v1_lore(const json& rec, const MappingContext& ctx, Entity& e) {
  const auto it = ctx.v1_lore.find({e.kind, v1_note_key(e.document.key, e.name)});
  if (it == ctx.v1_lore.end()) return;
  const json& v1 = it->second;
  if (e.kind == Kind::kSpecies) {
    if (e.data.contains("traits")) return;
    json traits = v1_race_traits(v1);
    if (traits.empty()) return;
    for (const auto& t : traits) e.text += "\n" + t.value("name", "") + ". " + t.value("desc", "");
    e.data["traits"] = std::move(traits);
  } else if (e.kind == Kind::kMagicItem) {
    // Cut short: v2's text ends without ending a sentence (the Deck's "... restored to life. #", the mark of a
    // heading it lost), and v1's goes on from it, compared by their words. (A text that ends a sentence is whole: the
    // Crystal Ball's, whose variants v2 gives as entities of their own.)
    const std::string stated = text::trim(str(e.data, "desc"));
    if (stated.empty() || std::string_view(".!?)\"'*|").find(stated.back()) != std::string_view::npos) return;
    const std::string desc = text::trim(str(v1, "desc"));
    if (!text::goes_on_from(text_words(desc), text_words(stated))) return;
    e.data["desc"] = desc;
    e.text = desc;
  } else if (e.kind == Kind::kClass) {
    complete_class_from_v1(str(v1, "desc"), e);
  } else {
    const std::string desc = text::trim(str(v1, "desc"));
    if (e.data.contains("desc") || desc.empty()) return;
    e.data["desc"] = desc;
    e.text = desc + "\n" + e.text;
  }
  e.raw = json{{kRawV2, rec}, {kRawV1, v1}};
}

void map_feat(const json& rec, Entity& e) {
  map_traits_kind(rec, e, "benefits");
  put_str(e.data, "prerequisite", str(rec, "prerequisite"));
  // "GENERAL" (an enum value in most records) reads "General", like the records that spell it out.
  std::string type = str(rec, "type");
  if (std::none_of(type.begin(), type.end(), [](unsigned char c) { return std::islower(c); })) {
    for (size_t i = 0; i < type.size(); ++i) {
      const bool first = i == 0 || type[i - 1] == ' ' || type[i - 1] == '_';
      type[i] = type[i] == '_' ? ' '
                : first        ? type[i]
                               : static_cast<char>(std::tolower(static_cast<unsigned char>(type[i])));
    }
  }
  put_str(e.data, "type", type);
  e.facets.type = text::lower(str(rec, "type"));
}

void map_reference(const json& rec, Entity& e) {
  auto& d = e.data;
  const std::string desc = descriptions_text(rec);
  put_str(d, "desc", desc);
  // Keep the small scalar fields reference kinds carry (rank, short_name, ability, is_exotic, ...).
  for (auto it = rec.begin(); it != rec.end(); ++it) {
    if (it.key() == "key" || it.key() == "name" || it.key() == "desc" || it.key() == "document" ||
        it.key() == "descriptions" || it.key() == "crossreferences" || it.key() == "icon") {
      continue;
    }
    if (it->is_string() || it->is_number() || it->is_boolean()) put_if(d, it.key().c_str(), *it);
    if (it.key() == "skills") put_if(d, "skills", named_list(*it));  // an ability's skills, by name
  }
  e.text = desc;
}

const std::vector<Endpoint> kV1Endpoints = {
    {"magicitems", Kind::kMagicItem},
    {"weapons", Kind::kWeapon},
    {"armor", Kind::kArmor},
};

// A character of a word in cross-reference markup: letters and digits (any non-ASCII byte counts as a letter),
// and the '-', '\'' and '+' inside words ("20-foot-radius", "+1").
bool is_word_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x80 || std::isalnum(u) || c == '-' || c == '\'' || c == '+';
}

// The start of the word ending at `end` (exclusive).
size_t word_start(std::string_view t, size_t end) {
  while (end > 0 && is_word_char(t[end - 1])) --end;
  return end;
}

// A word as compared between a reference and what it displays: folded, a plural's final 's' dropped.
std::string word_key(std::string_view w) {
  std::string k = text::fold(w);
  if (k.size() > 3 && k.back() == 's') k.pop_back();
  return k;
}

// "the srd:unseen-attackers-and-targets rules", "the srd:web spell" -> "the unseen attackers and targets rules",
// "the web spell": a link to another SRD entry left in SRD 5.1 rule texts, as the words it stands for.
std::string drop_srd_links(std::string_view t) {
  constexpr std::string_view kLink = "srd:";
  auto slug_char = [](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-';
  };
  std::string out;
  out.reserve(t.size());
  size_t i = 0;
  while (i < t.size()) {
    const bool at_link = t.substr(i, kLink.size()) == kLink &&
                         (i == 0 || !std::isalnum(static_cast<unsigned char>(t[i - 1]))) &&
                         i + kLink.size() < t.size() && std::islower(static_cast<unsigned char>(t[i + kLink.size()]));
    if (!at_link) {
      out += t[i++];
      continue;
    }
    size_t end = i + kLink.size();
    while (end < t.size() && slug_char(t[end])) ++end;
    while (t[end - 1] == '-') --end;  // a hyphen after the slug is the sentence's
    for (size_t j = i + kLink.size(); j < end; ++j) out += t[j] == '-' ? ' ' : t[j];
    i = end;
  }
  return out;
}

// "L|SRC|D" -> "D" and "L|SRC" -> "L" for a core book's code SRC. L is the word before the first bar (with a
// bracketed qualifier after it: "Sphere [Area of Effect]"), and the words before it back to one that is D's first
// word when every word between is among D's first words too ("Short Rest or Long Rest|XPHB|Short or Long Rest"
// drops all five; "Total Cover and Cover|XPHB|Total Cover" drops one). A cell of a table ("|Book|PHB|2014|") is
// no reference.
std::string drop_references(std::string_view t) {
  constexpr size_t kQualifierChars = 64;
  constexpr int kReferenceWords = 6;  // how far back L may reach, and how many of D's words it is matched with
  static const std::set<std::string, std::less<>> kCodes = {"PHB", "MM", "DMG", "XPHB", "XMM", "XDMG"};
  std::string out;
  size_t copied = 0;  // t[copied..] is not in `out` yet
  for (size_t bar = t.find('|'); bar != std::string_view::npos; bar = t.find('|', bar + 1)) {
    size_t code_end = bar + 1;
    while (code_end < t.size() && std::isupper(static_cast<unsigned char>(t[code_end]))) ++code_end;
    if (!kCodes.count(t.substr(bar + 1, code_end - bar - 1))) continue;
    if (code_end < t.size() && t[code_end] != '|' && is_word_char(t[code_end])) continue;
    // The reference's own word: before the bar, or before a bracketed qualifier ending there.
    size_t l_end = bar;
    if (l_end > 0 && t[l_end - 1] == ']') {
      // A qualifier is a few words: the bracket is looked for no further back than that.
      const size_t from = std::max(copied, l_end > kQualifierChars ? l_end - kQualifierChars : 0);
      const size_t found = t.substr(from, l_end - 1 - from).rfind('[');
      if (found == std::string_view::npos) continue;
      const size_t open = from + found;
      if (open == 0 || t[open - 1] != ' ') continue;
      l_end = open - 1;
    }
    size_t l_start = word_start(t, l_end);
    if (l_start == l_end || l_start < copied) continue;
    if (l_start > 0 && t[l_start - 1] == '|') continue;  // a table's cell
    const bool displayed = code_end < t.size() && t[code_end] == '|';
    const size_t d_start = displayed ? code_end + 1 : code_end;
    // D's first words (past any punctuation it opens with, within a few characters; a display that opens with a
    // space or line break displays nothing, so no line break is removed with the reference).
    std::vector<std::string> shown;
    size_t i = d_start;
    while (displayed && i < t.size() && i < d_start + 3 && !is_word_char(t[i]) && t[i] != '|' &&
           !std::isspace(static_cast<unsigned char>(t[i]))) {
      ++i;
    }
    while (displayed && i < t.size() && is_word_char(t[i]) && static_cast<int>(shown.size()) < kReferenceWords) {
      size_t e = i;
      while (e < t.size() && is_word_char(t[e])) ++e;
      shown.push_back(word_key(t.substr(i, e - i)));
      while (e < t.size() && t[e] == ' ') ++e;
      i = e;
    }
    if (shown.empty()) {
      // "L|SRC" (or "L|SRC|" displaying nothing): the words stay, the code goes.
      out.append(t.substr(copied, bar - copied));
      copied = d_start;
      bar = d_start - 1;
      continue;
    }
    const auto among_shown = [&](std::string_view w) {
      return std::find(shown.begin(), shown.end(), word_key(w)) != shown.end();
    };
    // Reach back while every word is among D's and stop at D's first word; words of an earlier reference's
    // display (starting at `copied`, after the first) are not reached.
    size_t w_end = l_end;
    for (int back = 0; back < kReferenceWords; ++back) {
      const size_t w_start = word_start(t, w_end);
      if (w_start == w_end || w_start < copied || (back > 0 && copied > 0 && w_start == copied)) break;
      const std::string_view w = t.substr(w_start, w_end - w_start);
      if (word_key(w) == shown.front()) {
        l_start = w_start;
        break;
      }
      if (back > 0 && !among_shown(w)) break;
      // The word before, when only spaces separate them (punctuation ends the reference).
      size_t prev = w_start;
      while (prev > copied && t[prev - 1] == ' ') --prev;
      if (prev == w_start) break;
      w_end = prev;
    }
    out.append(t.substr(copied, l_start - copied));
    copied = d_start;
    bar = code_end;
  }
  out.append(t.substr(copied));
  return out;
}

// What every mapped record starts with, v1 or v2: the kind, its key (v2 "key", v1 "slug") and a trimmed name.
Result<Entity> start_entity(const Endpoint& endpoint, const json& rec, const char* key_field) {
  if (!rec.is_object()) return Status::invalid_argument("record is not an object");
  Entity e;
  e.kind = endpoint.kind;
  e.key = str(rec, key_field);
  e.name = text::trim(str(rec, "name"));
  if (e.key.empty()) return Status::invalid_argument(std::string("record has no ") + key_field);
  return e;
}

}  // namespace

constexpr std::string_view kBrokenEscape = "\xC3\xA6";  // "æ"

std::string clean_markup(std::string_view text) {
  std::string t;
  t.reserve(text.size());
  auto hex = [&](size_t i) { return i < text.size() && std::isxdigit(static_cast<unsigned char>(text[i])); };
  for (size_t i = 0; i < text.size(); ++i) {
    // A character escape that lost its backslash-u to an "æ" ("væ00e6ttir" is "vættir", "2æ00d7" is "2×").
    if (text.compare(i, 2, kBrokenEscape) == 0 && hex(i + 2) && hex(i + 3) && hex(i + 4) && hex(i + 5)) {
      const auto code = static_cast<char32_t>(std::stoul(std::string(text.substr(i + 2, 4)), nullptr, 16));
      if (code >= 0x20) {
        text::append_utf8(t, code);
        i += 5;
        continue;
      }
    }
    const bool escaped = text[i] == '\\' && i + 1 < text.size() && text[i + 1] == 'n';
    if (escaped || text[i] == '\n') {
      while (!t.empty() && t.back() == '\r') t.pop_back();  // CRs before a break (CRLF, CRCRLF) are part of it
      t += '\n';
      if (escaped) ++i;
    } else {
      t += text[i];
    }
  }
  // At most one empty line in a row.
  std::string lines;
  int newlines = 0;
  for (char c : t) {
    newlines = c == '\n' ? newlines + 1 : 0;
    if (newlines <= 2) lines += c;
  }
  if (lines.find("srd:") != std::string::npos) lines = drop_srd_links(lines);
  return lines.find('|') == std::string::npos ? lines : drop_references(lines);
}

namespace {

void clean_strings(json& v) {
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s.find_first_of("\\\r|") != std::string::npos || s.find("\n\n\n") != std::string::npos ||
        s.find("srd:") != std::string::npos || s.find(kBrokenEscape) != std::string::npos) {
      v = clean_markup(s);
    }
  } else if (v.is_array() || v.is_object()) {
    for (auto& x : v) clean_strings(x);
  }
}

}  // namespace

void detail::clean_entity(Entity& e) {
  e.text = clean_markup(e.text);
  clean_strings(e.data);
}

const std::vector<Endpoint>& v2_endpoints() { return kEndpoints; }

const std::vector<Endpoint>& v1_endpoints() { return kV1Endpoints; }

Result<Document> map_v1_document(const json& rec, const MappingContext& ctx) {
  const std::string slug = str(rec, "slug");
  if (slug.empty()) return Status::invalid_argument("v1 document without slug");
  std::string v2 = str(rec, "v2_related_key");
  if (v2 == "srd") v2 = "srd-2014";
  if (auto it = ctx.documents.find(v2); !v2.empty() && it != ctx.documents.end()) return it->second;
  Document d;
  d.key = slug;
  d.name = str(rec, "title").empty() ? slug : str(rec, "title");
  std::string org = str(rec, "organization");
  if (const auto pos = org.find("\xE2\x84\xA2"); pos != std::string::npos) org.erase(pos, 3);  // "(TM)"
  d.publisher = org;
  d.license = str(rec, "license");
  d.game_system = slug == "a5e" || slug == "menagerie" ? "a5e" : "5e-2014";
  d.url = str(rec, "url");
  d.description = str(rec, "desc");
  d.source_api = "open5e_v1";
  return d;
}

Result<Entity> map_v1_record(const Endpoint& endpoint, const json& rec, const MappingContext& ctx) {
  auto started = start_entity(endpoint, rec, "slug");
  if (!started) return started.status();
  Entity e = std::move(*started);
  if (e.name.empty()) return Status::invalid_argument("record " + e.key + " has no name");
  const std::string doc = str(rec, "document__slug");
  auto it = ctx.v1_documents.find(doc);
  if (it == ctx.v1_documents.end())
    return Status::invalid_argument("record " + e.key + ": unknown document '" + doc + "'");
  e.document = it->second;
  e.source_api = "open5e_v1";
  e.url = ctx.base_url + "/v1/" + std::string(endpoint.path) + "/" + e.key + "/";
  e.raw = rec;
  switch (endpoint.kind) {
    case Kind::kMagicItem: map_v1_magic_item(rec, e); break;
    case Kind::kWeapon: map_v1_weapon(rec, e); break;
    case Kind::kArmor: map_v1_armor(rec, e); break;
    default: return Status::invalid_argument("no v1 mapping for " + std::string(model::kind_name(endpoint.kind)));
  }
  clean_entity(e);
  model::derive_facets(e);
  return e;
}

Result<Document> map_v2_document(const json& rec) {
  Document d;
  d.key = str(rec, "key");
  if (d.key.empty()) return Status::invalid_argument("document without key");
  d.name = str(rec, "name");
  if (d.name.empty()) d.name = d.key;
  d.display_name = str(rec, "display_name");
  d.publisher = name_of(child(rec, "publisher"));
  d.game_system = key_of(child(rec, "gamesystem"));
  d.url = str(rec, "permalink");
  d.description = str(rec, "desc");
  std::vector<std::string> lic;
  const json& ls = child(rec, "licenses");
  if (ls.is_array()) {
    for (const auto& l : ls) lic.push_back(name_of(l));
  }
  d.license = text::join(lic, ", ");
  d.source_api = "open5e_v2";
  return d;
}

namespace {

// What every v2 record starts with: kind, key, name, document, source and URL, and the untouched record.
Result<Entity> start_v2_entity(const Endpoint& endpoint, const json& rec, const MappingContext& ctx) {
  auto started = start_entity(endpoint, rec, "key");
  if (!started) return started.status();
  Entity e = std::move(*started);
  if (e.name.empty() && endpoint.kind == Kind::kAlignment) {
    // Alignments carry no name; their key spells it ("chaotic-evil" -> "Chaotic Evil").
    bool upper = true;
    for (char c : e.key) {
      e.name.push_back(c == '-' ? ' ' : upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c);
      upper = c == '-';
    }
  }
  if (e.name.empty()) return Status::invalid_argument("record " + e.key + " has no name");
  // Item rarities carry no document; they belong to the core concepts like the other reference lists.
  Document core;
  core.key = "core";
  const bool documentless_ok = endpoint.kind == Kind::kItemRarity;
  Result<Document> doc =
      child(rec, "document").is_null() && documentless_ok ? Result<Document>(core) : resolve_document(rec, ctx);
  if (!doc) return Status::invalid_argument("record " + e.key + ": " + doc.status().message());
  e.document = *doc;
  if (auto it = ctx.documents.find(e.document.key); it != ctx.documents.end()) e.document = it->second;
  if (e.document.name.empty()) e.document.name = e.document.key;
  e.document.source_api = "open5e_v2";
  e.source_api = "open5e_v2";
  e.url = ctx.base_url + "/v2/" + std::string(endpoint.path) + "/" + e.key + "/";
  e.raw = rec;
  return e;
}

}  // namespace

std::string v2_key_of_v1_monster(const json& rec) {
  std::string path = str(rec, "v2_converted_path");  // "/v2/creatures/srd_aboleth/"
  while (!path.empty() && path.back() == '/') path.pop_back();
  const auto slash = path.rfind('/');
  if (path.find("/creatures/") == std::string::npos || slash == std::string::npos) return "";
  return path.substr(slash + 1);
}

bool note_v1_monster(const json& rec, MappingContext& ctx) {
  const std::string key = v2_key_of_v1_monster(rec);
  if (key.empty() || !rec.is_object()) return false;
  ctx.v1_monsters[key] = rec;
  return true;
}

std::string v1_note_key(std::string_view document, std::string_view name) {
  return std::string(document) + '\t' + text::fold(name);
}

void add_name_words(std::string_view name, std::set<std::string>& words) {
  const std::string all = text_words(name);
  for (size_t at = 0; at < all.size();) {
    const size_t space = std::min(all.find(' ', at), all.size());
    words.insert(all.substr(at, space - at));
    at = space + 1;
  }
}

bool v1_armor_is_a_formula(const json& rec) {
  const std::string category = text::lower(str(rec, "category"));
  return category == "class feature" || category == "spell" || category == "no armor";
}

namespace {

// The words that name what a variant is made of or how strong it is, not which item it is.
bool generic_word(const std::string& w) {
  static const std::set<std::string> kGeneric = {"armor", "weapon", "blade", "sword", "bow", "axe", "shield", "of",
                                                 "the",   "a",      "an",    "and",   "or",  "1",   "2",      "3"};
  return kGeneric.count(w) > 0;
}

// The words of a v1 name that say which item it is.
std::set<std::string> distinctive_words(std::string_view name) {
  std::set<std::string> all, out;
  add_name_words(name, all);
  for (const auto& w : all) {
    if (!generic_word(w)) out.insert(w);
  }
  return out;
}

}  // namespace

bool name_covers(std::string_view v2_name, std::string_view v1_name) {
  if (text::fold(v2_name) == text::fold(v1_name)) return true;
  std::set<std::string> v2;
  add_name_words(v2_name, v2);
  const auto v1 = distinctive_words(v1_name);
  return std::all_of(v1.begin(), v1.end(), [&](const std::string& w) { return v2.count(w) > 0; });
}

bool name_is_v1s(std::string_view v2_name, std::string_view v1_name, const std::vector<std::string>& v1_names) {
  if (!name_covers(v2_name, v1_name)) return false;
  if (text::fold(v2_name) == text::fold(v1_name)) return true;
  const auto mine = distinctive_words(v1_name);
  for (const auto& other : v1_names) {
    if (text::fold(other) == text::fold(v1_name) || !name_covers(v2_name, other)) continue;
    const auto theirs = distinctive_words(other);
    if (theirs.size() > mine.size() && std::includes(theirs.begin(), theirs.end(), mine.begin(), mine.end()))
      return false;  // "Molten Hellfire Breastplate" is the Molten Hellfire Armor's, not the Hellfire Armor's
  }
  return true;
}

std::string_view v2_document_of_v1(std::string_view v1_document) {
  for (const auto& [v1, v2] : kV1Documents) {
    if (v1 == v1_document) return v2;
  }
  return {};
}

bool note_v1_lore(const json& rec, Kind kind, MappingContext& ctx) {
  if (!rec.is_object() ||
      (kind != Kind::kSpecies && kind != Kind::kBackground && kind != Kind::kClass && kind != Kind::kMagicItem))
    return false;
  if (kind == Kind::kClass) {  // the class, and its subclasses each of its own document
    const json& archetypes = child(rec, "archetypes");
    bool noted = false;
    if (const std::string_view document = v2_document_of_v1(str(rec, "document__slug"));
        !document.empty() && !text::fold(str(rec, "name")).empty()) {
      json own = rec;
      own.erase("archetypes");
      ctx.v1_lore[{kind, v1_note_key(document, str(rec, "name"))}] = std::move(own);
      noted = true;
    }
    for (size_t i = 0; archetypes.is_array() && i < archetypes.size(); ++i) {
      const json& a = archetypes[i];
      const std::string_view document = v2_document_of_v1(str(a, "document__slug"));
      if (!a.is_object() || document.empty() || text::fold(str(a, "name")).empty()) continue;
      ctx.v1_lore[{kind, v1_note_key(document, str(a, "name"))}] = a;
      noted = true;
    }
    return noted;
  }
  const std::string_view document = v2_document_of_v1(str(rec, "document__slug"));
  const std::string name = str(rec, "name");
  if (document.empty() || text::fold(name).empty()) return false;
  ctx.v1_lore[{kind, v1_note_key(document, name)}] = rec;
  return true;
}

bool note_v1_spell(const json& rec, MappingContext& ctx) {
  const std::string name = str(rec, "name");
  const std::string_view document = v2_document_of_v1(str(rec, "document__slug"));
  if (document.empty() || text::fold(name).empty()) return false;
  // "Cleric: Light, Warlock: Fiend", "Druid: Forest, Mountain, Underdark": the subclasses that grant the spell, each
  // with its class; a part without a colon is another subclass of the class before it.
  V1SpellClasses noted;
  std::set<std::string> by_subclass;
  std::string current;
  for (const auto& part : text::split_commas(str(rec, "archetype"))) {
    std::string subclass = part;
    if (const size_t colon = part.find(':'); colon != std::string::npos) {
      current = text::trim(part.substr(0, colon));
      subclass = text::trim(part.substr(colon + 1));
    }
    if (current.empty() || subclass.empty()) continue;
    by_subclass.insert(text::fold(current));
    noted.subclass_grants.push_back(current + ": " + subclass);
  }
  for (std::string c : text::split_commas(str(rec, "dnd_class"))) {
    if (text::fold(c) == "sorceror") c = "Sorcerer";  // Deep Magic Extended's spelling
    const std::string folded = text::fold(c);
    // A class named only for a subclass's grant is not on the class's list; "Ritual Caster" is a feat.
    if (folded.empty() || folded == "ritual caster" || by_subclass.count(folded)) continue;
    noted.classes.push_back(c);
  }
  // `circles`: the Circle of the Land's terrains whose circle spells include it ("Coast", "Forest, Mountain"), which
  // `archetype` names only sometimes (Pass without Trace's Grassland is in `circles` alone): each is the Druid's
  // grant. They leave the Druid's own list as it is: a druid prepares these spells from it too.
  for (const auto& circle : text::split_commas(str(rec, "circles"))) {
    const std::string grant = "Druid: " + text::trim(circle);
    if (text::fold(circle).empty()) continue;
    if (std::find(noted.subclass_grants.begin(), noted.subclass_grants.end(), grant) == noted.subclass_grants.end())
      noted.subclass_grants.push_back(grant);
  }
  noted.range = text::trim(str(rec, "range"));
  noted.casting_time = text::trim(str(rec, "casting_time"));
  if (noted.classes.empty() && noted.subclass_grants.empty() && noted.range.empty() && noted.casting_time.empty())
    return false;
  ctx.v1_spell_classes[v1_note_key(document, name)] = std::move(noted);
  return true;
}

std::vector<Entity> split_by_document(Entity e, const MappingContext& ctx) {
  std::vector<Entity> out;
  const json& ds = child(e.raw, "descriptions");
  bool per_document = ds.is_array() && !ds.empty();
  for (size_t i = 0; per_document && i < ds.size(); ++i) per_document = !str(ds[i], "document").empty();
  if (!per_document || (ds.size() == 1 && str(ds[0], "document") == e.document.key)) {
    out.push_back(std::move(e));
    return out;
  }
  for (const auto& x : ds) {
    Entity v = e;
    const std::string doc = str(x, "document");
    // SRD 5.1's records are keyed "srd_..." by the API; every other document's by its own key.
    if (doc != e.document.key) v.key = (doc == "srd-2014" ? std::string("srd") : doc) + "_" + e.key;
    if (auto it = ctx.documents.find(doc); it != ctx.documents.end()) {
      v.document = it->second;
    } else {
      v.document = Document{};
      v.document.key = doc;
      v.document.name = doc;
      v.document.game_system = str(x, "gamesystem");
    }
    v.document.source_api = "open5e_v2";
    const std::string desc = clean_markup(str(x, "desc"));
    v.data["desc"] = desc;
    v.text = desc;
    out.push_back(std::move(v));
  }
  return out;
}

Result<Entity> map_standalone_armor(const json& rec, const MappingContext& ctx) {
  auto started = start_v2_entity({"items", Kind::kArmor}, rec, ctx);
  if (!started) return started.status();
  Entity e = std::move(*started);
  map_item_armor(rec, e, ctx);
  clean_entity(e);
  return e;
}

Result<Entity> map_v2_service(const json& rec, const MappingContext& ctx) {
  auto started = start_v2_entity({"services", Kind::kItem}, rec, ctx);
  if (!started) return started.status();
  Entity e = std::move(*started);
  map_service(rec, e);
  clean_entity(e);
  model::derive_facets(e);
  return e;
}

Result<Entity> map_v2_record(const Endpoint& endpoint, const json& rec, const MappingContext& ctx) {
  auto started = start_v2_entity(endpoint, rec, ctx);
  if (!started) return started.status();
  Entity e = std::move(*started);
  switch (endpoint.kind) {
    case Kind::kSpell:
      map_spell(rec, e);
      if (auto it = ctx.v1_spell_classes.find(v1_note_key(e.document.key, e.name)); it != ctx.v1_spell_classes.end()) {
        apply_v1_classes(rec, it->second, e);
      }
      break;
    case Kind::kCreature:
      if (empty_stat_block(rec)) {
        return Status::invalid_argument("an empty stat block (challenge 0, no hit dice, no speed)");
      }
      if (auto it = ctx.v1_monsters.find(e.key); it != ctx.v1_monsters.end()) {
        map_creature(rec, &it->second, e);
        e.raw = json{{kRawV2, rec}, {kRawV1, it->second}};
      } else {
        map_creature(rec, nullptr, e);
      }
      break;
    case Kind::kClass:
      map_class(rec, e);
      complete_from_v1_lore(rec, ctx, e);
      break;
    case Kind::kSpecies:
      map_species(rec, e);
      complete_from_v1_lore(rec, ctx, e);
      break;
    case Kind::kBackground:
      map_traits_kind(rec, e, "benefits");
      complete_from_v1_lore(rec, ctx, e);
      break;
    case Kind::kFeat: map_feat(rec, e); break;
    case Kind::kWeapon:
      map_weapon(rec, e, ctx);
      add_gear_info(e, ctx);
      break;
    case Kind::kArmor:
      map_armor(rec, e);
      add_gear_info(e, ctx);
      break;
    case Kind::kItem: map_item_common(rec, e, ctx); break;
    case Kind::kMagicItem:
      map_magic_item(rec, e, ctx);
      complete_from_v1_lore(rec, ctx, e);
      break;
    case Kind::kRule: map_rule(rec, e, ctx); break;
    case Kind::kRuleSection: map_rule_section(rec, e); break;
    default: map_reference(rec, e); break;
  }
  clean_entity(e);
  model::derive_facets(e);
  return e;
}

}  // namespace lorekeeper::open5e
