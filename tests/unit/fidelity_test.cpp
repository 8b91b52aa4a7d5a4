// Fidelity over the whole recorded API: the bundled snapshot is synced once into a fresh store and the answers
// are checked against the records themselves. Runs as one process (see tests/CMakeLists.txt) so the sync is
// done once.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/attunement.hpp"
#include "lorekeeper/model/coverage.hpp"
#include "lorekeeper/model/derived.hpp"
#include "lorekeeper/open5e/corrections.hpp"
#include "lorekeeper/open5e/field_map.hpp"
#include "lorekeeper/open5e/mapper.hpp"
#include "lorekeeper/open5e/page_source.hpp"
#include "lorekeeper/open5e/sync.hpp"
#include "lorekeeper/search/indexer.hpp"
#include "lorekeeper/search/precomputed.hpp"
#include "lorekeeper/store/store.hpp"
#include "lorekeeper/tools/engine.hpp"
#include "model_fetch.hpp"
#include "test_support.hpp"

namespace lorekeeper {
namespace {

using json = nlohmann::json;
using model::Entity;
using model::Kind;

class Fidelity : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    path_ = new std::string(testing::temp_dir() + "/bundled.db");
    auto st = store::Store::open(*path_, store::Store::Mode::kReadWrite);
    ASSERT_TRUE(st.is_ok()) << st.status().to_string();
    auto source = open5e::make_bundled_source();
    ASSERT_TRUE(source.is_ok()) << source.status().to_string();
    auto report = open5e::sync(**source, **st, open5e::SyncOptions{});
    ASSERT_TRUE(report.is_ok()) << report.status().to_string();
    ASSERT_TRUE(report->failed.empty());
    report_ = new open5e::SyncReport(*report);
    // Every entity with its original record (scan leaves `raw` out).
    std::vector<std::pair<std::string, Kind>> keys;
    ASSERT_TRUE((*st)
                    ->scan([&](const Entity& e) {
                      keys.push_back({e.key, e.kind});
                      return true;
                    })
                    .is_ok());
    entities_ = new std::vector<Entity>();
    for (const auto& [key, kind] : keys) {
      auto got = (*st)->get(key, kind, true);
      ASSERT_TRUE(got.is_ok() && got->size() == 1) << key;
      entities_->push_back(std::move((*got)[0]));
    }
    engine_ = new tools::Engine(*path_);
  }
  static void TearDownTestSuite() {
    delete engine_;
    delete report_;
    delete entities_;
    delete path_;
  }

  static std::vector<const Entity*> all(Kind kind) {
    std::vector<const Entity*> out;
    for (const auto& e : *entities_) {
      if (e.kind == kind) out.push_back(&e);
    }
    return out;
  }
  static const Entity& one(const std::string& key, Kind kind) {
    for (const auto& e : *entities_) {
      if (e.key == key && e.kind == kind) return e;
    }
    ADD_FAILURE() << "no " << model::kind_name(kind) << " " << key;
    static const Entity kNone;
    return kNone;
  }
  static bool exists(const std::string& key, Kind kind) {
    for (const auto& e : *entities_) {
      if (e.key == key && e.kind == kind) return true;
    }
    return false;
  }
  static tools::ToolResult call(const std::string& tool, const json& args) { return engine_->call(tool, args); }
  // The API record(s) an entity was made from: a creature completed from v1 keeps both ({"open5e_v2": ...,
  // "open5e_v1": ...}); every other entity's raw is its one record.
  static const json& v2_record(const Entity& e) {
    return e.raw.contains(open5e::kRawV2) ? e.raw[open5e::kRawV2] : e.raw;
  }
  static const json* v1_record(const Entity& e) {
    return e.raw.contains(open5e::kRawV1) ? &e.raw[open5e::kRawV1] : nullptr;
  }

  // The entities a v1 record of a document v2 has is in: those of its kind, document and name, or the variants v2
  // splits it into (open5e::name_covers: "Agile Breastplate" for "Agile Armor"); else, when v2 has no entity of the
  // kind in that document, those of its kind and name in any (SRD 5.1's conditions are v2's "core"); else (a plane)
  // the entities of its kind and document whose text holds the start of its text.
  static std::vector<const Entity*> covering(Kind kind, const std::string& document, const json& rec,
                                             const std::vector<std::string>& v1_names) {
    const std::string name = rec.value("name", "");
    std::vector<const Entity*> out;
    auto pick = [&](const std::function<bool(const Entity&)>& match) {
      for (const auto& e : *entities_) {
        if (e.kind == kind && e.source_api == "open5e_v2" && match(e)) out.push_back(&e);
      }
      return !out.empty();
    };
    // A plane (v1's planes are SRD 5.1's Planes chapter): the chapter's rules, which cut v1's texts by their headings
    // ("Planar Travel" is a rule of its own).
    if (kind == Kind::kRule &&
        pick([&](const Entity& e) { return e.document.key == document && e.data.value("section", "") == "Planes"; }))
      return out;
    // The same name, with the variants named after it ("Crystal Ball of Telepathy" beside "Crystal Ball").
    if (pick([&](const Entity& e) {
          const std::string n = text::fold(e.name), v1 = text::fold(name);
          return e.document.key == document && (n == v1 || n.rfind(v1 + " ", 0) == 0);
        }) &&
        std::any_of(out.begin(), out.end(), [&](const Entity* e) { return text::fold(e->name) == text::fold(name); }))
      return out;
    out.clear();
    if (pick(
            [&](const Entity& e) { return e.document.key == document && open5e::name_is_v1s(e.name, name, v1_names); }))
      return out;
    const bool kind_in_document = std::any_of(entities_->begin(), entities_->end(), [&](const Entity& e) {
      return e.kind == kind && e.document.key == document;
    });
    if (!kind_in_document && pick([&](const Entity& e) { return text::fold(e.name) == text::fold(name); })) return out;

    const std::string start = text::fold(rec.value("desc", "")).substr(0, 60);
    pick([&](const Entity& e) {
      return e.document.key == document && !start.empty() && text::fold(e.text).find(start) != std::string::npos;
    });
    return out;
  }

  static std::string* path_;
  static open5e::SyncReport* report_;
  static std::vector<Entity>* entities_;
  static tools::Engine* engine_;
};

std::string* Fidelity::path_ = nullptr;
open5e::SyncReport* Fidelity::report_ = nullptr;
std::vector<Entity>* Fidelity::entities_ = nullptr;
tools::Engine* Fidelity::engine_ = nullptr;

TEST_F(Fidelity, WeaponsAreMeleeOrRangedByTheirCategoryNotTheirRange) {
  // Thrown melee weapons have a range and stay melee weapons, in both SRDs.
  for (const std::string prefix : {"srd_", "srd-2024_"}) {
    for (const std::string slug : {"dagger", "handaxe", "javelin", "light-hammer", "spear", "trident", "club"}) {
      const Entity& w = one(prefix + slug, Kind::kWeapon);
      EXPECT_EQ(w.data.value("is_melee", false), true) << w.key;
    }
    for (const std::string slug : {"dart", "longbow", "shortbow", "sling", "blowgun"}) {
      const Entity& w = one(prefix + slug, Kind::kWeapon);
      EXPECT_EQ(w.data.value("is_melee", true), false) << w.key;
    }
  }
  EXPECT_EQ(one("srd_net", Kind::kWeapon).data.value("is_melee", true), false);
  // SRD 5.1's Heavy Crossbow lacks the Ammunition property in the API; the SRD's table still makes it ranged.
  EXPECT_EQ(one("srd_crossbow-heavy", Kind::kWeapon).data.value("is_melee", true), false);
  // v1 records state their category: it decides, for every one of them.
  int v1 = 0;
  for (const Entity* w : all(Kind::kWeapon)) {
    if (w->source_api != "open5e_v1") continue;
    ++v1;
    const bool ranged = text::lower(w->raw.value("category", "")).find("ranged") != std::string::npos;
    EXPECT_EQ(w->data.value("is_melee", ranged), !ranged) << w->key;
  }
  EXPECT_GT(v1, 20);
}

// "Ammunition (range 30/120)", "Heavy", ...: a weapon's (or base weapon's) properties as shown.
std::vector<std::string> shown_properties(const json& props) {
  std::vector<std::string> out;
  if (!props.is_array()) return out;
  for (const auto& p : props) {
    const std::string detail = p.value("detail", "");
    out.push_back(p.value("name", "") + (detail.empty() ? "" : " (" + detail + ")"));
  }
  return out;
}

TEST_F(Fidelity, Srd51WeaponsHaveTheSrdTablesProperties) {
  // The SRD 5.1 weapon table ("Weapons", Equipment chapter) for the weapons v2's records get wrong.
  using V = std::vector<std::string>;
  const std::map<std::string, V> table = {
      {"crossbow-heavy", {"Ammunition (range 100/400)", "Heavy", "Loading", "Two-Handed"}},
      {"crossbow-light", {"Ammunition (range 80/320)", "Loading", "Two-Handed"}},
      {"glaive", {"Heavy", "Reach", "Two-Handed"}},
      {"greataxe", {"Heavy", "Two-Handed"}},
      {"greatsword", {"Heavy", "Two-Handed"}},
      {"halberd", {"Heavy", "Reach", "Two-Handed"}},
      {"handaxe", {"Light", "Thrown (range 20/60)"}},
      {"lance", {"Special (Lance)", "Reach"}},
      {"longbow", {"Ammunition (range 150/600)", "Heavy", "Two-Handed"}},
      {"maul", {"Heavy", "Two-Handed"}},
      {"morningstar", {}},
      {"net", {"Special (Net)", "Thrown (range 5/15)"}},
      {"pike", {"Heavy", "Reach", "Two-Handed"}},
      {"sling", {"Ammunition (range 30/120)"}},
      {"trident", {"Thrown (range 20/60)", "Versatile (1d8)"}},
      {"whip", {"Finesse", "Reach"}},
  };
  for (const auto& [slug, properties] : table) {
    const Entity& w = one("srd_" + slug, Kind::kWeapon);
    EXPECT_EQ(shown_properties(w.data.value("properties", json())), properties) << w.key;  // none: the Morningstar
  }
  // The filters agree: the Whip is a finesse weapon, the Light Crossbow two-handed, the Trident not.
  auto keys = [](const tools::ToolResult& r) {
    std::set<std::string> out;
    for (const auto& x : r.structured.value("result", json::array())) out.insert(x.value("key", ""));
    return out;
  };
  const auto finesse =
      keys(call("search_equipment", {{"type", "weapon"}, {"is_finesse", true}, {"documents", {"srd-2014"}}}));
  EXPECT_EQ(finesse, (std::set<std::string>{"srd_dagger", "srd_dart", "srd_rapier", "srd_scimitar", "srd_shortsword",
                                            "srd_whip"}));
  const auto two_handed =
      keys(call("search_equipment", {{"type", "weapon"}, {"is_two_handed", true}, {"documents", {"srd-2014"}}}));
  EXPECT_TRUE(two_handed.count("srd_crossbow-light"));
  EXPECT_FALSE(two_handed.count("srd_trident"));
  EXPECT_TRUE(keys(call("search_equipment", {{"type", "weapon"}, {"is_thrown", true}, {"documents", {"srd-2014"}}}))
                  .count("srd_handaxe"));
  // Magic weapons made from them, SRD 5.1's and other books', show the same base weapon.
  EXPECT_EQ(shown_properties(one("srd_giant-slayer-handaxe", Kind::kMagicItem)
                                 .data.value("base_weapon", json())
                                 .value("properties", json())),
            table.at("handaxe"));
  EXPECT_EQ(shown_properties(one("vom_bloodfuel-greatsword", Kind::kMagicItem)
                                 .data.value("base_weapon", json())
                                 .value("properties", json())),
            table.at("greatsword"));
  // SRD 5.2's weapons are v2's own: its Whip has Finesse, Reach and the Slow mastery.
  EXPECT_EQ(shown_properties(one("srd-2024_whip", Kind::kWeapon).data.value("properties", json())),
            (V{"Finesse", "Reach", "Slow"}));
}

TEST_F(Fidelity, Srd51PaladinSpellsAreTheSrdsPaladinList) {
  // The SRD 5.1 Paladin spell list (Spell Lists chapter), 1st to 5th level.
  const std::set<std::string> srd = {"Aid",
                                     "Banishment",
                                     "Bless",
                                     "Branding Smite",
                                     "Command",
                                     "Create Food and Water",
                                     "Cure Wounds",
                                     "Daylight",
                                     "Death Ward",
                                     "Detect Evil and Good",
                                     "Detect Magic",
                                     "Detect Poison and Disease",
                                     "Dispel Evil and Good",
                                     "Dispel Magic",
                                     "Divine Favor",
                                     "Find Steed",
                                     "Geas",
                                     "Heroism",
                                     "Lesser Restoration",
                                     "Locate Creature",
                                     "Locate Object",
                                     "Magic Circle",
                                     "Magic Weapon",
                                     "Protection from Evil and Good",
                                     "Protection from Poison",
                                     "Purify Food and Drink",
                                     "Raise Dead",
                                     "Remove Curse",
                                     "Revivify",
                                     "Shield of Faith",
                                     "Zone of Truth"};
  auto r = call("search_spell",
                {{"class_key", "paladin"}, {"documents", {"srd-2014"}}, {"limit", 100}, {"detail", "summary"}});
  ASSERT_FALSE(r.is_error) << r.text;
  std::set<std::string> got;
  for (const auto& x : r.structured["result"]) got.insert(x.value("name", ""));
  EXPECT_EQ(got, srd);
  // Spells an oath grants (Bane, Hold Person: Oath of Vengeance) are not on the list.
  const json bane = one("srd_bane", Kind::kSpell).data.value("classes", json::array());
  EXPECT_EQ(std::find(bane.begin(), bane.end(), "Paladin"), bane.end()) << bane.dump();
}

TEST_F(Fidelity, GearFoldsIntoAWeaponOrArmorOnlyWhenItIsTheSameThing) {
  const Entity& staff = one("srd_quarterstaff", Kind::kWeapon);
  EXPECT_DOUBLE_EQ(staff.data.value("cost_gp", 0.0), 0.2);  // 2 sp, not the arcane focus's 5 gp
  EXPECT_EQ(staff.data.value("desc", "").find("focus"), std::string::npos);
  for (const std::string key : {"srd_staff", "srd_wooden-staff"}) {
    ASSERT_TRUE(exists(key, Kind::kItem)) << key;
    EXPECT_EQ(one(key, Kind::kItem).data["base_weapon"].value("name", ""), "Quarterstaff");
  }
  // "Plate Armor" is the item of armor "Plate": folded, not stored twice.
  EXPECT_FALSE(exists("srd_plate-armor", Kind::kItem));
  EXPECT_DOUBLE_EQ(one("srd_plate", Kind::kArmor).data.value("cost_gp", 0.0), 1500);
  // Every SRD weapon and armor has a price from its item.
  for (Kind k : {Kind::kWeapon, Kind::kArmor}) {
    for (const Entity* e : all(k)) {
      if (e->document.key == "srd-2014" || e->document.key == "srd-2024") {
        EXPECT_TRUE(e->data.contains("cost_gp")) << e->key;
      }
    }
  }
}

TEST_F(Fidelity, APriceTheApiDoesNotHaveIsNotFree) {
  // The API writes every magic item's missing price as "0.00": none is shown as costing 0 gp or passes cost_max.
  auto r = call("search_equipment", {{"type", "magic-item"}, {"cost_max", 10}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured.value("total", -1), 0) << r.text.substr(0, 400);
  EXPECT_FALSE(one("srd_bag-of-holding", Kind::kMagicItem).data.contains("cost_gp"));
  EXPECT_FALSE(one("srd_acid", Kind::kItem).data.contains("cost_gp"));  // SRD 5.1's 25 gp, recorded as "0.00"
  // Priced gear keeps its price.
  EXPECT_DOUBLE_EQ(one("srd_longsword", Kind::kWeapon).data.value("cost_gp", 0.0), 15);
  auto cheap = call("search_equipment", {{"type", "item"}, {"cost_max", 1}, {"limit", 100}});
  EXPECT_GT(cheap.structured.value("total", 0), 50) << cheap.text.substr(0, 400);
}

TEST_F(Fidelity, EveryV1PriceIsParsedThousandsSeparatorsIncluded) {
  int priced = 0;
  for (Kind k : {Kind::kWeapon, Kind::kArmor}) {
    for (const Entity* e : all(k)) {
      if (e->source_api != "open5e_v1" || e->raw.value("cost", "").empty()) continue;
      ++priced;
      EXPECT_TRUE(e->data.contains("cost_gp")) << e->key << " " << e->raw.value("cost", "");
    }
  }
  EXPECT_GT(priced, 30);
  EXPECT_DOUBLE_EQ(one("silk-backed-coin-mail", Kind::kArmor).data.value("cost_gp", 0.0), 2000);
  EXPECT_DOUBLE_EQ(one("stonesteel", Kind::kArmor).data.value("cost_gp", 0.0), 3000);
}

TEST_F(Fidelity, TheShieldIsArmorAndReadsAsABonus) {
  for (const std::string key : {"srd_shield", "srd-2024_shield"}) {
    const Entity& s = one(key, Kind::kArmor);
    EXPECT_EQ(s.data.value("armor_class", ""), "+2") << key;
    EXPECT_EQ(s.data.value("ac_base", 0), 2) << key;
  }
  EXPECT_FALSE(exists("srd_shield", Kind::kItem));
  auto r = call("search_equipment", {{"type", "armor"}, {"search", "shield"}, {"documents", {"srd-2014"}}});
  ASSERT_FALSE(r.is_error) << r.text;
  ASSERT_FALSE(r.structured["result"].empty());
  EXPECT_EQ(r.structured["result"][0]["key"], "srd_shield");
  EXPECT_NE(r.text.find("**Armor Class:** +2 AC"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("**Armor Class:** 2 "), std::string::npos);
}

TEST_F(Fidelity, TheTextShowsCostWeightAndAMagicItemsBaseItem) {
  auto sword = call("get_entity", {{"key", "srd_longsword"}, {"kind", "weapon"}});
  ASSERT_FALSE(sword.is_error) << sword.text;
  EXPECT_NE(sword.text.find("**Cost:** 15 gp"), std::string::npos) << sword.text;
  EXPECT_NE(sword.text.find("**Weight:** 3 lb."), std::string::npos) << sword.text;
  auto dart = call("get_entity", {{"key", "srd_dart"}, {"kind", "weapon"}});
  EXPECT_NE(dart.text.find("**Cost:** 5 cp"), std::string::npos) << dart.text;
  EXPECT_NE(dart.text.find("simple ranged weapon"), std::string::npos) << dart.text;
  auto plate = call("get_entity", {{"key", "srd_plate"}, {"kind", "armor"}});
  EXPECT_NE(plate.text.find("**Cost:** 1,500 gp"), std::string::npos) << plate.text;
  auto vorpal = call("get_entity", {{"key", "srd_vorpal-sword-longsword"}});
  ASSERT_FALSE(vorpal.is_error) << vorpal.text;
  EXPECT_NE(vorpal.text.find("**Base weapon:** Longsword (martial; 1d8 slashing; Versatile (1d10))"), std::string::npos)
      << vorpal.text;
  auto adamantine = call("get_entity", {{"key", "srd-2024_adamantine-armor-breastplate"}});
  EXPECT_NE(adamantine.text.find("**Base armor:** Breastplate (medium; AC 14 + Dex modifier (max 2))"),
            std::string::npos)
      << adamantine.text;
}

TEST_F(Fidelity, EveryActionKeepsItsRechargeAndItsFormOrItemRestriction) {
  int recharge_recorded = 0, recharge_kept = 0, limited_recorded = 0, limited_kept = 0;
  for (const Entity* c : all(Kind::kCreature)) {
    const json& raw = v2_record(*c);
    const json& actions = raw.contains("actions") ? raw["actions"] : json::array();
    for (const auto& a : actions.is_array() ? actions : json::array()) {
      const json& usage = a.contains("usage_limits") ? a["usage_limits"] : json();
      const std::string type = usage.is_object() ? usage.value("type", "") : "";
      if (type == "RECHARGE" || type == "RECHARGE_ON_ROLL") ++recharge_recorded;
      if (a.contains("limited_to_form") && a["limited_to_form"].is_string() &&
          !a["limited_to_form"].get<std::string>().empty()) {
        ++limited_recorded;
      }
    }
    for (const char* group :
         {"actions", "bonus_actions", "reactions", "legendary_actions", "mythic_actions", "lair_actions"}) {
      for (const auto& a : c->data.value(group, json::array())) {
        if (a.value("usage", "").rfind("Recharge", 0) == 0) ++recharge_kept;
        if (!a.value("limited_to", "").empty()) ++limited_kept;
      }
    }
  }
  EXPECT_GT(recharge_recorded, 900);
  EXPECT_GE(recharge_kept, recharge_recorded);  // v1 adds the recharges v2 dropped
  EXPECT_GT(limited_recorded, 200);
  EXPECT_GE(limited_kept, limited_recorded);

  auto medusa = call("get_entity", {{"key", "srd-2024_medusa"}});
  EXPECT_NE(medusa.text.find("***Petrifying Gaze (Recharge 5-6).***"), std::string::npos) << medusa.text;
  EXPECT_NE(medusa.text.find("**Initiative:** +6 (16)"), std::string::npos) << medusa.text;
  auto werewolf = call("get_entity", {{"key", "srd-2024_werewolf"}});
  EXPECT_NE(werewolf.text.find("***Bite (Wolf or Hybrid Form Only).***"), std::string::npos) << werewolf.text;
}

// A decimal zero, "0.00": how the API writes a price or weight it does not have (every magic item's cost).
bool decimal_zero(const std::string& s) {
  const size_t dot = s.find('.');
  return dot != std::string::npos && dot > 0 && s.find_first_not_of("0.") == std::string::npos &&
         s.find('.', dot + 1) == std::string::npos;
}

// Says nothing: null, "", false, 0, "0.00", the API's placeholders ("[None provided]", "[Column data]"), or a list
// or object of such values (an object's `type` label aside: a casting option {"type": "default", everything else
// null} says nothing).
bool blank(const json& v) {
  if (v.is_null()) return true;
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    // v1's placeholders: "False" for an empty resistance list, a dash for no languages.
    return s.empty() || s == "[None provided]" || s == "[Column data]" || s == "False" || decimal_zero(s) ||
           std::none_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)); });
  }
  if (v.is_boolean()) return !v.get<bool>();
  if (v.is_number()) return v.get<double>() == 0;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!(v.is_object() && it.key() == "type") && !blank(*it)) return false;
  }
  return true;
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out(1);
  for (char c : s) {
    if (c == sep)
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

bool carries(const json& result, std::string_view to) {
  for (const auto& alternative : split(to, '|')) {
    const json* at = &result;
    for (const auto& part : split(alternative, '.')) {
      if (!at->is_object() || !at->contains(part)) {
        at = nullptr;
        break;
      }
      at = &(*at)[part];
    }
    if (at && !at->is_null()) return true;
  }
  return false;
}

// Text as the conservation check compares it: the markup the API should not have sent cleaned as every answer's
// text is (open5e::clean_markup), then only ASCII letters and digits, lower-cased.
std::string comparable(std::string_view s) {
  std::string out;
  for (unsigned char c : open5e::clean_markup(s)) {
    if (c < 0x80 && std::isalnum(c)) out += static_cast<char>(std::tolower(c));
  }
  return out;
}

// The words of a text, lower-cased ASCII letters and digits, a plural's "s" dropped ("recharges" is "recharge").
std::vector<std::string> words_of(std::string_view s) {
  std::vector<std::string> out(1);
  for (unsigned char c : open5e::clean_markup(s)) {
    if (c < 0x80 && std::isalnum(c)) {
      out.back() += static_cast<char>(std::tolower(c));
    } else if (!out.back().empty()) {
      out.emplace_back();
    }
  }
  if (out.back().empty()) out.pop_back();
  for (auto& w : out) {
    if (w.size() > 3 && w.back() == 's') w.pop_back();
  }
  return out;
}

// The numbers written in a text, unsigned ("+9" and "-1" are 9 and 1): "5,900", "1.5", and a fraction "1/4" both as
// 0.25 and as its parts.
void numbers_in(std::string_view s, std::set<double>& out) {
  auto digit = [&](size_t i) { return i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); };
  for (size_t i = 0; i < s.size();) {
    if (!digit(i)) {
      ++i;
      continue;
    }
    std::string number;
    size_t j = i;
    while (digit(j) || ((s[j] == ',' || s[j] == '.') && digit(j + 1))) {
      if (s[j] != ',') number += s[j];
      ++j;
    }
    const double value = std::atof(number.c_str());
    out.insert(value);
    if (j < s.size() && s[j] == '/' && digit(j + 1)) {
      const double denominator = std::atof(std::string(s.substr(j + 1, 6)).c_str());
      if (denominator > 0) out.insert(value / denominator);
    }
    i = j;
  }
}

// Everything an answer says: its Markdown and every string and number of its structured result.
struct AnswerText {
  std::string all;  // comparable() of each piece, joined by a byte no piece holds
  std::set<double> numbers;
  std::set<std::string> words;

  void add(std::string_view s) {
    all += comparable(s);
    all += '\x01';
    numbers_in(s, numbers);
    for (auto& w : words_of(s)) words.insert(std::move(w));
  }
  void add(const json& v) {
    if (v.is_string()) {
      add(std::string_view(v.get_ref<const std::string&>()));
    } else if (v.is_number()) {
      numbers.insert(std::fabs(v.get<double>()));
      add(std::string_view(v.dump()));
    } else if (v.is_structured()) {
      for (const auto& x : v) add(x);
    }
  }
  void merge(const AnswerText& other) {
    all += other.all;
    numbers.insert(other.numbers.begin(), other.numbers.end());
    words.insert(other.words.begin(), other.words.end());
  }
  // As the record has it. A long text is found by its first and last 100 characters (comparable), so a text the
  // answer holds whole but split by a heading or a table is found.
  bool has(const json& v) const {
    if (v.is_number()) return numbers.count(std::fabs(v.get<double>())) > 0;
    const auto& s = v.get_ref<const std::string&>();
    if (s.find_first_not_of("0123456789.,/ +-") == std::string::npos) {
      std::set<double> ns;
      numbers_in(s, ns);
      if (!ns.empty() && std::all_of(ns.begin(), ns.end(), [&](double n) { return numbers.count(n) > 0; })) return true;
    }
    const std::string c = comparable(s);
    if (c.empty()) return true;
    if (c.size() <= 200) return all.find(c) != std::string::npos;
    return all.find(c.substr(0, 100)) != std::string::npos && all.find(c.substr(c.size() - 100)) != std::string::npos;
  }
  // The words and numbers of a text the answer lacks, for a failure's message.
  std::string missing_words(const json& v) const {
    if (!v.is_string()) return {};
    std::string out;
    for (const auto& w : words_of(v.get_ref<const std::string&>())) {
      if (!words.count(w)) out += " " + w;
    }
    return out.empty() ? out : "; words not in it:" + out;
  }
  // In the answer's own layout: every number of it, and at least nine in ten of its words (a unit the answer's
  // field names aside: "25 gp" is cost_gp 25).
  bool has_reworded(const json& v) const {
    if (!v.is_string()) return has(v);
    static const std::set<std::string> kUnits = {"gp", "sp", "cp", "ep", "pp", "lb", "ft", "feet", "foot"};
    const auto& s = v.get_ref<const std::string&>();
    std::set<double> ns;
    numbers_in(s, ns);
    for (double n : ns) {
      if (!numbers.count(n)) return false;
    }
    size_t total = 0, there = 0;
    for (const auto& w : words_of(s)) {
      if (kUnits.count(w) || std::all_of(w.begin(), w.end(), [](char c) { return std::isdigit(c); })) continue;
      ++total;
      if (words.count(w)) ++there;
    }
    return there * 10 >= total * 9;
  }
};

// Every leaf of a record (a string or a number) with its path: nested fields joined by '.', a list's items "[]".
void leaves(const json& v, const std::string& path, std::vector<std::pair<std::string, const json*>>& out) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) leaves(*it, path.empty() ? it.key() : path + "." + it.key(), out);
  } else if (v.is_array()) {
    for (const auto& x : v) leaves(x, path + "[]", out);
  } else if (v.is_string() || v.is_number()) {
    out.push_back({path, &v});
  }
}

// The field map's name for the v1 record that completed an entity of a kind.
std::string completing_source(Kind kind) {
  switch (kind) {
    case Kind::kCreature: return "open5e_v1 monster";
    case Kind::kSpecies: return "open5e_v1 race";
    case Kind::kBackground: return "open5e_v1 background";
    case Kind::kClass: return "open5e_v1 class";
    case Kind::kMagicItem: return "open5e_v1 covered";
    default: return "open5e_v1 " + std::string(model::kind_name(kind));
  }
}

struct Tally {
  long records = 0, values = 0, found = 0, reworded = 0, accounted = 0, unexplained = 0;
};

// The proof that nothing is lost (#42.7): every value of every record the bundled snapshot gives an entity, v2 and
// the v1 record that completed it, is in that entity's get_entity answer (structured result or Markdown) as the
// record has it, or in the answer's own layout where open5e::field_maps() says the answer rewords it, or accounted
// for by the map's rule for its field (shown as, per document, corrected, v2's kept, header, dropped, each with its
// reason). A field the map does not know fails, so does a value of a kept field the answer lacks. Also each field a
// record gives reaches the answer field the map names, and every rule of the map is used by some record.
// One entity's get_entity answer as the conservation check reads it.
struct Answered {
  json result;
  AnswerText said;   // all of it: the structured result and the Markdown
  AnswerText shown;  // the Markdown
  std::map<std::string, AnswerText> in_fields;

  // What the answer fields a rule names hold ("actions|bonus_actions", "senses.darkvision"): a kept value is looked
  // for there, not anywhere in the answer ("human" is not found in "humanoid" of the type).
  const AnswerText& fields(std::string_view to) {
    auto [it, added] = in_fields.try_emplace(std::string(to));
    if (added) {
      for (const auto& alternative : split(to, '|')) {
        const json* at = &result;
        for (const auto& part : split(alternative, '.'))
          at = at && at->is_object() && at->contains(part) ? &(*at)[part] : nullptr;
        if (at) it->second.add(*at);
        for (const json& other : others) {  // a record split into several entities: each one's field
          const json* in = &other;
          for (const auto& part : split(alternative, '.'))
            in = in && in->is_object() && in->contains(part) ? &(*in)[part] : nullptr;
          if (in) it->second.add(*in);
        }
      }
    }
    return it->second;
  }
  std::vector<json> others;  // the results of the other entities a record is split into
};

// The conservation check of records against their entities' answers, with its tallies (see the test below).
class Conservation {
 public:
  // Every field of `record` (of `source`, made into or lending to `e`) reaches the answer field its rule names, and
  // every value is in the answer or accounted for by its rule.
  void check(const std::string& source, const Entity& e, const json& record, Answered& a) {
    const std::string kind(model::kind_name(e.kind));
    Tally& t = tally_[source + " " + kind + " " + e.document.key];
    ++t.records;
    // The fields of this record the corrections file mended: the answer says so, with the value it has instead.
    std::set<std::string> corrected;
    const std::string id = record.value("key", record.value("slug", ""));
    const std::string version = source.substr(std::string("open5e_").size(), 2) + "/";
    for (const auto& m : a.result.value("corrections", json::array())) {
      const std::string r = m.value("record", "");
      if (r.rfind(version, 0) == 0 && r.substr(r.rfind('/') + 1) == id) corrected.insert(m.value("field", ""));
    }
    check_fields(source, kind, e, record, corrected, a);
    json own = record;
    if (own.contains("descriptions") && own["descriptions"].is_array() &&
        open5e::field_rule(source, kind, "descriptions")->fate == open5e::Fate::kPerDocument) {
      json mine = json::array();
      for (const auto& d : own["descriptions"]) {
        if (d.value("document", "") == e.document.key) {
          mine.push_back(d);
        } else {
          ++t.accounted;  // another document's description: the entity of that document
        }
      }
      own["descriptions"] = std::move(mine);
    }
    std::vector<std::pair<std::string, const json*>> values;
    leaves(own, "", values);
    for (const auto& [path, v] : values) {
      if (blank(*v)) continue;
      if (std::any_of(corrected.begin(), corrected.end(),
                      [&](const std::string& f) { return path == f || path.rfind(f + ".", 0) == 0; })) {
        ++t.values;
        ++t.accounted;
        continue;
      }
      check_value(source, kind, e, path, *v, a, t);
    }
  }

  const std::map<std::string, Tally>& tally() const { return tally_; }

  // Prints the table and fails on an unexplained value; returns the totals.
  Tally report() const {
    std::printf("%-44s %7s %8s %8s %8s %9s %11s\n", "source kind document", "records", "values", "found", "reworded",
                "accounted", "unexplained");
    Tally total;
    for (const auto& [k, t] : tally_) {
      std::printf("%-44s %7ld %8ld %8ld %8ld %9ld %11ld\n", k.c_str(), t.records, t.values, t.found, t.reworded,
                  t.accounted, t.unexplained);
      total.records += t.records;
      total.values += t.values;
      total.found += t.found;
      total.reworded += t.reworded;
      total.accounted += t.accounted;
      total.unexplained += t.unexplained;
    }
    std::printf("%-44s %7ld %8ld %8ld %8ld %9ld %11ld\n", "total", total.records, total.values, total.found,
                total.reworded, total.accounted, total.unexplained);
    for (const auto& [path, n] : unexplained_per_path_) std::printf("unexplained: %6d %s\n", n, path.c_str());
    EXPECT_EQ(total.unexplained, 0);
    return total;
  }

  // A rule no record needs is a stale one; every rule but a kept or header one says why.
  void expect_every_rule_used() const {
    for (const auto& m : open5e::field_maps()) {
      for (const auto& r : m.rules) {
        if (r.path != "*" && !used_.count(&r))
          ADD_FAILURE() << "open5e::field_maps() has a rule no record uses: " << m.source << " " << m.kind << " "
                        << r.path;
        if (r.fate != open5e::Fate::kKept && r.fate != open5e::Fate::kHeader) {
          EXPECT_FALSE(r.why.empty()) << m.source << " " << m.kind << " " << r.path << " needs its reason";
        }
      }
    }
  }

 private:
  void check_fields(const std::string& source, const std::string& kind, const Entity& e, const json& record,
                    const std::set<std::string>& corrected, Answered& a) {
    for (auto field = record.begin(); field != record.end(); ++field) {
      if (blank(field.value())) continue;
      const auto* rule = open5e::field_rule(source, kind, field.key());
      if (!rule) {
        ADD_FAILURE() << source << " " << kind << " field `" << field.key() << "` (" << e.key
                      << ") is not in open5e::field_maps()";
        continue;
      }
      used_.insert(rule);
      const bool needs_met =
          rule->needs.empty() || (record.contains(rule->needs) && !blank(record[std::string(rule->needs)]));
      const std::string_view to = rule->path == "*" ? std::string_view(field.key()) : rule->to;
      if (rule->fate == open5e::Fate::kHeader || rule->fate == open5e::Fate::kDropped || !needs_met || to.empty() ||
          corrected.count(field.key()))
        continue;
      EXPECT_TRUE(carries(a.result, to)) << e.key << ": `" << field.key() << "` should reach `" << to << "` of "
                                         << a.result.dump().substr(0, 400);
    }
  }

  void check_value(const std::string& source, const std::string& kind, const Entity& e, const std::string& path,
                   const json& v, Answered& a, Tally& t) {
    ++t.values;
    const auto* rule = open5e::field_rule(source, kind, path);
    if (rule) used_.insert(rule);
    using open5e::Fate;
    const Fate fate = rule ? rule->fate : Fate::kKept;
    const bool in_its_field = rule && (fate == Fate::kKept || fate == Fate::kReworded) && !rule->to.empty();
    const std::string top = path.substr(0, path.find_first_of(".["));
    const AnswerText& where = !in_its_field ? a.said : a.fields(rule->path == "*" ? std::string_view(top) : rule->to);
    if (where.has(v)) {
      ++t.found;
      return;
    }
    // Reworded: in its fields, or as the Markdown shows them ("Gore (Costs 2 Actions)" is the name, cost 2).
    if (fate == Fate::kReworded && (where.has_reworded(v) || a.shown.has_reworded(v))) {
      ++t.reworded;
    } else if (rule && fate != Fate::kKept && fate != Fate::kReworded) {
      ++t.accounted;
    } else {
      ++t.unexplained;
      if (++unexplained_per_path_[source + " " + kind + " " + path] <= 3 && ++reported_ <= 200) {
        ADD_FAILURE() << e.key << ": " << source << " `" << path << "` = " << v.dump().substr(0, 160)
                      << " is not in the answer and " << (rule ? "its rule keeps it" : "no rule names it")
                      << where.missing_words(v);
      }
    }
  }

  std::map<std::string, Tally> tally_;  // "source kind document"
  std::set<const open5e::FieldRule*> used_;
  std::map<std::string, int> unexplained_per_path_;
  int reported_ = 0;
};

// Every record of a list of the bundled snapshot ("v1/spells"), page by page as the recorded API serves them, read
// independently of the sync; empty when the snapshot has no such list.
std::vector<json> v1_list(const std::string& endpoint) {
  auto source = open5e::make_bundled_source();
  std::vector<json> out;
  if (!source.is_ok()) return out;
  for (int page = 1;; ++page) {
    auto body = (*source)->get(endpoint + "/?limit=100" + (page == 1 ? "" : "&page=" + std::to_string(page)));
    if (!body.is_ok()) break;
    const json listing = json::parse(*body);
    for (const auto& r : listing["results"]) out.push_back(r);
  }
  return out;
}

// data/corrections.json (#42.6): every entry still corrects the bundled snapshot (its record has the value it
// corrects) on evidence the snapshot bears out, the sync applied every one, and the entity's answer has the corrected
// value, says it was corrected and why, and keeps the record as sent in its source.
TEST_F(Fidelity, EveryReviewedCorrectionHoldsOnItsEvidenceAndItsAnswerSaysSo) {
  ASSERT_EQ(open5e::corrections_error(), "");
  const auto& corrections = open5e::bundled_corrections();
  ASSERT_GE(corrections.size(), 28u);
  EXPECT_EQ(report_->corrections, static_cast<int>(corrections.size()));
  EXPECT_TRUE(report_->corrections_unapplied.empty()) << text::join(report_->corrections_unapplied, ", ");
  std::map<std::string, std::map<std::string, json>> lists;  // endpoint -> key or slug -> record
  auto record = [&](const std::string& endpoint, const std::string& key) -> const json* {
    auto& list = lists[endpoint];
    if (list.empty()) {
      for (const json& r : v1_list(endpoint)) list[r.value("key", r.value("slug", ""))] = r;
    }
    auto it = list.find(key);
    return it == list.end() ? nullptr : &it->second;
  };
  for (const auto& c : corrections) {
    const std::string what = c.endpoint + "/" + c.key + " " + c.field;
    const json* sent = record(c.endpoint, c.key);
    ASSERT_NE(sent, nullptr) << what << ": no such record in the snapshot";
    const json* v = open5e::field_at(*sent, c.field);
    ASSERT_NE(v, nullptr) << what << ": the record has no such field";
    EXPECT_EQ(*v, c.was) << what << ": the record no longer has the value the entry corrects";
    for (const auto& ev : c.evidence) {
      const json* proof = record(ev.endpoint, ev.key);
      ASSERT_NE(proof, nullptr) << what << ": the evidence's record " << ev.endpoint << "/" << ev.key << " is missing";
      EXPECT_TRUE(open5e::holds(ev, *proof)) << what << ": the evidence does not hold: " << ev.describe();
    }
    const Entity* e = nullptr;
    for (const auto& x : *entities_) {
      if (x.raw.is_object() && v2_record(x).value("key", "") == c.key) e = &x;
    }
    ASSERT_NE(e, nullptr) << what << ": no entity was made from the record";
    EXPECT_EQ(*open5e::field_at(v2_record(*e), c.field), c.was) << what << ": the stored source is not as sent";
    auto answer = call("get_entity", {{"key", e->key}, {"kind", std::string(model::kind_name(e->kind))}});
    const json& result = answer.structured["result"];
    bool marked = false;
    for (const auto& m : result.value("corrections", json::array())) {
      marked =
          marked || (m.value("field", "") == c.field && m.value("value", json()) == c.value &&
                     !m.value("reason", "").empty() && m.value("evidence", json::array()).size() == c.evidence.size());
    }
    EXPECT_TRUE(marked) << what << ": " << result.value("corrections", json()).dump();
    EXPECT_NE(answer.text.find("*Corrected: the Open5e record's `" + c.field + "`"), std::string::npos)
        << what << ": " << answer.text.substr(0, 600);
  }
  // What the corrected values do in the answers.
  auto result = [&](const std::string& key, const std::string& kind) {
    return call("get_entity", {{"key", key}, {"kind", kind}}).structured["result"];
  };
  EXPECT_FALSE(result("srd-2024_true-strike", "spell").value("material_consumed", false));
  EXPECT_TRUE(result("srd-2024_revivify", "spell").value("material_consumed", false));
  EXPECT_TRUE(result("srd_revivify", "spell").value("material_consumed", false));
  EXPECT_EQ(result("srd_potion-of-fire-giant-strength", "magic-item").value("category", ""), "Potion");
  EXPECT_FALSE(result("srd_horn-of-valhalla-silver", "magic-item").value("requires_attunement", true));
  EXPECT_EQ(text::lower(result("srd_ioun-stone-agility", "magic-item").value("rarity", "")), "very rare");
  EXPECT_EQ(result("srd_mithral-armor-half-plate", "magic-item").value("category", ""), "Armor");
  // Magic Jar's container is destroyed when the spell ends: not proven unconsumed, so it stays as sent.
  EXPECT_TRUE(result("srd-2024_magic-jar", "spell").value("material_consumed", false));
  EXPECT_FALSE(result("srd-2024_magic-jar", "spell").contains("corrections"));
}

// The proof that nothing is lost (#42.7): every value of every record the bundled snapshot gives an entity, v2 and
// the v1 record that completed it, and of every /v1/spells/ record (which lends its class lists), is in that
// entity's get_entity answer (structured result or Markdown) as the record has it, or in the answer's own layout
// where open5e::field_maps() says the answer rewords it, or accounted for by the map's rule for its field (shown as,
// per document, corrected, v2's kept, header, dropped, each with its reason). A field the map does not know fails,
// so does a value of a kept field the answer lacks. Also each field a record gives reaches the answer field the map
// names, and every rule of the map is used by some record.
TEST_F(Fidelity, EveryValueOfEveryRecordIsInItsAnswerOrAccountedForByTheFieldMap) {
  Conservation conservation;
  auto answered = [&](const Entity& e) {
    Answered a;
    auto answer = call("get_entity", {{"key", e.key}, {"kind", std::string(model::kind_name(e.kind))}});
    EXPECT_FALSE(answer.is_error) << e.key << ": " << answer.text;
    a.result = answer.structured["result"];
    EXPECT_TRUE(a.result.is_object()) << e.key;
    a.said.add(a.result);
    a.said.add(std::string_view(answer.text));
    a.shown.add(std::string_view(answer.text));
    return a;
  };
  std::map<std::string, const Entity*> spells;  // v1_note_key(document, name) -> the spell
  for (const auto& e : *entities_) {
    if (e.kind == Kind::kSpell) spells[open5e::v1_note_key(e.document.key, e.name)] = &e;
    if (!e.raw.is_object()) continue;
    Answered a = answered(e);
    conservation.check(e.source_api, e, v2_record(e), a);
    if (const json* v1 = v1_record(e)) conservation.check(completing_source(e.kind), e, *v1, a);
  }
  int v1_spells = 0;
  for (const json& rec : v1_list("v1/spells")) {
    ++v1_spells;
    const auto it = spells.find(
        open5e::v1_note_key(open5e::v2_document_of_v1(rec.value("document__slug", "")), rec.value("name", "")));
    if (it == spells.end()) {
      ADD_FAILURE() << "the v1 spell " << rec.value("slug", "") << " has no spell of its name in its v2 document";
      continue;
    }
    Answered a = answered(*it->second);
    conservation.check("open5e_v1 spell", *it->second, rec, a);
  }
  EXPECT_GT(v1_spells, 1400);
  // The v1 lists whose records of a document v2 has the sync stores no entity for (magic items, weapons, armor),
  // reads only for what they lend (classes: the subclasses' introductions) or does not read (feats, conditions,
  // planes): each record against the entities of its name in its v2 document, or the variants v2 splits it into
  // ("Ioun Stone": "Ioun Stone (Agility)", ...; "Armor of Spite": "Leather Armor of Spite", ...), or for a plane the
  // SRD 5.1 rule that holds its text.
  int covered = 0;
  auto answered_all = [&](const std::vector<const Entity*>& entities) {
    Answered a = answered(*entities[0]);
    for (size_t i = 1; i < entities.size(); ++i) {
      Answered more = answered(*entities[i]);
      a.others.push_back(more.result);
      a.said.merge(more.said);
      a.shown.merge(more.shown);
    }
    return a;
  };
  // An entity of its own, or one the record completed: checked above, through the entity's raw.
  auto made = [&](Kind k, const json& v1_record_of) {
    return std::any_of(entities_->begin(), entities_->end(), [&](const Entity& e) {
      if (e.kind != k || !e.raw.is_object()) return false;
      const json* v1 = e.source_api == "open5e_v1" ? &e.raw : v1_record(e);
      return v1 && v1->value("slug", "") == v1_record_of.value("slug", "") &&
             v1->value("document__slug", "") == v1_record_of.value("document__slug", "");
    });
  };
  // A record against the entities of its name (or text) in its v2 document.
  std::map<std::string, std::vector<std::string>> v1_names;  // v1 document -> the names of its v1 magic items
  for (const json& r : v1_list("v1/magicitems")) v1_names[r.value("document__slug", "")].push_back(r.value("name", ""));
  auto check_covered = [&](const std::string& endpoint, Kind kind, const json& rec, const std::string& source) {
    ++covered;
    std::string document(open5e::v2_document_of_v1(rec.value("document__slug", "")));
    if (document.empty()) document = rec.value("document__slug", "");
    static const std::vector<std::string> kNone;
    const auto it = v1_names.find(rec.value("document__slug", ""));
    const std::vector<const Entity*> of =
        covering(kind, document, rec, kind == Kind::kMagicItem && it != v1_names.end() ? it->second : kNone);
    if (of.empty()) {
      ADD_FAILURE() << endpoint << " " << rec.value("slug", "") << " (" << document
                    << "): no entity of its name or text";
      return;
    }
    Answered a = answered_all(of);
    conservation.check(source, *of[0], rec, a);
  };
  for (const auto& [endpoint, kind] :
       {std::pair{"v1/magicitems", Kind::kMagicItem}, std::pair{"v1/weapons", Kind::kWeapon},
        std::pair{"v1/armor", Kind::kArmor}, std::pair{"v1/classes", Kind::kClass}, std::pair{"v1/feats", Kind::kFeat},
        std::pair{"v1/conditions", Kind::kCondition}, std::pair{"v1/planes", Kind::kRule}}) {
    for (const json& rec : v1_list(endpoint)) {
      // A class's archetypes are subclasses, each the entity of its name in its own document.
      for (const json& archetype : rec.value("archetypes", json::array())) {
        if (!made(Kind::kClass, archetype)) check_covered(endpoint, Kind::kClass, archetype, "open5e_v1 class");
      }
      json own = rec;
      own.erase("archetypes");
      if (made(kind, own)) continue;
      // An Armor Class formula, no armor (SRD 5.1's Mage Armor in v1's armor list): its feature or spell says it.
      if (kind == Kind::kArmor && open5e::v1_armor_is_a_formula(rec)) {
        const std::string name = text::fold(rec.value("name", "").substr(0, rec.value("name", "").find(" (")));
        EXPECT_TRUE(std::any_of(entities_->begin(), entities_->end(),
                                [&](const Entity& e) {
                                  return e.document.key == "srd-2014" && e.kind != Kind::kArmor &&
                                         text::fold(e.text + " " + e.name).find(name) != std::string::npos;
                                }))
            << endpoint << " " << rec.value("slug", "") << ": no SRD 5.1 entity names " << name;
        continue;
      }
      check_covered(endpoint, kind, own, kind == Kind::kClass ? "open5e_v1 class" : "open5e_v1 covered");
    }
  }
  EXPECT_GT(covered, 1100);
  const Tally total = conservation.report();
  EXPECT_GT(total.values, 400000);
  EXPECT_GT(conservation.tally().at("open5e_v2 creature tob3").records, 390);
  conservation.expect_every_rule_used();
}

// /v1/spelllist/ (Open5e's class spell lists, by v1 spell slug): every spell of every list names the list's class
// among its classes or its subclass grants, so the lists say nothing the spells' answers do not.
TEST_F(Fidelity, EveryV1SpellListSpellNamesItsClass) {
  std::map<std::string, json> v1_spells;  // slug -> record
  for (const json& r : v1_list("v1/spells")) v1_spells[r.value("slug", "")] = r;
  std::map<std::string, const Entity*> spells;  // v1_note_key(document, name) -> the spell
  for (const auto& e : *entities_) {
    if (e.kind == Kind::kSpell) spells[open5e::v1_note_key(e.document.key, e.name)] = &e;
  }
  int checked = 0;
  for (const json& list : v1_list("v1/spelllist")) {
    const std::string cls = text::fold(list.value("name", ""));
    for (const auto& slug : list.value("spells", json::array())) {
      const auto v1 = v1_spells.find(slug.get<std::string>());
      ASSERT_NE(v1, v1_spells.end()) << list.value("slug", "") << ": no v1 spell " << slug;
      const auto it = spells.find(open5e::v1_note_key(open5e::v2_document_of_v1(v1->second.value("document__slug", "")),
                                                      v1->second.value("name", "")));
      ASSERT_NE(it, spells.end()) << list.value("slug", "") << ": no spell for " << slug;
      bool named = false;
      for (const auto& c : it->second->data.value("classes", json::array()))
        named = named || text::fold(c.get<std::string>()) == cls;
      for (const auto& g : it->second->data.value("subclass_grants", json::array()))
        named = named || text::fold(g.get<std::string>().substr(0, g.get<std::string>().find(':'))) == cls;
      EXPECT_TRUE(named) << it->second->key << " is on v1's " << list.value("name", "") << " list";
      ++checked;
    }
  }
  EXPECT_GT(checked, 1300);
}

// SRD 5.1's text as /v1/sections/ holds it (45 chapters and sections, none in any entity's raw but the three that
// give rules v2 lacks): every part of every section, cut at its headings, is in the answer of an SRD 5.1 rule, rule
// section, condition or other SRD 5.1 entity, by its first and last 100 characters (comparable()).
TEST_F(Fidelity, EveryPartOfEverySrd51SectionV1HoldsIsInAnAnswer) {
  std::string srd;  // every SRD 5.1 answer, comparable, each followed by a byte no comparable text holds
  for (const auto& e : *entities_) {
    if (e.document.key != "srd-2014") continue;
    const auto answer = call("get_entity", {{"key", e.key}, {"kind", std::string(model::kind_name(e.kind))}});
    srd += comparable(answer.text) + '\x01';
  }
  int sections = 0, parts = 0;
  for (const json& rec : v1_list("v1/sections")) {
    if (rec.value("parent", "") == "Legal Information") continue;  // the licence, which answers name
    ++sections;
    // Cut at the headings of any level, as open5e::map_v1_section does.
    std::vector<std::string> bodies(1);
    std::istringstream lines(rec.value("desc", ""));
    for (std::string line; std::getline(lines, line);) {
      if (!line.empty() && line.front() == '#') {
        bodies.emplace_back();
      } else {
        bodies.back() += line + "\n";
      }
    }
    for (const auto& b : bodies) {
      const std::string c = comparable(b);
      if (c.empty()) continue;
      ++parts;
      const std::string head = c.substr(0, 100), tail = c.substr(c.size() > 100 ? c.size() - 100 : 0);
      EXPECT_TRUE(srd.find(head) != std::string::npos && srd.find(tail) != std::string::npos)
          << rec.value("slug", "") << ": no SRD 5.1 answer holds \"" << b.substr(0, 200) << "\"";
    }
  }
  EXPECT_GT(sections, 40);
  EXPECT_GT(parts, 350);
}

TEST_F(Fidelity, EveryLegendaryPreambleV1RecordsReachesItsCreature) {
  // The preambles as the recorded v1 monster pages hold them, read independently of the sync.
  std::map<std::string, std::string> recorded;  // v2 key -> preamble
  for (const json& m : v1_list("v1/monsters")) {
    if (!m.contains("legendary_desc") || !m["legendary_desc"].is_string()) continue;
    const std::string preamble = m["legendary_desc"].get<std::string>();
    if (preamble.empty()) continue;
    std::string path = m.value("v2_converted_path", "");  // "/v2/creatures/srd_aboleth/"
    path.pop_back();
    recorded[path.substr(path.rfind('/') + 1)] = text::trim(preamble);
  }
  EXPECT_GT(recorded.size(), 140u);
  size_t kept = 0;
  for (const Entity* c : all(Kind::kCreature)) {
    if (!c->data.contains("legendary_desc")) continue;
    ++kept;
    auto it = recorded.find(c->key);
    ASSERT_NE(it, recorded.end()) << c->key << " has a preamble no v1 record gives it";
    EXPECT_EQ(c->data["legendary_desc"], it->second) << c->key;
    EXPECT_TRUE(c->data.contains("legendary_actions")) << c->key;
  }
  EXPECT_EQ(kept, recorded.size());

  auto aboleth = call("get_entity", {{"key", "srd_aboleth"}});
  EXPECT_NE(aboleth.text.find("**Legendary Actions**\n\nThe aboleth can take 3 legendary actions, choosing from the "
                              "options below."),
            std::string::npos)
      << aboleth.text;
  EXPECT_LT(aboleth.text.find("can take 3 legendary actions"), aboleth.text.find("***Detect.***"));
}

// The name a v1 action gives without its parenthesis ("Acid Spray (Recharge 6)." -> "acid spray"), folded.
std::string v1_base_name(const std::string& name) {
  std::string n = text::trim(name);
  while (!n.empty() && n.back() == '.') n.pop_back();
  return text::fold(n.substr(0, n.find(" (")));
}

// Every entry of a v1 monster's action lists and traits reaches the creature's answer: by its name, or, where v1
// cut a text in two ("Falling damage in the area increases ..."), by its text. Tome of Beasts 3's 396 creatures
// whose v2 records have no actions get v1's.
TEST_F(Fidelity, EveryActionAndTraitOfAV1MonsterReachesItsCreature) {
  int v1_entries = 0, missing = 0, merged = 0;
  for (const Entity* c : all(Kind::kCreature)) {
    const json* v1 = v1_record(*c);
    if (!v1) continue;
    ++merged;
    std::set<std::string> names;
    std::string texts;
    for (const char* group : {"traits", "actions", "bonus_actions", "reactions", "legendary_actions"}) {
      for (const auto& a : c->data.value(group, json::array())) {
        names.insert(text::fold(a.value("name", "")));
        texts += text::fold(a.value("desc", "")) + "\n";
      }
    }
    for (const char* group : {"special_abilities", "actions", "bonus_actions", "reactions", "legendary_actions"}) {
      if (!v1->contains(group) || !(*v1)[group].is_array()) continue;
      for (const auto& a : (*v1)[group]) {
        const std::string name = a.value("name", "");
        if (name.empty()) continue;
        ++v1_entries;
        const std::string base = v1_base_name(name);
        const bool by_name = names.count(base) || names.count(text::fold(name)) ||
                             std::any_of(names.begin(), names.end(),
                                         [&](const std::string& n) { return n.rfind(text::fold(name) + " ", 0) == 0; });
        const std::string desc = text::fold(a.value("desc", ""));
        if (!by_name && (desc.empty() || texts.find(desc) == std::string::npos)) {
          ++missing;
          ADD_FAILURE() << c->key << ": v1's " << group << " entry `" << name << "` is not in the answer";
        }
      }
    }
  }
  EXPECT_GT(merged, 3100);
  EXPECT_GT(v1_entries, 20000);
  EXPECT_EQ(missing, 0);

  auto akanka = call("get_entity", {{"key", "tob3_akanka"}});
  ASSERT_FALSE(akanka.is_error) << akanka.text;
  for (const char* action : {"***Multiattack.***", "***Bite.***", "***Mirrored Carapace.***"}) {
    EXPECT_NE(akanka.text.find(action), std::string::npos) << action << "\n" << akanka.text;
  }
  const json& bite = akanka.structured["result"]["actions"][1];
  ASSERT_EQ(bite.value("name", ""), "Bite");
  EXPECT_EQ(bite["attacks"][0].value("to_hit_mod", 0), 4);
  EXPECT_EQ(bite["attacks"][0].value("damage", ""), "1d6+2");
  EXPECT_EQ(bite["attacks"][0].value("damage_type", ""), "Piercing");
  // An action v2 keeps only as a legendary action: the Zmey's Bite attack.
  auto zmey = call("get_entity", {{"key", "tob_zmey"}});
  EXPECT_NE(zmey.text.find("***Bite.*** Melee Weapon Attack: +11 to hit"), std::string::npos) << zmey.text;
  // An action whose text v2 replaced with its legendary namesake's: the Aatxe's Gore attack.
  auto aatxe = call("get_entity", {{"key", "ccdx_aatxe"}});
  EXPECT_NE(aatxe.text.find("***Gore.*** Melee Weapon Attack"), std::string::npos) << aatxe.text;
  // Lore, lair actions and regional effects; sense qualifiers; Black Flag's keensense; a lycanthrope's form speeds;
  // a subtype.
  auto void_dragon = call("get_entity", {{"key", "tob_adult-void-dragon"}});
  EXPECT_NE(void_dragon.text.find("Lair Actions"), std::string::npos);
  EXPECT_NE(void_dragon.text.find("Regional Effects"), std::string::npos);
  EXPECT_NE(call("get_entity", {{"key", "srd_black-pudding"}}).text.find("(blind beyond this radius)"),
            std::string::npos);
  EXPECT_NE(call("get_entity", {{"key", "bfrd_animated-armor"}}).text.find("keensense 60 ft."), std::string::npos);
  EXPECT_NE(call("get_entity", {{"key", "srd_werebear"}}).text.find("climb 30 ft. in bear or hybrid form"),
            std::string::npos);
  EXPECT_NE(call("get_entity", {{"key", "srd_goblin"}}).text.find("*Small humanoid (goblinoid)"), std::string::npos);
  EXPECT_NE(
      call("get_entity", {{"key", "srd_acolyte"}, {"kind", "creature"}}).text.find("are junior members of a clergy"),
      std::string::npos);
}

// A limit of use v1 keeps in an action's name reaches the answer, whatever v2 says: a recharge, uses per day,
// a rest, a condition of use; a legendary action's cost. The legendary actions both API versions list again among
// the actions or bonus actions are listed once.
TEST_F(Fidelity, ALimitOfUseV1NamesIsNeverLost) {
  int limits = 0;
  for (const Entity* c : all(Kind::kCreature)) {
    const json* v1 = v1_record(*c);
    if (!v1) continue;
    std::map<std::string, std::string> shown;  // folded name -> every qualifier the answer shows for it
    for (const char* group : {"actions", "bonus_actions", "reactions", "legendary_actions"}) {
      for (const auto& a : c->data.value(group, json::array())) {
        std::string q = a.value("usage", "") + " " + a.value("limited_to", "") + " " + a.value("spell", "");
        if (a.contains("cost")) q += " costs " + text::format_number(a["cost"].get<double>()) + " actions";
        shown[text::fold(a.value("name", ""))] += " " + text::fold(q);
      }
    }
    for (const char* group : {"actions", "bonus_actions", "reactions", "legendary_actions"}) {
      if (!v1->contains(group) || !(*v1)[group].is_array()) continue;
      for (const auto& a : (*v1)[group]) {
        const std::string name = a.value("name", "");
        const auto open = name.find(" (");
        if (open == std::string::npos || name.find(')', open) == std::string::npos) continue;
        auto it = shown.find(v1_base_name(name));
        if (it == shown.end()) continue;  // a name v2 keeps whole ("Spellcasting (Psionics)")
        ++limits;
        // The number of a recharge or of uses per day, and the words of a condition of use.
        static const std::regex kNumber(R"((\d+)\s*[-/])");
        std::smatch m;
        const std::string q = name.substr(open + 2);
        if (std::regex_search(q, m, kNumber)) {
          EXPECT_NE(it->second.find(m[1].str()), std::string::npos)
              << c->key << ": `" << name << "` shows only `" << it->second << "`";
        }
        for (const char* word : {"bloodied", "form", "fewer"}) {
          if (text::fold(q).find(word) != std::string::npos) {
            EXPECT_NE(it->second.find(word), std::string::npos)
                << c->key << ": `" << name << "` shows only `" << it->second << "`";
          }
        }
      }
    }
  }
  EXPECT_GT(limits, 1500);
  auto ankheg = call("get_entity", {{"key", "srd_ankheg"}});
  EXPECT_NE(ankheg.text.find("***Acid Spray (Recharge 6).***"), std::string::npos) << ankheg.text;
  auto air = call("get_entity", {{"key", "srd_air-elemental"}});
  EXPECT_NE(air.text.find("***Whirlwind (Recharge 4-6).***"), std::string::npos) << air.text;
  auto knight = call("get_entity", {{"key", "srd_knight"}});
  EXPECT_NE(knight.text.find("***Leadership (Recharges after a Short or Long Rest)"), std::string::npos) << knight.text;
  auto aboleth = call("get_entity", {{"key", "a5e-mm_aboleth"}});
  EXPECT_NE(aboleth.text.find("***Slimy Cloud (1/Day) (While Bloodied).***"), std::string::npos) << aboleth.text;
  auto armor = call("get_entity", {{"key", "bfrd_animated-armor"}});
  EXPECT_NE(armor.text.find("***Helmet Bash (19 HP or Fewer).***"), std::string::npos) << armor.text;
  auto roc = call("get_entity", {{"key", "tob_hraesvelgr-the-corpse-swallower"}});
  EXPECT_NE(roc.text.find("***Swallow (Roc Form Only) (Costs 3 Actions).***"), std::string::npos) << roc.text;
  auto doppelrat = call("get_entity", {{"key", "tob_doppelrat"}});
  EXPECT_NE(doppelrat.text.find("(Recharges after 10 minutes)"), std::string::npos) << doppelrat.text;
  EXPECT_EQ(doppelrat.text.find("144/Day"), std::string::npos) << doppelrat.text;
  auto flame = call("get_entity", {{"key", "tob-2023_adult-flame-dragon"}});
  const json& result = flame.structured["result"];
  for (const auto& a : result.value("bonus_actions", json::array())) {
    EXPECT_NE(a.value("name", ""), "Wing Attack") << "a legendary action listed as a bonus action too";
  }
  int wing = 0;
  for (const auto& a : result.value("legendary_actions", json::array())) wing += a.value("name", "") == "Wing Attack";
  EXPECT_EQ(wing, 1);
}

// What a client computing damage reads in `attacks` agrees with the stat block's text: the damage type and dice of
// "Hit: 10 (2d6 + 3) slashing damage", and its riders ("plus 3 (1d6) acid damage").
TEST_F(Fidelity, StructuredAttacksAgreeWithTheirText) {
  static const std::regex kHit(
      R"(Hit:?_?\*?\s*\d+\s*\((\d+d\d+)\s*(?:([+-])\s*(\d+))?\)\s*(acid|bludgeoning|cold|fire|force|lightning|necrotic|piercing|poison|psychic|radiant|slashing|thunder) damage)",
      std::regex::icase);
  static const std::regex kPlus(
      R"(^\s*plus\s+\d+\s*\((\d+d\d+)\s*(?:([+-])\s*(\d+))?\)\s*(acid|bludgeoning|cold|fire|force|lightning|necrotic|piercing|poison|psychic|radiant|slashing|thunder) damage)",
      std::regex::icase);
  int checked = 0, riders = 0;
  for (const Entity* c : all(Kind::kCreature)) {
    for (const char* group : {"actions", "bonus_actions", "reactions", "legendary_actions"}) {
      for (const auto& a : c->data.value(group, json::array())) {
        const json& attacks = a.contains("attacks") ? a["attacks"] : json::array();
        if (attacks.size() != 1) continue;
        const std::string desc = a.value("desc", "");
        std::smatch m;
        if (!std::regex_search(desc, m, kHit)) continue;
        ++checked;
        const json& k = attacks[0];
        EXPECT_EQ(text::fold(k.value("damage_type", "")), text::fold(m[4].str()))
            << c->key << " " << a.value("name", "") << ": " << desc;
        std::string dice = text::lower(m[1].str());
        if (m[3].matched && m[3].str() != "0") dice += m[2].str() + m[3].str();
        EXPECT_EQ(k.value("damage", ""), dice) << c->key << " " << a.value("name", "") << ": " << desc;
        std::smatch p;
        const std::string rest = m.suffix().str();
        if (std::regex_search(rest, p, kPlus)) {
          ++riders;
          ASSERT_TRUE(k.contains("extra_damage")) << c->key << " " << a.value("name", "") << ": " << desc;
          std::string rider = text::lower(p[1].str());
          if (p[3].matched && p[3].str() != "0") rider += p[2].str() + p[3].str();
          EXPECT_EQ(k["extra_damage"][0].value("damage", ""), rider) << c->key;
          EXPECT_EQ(text::fold(k["extra_damage"][0].value("damage_type", "")), text::fold(p[4].str())) << c->key;
        }
      }
    }
  }
  EXPECT_GT(checked, 4000);
  EXPECT_GT(riders, 500);
  auto rend = call("get_entity", {{"key", "srd-2024_adult-red-dragon"}});
  const json& rend_attack = rend.structured["result"]["actions"][1]["attacks"][0];
  EXPECT_EQ(rend_attack.value("damage_type", ""), "Slashing") << rend_attack;
  EXPECT_EQ(rend_attack["extra_damage"][0].value("damage", ""), "2d4") << rend_attack;
  EXPECT_EQ(rend_attack["extra_damage"][0].value("damage_type", ""), "Fire") << rend_attack;
  auto acolyte = call("get_entity", {{"key", "srd_acolyte"}, {"kind", "creature"}});
  EXPECT_EQ(acolyte.structured["result"]["actions"][0]["attacks"][0].value("damage_type", ""), "Bludgeoning");
}

// A class's spell list is the class's own (SRD 5.1's lists, as v1's records give them without the subclasses'
// grants); a spell a subclass grants says so; third-party spells carry the classes v1 gives them.
TEST_F(Fidelity, ClassSpellListsAreTheClassesOwn) {
  auto count = [&](const std::string& cls, std::optional<int> level) {
    int n = 0;
    for (const Entity* sp : all(Kind::kSpell)) {
      if (sp->document.key != "srd-2014" || (level && sp->facets.level != level)) continue;
      for (const auto& c : sp->data.value("classes", json::array())) n += c == cls;
    }
    return n;
  };
  EXPECT_EQ(count("Druid", 2), 17);
  EXPECT_EQ(count("Cleric", std::nullopt), 104);
  EXPECT_EQ(count("Paladin", std::nullopt), 31);
  EXPECT_EQ(count("Wizard", std::nullopt), 204);
  EXPECT_EQ(one("srd_burning-hands", Kind::kSpell).data["classes"], json({"Sorcerer", "Wizard"}));
  EXPECT_EQ(one("srd_burning-hands", Kind::kSpell).data["subclass_grants"], json({"Cleric: Light", "Warlock: Fiend"}));
  auto r = call("search_spell", {{"class_key", "druid"}, {"level", 2}, {"documents", {"srd-2014"}}, {"limit", 50}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["result"].size(), 17u) << r.text;
  // Sleep is a wizard's, a sorcerer's and a bard's in both editions; the Archfey's grant is no edition change.
  auto sleep = call("compare_editions", {{"name", "Sleep"}, {"kind", "spell"}});
  EXPECT_NE(sleep.text.find("classes Bard, Sorcerer, Wizard"), std::string::npos) << sleep.text;
  for (const char* key : {"deepm_breathtaking-wind", "a5e-ag_accelerando", "toh_ambush-chute", "wz_abrupt-hug"}) {
    EXPECT_FALSE(one(key, Kind::kSpell).data.value("classes", json::array()).empty()) << key;
  }
  // Every class a /v1/spells/ record names for the spell (not through a subclass's grant) is on the v2 spell of the
  // same name in the matching document: 950 third-party spells had lost theirs.
  std::map<std::string, const Entity*> spells;  // open5e::v1_note_key(document, name) -> the spell
  for (const Entity* sp : all(Kind::kSpell)) spells[open5e::v1_note_key(sp->document.key, sp->name)] = sp;
  int named = 0;
  const std::vector<json> v1_spells = v1_list("v1/spells");
  EXPECT_FALSE(v1_spells.empty());
  for (const json& rec : v1_spells) {
    auto it = spells.find(
        open5e::v1_note_key(open5e::v2_document_of_v1(rec.value("document__slug", "")), rec.value("name", "")));
    ASSERT_NE(it, spells.end()) << rec.value("slug", "");
    std::set<std::string> granted;
    for (const auto& part : text::split_commas(rec.value("archetype", ""))) {
      if (part.find(':') != std::string::npos) granted.insert(text::fold(part.substr(0, part.find(':'))));
    }
    std::set<std::string> has;
    for (const auto& c : it->second->data.value("classes", json::array())) has.insert(text::fold(c.get<std::string>()));
    for (std::string c : text::split_commas(rec.value("dnd_class", ""))) {
      c = text::fold(c) == "sorceror" ? "sorcerer" : text::fold(c);
      if (c == "ritual caster" || granted.count(c)) continue;
      ++named;
      EXPECT_TRUE(has.count(c)) << it->second->key << " lacks " << c;
    }
    for (const auto& g : granted) {
      EXPECT_FALSE(has.count(g) && rec.value("dnd_class", "").find(":") == std::string::npos &&
                   it->second->document.key == "srd-2014")
          << it->second->key << ": " << g << " is a subclass's grant";
    }
  }
  EXPECT_GT(named, 3000);
}

// class_spells reads each class's table as the book prints it: every row of every SRD caster's slots agrees with
// the Multiclass Spellcaster table of its own edition's rules (a separate record: full casters at their level, half
// casters at half of it rounded up), and each listed spell is the class's own, of a level it can cast.
TEST_F(Fidelity, ClassSpellsAgreeWithTheMulticlassSpellcasterTable) {
  auto cleric = call("class_spells", {{"class", "cleric"}, {"level", 5}, {"game_system", "5e-2014"}});
  ASSERT_FALSE(cleric.is_error) << cleric.text;
  const json& r = cleric.structured["result"];
  EXPECT_EQ(r["slots"], json({{"1", 4}, {"2", 3}, {"3", 2}})) << cleric.text;
  EXPECT_EQ(r["spells"]["1"].size(), 15u) << cleric.text;
  EXPECT_EQ(r["max_spell_level"], 3);
  for (const char* edition : {"srd-2014", "srd-2024"}) {
    // The table: "| 5th | 4 | 3 | 2 | - |..." or "|5|4|3|2|—|...", one row per character level.
    std::map<int, std::vector<int>> table;
    const Entity& rule = one(
        std::string(edition) == "srd-2014" ? "srd_multiclassing_spellcasting" : "srd-2024_multiclassing_spellcasting",
        Kind::kRule);
    std::istringstream lines(rule.data.value("desc", ""));
    for (std::string line; std::getline(lines, line);) {
      std::vector<std::string> cells;
      std::stringstream cut(line);
      for (std::string c; std::getline(cut, c, '|');) cells.push_back(text::trim(c));
      if (cells.size() < 11 || cells[1].empty() || !std::isdigit(static_cast<unsigned char>(cells[1][0]))) continue;
      std::vector<int> slots;
      for (size_t i = 2; i < 11; ++i)
        slots.push_back(std::isdigit(static_cast<unsigned char>(cells[i][0])) ? std::stoi(cells[i]) : 0);
      table[std::stoi(cells[1])] = slots;
    }
    ASSERT_EQ(table.size(), 20u) << edition;
    struct Caster {
      const char* name;
      bool half;
    };
    for (const Caster& c :
         {Caster{"Bard", false}, Caster{"Cleric", false}, Caster{"Druid", false}, Caster{"Sorcerer", false},
          Caster{"Wizard", false}, Caster{"Paladin", true}, Caster{"Ranger", true}}) {
      for (int level = 1; level <= 20; ++level) {
        auto got = call("class_spells", {{"class", c.name}, {"level", level}, {"documents", {edition}}});
        ASSERT_FALSE(got.is_error) << got.text;
        const json& res = got.structured["result"];
        const int row = c.half ? (level + 1) / 2 : level;
        json want = json::object();
        // A 2014 half caster has no slots at level 1.
        if (!(c.half && level == 1 && std::string(edition) == "srd-2014")) {
          for (int l = 1; l <= 9; ++l) {
            if (table[row][static_cast<size_t>(l - 1)] > 0)
              want[std::to_string(l)] = table[row][static_cast<size_t>(l - 1)];
          }
        }
        EXPECT_EQ(res.value("slots", json::object()), want) << edition << " " << c.name << " " << level;
        const json spells = res.value("spells", json::object());
        for (const auto& [lvl, list] : spells.items()) {
          EXPECT_LE(std::stoi(lvl), res["max_spell_level"].get<int>());
          for (const auto& sp : list) {
            const Entity& spell = one(sp["key"], Kind::kSpell);
            EXPECT_EQ(spell.document.key, edition);
            EXPECT_EQ(spell.facets.level, std::stoi(lvl)) << spell.key;
            const json classes = spell.data.value("classes", json::array());
            EXPECT_NE(std::find(classes.begin(), classes.end(), c.name), classes.end()) << spell.key << " " << c.name;
          }
        }
      }
    }
  }
  // Pact Magic and Mystic Arcanum; a subclass's spells as its table grants them, found in its own document.
  auto warlock = call("class_spells", {{"class", "warlock"}, {"level", 13}, {"game_system", "5e-2014"}});
  ASSERT_FALSE(warlock.is_error) << warlock.text;
  EXPECT_EQ(warlock.structured["result"]["pact_magic"], json({{"slots", 3}, {"slot_level", 5}}));
  EXPECT_EQ(warlock.structured["result"]["mystic_arcanum"], json({6, 7}));
  EXPECT_FALSE(warlock.structured["result"]["spells"]["7"].empty()) << "an arcanum's level is listed";
  auto life =
      call("class_spells", {{"class", "cleric"}, {"level", 5}, {"game_system", "5e-2024"}, {"subclass", "life"}});
  ASSERT_FALSE(life.is_error) << life.text;
  EXPECT_EQ(life.structured["result"]["prepared"]["count"], 9);
  std::vector<std::string> granted;
  for (const auto& g : life.structured["result"]["subclass_spells"]) {
    for (const auto& sp : g["spells"]) granted.push_back(sp.value("key", "?"));
  }
  EXPECT_EQ(granted, (std::vector<std::string>{"srd-2024_aid", "srd-2024_bless", "srd-2024_cure-wounds",
                                               "srd-2024_lesser-restoration", "srd-2024_mass-healing-word",
                                               "srd-2024_revivify"}))
      << life.text;
  auto paladin =
      call("class_spells", {{"class", "paladin"}, {"level", 5}, {"game_system", "5e-2014"}, {"ability_modifier", 3}});
  EXPECT_EQ(paladin.structured["result"]["prepared"]["count"], 5) << paladin.text;
  EXPECT_NE(paladin.text.find("Charisma modifier + half"), std::string::npos) << paladin.text;
}

// attack_odds reads the stat blocks: the SRD 5.1 Ogre's Greatclub deals 8.25 a round against AC 15 (a natural 9-19
// for 13, a 20 for 22), the Adult Red Dragon's Multiattack is a bite and two claws, and every SRD creature of both
// editions is answered: each attack row's numbers are its record's, and a routine read names only its attacks.
TEST_F(Fidelity, AttackOddsReadEveryStatBlock) {
  auto ogre = call("attack_odds", {{"creature", "srd_ogre"}, {"target_ac", 15}});
  ASSERT_FALSE(ogre.is_error) << ogre.text;
  EXPECT_NEAR(ogre.structured["result"]["round"]["expected_damage"].get<double>(), 8.25, 1e-9) << ogre.text;
  auto dragon = call("attack_odds", {{"creature", "srd_adult-red-dragon"}, {"target_ac", 18}, {"save_bonus", 2}});
  ASSERT_FALSE(dragon.is_error) << dragon.text;
  EXPECT_EQ(dragon.structured["result"]["round"]["attacks"],
            json::parse(R"([{"action":"Bite","count":1},{"action":"Claw","count":2}])"));
  bool breath = false;
  for (const auto& s : dragon.structured["result"]["saves"]) {
    if (s["action"] == "Fire Breath") {
      breath = true;
      EXPECT_EQ(s["dc"], 21);
      EXPECT_EQ(s["damage"], json::parse(R"([{"damage":"18d6","damage_type":"fire"}])"));
      // Half of 18d6 rounded down averages (63 - P(odd)) / 2 = 31.25: a d6 is odd half the time, so is the sum.
      EXPECT_NEAR(s["expected_damage"].get<double>(), 0.9 * 63 + 0.1 * 31.25, 1e-9);
    }
  }
  EXPECT_TRUE(breath) << dragon.text;
  int creatures = 0, routines = 0;
  for (const Entity* c : all(Kind::kCreature)) {
    if (c->document.key != "srd-2014" && c->document.key != "srd-2024") continue;
    ++creatures;
    auto r = call("attack_odds", {{"creature", c->key}, {"target_ac", 15}});
    ASSERT_FALSE(r.is_error) << c->key << ": " << r.text;
    const json& res = r.structured["result"];
    std::map<std::string, int> bonus;  // the record's attacks by action name
    for (const auto& a : c->data.value("actions", json::array())) {
      for (const auto& at : a.value("attacks", json::array())) {
        if (at.contains("to_hit_mod")) bonus[a.value("name", "")] = at["to_hit_mod"].get<int>();
      }
    }
    for (const auto& row : res.value("attacks", json::array())) {
      const std::string action = row["action"];
      if (bonus.count(action)) {
        EXPECT_EQ(row["to_hit"], bonus[action]) << c->key << " " << action;
      }
    }
    if (res.contains("round") && res["round"]["from"].get<std::string>().rfind("multiattack", 0) == 0) {
      ++routines;
      for (const auto& part : res["round"]["attacks"]) {
        EXPECT_TRUE(bonus.count(part["action"].get<std::string>())) << c->key << " " << part.dump();
      }
    }
  }
  EXPECT_GT(creatures, 600);
  // A routine is read for most of them (the rest choose: "or", "in any combination", "only one of which"; or name
  // no action: "makes two melee attacks").
  EXPECT_GT(routines, creatures / 3) << routines << " of " << creatures;
  auto knight = call("attack_odds", {{"creature", "srd-2024_knight"}, {"target_ac", 18}});
  ASSERT_FALSE(knight.is_error) << knight.text;
  EXPECT_EQ(knight.structured["result"]["round_options"].size(), 2u) << knight.text;
}

// check_attunement reads every restriction the snapshot's items state: each "by" part is a class, any spellcaster,
// or a species the store holds (the one exception, declared here, is the Dwarven Thrower's Belt of Dwarvenkind);
// the Staff of Power is a wizard's and no fighter's, a paladin is a spellcaster from level 2, and the Talisman of
// Pure Good asks for an alignment.
TEST_F(Fidelity, CheckAttunementReadsEveryRestriction) {
  std::set<std::string> classes, species;
  for (const Entity* c : all(Kind::kClass)) classes.insert(text::fold(c->name));
  for (const Entity* sp : all(Kind::kSpecies)) species.insert(text::fold(sp->name));
  const std::set<std::string> declared = {"creature attuned to a belt of dwarvenkind"};
  int details = 0;
  for (const Entity* item : all(Kind::kMagicItem)) {
    const std::string detail = item->data.value("attunement_detail", "");
    if (detail.empty()) continue;
    ++details;
    const model::AttunementRestriction r = model::attunement_restriction(detail);
    EXPECT_TRUE(!r.by.empty() || !r.alignment.empty() || !r.condition.empty()) << item->key << ": " << detail;
    for (const auto& part : r.by) {
      const std::string f = text::fold(part);
      EXPECT_TRUE(f == "spellcaster" || classes.count(f) || species.count(f) || declared.count(part))
          << item->key << ": '" << part << "' of " << detail;
    }
  }
  EXPECT_GT(details, 40);
  auto fighter = call("check_attunement",
                      {{"items", {"Staff of Power", "Cloak of Protection", "Bag of Holding", "srd_wand-of-fireballs"}},
                       {"class", "fighter"}});
  ASSERT_FALSE(fighter.is_error) << fighter.text;
  const json& items = fighter.structured["result"]["items"];
  // A slot is taken by what the fighter may attune to, or may if a subclass casts; never by what it cannot.
  EXPECT_EQ(fighter.structured["result"]["attuned"], 2);
  EXPECT_EQ(items[0]["allowed"], false) << fighter.text;
  EXPECT_EQ(items[1]["allowed"], true);
  EXPECT_EQ(items[2]["requires_attunement"], false);
  EXPECT_FALSE(items[3].contains("allowed")) << "a fighter casts spells only through a subclass: " << fighter.text;
  // A subclass names its class; SRD 5.2's record that names no restriction defers to SRD 5.1's, which does.
  auto devotion = call("check_attunement", {{"items", {"srd_holy-avenger-longsword", "srd-2024_staff-of-withering"}},
                                            {"class", "srd_oath-of-devotion"}});
  ASSERT_FALSE(devotion.is_error) << devotion.text;
  EXPECT_EQ(devotion.structured["result"]["class"]["key"], "srd_paladin") << devotion.text;
  EXPECT_FALSE(devotion.structured["result"]["items"][1].contains("allowed")) << devotion.text;
  auto dwarf = call("check_attunement", {{"items", {"srd_dwarven-thrower"}}, {"species", "hill dwarf"}});
  EXPECT_EQ(dwarf.structured["result"]["items"][0]["allowed"], true) << dwarf.text;
  EXPECT_TRUE(call("check_attunement", {{"items", {"srd_talisman-of-pure-good"}}, {"alignment", "goodish"}}).is_error);
  auto paladin = call(
      "check_attunement",
      {{"items", {"srd_wand-of-fireballs", "srd_talisman-of-pure-good"}}, {"class", "paladin"}, {"alignment", "LG"}});
  EXPECT_EQ(paladin.structured["result"]["items"][0]["allowed"], true) << paladin.text;
  EXPECT_EQ(paladin.structured["result"]["items"][1]["allowed"], true) << paladin.text;
  auto unknown = call("check_attunement", {{"items", {"srd_talisman-of-pure-good", "Ring of Nothing At All"}}});
  ASSERT_FALSE(unknown.is_error) << unknown.text;
  EXPECT_FALSE(unknown.structured["result"]["items"][0].contains("allowed")) << "no alignment given";
  EXPECT_EQ(unknown.structured["result"]["items"][1]["found"], false);
}

// SRD 5.1's rules that only v1's rule chapters hold are rules of srd-2014: a 2014 question about death saves is
// answered from the 2014 rule.
TEST_F(Fidelity, Srd51RulesOnlyV1HoldsAreRules) {
  for (const char* key : {"srd_damage-and-healing_healing", "srd_damage-and-healing_dropping-to-0-hit-points",
                          "srd_damage-and-healing_death-saving-throws", "srd_damage-and-healing_stabilizing-a-creature",
                          "srd_damage-and-healing_instant-death", "srd_damage-and-healing_temporary-hit-points",
                          "srd_rest_short-rest", "srd_rest_long-rest"}) {
    ASSERT_TRUE(exists(key, Kind::kRule)) << key;
    EXPECT_EQ(one(key, Kind::kRule).document.key, "srd-2014") << key;
  }
  EXPECT_NE(one("srd_damage-and-healing_death-saving-throws", Kind::kRule).data.value("desc", "").find("Roll a d20."),
            std::string::npos);
  auto r = call("search_rule", {{"search", "death saving throws"}, {"game_system", "5e-2014"}});
  ASSERT_FALSE(r.is_error) << r.text;
  ASSERT_FALSE(r.structured["result"].empty()) << r.text;
  EXPECT_EQ(r.structured["result"][0]["key"], "srd_damage-and-healing_death-saving-throws") << r.text;
  // A rule v2 already has is not repeated.
  EXPECT_FALSE(exists("srd_attacking_opportunity-attacks-v1", Kind::kRule));
  int from_v1 = 0;
  for (const Entity* rule : all(Kind::kRule)) from_v1 += rule->source_api == "open5e_v1";
  EXPECT_EQ(from_v1, 16);  // docs/entity-model.md lists them
}

// Cross-entity facts that hold: a reaction that casts "Counterspell or Shield" casts both; a creature that charms
// through the spells it casts inflicts charmed; a creature that resists paralysis does not inflict it; a spell's
// casters are its own document's first.
TEST_F(Fidelity, CrossEntityFactsHold) {
  const auto keys = [&](const json& args) {
    std::set<std::string> out;
    auto r = call("search_creature", args);
    EXPECT_FALSE(r.is_error) << r.text;
    for (const auto& x : r.structured["result"]) out.insert(x.value("key", ""));
    return out;
  };
  const auto counter = keys({{"casts_spell", "counterspell"}, {"documents", {"srd-2024"}}, {"limit", 50}});
  for (const char* k : {"srd-2024_mage", "srd-2024_archmage", "srd-2024_lich"}) EXPECT_TRUE(counter.count(k)) << k;
  const auto charm = keys({{"inflicts_condition", "charmed"}, {"documents", {"srd-2014"}}, {"limit", 100}});
  for (const char* k : {"srd_lamia", "srd_oni", "srd_rakshasa", "srd_spirit-naga"}) EXPECT_TRUE(charm.count(k)) << k;
  // A spell's conditions are the caster's only when the spell calls for a save: Greater Restoration ends
  // petrification, Lesser Restoration blindness, Invisibility is given to an ally.
  const auto petrify = keys({{"inflicts_condition", "petrified"}, {"documents", {"srd-2024"}}, {"limit", 100}});
  EXPECT_FALSE(petrify.count("srd-2024_couatl"));
  EXPECT_TRUE(petrify.count("srd-2024_medusa"));
  const auto blind = keys({{"inflicts_condition", "blinded"}, {"documents", {"srd-2014"}}, {"limit", 100}});
  EXPECT_FALSE(blind.count("srd_priest"));
  const auto invisible = keys({{"inflicts_condition", "invisible"}, {"documents", {"srd-2014"}}, {"limit", 100}});
  EXPECT_FALSE(invisible.count("srd_mage"));
  const auto paralyze = keys({{"inflicts_condition", "paralyzed"}, {"documents", {"srd-2014"}}, {"limit", 100}});
  EXPECT_FALSE(paralyze.count("srd_duergar"));
  EXPECT_TRUE(paralyze.count("srd_ghoul"));
  auto shield = call("get_entity", {{"key", "srd-2024_shield"}, {"kind", "spell"}});
  ASSERT_FALSE(shield.is_error) << shield.text;
  const json& by = shield.structured["result"]["_related"]["cast_by"]["entries"];
  ASSERT_FALSE(by.empty()) << shield.text;
  EXPECT_EQ(by[0].value("key", "").rfind("srd-2024_", 0), 0u) << by.dump();
}

// Every part of an answer honours the call's documents: SRD 5.1's Paladin lists SRD 5.1's oath, and counts the
// others; without documents it lists every document's.
TEST_F(Fidelity, SubclassesHonourTheCallsDocuments) {
  auto held = call("search_character_option", {{"search", "Paladin"}, {"type", "class"}, {"documents", {"srd-2014"}}});
  ASSERT_FALSE(held.is_error) << held.text;
  const json& paladin = held.structured["result"][0];
  ASSERT_EQ(paladin.value("key", ""), "srd_paladin");
  ASSERT_TRUE(paladin.contains("subclasses")) << paladin.dump().substr(0, 300);
  for (const auto& c : paladin["subclasses"]) EXPECT_EQ(c.value("document", ""), "srd-2014") << c.dump();
  EXPECT_GT(paladin.value("subclasses_elsewhere", 0), 0);
  EXPECT_NE(held.text.find("more in documents the call left out"), std::string::npos);
  auto all = call("search_character_option", {{"search", "Paladin"}, {"type", "class"}});
  bool other = false;
  for (const auto& r : all.structured["result"]) {
    if (r.value("key", "") != "srd_paladin") continue;
    for (const auto& c : r.value("subclasses", json::array())) other |= c.value("document", "") != "srd-2014";
    EXPECT_FALSE(r.contains("subclasses_elsewhere"));
  }
  EXPECT_TRUE(other) << "without documents every document's oaths are listed";
}

// A record that lists every environment lives anywhere, not especially in a swamp: a swamp encounter draws on the
// creatures whose records name the swamp, and says how many were left out.
TEST_F(Fidelity, ASwampEncounterIsOfSwampCreatures) {
  std::set<std::string> met;
  std::string message;
  for (int seed = 1; seed <= 5; ++seed) {
    auto r = call("build_encounter",
                  {{"party_levels", {3, 3, 3, 3}}, {"environment", "swamp"}, {"alternatives", 6}, {"seed", seed}});
    ASSERT_FALSE(r.is_error) << r.text;
    message = r.structured.value("message", "");
    for (const auto& g : r.structured["result"]["groups"]) {
      for (const auto& c : g["creatures"]) met.insert(c.value("key", ""));
    }
  }
  EXPECT_FALSE(met.empty());
  for (const char* k : {"srd_quasit", "srd_firebird", "tob_firebird"}) EXPECT_FALSE(met.count(k)) << k;
  // A record that lists a dozen places besides the swamp (the Goblin lists 13) is no "anywhere" record: a swamp
  // fight of goblins alone has them.
  auto goblins = call("build_encounter", {{"party_levels", {1, 1, 1, 1}},
                                          {"environment", "swamp"},
                                          {"rules", "2014"},
                                          {"type", "humanoid"},
                                          {"cr_min", "1/4"},
                                          {"cr_max", "1/4"},
                                          {"documents", {"srd-2014"}},
                                          {"difficulty", "easy"},
                                          {"seed", 1}});
  EXPECT_NE(goblins.text.find("Goblin"), std::string::npos) << goblins.text;
  // When no group of the creatures that name the place fits the party (the astral plane's are all CR 2 or more),
  // those that live anywhere are drawn on, and the answer says so.
  auto astral = call("build_encounter", {{"party_levels", {1, 1, 1, 1}},
                                         {"environment", "astral"},
                                         {"rules", "2014"},
                                         {"difficulty", "easy"},
                                         {"seed", 1}});
  EXPECT_FALSE(astral.structured["result"]["groups"].empty()) << astral.text;
  EXPECT_NE(astral.text.find("were drawn on too"), std::string::npos) << astral.text;
  EXPECT_NE(message.find("that list (nearly) every environment"), std::string::npos) << message;
}

// search_creature's environment: the creatures whose records name the place first, then those whose records list
// (nearly) every environment, said in the answer; a place no record lists, and documents whose records list no
// environment, are said too.
TEST_F(Fidelity, SearchCreatureTakesAnEnvironment) {
  auto r = call("search_creature",
                {{"environment", "arctic"}, {"documents", {"srd-2014"}}, {"limit", 50}, {"detail", "summary"}});
  ASSERT_FALSE(r.is_error) << r.text;
  size_t there = 0, anywhere = 0;
  for (const auto& x : r.structured["result"]) {
    auto e = call("get_entity", {{"key", x.value("key", "")}, {"kind", "creature"}});
    ASSERT_FALSE(e.is_error) << e.text;
    const json& places = e.structured["result"]["environments"];
    ASSERT_TRUE(places.is_array()) << x.dump();
    if (places.size() >= model::kAnywhereFrom) {
      ++anywhere;
      continue;
    }
    EXPECT_EQ(anywhere, 0u) << x.value("name", "") << " names the place but follows a creature that lives anywhere";
    ++there;
    EXPECT_NE(places.dump().find("Arctic"), std::string::npos) << x.value("name", "") << places.dump();
  }
  EXPECT_GT(there, 10u);
  EXPECT_GT(anywhere, 0u);
  EXPECT_NE(r.structured.value("message", "").find("list (nearly) every environment"), std::string::npos) << r.text;
  // The first of two blocks shown, each by name: the header says so.
  auto first = call("search_creature", {{"environment", "arctic"}, {"documents", {"srd-2014"}}, {"limit", there + 1}});
  EXPECT_NE(first.text.find("those whose records name the place, then those that live anywhere, each by name"),
            std::string::npos)
      << first.text.substr(0, 300);
  // A name asked that only a creature living anywhere has leads the answer, which says so; a name is the answer
  // whichever kind of record has it, as without the filter.
  auto quasit = call("search_creature", {{"environment", "marsh"}, {"search", "Quasit"}});
  ASSERT_FALSE(quasit.structured["result"].empty()) << quasit.text;
  EXPECT_EQ(quasit.structured["result"][0].value("key", ""), "srd_quasit") << quasit.text;
  EXPECT_EQ(quasit.text.find("filters exclude"), std::string::npos) << quasit.text;
  EXPECT_NE(quasit.text.find("they live anywhere"), std::string::npos) << quasit.text;
  auto wolf = call("search_creature", {{"environment", "forest"}, {"search", "wolf"}});
  ASSERT_EQ(wolf.structured["result"].size(), 1u) << wolf.text;
  EXPECT_EQ(wolf.structured["result"][0].value("key", ""), "srd_wolf") << wolf.text;
  // Every record that lists the place is found, those that list every place too (the Material Plane is named only
  // by them), and the counts of other answers agree with the search's.
  auto material = call("search_creature", {{"environment", "material plane"}, {"detail", "summary"}});
  EXPECT_EQ(material.structured.value("total", 0), 140) << material.text;
  auto swamp = call("search_creature", {{"environment", "swamp"}, {"detail", "summary"}});
  auto counted_swamp =
      call("count_entities", {{"kind", "creature"}, {"by", {"document"}}, {"filters", {{"environment", "swamp"}}}});
  int in_documents = 0;
  for (const auto& d : counted_swamp.structured["result"]["by"]["document"]) in_documents += d.value("count", 0);
  EXPECT_EQ(in_documents, swamp.structured.value("total", -1)) << counted_swamp.text;
  EXPECT_GT(in_documents, 200) << counted_swamp.text;
  for (const char* nothing : {"or", "-", "the"}) {
    auto refused = call("search_creature", {{"environment", nothing}});
    EXPECT_TRUE(refused.is_error) << nothing << ": " << refused.text;
  }
  auto nowhere = call("search_creature", {{"environment", "spaceship"}});
  EXPECT_TRUE(nowhere.structured["result"].empty()) << nowhere.text;
  EXPECT_NE(nowhere.text.find("lists the environment 'spaceship'; they list: arctic or tundra"), std::string::npos)
      << nowhere.text;
  auto rules = call("search_creature", {{"environment", "swamp"}, {"game_system", "5e-2024"}});
  EXPECT_TRUE(rules.structured["result"].empty()) << rules.text;
  EXPECT_NE(rules.text.find("No creature record of the documents and rules searched lists environments"),
            std::string::npos)
      << rules.text;
  EXPECT_NE(rules.text.find("srd-2014"), std::string::npos) << rules.text;
  auto counted = call("count_entities", {{"kind", "creature"}, {"by", {"environment"}}});
  ASSERT_FALSE(counted.is_error) << counted.text;
  EXPECT_NE(counted.structured["result"]["by"]["environment"].dump().find("swamp or marsh"), std::string::npos)
      << counted.text;
}

// What the data lacks is said where an answer touches it: SRD 5.2's rules glossary (asked under the 2024 rules, with
// where the 2014 rule is), and what SRD 5.1 holds of a kind when a name asked is not there. Questions that touch no
// gap say nothing of it.
TEST_F(Fidelity, AnAnswerThatTouchesAGapSaysSo) {
  ASSERT_TRUE(model::coverage_errors().empty()) << model::coverage_errors().front();
  for (const auto& statement : model::coverage()) {
    EXPECT_TRUE(model::parse_kind(statement.kind)) << statement.kind;
    const auto kind = model::parse_kind(statement.kind);
    EXPECT_TRUE(kind &&
                std::any_of(entities_->begin(), entities_->end(),
                            [&](const Entity& e) { return e.document.key == statement.document && e.kind == *kind; }))
        << "no " << statement.kind << " of " << statement.document;
  }
  auto grapple = call("search_rule", {{"search", "grapple"}, {"game_system", "5e-2024"}});
  ASSERT_FALSE(grapple.is_error) << grapple.text;
  const std::string message = grapple.structured.value("message", "");
  EXPECT_EQ(message.rfind("Not in this data: Grapple as srd-2024 defines it. SRD 5.2's Rules Glossary", 0), 0u)
      << message;
  EXPECT_NE(message.find("System Reference Document 5.1 has it under the 5e-2014 rules: search with game_system "
                         "\"5e-2014\"."),
            std::string::npos)
      << message;
  EXPECT_NE(grapple.text.find(message), std::string::npos);
  // Under no edition the 2014 rule is among the results, and said to be the 2014 rules.
  auto both = call("search_rule", {{"search", "how do I shove someone"}});
  EXPECT_NE(both.text.find("Not in this data: Shove as srd-2024 defines it."), std::string::npos) << both.text;
  EXPECT_NE(both.text.find("Results from System Reference Document 5.1 are the 5e-2014 rules"), std::string::npos)
      << both.text;
  // Under the 2014 rules the 2024 glossary is no gap.
  auto old = call("search_rule", {{"search", "grapple"}, {"game_system", "5e-2014"}});
  EXPECT_EQ(old.text.find("Not in this data"), std::string::npos) << old.text;
  auto soldier =
      call("search_character_option", {{"search", "Soldier"}, {"type", "background"}, {"game_system", "5e-2014"}});
  EXPECT_NE(soldier.text.find("SRD 5.1 holds one background, the Acolyte"), std::string::npos) << soldier.text;
  // The name alone asks for a topic; the pointer names only a document that has the topic, and widens the call's
  // own documents when it chose some.
  auto help = call("search_rule", {{"search", "Help"}, {"game_system", "5e-2024"}});
  EXPECT_NE(help.text.find("Not in this data: Help as srd-2024 defines it."), std::string::npos) << help.text;
  auto influence = call("search_rule", {{"search", "influence action"}, {"game_system", "5e-2024"}});
  EXPECT_NE(influence.text.find("Not in this data: Influence"), std::string::npos) << influence.text;
  EXPECT_EQ(influence.text.find("5.1 has it"), std::string::npos) << "SRD 5.1 has no Influence action";
  auto chosen = call("search_rule", {{"search", "grapple"}, {"documents", {"srd-2024"}}});
  EXPECT_NE(chosen.text.find("System Reference Document 5.1 has it under the 5e-2014 rules: add \"srd-2014\" to "
                             "documents."),
            std::string::npos)
      << chosen.text;
  // A name an entry has is what was asked for, whatever its words (the spell Jump, the rule Falling Unconscious).
  EXPECT_EQ(call("search_all", {{"query", "Jump"}}).text.find("Not in this data"), std::string::npos);
  EXPECT_EQ(call("search_rule", {{"search", "Falling Unconscious"}}).text.find("Not in this data"), std::string::npos);
  // What a document holds of a kind is said only of that kind, asked under documents or a game system.
  EXPECT_EQ(call("search_all", {{"query", "Mind Flayer"}}).text.find("holds"), std::string::npos);
  EXPECT_EQ(call("search_character_option", {{"search", "Human Fighter"}}).text.find("holds one"), std::string::npos);
  auto found = call("search_character_option", {{"search", "Soldier"}, {"type", "background"}});
  EXPECT_EQ(found.text.find("holds one background"), std::string::npos) << found.text;
  auto fireball = call("search_spell", {{"search", "Fireball"}});
  EXPECT_EQ(fireball.text.find("Not in this data"), std::string::npos);
  auto all = call("search_all", {{"query", "unarmed strike"}, {"game_system", "5e-2024"}});
  EXPECT_NE(all.text.find("Not in this data: Unarmed Strike as srd-2024 defines it."), std::string::npos) << all.text;
}

// A name no entry has is never answered as if found: the answer says so first, and why for a name the open
// licences leave out; near matches follow as near matches. A name an entry has is answered as before.
TEST_F(Fidelity, ANameNoEntryHasIsSaidToBeMissing) {
  auto flayer = call("search_creature", {{"search", "Mind Flayer"}});
  ASSERT_FALSE(flayer.is_error) << flayer.text;
  EXPECT_EQ(flayer.text.rfind("No creature is named \"Mind Flayer\" in any document.", 0), 0u) << flayer.text;
  EXPECT_NE(flayer.text.find("product identity"), std::string::npos) << flayer.text;
  EXPECT_NE(flayer.text.find("Near matches"), std::string::npos) << flayer.text;
  auto beholder = call("search_creature", {{"search", "Beholder"}, {"documents", {"srd-2014"}}});
  EXPECT_NE(beholder.text.find("No creature is named \"Beholder\" in these documents."), std::string::npos)
      << beholder.text;
  EXPECT_NE(beholder.text.find("product identity"), std::string::npos) << beholder.text;
  // A capitalised name no entry has, outside the list: said missing, without the licence's reason.
  auto kraken = call("search_creature", {{"search", "Frost Kraken Tyrant"}});
  if (!kraken.structured["result"].empty()) {
    EXPECT_EQ(kraken.text.rfind("No creature is named \"Frost Kraken Tyrant\"", 0), 0u) << kraken.text;
  }
  EXPECT_EQ(kraken.text.find("product identity"), std::string::npos) << kraken.text;
  // Names entries have, and descriptions, keep their answers.
  auto goblin = call("search_creature", {{"search", "Goblin"}});
  EXPECT_EQ(goblin.text.rfind("Found", 0), 0u) << goblin.text.substr(0, 200);
  EXPECT_EQ(goblin.text.find("is named \"Goblin\" in"), std::string::npos);
  auto described = call("search_creature", {{"search", "a tiny dragon that steals shiny coins"}});
  EXPECT_EQ(described.text.find("No creature is named"), std::string::npos) << described.text.substr(0, 200);
  // search_all says it too, and a product identity name is never taken for a misspelling of a look-alike
  // ("Beholder" is within two edits of the spell Bewilder).
  auto all = call("search_all", {{"query", "Beholder"}});
  EXPECT_EQ(all.text.rfind("No entry is named \"Beholder\" in any document.", 0), 0u) << all.text.substr(0, 300);
  EXPECT_NE(all.text.find("Near matches, not it"), std::string::npos) << all.text.substr(0, 300);
  auto fireball = call("search_all", {{"query", "Fireball"}});
  EXPECT_EQ(fireball.text.rfind("Found", 0), 0u) << fireball.text.substr(0, 200);
  auto misspelt = call("search_creature", {{"search", "Gobiln"}});
  EXPECT_EQ(misspelt.text.find("No creature is named"), std::string::npos) << misspelt.text.substr(0, 200);
}

// Questions across entities on the whole bundled snapshot (issue scenarios): what casts a spell, what petrifies, what
// a condition is inflicted by.
TEST_F(Fidelity, CrossEntityQuestionsOnTheWholeSnapshot) {
  auto names = [](const tools::ToolResult& r) {
    std::set<std::string> out;
    for (const auto& x : r.structured["result"]) out.insert(x["name"].get<std::string>());
    return out;
  };
  auto r = call("search_creature", {{"casts_spell", "fireball"}, {"documents", {"srd-2014"}}, {"limit", 50}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_TRUE(names(r).count("Mage")) << r.text;
  EXPECT_TRUE(names(r).count("Lich")) << r.text;
  r = call("search_creature", {{"inflicts_condition", "petrified"}, {"limit", 50}});
  for (const char* petrifier : {"Basilisk", "Medusa", "Cockatrice"}) {
    EXPECT_TRUE(names(r).count(petrifier)) << petrifier << "\n" << r.text;
  }
  r = call("get_entity", {{"key", "srd_petrified"}, {"kind", "condition"}});
  ASSERT_FALSE(r.is_error) << r.text;
  std::set<std::string> inflicting;
  for (const auto& x : r.structured["result"]["_related"]["inflicted_by"]["creatures"]["entries"]) {
    inflicting.insert(x["key"].get<std::string>());
  }
  EXPECT_TRUE(inflicting.count("srd_basilisk")) << r.text;                          // its own document first
  EXPECT_NE(r.text.find("**Inflicted by spells:**"), std::string::npos) << r.text;  // Flesh to Stone
  // An empty answer to an exact CR counts what is one step either side.
  r = call("search_creature", {{"type", "fiend"}, {"cr", 7}, {"documents", {"srd-2014"}}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_TRUE(r.structured["result"].empty()) << r.text;
  EXPECT_NE(r.text.find("At CR 6-8: CR 6 (1), CR 8 (1)"), std::string::npos) << r.text;
  r = call("search_creature", {{"type", "fiend"}, {"cr", "1/8"}, {"documents", {"srd-2014"}}});
  EXPECT_NE(r.text.find("At CR 0-1/4: CR 0 (1), CR 1/4 (1)"), std::string::npos) << r.text;
  r = call("get_entity", {{"key", "srd_fireball"}});
  std::set<std::string> casters;
  for (const auto& x : r.structured["result"]["_related"]["cast_by"]["entries"]) casters.insert(x["key"]);
  EXPECT_TRUE(casters.count("srd_mage") && casters.count("srd_lich")) << r.text;
}

TEST_F(Fidelity, SavingThrowsAreInAbilityOrder) {
  auto dragon = call("get_entity", {{"key", "srd_adult-red-dragon"}});
  ASSERT_FALSE(dragon.is_error) << dragon.text;
  EXPECT_NE(dragon.text.find("**Saving Throws:** Dex +6, Con +13, Wis +7, Cha +11"), std::string::npos) << dragon.text;
}

TEST_F(Fidelity, EachEditionsConditionIsItsOwnEntityInItsOwnDocument) {
  // One entity per description the API gives (the mirror's README: 50 condition descriptions), each holding only
  // its own document's text.
  std::map<std::string, int> per_document;
  for (const Entity* c : all(Kind::kCondition)) {
    ++per_document[c->document.key];
    EXPECT_NE(c->document.key, "core") << c->key;
    int matching = 0;
    for (const auto& d : c->raw["descriptions"]) {
      if (d.value("document", "") != c->document.key) continue;
      ++matching;
      EXPECT_EQ(c->data.value("desc", ""), open5e::clean_markup(d.value("desc", ""))) << c->key;
    }
    EXPECT_EQ(matching, 1) << c->key;
  }
  EXPECT_EQ(all(Kind::kCondition).size(), 50u);
  EXPECT_EQ(per_document["srd-2014"], 15);
  EXPECT_EQ(per_document["srd-2024"], 15);
  for (Kind k : {Kind::kDamageType, Kind::kSkill, Kind::kAbilityScore, Kind::kAlignment, Kind::kCreatureType}) {
    for (const Entity* e : all(k)) EXPECT_NE(e->document.key, "core") << e->key;
  }
  auto r = call("search_rule", {{"rule_type", "condition"}, {"search", "grappled"}, {"documents", {"srd-2024"}}});
  ASSERT_EQ(r.structured["result"].size(), 1u) << r.text;
  EXPECT_EQ(r.structured["result"][0]["key"], "srd-2024_grappled");
  auto old = call("search_rule", {{"rule_type", "condition"}, {"search", "stunned"}, {"game_system", "5e-2014"}});
  ASSERT_EQ(old.structured["result"].size(), 1u) << old.text;
  EXPECT_EQ(old.text.find("5e-2024"), std::string::npos) << old.text;
}

TEST_F(Fidelity, SpellsAndFeatsReadAsPeopleWriteThem) {
  // Casting times as a stat block prints them, for every spell.
  for (const Entity* sp : all(Kind::kSpell)) {
    const std::string ct = sp->data.value("casting_time", "");
    EXPECT_TRUE(ct.empty() || std::isdigit(static_cast<unsigned char>(ct[0]))) << sp->key << ": " << ct;
    EXPECT_EQ(ct.find('-'), std::string::npos) << sp->key << ": " << ct;
  }
  auto shield = call("get_entity", {{"key", "srd_shield"}, {"kind", "spell"}});
  EXPECT_NE(shield.text.find("**Casting Time:** 1 reaction, which you take when you are hit by an attack"),
            std::string::npos)
      << shield.text;
  auto counter = call("get_entity", {{"key", "srd_counterspell"}});
  EXPECT_NE(counter.text.find("1 reaction, which you take when you see a creature"), std::string::npos);
  // A roll is labelled for what it is: healing, damage, or neither.
  auto cure = call("get_entity", {{"key", "srd-2024_cure-wounds"}});
  EXPECT_NE(cure.text.find("**Healing:** 2d8"), std::string::npos) << cure.text;
  EXPECT_EQ(cure.text.find("**Damage:**"), std::string::npos) << cure.text;
  auto bless = call("get_entity", {{"key", "srd-2024_bless"}});
  EXPECT_EQ(bless.text.find("**Damage:**"), std::string::npos) << bless.text;
  auto fireball = call("get_entity", {{"key", "srd_fireball"}});
  EXPECT_NE(fireball.text.find("**Damage:** 8d6"), std::string::npos) << fireball.text;
  // Feats: their type, and unnamed benefits as plain bullets.
  auto alert = call("get_entity", {{"key", "srd-2024_alert"}});
  EXPECT_NE(alert.text.find("**Feat Type:** Origin"), std::string::npos) << alert.text;
  EXPECT_EQ(alert.text.find("***.***"), std::string::npos) << alert.text;
  for (const Entity* f : all(Kind::kFeat)) {
    const std::string type = f->data.value("type", "");
    EXPECT_TRUE(type.empty() || type != "GENERAL") << f->key;
  }
  // Plurals and a species' parent by name.
  auto classes = call("search_character_option", {{"type", "class"}, {"search", "Wizard"}});
  EXPECT_EQ(classes.text.find("classs"), std::string::npos) << classes.text;
  auto species = call("search_character_option", {{"type", "race"}, {"search", "Elf"}});
  EXPECT_EQ(species.text.find("speciess"), std::string::npos) << species.text;
  auto high_elf = call("get_entity", {{"key", "srd_high-elf"}});
  EXPECT_NE(high_elf.text.find("**Subspecies of:** Elf"), std::string::npos) << high_elf.text;
}

TEST_F(Fidelity, ClassesKeepTheirTableByLevel) {
  auto cell = [](const json& table, int level, const std::string& column) -> std::string {
    const json& header = table["header"];
    for (size_t i = 0; i < header.size(); ++i) {
      if (header[i] == column) return table["rows"][level - 1][i].get<std::string>();
    }
    ADD_FAILURE() << "no column " << column << " in " << header.dump();
    return "";
  };
  const json& wizard = one("srd_wizard", Kind::kClass).data["class_table"];
  ASSERT_TRUE(wizard.is_object());
  EXPECT_EQ(wizard["rows"].size(), 20u);
  EXPECT_EQ(cell(wizard, 7, "3rd"), "3");  // "how many 3rd-level slots does a 7th-level wizard have?"
  EXPECT_EQ(cell(wizard, 7, "4th"), "1");
  EXPECT_EQ(cell(wizard, 1, "Cantrips Known"), "3");
  EXPECT_EQ(cell(wizard, 13, "Proficiency Bonus"), "+5");
  EXPECT_NE(cell(wizard, 18, "Features").find("Spell Mastery"), std::string::npos);
  EXPECT_EQ(cell(one("srd-2024_barbarian", Kind::kClass).data["class_table"], 3, "Rages"), "3");
  EXPECT_EQ(cell(one("srd-2024_rogue", Kind::kClass).data["class_table"], 5, "Sneak Attack"), "3d6");
  // SRD 5.1 records some columns as class features ("Sneak Attack", "Rages" with the text "[Column data]"): they
  // are columns all the same, and no "[Column data]" is a feature.
  EXPECT_EQ(cell(one("srd_rogue", Kind::kClass).data["class_table"], 11, "Sneak Attack"), "6d6");
  EXPECT_EQ(cell(one("srd_barbarian", Kind::kClass).data["class_table"], 1, "Rages"), "2");
  EXPECT_EQ(cell(one("srd_barbarian", Kind::kClass).data["class_table"], 9, "Rage Damage"), "+3");
  EXPECT_EQ(cell(one("srd_monk", Kind::kClass).data["class_table"], 5, "Martial Arts"), "1d6");
  EXPECT_EQ(cell(one("srd_warlock", Kind::kClass).data["class_table"], 5, "Slot Level"), "3rd");
  for (const Entity* c : all(Kind::kClass)) {
    for (const auto& f : c->data.value("features", json::array())) {
      EXPECT_NE(f.value("desc", ""), "[Column data]") << c->key << ": " << f.value("name", "");
    }
  }
  // The SRD 5.1 full casters' 2nd-level slots, which the records give twice for level 4 ("2", "3") and not for 3.
  for (const char* caster : {"srd_bard", "srd_cleric", "srd_druid", "srd_sorcerer", "srd_wizard"}) {
    const json& table = one(caster, Kind::kClass).data["class_table"];
    EXPECT_EQ(cell(table, 2, "2nd"), "—") << caster;
    EXPECT_EQ(cell(table, 3, "2nd"), "2") << caster;
    EXPECT_EQ(cell(table, 4, "2nd"), "3") << caster;
  }
  EXPECT_EQ(cell(one("srd-2024_fighter", Kind::kClass).data["class_table"], 1, "Weapon Mastery"), "3");  // "3", "3"
  // Every column value the records give is in some class's table (a value given twice for one level, once).
  int recorded = 0, kept = 0;
  for (const Entity* c : all(Kind::kClass)) {
    for (const auto& ft : v2_record(*c)["features"]) {
      std::set<std::pair<int, std::string>> values;
      for (const auto& v : ft.value("data_for_class_table", json::array())) {
        values.insert({v.value("level", 0), v.value("column_value", "")});
      }
      recorded += static_cast<int>(values.size());
    }
    if (!c->data.contains("class_table")) continue;
    for (const auto& row : c->data["class_table"]["rows"]) {
      for (size_t i = 1; i < row.size(); ++i) {
        if (c->data["class_table"]["header"][i] == "Features") continue;
        const std::string v = row[i];
        if (v != "—") kept += 1 + static_cast<int>(std::count(v.begin(), v.end(), '/'));
      }
    }
  }
  EXPECT_GT(recorded, 1000);
  EXPECT_EQ(kept, recorded);
  // Subclasses from other books than their class's say so.
  auto r = call("get_entity", {{"key", "srd_wizard"}});
  EXPECT_NE(r.text.find("School of Evocation,"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("(Tome of Heroes)"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("| 7 | +3 |"), std::string::npos) << r.text;
}

TEST_F(Fidelity, ClassSavingThrowsAreTheCoreTraitsTables) {
  // SRD 5.2's records give the Fighter and the Monk other saves than their Core Traits tables (and the book).
  auto saves = [](const std::string& key) { return one(key, Kind::kClass).data.value("saving_throws", json()); };
  EXPECT_EQ(saves("srd-2024_fighter"), json({"Strength", "Constitution"}));
  EXPECT_EQ(saves("srd-2024_monk"), json({"Strength", "Dexterity"}));
  EXPECT_EQ(saves("srd-2024_wizard"), json({"Intelligence", "Wisdom"}));
  EXPECT_EQ(saves("srd_fighter"), json({"Strength", "Constitution"}));  // no table: the record's, in ability order
  auto r = call("compare_editions", {{"name", "Fighter"}, {"kind", "class"}, {"documents", {"srd-2014", "srd-2024"}}});
  ASSERT_FALSE(r.is_error) << r.text;
  for (const auto& d : r.structured["result"]["differences"]) {
    EXPECT_NE(d.value("field", ""), "saving_throws") << d.dump();
  }
}

// Markdown goldens: how representative entries of every kind and edition read (tests/fixtures/markdown/, one
// file per key). LOREKEEPER_UPDATE_GOLDENS=1 rewrites them; read every changed file before committing it.
TEST_F(Fidelity, RepresentativeEntriesReadAsTheirGoldens) {
  const std::vector<std::pair<std::string, std::string>> entries = {
      {"srd_fireball", "spell"},
      {"srd-2024_cure-wounds", "spell"},
      {"srd_shield", "spell"},
      {"a5e-ag_fireball", "spell"},
      {"deepm_acid-rain", "spell"},
      {"srd_goblin", "creature"},
      {"srd-2024_medusa", "creature"},
      {"srd-2024_werewolf", "creature"},
      {"bfrd_owlbear", "creature"},
      {"tob_aboleth-nihilith", "creature"},
      {"srd_wizard", "class"},
      {"srd-2024_rogue", "class"},
      {"srd_high-elf", "species"},
      {"srd-2024_acolyte", "background"},
      {"srd-2024_alert", "feat"},
      {"srd_dagger", "weapon"},
      {"srd-2024_longbow", "weapon"},
      {"chain-hook", "weapon"},
      {"srd_shield", "armor"},
      {"srd_plate", "armor"},
      {"silk-backed-coin-mail", "armor"},
      {"srd_staff", "item"},
      {"srd_vorpal-sword-longsword", "magic-item"},
      {"srd-2024_adamantine-armor-breastplate", "magic-item"},
      {"srd_grappled", "condition"},
      {"srd-2024_grappled", "condition"},
      {"srd_radiant", "damage-type"},
      {"srd-2024_d20-tests_ability-checks", "rule"},
  };
  const std::string dir = std::string(LOREKEEPER_FIXTURES) + "/markdown";
  const bool update = std::getenv("LOREKEEPER_UPDATE_GOLDENS") != nullptr;
  for (const auto& [key, kind] : entries) {
    auto r = call("get_entity", {{"key", key}, {"kind", kind}});
    ASSERT_FALSE(r.is_error) << key << ": " << r.text;
    const std::string path = dir + "/" + kind + "_" + key + ".md";
    if (update) {
      testing::write_file(path, r.text);
      continue;
    }
    EXPECT_EQ(r.text, testing::read_file(path)) << path << " differs (LOREKEEPER_UPDATE_GOLDENS=1 rewrites it)";
  }
}

TEST_F(Fidelity, CompareEditionsOfFireballShowsWhatChangedAndWhatDidNot) {
  auto r = call("compare_editions", {{"name", "Fireball"}, {"documents", {"srd-2014", "srd-2024"}}});
  ASSERT_FALSE(r.is_error) << r.text;
  const json& result = r.structured["result"];
  ASSERT_EQ(result["versions"].size(), 2u) << r.text;
  EXPECT_EQ(result["versions"][0]["key"], "srd_fireball");
  EXPECT_EQ(result["versions"][1]["key"], "srd-2024_fireball");
  std::set<std::string> differing;
  for (const auto& d : result["differences"]) differing.insert(d["field"].get<std::string>());
  EXPECT_TRUE(differing.count("material")) << r.text;
  EXPECT_TRUE(differing.count("higher_level")) << r.text;
  EXPECT_FALSE(differing.count("damage_roll")) << r.text;
  EXPECT_EQ(result["same"]["damage_roll"], "8d6") << r.text;
  EXPECT_EQ(result["same"]["level"], "3") << r.text;
  ASSERT_FALSE(result["text_changes"].empty()) << r.text;
  EXPECT_EQ(result["text_changes"][0]["field"], "desc");
  EXPECT_LT(result["text_changes"][0]["similarity"].get<double>(), 1.0);
  EXPECT_NE(r.text.find("**material**"), std::string::npos) << r.text;
  // Every edition when no document is named: Level Up's Fireball deals 6d6.
  auto all = call("compare_editions", {{"name", "Fireball"}});
  ASSERT_FALSE(all.is_error) << all.text;
  EXPECT_EQ(all.structured["result"]["versions"].size(), 3u) << all.text;
  EXPECT_NE(all.text.find("6d6 (a5e-ag)"), std::string::npos) << all.text;
}

// What changed is said in sentences: Counterspell's 2024 text keeps the slot ("the slot isn't expended") and a
// condition whose fields are all alike compares its texts, not "0 fields: none".
TEST_F(Fidelity, CompareEditionsSaysWhatChangedInSentences) {
  auto r = call("compare_editions", {{"name", "Counterspell"}, {"documents", {"srd-2014", "srd-2024"}}});
  ASSERT_FALSE(r.is_error) << r.text;
  bool slot = false;
  for (const auto& t : r.structured["result"]["text_changes"]) {
    for (const auto& c : t["sentences"]) slot |= c.value("after", "").find("slot isn't expended") != std::string::npos;
  }
  EXPECT_TRUE(slot) << r.text;
  EXPECT_NE(r.text.find("the slot isn't expended.”"), std::string::npos) << r.text;
  auto exhaustion = call("compare_editions", {{"name", "Exhaustion"}, {"kind", "condition"}});
  ASSERT_FALSE(exhaustion.is_error) << exhaustion.text;
  EXPECT_EQ(exhaustion.text.find("(0 fields)"), std::string::npos) << exhaustion.text;
  EXPECT_NE(exhaustion.text.find("**Fields:** none differs."), std::string::npos) << exhaustion.text;
  EXPECT_NE(exhaustion.text.find("“"), std::string::npos) << "whole sentences, quoted";
}

TEST_F(Fidelity, CompareEditionsCountsNoFormattingOrUnproficientSavesAsDifferences) {
  auto r = call("compare_editions", {{"name", "Zombie"}, {"kind", "creature"}});
  ASSERT_FALSE(r.is_error) << r.text;
  const json& result = r.structured["result"];
  std::map<std::string, json> differing;
  for (const auto& d : result["differences"]) differing[d["field"].get<std::string>()] = d;
  // "2d8 + 6" (SRD 5.2) and "2d8+6" (Level Up) are one value; "3d8+9" (SRD 5.1) another.
  EXPECT_NE(r.text.find("**hit_dice**: 3d8+9 (srd-2014) · — (bfrd) · 2d8 + 6 (srd-2024, a5e-mm)"), std::string::npos)
      << r.text;
  // SRD 5.2 and Black Flag list every ability's save; only the Wisdom save (+0 on Wisdom 6) is a proficiency, of
  // the SRD Zombies alone. The others equal their ability modifiers and are not differences.
  for (const char* ability : {"strength", "dexterity", "constitution", "intelligence", "charisma"}) {
    EXPECT_FALSE(differing.count(std::string("saving_throws.") + ability)) << ability << "\n" << r.text;
  }
  ASSERT_TRUE(differing.count("saving_throws.wisdom")) << r.text;
  const json& wisdom = differing["saving_throws.wisdom"]["values"];
  EXPECT_EQ(wisdom["srd_zombie"], "0") << wisdom.dump();
  EXPECT_EQ(wisdom["srd-2024_zombie"], "0") << wisdom.dump();
  EXPECT_TRUE(wisdom["bfrd_zombie"].is_null()) << wisdom.dump();  // Wisdom 10, save +0
}

TEST_F(Fidelity, EverySizeTheDataHasIsAFilterValue) {
  // count_entities by size names every size the creatures have; search_creature filters by each of them.
  auto counted = call("count_entities", {{"kind", "creature"}, {"by", {"size"}}});
  ASSERT_FALSE(counted.is_error) << counted.text;
  const json& groups = counted.structured["result"]["by"]["size"];
  ASSERT_TRUE(groups.is_array()) << counted.structured.dump();
  std::map<std::string, long long> sizes;
  for (const auto& g : groups) sizes[g.value("value", "")] = g.value("count", 0LL);
  EXPECT_TRUE(sizes.count("titanic")) << counted.text;  // Level Up's size above Gargantuan
  for (const auto& [size, count] : sizes) {
    auto r = call("search_creature", {{"size", size}, {"limit", 1}});
    ASSERT_FALSE(r.is_error) << size << ": " << r.text;
    EXPECT_EQ(r.structured.value("total", 0LL), count) << size;
  }
}

TEST_F(Fidelity, CompareEditionsFindsRenamedEntriesInBothDirections) {
  auto counterpart = [](const tools::ToolResult& r, const std::string& document) {
    for (const auto& v : r.structured["result"]["versions"]) {
      if (v["document"] == document) return v["name"].get<std::string>() + "|" + v["match"].get<std::string>();
    }
    return std::string("(none)");
  };
  struct Case {
    const char* name;
    const char* kind;
    const char* document;
    const char* expected;
  };
  for (const Case& c : {Case{"Feeblemind", "spell", "srd-2024", "Befuddlement|renamed"},
                        Case{"Befuddlement", "spell", "srd-2014", "Feeblemind|renamed"},
                        Case{"Androsphinx", "creature", "srd-2024", "Sphinx of Valor|renamed"},
                        Case{"Sphinx of Valor", "creature", "srd-2014", "Androsphinx|renamed"},
                        Case{"Half-Orc", "species", "srd-2024", "Orc|renamed"},
                        Case{"Goblin", "creature", "srd-2024", "Goblin Warrior|renamed"},
                        Case{"Wraith", "creature", "srd-2024", "Wraith|same name"}}) {
    auto r = call("compare_editions", {{"name", c.name}, {"kind", c.kind}});
    ASSERT_FALSE(r.is_error) << c.name << ": " << r.text;
    EXPECT_EQ(counterpart(r, c.document), c.expected) << c.name << "\n" << r.text;
  }
  // The Level Up Feeblemind is listed under its own name beside the 2024 Befuddlement.
  auto r = call("compare_editions", {{"name", "Befuddlement"}});
  EXPECT_EQ(counterpart(r, "a5e-ag"), "Feeblemind|renamed") << r.text;
  // A name nothing has: an error with the closest names.
  auto missing = call("compare_editions", {{"name", "Firebal"}});
  EXPECT_TRUE(missing.is_error);
  EXPECT_NE(missing.text.find("Fireball"), std::string::npos) << missing.text;
}

// Every 2014 SRD entry without a same-named 2024 entry, labelled by hand with what it became
// (tests/eval/editions/srd-renames.tsv): the renamed matching finds most and claims nothing false.
TEST_F(Fidelity, RenamedMatchingOnTheLabelledSrdEntries) {
  std::istringstream in(testing::read_file(std::string(LOREKEEPER_EVAL) + "/editions/srd-renames.tsv"));
  std::string line;
  int positives = 0, found = 0, wrong = 0, rows = 0;
  std::string report;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto tab1 = line.find('\t'), tab2 = line.find('\t', tab1 + 1);
    const std::string kind = line.substr(0, tab1), from = line.substr(tab1 + 1, tab2 - tab1 - 1),
                      expected = line.substr(tab2 + 1);
    ++rows;
    auto r = call("compare_editions", {{"name", from}, {"kind", kind}, {"documents", {"srd-2014", "srd-2024"}}});
    ASSERT_FALSE(r.is_error) << from << ": " << r.text;
    std::string got = "-";
    for (const auto& v : r.structured["result"]["versions"]) {
      if (v["document"] == "srd-2024") got = v["name"].get<std::string>();
    }
    if (expected != "-") ++positives;
    if (got == expected && expected != "-") ++found;
    if (got != "-" && got != expected) {
      ++wrong;
      report += "  wrong: " + from + " -> " + got + " (labelled " + expected + ")\n";
    } else if (got == "-" && expected != "-") {
      report += "  missed: " + from + " -> " + expected + "\n";
    }
  }
  const double recall = static_cast<double>(found) / positives;
  std::printf("renamed matching on %d labelled srd-2014 entries: %d of %d renames found (recall %.3f), %d wrong\n%s",
              rows, found, positives, recall, wrong, report.c_str());
  EXPECT_GE(rows, 58);
  EXPECT_GE(recall, 0.9) << report;
  EXPECT_EQ(wrong, 0) << report;
}

// A one-object tool given a document no store holds beside a known one answers from the known one and says which it
// did not know, ahead of its text and in its message, as the search tools do.
TEST_F(Fidelity, EveryOneObjectToolSaysWhichDocumentsItDoesNotKnow) {
  const json documents = {"srd-2014", "srd-2041"};
  const std::vector<std::pair<std::string, json>> calls = {
      {"compare_editions", {{"name", "Fireball"}, {"kind", "spell"}}},
      {"class_spells", {{"class", "wizard"}, {"level", 5}}},
      {"check_attunement", {{"items", {"srd_cloak-of-protection"}}}},
      {"attack_odds", {{"creature", "srd_ogre"}, {"target_ac", 15}}},
  };
  for (auto [tool, args] : calls) {
    args["documents"] = documents;
    auto r = call(tool, args);
    ASSERT_FALSE(r.is_error) << tool << ": " << r.text;
    EXPECT_EQ(r.text.rfind("Unknown document(s): srd-2041", 0), 0u) << tool << ": " << r.text.substr(0, 300);
    EXPECT_EQ(r.structured.value("message", "").rfind("Unknown document(s): srd-2041", 0), 0u)
        << tool << ": " << r.structured.dump().substr(0, 300);
    EXPECT_FALSE(r.structured["result"].empty()) << tool;
  }
}

// Every tag a store holds is what the store's own re-derivation writes (it runs when the rules change, on open):
// each path by which sync makes an entity derives its facets, and nothing changes an entity's data after.
TEST_F(Fidelity, SyncWritesTheTagsARederivationWrites) {
  const auto tags = [](const std::string& path) {
    std::set<std::string> out;
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db,
                                 "SELECT e.kind || ' ' || e.key || ': ' || t.tag || ' = ' || t.value FROM entity_tags t"
                                 " JOIN entities e ON e.id = t.entity_id",
                                 -1, &st, nullptr),
              SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) out.insert(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
  };
  const auto exec = [](const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
    sqlite3_free(error);
    sqlite3_close(db);
  };
  const std::string copy = testing::temp_dir() + "/rederived.db";
  std::remove(copy.c_str());
  exec(*path_, "VACUUM INTO '" + copy + "'");
  exec(copy, "UPDATE meta SET value = 'stale' WHERE key = 'derived_facets'");
  ASSERT_TRUE(store::Store::open(copy, store::Store::Mode::kExistingOnly).is_ok());
  const std::set<std::string> synced = tags(*path_), rederived = tags(copy);
  ASSERT_GT(synced.size(), 20000u);
  std::string missing, extra;
  size_t n_missing = 0, n_extra = 0;
  for (const auto& t : rederived) {
    if (!synced.count(t) && ++n_missing <= 20) missing += "\n  " + t;
  }
  for (const auto& t : synced) {
    if (!rederived.count(t) && ++n_extra <= 20) extra += "\n  " + t;
  }
  EXPECT_EQ(n_missing, 0u) << "tags a re-derivation writes that sync did not:" << missing;
  EXPECT_EQ(n_extra, 0u) << "tags sync wrote that a re-derivation does not:" << extra;
}

// The vectors shipped in the binary are the bundled snapshot's, passage for passage: a store built from it needs
// no embedding. Fails when what is embedded changed (passages, hints, the mapping) and data/open5e-vectors.bin was
// not made again (scripts/make-vectors.sh).
TEST_F(Fidelity, TheBundledVectorsCoverEveryBundledEntity) {
  const auto& bundled = search::PrecomputedVectors::bundled();
  EXPECT_EQ(bundled.model_sha256(), cli::kModelSha256) << "made with another model than the one setup.sh installs";
  auto st = store::Store::open(*path_, store::Store::Mode::kExistingOnly);
  ASSERT_TRUE(st.is_ok());
  auto seeded = search::seed_vectors(**st, 1);
  ASSERT_TRUE(seeded.is_ok()) << seeded.status().to_string();
  auto coverage = search::vector_coverage(**st, 1);
  ASSERT_TRUE(coverage.is_ok());
  EXPECT_EQ(coverage->embedded, coverage->entities)
      << coverage->entities - coverage->embedded
      << " bundled entities have no precomputed vector for their passage: run scripts/make-vectors.sh";
  EXPECT_EQ(*seeded, coverage->embedded);
  EXPECT_LE(bundled.size(), coverage->entities) << "vectors of passages the snapshot no longer has";
  auto again = search::seed_vectors(**st, 1);
  ASSERT_TRUE(again.is_ok());
  EXPECT_EQ(*again, 0u);
}

}  // namespace
}  // namespace lorekeeper
