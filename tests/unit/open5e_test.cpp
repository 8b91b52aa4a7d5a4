#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <optional>

#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/http/client.hpp"
#include "lorekeeper/model/derived.hpp"
#include "lorekeeper/open5e/mapper.hpp"
#include "lorekeeper/open5e/page_source.hpp"
#include "lorekeeper/open5e/sync.hpp"
#include "lorekeeper/tools/render.hpp"
#include "test_support.hpp"

namespace lorekeeper::open5e {
namespace {

namespace fs = std::filesystem;

// The recorded record with `key` from the fixture mirror's `endpoint` pages.
json record(const std::string& endpoint, const std::string& key) {
  for (const auto& entry : fs::directory_iterator(testing::fixture_mirror() + "/v2/" + endpoint)) {
    std::string err;
    auto page = json_util::parse(testing::read_file(entry.path().string()), &err);
    if (!page) continue;
    for (const auto& r : (*page)["results"]) {
      if (r.value("key", "") == key) return r;
    }
  }
  ADD_FAILURE() << "no fixture record " << endpoint << "/" << key;
  return json::object();
}

const Endpoint& endpoint(const std::string& path) {
  for (const auto& e : v2_endpoints()) {
    if (e.path == path) return e;
  }
  throw std::runtime_error("no endpoint " + path);
}

MappingContext context() {
  MappingContext ctx;
  std::string err;
  auto page = json_util::parse(testing::read_file(testing::fixture_mirror() + "/v2/documents/limit=100.json"), &err);
  for (const auto& d : (*page)["results"]) {
    auto doc = map_v2_document(d);
    if (doc) ctx.documents[doc->key] = *doc;
  }
  return ctx;
}

TEST(RecordedName, SortsAndDecodesTheQuery) {
  EXPECT_EQ(recorded_name("https://api.open5e.com/v2/spells/?limit=100&page=3"), "v2/spells/limit=100&page=3.json");
  EXPECT_EQ(recorded_name("v2/spells/?page=3&limit=100"), "v2/spells/limit=100&page=3.json");
  EXPECT_EQ(recorded_name("https://api.open5e.com/v2/spells/"), "v2/spells/_.json");
  EXPECT_EQ(recorded_name("/v2/spells/?document__key__in=srd-2014%2Csrd-2024"),
            "v2/spells/document__key__in=srd-2014,srd-2024.json");
  EXPECT_EQ(recorded_name("v1/magicitems?limit=100"), "v1/magicitems/limit=100.json");
}

TEST(Mapper, SpellKeepsEveryFieldUsersAskAbout) {
  const json rec = record("spells", "srd_fireball");
  auto e = map_v2_record(endpoint("spells"), rec, context());
  ASSERT_TRUE(e.is_ok()) << e.status().to_string();
  EXPECT_EQ(e->kind, model::Kind::kSpell);
  EXPECT_EQ(e->key, "srd_fireball");
  EXPECT_EQ(e->name, "Fireball");
  EXPECT_EQ(e->url, "https://api.open5e.com/v2/spells/srd_fireball/");
  EXPECT_EQ(e->document.key, "srd-2014");
  EXPECT_EQ(e->document.name, "System Reference Document 5.1");
  EXPECT_EQ(e->document.game_system, "5e-2014");
  EXPECT_EQ(e->facets.level, rec["level"].get<int>());
  EXPECT_EQ(e->facets.school, "evocation");
  EXPECT_EQ(e->facets.casting_time, "action");
  EXPECT_EQ(e->data["components"], "V, S, M");
  EXPECT_EQ(e->data["material"], rec["material_specified"]);
  EXPECT_EQ(e->data["range"], rec["range_text"]);
  EXPECT_EQ(e->data["higher_level"], rec["higher_level"]);
  EXPECT_EQ(e->data["damage_roll"], "8d6");
  EXPECT_EQ(e->data["classes"], json::array({"Sorcerer", "Wizard"}));
  EXPECT_NE(std::find(e->facets.classes.begin(), e->facets.classes.end(), "wizard"), e->facets.classes.end());
  EXPECT_NE(std::find(e->facets.classes.begin(), e->facets.classes.end(), "srd_wizard"), e->facets.classes.end());
  // Higher-level damage from the casting options.
  ASSERT_TRUE(e->data["casting_options"].is_array());
  EXPECT_EQ(e->data["casting_options"][0]["damage_roll"], "9d6");
  EXPECT_EQ(e->raw, rec);
}

// The facets of the recorded `endpoint` record `key` as the mapper gives them, derived ones included.
model::Facets mapped_facets(const std::string& endpoint_path, const std::string& key) {
  auto e = map_v2_record(endpoint(endpoint_path), record(endpoint_path, key), context());
  EXPECT_TRUE(e.is_ok()) << key;
  return e.is_ok() ? e->facets : model::Facets{};
}

// The derived facets (model/derived.hpp) of recorded stat blocks, checked against what their text says.
TEST(Derived, CreaturesFromRecordedStatBlocks) {
  using V = std::vector<std::string>;
  auto mapped = [](const std::string& key) { return mapped_facets("creatures", key); };
  // SRD 5.1 Lich: a spell list by slot level, Paralyzing Touch, Frightening Gaze, legendary actions.
  const model::Facets lich = mapped("srd_lich");
  for (const char* spell : {"mage hand", "fireball", "power word kill", "globe of invulnerability", "acid arrow"}) {
    EXPECT_NE(std::find(lich.casts.begin(), lich.casts.end(), spell), lich.casts.end()) << spell;
  }
  EXPECT_EQ(lich.casts.size(), 26u);
  EXPECT_EQ(lich.conditions, (V{"frightened", "paralyzed"}));
  EXPECT_EQ(lich.save_abilities, (V{"constitution", "wisdom"}));
  EXPECT_EQ(lich.traits, (V{"legendary", "spellcaster"}));
  // SRD 5.1 Adult Red Dragon: Frightful Presence, Wing Attack (prone), a 15-foot tail, fire breath.
  const model::Facets dragon = mapped("srd_adult-red-dragon");
  EXPECT_EQ(dragon.conditions, (V{"frightened", "prone"}));
  EXPECT_EQ(dragon.damage_types, (V{"bludgeoning", "fire", "piercing", "slashing"}));
  EXPECT_EQ(dragon.save_abilities, (V{"dexterity", "wisdom"}));
  EXPECT_EQ(dragon.attack_ranges, (V{"melee", "reach"}));
  EXPECT_EQ(dragon.traits, (V{"legendary"}));
  EXPECT_TRUE(dragon.casts.empty());
  // SRD 5.2 writes its spells as "At Will: ..., 1/Day Each: ..." in title case.
  const model::Facets dragon24 = mapped("srd-2024_adult-red-dragon");
  EXPECT_EQ(dragon24.casts, (V{"command", "detect magic", "scorching ray", "fireball"}));
  EXPECT_EQ(dragon24.traits, (V{"legendary", "spellcaster"}));
  // The vampire charms; the acid and radiant damage in its weaknesses are damage it takes.
  const model::Facets vampire = mapped("srd_vampire");
  EXPECT_NE(std::find(vampire.conditions.begin(), vampire.conditions.end(), "charmed"), vampire.conditions.end());
  EXPECT_EQ(std::count(vampire.damage_types.begin(), vampire.damage_types.end(), "radiant"), 0);
  EXPECT_EQ(std::count(vampire.damage_types.begin(), vampire.damage_types.end(), "acid"), 0);
  // A goblin: scimitar and shortbow, nothing else.
  const model::Facets goblin = mapped("srd_goblin");
  EXPECT_EQ(goblin.attack_ranges, (V{"melee", "ranged"}));
  EXPECT_EQ(goblin.damage_types, (V{"piercing", "slashing"}));
  EXPECT_TRUE(goblin.conditions.empty());
  EXPECT_TRUE(goblin.traits.empty());
  EXPECT_TRUE(goblin.casts.empty());
}

TEST(Derived, SpellsFromRecordedText) {
  using V = std::vector<std::string>;
  auto mapped = [](const std::string& key) { return mapped_facets("spells", key); };
  const model::Facets hold = mapped("srd_hold-person");
  EXPECT_EQ(hold.conditions, (V{"paralyzed"}));
  EXPECT_EQ(hold.save_abilities, (V{"wisdom"}));
  EXPECT_TRUE(hold.traits.empty());
  const model::Facets fireball = mapped("srd_fireball");
  EXPECT_EQ(fireball.damage_types, (V{"fire"}));
  EXPECT_EQ(fireball.save_abilities, (V{"dexterity"}));
  EXPECT_TRUE(fireball.conditions.empty());
  EXPECT_EQ(mapped("srd_cure-wounds").traits, (V{"heals"}));
  EXPECT_EQ(mapped("srd-2024_cure-wounds").traits, (V{"heals"}));
  const model::Facets missile = mapped("srd_magic-missile");
  EXPECT_EQ(missile.damage_types, (V{"force"}));
  EXPECT_TRUE(missile.save_abilities.empty());
  EXPECT_TRUE(mapped("srd_shield").traits.empty());
}

// Weapons' attack ranges come from their data (a thrown weapon's attack is also a ranged attack); creatures' movement
// and skills from their speeds and skill bonuses.
TEST(Derived, WeaponRangesAndCreatureMovement) {
  using V = std::vector<std::string>;
  EXPECT_EQ(mapped_facets("weapons", "srd_longbow").attack_ranges, (V{"ranged"}));
  EXPECT_EQ(mapped_facets("weapons", "srd_dagger").attack_ranges, (V{"melee", "ranged"}));
  EXPECT_EQ(mapped_facets("weapons", "srd_longsword").attack_ranges, (V{"melee"}));
  model::Entity glaive;
  glaive.kind = model::Kind::kWeapon;
  glaive.data = {{"is_melee", true}, {"properties", json::array({{{"name", "Heavy"}}, {{"name", "Reach"}}})}};
  model::derive_facets(glaive);
  EXPECT_EQ(glaive.facets.attack_ranges, (V{"melee", "reach"}));
  glaive.data.erase("is_melee");  // a record that does not say: nothing is guessed
  model::derive_facets(glaive);
  EXPECT_TRUE(glaive.facets.attack_ranges.empty());
  EXPECT_EQ(mapped_facets("creatures", "srd_adult-red-dragon").movement, (V{"climb", "fly"}));
  EXPECT_EQ(mapped_facets("creatures", "srd_wraith").movement, (V{"fly"}));
  const model::Facets lich = mapped_facets("creatures", "srd_lich");
  EXPECT_TRUE(lich.movement.empty());
  EXPECT_EQ(lich.skills, (V{"arcana", "history", "insight", "perception"}));
}

// Clauses as stat blocks write them: a conditional clause ends where its main clause's subject begins (with or
// without the comma some records lost), a clause without a subject in a list goes on from the one before, "until
// the end of" is a duration; terse damage ("17 (4d6+3) lightning.") and attack records count; a compound name's last
// part is the creature itself.
TEST(Derived, ClausesAsStatBlocksWriteThem) {
  using V = std::vector<std::string>;
  auto facets = [](const std::string& name, const std::string& text, json attacks = json()) {
    model::Entity e;
    e.kind = model::Kind::kCreature;
    e.name = name;
    json action = {{"name", "Act"}, {"desc", text}};
    if (!attacks.is_null()) action["attacks"] = attacks;
    e.data["actions"] = json::array({action});
    model::derive_facets(e);
    return e.facets;
  };
  EXPECT_EQ(facets("Leviathan", "If target is Huge or smaller it is grappled (escape DC 19).").conditions,
            (V{"grappled"}));
  EXPECT_EQ(
      facets("Glabrezu", "If the target is a Medium or smaller creature  it is grappled (escape DC 17).").conditions,
      (V{"grappled"}));
  EXPECT_TRUE(facets("Imp", "If it is grappled, it takes 5 (1d10) acid damage.").conditions.empty());
  EXPECT_TRUE(facets("Pit Fiend",
                     "The fire lasts 1 minute or until the pit fiend dismisses it  becomes incapacitated  or leaves "
                     "its area.")
                  .conditions.empty());
  EXPECT_TRUE(facets("Waverider",
                     "When the waverider is reduced to 0 hit points, falls unconscious, or dies in this form, it "
                     "reverts to its humanoid form.")
                  .conditions.empty());
  const model::Facets cube =
      facets("Cube", "The engulfed creature can't breathe, is restrained, and takes 21 (6d6) acid damage.");
  EXPECT_EQ(cube.conditions, (V{"restrained"}));
  EXPECT_EQ(cube.damage_types, (V{"acid"}));
  EXPECT_EQ(facets("Kobold",
                   "Any breathing creature that's in the affected area when the cloud is created or that starts its "
                   "turn in the cloud is poisoned.")
                .conditions,
            (V{"poisoned"}));
  EXPECT_EQ(facets("Hydra",
                   "Each creature within 5 feet must succeed on a DC 16 CON save or be incapacitated until the end of "
                   "its next turn and poisoned for 1 minute.")
                .conditions,
            (V{"incapacitated", "poisoned"}));
  EXPECT_EQ(facets("Knight", "The knight impales the target, grappling the target if it is Medium (escape DC 17).")
                .conditions,
            (V{"grappled"}));
  EXPECT_EQ(
      facets("Leviathan", "Ranged Spell Attack: +8 to hit 150/600' one target 17 (4d6+3) lightning.").damage_types,
      (V{"lightning"}));
  EXPECT_EQ(facets("Fiend", "The target takes 21 (6d6) ongoing poison damage at the start of each of its turns.")
                .damage_types,
            (V{"poison"}));
  EXPECT_TRUE(facets("Specter", "Takes 5 (1d10) force if it ends turn in object.").damage_types.empty());
  // An attack record's damage type counts where the text rolls its dice; a web's (no damage) and a legendary action
  // that only names the attack do not.
  EXPECT_EQ(facets("Kite", "Melee Weapon Attack: +7 to hit, one target, 11 (2d6+4) slashing and 7 (2d6) poison.",
                   json::array({{{"damage", "2d6+4"},
                                 {"damage_type", "Slashing"},
                                 {"extra_damage", json::array({{{"damage", "2d6"}, {"damage_type", "Poison"}},
                                                               {{"damage", "2d6"}, {"damage_type", "Ink"}}})}}}))
                .damage_types,
            (V{"poison", "slashing"}));
  EXPECT_EQ(facets("Tarry", "Melee Weapon Attack: +5 to hit, one target, 6 (1d6+3) + 5 (2d4).",
                   json::array({{{"damage", "1d6+3"},
                                 {"damage_type", "Bludgeoning"},
                                 {"extra_damage", json::array({{{"damage", "2d4"}, {"damage_type", "Radiant"}}})}}}))
                .damage_types,
            (V{"bludgeoning", "radiant"}));
  EXPECT_TRUE(facets("Spider", "Ranged Weapon Attack: +5 to hit, range 30/60 ft. The target is restrained by webbing.",
                     json::array({{{"damage_type", "Psychic"}, {"range", 30}}}))
                  .damage_types.empty());
  EXPECT_TRUE(facets("Queen", "The hive queen makes one Stinger attack.",
                     json::array({{{"damage", "6d4+7"}, {"damage_type", "Poison"}, {"reach", 5}}}))
                  .damage_types.empty());
  // A list of three types keeps all three beside the terse form.
  EXPECT_EQ(facets("Ghost", "Hit: 17 (6d4+2) bludgeoning, piercing, or slashing damage.").damage_types,
            (V{"bludgeoning", "piercing", "slashing"}));
  // A terse main clause without a subject after an "if" clause, or after a colon, is imposed; a condition inside the
  // "if" clause is not, even when a new subject follows within it.
  EXPECT_EQ(facets("Grabber", "If the target is Medium or smaller, is grappled (escape DC 13).").conditions,
            (V{"grappled"}));
  EXPECT_EQ(facets("Sleeper", "Sleep Solution. Failed save: falls unconscious 1 min.").conditions, (V{"unconscious"}));
  EXPECT_TRUE(facets("Hitter", "If the attack hits and the target is prone, the target takes an extra 7 (2d6) damage.")
                  .conditions.empty());
  // A name's tail stands for the creature only when it is a clear compound ("worm" of "iceworm"), not "other" of
  // "mother".
  EXPECT_EQ(
      facets("Mother Hag", "Other creatures within 10 feet of the mother must succeed on a DC 13 Wisdom saving throw.")
          .save_abilities,
      (V{"wisdom"}));
  EXPECT_TRUE(facets("Iceworm",
                     "Each hour it spends in the heat, worm must make DC 15 Con save or suffer one level of "
                     "exhaustion.")
                  .conditions.empty());
}

// A creature's environments are its record's, folded; a record that lists (nearly) every one lives anywhere. An
// environment asked matches a listed name whole or by one of its words.
TEST(Derived, CreatureEnvironments) {
  using V = std::vector<std::string>;
  model::Entity e;
  e.kind = model::Kind::kCreature;
  e.name = "Bog Thing";
  e.data = {{"environments", {"Swamp or Marsh", "Forest or Jungle", "The Abyss", 7, ""}}};
  model::derive_facets(e);
  EXPECT_EQ(e.facets.environments, (V{"forest or jungle", "swamp or marsh", "the abyss"}));
  // Twenty different places (a name given twice counts once) make a record of one that lives anywhere; it keeps the
  // names.
  json every = json::array({"Place 0"});
  for (size_t i = 0; i + 1 < model::kAnywhereFrom; ++i) every.push_back("Place " + std::to_string(i));
  e.data["environments"] = every;
  e.facets.environments.clear();
  model::derive_facets(e);
  EXPECT_EQ(e.facets.environments.size(), model::kAnywhereFrom - 1);
  every.push_back("Place 19");
  e.data["environments"] = every;
  e.facets.environments.clear();
  model::derive_facets(e);
  EXPECT_EQ(e.facets.environments.size(), model::kAnywhereFrom + 1);
  EXPECT_NE(std::find(e.facets.environments.begin(), e.facets.environments.end(), "place 19"),
            e.facets.environments.end());
  EXPECT_NE(std::find(e.facets.environments.begin(), e.facets.environments.end(), model::kAnywhere),
            e.facets.environments.end());
  EXPECT_EQ(model::environment_asked("  Swámp "), std::optional<std::string>("swamp"));
  for (const char* nothing : {"", " ", "-", "'", "or", "The", "of"})
    EXPECT_FALSE(model::environment_asked(nothing)) << nothing;
  EXPECT_TRUE(model::environment_matches("swamp or marsh", "marsh"));
  EXPECT_TRUE(model::environment_matches("swamp or marsh", "swamp or marsh"));
  EXPECT_TRUE(model::environment_matches("the abyss", "abyss"));
  EXPECT_FALSE(model::environment_matches("swamp or marsh", "swam"));
  EXPECT_FALSE(model::environment_matches("swamp or marsh", ""));
  EXPECT_FALSE(model::environment_matches("hills", "hill"));
}

// Homebrew text of any size and shape: derivation stays linear (RE2) and its lists stay bounded by the vocabulary.
TEST(Derived, HostileTextOfAnySize) {
  model::Entity e;
  e.kind = model::Kind::kCreature;
  e.name = "Hostile";
  std::string huge;
  while (huge.size() < (10u << 20)) huge += "or be paralyzed, at will: fireball, (((( ";
  huge += std::string(100000, '(');
  e.data["traits"] = json::array({{{"name", "Spellcasting"}, {"desc", huge}}});
  e.data["actions"] = json::array({{{"name", 7}, {"desc", nullptr}}, 42, {{"attacks", "not a list"}}});
  model::derive_facets(e);
  EXPECT_EQ(e.facets.conditions, (std::vector<std::string>{"paralyzed"}));
  EXPECT_EQ(e.facets.casts, (std::vector<std::string>{"fireball"}));
  EXPECT_EQ(e.facets.traits, (std::vector<std::string>{"spellcaster"}));
  // A list naming 200,000 different spells: each kept once, in the order written, in linear time.
  model::Entity lister;
  lister.kind = model::Kind::kCreature;
  std::string list = "at will: ";
  for (int i = 0; i < 200000; ++i) {
    std::string word = "spell ";
    for (int n = i, d = 0; d < 4; ++d, n /= 26) word.push_back(static_cast<char>('a' + n % 26));
    list += word + ", ";
  }
  lister.data["traits"] = json::array({{{"name", "Spellcasting"}, {"desc", list}}});
  model::derive_facets(lister);
  ASSERT_EQ(lister.facets.casts.size(), 200000u);
  EXPECT_EQ(lister.facets.casts.front(), "spell aaaa");
  EXPECT_EQ(lister.facets.casts.back(), "spell hwjl");
  model::Entity spell;
  spell.kind = model::Kind::kSpell;
  spell.data["desc"] = std::string(3u << 20, '\xff');
  model::derive_facets(spell);
  EXPECT_TRUE(spell.facets.conditions.empty());
}

// Text as recorded from the API (SRD 5.2 creatures and spells, SRD 5.1 tools), and what users are shown.
TEST(Mapper, CleansMarkupLeftInTheText) {
  // Escapes v2 wrote with "æ" for their backslash-u (Tome of Beasts' v\u00e6ttir, colla\u0301is, 80' x 15 ft.).
  EXPECT_EQ(clean_markup("The v\xC3\xA6"
                         "00e6ttir spews"),
            "The v\xC3\xA6ttir spews");
  EXPECT_EQ(clean_markup("80' long \xC3\xA6"
                         "00d7 15 ft."),
            "80' long \xC3\x97 15 ft.");
  EXPECT_EQ(clean_markup("fukur\xC3\xA6"
                         "014dwashi"),
            "fukur\xC5\x8Dwashi");
  // Not an escape: too few hex digits, a control character, a plain "æ".
  EXPECT_EQ(clean_markup("\xC3\xA6"
                         "00e"),
            "\xC3\xA6"
            "00e");
  EXPECT_EQ(clean_markup("\xC3\xA6"
                         "0007"),
            "\xC3\xA6"
            "0007");
  EXPECT_EQ(clean_markup("Cl\xC3\xA6r"), "Cl\xC3\xA6r");
  EXPECT_EQ(clean_markup("Creatures inside the cube have Cover|XPHB|Total Cover, and the cube can hold"),
            "Creatures inside the cube have Total Cover, and the cube can hold");
  EXPECT_EQ(clean_markup("a 20-foot-radius Sphere [Area of Effect]|XPHB|Sphere centered on a point"),
            "a 20-foot-radius Sphere centered on a point");
  EXPECT_EQ(clean_markup("(see the Ooze Cube [Area of Effect]|XPHB|Cube trait)."), "(see the Ooze Cube trait).");
  EXPECT_EQ(clean_markup("restore it when finishing a Short Rest|XPHB|Short or Long Rest."),
            "restore it when finishing a Short or Long Rest.");
  EXPECT_EQ(clean_markup("It has Cover|XPHB and more."), "It has Cover and more.");
  EXPECT_EQ(clean_markup("x [a]|PHB|"), "x [a]");
  // How far back a reference reaches: to D's first word, over words D shows too (plurals alike).
  EXPECT_EQ(clean_markup("finish a Short Rest or Long Rest|XPHB|Short or Long Rest."), "finish a Short or Long Rest.");
  EXPECT_EQ(clean_markup("has Total Cover and Cover|XPHB|Total Cover"), "has Total Cover and Total Cover");
  EXPECT_EQ(clean_markup("drinks a Potion of Healing|XDMG|potions of healing"), "drinks a potions of healing");
  EXPECT_EQ(clean_markup("wields a +1 Longsword|DMG|+1 longsword"), "wields a +1 longsword");
  EXPECT_EQ(clean_markup("(Cover|XPHB|Total Cover)"), "(Total Cover)");
  EXPECT_EQ(clean_markup("x [a]|PHB|y x [a]|PHB|y"), "y y");
  EXPECT_EQ(clean_markup("Cover|XPHB|(total) cover"), "(total) cover");
  EXPECT_EQ(clean_markup("ls.\\n\\n\n\nFe [Arect]|XPHB|\nRo"), "ls.\n\nFe [Arect]\nRo");  // fuzz/corpus/markup
  EXPECT_EQ(clean_markup("Sphere [Area of Effect]|XPHB|Sphere and Cover|XPHB|Total Cover"), "Sphere and Total Cover");
  EXPECT_EQ(clean_markup("tools.\\n\\n\r\nProficiency with"), "tools.\n\nProficiency with");
  // SRD 5.1 rule texts link other entries: the words stand for them.
  EXPECT_EQ(clean_markup("concentrating on the srd:web spell and ready srd:magic-missile."),
            "concentrating on the web spell and ready magic missile.");
  EXPECT_EQ(clean_markup("as described in srd:unseen-attackers-and-targets- and srd:prone"),
            "as described in unseen attackers and targets- and prone");
  EXPECT_EQ(clean_markup("no link: xsrd:web, srd:, srd:Web, srd:-x, https://srd:8080"),
            "no link: xsrd:web, srd:, srd:Web, srd:-x, https://srd:8080");
  EXPECT_EQ(clean_markup("srd:a"), "a");
  EXPECT_EQ(clean_markup("one\n\n\n\ntwo"), "one\n\ntwo");
  EXPECT_EQ(clean_markup("a\r\\nb\r\n\r\nc\rd\r\r\ne"), "a\nb\n\nc\rd\ne");
  // Bars that are no reference stay: tables, unknown codes, a code inside a word, a bar at the start.
  for (const char* kept : {"| Level | Feature |\n|---|---|", "|STR|DEX|CON|", "A|B|C", "Cover|XPHBX|Total",
                           "|XPHB|Cover", "Cover|MMORPG", "\\", "C:\\path", "|Book|PHB|2014|", "|Name|DMG|Range|"}) {
    EXPECT_EQ(clean_markup(kept), kept) << kept;
  }
  // Text of any size and shape is cleaned in one pass (a quadratic search back would take hours here).
  std::string hostile;
  for (int i = 0; i < 100000; ++i) hostile += "w]|PHB|x [|MM| Cover|XPHB|Total ";
  EXPECT_LT(clean_markup(hostile).size(), hostile.size());
}

// Every string of a mapped record is cleaned, its search text too (a recorded creature given an SRD 5.2 action's
// markup).
TEST(Mapper, MappedRecordsCarryCleanText) {
  json rec = record("creatures", "srd-2024_goblin-warrior");
  ASSERT_FALSE(rec["actions"].empty());
  rec["actions"][0]["desc"] = "Creatures inside the cube have Cover|XPHB|Total Cover, and the cube can hold one.";
  rec["traits"] = json::array({{{"name", "Ooze Cube"}, {"desc", "A\\n\\nB"}}});
  auto e = map_v2_record(endpoint("creatures"), rec, context());
  ASSERT_TRUE(e.is_ok()) << e.status().to_string();
  EXPECT_EQ(e->data.dump().find("\\\\n"), std::string::npos) << e->data.dump();
  EXPECT_EQ(e->data.dump().find("|XPHB"), std::string::npos) << e->data.dump();
  EXPECT_EQ(e->text.find("|XPHB"), std::string::npos) << e->text;
  EXPECT_NE(e->text.find("have Total Cover"), std::string::npos) << e->text;
}

TEST(Mapper, CreatureActionsStayInStatBlockOrder) {
  const json rec = record("creatures", "srd_adult-red-dragon");
  auto e = map_v2_record(endpoint("creatures"), rec, context());
  ASSERT_TRUE(e.is_ok());
  EXPECT_EQ(e->facets.cr, 17);
  EXPECT_EQ(e->facets.type, "dragon");
  EXPECT_EQ(e->facets.size, "huge");
  EXPECT_EQ(e->data["armor_class"], rec["armor_class"]);
  EXPECT_EQ(e->data["hit_points"], rec["hit_points"]);
  EXPECT_EQ(e->data["damage_immunities"], "fire");
  const json& actions = e->data["actions"];
  ASSERT_TRUE(actions.is_array());
  std::vector<std::string> names;
  for (const auto& a : actions) names.push_back(a["name"]);
  const std::vector<std::string> expected = {"Multiattack",        "Bite",       "Claw", "Tail",
                                             "Frightful Presence", "Fire Breath"};
  EXPECT_EQ(names, expected);
  EXPECT_EQ(actions[5]["usage"], "Recharge 5-6");
  ASSERT_TRUE(e->data["legendary_actions"].is_array());
  EXPECT_EQ(e->data["legendary_actions"][2]["cost"], 2);
  EXPECT_NE(e->text.find("Frightful Presence"), std::string::npos);
}

// A creature's v1 record completes its v2 record: each rule of docs/entity-model.md ("Completed from v1") on a
// hand-written v1 record beside the recorded v2 goblin.
TEST(Mapper, ACreatureIsCompletedFromItsV1Record) {
  MappingContext ctx = context();
  json v2 = record("creatures", "srd_goblin");
  // v2 files the legendary Tail Swipe among the actions too, and gives the Shortbow its legendary namesake's text.
  v2["actions"].push_back({{"name", "Tail Swipe"}, {"desc", "The goblin swipes."}, {"action_type", "ACTION"}});
  v2["actions"].push_back(
      {{"name", "Tail Swipe"}, {"desc", "The goblin swipes."}, {"action_type", "LEGENDARY_ACTION"}});
  v2["actions"].push_back({{"name", "Shortbow"}, {"desc", "The goblin shoots."}, {"action_type", "LEGENDARY_ACTION"}});
  v2["actions"][1]["desc"] = "The goblin shoots.";
  v2["actions"].push_back({{"name", "Rally"}, {"desc", "The goblin rallies."}, {"action_type", "LEGENDARY_ACTION"}});
  // Level Up's records open a spell's text with its level and components.
  v2["actions"].push_back({{"name", "Mage Armor"},
                           {"desc", "(1st-Level; V, S) The goblin's skin hardens."},
                           {"action_type", "BONUS_ACTION"}});
  const json v1 = {
      {"slug", "goblin"},
      {"v2_converted_path", "/v2/creatures/srd_goblin/"},
      {"desc", "**Goblins** are small, black-hearted humanoids."},
      {"subtype", "goblinoid"},
      {"senses", "darkvision 60 ft. (only in darkness), passive Perception 9"},
      {"speed", {{"walk", 30}, {"notes", "40 ft. when mounted"}}},
      {"damage_resistances", "False"},
      {"languages", "Common, Goblin"},
      {"special_abilities",
       json::array({{{"name", "Nimble Escape"}, {"desc", "x"}},
                    {{"name", "Sunlight Sensitivity"}, {"desc", "While in sunlight, the goblin has disadvantage."}}})},
      {"actions", json::array({{{"name", "Scimitar (Goblin Form Only)"}, {"desc", "ignored: v2 has it"}},
                               {{"name", "Shortbow (Recharge 5-6)."},
                                {"desc",
                                 "Ranged Weapon Attack: +4 to hit, range 80/320 ft., one target. Hit: 5 (1d6 + "
                                 "2) piercing damage plus 2 (1d4) poison damage."}},
                               {{"name", "Shriek (1/Day, While Bloodied)"}, {"desc", "The goblin shrieks."}},
                               {{"name", "Hex (1st-Level; V, S)"}, {"desc", "The goblin casts hex."}},
                               {{"name", "Giant Form (1/Day"}, {"desc", "The goblin grows."}},
                               {{"name", "Bite"},
                                {"desc",
                                 "Melee Weapon Attack: +3 to hit, 5 ft., one target, 4 (1d4+2) piercing damage "
                                 "+ 3 (1d6) fire."}},
                               {{"name", "Goblin swipe"}, {"desc", "The goblin swipes."}}})},
      {"bonus_actions", json::array({{{"name", "Mage Armor (1st-Level; V, S)"}, {"desc", "x"}}})},
      {"legendary_actions", json::array({{{"name", "Tail Swipe (Costs 2 Actions)"}, {"desc", "The goblin swipes."}},
                                         {{"name", "Shortbow"}, {"desc", "The goblin shoots."}},
                                         {{"name", "Rally (3)"}, {"desc", "The goblin rallies."}}})}};
  ctx.v1_monsters["srd_goblin"] = v1;
  auto e = map_v2_record(endpoint("creatures"), v2, ctx);
  ASSERT_TRUE(e.is_ok()) << e.status().to_string();
  const json& d = e->data;
  auto names = [&](const char* group) {
    std::vector<std::string> out;
    for (const auto& a : d.value(group, json::array())) out.push_back(a.value("name", ""));
    return out;
  };
  using V = std::vector<std::string>;
  // Added in v1's order after v2's own; the copy of a legendary action is gone; a text v2 holds is not repeated.
  EXPECT_EQ(names("actions"), (V{"Scimitar", "Shortbow", "Shriek", "Hex", "Giant Form", "Bite"}));
  EXPECT_EQ(names("legendary_actions"), (V{"Tail Swipe", "Shortbow", "Rally"}));
  const json& acts = d["actions"];
  EXPECT_EQ(acts[0].value("limited_to", ""), "Goblin Form Only");
  EXPECT_EQ(acts[1].value("usage", ""), "Recharge 5-6");
  EXPECT_EQ(acts[1].value("desc", "").rfind("Ranged Weapon Attack", 0), 0u);  // v1's text, not the legendary copy
  EXPECT_EQ(acts[2].value("usage", ""), "1/Day");
  EXPECT_EQ(acts[2].value("limited_to", ""), "While Bloodied");
  EXPECT_EQ(acts[3].value("spell", ""), "1st-Level; V, S");
  EXPECT_FALSE(acts[3].contains("limited_to"));
  EXPECT_EQ(acts[4].value("usage", ""), "1/Day");  // a name cut inside its parenthesis gives its usage only
  EXPECT_FALSE(acts[4].contains("limited_to"));
  EXPECT_FALSE(d["bonus_actions"][0].contains("spell")) << d["bonus_actions"];  // its text says it already
  EXPECT_EQ(d["legendary_actions"][0].value("cost", 0), 2);
  EXPECT_EQ(d["legendary_actions"][2].value("cost", 0), 3);  // "(3)" of a legendary action
  // Attacks as the text states them: the recorded Scimitar's "Thunder" is the text's slashing.
  EXPECT_EQ(acts[0]["attacks"][0].value("damage_type", ""), "Slashing");
  EXPECT_EQ(acts[0]["attacks"][0].value("damage", ""), "1d6+2");
  const json& shortbow = acts[1]["attacks"][0];
  EXPECT_EQ(shortbow.value("range", 0), 80);
  EXPECT_EQ(shortbow.value("long_range", 0), 320);
  EXPECT_EQ(shortbow["extra_damage"], json::parse(R"([{"damage": "1d4", "damage_type": "Poison"}])"));
  const json& bite = acts[5]["attacks"][0];  // Tome of Beasts 3's shorthand
  EXPECT_EQ(bite.value("to_hit_mod", 0), 3);
  EXPECT_EQ(bite.value("reach", 0), 5);
  EXPECT_EQ(bite.value("damage", ""), "1d4+2");
  EXPECT_EQ(bite.value("damage_type", ""), "Piercing");
  EXPECT_EQ(bite["extra_damage"][0].value("damage_type", ""), "Fire");
  // Traits, lore, subtype, senses, speed note; v1's "False" says nothing.
  EXPECT_EQ(names("traits"), (V{"Nimble Escape", "Sunlight Sensitivity"}));
  EXPECT_EQ(d.value("desc", ""), "**Goblins** are small, black-hearted humanoids.");
  EXPECT_NE(e->text.find("black-hearted"), std::string::npos);
  EXPECT_EQ(d.value("subcategory", ""), "goblinoid");
  EXPECT_EQ(d.value("senses_detail", ""), "darkvision 60 ft. (only in darkness), passive Perception 9");
  EXPECT_EQ(d.value("speed_note", ""), "40 ft. when mounted");
  EXPECT_FALSE(d.contains("damage_resistances"));
  EXPECT_EQ(d.value("languages", ""), "Common, Goblin");  // v2's own
  // Both records are kept.
  EXPECT_EQ(e->raw[kRawV2]["key"], "srd_goblin");
  EXPECT_EQ(e->raw[kRawV1]["slug"], "goblin");
  // Without a v1 record the same v2 record keeps v2's names and lists, still without the legendary copy.
  auto alone = map_v2_record(endpoint("creatures"), v2, context());
  ASSERT_TRUE(alone.is_ok());
  EXPECT_EQ(alone->data["actions"].size(), 2u);
  EXPECT_EQ(alone->raw["key"], "srd_goblin");
}

// Where the v1 record proves the v2 record wrong, the answer has v1's: glued sense ranges, a passive Perception
// without its proficiency, a book heading for a subtype. An attack's first damage the text gives no type, or gives
// as a flat number, is read as the text states it.
TEST(Mapper, AV1RecordCorrectsWhatItProvesTheV2RecordGotWrong) {
  MappingContext ctx = context();
  json v2 = record("creatures", "srd_goblin");
  v2["darkvision_range"] = 6011;  // "darkvision 60 ft." glued to "passive Perception 11"
  v2["blindsight_range"] = 1005;  // v1's 10 and digits that are no other number of v1's line: v2's stays
  v2["tremorsense_range"] = 90;   // v1 says 30: not v1's digits with more around them, so v2's stays
  v2["subcategory"] = "Goblins";  // the heading the book prints the stat block under
  v2["actions"] = json::array(
      {{{"name", "Ghostly Axe"},
        {"action_type", "ACTION"},
        {"desc",
         "Melee Weapon Attack: +5 to hit, reach 5 ft., one target. Hit: 5 (1d6 + 2) plus 9 (2d8) necrotic damage."}},
       {{"name", "Bite"},
        {"action_type", "ACTION"},
        {"desc",
         "Melee Weapon Attack: +4 to hit, reach 5 ft., one creature. Hit: 1 piercing damage plus 3 (1d6) poison "
         "damage."}}});
  ctx.v1_monsters["srd_goblin"] = {{"slug", "goblin"},
                                   {"v2_converted_path", "/v2/creatures/srd_goblin/"},
                                   {"subtype", "goblinoid"},
                                   {"perception", 12},
                                   {"senses",
                                    "darkvision 60', blindsight 10 ft., tremorsense 30 ft., passive "
                                    "Perception 11"}};
  auto e = map_v2_record(endpoint("creatures"), v2, ctx);
  ASSERT_TRUE(e.is_ok()) << e.status().to_string();
  const json& senses = e->data["senses"];
  EXPECT_EQ(senses.value("darkvision", 0.0), 60);
  EXPECT_EQ(senses.value("blindsight", 0.0), 1005);
  EXPECT_EQ(senses.value("tremorsense", 0.0), 90);
  // v2's 9 is 10 + the Wisdom modifier (-1) without proficiency; v1's stat block says 12.
  EXPECT_EQ(senses.value("passive_perception", 0.0), 12);
  EXPECT_EQ(e->data.value("subcategory", ""), "goblinoid");
  const json& axe = e->data["actions"][0]["attacks"][0];
  EXPECT_EQ(axe.value("damage", ""), "1d6+2");
  EXPECT_FALSE(axe.contains("damage_type")) << axe;
  EXPECT_EQ(axe["extra_damage"], json::parse(R"([{"damage": "2d8", "damage_type": "Necrotic"}])"));
  const json& bite = e->data["actions"][1]["attacks"][0];
  EXPECT_EQ(bite.value("damage", ""), "1");
  EXPECT_EQ(bite.value("damage_type", ""), "Piercing");
  EXPECT_EQ(bite["extra_damage"], json::parse(R"([{"damage": "1d6", "damage_type": "Poison"}])"));

  // A v1 passive Perception below v2's, or beside a Perception skill (v1's is then the skill's bonus), changes
  // nothing; nor does one when v2's is more than the bare 10 + Wisdom modifier.
  for (const json& v1 : {json{{"perception", 7}}, json{{"perception", 14}}}) {
    ctx.v1_monsters["srd_goblin"] = v1;
    json skilled = v2;
    if (v1["perception"] == 14) skilled["skill_bonuses"]["perception"] = 4;
    auto x = map_v2_record(endpoint("creatures"), skilled, ctx);
    ASSERT_TRUE(x.is_ok());
    EXPECT_EQ(x->data["senses"].value("passive_perception", 0.0), 9) << v1;
  }
  ctx.v1_monsters["srd_goblin"] = {{"perception", 14}};
  json proficient = v2;
  proficient["passive_perception"] = 11;
  auto p = map_v2_record(endpoint("creatures"), proficient, ctx);
  ASSERT_TRUE(p.is_ok());
  EXPECT_EQ(p->data["senses"].value("passive_perception", 0.0), 11);
}

// A v1 record is network input: numbers past int, lists of the wrong type and fields of the wrong type are read
// as nothing, never as an exception.
TEST(Mapper, AHostileV1RecordCompletesNothingItCannotRead) {
  MappingContext ctx = context();
  const std::string huge(40, '9');
  ctx.v1_monsters["srd_goblin"] = {
      {"actions",
       json::array({{{"name", "Bite"},
                     {"desc", "Melee Weapon Attack: +" + huge + " to hit, reach " + huge + " ft., one target. Hit: " +
                                  huge + " (" + huge + "d" + huge + " + " + huge + ") piercing damage."}},
                    {{"name", 7}, {"desc", json::array()}},
                    "not an action",
                    {{"name", "Bow (Recharge 9-6)"},
                     {"desc", "Ranged Weapon Attack: +4 to hit, range " + huge + "/" + huge + " ft., one target."}}})},
      {"legendary_actions", "none"},
      {"special_abilities", json::object()},
      {"senses", 12},
      {"speed", "fast"},
      {"desc", json::array()},
      {"subtype", json::object()}};
  auto e = map_v2_record(endpoint("creatures"), record("creatures", "srd_goblin"), ctx);
  ASSERT_TRUE(e.is_ok()) << e.status().to_string();
  for (const auto& a : e->data["actions"]) {
    for (const auto& k : a.value("attacks", json::array())) {
      EXPECT_FALSE(k.contains("reach") && k["reach"] != 5) << k;
      EXPECT_FALSE(k.contains("range") && k["range"] != 80) << k;
      if (a.value("name", "") == "Bite") {
        EXPECT_FALSE(k.contains("to_hit_mod")) << k;
      }
    }
  }
  EXPECT_FALSE(e->data.contains("desc"));
  EXPECT_FALSE(e->data.contains("senses_detail"));
}

TEST(Mapper, NoteV1MonsterNeedsItsV2Path) {
  MappingContext ctx;
  EXPECT_TRUE(note_v1_monster({{"slug", "goblin"}, {"v2_converted_path", "/v2/creatures/srd_goblin/"}}, ctx));
  EXPECT_EQ(ctx.v1_monsters.count("srd_goblin"), 1u);
  EXPECT_FALSE(note_v1_monster({{"slug", "x"}}, ctx));
  EXPECT_FALSE(note_v1_monster({{"slug", "x"}, {"v2_converted_path", "/v2/spells/srd_x/"}}, ctx));
  EXPECT_FALSE(note_v1_monster({{"slug", "x"}, {"v2_converted_path", 7}}, ctx));
  EXPECT_EQ(ctx.v1_monsters.size(), 1u);
}

TEST(Mapper, SavesAndSkillsThatAreAllZeroFillerAreLeftOut) {
  json saves = json::object(), skills = json::object();
  for (const char* a : {"strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma"}) saves[a] = 0;
  for (const char* s : {"acrobatics", "animal_handling", "arcana", "athletics", "deception", "history", "insight",
                        "intimidation", "investigation", "medicine", "nature", "perception", "performance",
                        "persuasion", "religion", "sleight_of_hand", "stealth", "survival"}) {
    skills[s] = 0;
  }
  // SRD 5.1's Mule as v2 records it: Strength 14 with a +0 Strength save, and all eighteen skills at +0.
  json mule = record("creatures", "srd_goblin");
  mule["ability_scores"] = {{"strength", 14},    {"dexterity", 10}, {"constitution", 13},
                            {"intelligence", 2}, {"wisdom", 10},    {"charisma", 5}};
  mule["saving_throws"] = saves;
  mule["skill_bonuses"] = skills;
  auto e = map_v2_record(endpoint("creatures"), mule, context());
  ASSERT_TRUE(e.is_ok());
  EXPECT_FALSE(e->data.contains("saving_throws")) << e->data["saving_throws"].dump();
  EXPECT_FALSE(e->data.contains("skill_bonuses")) << e->data["skill_bonuses"].dump();
  // Six +0 saves on six 10s are a 2024 commoner's saves; one real +0 skill stays.
  json commoner = mule;
  for (auto& [_, score] : commoner["ability_scores"].items()) score = 10;
  commoner["skill_bonuses"] = {{"perception", 0}};
  e = map_v2_record(endpoint("creatures"), commoner, context());
  ASSERT_TRUE(e.is_ok());
  EXPECT_EQ(e->data["saving_throws"], saves);
  EXPECT_EQ(e->data["skill_bonuses"], json({{"perception", 0}}));
  // A real list with a +0 among others stays whole (the 2014 Zombie's Wisdom +0 beside a -2 modifier).
  json zombie = mule;
  zombie["saving_throws"] = {{"wisdom", 0}, {"strength", 4}};
  e = map_v2_record(endpoint("creatures"), zombie, context());
  ASSERT_TRUE(e.is_ok());
  EXPECT_EQ(e->data["saving_throws"].size(), 2u);
}

TEST(Mapper, WeaponKeepsVersatileDiceAndProperties) {
  auto e = map_v2_record(endpoint("weapons"), record("weapons", "srd_longsword"), context());
  ASSERT_TRUE(e.is_ok());
  EXPECT_EQ(e->facets.damage_dice, "1d8");
  EXPECT_EQ(e->data["versatile_dice"], "1d10");
  EXPECT_EQ(e->facets.is_simple, false);
  EXPECT_NE(std::find(e->facets.properties.begin(), e->facets.properties.end(), "versatile"),
            e->facets.properties.end());
  auto bow = map_v2_record(endpoint("weapons"), record("weapons", "srd_longbow"), context());
  ASSERT_TRUE(bow.is_ok());
  EXPECT_EQ(bow->data["range"], 150);
  EXPECT_EQ(bow->data["long_range"], 600);
}

// The names and details of a weapon's (or base weapon's) properties: "Ammunition (range 150/600)".
std::vector<std::string> property_list(const json& props) {
  std::vector<std::string> out;
  for (const auto& p : props) {
    const std::string detail = p.value("detail", "");
    out.push_back(p.value("name", "") + (detail.empty() ? "" : " (" + detail + ")"));
  }
  return out;
}

json v1_srd_weapon(const std::string& slug, json properties) {
  return {{"slug", slug}, {"document__slug", "wotc-srd"}, {"properties", std::move(properties)}};
}

TEST(Mapper, AnSrd51WeaponTakesTheSrdTablesPropertiesWhereV2Differs) {
  using V = std::vector<std::string>;
  MappingContext ctx = context();
  // v2's Longbow lacks Heavy: the table's list replaces it, names spelled as v2 spells them.
  ASSERT_TRUE(note_srd_weapon(v1_srd_weapon("longbow", {"ammunition (range 150/600)", "heavy", "two-handed"}), ctx));
  auto bow = map_v2_record(endpoint("weapons"), record("weapons", "srd_longbow"), ctx);
  ASSERT_TRUE(bow.is_ok());
  EXPECT_EQ(property_list(bow->data["properties"]), (V{"Ammunition (range 150/600)", "Heavy", "Two-Handed"}));
  EXPECT_EQ(bow->facets.properties, (V{"ammunition", "heavy", "two-handed"}));
  EXPECT_NE(bow->text.find("Heavy"), std::string::npos) << bow->text;
  EXPECT_EQ(bow->data["is_melee"], false);

  // The same list in another order and case changes nothing: v2's record stays as it is.
  ASSERT_TRUE(note_srd_weapon(v1_srd_weapon("dagger", {"thrown (range 20/60)", "LIGHT", "finesse"}), ctx));
  auto dagger = map_v2_record(endpoint("weapons"), record("weapons", "srd_dagger"), ctx);
  auto plain = map_v2_record(endpoint("weapons"), record("weapons", "srd_dagger"), context());
  ASSERT_TRUE(dagger.is_ok() && plain.is_ok());
  EXPECT_EQ(dagger->data, plain->data);

  // A detail both state that differs is the table's (v2's Sling has the Light Crossbow's range); a property the
  // table adds gets a name spelled as v2 spells names.
  ASSERT_TRUE(note_srd_weapon(v1_srd_weapon("longsword", {"versatile (1d12)", "two-handed"}), ctx));
  auto sword = map_v2_record(endpoint("weapons"), record("weapons", "srd_longsword"), ctx);
  ASSERT_TRUE(sword.is_ok());
  EXPECT_EQ(property_list(sword->data["properties"]), (V{"Versatile (1d12)", "Two-Handed"}));
  EXPECT_EQ(sword->data["versatile_dice"], "1d12");
  // ... and so is the base weapon of a magic item made from it; the 2024 Longsword is another weapon.
  auto vorpal = map_v2_record(endpoint("magicitems"), record("magicitems", "srd_vorpal-sword-longsword"), ctx);
  ASSERT_TRUE(vorpal.is_ok());
  EXPECT_EQ(property_list(vorpal->data["base_weapon"]["properties"]), (V{"Versatile (1d12)", "Two-Handed"}));
  auto sword24 = map_v2_record(endpoint("weapons"), record("weapons", "srd-2024_longsword"), ctx);
  ASSERT_TRUE(sword24.is_ok());
  EXPECT_EQ(property_list(sword24->data["properties"]), (V{"Sap", "Versatile (1d10)"}));

  // What is noted: SRD 5.1 records with a list of property texts. A list that says nothing removes nothing.
  MappingContext none = context();
  EXPECT_FALSE(note_srd_weapon({{"slug", "battleaxe"}, {"document__slug", "toh"}, {"properties", {"heavy"}}}, none));
  EXPECT_FALSE(note_srd_weapon(v1_srd_weapon("battleaxe", nullptr), none));
  EXPECT_FALSE(note_srd_weapon(v1_srd_weapon("battleaxe", json::array()), none));
  EXPECT_FALSE(note_srd_weapon(v1_srd_weapon("battleaxe", {"heavy", 3}), none));
  EXPECT_FALSE(note_srd_weapon(v1_srd_weapon("battleaxe", {"heavy", ""}), none));
  EXPECT_FALSE(note_srd_weapon(v1_srd_weapon("battleaxe", "heavy"), none));
  EXPECT_FALSE(note_srd_weapon(v1_srd_weapon("", {"heavy"}), none));
  EXPECT_FALSE(note_srd_weapon(json::array(), none));
  EXPECT_TRUE(none.srd_weapon_properties.empty());
}

json v1_spell(const std::string& name, const std::string& classes, const std::string& archetype,
              const std::string& document = "wotc-srd") {
  return {{"slug", model::slug(name)},
          {"name", name},
          {"document__slug", document},
          {"dnd_class", classes},
          {"archetype", archetype}};
}

bool has_facet(const Entity& e, const std::string& v) {
  return std::find(e.facets.classes.begin(), e.facets.classes.end(), v) != e.facets.classes.end();
}

// v1's range and casting time where they go on from v2's: Deep Magic's "Self (60-foot radius)" where v2 says "Self".
TEST(Mapper, ASpellTakesV1sRangeOrCastingTimeWhereItSaysMore) {
  MappingContext ctx = context();
  json v1 = v1_spell("Fireball", "", "");
  v1["range"] = "Self (60-foot radius)";
  v1["casting_time"] = "1 action, or 1 reaction that you take while falling";
  ASSERT_TRUE(note_v1_spell(v1, ctx));  // a record that lends no class still lends these
  json rec = record("spells", "srd_fireball");
  rec["range_text"] = "Self";
  rec["casting_time"] = "action";
  auto e = map_v2_record(endpoint("spells"), rec, ctx);
  ASSERT_TRUE(e.is_ok()) << e.status().to_string();
  EXPECT_EQ(e->data.value("range", ""), "Self (60-foot radius)");
  EXPECT_EQ(e->data.value("casting_time", ""), "1 action, or 1 reaction that you take while falling");
  EXPECT_EQ(e->facets.casting_time, "action");  // filters read the casting time as v2 gives it
  // A v1 text that does not go on from v2's, and a reaction's casting time beside its trigger, stay v2's.
  v1["range"] = "60 feet";
  v1["casting_time"] = "1 reaction, which you take when a creature within 60 feet falls";
  ASSERT_TRUE(note_v1_spell(v1, ctx));
  rec["range_text"] = "150 feet";
  rec["casting_time"] = "reaction";
  rec["reaction_condition"] = "which you take when a creature within 60 feet falls";
  auto r = map_v2_record(endpoint("spells"), rec, ctx);
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->data.value("range", ""), "150 feet");
  EXPECT_EQ(r->data.value("casting_time", ""), "1 reaction");
}

TEST(Mapper, ASpellsClassesAreTheClassListsV1Names) {
  using V = std::vector<std::string>;
  MappingContext ctx = context();
  // v2's Cure Wounds lacks the Paladin; v1 names it, and no subclass grants it.
  ASSERT_TRUE(note_v1_spell(v1_spell("Cure Wounds", "Bard, Cleric, Druid, Paladin, Ranger", ""), ctx));
  auto cure = map_v2_record(endpoint("spells"), record("spells", "srd_cure-wounds"), ctx);
  ASSERT_TRUE(cure.is_ok());
  EXPECT_EQ(cure->data["classes"], json({"Bard", "Cleric", "Druid", "Ranger", "Paladin"}));
  EXPECT_TRUE(has_facet(*cure, "paladin"));
  EXPECT_TRUE(has_facet(*cure, "srd_paladin"));
  EXPECT_FALSE(cure->data.contains("subclass_grants"));
  // Hold Person is a Paladin's only through the Oath of Vengeance; "Ritual Caster" is a feat, not a class.
  ASSERT_TRUE(note_v1_spell(
      v1_spell("Hold Person", "Bard, Cleric, Druid, Paladin, Ritual Caster, Wizard", "Paladin: Vengeance"), ctx));
  const auto& hold = ctx.v1_spell_classes.at(v1_note_key("srd-2014", "Hold Person"));
  EXPECT_EQ(hold.classes, (V{"Bard", "Cleric", "Druid", "Wizard"}));
  EXPECT_EQ(hold.subclass_grants, (V{"Paladin: Vengeance"}));
  // A Circle of the Land terrain `circles` names and `archetype` does not is the Druid's grant too; the Druid stays
  // on its own list.
  json pass = v1_spell("Pass without Trace", "Cleric, Druid, Ranger", "Cleric: Trickery");
  pass["circles"] = "Grassland, ";
  ASSERT_TRUE(note_v1_spell(pass, ctx));
  const auto& noted_pass = ctx.v1_spell_classes.at(v1_note_key("srd-2014", "Pass without Trace"));
  EXPECT_EQ(noted_pass.subclass_grants, (V{"Cleric: Trickery", "Druid: Grassland"}));
  EXPECT_EQ(noted_pass.classes, (V{"Druid", "Ranger"}));
  json climb = v1_spell("Spider Climb", "Druid, Wizard", "Druid: Forest, Mountain");
  climb["circles"] = "Forest, Mountain, Underdark";  // a terrain archetype names already is one grant
  ASSERT_TRUE(note_v1_spell(climb, ctx));
  EXPECT_EQ(ctx.v1_spell_classes.at(v1_note_key("srd-2014", "Spider Climb")).subclass_grants,
            (V{"Druid: Forest", "Druid: Mountain", "Druid: Underdark"}));
  // A class v2 names and v1 names only through a subclass's grant is the subclass's, not the class's: the Light
  // domain's Fireball is no Cleric spell. A class v2 names that v1 does not mention stays.
  ASSERT_TRUE(note_v1_spell(v1_spell("Fireball", "Cleric, Wizard", "Cleric: Light, Druid: Coast, Grassland"), ctx));
  json fireball_record = record("spells", "srd_fireball");
  fireball_record["classes"].push_back({{"name", "Cleric"}, {"key", "srd_cleric"}});
  auto fireball = map_v2_record(endpoint("spells"), fireball_record, ctx);
  ASSERT_TRUE(fireball.is_ok());
  EXPECT_EQ(fireball->data["classes"], json({"Sorcerer", "Wizard"}));
  EXPECT_EQ(fireball->data["subclass_grants"], json({"Cleric: Light", "Druid: Coast", "Druid: Grassland"}));
  EXPECT_FALSE(has_facet(*fireball, "cleric"));
  EXPECT_FALSE(has_facet(*fireball, "srd_cleric"));
  EXPECT_TRUE(has_facet(*fireball, "srd_sorcerer"));
  // Another edition's spell of the same name is another spell.
  auto cure24 = map_v2_record(endpoint("spells"), record("spells", "srd-2024_cure-wounds"), ctx);
  ASSERT_TRUE(cure24.is_ok());
  EXPECT_EQ(cure24->data["classes"], json({"Bard", "Cleric", "Druid", "Paladin", "Ranger"}));
  // A third-party spell: v1's document names the v2 one (Deep Magic Extended is "dmag-e"), "Sorceror" is the
  // Sorcerer, and a class no SRD has keeps only its name as a facet.
  ASSERT_TRUE(note_v1_spell(v1_spell("Shield of Star and Shadow", "Sorceror, Herald", "", "dmag-e"), ctx));
  auto star = map_v2_record(endpoint("spells"), record("spells", "deepmx_shield-of-star-and-shadow"), ctx);
  ASSERT_TRUE(star.is_ok());
  const json star_classes = star->data["classes"];
  EXPECT_NE(std::find(star_classes.begin(), star_classes.end(), "Sorcerer"), star_classes.end()) << star_classes;
  EXPECT_NE(std::find(star_classes.begin(), star_classes.end(), "Herald"), star_classes.end()) << star_classes;
  EXPECT_TRUE(has_facet(*star, "herald"));
  EXPECT_FALSE(has_facet(*star, "srd_herald"));

  MappingContext none = context();
  EXPECT_FALSE(note_v1_spell(v1_spell("Bless", "Cleric", "", "no-such-document"), none));
  EXPECT_FALSE(note_v1_spell(v1_spell("Bless", "", ""), none));
  EXPECT_FALSE(note_v1_spell(v1_spell("Bless", "Ritual Caster", ""), none));
  EXPECT_FALSE(note_v1_spell(v1_spell("", "Cleric", ""), none));
  EXPECT_FALSE(
      note_v1_spell({{"slug", "bless"}, {"name", "Bless"}, {"document__slug", "wotc-srd"}, {"dnd_class", 3}}, none));
  EXPECT_TRUE(none.v1_spell_classes.empty());
  // A grant alone is noted: the class it names is taken off the class's list.
  EXPECT_TRUE(note_v1_spell(v1_spell("Bless", "Paladin", "Paladin: Devotion"), none));
}

TEST(Mapper, ArmorKeepsAcRules) {
  const json rec = record("armor", "srd_plate");
  auto e = map_v2_record(endpoint("armor"), rec, context());
  ASSERT_TRUE(e.is_ok());
  EXPECT_EQ(e->data["armor_class"], rec["ac_display"]);
  EXPECT_EQ(e->data["ac_base"], rec["ac_base"]);
  EXPECT_EQ(e->data["stealth_disadvantage"], rec["grants_stealth_disadvantage"]);
  EXPECT_EQ(e->data["strength_required"], rec["strength_score_required"]);
}

TEST(Mapper, AShieldIsAShieldAddingItsBonusWhateverTheRecordCallsIt) {
  // SRD 5.2's Shield as the API records it: category "heavy", base 2, no Dexterity.
  json shield = record("armor", "srd_plate");
  shield["key"] = "srd-2024_shield";
  shield["name"] = "Shield";
  shield["category"] = "heavy";
  shield["ac_base"] = 2;
  shield["ac_display"] = "2";
  shield["ac_add_dexmod"] = false;
  shield["ac_cap_dexmod"] = nullptr;
  auto e = map_v2_record(endpoint("armor"), shield, context());
  ASSERT_TRUE(e.is_ok()) << e.status().to_string();
  EXPECT_EQ(e->facets.type, "shield");
  EXPECT_EQ(e->data["category"], "shield");
  EXPECT_EQ(e->data["armor_class"], "+2");
  EXPECT_EQ(e->facets.armor_class, 2);
  EXPECT_EQ(e->raw["category"], "heavy");  // the record is kept as sent
  // Body armor keeps its category: a base of 10 or more, or one that adds Dexterity.
  auto plate = map_v2_record(endpoint("armor"), record("armor", "srd_plate"), context());
  ASSERT_TRUE(plate.is_ok());
  EXPECT_EQ(plate->facets.type, "heavy");

  // Tome of Heroes (v1) writes its shields as the AC of one wearing nothing else: "11 + Dex modifier +2".
  const Endpoint* v1_armor = nullptr;
  for (const auto& ep : v1_endpoints()) {
    if (ep.path == "armor") v1_armor = &ep;
  }
  ASSERT_NE(v1_armor, nullptr);
  const json kite = {{"slug", "kite-shield"},
                     {"name", "Kite shield"},
                     {"category", "Shield"},
                     {"base_ac", 11},
                     {"plus_dex_mod", true},
                     {"plus_flat_mod", 2},
                     {"plus_max", 0},
                     {"ac_string", "11 + Dex modifier +2"},
                     {"cost", "15 gp"},
                     {"weight", ""},
                     {"stealth_disadvantage", false},
                     {"strength_requirement", 0},
                     {"document__slug", "toh"},
                     {"document__title", "Tome of Heroes"}};
  MappingContext ctx = context();
  model::Document toh;
  toh.key = "toh";
  toh.name = "Tome of Heroes";
  ctx.v1_documents["toh"] = toh;
  auto k = map_v1_record(*v1_armor, kite, ctx);
  ASSERT_TRUE(k.is_ok()) << k.status().to_string();
  EXPECT_EQ(k->facets.type, "shield");
  EXPECT_EQ(k->data["armor_class"], "+2");
  EXPECT_EQ(k->facets.armor_class, 2);
  EXPECT_EQ(k->data["ac_add_dex_modifier"], false);
  EXPECT_FALSE(k->data.contains("ac_dex_modifier_max"));
  // Light armor written the same way keeps its base and Dexterity.
  json leather = kite;
  leather["slug"] = "padded-leather";
  leather["name"] = "Padded leather";
  leather["category"] = "Light Armor";
  leather["plus_flat_mod"] = 0;
  leather["ac_string"] = "11 + Dex modifier";
  auto l = map_v1_record(*v1_armor, leather, ctx);
  ASSERT_TRUE(l.is_ok()) << l.status().to_string();
  EXPECT_EQ(l->facets.type, "light");
  EXPECT_EQ(l->facets.armor_class, 11);
  EXPECT_EQ(l->data["ac_add_dex_modifier"], true);
}

TEST(Mapper, ItemCostAndWeightAreNumbers) {
  auto e = map_v2_record(endpoint("items"), record("items", "srd_torch"), context());
  ASSERT_TRUE(e.is_ok());
  ASSERT_TRUE(e->facets.cost.has_value());
  EXPECT_DOUBLE_EQ(*e->facets.cost, 0.01);
  EXPECT_DOUBLE_EQ(*e->facets.weight, 1.0);
  auto m = map_v2_record(endpoint("magicitems"), record("magicitems", "srd_vorpal-sword-longsword"), context());
  ASSERT_TRUE(m.is_ok());
  EXPECT_EQ(m->facets.rarity, "legendary");
  EXPECT_EQ(m->facets.requires_attunement, true);
}

TEST(Mapper, SubclassesAndSubspeciesPointAtTheirParent) {
  auto sub = map_v2_record(endpoint("classes"), record("classes", "srd_school-of-evocation"), context());
  ASSERT_TRUE(sub.is_ok());
  EXPECT_EQ(sub->facets.parent_key, "srd_wizard");
  auto wiz = map_v2_record(endpoint("classes"), record("classes", "srd_wizard"), context());
  ASSERT_TRUE(wiz.is_ok());
  EXPECT_TRUE(wiz->facets.parent_key.empty());
  ASSERT_TRUE(wiz->data["features"].is_array());
  EXPECT_EQ(wiz->data["hit_dice"], "D6");
  auto high = map_v2_record(endpoint("species"), record("species", "srd_high-elf"), context());
  ASSERT_TRUE(high.is_ok());
  EXPECT_EQ(high->facets.parent_key, "srd_elf");
}

TEST(Mapper, AClassFeatureKeepsWhatItGivesAtEachLevel) {
  json fighter = record("classes", "srd_wizard");
  fighter["features"] = json::array(
      {{{"key", "x_action-surge"},
        {"name", "Action Surge"},
        {"desc", "Take one additional action."},
        {"feature_type", "CLASS_LEVEL_FEATURE"},
        {"gained_at", json::array({{{"level", 17}, {"detail", "two uses"}}, {{"level", 2}, {"detail", nullptr}}})}},
       {{"key", "x_extra-attack"},
        {"name", "Extra Attack"},
        {"desc", "Attack twice."},
        {"feature_type", "CLASS_LEVEL_FEATURE"},
        {"gained_at", json::array({{{"level", 5}, {"detail", "1"}}, {{"level", 11}, {"detail", "2"}}})}},
       {{"key", "x_second-wind"},
        {"name", "Second Wind"},
        {"desc", "Regain hit points."},
        {"feature_type", "CLASS_LEVEL_FEATURE"},
        {"gained_at", json::array({{{"level", 1}, {"detail", "  "}}})}}});
  auto c = map_v2_record(endpoint("classes"), fighter, context());
  ASSERT_TRUE(c.is_ok()) << c.status().to_string();
  const json& surge = c->data["features"][1];
  EXPECT_EQ(surge["levels"], json::array({2, 17}));
  EXPECT_EQ(surge["level_details"], json({{"17", "two uses"}}));
  EXPECT_FALSE(c->data["features"][0].contains("level_details"));  // a blank detail says nothing
  json result = c->data;
  result["key"] = c->key;
  result["name"] = c->name;
  result["kind"] = "class";
  const std::string md = tools::render_entity(result);
  EXPECT_NE(md.find("***Action Surge (level 2, 17: two uses).***"), std::string::npos) << md;
  EXPECT_NE(md.find("***Second Wind (level 1).***"), std::string::npos) << md;
  EXPECT_NE(md.find("***Extra Attack (level 5 (1), 11 (2)).***"), std::string::npos) << md;
}

// Where v2 cut a text or a name that v1 has whole, the answer has v1's: the Mirror Hag's curse effects, the flesh
// guardian's DC.
TEST(Mapper, AV1TextOrNameThatGoesOnWhereV2StopsReplacesIt) {
  MappingContext ctx = context();
  json v2 = record("creatures", "srd_goblin");
  v2["actions"].push_back({{"name", "Curse"},
                           {"desc", "The goblin curses one creature, which suffers one of the following effects:"},
                           {"action_type", "ACTION"}});
  v2["traits"] =
      json::array({{{"name", "If its creator calls, it can try to calm it"}, {"desc", "On a success, it calms."}},
                   {{"name", "Nimble Escape"}, {"desc", "The goblin can take the Disengage action."}}});
  const json v1 = {
      {"slug", "goblin"},
      {"v2_converted_path", "/v2/creatures/srd_goblin/"},
      {"actions",
       json::array(
           {{{"name", "Curse"},
             {"desc",
              "The goblin curses one creature, which suffers one of the following effects: Sickly. The target "
              "has disadvantage on Constitution saving throws."}},
            {{"name", "Scimitar"}, {"desc", "Melee Weapon Attack: +4 to hit, reach 5 ft., one target. Hit: 5."}}})},
      {"special_abilities",
       json::array({{{"name", "If its creator calls, it can try to calm it by making a DC 15 Persuasion check"},
                     {"desc", "On a success, it calms."}},
                    // A shorter v1 text, and one that is not v2's continued, change nothing.
                    {{"name", "Nimble Escape"}, {"desc", "The goblin can take the Disengage"}}})}};
  ctx.v1_monsters["srd_goblin"] = v1;
  auto e = map_v2_record(endpoint("creatures"), v2, ctx);
  ASSERT_TRUE(e.is_ok()) << e.status().to_string();
  auto action = [&](const std::string& name) {
    for (const auto& a : e->data["actions"]) {
      if (a.value("name", "") == name) return a;
    }
    ADD_FAILURE() << "no action " << name << " in " << e->data["actions"];
    return json::object();
  };
  const json curse = action("Curse");
  EXPECT_NE(curse.value("desc", "").find("Sickly. The target has disadvantage"), std::string::npos) << curse;
  const json scimitar = action("Scimitar");
  EXPECT_EQ(scimitar.value("desc", "").find("Melee Weapon Attack: +4 to hit, reach 5 ft., one target. Hit: 5."),
            std::string::npos)
      << "a v1 text that is not v2's continued keeps v2's: " << scimitar;
  ASSERT_EQ(e->data["traits"].size(), 2u) << e->data["traits"];
  EXPECT_EQ(e->data["traits"][0].value("name", ""),
            "If its creator calls, it can try to calm it by making a DC 15 Persuasion check");
  EXPECT_EQ(e->data["traits"][1].value("desc", ""), "The goblin can take the Disengage action.");
}

// Tome of Heroes' Shade has no traits in v2 and Level Up's backgrounds no description: the v1 record of the same
// name in the same book gives them, and is kept beside the v2 record.
TEST(Mapper, ASpeciesOrBackgroundV2LeavesEmptyIsCompletedFromV1) {
  MappingContext ctx = context();
  const json race = {
      {"name", "High Elf"},
      {"document__slug", "wotc-srd"},
      {"desc", "Elves are a magical people."},
      {"asi_desc", "***Ability Score Increase.*** Your Intelligence score increases by 1."},
      {"age", "**_Age._** Elves can live to be 750 years old."},
      {"size", "Your size is Medium."},
      {"traits", "***Ghostly Flesh.*** You can fly.\n\n**Table**\n\n| a | b |\n\n***Life Drain.*** You drain."},
      {"speed", {{"walk", 30}}}};
  EXPECT_TRUE(note_v1_lore(race, Kind::kSpecies, ctx));
  EXPECT_FALSE(note_v1_lore(race, Kind::kSpell, ctx));
  json nameless = race;
  nameless["name"] = " ";
  EXPECT_FALSE(note_v1_lore(nameless, Kind::kSpecies, ctx));
  json elsewhere = race;
  elsewhere["document__slug"] = "a-book-v2-lacks";
  EXPECT_FALSE(note_v1_lore(elsewhere, Kind::kSpecies, ctx));

  json v2 = record("species", "srd_high-elf");
  v2["traits"] = json::array();
  auto e = map_v2_record(endpoint("species"), v2, ctx);
  ASSERT_TRUE(e.is_ok()) << e.status().to_string();
  std::vector<std::pair<std::string, std::string>> traits;
  for (const auto& t : e->data["traits"]) traits.push_back({t.value("name", ""), t.value("desc", "")});
  using P = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(traits, (P{{"Ability Score Increase", "Your Intelligence score increases by 1."},
                       {"Age", "Elves can live to be 750 years old."},
                       {"Size", "Your size is Medium."},
                       {"Ghostly Flesh", "You can fly.\n\n**Table**\n\n| a | b |"},
                       {"Life Drain", "You drain."}}));
  EXPECT_EQ(e->raw[kRawV1]["name"], "High Elf");
  EXPECT_EQ(e->raw[kRawV2]["key"], "srd_high-elf");
  EXPECT_NE(e->text.find("Ghostly Flesh. You can fly."), std::string::npos);
  // v2's own traits are kept, and the record stays the v2 record alone.
  auto own = map_v2_record(endpoint("species"), record("species", "srd_high-elf"), ctx);
  ASSERT_TRUE(own.is_ok());
  auto without_v1 = map_v2_record(endpoint("species"), record("species", "srd_high-elf"), context());
  ASSERT_TRUE(without_v1.is_ok());
  EXPECT_EQ(own->data["traits"], without_v1->data["traits"]);
  EXPECT_FALSE(own->raw.contains(kRawV1));

  const json background = {{"name", "Acolyte"}, {"document__slug", "wotc-srd"}, {"desc", "You have spent your life."}};
  EXPECT_TRUE(note_v1_lore(background, Kind::kBackground, ctx));
  json bare = record("backgrounds", "srd_acolyte");
  bare["desc"] = "";
  auto b = map_v2_record(endpoint("backgrounds"), bare, ctx);
  ASSERT_TRUE(b.is_ok()) << b.status().to_string();
  EXPECT_EQ(b->data.value("desc", ""), "You have spent your life.");
  EXPECT_EQ(b->raw[kRawV1]["desc"], "You have spent your life.");
}

TEST(Mapper, RulesResolveTheirDocumentAndSection) {
  MappingContext ctx = context();
  ctx.rule_section_names["srd_attacking"] = "Attacking";
  auto e = map_v2_record(endpoint("rules"), record("rules", "srd_attacking_opportunity-attacks"), ctx);
  ASSERT_TRUE(e.is_ok()) << e.status().to_string();
  EXPECT_EQ(e->document.key, "srd-2014");
  EXPECT_EQ(e->document.name, "System Reference Document 5.1");
  EXPECT_EQ(e->facets.section, "combat attacking");
  EXPECT_EQ(e->facets.parent_key, "srd_attacking");
}

TEST(Mapper, AMisnamedRuleTakesItsNameFromItsKey) {
  // As the API has them: the 2014 SRD's rule of spells cast as reactions is named "Bonus Action", beside the rule
  // that is; the coins' exchange rates are named "Training", beside the rule of training in another ruleset.
  auto rule = [](const std::string& key, const std::string& name, const std::string& ruleset) {
    return json{{"key", key},           {"name", name},
                {"desc", "Some text."}, {"document", "srd-2014"},
                {"ruleset", ruleset},   {"crossreferences", {{"to", json::array()}}}};
  };
  auto ruleset = [](const std::string& key, const std::vector<json>& rules) {
    return json{{"key", key}, {"name", key}, {"desc", ""}, {"document", {{"key", "srd-2014"}}}, {"rules", rules}};
  };
  const json bonus = rule("srd_spellcasting_bonus-action", "Bonus Action", "srd_spellcasting");
  const json reactions = rule("srd_spellcasting_reactions", "Bonus Action", "srd_spellcasting");
  const json training = rule("srd_between-adventures_training", "Training", "srd_between-adventures");
  const json rates = rule("srd_coins_exchange-rates", "Training", "srd_coins");
  const json objects = rule("srd_actions-in-combat_use-an-object", "Search", "srd_actions-in-combat");
  const json search = rule("srd_actions-in-combat_search", "Search", "srd_actions-in-combat");
  // Three rules rightly named "Speed", and one whose name spells another key but that no other rule has.
  const json speed1 = rule("srd_movement_speed", "Speed", "srd_movement");
  const json speed2 = rule("srd_race_speed", "Speed", "srd_race");
  const json doffing = rule("srd_armor_donning-and-doffing", "Getting Into and Out of Armor", "srd_armor");
  MappingContext ctx = context();
  note_ruleset(ruleset("srd_spellcasting", {bonus, reactions}), ctx);
  note_ruleset(ruleset("srd_between-adventures", {training}), ctx);
  note_ruleset(ruleset("srd_coins", {rates}), ctx);
  note_ruleset(ruleset("srd_actions-in-combat", {search, objects}), ctx);
  note_ruleset(ruleset("srd_movement", {speed1}), ctx);
  note_ruleset(ruleset("srd_race", {speed2}), ctx);
  note_ruleset(ruleset("srd_armor", {doffing}), ctx);
  auto name_of = [&](const json& rec) {
    auto e = map_v2_record(endpoint("rules"), rec, ctx);
    EXPECT_TRUE(e.is_ok()) << e.status().to_string();
    return e.is_ok() ? e->name : std::string();
  };
  EXPECT_EQ(name_of(reactions), "Reactions");
  EXPECT_EQ(name_of(bonus), "Bonus Action");
  EXPECT_EQ(name_of(rates), "Exchange Rates");
  EXPECT_EQ(name_of(training), "Training");
  EXPECT_EQ(name_of(objects), "Use an Object");
  EXPECT_EQ(name_of(search), "Search");
  EXPECT_EQ(name_of(speed1), "Speed");
  EXPECT_EQ(name_of(speed2), "Speed");
  EXPECT_EQ(name_of(doffing), "Getting Into and Out of Armor");
  // Without the rulesets read (nothing to compare with), names are kept.
  auto bare = map_v2_record(endpoint("rules"), reactions, context());
  ASSERT_TRUE(bare.is_ok());
  EXPECT_EQ(bare->name, "Bonus Action");
}

TEST(Mapper, MalformedRulesetListsRepairNothing) {
  // Rulesets whose rule lists are missing, not lists, or hold entries without a key or name note nothing, and a
  // rule mapped after them keeps the API's name.
  MappingContext ctx = context();
  const json doc = {{"key", "srd-2014"}};
  for (const json& rules : {json(), json("rules"), json::object(), json::array({json(), json(7), json("x")}),
                            json::array({json{{"name", "Bonus Action"}}, json{{"key", "srd_x_bonus-action"}}}),
                            json::array({json{{"key", ""}, {"name", "Bonus Action"}}})}) {
    note_ruleset({{"key", "srd_x"}, {"name", "X"}, {"document", doc}, {"rules", rules}}, ctx);
  }
  note_ruleset({{"key", "srd_y"}, {"rules", json::array({json{{"key", "srd_y_a"}, {"name", "A"}}})}},
               ctx);  // no document
  note_ruleset(json::array(), ctx);
  note_ruleset(json(), ctx);
  EXPECT_TRUE(ctx.rule_names.empty());
  const json rule = {{"key", "srd_x_reactions"}, {"name", "Bonus Action"},
                     {"desc", "Some text."},     {"document", "srd-2014"},
                     {"ruleset", "srd_x"},       {"crossreferences", {{"to", json::array()}}}};
  auto e = map_v2_record(endpoint("rules"), rule, ctx);
  ASSERT_TRUE(e.is_ok()) << e.status().to_string();
  EXPECT_EQ(e->name, "Bonus Action");
}

TEST(Mapper, ReferenceKindsWithoutNamesOrDocuments) {
  auto al = map_v2_record(endpoint("alignments"), record("alignments", "chaotic-evil"), context());
  ASSERT_TRUE(al.is_ok()) << al.status().to_string();
  EXPECT_EQ(al->name, "Chaotic Evil");
  auto rarity = map_v2_record(endpoint("itemrarities"), record("itemrarities", "very-rare"), context());
  ASSERT_TRUE(rarity.is_ok());
  EXPECT_EQ(rarity->document.key, "core");
}

TEST(Mapper, RejectsRecordsItCannotMap) {
  const MappingContext ctx = context();
  EXPECT_FALSE(map_v2_record(endpoint("spells"), json::array(), ctx).is_ok());
  EXPECT_FALSE(map_v2_record(endpoint("spells"), json{{"name", "No Key"}}, ctx).is_ok());
  auto r = map_v2_record(endpoint("spells"), json{{"key", "x"}, {"name", "X"}}, ctx);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("document"), std::string::npos);
}

std::unique_ptr<store::Store> fresh_store(const std::string& dir) {
  auto st = store::Store::open(dir + "/s.db", store::Store::Mode::kReadWrite);
  EXPECT_TRUE(st.is_ok());
  return std::move(*st);
}

TEST(Sync, LoadsEveryFixtureRecordFollowingNext) {
  auto st = fresh_store(testing::temp_dir());
  auto source = make_directory_source(testing::fixture_mirror());
  int progress_calls = 0;
  SyncOptions options;
  options.progress = [&](const std::string&, int, int, int) { ++progress_calls; };
  auto report = sync(*source, *st, options);
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  EXPECT_TRUE(report->skipped.empty());
  EXPECT_TRUE(report->failed.empty());
  EXPECT_TRUE(report->missing_endpoints.empty()) << text::join(report->missing_endpoints, ", ");
  EXPECT_EQ(report->records.at("v2/spells"), 16);  // two pages, followed through `next`
  EXPECT_EQ(report->entities.at("spell"), 16);
  EXPECT_GT(progress_calls, 25);
  auto stats = st->stats();
  ASSERT_TRUE(stats.is_ok());
  EXPECT_EQ(stats->total, report->total_entities());
  EXPECT_TRUE(stats->meta.count("synced_at:open5e"));
  EXPECT_TRUE(stats->meta.count("sync_report:open5e"));
}

TEST(Sync, GearItemsFoldIntoTheirWeaponOrArmor) {
  auto st = fresh_store(testing::temp_dir());
  auto report = sync(*make_directory_source(testing::fixture_mirror()), *st, SyncOptions{});
  ASSERT_TRUE(report.is_ok());
  EXPECT_EQ(report->merged_items, 2);
  EXPECT_EQ(report->entities.at("item"), 4 + 4);  // and the four services
  EXPECT_TRUE(st->get("srd_longsword", model::Kind::kItem, false)->empty());
  auto sword = st->get("srd_longsword", model::Kind::kWeapon, false);
  ASSERT_EQ(sword->size(), 1u);
  EXPECT_EQ((*sword)[0].data["cost_gp"], 15);
  EXPECT_EQ((*sword)[0].data["weight"], 3);
  auto plate = st->get("srd_plate", model::Kind::kArmor, false);
  ASSERT_EQ(plate->size(), 1u);
  EXPECT_EQ((*plate)[0].data["cost_gp"], 1500);
}

TEST(Sync, ReadsV1OnlyForWhatV2Lacks) {
  auto st = fresh_store(testing::temp_dir());
  auto source = make_directory_source(testing::fixture_mirror());
  auto report = sync(*source, *st, SyncOptions{});
  ASSERT_TRUE(report.is_ok());
  // Tome of Heroes weapons, armor and magic items, Level Up (a5e) and Tal'Dorei magic items exist only in v1;
  // the SRD longsword, longbow, dagger, plate and bag of holding and the Vault of Magic item are already in v2.
  EXPECT_EQ(report->v1_covered, 6);
  auto toh = st->get("axespear", model::Kind::kWeapon, false);
  ASSERT_TRUE(toh.is_ok());
  ASSERT_EQ(toh->size(), 1u);
  EXPECT_EQ((*toh)[0].source_api, "open5e_v1");
  EXPECT_EQ((*toh)[0].document.key, "toh");  // attributed to the v2 document of the same book
  EXPECT_EQ((*toh)[0].url, "https://api.open5e.com/v1/weapons/axespear/");
  EXPECT_EQ((*toh)[0].data["properties"][0]["name"], "double-headed");
  EXPECT_EQ((*toh)[0].data["properties"][0]["detail"], "1d4");
  auto a5e = st->get("orb-of-the-dragon-breaker-a5e", model::Kind::kMagicItem, false);
  ASSERT_EQ(a5e->size(), 1u);
  EXPECT_EQ((*a5e)[0].document.key, "a5e");
  EXPECT_EQ((*a5e)[0].document.game_system, "a5e");
  EXPECT_EQ((*a5e)[0].facets.rarity, "rare");
  auto skysail = st->get("skysail", model::Kind::kMagicItem, false);
  ASSERT_EQ(skysail->size(), 1u);
  EXPECT_EQ((*skysail)[0].document.key, "tdcs");
  EXPECT_TRUE(st->get("bag-of-holding", model::Kind::kMagicItem, false)->empty());
  EXPECT_TRUE(st->get("longsword", model::Kind::kWeapon, false)->empty());
}

// A source that serves the fixture mirror but fails on chosen endpoints.
class FailingSource : public PageSource {
 public:
  FailingSource(std::string dir, std::string fail_prefix, Status error)
      : inner_(make_directory_source(dir)), fail_(std::move(fail_prefix)), error_(std::move(error)) {}
  Result<std::string> get(const std::string& request) override {
    if (!fail_.empty() && request.rfind(fail_, 0) == 0) return error_;
    return inner_->get(request);
  }
  std::string describe() const override { return "failing source"; }

 private:
  std::unique_ptr<PageSource> inner_;
  std::string fail_;
  Status error_;
};

std::string legendary_desc(store::Store& st, const std::string& key) {
  auto got = st.get(key, model::Kind::kCreature, false);
  if (!got.is_ok() || got->size() != 1) return "<no " + key + ">";
  const auto& d = (*got)[0].data;
  return d.contains("legendary_desc") ? d["legendary_desc"].get<std::string>() : "";
}

// A v1 list read before the v2 lists (`endpoint`: "v1/monsters") failing with HTTP 503, then skipped after a recent
// failure: each sync of `st` succeeds and reports it once (it is not tried again with the other v1 lists), and
// `kept()` checks that what the list gave is still stored.
void resync_while_unreadable(store::Store& st, const std::string& endpoint, const std::function<void()>& kept) {
  FailingSource down(testing::fixture_mirror(), endpoint + "/", Status::unavailable("HTTP 503"));
  auto report = sync(down, st, SyncOptions{});
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  ASSERT_EQ(report->failed.size(), 1u);
  EXPECT_EQ(report->failed[0].endpoint, endpoint);
  kept();
  SyncOptions skip;
  skip.skip_endpoints = {endpoint};
  report = sync(*make_directory_source(testing::fixture_mirror()), st, skip);
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  EXPECT_EQ(report->skipped_recent_failures, std::vector<std::string>{endpoint});
  kept();
}

// A fresh store synced from a source without `endpoint` (an API that dropped v1): a missing list, not a failure.
std::unique_ptr<store::Store> synced_without(const std::string& endpoint) {
  auto fresh = fresh_store(testing::temp_dir());
  FailingSource v2_only(testing::fixture_mirror(), endpoint + "/", Status::not_found("HTTP 404"));
  auto report = sync(v2_only, *fresh, SyncOptions{});
  EXPECT_TRUE(report.is_ok()) << report.status().to_string();
  if (report.is_ok()) {
    EXPECT_TRUE(report->failed.empty());
    EXPECT_EQ(report->missing_endpoints, std::vector<std::string>{endpoint});
  }
  return fresh;
}

TEST(Sync, CreaturesGetTheLegendaryPreambleOnlyV1Carries) {
  auto st = fresh_store(testing::temp_dir());
  auto report = sync(*make_directory_source(testing::fixture_mirror()), *st, SyncOptions{});
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  EXPECT_EQ(report->records.at("v1/monsters"), 11);  // those converted to the fixture's creatures
  EXPECT_EQ(report->entities.count("creature") ? report->entities.at("creature") : 0, 13);  // v1 adds no creature
  const std::string dragon = legendary_desc(*st, "srd_adult-red-dragon");
  EXPECT_EQ(dragon.rfind("The dragon can take 3 legendary actions", 0), 0u) << dragon;
  EXPECT_EQ(legendary_desc(*st, "srd_lich").rfind("The lich can take 3 legendary actions", 0), 0u);
  EXPECT_EQ(legendary_desc(*st, "srd_goblin"), "");                 // its v1 record has none
  EXPECT_EQ(legendary_desc(*st, "srd-2024_adult-red-dragon"), "");  // no v1 record converts to it
  EXPECT_TRUE(st->get("adult-red-dragon", model::Kind::kCreature, false)->empty());

  auto subcategory = [&](store::Store& s, const std::string& key) {
    auto got = s.get(key, model::Kind::kCreature, false);
    return got.is_ok() && got->size() == 1 ? (*got)[0].data.value("subcategory", "") : "<no " + key + ">";
  };
  EXPECT_EQ(subcategory(*st, "srd_goblin"), "goblinoid");  // v1's subtype

  // The list failing, or skipped after a recent failure, keeps what the stored creatures took from it.
  ASSERT_NO_FATAL_FAILURE(resync_while_unreadable(*st, "v1/monsters", [&] {
    EXPECT_EQ(legendary_desc(*st, "srd_adult-red-dragon"), dragon);
    EXPECT_EQ(subcategory(*st, "srd_goblin"), "goblinoid");
  }));

  // A source without the list (an API that dropped v1) is a missing list on a fresh store, not a failure.
  auto fresh = synced_without("v1/monsters");
  EXPECT_EQ(legendary_desc(*fresh, "srd_adult-red-dragon"), "");
  EXPECT_EQ(subcategory(*fresh, "srd_goblin"), "");
  EXPECT_EQ(fresh->stats()->per_kind, st->stats()->per_kind);
}

TEST(Sync, Srd52ServicesAreItemsWithWhatTheirCostIsFor) {
  auto st = fresh_store(testing::temp_dir());
  auto report = sync(*make_directory_source(testing::fixture_mirror()), *st, SyncOptions{});
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  EXPECT_EQ(report->records.at("v2/services"), 4);
  auto item = [](store::Store& s, const std::string& key) {
    auto got = s.get(key, model::Kind::kItem, false);
    return got.is_ok() && got->size() == 1 ? (*got)[0].data : json{{"missing", key}};
  };
  const json lodging = item(*st, "srd-2024_lodging-comfortable");
  EXPECT_EQ(lodging.value("category", ""), "Service");
  EXPECT_EQ(lodging.value("cost_gp", 0.0), 0.8);
  EXPECT_EQ(lodging.value("cost_per", ""), "per day");
  EXPECT_EQ(item(*st, "srd-2024_spellcasting-level-3").value("cost_gp", 0.0), 300);
  EXPECT_FALSE(item(*st, "srd-2024_spellcasting-level-3").contains("cost_per"));  // the record's "None"
  EXPECT_EQ(item(*st, "srd-2024_messenger").value("cost_per", ""), "per mile");
  // The list failing, or skipped after a recent failure, keeps the stored services; a source without it has none.
  ASSERT_NO_FATAL_FAILURE(resync_while_unreadable(
      *st, "v2/services", [&] { EXPECT_EQ(item(*st, "srd-2024_lodging-comfortable"), lodging); }));
  auto without = synced_without("v2/services");
  EXPECT_TRUE(item(*without, "srd-2024_lodging-comfortable").contains("missing"));
}

TEST(Sync, ASpeciesOrBackgroundV2LeavesEmptyTakesV1s) {
  auto st = fresh_store(testing::temp_dir());
  auto report = sync(*make_directory_source(testing::fixture_mirror()), *st, SyncOptions{});
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  EXPECT_EQ(report->records.at("v1/backgrounds"), 2);
  EXPECT_EQ(report->records.at("v1/races"), 5);
  auto desc = [](store::Store& s, const std::string& key) {
    auto got = s.get(key, model::Kind::kBackground, false);
    return got.is_ok() && got->size() == 1 ? (*got)[0].data.value("desc", "") : "<no " + key + ">";
  };
  const std::string sage = desc(*st, "a5e-ag_sage");
  EXPECT_NE(sage.find("You are"), std::string::npos) << sage;  // Level Up's Sage, from v1
  // SRD 5.1's Acolyte has its own description, and the species have their own traits: v1 changes neither.
  auto plain = synced_without("v1/backgrounds");
  EXPECT_EQ(desc(*plain, "a5e-ag_sage"), "");
  EXPECT_EQ(desc(*plain, "srd_acolyte"), desc(*st, "srd_acolyte"));
  auto no_races = synced_without("v1/races");
  for (const std::string key : {"srd_elf", "srd_high-elf", "srd_dwarf"}) {
    auto a = st->get(key, model::Kind::kSpecies, false);
    auto b = no_races->get(key, model::Kind::kSpecies, false);
    ASSERT_TRUE(a.is_ok() && b.is_ok() && a->size() == 1 && b->size() == 1) << key;
    EXPECT_EQ((*a)[0].data, (*b)[0].data) << key;
  }
  // Tome of Heroes' Shade has no traits in v2: its v1 race's.
  auto traits = [](store::Store& s) {
    auto got = s.get("toh_shade", model::Kind::kSpecies, false);
    return got.is_ok() && got->size() == 1 ? (*got)[0].data.value("traits", json::array()) : json::array();
  };
  const json shade = traits(*st);
  ASSERT_GT(shade.size(), 8u) << shade;
  EXPECT_EQ(shade[0].value("name", ""), "Ability Score Increase");
  EXPECT_TRUE(traits(*no_races).empty());
  // Either list failing, or skipped after a recent failure, keeps what the stored entities took from it.
  ASSERT_NO_FATAL_FAILURE(
      resync_while_unreadable(*st, "v1/backgrounds", [&] { EXPECT_EQ(desc(*st, "a5e-ag_sage"), sage); }));
  ASSERT_NO_FATAL_FAILURE(resync_while_unreadable(*st, "v1/races", [&] { EXPECT_EQ(traits(*st), shade); }));
}

std::vector<std::string> stored_properties(store::Store& st, const std::string& key) {
  auto got = st.get(key, model::Kind::kWeapon, false);
  if (!got.is_ok() || got->size() != 1) return {"<no " + key + ">"};
  return property_list((*got)[0].data["properties"]);
}

TEST(Sync, Srd51WeaponsTakeTheirPropertiesFromTheSrdTableV1Carries) {
  using V = std::vector<std::string>;
  const V table = {"Ammunition (range 150/600)", "Heavy", "Two-Handed"};
  auto st = fresh_store(testing::temp_dir());
  auto report = sync(*make_directory_source(testing::fixture_mirror()), *st, SyncOptions{});
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  EXPECT_EQ(stored_properties(*st, "srd_longbow"), table);
  EXPECT_EQ(stored_properties(*st, "srd_dagger"), (V{"Finesse", "Light", "Thrown (range 20/60)"}));
  EXPECT_TRUE(report->failed.empty());

  // The list failing, or skipped after a recent failure, keeps the stored properties (and v1's own weapons).
  ASSERT_NO_FATAL_FAILURE(resync_while_unreadable(*st, "v1/weapons", [&] {
    EXPECT_EQ(stored_properties(*st, "srd_longbow"), table);
    EXPECT_EQ(st->get("axespear", model::Kind::kWeapon, false)->size(), 1u);
  }));

  // Without the list on a fresh store, the weapons are v2's.
  auto fresh = synced_without("v1/weapons");
  EXPECT_EQ(stored_properties(*fresh, "srd_longbow"), (V{"Ammunition (range 150/600)", "Two-Handed"}));
}

json stored_classes(store::Store& st, const std::string& key) {
  auto got = st.get(key, model::Kind::kSpell, false);
  if (!got.is_ok() || got->size() != 1) return "<no " + key + ">";
  return (*got)[0].data["classes"];
}

TEST(Sync, Srd51SpellsGainThePaladinV1Names) {
  const json cure = {"Bard", "Cleric", "Druid", "Ranger", "Paladin"};
  auto st = fresh_store(testing::temp_dir());
  auto report = sync(*make_directory_source(testing::fixture_mirror()), *st, SyncOptions{});
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  EXPECT_EQ(report->records.at("v1/spells"), 13);  // those of the fixture's spells
  EXPECT_EQ(stored_classes(*st, "srd_cure-wounds"), cure);
  EXPECT_EQ(stored_classes(*st, "srd_shield-of-faith"), json({"Cleric", "Paladin"}));
  EXPECT_EQ(stored_classes(*st, "srd_hold-person"), json({"Bard", "Cleric", "Druid", "Sorcerer", "Warlock", "Wizard"}));
  EXPECT_EQ(report->entities.at("spell"), 16);  // v1's spells add no spell

  // The list failing, or skipped, keeps the stored class lists.
  ASSERT_NO_FATAL_FAILURE(
      resync_while_unreadable(*st, "v1/spells", [&] { EXPECT_EQ(stored_classes(*st, "srd_cure-wounds"), cure); }));

  // Without the list on a fresh store, the spells are v2's.
  auto fresh = synced_without("v1/spells");
  EXPECT_EQ(stored_classes(*fresh, "srd_cure-wounds"), json({"Bard", "Cleric", "Druid", "Ranger"}));
}

// v1's fuller range stays while /v1/spells/ cannot be read, for a spell no class list names (four Deep Magic spells:
// "Self (15-foot cone)" where v2 says "Self").
TEST(Sync, AStoredSpellKeepsV1sRangeWhileV1SpellsIsUnreadableThoughItHasNoClass) {
  const std::string dir = testing::temp_dir();
  fs::copy(testing::fixture_mirror(), dir + "/mirror", fs::copy_options::recursive);
  auto edit = [&](const std::string& page, const std::function<void(json&)>& change) {
    json listing = json::parse(testing::read_file(dir + "/mirror/" + page));
    for (auto& r : listing["results"]) change(r);
    testing::write_file(dir + "/mirror/" + page, listing.dump());
  };
  for (const char* page : {"v2/spells/limit=100.json", "v2/spells/limit=100&page=2.json"}) {
    edit(page, [](json& r) {
      if (r["key"] == "deepmx_shield-of-star-and-shadow") r["classes"] = json::array();
    });
  }
  edit("v1/spells/limit=100.json", [](json& r) {
    if (r["slug"] != "shield-of-star-and-shadow") return;
    r["dnd_class"] = "";
    r["range"] = "Self (15-foot cone)";
  });
  auto range = [](store::Store& st) {
    auto got = st.get("deepmx_shield-of-star-and-shadow", model::Kind::kSpell, false);
    return got.is_ok() && got->size() == 1 ? (*got)[0].data.value("range", "") : "<none>";
  };
  auto st = fresh_store(dir);
  ASSERT_TRUE(sync(*make_directory_source(dir + "/mirror"), *st, SyncOptions{}).is_ok());
  ASSERT_EQ(range(*st), "Self (15-foot cone)");
  EXPECT_EQ(stored_classes(*st, "deepmx_shield-of-star-and-shadow"), json::array());
  FailingSource down(dir + "/mirror", "v1/spells/", Status::unavailable("HTTP 503"));
  auto report = sync(down, *st, SyncOptions{});
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  ASSERT_EQ(report->failed.size(), 1u);
  EXPECT_EQ(range(*st), "Self (15-foot cone)");
}

// The sync applies the corrections file's entries to the records it maps, keeps each record as sent, marks the
// answer, takes back an entry whose evidence (read later, in v1's list) does not hold, and reports every entry it
// did not apply with why.
TEST(Sync, CorrectionsApplyWhileTheRecordAndTheEvidenceSayWhatTheEntrySays) {
  auto entry = [](const std::string& record, const std::string& evidence_rarity) {
    return json{
        {"record", record},
        {"field", "rarity"},
        {"was", {{"name", "Uncommon"}, {"key", "uncommon"}, {"rank", 2}}},
        {"value", {{"name", "Rare"}, {"key", "rare"}, {"rank", 3}}},
        {"evidence",
         json::array({{{"record", "v1/magicitems/bag-of-holding"}, {"field", "rarity"}, {"equals", evidence_rarity}}})},
        {"reason", "a test"}};
  };
  json stale = entry("v2/spells/srd_fireball", "uncommon");
  stale["field"] = "level";
  stale["was"] = 9;
  stale["value"] = 3;
  json gear = entry("v2/items/srd_torch", "uncommon");
  auto corrections =
      parse_corrections(json::array({entry("v2/magicitems/srd_bag-of-holding", "uncommon"),
                                     entry("v2/magicitems/srd_cloak-of-elvenkind", "legendary"), stale, gear})
                            .dump());
  ASSERT_TRUE(corrections.is_ok()) << corrections.status().to_string();
  SyncOptions options;
  options.corrections = &*corrections;
  auto st = fresh_store(testing::temp_dir());
  auto report = sync(*make_directory_source(testing::fixture_mirror()), *st, options);
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  EXPECT_EQ(report->corrections, 1);
  EXPECT_EQ(report->corrections_unapplied,
            (std::vector<std::string>{
                "v2/items/srd_torch rarity: its list is not one the corrections apply to",
                "v2/magicitems/srd_cloak-of-elvenkind rarity: its evidence no longer holds: v1/magicitems "
                "bag-of-holding: rarity is \"legendary\"",
                "v2/spells/srd_fireball level: the record no longer has the value it corrects"}));
  auto bag = st->get("srd_bag-of-holding", model::Kind::kMagicItem, true);
  ASSERT_EQ(bag->size(), 1u);
  EXPECT_EQ((*bag)[0].data.value("rarity", ""), "Rare");
  EXPECT_EQ((*bag)[0].data["corrections"][0]["field"], "rarity");
  EXPECT_EQ((*bag)[0].raw["rarity"]["name"], "Uncommon");  // the record as sent
  // Taken back: mapped again as sent, without a mark.
  auto cloak = st->get("srd_cloak-of-elvenkind", model::Kind::kMagicItem, true);
  ASSERT_EQ(cloak->size(), 1u);
  EXPECT_EQ((*cloak)[0].data.value("rarity", ""), "Uncommon");
  EXPECT_FALSE((*cloak)[0].data.contains("corrections"));
  EXPECT_EQ(report->entities, sync(*make_directory_source(testing::fixture_mirror()), *st, SyncOptions{})->entities);

  // A list that fails part-way writes nothing: an entry applied on its first page, whose evidence is on the page
  // that failed, is not taken back into the store.
  json ritual = entry("v2/spells/srd_fireball", "uncommon");
  ritual["field"] = "ritual";
  ritual["was"] = false;
  ritual["value"] = true;
  ritual["evidence"] = json::array({{{"record", "v2/spells/srd_wish"}, {"field", "name"}, {"equals", "Wish"}}});
  auto partial = parse_corrections(json::array({ritual}).dump());
  ASSERT_TRUE(partial.is_ok()) << partial.status().to_string();
  options.corrections = &*partial;
  auto fresh = fresh_store(testing::temp_dir());
  FailingSource second_page(testing::fixture_mirror(), "v2/spells/?limit=100&page=2", Status::unavailable("HTTP 503"));
  report = sync(second_page, *fresh, options);
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  ASSERT_EQ(report->failed.size(), 1u);
  EXPECT_EQ(report->failed[0].endpoint, "v2/spells");
  EXPECT_EQ(fresh->get("srd_fireball", model::Kind::kSpell, false)->size(), 0u);
  EXPECT_EQ(report->corrections, 0);
  EXPECT_TRUE(report->corrections_unapplied.empty());
}

std::string rule_text(store::Store& st, const std::string& key) {
  auto got = st.get(key, model::Kind::kRule, false);
  if (!got.is_ok() || got->size() != 1) return "<no " + key + ">";
  return (*got)[0].data.value("desc", "");
}

TEST(Sync, Srd51RulesOnlyV1sChaptersHoldAreRules) {
  auto st = fresh_store(testing::temp_dir());
  auto report = sync(*make_directory_source(testing::fixture_mirror()), *st, SyncOptions{});
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  EXPECT_EQ(report->records.at("v1/sections"), 2);
  const std::string death = rule_text(*st, "srd_damage-and-healing_death-saving-throws");
  EXPECT_EQ(death.rfind("Whenever you start your turn with 0 hit points", 0), 0u) << death;
  EXPECT_NE(rule_text(*st, "srd_rest_long-rest").find("a period of extended downtime, at least 8 hours long"),
            std::string::npos);
  auto got = st->get("srd_damage-and-healing_death-saving-throws", model::Kind::kRule, false);
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0].document.key, "srd-2014");
  EXPECT_EQ((*got)[0].source_api, "open5e_v1");
  EXPECT_EQ((*got)[0].url, "https://api.open5e.com/v1/sections/damage-and-healing/");

  // The list failing, or skipped, keeps the stored rules; a fresh store without it has none of them.
  ASSERT_NO_FATAL_FAILURE(resync_while_unreadable(
      *st, "v1/sections", [&] { EXPECT_EQ(rule_text(*st, "srd_damage-and-healing_death-saving-throws"), death); }));
  auto fresh = synced_without("v1/sections");
  EXPECT_EQ(rule_text(*fresh, "srd_damage-and-healing_death-saving-throws"),
            "<no srd_damage-and-healing_death-saving-throws>");
  // v2's rules failing: which chapters' rules v2 lacks is unknown, so the stored ones stay and none is written.
  FailingSource no_rules(testing::fixture_mirror(), "v2/rules/", Status::unavailable("HTTP 503"));
  report = sync(no_rules, *st, SyncOptions{});
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  EXPECT_EQ(rule_text(*st, "srd_damage-and-healing_death-saving-throws"), death);
}

TEST(Mapper, AV1ChapterGivesTheRulesNoV2TextHolds) {
  MappingContext ctx = context();
  ctx.rule_section_names["srd_damage-and-healing"] = "Damage and Healing";
  const json chapter = {{"slug", "damage-and-healing"},
                        {"name", "Damage and Healing"},
                        {"document__slug", "wotc-srd"},
                        {"desc",
                         "Intro.\n\n## Healing\n\nRest can restore a creature's hit points.\n\n"
                         "## Dropping to 0 Hit Points\n\nWhen you drop to 0 hit points, you either die "
                         "outright or fall unconscious.\n\n### Instant Death\n\nMassive damage can kill you "
                         "instantly.\n\n## Empty\n\n### Damage and Healing\n\n| Table | of damage |"}};
  // v2 already holds the Instant Death text (spaces and case aside).
  const std::string covered = squashed("MASSIVE damage can kill you\ninstantly.");
  auto rules = map_v1_section(chapter, ctx, covered);
  std::vector<std::string> keys;
  for (const auto& r : rules) keys.push_back(r.key);
  // The text before the first heading is the section's own, and a heading repeating the section's name goes on in it.
  EXPECT_EQ(keys,
            (std::vector<std::string>{"srd_damage-and-healing_damage-and-healing", "srd_damage-and-healing_healing",
                                      "srd_damage-and-healing_dropping-to-0-hit-points"}));
  ASSERT_EQ(rules.size(), 3u);
  EXPECT_EQ(rules[0].name, "Damage and Healing");
  EXPECT_EQ(rules[0].data["desc"], "Intro.\n\n| Table | of damage |");
  EXPECT_EQ(rules[1].name, "Healing");
  EXPECT_EQ(rules[1].data["desc"], "Rest can restore a creature's hit points.");
  EXPECT_EQ(rules[1].data["section"], "Damage and Healing");
  EXPECT_EQ(rules[1].facets.parent_key, "srd_damage-and-healing");
  EXPECT_EQ(rules[1].document.key, "srd-2014");
  // The SRD's licence is no rule.
  json licence = chapter;
  licence["parent"] = "Legal Information";
  EXPECT_TRUE(map_v1_section(licence, ctx, "").empty());
  // Another document's chapter, or one without a slug, gives nothing.
  json other = chapter;
  other["document__slug"] = "o5e";
  EXPECT_TRUE(map_v1_section(other, ctx, "").empty());
  other = chapter;
  other.erase("slug");
  EXPECT_TRUE(map_v1_section(other, ctx, "").empty());
}

TEST(Sync, AFailingEndpointKeepsItsPreviousData) {
  auto st = fresh_store(testing::temp_dir());
  ASSERT_TRUE(sync(*make_directory_source(testing::fixture_mirror()), *st, SyncOptions{}).is_ok());
  auto before = st->stats();
  FailingSource source(testing::fixture_mirror(), "v2/creatures/", Status::unavailable("HTTP 503"));
  auto report = sync(source, *st, SyncOptions{});
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  ASSERT_EQ(report->failed.size(), 1u);
  EXPECT_EQ(report->failed[0].endpoint, "v2/creatures");
  auto after = st->stats();
  EXPECT_EQ(before->per_kind, after->per_kind);
  EXPECT_EQ(before->total, after->total);
}

TEST(Sync, ATruncatedPageFailsItsEndpointOnly) {
  const std::string dir = testing::temp_dir();
  fs::copy(testing::fixture_mirror(), dir + "/mirror", fs::copy_options::recursive);
  auto st = fresh_store(dir);
  ASSERT_TRUE(sync(*make_directory_source(dir + "/mirror"), *st, SyncOptions{}).is_ok());
  auto before = st->stats();
  const std::string page = dir + "/mirror/v2/spells/limit=100&page=2.json";
  const std::string text = testing::read_file(page);
  testing::write_file(page, text.substr(0, text.size() / 2));
  auto report = sync(*make_directory_source(dir + "/mirror"), *st, SyncOptions{});
  ASSERT_TRUE(report.is_ok());
  ASSERT_EQ(report->failed.size(), 1u);
  EXPECT_EQ(report->failed[0].endpoint, "v2/spells");
  EXPECT_NE(report->failed[0].error.find("page 2"), std::string::npos) << report->failed[0].error;
  auto after = st->stats();
  EXPECT_EQ(before->per_kind, after->per_kind);
}

TEST(Sync, NoDocumentsMeansNothingIsWritten) {
  auto st = fresh_store(testing::temp_dir());
  auto report = sync(*make_directory_source(testing::temp_dir()), *st, SyncOptions{});
  ASSERT_FALSE(report.is_ok());
  EXPECT_EQ(st->stats()->total, 0);
  FailingSource down(testing::fixture_mirror(), "v2/documents/", Status::unavailable("connection refused"));
  report = sync(down, *st, SyncOptions{});
  ASSERT_FALSE(report.is_ok());
  EXPECT_EQ(report.status().code(), StatusCode::kUnavailable);
}

TEST(Sync, RecentlyFailedEndpointsAreSkipped) {
  auto st = fresh_store(testing::temp_dir());
  SyncOptions options;
  options.skip_endpoints = {"v2/spells"};
  auto report = sync(*make_directory_source(testing::fixture_mirror()), *st, options);
  ASSERT_TRUE(report.is_ok());
  EXPECT_EQ(report->skipped_recent_failures, std::vector<std::string>{"v2/spells"});
  EXPECT_EQ(report->entities.count("spell"), 0u);
}

// A source that serves the fixture mirror with chosen pages rewritten: `edit` gets the request and the page's
// JSON and returns the body to serve. Requests are counted.
class RewritingSource : public PageSource {
 public:
  using Edit = std::function<std::optional<std::string>(const std::string& request, json& page)>;
  explicit RewritingSource(Edit edit)
      : inner_(make_directory_source(testing::fixture_mirror())), edit_(std::move(edit)) {}
  Result<std::string> get(const std::string& request) override {
    ++requests[request_path(request).substr(0, request_path(request).find('/', 3))];
    auto body = inner_->get(request);
    json page = body ? json_util::parse(*body, nullptr).value_or(json()) : json();
    if (auto replaced = edit_(request, page)) return *replaced;
    if (page.is_null()) return body;  // not recorded and not made up by the edit
    return json_util::dump(page);
  }
  std::string describe() const override { return "rewriting source"; }
  std::map<std::string, int> requests;

 private:
  std::unique_ptr<PageSource> inner_;
  Edit edit_;
};

bool first_spells_page(const std::string& request) { return recorded_name(request) == "v2/spells/limit=100.json"; }

// The spells' failure (the only one), after a good sync into `st`.
std::string spells_failure(const SyncReport& report) {
  EXPECT_EQ(report.failed.size(), 1u);
  if (report.failed.size() != 1u) return "";
  EXPECT_EQ(report.failed[0].endpoint, "v2/spells");
  return report.failed[0].error;
}

TEST(SyncListings, AnEmptiedListingDoesNotReplaceTheStoredData) {
  auto st = fresh_store(testing::temp_dir());
  ASSERT_TRUE(sync(*make_directory_source(testing::fixture_mirror()), *st, SyncOptions{}).is_ok());
  const auto before = st->stats()->per_kind;
  RewritingSource emptied([](const std::string& request, json& page) -> std::optional<std::string> {
    if (first_spells_page(request))
      page = {{"count", 0}, {"next", nullptr}, {"previous", nullptr}, {"results", json::array()}};
    return std::nullopt;
  });
  auto report = sync(emptied, *st, SyncOptions{});
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  const std::string why = spells_failure(*report);
  EXPECT_NE(why.find("holds 0 records where the stored data came from 16"), std::string::npos) << why;
  EXPECT_NE(why.find("--accept-incomplete"), std::string::npos) << why;
  EXPECT_EQ(st->stats()->per_kind, before);
  // The next sync still compares against the 16 behind the kept data, not against the failed listing.
  report = sync(emptied, *st, SyncOptions{});
  ASSERT_TRUE(report.is_ok());
  EXPECT_EQ(report->failed.size(), 1u);
  // Accepted explicitly, the empty listing is written and the report says so.
  SyncOptions accept;
  accept.accept_incomplete = true;
  report = sync(emptied, *st, accept);
  ASSERT_TRUE(report.is_ok());
  EXPECT_TRUE(report->failed.empty());
  ASSERT_EQ(report->accepted_incomplete.size(), 1u);
  EXPECT_EQ(report->accepted_incomplete[0].endpoint, "v2/spells");
  EXPECT_EQ(st->stats()->per_kind.count("spell"), 0u);
}

TEST(SyncListings, AHostileSourceCannotRatchetTheDataDownSyncAfterSync) {
  auto st = fresh_store(testing::temp_dir());
  ASSERT_TRUE(sync(*make_directory_source(testing::fixture_mirror()), *st, SyncOptions{}).is_ok());
  // A consistent listing of the first page's 10 spells only: more than half of 16, so it is written...
  RewritingSource fewer([](const std::string& request, json& page) -> std::optional<std::string> {
    if (first_spells_page(request)) {
      page["count"] = 10;
      page["next"] = nullptr;
    }
    return std::nullopt;
  });
  auto report = sync(fewer, *st, SyncOptions{});
  ASSERT_TRUE(report.is_ok());
  EXPECT_TRUE(report->failed.empty());
  EXPECT_EQ(report->stored_records.at("v2/spells"), 16) << "the baseline does not fall with it";
  // ... but the next halving is measured against 16, not 10.
  RewritingSource fewer_still([](const std::string& request, json& page) -> std::optional<std::string> {
    if (first_spells_page(request)) {
      page["results"] = json(page["results"].begin(), page["results"].begin() + 6);
      page["count"] = 6;
      page["next"] = nullptr;
    }
    return std::nullopt;
  });
  report = sync(fewer_still, *st, SyncOptions{});
  ASSERT_TRUE(report.is_ok());
  EXPECT_NE(spells_failure(*report).find("holds 6 records where the stored data came from 16"), std::string::npos);
  EXPECT_EQ(st->stats()->per_kind.at("spell"), 10);
}

TEST(SyncListings, AListingOfUnusableRecordsFailsItsEndpoint) {
  for (const bool repeated : {false, true}) {
    SCOPED_TRACE(repeated ? "one key repeated" : "records without keys");
    RewritingSource junk([&](const std::string& request, json& page) -> std::optional<std::string> {
      if (recorded_name(request).rfind("v2/spells/", 0) != 0) return std::nullopt;
      for (auto& r : page["results"]) {
        if (repeated) {
          r = page["results"][0];
        } else {
          r.erase("key");
        }
      }
      return std::nullopt;
    });
    auto st = fresh_store(testing::temp_dir());
    auto report = sync(junk, *st, SyncOptions{});
    ASSERT_TRUE(report.is_ok());
    EXPECT_NE(spells_failure(*report).find("records could not be stored"), std::string::npos);
    EXPECT_EQ(st->stats()->per_kind.count("spell"), 0u);
  }
}

TEST(SyncListings, AnAbsurdCountIsRefusedAtOnce) {
  for (const long long count : {1000000000LL, 9223372036854775807LL}) {
    RewritingSource absurd([&](const std::string& request, json& page) -> std::optional<std::string> {
      if (first_spells_page(request)) page["count"] = count;
      return std::nullopt;
    });
    auto st = fresh_store(testing::temp_dir());
    auto report = sync(absurd, *st, SyncOptions{});
    ASSERT_TRUE(report.is_ok());
    EXPECT_NE(spells_failure(*report).find("more pages than any Open5e list needs"), std::string::npos);
    EXPECT_EQ(absurd.requests["v2/spells"], 1);
  }
}

TEST(SyncListings, AListingShortOfItsCountFailsEvenOnAFreshStore) {
  RewritingSource cut([](const std::string& request, json& page) -> std::optional<std::string> {
    if (first_spells_page(request)) page["next"] = nullptr;  // count still says 16; 10 records served
    return std::nullopt;
  });
  auto st = fresh_store(testing::temp_dir());
  auto report = sync(cut, *st, SyncOptions{});
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  const std::string why = spells_failure(*report);
  EXPECT_NE(why.find("ended after 10 of the 16 records it announced"), std::string::npos) << why;
  EXPECT_EQ(st->stats()->per_kind.count("spell"), 0u);
  SyncOptions accept;
  accept.accept_incomplete = true;
  report = sync(cut, *st, accept);
  ASSERT_TRUE(report.is_ok());
  EXPECT_EQ(st->stats()->per_kind.at("spell"), 10);
}

TEST(SyncListings, AListingThatNeverEndsIsCutOff) {
  for (const bool empty_pages : {false, true}) {
    SCOPED_TRACE(empty_pages ? "empty pages" : "repeated records");
    // Every page of spells is the first one again, with a `next` one page further.
    RewritingSource endless([&](const std::string& request, json& page) -> std::optional<std::string> {
      if (recorded_name(request).rfind("v2/spells/", 0) != 0) return std::nullopt;
      auto first =
          json_util::parse(testing::read_file(testing::fixture_mirror() + "/v2/spells/limit=100.json"), nullptr);
      page = *first;
      static int n = 0;
      page["next"] = "https://api.open5e.com/v2/spells/?limit=100&page=" + std::to_string(1000 + ++n);
      if (empty_pages && !first_spells_page(request)) page["results"] = json::array();
      return std::nullopt;
    });
    auto st = fresh_store(testing::temp_dir());
    auto report = sync(endless, *st, SyncOptions{});
    ASSERT_TRUE(report.is_ok()) << report.status().to_string();
    const std::string why = spells_failure(*report);
    EXPECT_NE(why.find(empty_pages ? "runs past 3 pages" : "runs past its count (20 records of 16)"), std::string::npos)
        << why;
    EXPECT_LE(endless.requests["v2/spells"], 3);
  }
}

TEST(SyncListings, PagesThatContradictTheirListingFailIt) {
  struct Case {
    const char* what;
    std::function<void(const std::string&, json&)> edit;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"next to another endpoint",
       [](const std::string& r, json& p) {
         if (first_spells_page(r)) p["next"] = "https://api.open5e.com/v2/creatures/?limit=100";
       },
       "does not continue v2/spells"},
      {"count changes on page 2",
       [](const std::string& r, json& p) {
         if (recorded_name(r) == "v2/spells/limit=100&page=2.json") p["count"] = 17;
       },
       "count went from 16 to 17"},
      {"no count",
       [](const std::string& r, json& p) {
         if (first_spells_page(r)) p.erase("count");
       },
       "no record count"},
      {"negative count",
       [](const std::string& r, json& p) {
         if (first_spells_page(r)) p["count"] = -5;
       },
       "no record count"},
      {"more records than requested",
       [](const std::string& r, json& p) {
         if (!first_spells_page(r)) return;
         for (int i = 0; i < 95; ++i) p["results"].push_back(p["results"][0]);
         p["count"] = 1000;
       },
       "105 records, more than the 100 requested"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    RewritingSource source([&](const std::string& request, json& page) -> std::optional<std::string> {
      c.edit(request, page);
      return std::nullopt;
    });
    auto st = fresh_store(testing::temp_dir());
    auto report = sync(source, *st, SyncOptions{});
    ASSERT_TRUE(report.is_ok()) << report.status().to_string();
    const std::string why = spells_failure(*report);
    EXPECT_NE(why.find(c.message), std::string::npos) << why;
    EXPECT_EQ(st->stats()->per_kind.count("spell"), 0u);
  }
}

TEST(SyncListings, AnOversizedOrTooDeepPageFailsItsEndpoint) {
  RewritingSource huge([](const std::string& request, json&) -> std::optional<std::string> {
    if (first_spells_page(request)) return std::string(kMaxPageBytes + 1, ' ');
    if (recorded_name(request) == "v2/feats/limit=100.json") {
      return "{\"count\":1,\"next\":null,\"results\":[" + std::string(100000, '[') + std::string(100000, ']') + "]}";
    }
    return std::nullopt;
  });
  auto st = fresh_store(testing::temp_dir());
  auto report = sync(huge, *st, SyncOptions{});
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  ASSERT_EQ(report->failed.size(), 2u);
  EXPECT_EQ(report->failed[0].endpoint, "v2/spells");
  EXPECT_NE(report->failed[0].error.find("more than a page may hold"), std::string::npos) << report->failed[0].error;
  EXPECT_EQ(report->failed[1].endpoint, "v2/feats");
  EXPECT_NE(report->failed[1].error.find("nested deeper than 64"), std::string::npos) << report->failed[1].error;
}

TEST(SyncListings, A404OnAListTheDataCameFromKeepsItAndV1DoesNotFillIn) {
  auto st = fresh_store(testing::temp_dir());
  ASSERT_TRUE(sync(*make_directory_source(testing::fixture_mirror()), *st, SyncOptions{}).is_ok());
  const auto before = st->stats()->per_kind;
  FailingSource gone(testing::fixture_mirror(), "v2/weapons/", Status::not_found("HTTP 404"));
  auto report = sync(gone, *st, SyncOptions{});
  ASSERT_TRUE(report.is_ok());
  ASSERT_EQ(report->failed.size(), 1u);
  EXPECT_EQ(report->failed[0].endpoint, "v2/weapons");
  EXPECT_NE(report->failed[0].error.find("404 for a list the stored data came from"), std::string::npos);
  EXPECT_TRUE(report->missing_endpoints.empty());
  EXPECT_EQ(st->stats()->per_kind, before);
  // The SRD longsword stays the v2 one, not a second copy under its v1 key.
  EXPECT_EQ(st->get("srd_longsword", model::Kind::kWeapon, false)->size(), 1u);
  EXPECT_TRUE(st->get("longsword", model::Kind::kWeapon, false)->empty());
  // On a store that never had it, the same 404 says the source has no such list.
  auto fresh = fresh_store(testing::temp_dir());
  report = sync(gone, *fresh, SyncOptions{});
  ASSERT_TRUE(report.is_ok());
  EXPECT_TRUE(report->failed.empty());
  EXPECT_EQ(report->missing_endpoints, std::vector<std::string>{"v2/weapons"});
}

TEST(DirectorySource, NeverReadsOutsideItsRoot) {
  const std::string dir = testing::temp_dir();
  fs::create_directories(dir + "/mirror/v2/spells");
  fs::create_directories(dir + "/secret");
  testing::write_file(dir + "/secret/_.json", "{\"secret\":1}");
  testing::write_file(dir + "/secret/limit=1.json", "{\"secret\":1}");
  testing::write_file(dir + "/mirror/v2/spells/limit=1.json", "{\"count\":0}");
  fs::create_directory_symlink(dir + "/secret", dir + "/mirror/v2/linked");
  auto source = make_directory_source(dir + "/mirror");
  EXPECT_TRUE(source->get("v2/spells/?limit=1").is_ok());
  for (const std::string request :
       {"../secret/", "v2/../../secret/", "/../secret/", "v2/spells/?page=/../../../../secret/_", "v2/linked/?limit=1",
        "v2/spells/?limit=1/../../../../secret/limit=1", "v2/spells/?x=%2F..%2F..%2F..%2Fsecret%2F_"}) {
    auto got = source->get(request);
    EXPECT_FALSE(got.is_ok()) << request << " read " << (got ? *got : "");
    if (!got) {
      EXPECT_EQ(got.status().code(), StatusCode::kNotFound) << request;
    }
  }
}

TEST(BundledSnapshot, HoldsTheRecordedApi) {
  auto source = make_bundled_source();
  ASSERT_TRUE(source.is_ok()) << source.status().to_string();
  auto docs = (*source)->get("v2/documents/?limit=100");
  ASSERT_TRUE(docs.is_ok());
  EXPECT_NE(docs->find("srd-2024"), std::string::npos);
  auto page = (*source)->get("https://api.open5e.com/v2/spells/?limit=100&page=20");
  ASSERT_TRUE(page.is_ok());
  EXPECT_FALSE((*source)->get("v2/spells/?limit=100&page=21").is_ok());
  EXPECT_TRUE((*source)->get("v1/magicitems/?limit=100").is_ok());
}

TEST(ArchiveSource, RejectsBytesThatAreNotAnArchive) {
  const std::string junk = "definitely not zstd";
  auto s = make_archive_source(reinterpret_cast<const unsigned char*>(junk.data()), junk.size(), "junk");
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.status().code(), StatusCode::kCorruption);
}

// A scripted HTTP client for the retry policy.
class ScriptedClient : public http::Client {
 public:
  explicit ScriptedClient(std::vector<Result<http::Response>> answers) : answers_(std::move(answers)) {}
  Result<http::Response> get(const std::string&) override {
    ++calls;
    if (answers_.empty()) return http::Response{200, "{}", "application/json"};
    auto a = answers_.front();
    answers_.erase(answers_.begin());
    return a;
  }
  int calls = 0;

 private:
  std::vector<Result<http::Response>> answers_;
};

TEST(Retry, RetriesTransportErrorsAnd5xxWithGrowingDelays) {
  ScriptedClient client({Status::unavailable("timeout"), http::Response{503, "", "text/html"},
                         http::Response{500, "", "text/html"}, http::Response{200, "{\"ok\":1}", "application/json"}});
  std::vector<int> delays;
  http::RetryPolicy policy;
  policy.base_delay_ms = 100;
  policy.max_delay_ms = 1000;
  auto r = http::get_with_retries(client, "http://x/", policy, [&](int ms) { delays.push_back(ms); });
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(client.calls, 4);
  ASSERT_EQ(delays.size(), 3u);
  // Exponential with jitter in [50%, 100%] of 100, 200, 400 ms.
  EXPECT_GE(delays[0], 50);
  EXPECT_LE(delays[0], 100);
  EXPECT_GE(delays[1], 100);
  EXPECT_LE(delays[1], 200);
  EXPECT_GE(delays[2], 200);
  EXPECT_LE(delays[2], 400);
}

TEST(Retry, NeverRetriesClientErrorsAndGivesUpAfterTheLimit) {
  ScriptedClient not_found({http::Response{404, "{}", "application/json"}});
  auto r = http::get_with_retries(not_found, "http://x/", http::RetryPolicy{}, [](int) {});
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(not_found.calls, 1);
  ScriptedClient down({Status::unavailable("a"), Status::unavailable("b"), Status::unavailable("c")});
  http::RetryPolicy three;
  three.max_attempts = 3;
  auto d = http::get_with_retries(down, "http://x/", three, [](int) {});
  ASSERT_FALSE(d.is_ok());
  EXPECT_EQ(down.calls, 3);
}

}  // namespace
}  // namespace lorekeeper::open5e
