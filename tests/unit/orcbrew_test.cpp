#include "lorekeeper/orcbrew/orcbrew.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace lorekeeper::orcbrew {
namespace {

using model::Entity;
using model::Kind;

std::string read_fixture(const std::string& name) {
  std::ifstream in(std::string(LOREKEEPER_FIXTURES) + "/orcbrew/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

FileImport import(std::string_view text, const std::string& label = "test.orcbrew") {
  auto r = read_orcbrew(std::string(text), label);
  EXPECT_TRUE(r.is_ok()) << r.status().to_string();
  return r ? std::move(*r) : FileImport{};
}

const Entity& entity(const FileImport& f, const std::string& key) {
  for (const auto& e : f.entities) {
    if (e.key == key) return e;
  }
  ADD_FAILURE() << "no entity " << key;
  static const Entity kNone;
  return kNone;
}

bool has(const std::vector<std::string>& lines, std::string_view needle) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(needle) != std::string::npos; });
}

std::string all(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// One pack "P" holding `kinds` (EDN text of the pack's map entries).
std::string pack(std::string_view kinds) { return "{\"P\" {" + std::string(kinds) + "}}"; }

// --- keys and kinds ---

TEST(OrcBrewKeys, DocumentKeysAreStableSlugsOfThePackName) {
  EXPECT_EQ(document_key_for("Homebrew Grimoire"), "orcbrew-homebrew-grimoire");
  EXPECT_EQ(document_key_for("Tasha's Extras"), "orcbrew-tashas-extras");
  EXPECT_EQ(document_key_for("  Grimoire Étrange!! "), "orcbrew-grimoire-etrange");
  EXPECT_EQ(document_key_for("Kobold Press: Tome (v2)"), "orcbrew-kobold-press-tome-v2");
  // No ASCII letters or digits: a hash of the name, stable and distinct.
  const std::string jp = document_key_for("魔法の本");
  EXPECT_EQ(jp.size(), std::string("orcbrew-").size() + 8);
  EXPECT_EQ(jp, document_key_for("魔法の本"));
  EXPECT_NE(jp, document_key_for("竜の書"));
  EXPECT_EQ(entity_key_for("orcbrew-homebrew-grimoire", "magic-missile"), "orcbrew-homebrew-grimoire_magic-missile");
  EXPECT_EQ(entity_key_for("orcbrew-x", "Hunter's-Mark"), "orcbrew-x_hunters-mark");
}

// An entity past the per-entity bounds (a list of more than 1,000 items, more than 1 MiB of text) is named as
// not imported, with why; the rest of the pack is imported. One monster with a million traits made get_entity
// answer 65 MB.
TEST(OrcBrewBounds, AnEntityWithTooLongAListOrTooMuchTextIsNotImported) {
  auto traits = [](size_t n) {
    std::string out = "[";
    for (size_t i = 0; i < n; ++i) out += "{:name \"T" + std::to_string(i) + "\" :description \"It hums.\"} ";
    return out + "]";
  };
  const auto f = import(pack(":orcpub.dnd.e5/monsters {:many {:name \"Many\" :type :beast :challenge 1 :traits " +
                             traits(1001) + "} :enough {:name \"Enough\" :type :beast :challenge 1 :traits " +
                             traits(1000) + "} :wordy {:name \"Wordy\" :type :beast :challenge 1 :description \"" +
                             std::string((1 << 20) + 1, 'w') + "\"}}"));
  ASSERT_EQ(f.packs.size(), 1u);
  const auto& problems = f.packs[0].problems;
  ASSERT_EQ(problems.size(), 2u);
  std::string reasons;
  for (const auto& p : problems) reasons += p.key + ": " + p.reason + "\n";
  EXPECT_NE(reasons.find(":traits holds 1,001 items, more than the 1,000 a list may hold"), std::string::npos)
      << reasons;
  EXPECT_NE(reasons.find("more than 1,048,576 bytes of text"), std::string::npos) << reasons;
  ASSERT_EQ(f.entities.size(), 1u);
  EXPECT_EQ(f.entities[0].name, "Enough");
}

TEST(OrcBrewKeys, KindTable) {
  EXPECT_EQ(model_kind_for("spells"), Kind::kSpell);
  EXPECT_EQ(model_kind_for("monsters"), Kind::kCreature);
  EXPECT_EQ(model_kind_for("classes"), Kind::kClass);
  EXPECT_EQ(model_kind_for("subclasses"), Kind::kClass);
  EXPECT_EQ(model_kind_for("races"), Kind::kSpecies);
  EXPECT_EQ(model_kind_for("subraces"), Kind::kSpecies);
  EXPECT_EQ(model_kind_for("backgrounds"), Kind::kBackground);
  EXPECT_EQ(model_kind_for("feats"), Kind::kFeat);
  EXPECT_EQ(model_kind_for("languages"), Kind::kLanguage);
  EXPECT_EQ(model_kind_for("magic-items"), Kind::kMagicItem);
  EXPECT_EQ(model_kind_for("weapons"), Kind::kWeapon);
  EXPECT_EQ(model_kind_for("armor"), Kind::kArmor);
  EXPECT_FALSE(model_kind_for("invocations"));
  EXPECT_FALSE(model_kind_for("selections"));
  EXPECT_EQ(supported_kinds().size(), 12u);
}

// --- per kind ---

TEST(OrcBrewSpells, FacetsDataTextAndAttribution) {
  const auto f = import(pack(R"edn(:orcpub.dnd.e5/spells
    {:frost-lance {:key :frost-lance :name "Frost Lance" :option-pack "P" :level 2 :school "evocation"
                   :casting-time "1 action" :range "90 feet" :duration "Instantaneous"
                   :components {:verbal true :somatic true :material true :material-component "a shard of ice"}
                   :description "Ice streaks out.\nAt Higher Levels. One more d8 per slot level."
                   :spell-lists {:wizard true :sorcerer true :bard false}}})edn"),
                        "packs/my file.orcbrew");
  ASSERT_EQ(f.entities.size(), 1u);
  const Entity& e = f.entities[0];
  EXPECT_EQ(e.kind, Kind::kSpell);
  EXPECT_EQ(e.key, "orcbrew-p_frost-lance");
  EXPECT_EQ(e.name, "Frost Lance");
  EXPECT_EQ(e.source_api, "orcbrew");
  EXPECT_EQ(e.url, "orcbrew://packs/my%20file.orcbrew#P/spells/frost-lance");
  EXPECT_EQ(e.document.key, "orcbrew-p");
  EXPECT_EQ(e.document.name, "P");
  EXPECT_EQ(e.document.source_api, "orcbrew");
  EXPECT_EQ(e.document.publisher, "Homebrew (OrcBrew)");
  EXPECT_EQ(e.facets.level, 2);
  EXPECT_EQ(e.facets.school, "evocation");
  EXPECT_EQ(e.facets.casting_time, "action");
  EXPECT_EQ(e.facets.concentration, false);
  EXPECT_EQ(e.facets.ritual, false);
  EXPECT_EQ(e.facets.classes, (std::vector<std::string>{"sorcerer", "srd_sorcerer", "srd_wizard", "wizard"}));
  EXPECT_EQ(e.data["level"], 2);
  EXPECT_EQ(e.data["school"], "Evocation");
  EXPECT_EQ(e.data["casting_time"], "1 action");
  EXPECT_EQ(e.data["range"], "90 feet");
  EXPECT_EQ(e.data["components"], "V, S, M");
  EXPECT_EQ(e.data["material"], "a shard of ice");
  EXPECT_EQ(e.data["duration"], "Instantaneous");
  EXPECT_EQ(e.data["desc"], "Ice streaks out.");
  EXPECT_EQ(e.data["higher_level"], "One more d8 per slot level.");
  EXPECT_EQ(e.data["classes"], (model::json{"Wizard", "Sorcerer"}));
  EXPECT_EQ(e.data["concentration"], false);
  EXPECT_EQ(e.text, "Ice streaks out.\n\nOne more d8 per slot level.");
  // raw is the entity as written, keywords as text.
  EXPECT_EQ(e.raw["key"], "frost-lance");
  EXPECT_EQ(e.raw["spell-lists"]["bard"], false);
  EXPECT_EQ(e.raw["components"]["material-component"], "a shard of ice");
  EXPECT_TRUE(f.packs[0].warnings.empty()) << all(f.packs[0].warnings);
  EXPECT_EQ(f.packs[0].imported_per_kind.at("spells"), 1);
}

TEST(OrcBrewSpells, ConcentrationRitualReactionAndClassLists) {
  const auto f = import(pack(R"edn(
    :orcpub.dnd.e5/classes {:warden {:name "Warden" :hit-die 10}}
    :orcpub.dnd.e5/spells
    {:mark {:name "Mark" :level 1 :school "divination" :casting-time "1 bonus action"
            :duration "Concentration, up to 1 minute" :spell-lists {:warden true :ranger true}}
     :hush {:name "Hush" :level 1 :school :abjuration :ritual true :casting-time "10 minutes" :duration "1 hour"
            :spell-lists [:cleric :artificer]}
     :thorns {:name "Thorns" :level 0 :school "transmutation" :components [:somatic]
              :casting-time "1 reaction, which you take when you are hit" :concentration false
              :duration "Concentration, up to 1 round"}})edn"));
  const Entity& mark = entity(f, "orcbrew-p_mark");
  EXPECT_EQ(mark.facets.concentration, true);
  EXPECT_EQ(mark.data["concentration"], true);
  EXPECT_EQ(mark.data["duration"], "up to 1 minute");  // rendered as "Concentration, up to 1 minute"
  EXPECT_EQ(mark.facets.casting_time, "bonus-action");
  // A class of the same file: its entity key and name.
  EXPECT_EQ(mark.data["classes"], (model::json{"Warden", "Ranger"}));
  EXPECT_EQ(mark.facets.classes, (std::vector<std::string>{"orcbrew-p_warden", "ranger", "srd_ranger", "warden"}));
  const Entity& hush = entity(f, "orcbrew-p_hush");
  EXPECT_EQ(hush.facets.ritual, true);
  EXPECT_EQ(hush.facets.casting_time, "10minutes");
  EXPECT_EQ(hush.facets.school, "abjuration");
  // A class neither in the file nor in the SRD keeps its key and a name spelled from it.
  EXPECT_EQ(hush.data["classes"], (model::json{"Cleric", "Artificer"}));
  EXPECT_EQ(hush.facets.classes, (std::vector<std::string>{"artificer", "cleric", "srd_cleric"}));
  const Entity& thorns = entity(f, "orcbrew-p_thorns");
  EXPECT_EQ(thorns.facets.level, 0);
  EXPECT_EQ(thorns.facets.casting_time, "reaction");
  EXPECT_EQ(thorns.data["reaction_condition"], "which you take when you are hit");
  EXPECT_EQ(thorns.data["components"], "S");
  EXPECT_EQ(thorns.facets.concentration, true);
  EXPECT_TRUE(has(f.packs[0].warnings, "spells/thorns: :concentration is false but the duration"))
      << all(f.packs[0].warnings);
}

TEST(OrcBrewSpells, HigherLevelsHeadingOnlyWhereASentenceStarts) {
  const auto f = import(pack(R"edn(:orcpub.dnd.e5/spells
    {:a {:name "A" :level 1 :school "evocation" :description "Bolt. ***At Higher Levels.*** +1d6 per level."}
     :b {:name "B" :level 1 :school "evocation" :description "Its power grows at higher levels of mastery."}
     :c {:name "C" :level 1 :school "evocation" :description "Text." :higher-level "Explicit."}})edn"));
  EXPECT_EQ(entity(f, "orcbrew-p_a").data["desc"], "Bolt.");
  EXPECT_EQ(entity(f, "orcbrew-p_a").data["higher_level"], "+1d6 per level.");
  EXPECT_EQ(entity(f, "orcbrew-p_b").data["desc"], "Its power grows at higher levels of mastery.");
  EXPECT_FALSE(entity(f, "orcbrew-p_b").data.contains("higher_level"));
  EXPECT_EQ(entity(f, "orcbrew-p_c").data["higher_level"], "Explicit.");
}

// Homebrew stat blocks get the derived facets the Open5e ones get (model/derived.hpp), from the same rules.
TEST(OrcBrewMonsters, DerivedFacetsComeFromTheSameRulesAsOpen5e) {
  const auto f = import(pack(R"edn(:orcpub.dnd.e5/monsters
    {:mire-witch {:name "Mire Witch" :type :fey :challenge 4
                  :traits [{:name "Innate Spellcasting"
                            :description "The witch can innately cast the following spells:\nAt will: fog cloud, _ray of sickness_\n1/day each: bestow curse (ritual only), hold person"}]
                  :actions [{:name "Claws" :description "Melee Weapon Attack: +5 to hit, reach 10 ft., one target. Hit: 7 (1d8 + 3) slashing damage, and the target must succeed on a DC 13 Constitution saving throw or be poisoned for 1 minute."}
                            {:name "Bog Spit" :description "Ranged Weapon Attack: +4 to hit, range 30 ft. Hit: 5 (2d4) acid damage."}]
                  :legendary-actions {:description "The witch can take 1 legendary action."
                                      :actions [{:name "Sink" :description "The witch sinks into the mud."}]}}
     :bog-rat {:name "Bog Rat" :type :beast :challenge 0
               :traits [{:name "Sunlight Hatred" :description "The bog rat takes 5 radiant damage in sunlight. It is immune to being frightened."}
                        {:name "Incorporeal" :description "It takes 5 (1d10) force damage if it ends its turn inside an object."}]}
     :ember-toad {:name "Ember Toad" :type :beast :challenge 1
                  :actions [{:name "Spit" :description "Each creature in a 10-foot cone must make a DC 12 Dexterity saving throw. On a failure, it takes 7 (2d6) fire damage."}]}})edn"));
  const model::Facets& w = entity(f, "orcbrew-p_mire-witch").facets;
  EXPECT_EQ(w.casts, (std::vector<std::string>{"fog cloud", "ray of sickness", "bestow curse", "hold person"}));
  EXPECT_EQ(w.conditions, (std::vector<std::string>{"poisoned"}));
  EXPECT_EQ(w.damage_types, (std::vector<std::string>{"acid", "slashing"}));
  EXPECT_EQ(w.save_abilities, (std::vector<std::string>{"constitution"}));
  EXPECT_EQ(w.attack_ranges, (std::vector<std::string>{"melee", "ranged", "reach"}));
  EXPECT_EQ(w.traits, (std::vector<std::string>{"legendary", "spellcaster"}));
  // Damage it takes and a condition it is immune to are not what it deals or inflicts.
  const model::Facets& rat = entity(f, "orcbrew-p_bog-rat").facets;
  EXPECT_TRUE(rat.damage_types.empty());
  EXPECT_TRUE(rat.conditions.empty());
  EXPECT_TRUE(rat.traits.empty());
  // "It takes" opening a sentence is the creature; after "On a failure," it is the target.
  EXPECT_EQ(entity(f, "orcbrew-p_ember-toad").facets.damage_types, (std::vector<std::string>{"fire"}));
}

TEST(OrcBrewMonsters, CreatureFacetsStatBlockAndText) {
  const auto f = import(pack(R"edn(:orcpub.dnd.e5/monsters
    {:bog-hag {:name "Bog Hag" :size :medium :type :fey :subtypes #{:hag} :alignment "neutral evil"
               :armor-class 15 :armor-notes "natural armor" :hit-points {:die 8 :die-count 11 :modifier 33}
               :speed "30 ft., swim 30 ft." :str 16 :dex 12 :con 16 :int 13 :wis 14 :cha 15
               :saving-throws {:con 5 :orcpub.dnd.e5.character/wis 4} :skills {:stealth 3 :sleight-of-hand 3}
               :damage-resistances "cold, poison" :condition-immunities #{:charmed}
               :senses "darkvision 60 ft., passive Perception 12" :languages "Common, Sylvan" :challenge 3
               :description "A crone of the deep marsh."
               :traits [{:name "Amphibious" :description "Breathes air and water."}]
               :actions [{:name "Claws" :description "Melee Weapon Attack: +5 to hit."}
                         {:name "Drowning Curse" :notes "Recharge 5-6" :description "Begin to drown."}]
               :reactions [{:name "Slip Away" :description "Moves 10 feet."}]
               :legendary-actions {:description "The hag can take 2 legendary actions."
                                   :actions [{:name "Lash" :description "A tail attack."}
                                             {:name "Miasma" :notes "Costs 2 Actions" :description "Gas."}]}}
     :goblin {:name "Goblin" :size "Small" :type "humanoid" :challenge 0.25 :hit-points {:die 6 :die-count 2}
              :speed "30 ft., fly 40 ft. (hover)"}
     :sprite {:name "Sprite" :size :tiny :type :fey :challenge 0.125 :hit-points 2 :speed 10}})edn"));
  const Entity& hag = entity(f, "orcbrew-p_bog-hag");
  EXPECT_EQ(hag.kind, Kind::kCreature);
  EXPECT_EQ(hag.facets.cr, 3.0);
  EXPECT_EQ(hag.facets.type, "fey");
  EXPECT_EQ(hag.facets.size, "medium");
  EXPECT_EQ(hag.facets.armor_class, 15);
  EXPECT_EQ(hag.facets.hit_points, 82);  // 11 * 4.5 + 33
  const auto& d = hag.data;
  EXPECT_EQ(d["size"], "Medium");
  EXPECT_EQ(d["type"], "Fey");
  EXPECT_EQ(d["subcategory"], "hag");
  EXPECT_EQ(d["armor_class"], 15);
  EXPECT_EQ(d["armor_detail"], "natural armor");
  EXPECT_EQ(d["hit_points"], 82);
  EXPECT_EQ(d["hit_dice"], "11d8+33");
  EXPECT_EQ(d["speed"], (model::json{{"walk", 30}, {"swim", 30}}));
  EXPECT_EQ(d["ability_scores"]["strength"], 16);
  EXPECT_EQ(d["ability_scores"]["charisma"], 15);
  EXPECT_EQ(d["saving_throws"], (model::json{{"constitution", 5}, {"wisdom", 4}}));
  EXPECT_EQ(d["skill_bonuses"], (model::json{{"stealth", 3}, {"sleight_of_hand", 3}}));
  EXPECT_EQ(d["condition_immunities"], "charmed");
  EXPECT_EQ(d["senses"], (model::json{{"darkvision", 60}, {"passive_perception", 12}}));
  EXPECT_EQ(d["challenge_rating"], 3.0);
  EXPECT_EQ(d["challenge_rating_text"], "3");
  EXPECT_EQ(d["experience_points"], 700);
  EXPECT_EQ(d["proficiency_bonus"], 2);
  ASSERT_EQ(d["actions"].size(), 2u);
  EXPECT_EQ(d["actions"][1]["usage"], "Recharge 5-6");
  EXPECT_EQ(d["reactions"][0]["name"], "Slip Away");
  ASSERT_EQ(d["legendary_actions"].size(), 2u);
  EXPECT_FALSE(d["legendary_actions"][0].contains("cost"));
  EXPECT_EQ(d["legendary_actions"][1]["cost"], 2);
  EXPECT_EQ(d["legendary_desc"], "The hag can take 2 legendary actions.");
  EXPECT_FALSE(d.contains("lair_desc"));
  // The search text: description, traits and every action, so semantic search finds "drown".
  EXPECT_NE(hag.text.find("A crone of the deep marsh."), std::string::npos);
  EXPECT_NE(hag.text.find("Amphibious. Breathes air and water."), std::string::npos);
  EXPECT_NE(hag.text.find("Drowning Curse. Begin to drown."), std::string::npos);
  EXPECT_NE(hag.text.find("Miasma. Gas."), std::string::npos);
  const Entity& goblin = entity(f, "orcbrew-p_goblin");
  EXPECT_EQ(goblin.facets.cr, 0.25);
  EXPECT_EQ(goblin.data["challenge_rating_text"], "1/4");
  EXPECT_EQ(goblin.facets.hit_points, 7);
  EXPECT_EQ(goblin.data["speed"], (model::json{{"walk", 30}, {"fly", 40}, {"hover", true}}));
  EXPECT_EQ(goblin.facets.size, "small");
  const Entity& sprite = entity(f, "orcbrew-p_sprite");
  EXPECT_EQ(sprite.data["challenge_rating_text"], "1/8");
  EXPECT_EQ(sprite.facets.hit_points, 2);
  EXPECT_EQ(sprite.data["speed"], (model::json{{"walk", 10}}));
  EXPECT_TRUE(f.packs[0].warnings.empty()) << all(f.packs[0].warnings);
}

TEST(OrcBrewClasses, ClassesSubclassesAndParents) {
  const auto f = import(R"edn({"Core" {:orcpub.dnd.e5/classes
      {:warden {:name "Warden" :help "A guardian." :hit-die 10
                :profs {:save {:orcpub.dnd.e5.character/con true :orcpub.dnd.e5.character/wis true :cha false}}
                :spellcasting {:level-factor 2}
                :traits [{:name "Extra Attack" :level 5 :description "Attack twice."}
                         {:name "Rooted" :level 1 :description "Hold ground."}]}}
     :orcpub.dnd.e5/subclasses
      {:stone {:name "Oath of Stone" :class :warden :traits [{:name "Stonebound" :level 3 :description "Know."}]}
       :rime {:name "School of Rime" :class :wizard}
       :gears {:name "Path of Gears" :class :artificer}
       :orphan {:name "Orphan"}}}
    "Expansion" {:orcpub.dnd.e5/subclasses {:deep {:name "Oath of the Deep" :class :warden}}}})edn");
  const Entity& warden = entity(f, "orcbrew-core_warden");
  EXPECT_EQ(warden.kind, Kind::kClass);
  EXPECT_TRUE(warden.facets.parent_key.empty());
  EXPECT_EQ(warden.data["desc"], "A guardian.");
  EXPECT_EQ(warden.data["hit_dice"], "D10");
  EXPECT_EQ(warden.data["hit_points"]["hit_points_at_1st_level"], "10 + your Constitution modifier");
  EXPECT_EQ(warden.data["hit_points"]["hit_points_at_higher_levels"],
            "1D10 (or 6) + your Constitution modifier per warden level after 1st");
  EXPECT_EQ(warden.data["saving_throws"], (model::json{"Constitution", "Wisdom"}));
  EXPECT_EQ(warden.data["caster_type"], "HALF");
  ASSERT_EQ(warden.data["features"].size(), 2u);
  EXPECT_EQ(warden.data["features"][0]["name"], "Rooted");  // sorted by level
  EXPECT_EQ(warden.data["features"][0]["levels"], (model::json{1}));
  EXPECT_EQ(warden.data["features"][1]["levels"], (model::json{5}));
  EXPECT_NE(warden.text.find("Extra Attack. Attack twice."), std::string::npos);
  // Parent in the same pack, in another pack of the file, in the SRD, and nowhere.
  EXPECT_EQ(entity(f, "orcbrew-core_stone").facets.parent_key, "orcbrew-core_warden");
  EXPECT_EQ(entity(f, "orcbrew-core_stone").data["subclass_of"], "Warden");
  EXPECT_EQ(entity(f, "orcbrew-expansion_deep").facets.parent_key, "orcbrew-core_warden");
  EXPECT_EQ(entity(f, "orcbrew-core_rime").facets.parent_key, "srd_wizard");
  EXPECT_EQ(entity(f, "orcbrew-core_rime").data["subclass_of"], "Wizard");
  EXPECT_EQ(entity(f, "orcbrew-core_gears").facets.parent_key, "artificer");
  EXPECT_TRUE(has(f.packs[0].warnings, "subclasses/gears: its class :artificer is neither in this file nor an SRD"))
      << all(f.packs[0].warnings);
  EXPECT_TRUE(entity(f, "orcbrew-core_orphan").facets.parent_key.empty());
  EXPECT_TRUE(has(f.packs[0].warnings, "subclasses/orphan: has no :class"));
  EXPECT_EQ(f.packs[0].imported_per_kind.at("classes"), 1);
  EXPECT_EQ(f.packs[0].imported_per_kind.at("subclasses"), 4);
  EXPECT_EQ(f.packs[1].imported_per_kind.at("subclasses"), 1);
}

TEST(OrcBrewRaces, SpeciesSubspeciesAndTraits) {
  const auto f = import(pack(R"edn(
    :orcpub.dnd.e5/races {:mirefolk {:name "Mirefolk" :size :small :speed 25 :darkvision 60
                                     :abilities {:orcpub.dnd.e5.character/con 2 :orcpub.dnd.e5.character/wis 1}
                                     :languages #{"Common"} :help "Web-footed people."
                                     :traits [{:name "Hold Breath" :description "15 minutes."}]}}
    :orcpub.dnd.e5/subraces {:reed {:name "Reed Mirefolk" :race :mirefolk}
                             :bog-elf {:name "Bog Elf" :race :elf :abilities {:orcpub.dnd.e5.character/con 1}}})edn"));
  const Entity& race = entity(f, "orcbrew-p_mirefolk");
  EXPECT_EQ(race.kind, Kind::kSpecies);
  EXPECT_EQ(race.data["desc"], "Web-footed people.");
  const auto& traits = race.data["traits"];
  ASSERT_EQ(traits.size(), 6u);
  EXPECT_EQ(traits[0], (model::json{{"name", "Ability Score Increase"}, {"desc", "Constitution +2, Wisdom +1"}}));
  EXPECT_EQ(traits[1]["desc"], "Small");
  EXPECT_EQ(traits[2]["desc"], "25 feet");
  EXPECT_EQ(traits[3]["desc"], "60 feet");
  EXPECT_EQ(traits[4]["desc"], "Common");
  EXPECT_EQ(traits[5]["name"], "Hold Breath");
  EXPECT_NE(race.text.find("Hold Breath. 15 minutes."), std::string::npos);
  EXPECT_EQ(entity(f, "orcbrew-p_reed").facets.parent_key, "orcbrew-p_mirefolk");
  EXPECT_EQ(entity(f, "orcbrew-p_reed").data["subspecies_of"], "Mirefolk");
  EXPECT_EQ(entity(f, "orcbrew-p_bog-elf").facets.parent_key, "srd_elf");
  EXPECT_EQ(f.packs[0].imported_per_kind.at("subraces"), 2);
}

TEST(OrcBrewOptions, BackgroundsFeatsAndLanguages) {
  const auto f = import(pack(R"edn(
    :orcpub.dnd.e5/backgrounds {:guide {:name "Bog Guide" :help "You led travellers."
                                        :profs {:skill {:nature true :survival true} :tool {:navigators-tools true}}
                                        :equipment {:explorers-pack 1 :torch 5}
                                        :traits [{:name "Safe Paths" :description "A dry path."}]}}
    :orcpub.dnd.e5/feats {:stalker {:name "Swamp Stalker" :description "Like a native." :prereqs #{:dex-13}
                                    :ability-increases #{:orcpub.dnd.e5.character/dex}}}
    :orcpub.dnd.e5/languages {:marches {:name "Old Marches" :description "A trade-tongue." :type "exotic"
                                        :script "Dwarvish"}})edn"));
  const Entity& bg = entity(f, "orcbrew-p_guide");
  EXPECT_EQ(bg.kind, Kind::kBackground);
  EXPECT_EQ(bg.data["desc"], "You led travellers.");
  const auto& benefits = bg.data["benefits"];
  ASSERT_EQ(benefits.size(), 4u);
  EXPECT_EQ(benefits[0]["desc"], "Nature, Survival");
  EXPECT_EQ(benefits[1]["desc"], "Navigators Tools");
  EXPECT_EQ(benefits[2]["desc"], "Explorers Pack, Torch (5)");
  EXPECT_EQ(benefits[3]["name"], "Safe Paths");
  const Entity& feat = entity(f, "orcbrew-p_stalker");
  EXPECT_EQ(feat.kind, Kind::kFeat);
  EXPECT_EQ(feat.data["prerequisite"], "Dex 13");
  EXPECT_EQ(feat.data["benefits"][0]["desc"], "Increase your Dexterity score by 1.");
  EXPECT_NE(feat.text.find("Like a native."), std::string::npos);
  const Entity& lang = entity(f, "orcbrew-p_marches");
  EXPECT_EQ(lang.kind, Kind::kLanguage);
  EXPECT_EQ(lang.data["desc"], "A trade-tongue.");
  EXPECT_EQ(lang.data["type"], "exotic");
  EXPECT_EQ(lang.data["script"], "Dwarvish");
  EXPECT_EQ(lang.text, "A trade-tongue.");
}

TEST(OrcBrewItems, MagicItemsWeaponsAndArmor) {
  const auto f = import(pack(R"edn(
    :orcpub.dnd.e5/magic-items
    {:lantern {:name "Lantern of the Drowned" :item-type :wondrous-item :rarity :very-rare
               :attunement [:warlock :wizard] :description "Burns underwater."}
     :ring {:orcpub.dnd.e5.magic-items/name "Ring of Ink" :orcpub.dnd.e5.magic-items/type :ring
            :orcpub.dnd.e5.magic-items/rarity :uncommon :orcpub.dnd.e5.magic-items/attunement [:any]}
     :cloak {:name "Plain Cloak" :type "Wondrous item" :rarity "Common" :requires-attunement false}}
    :orcpub.dnd.e5/weapons
    {:reed-spear {:name "Reed Spear" :type :simple :damage-type :piercing :damage-die 6 :damage-die-count 1
                  :thrown? true :range {:min 20 :max 60} :versatile {:damage-die 8 :damage-die-count 1}
                  :cost {:num 2 :type :gp} :weight 3}
     :bog-bow {:name "Bog Bow" :type :martial :ranged? true :damage-die 8 :damage-type :piercing
               :ammunition? true :range {:min 150 :max 600} :cost {:num 50 :type :sp}}}
    :orcpub.dnd.e5/armor
    {:peat-mail {:name "Peat Mail" :type :medium :base-ac 13 :max-dex-mod 2 :stealth-disadvantage? true :weight 25}
     :buckler {:name "Buckler" :type :shield :base-ac 1 :min-str 10}})edn"));
  const Entity& lantern = entity(f, "orcbrew-p_lantern");
  EXPECT_EQ(lantern.kind, Kind::kMagicItem);
  EXPECT_EQ(lantern.facets.rarity, "very-rare");
  EXPECT_EQ(lantern.facets.type, "wondrous-item");
  EXPECT_EQ(lantern.facets.requires_attunement, true);
  EXPECT_EQ(lantern.data["category"], "Wondrous Item");
  EXPECT_EQ(lantern.data["rarity"], "Very Rare");
  EXPECT_EQ(lantern.data["attunement_detail"], "by a warlock or wizard");
  EXPECT_EQ(lantern.text, "Burns underwater.");
  // The item builder's namespaced keys.
  const Entity& ring = entity(f, "orcbrew-p_ring");
  EXPECT_EQ(ring.name, "Ring of Ink");
  EXPECT_EQ(ring.facets.rarity, "uncommon");
  EXPECT_EQ(ring.facets.type, "ring");
  EXPECT_EQ(ring.facets.requires_attunement, true);
  EXPECT_FALSE(ring.data.contains("attunement_detail"));
  const Entity& cloak = entity(f, "orcbrew-p_cloak");
  EXPECT_EQ(cloak.facets.requires_attunement, false);
  EXPECT_EQ(cloak.facets.type, "wondrous-item");
  EXPECT_EQ(cloak.facets.rarity, "common");

  const Entity& spear = entity(f, "orcbrew-p_reed-spear");
  EXPECT_EQ(spear.kind, Kind::kWeapon);
  EXPECT_EQ(spear.facets.is_simple, true);
  EXPECT_EQ(spear.facets.damage_dice, "1d6");
  EXPECT_EQ(spear.facets.damage_types, (std::vector<std::string>{"piercing"}));
  EXPECT_EQ(spear.facets.properties, (std::vector<std::string>{"thrown", "versatile"}));
  EXPECT_EQ(spear.facets.cost, 2.0);
  EXPECT_EQ(spear.facets.weight, 3.0);
  EXPECT_EQ(spear.data["versatile_dice"], "1d8");
  EXPECT_EQ(spear.data["range"], 20.0);
  EXPECT_EQ(spear.data["long_range"], 60.0);
  EXPECT_EQ(spear.data["is_melee"], true);
  const Entity& bow = entity(f, "orcbrew-p_bog-bow");
  EXPECT_EQ(bow.facets.is_simple, false);
  EXPECT_EQ(bow.data["category"], "martial");
  EXPECT_EQ(bow.data["is_melee"], false);
  EXPECT_EQ(bow.facets.cost, 5.0);  // 50 sp
  EXPECT_EQ(bow.facets.damage_dice, "1d8");

  const Entity& mail = entity(f, "orcbrew-p_peat-mail");
  EXPECT_EQ(mail.kind, Kind::kArmor);
  EXPECT_EQ(mail.facets.type, "medium");
  EXPECT_EQ(mail.facets.armor_class, 13);
  EXPECT_EQ(mail.data["armor_class"], "13 + Dex modifier (max 2)");
  EXPECT_EQ(mail.data["stealth_disadvantage"], true);
  const Entity& buckler = entity(f, "orcbrew-p_buckler");
  EXPECT_EQ(buckler.data["armor_class"], "+1");
  EXPECT_EQ(buckler.data["strength_required"], 10.0);
  EXPECT_EQ(buckler.data["stealth_disadvantage"], false);
  EXPECT_TRUE(f.packs[0].warnings.empty()) << all(f.packs[0].warnings);
}

TEST(OrcBrewKinds, UnsupportedKindsAreCountedAndPackFlagsIgnored) {
  const auto f = import(pack(R"edn(
    :orcpub.dnd.e5/invocations {:a {:name "A"} :b {:name "B"}}
    :orcpub.dnd.e5/selections {:s {:name "S" :options [{:name "x"}]}}
    :orcpub.dnd.e5/encounters {}
    :my.tool/notes {:n {:name "N"}}
    :disabled? true
    :orcpub.dnd.e5/spells {:x {:name "X" :level 1 :school "evocation"}})edn"));
  const auto& r = f.packs.at(0);
  EXPECT_EQ(r.unsupported_kinds, (std::map<std::string, int>{
                                     {"encounters", 0}, {"invocations", 2}, {"my.tool/notes", 1}, {"selections", 1}}));
  EXPECT_EQ(r.unsupported(), 4);
  EXPECT_EQ(r.imported(), 1);
  EXPECT_TRUE(r.problems.empty());
  EXPECT_TRUE(has(r.warnings, "the pack is marked disabled in OrcPub; imported anyway"));
}

// --- damage ---

TEST(OrcBrewDamage, BadEntriesAreProblemsAndTheRestIsImported) {
  const auto f = import(pack(R"edn(:orcpub.dnd.e5/spells
    {:good {:name "Good" :level 1 :school "evocation"}
     :stray nil
     :vec [1 2 3]
     :text "a spell"
     {:not "a key"} {:description "Neither a key nor a name."}
     [:also-not] {:name "Named By Name" :level 1 :school "evocation"}
     :also-good {:name "Also Good" :level 2 :school "evocation"}})edn"));
  const auto& r = f.packs.at(0);
  EXPECT_EQ(r.imported_per_kind.at("spells"), 3);
  ASSERT_EQ(r.problems.size(), 4u) << all(r.warnings);
  EXPECT_EQ(r.problems[0].pack, "P");
  EXPECT_EQ(r.problems[0].kind, "spells");
  EXPECT_EQ(r.problems[0].key, "stray");
  EXPECT_EQ(r.problems[0].reason, "the entry is nil, not an entity map");
  EXPECT_EQ(r.problems[1].key, "vec");
  EXPECT_EQ(r.problems[1].reason, "the entry is a vector, not an entity map");
  EXPECT_EQ(r.problems[2].key, "text");
  EXPECT_EQ(r.problems[2].reason, "the entry is the string \"a spell\", not an entity map");
  // A map key that is itself a map, and no :key or :name in the entity.
  EXPECT_EQ(r.problems[3].key, "{:not \"a key\"}");
  EXPECT_EQ(r.problems[3].reason, "the entry has no usable key: no keyword map key, :key or :name");
  EXPECT_EQ(r.skipped_entities(), 4);
  // A vector map key, but a name to key the entity by.
  EXPECT_EQ(entity(f, "orcbrew-p_named-by-name").name, "Named By Name");
  EXPECT_TRUE(has(r.warnings, "spells/[:also-not]: keyed by \"named-by-name\" from its own :key or name"))
      << all(r.warnings);
  (void)entity(f, "orcbrew-p_good");
  (void)entity(f, "orcbrew-p_also-good");
}

TEST(OrcBrewDamage, MissingNamesFallBackToTheKeyWithAWarning) {
  const auto f = import(pack(R"edn(:orcpub.dnd.e5/feats
    {:quick-draw {:description "Draw fast."}
     :blank {:name "   "}
     :numbered {:name 42}
     :listed {:name ["A" "B"]}})edn"));
  EXPECT_EQ(entity(f, "orcbrew-p_quick-draw").name, "Quick Draw");
  EXPECT_EQ(entity(f, "orcbrew-p_blank").name, "Blank");
  EXPECT_EQ(entity(f, "orcbrew-p_numbered").name, "42");
  EXPECT_EQ(entity(f, "orcbrew-p_listed").name, "Listed");
  const auto& w = f.packs[0].warnings;
  EXPECT_TRUE(has(w, "feats/quick-draw: has no name; named \"Quick Draw\" after its key")) << all(w);
  EXPECT_TRUE(has(w, "feats/blank: has no name; named \"Blank\" after its key"));
  EXPECT_TRUE(has(w, "feats/numbered: :name is the integer 42 where text is expected; used as \"42\""));
  EXPECT_TRUE(has(w, "feats/listed: :name is a vector where text is expected; ignored"));
  EXPECT_TRUE(f.packs[0].problems.empty());
}

TEST(OrcBrewDamage, ChallengeRatingsThatAreNotNumbers) {
  const auto f = import(pack(R"edn(:orcpub.dnd.e5/monsters
    {:nan {:name "NaN" :challenge ##NaN :stealth ##NaN}
     :inf {:name "Inf" :challenge ##Inf}
     :neg-inf {:name "NegInf" :challenge ##-Inf}
     :quarter {:name "Quarter" :challenge "1/4"}
     :half {:name "Half" :challenge "0.5"}
     :cr-text {:name "CR Text" :challenge "CR 2"}
     :junk {:name "Junk" :challenge "deadly"}
     :negative {:name "Negative" :challenge -1 :hit-points 1e300 :armor-class 1e300}
     :listed {:name "Listed" :challenge [1]}
     :big {:name "Big" :challenge 35}
     :huge {:name "Huge" :challenge "1e300"}})edn"));
  EXPECT_EQ(f.entities.size(), 11u);
  EXPECT_FALSE(entity(f, "orcbrew-p_nan").facets.cr);
  EXPECT_FALSE(entity(f, "orcbrew-p_nan").data.contains("challenge_rating"));
  EXPECT_TRUE(entity(f, "orcbrew-p_nan").raw["challenge"].is_null());  // NaN -> null in raw
  EXPECT_FALSE(entity(f, "orcbrew-p_inf").facets.cr);
  EXPECT_FALSE(entity(f, "orcbrew-p_neg-inf").facets.cr);
  EXPECT_EQ(entity(f, "orcbrew-p_quarter").facets.cr, 0.25);
  EXPECT_EQ(entity(f, "orcbrew-p_quarter").data["challenge_rating_text"], "1/4");
  EXPECT_EQ(entity(f, "orcbrew-p_half").facets.cr, 0.5);
  EXPECT_EQ(entity(f, "orcbrew-p_cr-text").facets.cr, 2.0);
  EXPECT_FALSE(entity(f, "orcbrew-p_junk").facets.cr);
  EXPECT_FALSE(entity(f, "orcbrew-p_negative").facets.cr);
  EXPECT_FALSE(entity(f, "orcbrew-p_listed").facets.cr);
  EXPECT_EQ(entity(f, "orcbrew-p_big").facets.cr, 35.0);
  EXPECT_FALSE(entity(f, "orcbrew-p_big").data.contains("experience_points"));
  const auto& w = f.packs[0].warnings;
  EXPECT_TRUE(has(w, "monsters/nan: :challenge is ##NaN; challenge rating left unset")) << all(w);
  EXPECT_TRUE(has(w, "monsters/huge: challenge rating 1e+300 is out of range; left unset"));
  EXPECT_TRUE(has(w, "monsters/nan: ##NaN or ##Inf in :challenge, :stealth: null in the stored original record"));
  EXPECT_FALSE(entity(f, "orcbrew-p_huge").facets.cr);
  EXPECT_TRUE(has(w, "monsters/inf: :challenge is ##Inf; challenge rating left unset"));
  EXPECT_TRUE(has(w, "monsters/neg-inf: :challenge is ##-Inf; challenge rating left unset"));
  EXPECT_TRUE(has(w, "monsters/quarter: :challenge is the string \"1/4\"; read as 1/4"));
  EXPECT_TRUE(has(w, "monsters/junk: :challenge is the string \"deadly\", not a challenge rating; left unset"));
  EXPECT_TRUE(has(w, "monsters/negative: challenge rating -1 is out of range; left unset"));
  EXPECT_TRUE(has(w, "monsters/negative: hit points 1e+300 are out of range; ignored"));
  EXPECT_TRUE(has(w, "monsters/negative: :armor-class 1e+300 is not a whole number from 0 to 1000; ignored"));
  EXPECT_FALSE(entity(f, "orcbrew-p_negative").facets.hit_points);
  EXPECT_TRUE(has(w, "monsters/listed: :challenge is a vector where a number is expected"));
  EXPECT_TRUE(f.packs[0].problems.empty());
}

TEST(OrcBrewDamage, WrongValueTypesAreConvertedOrIgnoredAndReported) {
  const auto f = import(pack(R"edn(:orcpub.dnd.e5/spells
    {:s {:name "S" :level "3" :school :necromancy :range 60 :duration {:rounds 1} :ritual "yes"
         :components 7 :spell-lists "wizard" :level-2 nil}}
    :orcpub.dnd.e5/monsters
    {:m {:name "M" :armor-class "13 (natural armor)" :hit-points "10 (3d6)" :traits {:name "Solo" :description "One."}
         :actions "Bite." :size ["large"] :speed {:walk 30 :hover true} :str "x"}}
    :orcpub.dnd.e5/classes {:c {:name "C" :hit-die 10.5 :profs [:save]}})edn"));
  const Entity& s = entity(f, "orcbrew-p_s");
  EXPECT_EQ(s.facets.level, 3);
  EXPECT_EQ(s.facets.school, "necromancy");
  EXPECT_EQ(s.data["range"], "60");
  EXPECT_FALSE(s.data.contains("duration"));
  EXPECT_EQ(s.facets.ritual, true);
  EXPECT_EQ(s.data["classes"], (model::json{"Wizard"}));
  const Entity& m = entity(f, "orcbrew-p_m");
  EXPECT_EQ(m.facets.armor_class, 13);
  EXPECT_EQ(m.data["armor_detail"], "natural armor");
  EXPECT_EQ(m.facets.hit_points, 10);
  EXPECT_EQ(m.data["hit_dice"], "3d6");
  EXPECT_EQ(m.data["traits"][0]["name"], "Solo");  // one map where a list is expected
  EXPECT_FALSE(m.data.contains("actions"));
  EXPECT_EQ(m.facets.size, "large");  // a collection of text is joined
  EXPECT_EQ(m.data["speed"], (model::json{{"walk", 30}, {"hover", true}}));
  EXPECT_FALSE(m.data.contains("ability_scores"));
  const Entity& c = entity(f, "orcbrew-p_c");
  EXPECT_FALSE(c.data.contains("hit_dice"));
  const auto& w = f.packs[0].warnings;
  EXPECT_TRUE(has(w, "spells/s: :level is the string \"3\"; read as 3")) << all(w);
  EXPECT_TRUE(has(w, "spells/s: :range is the integer 60 where text is expected; used as \"60\""));
  EXPECT_TRUE(has(w, "spells/s: :duration is a map where text is expected; ignored"));
  EXPECT_TRUE(has(w, "spells/s: :ritual is the string \"yes\"; read as true"));
  EXPECT_TRUE(has(w, "monsters/m: :armor-class is the string \"13 (natural armor)\"; read as 13"));
  EXPECT_TRUE(has(w, "monsters/m: :hit-points is the string \"10 (3d6)\"; read as 10"));
  EXPECT_TRUE(has(w, "monsters/m: :actions is the string \"Bite.\" where a list of entries is expected; ignored"));
  EXPECT_TRUE(has(w, "monsters/m: :str is the string \"x\" where a number is expected; ignored"));
  EXPECT_TRUE(has(w, "classes/c: :hit-die 10.5 is not a whole number from 1 to 100; ignored"));
  EXPECT_TRUE(has(w, "classes/c: :profs is a vector where a map is expected; ignored"));
  EXPECT_TRUE(f.packs[0].problems.empty());
}

TEST(OrcBrewDamage, KindsAndPacksThatAreNotMaps) {
  const auto f = import(R"edn({"A" {:orcpub.dnd.e5/feats nil
                                 :orcpub.dnd.e5/backgrounds "see the website"
                                 :orcpub.dnd.e5/subclasses [{:key :lost :name "Oath of the Lost" :class :paladin}
                                                            {:name "Named Only"} nil {:description "x"}]
                                 "spells" {:x {:name "X"}}}
                            "B" nil
                            "C" [1 2]
                            :stray {:x 1}})edn");
  ASSERT_EQ(f.packs.size(), 3u);
  const auto& a = f.packs[0];
  EXPECT_TRUE(has(a.warnings, "feats: nil instead of a map of entities; nothing to import")) << all(a.warnings);
  EXPECT_TRUE(has(a.warnings, "subclasses: a vector of 4 entries instead of a map keyed by entity key"));
  EXPECT_TRUE(has(a.warnings, "subclasses/[0]: keyed by \"lost\" from its own :key or name"));
  EXPECT_TRUE(has(a.warnings, "subclasses/[1]: keyed by \"named-only\" from its own :key or name"));
  EXPECT_EQ(entity(f, "orcbrew-a_lost").facets.parent_key, "srd_paladin");
  EXPECT_EQ(entity(f, "orcbrew-a_named-only").name, "Named Only");
  EXPECT_EQ(a.imported_per_kind.at("subclasses"), 2);
  ASSERT_EQ(a.problems.size(), 4u);
  EXPECT_EQ(a.problems[0].kind, "backgrounds");
  EXPECT_EQ(a.problems[0].key, "");
  EXPECT_EQ(a.problems[0].reason,
            "the kind is the string \"see the website\", not a map of entities; nothing in it was imported");
  EXPECT_EQ(a.problems[1].key, "[2]");
  EXPECT_EQ(a.problems[1].reason, "the entry is nil, not an entity map");
  EXPECT_EQ(a.problems[2].key, "[3]");
  EXPECT_EQ(a.problems[2].reason, "the entry has no usable key: no keyword map key, :key or :name");
  EXPECT_EQ(a.problems[3].kind, "\"spells\"");
  EXPECT_EQ(a.problems[3].reason, "a pack entry keyed by the string \"spells\", not a kind keyword; not imported");
  EXPECT_EQ(f.packs[1].pack_name, "B");
  EXPECT_EQ(f.packs[1].problems.at(0).reason, "the pack is nil, not a map of kinds; nothing in it was imported");
  EXPECT_EQ(f.packs[1].document.key, "orcbrew-b");  // filled, so a re-import can clear the pack
  EXPECT_EQ(f.packs[2].problems.at(0).reason, "the pack is a vector, not a map of kinds; nothing in it was imported");
  EXPECT_TRUE(has(f.warnings, "top-level key :stray is not a pack name (a map); its content was not imported"));
  // Only packs that imported something get a document.
  ASSERT_EQ(f.documents.size(), 1u);
  EXPECT_EQ(f.documents[0].key, "orcbrew-a");
}

TEST(OrcBrewDamage, DuplicateKeysAreReportedWithTheirPosition) {
  const auto f = import(
      "{\"P\" {:orcpub.dnd.e5/spells\n"
      "  {:bolt {:name \"Bolt v1\" :level 1 :school \"evocation\"}\n"
      "   :bolt {:name \"Bolt v2\" :level 1 :school \"evocation\" :name \"Bolt v3\"}}}}\n");
  EXPECT_EQ(f.duplicate_map_keys, 2u);
  ASSERT_EQ(f.entities.size(), 1u);
  EXPECT_EQ(f.entities[0].name, "Bolt v3");
  EXPECT_EQ(f.warnings.at(0), "2 duplicate map key(s) in the file: the last value of each was kept");
  EXPECT_TRUE(has(f.warnings, "line 3, column 4: duplicate map key :bolt")) << all(f.warnings);
  EXPECT_TRUE(has(f.warnings, "line 3, column 56: duplicate map key :name")) << all(f.warnings);
}

TEST(OrcBrewDamage, KeysThatCollideAfterNormalisationAreKeptApart) {
  const auto f = import(R"edn({"My Pack" {:orcpub.dnd.e5/classes {:champion {:name "Champion"}}
                                       :orcpub.dnd.e5/subclasses {:champion {:name "Champion Path" :class :fighter}}
                                       :orcpub.dnd.e5/spells {:Fire-Bolt {:name "A"} :fire-bolt {:name "B"}}}
                            "my pack!" {:orcpub.dnd.e5/spells {:fire-bolt {:name "C"}}}})edn");
  EXPECT_EQ(entity(f, "orcbrew-my-pack_champion").name, "Champion");
  EXPECT_EQ(entity(f, "orcbrew-my-pack_champion-2").name, "Champion Path");
  EXPECT_EQ(entity(f, "orcbrew-my-pack_champion-2").facets.parent_key, "srd_fighter");
  EXPECT_EQ(entity(f, "orcbrew-my-pack_fire-bolt").name, "A");
  EXPECT_EQ(entity(f, "orcbrew-my-pack_fire-bolt-2").name, "B");
  EXPECT_EQ(f.packs[1].document.key, "orcbrew-my-pack-2");
  EXPECT_EQ(entity(f, "orcbrew-my-pack-2_fire-bolt").name, "C");
  EXPECT_TRUE(has(f.packs[0].warnings,
                  "subclasses/champion: key \"orcbrew-my-pack_champion\" is taken by an earlier class of this pack; "
                  "stored as \"orcbrew-my-pack_champion-2\""))
      << all(f.packs[0].warnings);
  EXPECT_TRUE(has(f.packs[1].warnings, "document key \"orcbrew-my-pack\" is taken by an earlier pack of this file"));
  std::set<std::pair<int, std::string>> keys;
  for (const auto& e : f.entities) EXPECT_TRUE(keys.insert({static_cast<int>(e.kind), e.key}).second) << e.key;
}

TEST(OrcBrewDamage, EveryFieldSurvivesEveryKindOfValue) {
  // Each field the mapper reads, set to values of every shape, in an entity of every kind: nothing crashes or
  // throws, and every entity is still imported.
  const std::vector<std::string> fields = {"name",
                                           "description",
                                           "desc",
                                           "summary",
                                           "help",
                                           "level",
                                           "school",
                                           "casting-time",
                                           "range",
                                           "components",
                                           "duration",
                                           "concentration",
                                           "ritual",
                                           "higher-level",
                                           "spell-lists",
                                           "classes",
                                           "size",
                                           "type",
                                           "subtypes",
                                           "alignment",
                                           "armor-class",
                                           "armor-notes",
                                           "hit-points",
                                           "speed",
                                           "str",
                                           "cha",
                                           "abilities",
                                           "saving-throws",
                                           "skills",
                                           "damage-immunities",
                                           "condition-immunities",
                                           "senses",
                                           "languages",
                                           "challenge",
                                           "traits",
                                           "actions",
                                           "reactions",
                                           "legendary-actions",
                                           "lair-actions",
                                           "hit-die",
                                           "profs",
                                           "spellcasting",
                                           "class",
                                           "race",
                                           "darkvision",
                                           "equipment",
                                           "ability-increases",
                                           "prerequisite",
                                           "prereqs",
                                           "item-type",
                                           "rarity",
                                           "attunement",
                                           "requires-attunement",
                                           "cost",
                                           "weight",
                                           "damage-die",
                                           "damage-die-count",
                                           "damage",
                                           "ranged?",
                                           "simple?",
                                           "versatile",
                                           "thrown?",
                                           "base-ac",
                                           "max-dex-mod",
                                           "stealth-disadvantage?",
                                           "min-str",
                                           "key",
                                           "option-pack"};
  const std::vector<std::string> values = {"nil",
                                           "##NaN",
                                           "##-Inf",
                                           "[]",
                                           "{}",
                                           "\"\"",
                                           "\"x (y)\"",
                                           "-7",
                                           "1e300",
                                           ":kw",
                                           "#{nil}",
                                           "true",
                                           "[nil {:name 1} \"s\"]",
                                           "{nil nil}",
                                           "{:die \"a\" :die-count ##NaN :actions 3}",
                                           "123456789012345678901234",
                                           "\\c",
                                           "#inst \"1985\""};
  std::string text = "{\"P\" {";
  for (const auto& m : supported_kinds()) {
    text += ":orcpub.dnd.e5/" + std::string(m.orcbrew_kind) + " {";
    int i = 0;
    for (const auto& field : fields) {
      for (const auto& value : values) text += ":e" + std::to_string(i++) + " {:" + field + " " + value + "} ";
    }
    text += "} ";
  }
  text += "}}";
  const auto f = import(text);
  ASSERT_EQ(f.packs.size(), 1u);
  const size_t per_kind = fields.size() * values.size();
  for (const auto& m : supported_kinds()) {
    EXPECT_EQ(f.packs[0].imported_per_kind.at(std::string(m.orcbrew_kind)), static_cast<int>(per_kind))
        << m.orcbrew_kind;
  }
  EXPECT_TRUE(f.packs[0].problems.empty());
  EXPECT_FALSE(f.packs[0].warnings.empty());
  for (const auto& e : f.entities) {
    EXPECT_FALSE(e.name.empty());
    EXPECT_FALSE(e.data.dump().empty());
    EXPECT_FALSE(e.raw.dump().empty());
  }
  EXPECT_FALSE(report_json(f, "x").dump().empty());
}

// --- file shapes ---

TEST(OrcBrewFiles, RootThatIsNotAMapIsAnError) {
  auto r = read_orcbrew("[{\"P\" {}}]", "broken.orcbrew");
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "broken.orcbrew: expected a map of packs at the top level, found a vector");
  auto nil = read_orcbrew("nil", "nil.orcbrew");
  ASSERT_FALSE(nil.is_ok());
  EXPECT_EQ(nil.status().message(), "nil.orcbrew: expected a map of packs at the top level, found nil");
}

TEST(OrcBrewFiles, EdnErrorsKeepTheirPositionAndNameTheFile) {
  auto r = read_orcbrew("{\"P\" {:orcpub.dnd.e5/spells\n  {:x {:name \"X\" :level 1/2}}}}", "bad.orcbrew");
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message().rfind("bad.orcbrew: line 2, column ", 0), 0u) << r.status().message();
  auto truncated = read_orcbrew("{\"P\" {:orcpub.dnd.e5/spells {:x {:name \"X\"", "cut.orcbrew");
  ASSERT_FALSE(truncated.is_ok());
  EXPECT_EQ(truncated.status().message().rfind("cut.orcbrew: line 1, column ", 0), 0u) << truncated.status().message();
}

TEST(OrcBrewFiles, ByteOrderMarkAndEmptyFile) {
  const auto f = import("\xEF\xBB\xBF{\"P\" {:orcpub.dnd.e5/feats {:f {:name \"F\"}}}}");
  EXPECT_EQ(f.entities.size(), 1u);
  const auto empty = import("{}");
  EXPECT_TRUE(empty.packs.empty());
  EXPECT_TRUE(has(empty.warnings, "the file holds no packs"));
}

TEST(OrcBrewFiles, SinglePackExportsAreNamedByOptionPackOrFile) {
  const auto shared = import(R"edn({:orcpub.dnd.e5/spells {:a {:name "A" :option-pack "Emberfall"}}
                                 :orcpub.dnd.e5/feats {:b {:name "B" :option-pack "Emberfall"}}})edn",
                             "downloads/whatever.orcbrew");
  ASSERT_EQ(shared.packs.size(), 1u);
  EXPECT_EQ(shared.packs[0].pack_name, "Emberfall");
  EXPECT_EQ(shared.documents.at(0).key, "orcbrew-emberfall");
  EXPECT_TRUE(has(shared.warnings, "named \"Emberfall\" after the :option-pack its entries share"));
  const auto mixed =
      import(R"edn({:orcpub.dnd.e5/spells {:a {:name "A" :option-pack "X"} :b {:name "B" :option-pack "Y"}}})edn",
             "C:\\brews\\Grim Tidings.orcbrew");
  EXPECT_EQ(mixed.packs.at(0).pack_name, "Grim Tidings");
  EXPECT_TRUE(has(mixed.warnings, "named \"Grim Tidings\" after the file (its entries name several packs)"));
  const auto bare = import(R"edn({:spells {:a {:name "A"}}})edn", "notes.orcbrew");
  EXPECT_EQ(bare.packs.at(0).pack_name, "notes");
  EXPECT_EQ(bare.entities.size(), 1u);
}

TEST(OrcBrewFiles, VersionedEnvelopeIsUnwrapped) {
  const auto f = import(R"edn({:orcbrew/format-version 2 :orcbrew/requires [:grant]
                            :orcbrew/content {"P" {:orcpub.dnd.e5/feats {:f {:name "F" :grant {:from :x}}}}}})edn");
  ASSERT_EQ(f.entities.size(), 1u);
  EXPECT_EQ(f.entities[0].key, "orcbrew-p_f");
  EXPECT_TRUE(has(f.warnings, "versioned OrcBrew envelope (format version 2)")) << all(f.warnings);
  auto bad = read_orcbrew("{:orcbrew/format-version 3}", "v3.orcbrew");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find(":orcbrew/content is missing"), std::string::npos);
}

TEST(OrcBrewFiles, MappingIsDeterministic) {
  const std::string text = read_fixture("multi-pack.orcbrew");
  const auto a = import(text, "multi-pack.orcbrew");
  const auto b = import(text, "multi-pack.orcbrew");
  ASSERT_EQ(a.entities.size(), b.entities.size());
  for (size_t i = 0; i < a.entities.size(); ++i) {
    EXPECT_EQ(a.entities[i].key, b.entities[i].key);
    EXPECT_EQ(a.entities[i].data.dump(), b.entities[i].data.dump());
    EXPECT_EQ(a.entities[i].raw.dump(), b.entities[i].raw.dump());
    EXPECT_EQ(a.entities[i].text, b.entities[i].text);
  }
  EXPECT_EQ(report_json(a, "x").dump(), report_json(b, "x").dump());
}

// --- EDN -> JSON ---

TEST(OrcBrewJson, ConversionRules) {
  auto v = edn::parse(
      R"edn({:k :orcpub.dnd.e5/spells, "s" "text", 1 2, nil nil, [1] #{:a}, :f 1.5, :nan ##NaN, :inf ##-Inf,
          :big 123456789012345678901234, :c \x, :l (1 "two" :three), :t #inst "1985-04-12", :sym foo/bar})edn");
  ASSERT_TRUE(v.is_ok());
  const auto j = to_json(*v);
  EXPECT_EQ(j["k"], "orcpub.dnd.e5/spells");
  EXPECT_EQ(j["s"], "text");
  EXPECT_EQ(j["1"], 2);
  EXPECT_TRUE(j["nil"].is_null());
  EXPECT_EQ(j["[1]"], (model::json{"a"}));
  EXPECT_EQ(j["f"], 1.5);
  EXPECT_TRUE(j["nan"].is_null());
  EXPECT_TRUE(j["inf"].is_null());
  EXPECT_EQ(j["big"], "123456789012345678901234");
  EXPECT_EQ(j["c"], "x");
  EXPECT_EQ(j["l"], (model::json{1, "two", "three"}));
  EXPECT_EQ(j["t"], "1985-04-12");
  EXPECT_EQ(j["sym"], "foo/bar");
  EXPECT_EQ(to_json(*v).dump(), j.dump());
}

TEST(OrcBrewJson, ReportJsonShape) {
  const auto f = import(read_fixture("damaged.orcbrew"), "damaged.orcbrew");
  const auto j = report_json(f, "damaged.orcbrew");
  EXPECT_EQ(j["file"], "damaged.orcbrew");
  EXPECT_EQ(j["entities"], f.entities.size());
  EXPECT_EQ(j["documents"], f.documents.size());
  ASSERT_EQ(j["packs"].size(), f.packs.size());
  EXPECT_EQ(j["packs"][0]["pack"], "Cursed Tome");
  EXPECT_EQ(j["packs"][0]["document_key"], "orcbrew-cursed-tome");
  EXPECT_EQ(j["packs"][0]["imported"]["monsters"], 4);
  EXPECT_EQ(j["packs"][0]["imported_total"], 7);
  EXPECT_EQ(j["packs"][0]["unsupported"]["boons"], 1);
  EXPECT_EQ(
      j["packs"][0]["problems"][0],
      (model::json{{"kind", "spells"}, {"key", "broken-spell"}, {"reason", "the entry is nil, not an entity map"}}));
  EXPECT_EQ(j["warnings"][0], "1 duplicate map key(s) in the file: the last value of each was kept");
}

// --- fixtures (tests/fixtures/orcbrew/README.md states these figures) ---

TEST(OrcBrewFixtures, MultiPack) {
  const auto f = import(read_fixture("multi-pack.orcbrew"), "multi-pack.orcbrew");
  ASSERT_EQ(f.packs.size(), 2u);
  EXPECT_TRUE(f.warnings.empty()) << all(f.warnings);
  const auto& g = f.packs[0];
  EXPECT_EQ(g.pack_name, "Homebrew Grimoire");
  EXPECT_EQ(g.document.key, "orcbrew-homebrew-grimoire");
  EXPECT_EQ(g.imported_per_kind,
            (std::map<std::string, int>{{"classes", 1}, {"languages", 1}, {"spells", 4}, {"subclasses", 2}}));
  EXPECT_EQ(g.unsupported_kinds, (std::map<std::string, int>{{"invocations", 1}}));
  const auto& b = f.packs[1];
  EXPECT_EQ(b.pack_name, "Beasts of the Mirewood");
  EXPECT_EQ(b.document.key, "orcbrew-beasts-of-the-mirewood");
  EXPECT_EQ(b.imported_per_kind, (std::map<std::string, int>{{"armor", 1},
                                                             {"backgrounds", 1},
                                                             {"feats", 1},
                                                             {"magic-items", 1},
                                                             {"monsters", 3},
                                                             {"races", 1},
                                                             {"subraces", 2},
                                                             {"weapons", 1}}));
  EXPECT_EQ(b.unsupported_kinds, (std::map<std::string, int>{{"encounters", 2}}));
  for (const auto& p : f.packs) {
    EXPECT_TRUE(p.problems.empty());
    EXPECT_TRUE(p.warnings.empty()) << all(p.warnings);
  }
  EXPECT_EQ(f.entities.size(), 19u);
  ASSERT_EQ(f.documents.size(), 2u);
  EXPECT_EQ(f.documents[1].name, "Beasts of the Mirewood");
  // Ten model kinds appear, and every entity carries text for search.
  std::set<Kind> kinds;
  for (const auto& e : f.entities) {
    kinds.insert(e.kind);
    EXPECT_FALSE(e.text.empty()) << e.key;
    EXPECT_EQ(e.source_api, "orcbrew");
  }
  EXPECT_EQ(kinds.size(), 10u);
  EXPECT_EQ(entity(f, "orcbrew-homebrew-grimoire_school-of-rime").facets.parent_key, "srd_wizard");
  EXPECT_EQ(entity(f, "orcbrew-beasts-of-the-mirewood_mire-rat").facets.cr, 0.125);
  EXPECT_EQ(entity(f, "orcbrew-beasts-of-the-mirewood_marsh-drake").facets.hit_points, 136);
}

TEST(OrcBrewFixtures, Damaged) {
  const auto f = import(read_fixture("damaged.orcbrew"), "damaged.orcbrew");
  ASSERT_EQ(f.packs.size(), 3u);
  EXPECT_EQ(f.duplicate_map_keys, 1u);
  const auto& tome = f.packs[0];
  EXPECT_EQ(tome.imported_per_kind, (std::map<std::string, int>{{"monsters", 4}, {"spells", 2}, {"subclasses", 1}}));
  EXPECT_EQ(tome.unsupported_kinds, (std::map<std::string, int>{{"boons", 1}}));
  ASSERT_EQ(tome.problems.size(), 4u);
  EXPECT_EQ(tome.skipped_entities(), 3);
  EXPECT_EQ(tome.warnings.size(), 16u) << all(tome.warnings);
  EXPECT_TRUE(has(f.warnings, "line 15, column 4: duplicate map key :blight-bolt")) << all(f.warnings);
  EXPECT_EQ(entity(f, "orcbrew-cursed-tome_blight-bolt").data["desc"],
            "A bolt of rot withers a creature within range: 3d8 necrotic damage.");
  EXPECT_EQ(entity(f, "orcbrew-cursed-tome_tome-imp").facets.cr, 0.25);
  EXPECT_FALSE(entity(f, "orcbrew-cursed-tome_nan-horror").facets.cr);
  EXPECT_EQ(entity(f, "orcbrew-cursed-tome_numbered-thing").name, "42");
  EXPECT_EQ(entity(f, "orcbrew-cursed-tome_oath-of-the-lost").facets.parent_key, "artificer");
  EXPECT_EQ(f.packs[1].pack_name, "Empty Pack");
  EXPECT_EQ(f.packs[1].problems.size(), 1u);
  EXPECT_EQ(f.packs[2].pack_name, "Unnamed Content");
  EXPECT_EQ(f.packs[2].document.key, "orcbrew-unnamed-content");
  EXPECT_EQ(f.packs[2].imported(), 1);
  EXPECT_EQ(f.packs[2].warnings.size(), 1u);
  EXPECT_EQ(f.documents.size(), 2u);
  EXPECT_EQ(f.entities.size(), 8u);
}

TEST(OrcBrewFixtures, SinglePackAndSample) {
  const auto single = import(read_fixture("single-pack.orcbrew"), "single-pack.orcbrew");
  ASSERT_EQ(single.packs.size(), 1u);
  EXPECT_EQ(single.packs[0].pack_name, "Emberfall Extras");
  EXPECT_EQ(single.warnings.size(), 1u);
  EXPECT_EQ(single.entities.size(), 2u);
  EXPECT_EQ(entity(single, "orcbrew-emberfall-extras_ember-ward").facets.concentration, true);
  const auto sample = import(read_fixture("sample.orcbrew"), "sample.orcbrew");
  ASSERT_EQ(sample.packs.size(), 1u);
  EXPECT_EQ(sample.packs[0].pack_name, "Test Content Pack");
  EXPECT_EQ(sample.packs[0].imported_per_kind, (std::map<std::string, int>{{"monsters", 2}, {"spells", 2}}));
  EXPECT_EQ(entity(sample, "orcbrew-test-content-pack_goblin").data["challenge_rating_text"], "1/4");
  EXPECT_EQ(entity(sample, "orcbrew-test-content-pack_dragon-red-adult").data["challenge_rating_text"], "17");
  EXPECT_TRUE(sample.packs[0].warnings.empty()) << all(sample.packs[0].warnings);
}

// --- scale ---

// A file of more values than a pack may hold is refused whole, with the bound, before any of it is mapped.
TEST(OrcBrewScale, AFileOfTooManyValuesIsRefused) {
  std::string text = "{\"Tiny\" {:orcpub.dnd.e5/feats {:a {:name \"A\"}} :orcpub.dnd.e5/selections [";
  text.reserve(text.size() + 2 * kMaxValues + 8);
  for (size_t i = 0; i < kMaxValues; ++i) text += "0 ";
  text += "]}}";
  auto r = read_orcbrew(text, "amplified.orcbrew");
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("amplified.orcbrew: line 1, column "), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("more than 4000000 values"), std::string::npos) << r.status().message();
}

TEST(OrcBrewScale, FortyThousandLinePackImportsCleanly) {
  std::string text = "{\"Big Pack\"\n {:orcpub.dnd.e5/spells\n  {\n";
  size_t lines = 3;
  const int kSpells = 2000;
  const int kMonsters = 1000;
  for (int i = 0; i < kSpells; ++i) {
    const std::string k = "spell-" + std::to_string(i);
    text +=
        "   :" + k + "\n   {:key :" + k + ", :name \"Spell " + std::to_string(i) +
        "\", :option-pack \"Big Pack\",\n    :level " + std::to_string(i % 10) +
        ", :school \"evocation\", :casting-time \"1 action\",\n    :range \"60 feet\", :duration \"Instantaneous\",\n"
        "    :components {:verbal true, :somatic true},\n"
        "    :description \"A generated spell that deals force damage.\",\n"
        "    :spell-lists {:wizard true, :sorcerer true}\n    :ritual false\n    :page 42\n"
        "    :concentration false}\n";
    lines += 10;
  }
  text += "  }\n  :orcpub.dnd.e5/monsters\n  {\n";
  lines += 3;
  for (int i = 0; i < kMonsters; ++i) {
    const std::string k = "monster-" + std::to_string(i);
    text += "   :" + k + "\n   {:key :" + k + ",\n    :name \"Monster " + std::to_string(i) +
            "\",\n    :option-pack \"Big Pack\",\n    :size :medium,\n    :type :beast,\n"
            "    :alignment \"unaligned\",\n    :armor-class 12,\n    :hit-points {:die 8, :die-count 3},\n"
            "    :speed \"30 ft.\",\n    :str 12, :dex 12, :con 12,\n    :int 3, :wis 10, :cha 5,\n"
            "    :senses \"passive Perception 10\",\n    :challenge " +
            std::string(i % 2 == 0 ? "0.5" : "2") +
            ",\n    :traits [{:name \"Keen Smell\", :description \"Advantage on smell checks.\"}],\n"
            "    :actions\n    [{:name \"Bite\",\n      :description \"Melee Weapon Attack: +3 to hit.\"}]\n"
            "    :languages \"-\"\n    :description \"A generated beast.\"}\n";
    lines += 20;
  }
  text += "  }}}\n";
  lines += 1;
  EXPECT_GE(lines, 40000u);
  EXPECT_EQ(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')), lines);
  // Speed is measured by BM_OrcbrewReadLargePack (bench/), not here.
  const auto f = import(text, "big.orcbrew");
  ASSERT_EQ(f.packs.size(), 1u);
  EXPECT_EQ(f.packs[0].imported_per_kind, (std::map<std::string, int>{{"monsters", kMonsters}, {"spells", kSpells}}));
  EXPECT_TRUE(f.packs[0].problems.empty());
  EXPECT_TRUE(f.packs[0].warnings.empty()) << all(f.packs[0].warnings);
  EXPECT_TRUE(f.warnings.empty());
  EXPECT_EQ(f.entities.size(), static_cast<size_t>(kSpells + kMonsters));
  std::set<std::string> keys;
  for (const auto& e : f.entities) keys.insert(e.key);
  EXPECT_EQ(keys.size(), f.entities.size());
  EXPECT_EQ(entity(f, "orcbrew-big-pack_spell-1999").facets.level, 9);
  EXPECT_EQ(entity(f, "orcbrew-big-pack_monster-999").facets.cr, 2.0);
}

}  // namespace
}  // namespace lorekeeper::orcbrew
