#include "lorekeeper/model/spellcasting.hpp"

#include <gtest/gtest.h>

#include "lorekeeper/core/text.hpp"

namespace lorekeeper::model {
namespace {

json full_caster_table() {
  return {{"header", {"Level", "Proficiency Bonus", "Features", "Cantrips Known", "1st", "2nd", "3rd"}},
          {"rows",
           {{"1", "+2", "Spellcasting", "3", "2", "—", "—"},
            {"4", "+2", "Ability Score Improvement", "4", "4", "3", "—"},
            {"5", "+3", "Destroy Undead", "4", "4", "3", "2"}}}};
}

TEST(Spellcasting, ARowGivesSlotsCantripsAndTheHighestLevel) {
  auto row = caster_level(full_caster_table(), 5);
  ASSERT_TRUE(row);
  EXPECT_EQ(row->slots[1], 4);
  EXPECT_EQ(row->slots[2], 3);
  EXPECT_EQ(row->slots[3], 2);
  EXPECT_EQ(row->slots[4], 0);
  EXPECT_EQ(row->cantrips, 4);
  EXPECT_FALSE(row->spells_known);
  EXPECT_FALSE(row->prepared);
  EXPECT_EQ(row->max_spell_level(), 3);
  EXPECT_TRUE(row->casts());
  EXPECT_FALSE(caster_level(full_caster_table(), 2)) << "no row for level 2";
  EXPECT_FALSE(caster_level(json::object(), 1));
  EXPECT_FALSE(caster_level(json::array(), 1));
}

TEST(Spellcasting, ATableWithoutSpellColumnsIsNoCaster) {
  json rogue = {{"header", {"Level", "Proficiency Bonus", "Features", "Sneak Attack"}},
                {"rows", {{"1", "+2", "Expertise", "1d6"}}}};
  EXPECT_FALSE(caster_level(rogue, 1));
  json paladin = {{"header", {"Level", "Proficiency Bonus", "Features", "1st", "2nd"}},
                  {"rows", {{"1", "+2", "Divine Sense", "—", "—"}, {"2", "+2", "Spellcasting", "2", "—"}}}};
  auto first = caster_level(paladin, 1);
  ASSERT_TRUE(first);
  EXPECT_FALSE(first->casts()) << "a half caster's first level has no slots";
  EXPECT_EQ(caster_level(paladin, 2)->max_spell_level(), 1);
  // SRD 5.1's Ranger knows no spells at level 1: its "—" is no number.
  json ranger = {{"header", {"Level", "Proficiency Bonus", "Features", "Spells Known", "1st"}},
                 {"rows", {{"1", "+2", "Favored Enemy", "—", "—"}, {"2", "+2", "Spellcasting", "2", "2"}}}};
  ASSERT_TRUE(caster_level(ranger, 1));
  EXPECT_FALSE(caster_level(ranger, 1)->spells_known);
  EXPECT_FALSE(caster_level(ranger, 1)->casts());
  EXPECT_EQ(caster_level(ranger, 2)->spells_known, 2);
}

TEST(Spellcasting, PactMagicAndMysticArcanumAreRead) {
  json warlock = {
      {"header",
       {"Level", "Proficiency Bonus", "Features", "Cantrips Known", "Slot Level", "Spell Slots", "Spells Known"}},
      {"rows",
       {{"9", "+4", "—", "3", "5th", "2", "10"},
        {"11", "+4", "Mystic Arcanum", "4", "5th", "3", "11"},
        {"13", "+5", "Mystic Arcanum", "4", "5th", "3", "12"}}}};
  auto eleven = caster_level(warlock, 11);
  ASSERT_TRUE(eleven);
  EXPECT_EQ(eleven->pact_slots, 3);
  EXPECT_EQ(eleven->pact_slot_level, 5);
  EXPECT_EQ(eleven->spells_known, 11);
  EXPECT_EQ(eleven->arcanum_levels, std::vector<int>{6});
  EXPECT_EQ(eleven->max_spell_level(), 6);
  EXPECT_EQ(caster_level(warlock, 13)->arcanum_levels, (std::vector<int>{6, 7}));
  EXPECT_TRUE(caster_level(warlock, 9)->arcanum_levels.empty());
}

TEST(Spellcasting, TheFirstCantripColumnAndThePreparedNumberAreTaken) {
  // SRD 5.2's Druid record has a second column called "Cantrips Known" that holds Wild Shape's uses.
  json druid = {
      {"header", {"Level", "Proficiency Bonus", "Features", "Cantrips", "Prepared Spells", "Cantrips Known", "1st"}},
      {"rows", {{"2", "+2", "Wild Shape", "2", "5", "2", "3"}}}};
  auto row = caster_level(druid, 2);
  ASSERT_TRUE(row);
  EXPECT_EQ(row->cantrips, 2);
  EXPECT_EQ(row->prepared, 5);
  EXPECT_EQ(row->slots[1], 3);
}

TEST(Spellcasting, The2014PreparedRuleIsReadFromTheText) {
  auto cleric = prepared_rule(
      "You prepare the list. When you do so, choose a number of cleric spells equal to your Wisdom modifier + your "
      "cleric level (minimum of one spell). The spells must be of a level.");
  ASSERT_TRUE(cleric);
  EXPECT_EQ(cleric->ability, "Wisdom");
  EXPECT_FALSE(cleric->half_level);
  EXPECT_EQ(cleric->count(3, 5), 8);
  EXPECT_EQ(cleric->count(-5, 1), 1) << "at least one";
  EXPECT_EQ(cleric->sentence,
            "When you do so, choose a number of cleric spells equal to your Wisdom modifier + your cleric level "
            "(minimum of one spell).");
  auto paladin = prepared_rule(
      "choose a number of paladin spells equal to your Charisma modifier + half your paladin "
      "level, rounded down (minimum of one spell).");
  ASSERT_TRUE(paladin);
  EXPECT_TRUE(paladin->half_level);
  EXPECT_EQ(paladin->count(3, 5), 5);
  EXPECT_FALSE(prepared_rule("You know two cantrips of your choice."));
  EXPECT_EQ(spellcasting_ability("### Spellcasting Ability\n\nIntelligence is your spellcasting ability for your"),
            "Intelligence");
  EXPECT_EQ(spellcasting_ability("Charisma is the spellcasting ability for your Warlock spells."), "Charisma");
  EXPECT_EQ(spellcasting_ability("No ability here."), "");
}

TEST(Spellcasting, SubclassTablesGrantSpellsByLevelWithTheirGroups) {
  json features = {
      {{"name", "Life Domain Spells (table)"},
       {"desc",
        "| Cleric Level | Spells |\n|---|---|\n| 1st | bless, cure wounds | \n| 3rd | lesser restoration, "
        "spiritual weapon |"}},
      {{"name", "Channel Divinity: Crimson Bond"},
       {"desc", "**Health State Examples**\n\n| 100%    | Untouched |\n| 0%      | Unconscious |"}},
      {{"name", "Circle Spells"},
       {"desc",
        "Choose a land.\n\n**Arctic (table)**\n| Druid Level | Circle Spells | \n|---|---| \n| 3rd | hold "
        "person, spike growth | \n \n**Coast (table)** \n \n| Druid Level | Circle Spells | \n|---|---| \n| 3rd | "
        "mirror image, misty step |"}},
      {{"name", "Expanded Spell List"},
       {"desc",
        "| Spell Level | Animal Lord Spells | Air Spells |\n|---|---|---|\n| 1st | *Speak with Animals* | "
        "*thunderwave* |"}},
      {{"name", "Serpent Domain Spells"},
       {"desc", "Cleric Level | Spells |\n |---|---| \n | 1st | *charm person*, *find familiar* (snakes only) |"}}};
  auto g = granted_spells(features);
  ASSERT_EQ(g.size(), 7u);
  EXPECT_EQ(g[0].feature, "Life Domain Spells (table)");
  EXPECT_EQ(g[0].level, 1);
  EXPECT_FALSE(g[0].spell_level);
  EXPECT_EQ(g[0].group, "");
  EXPECT_EQ(g[0].names, (std::vector<std::string>{"bless", "cure wounds"}));
  EXPECT_EQ(g[1].level, 3);
  EXPECT_EQ(g[2].group, "Arctic");
  EXPECT_EQ(g[2].names, (std::vector<std::string>{"hold person", "spike growth"}));
  EXPECT_EQ(g[3].group, "Coast");
  EXPECT_TRUE(g[4].spell_level);
  EXPECT_EQ(g[4].group, "Animal Lord Spells");
  EXPECT_EQ(g[5].group, "Air Spells");
  EXPECT_EQ(g[5].names, std::vector<std::string>{"thunderwave"});
  EXPECT_EQ(g[6].feature, "Serpent Domain Spells");
  EXPECT_EQ(g[6].names, (std::vector<std::string>{"charm person", "find familiar (snakes only)"}));
  EXPECT_EQ(spell_name_of(g[6].names[1]), "find familiar");
  EXPECT_EQ(spell_name_of("*longstrider,*"), "longstrider");
  // A distance by spell slot level is no spell.
  EXPECT_TRUE(granted_spells(json::array({{{"name", "Shift Space"},
                                           {"desc", "| Spell Slot Level | Distance |\n|---|---|\n| 1st | 30 feet |"}}}))
                  .empty());
  EXPECT_TRUE(granted_spells(json::object()).empty());
  EXPECT_TRUE(granted_spells(json::array({{{"name", 3}}})).empty());
}

TEST(Spellcasting, OrdinalsAreEnglish) {
  EXPECT_EQ(text::ordinal(1), "1st");
  EXPECT_EQ(text::ordinal(2), "2nd");
  EXPECT_EQ(text::ordinal(3), "3rd");
  EXPECT_EQ(text::ordinal(4), "4th");
  EXPECT_EQ(text::ordinal(11), "11th");
  EXPECT_EQ(text::ordinal(12), "12th");
  EXPECT_EQ(text::ordinal(13), "13th");
  EXPECT_EQ(text::ordinal(21), "21st");
  EXPECT_EQ(text::ordinal(112), "112th");
}

}  // namespace
}  // namespace lorekeeper::model
