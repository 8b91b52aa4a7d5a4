// What the words of a query say about facets (search/understand.hpp).
#include "lorekeeper/search/understand.hpp"

#include <gtest/gtest.h>

namespace lorekeeper::search {
namespace {

using model::Kind;

store::Query of(std::vector<Kind> kinds) {
  store::Query q;
  q.kinds = std::move(kinds);
  return q;
}

// "field=value|value" of each facet, in the order the query says them.
std::vector<std::string> said(std::string_view query, const store::Query& q) {
  std::vector<std::string> out;
  for (const auto& f : understand(query, q)) {
    std::string s = f.field + "=";
    for (size_t i = 0; i < f.values.size(); ++i) s += (i ? "|" : "") + f.values[i];
    out.push_back(s);
  }
  return out;
}

using V = std::vector<std::string>;

TEST(Understand, FacetsOfCreatures) {
  const auto creatures = of({Kind::kCreature});
  EXPECT_EQ(said("creatures that fly and attack from above", creatures), (V{"movement=fly"}));
  EXPECT_EQ(said("a swimming beast whose bite paralyzes", creatures),
            (V{"movement=swim", "type=beast", "condition=paralyzed"}));
  EXPECT_EQ(said("monster that turns people to stone", creatures), (V{"condition=petrified"}));
  EXPECT_EQ(said("legendary dragon that breathes fire", creatures),
            (V{"trait=legendary", "type=dragon", "damage_type=fire"}));
  EXPECT_EQ(said("archer that shoots from a distance", creatures), (V{"attack_range=ranged"}));
  // A spell's facets say nothing of creatures.
  EXPECT_EQ(said("ritual cantrip with concentration", creatures), V{});
}

TEST(Understand, ASizeAfterSwarmOfIsTheMembersAndIsNotRead) {
  const auto creatures = of({Kind::kCreature});
  EXPECT_EQ(said("a tiny bat", creatures), (V{"size=tiny"}));
  EXPECT_EQ(said("a swarm of tiny bats", creatures), V{});
  EXPECT_EQ(said("a pack of small dogs that hunt together", creatures), V{});
  EXPECT_EQ(said("a huge beetle among a flock of tiny birds", creatures), (V{"size=huge"}));
}

TEST(Understand, FacetsOfSpells) {
  const auto spells = of({Kind::kSpell});
  EXPECT_EQ(said("Dexterity save spell that deals fire damage", spells),
            (V{"save_ability=dexterity", "damage_type=fire"}));
  EXPECT_EQ(said("cantrip I can cast as a bonus action", spells), (V{"level=0", "casting_time=bonus-action"}));
  EXPECT_EQ(said("ritual to talk with the dead", spells), (V{"ritual=true"}));
  EXPECT_EQ(said("buff that needs no concentration", spells), (V{"concentration=false"}));
  EXPECT_EQ(said("concentration spell that heals", spells), (V{"concentration=true", "trait=heals"}));
  EXPECT_EQ(said("3rd-level spell to counter magic as a reaction", spells), (V{"level=3", "casting_time=reaction"}));
  EXPECT_EQ(said("stop enemies from moving or acting", spells), (V{"condition=restrained|grappled|paralyzed"}));
  // Creature movement is not a spell's.
  EXPECT_EQ(said("let me fly", spells), V{});
}

// What is warded against is not what the entry does.
TEST(Understand, ProtectiveSenseNamesNoDamageOrCondition) {
  const auto spells = of({Kind::kSpell});
  EXPECT_EQ(said("protect from fire damage", spells), V{});
  EXPECT_EQ(said("resistance to cold and lightning", spells), V{});
  EXPECT_EQ(said("cure a creature that is poisoned", spells), V{});
  EXPECT_EQ(said("immunity to being frightened", spells), V{});
  // The protective word must be near: far before the facet it does not count.
  EXPECT_EQ(said("protect allies then later on strike foes with fire", spells), (V{"damage_type=fire"}));
}

TEST(Understand, WeaponsArmorAndKinds) {
  const auto weapons = of({Kind::kWeapon});
  EXPECT_EQ(said("weapons for attacking from a distance", weapons), (V{"attack_range=ranged"}));
  EXPECT_EQ(said("light finesse weapon I can throw", weapons),
            (V{"property=light", "property=finesse", "property=thrown"}));
  const auto gear = of({Kind::kWeapon, Kind::kArmor, Kind::kItem, Kind::kMagicItem});
  // "light armor" is armor's category, not the light weapon property.
  EXPECT_EQ(said("light armor for a rogue", gear), (V{"type=light"}));
  EXPECT_EQ(said("armor and shields for protection", gear), (V{"kind=armor", "type=shield"}));
  // One kind searched: the word for it says nothing more.
  EXPECT_EQ(said("weapon", weapons), V{});
  // Every kind searched (search_all): the word for a kind names it.
  const store::Query all;
  EXPECT_EQ(said("spell so the party can survive beneath the sea", all), (V{"kind=spell"}));
  EXPECT_EQ(said("a monster that swims", all), (V{"kind=creature", "movement=swim"}));
  EXPECT_EQ(said("magic items for a rogue", gear), (V{"kind=magic item"}));
  EXPECT_EQ(said("spells", of({Kind::kSpell})), V{});
}

// Negation flips a yes/no facet and drops any other; punctuation does not hide a word; the protective sense stays
// within its clause.
TEST(Understand, NegationPunctuationAndClauses) {
  const auto spells = of({Kind::kSpell});
  const auto creatures = of({Kind::kCreature});
  EXPECT_EQ(said("damage spells that don't require concentration", spells), (V{"concentration=false"}));
  EXPECT_EQ(said("spell that does not need concentration", spells), (V{"concentration=false"}));
  EXPECT_EQ(said("a dragon that cannot fly", creatures), (V{"type=dragon"}));
  EXPECT_EQ(said("which monsters can fly?", creatures), (V{"movement=fly"}));
  EXPECT_EQ(said("a \"cantrip\" that deals fire damage!", spells), (V{"level=0", "damage_type=fire"}));
  EXPECT_EQ(said("[concentration] spells", spells), (V{"concentration=true"}));
  EXPECT_EQ(said("spells against undead that deal fire damage", spells), (V{"damage_type=fire"}));
  EXPECT_EQ(said("makes a creature immune to fire and deals cold damage", spells), (V{"damage_type=cold"}));
}

TEST(Understand, WhatTheCallerFiltersByIsNotReadAgain) {
  auto spells = of({Kind::kSpell});
  spells.damage_type = "cold";
  spells.level = 2;
  EXPECT_EQ(said("2nd level cold spell", spells), V{});
  // Another value of a single-valued filter is still read: swimmers that also fly rank higher.
  auto swimmers = of({Kind::kCreature});
  swimmers.movement = "swim";
  EXPECT_EQ(said("that flies", swimmers), (V{"movement=fly"}));
  EXPECT_EQ(said("that swims", swimmers), V{});
  EXPECT_EQ(said("", spells), V{});
  EXPECT_EQ(said("   ", of({})), V{});
}

TEST(Understand, NarrowedAddsTheFacetToTheCallersFilters) {
  store::Query q = of({Kind::kCreature, Kind::kSpell});
  q.cr_max = 5;
  const auto facets = understand("undead that drain life", q);
  ASSERT_EQ(facets.size(), 2u);
  const store::Query n = narrowed(q, facets[0], 0);
  EXPECT_EQ(n.type, "undead");
  EXPECT_EQ(n.kinds, (std::vector<Kind>{Kind::kCreature}));
  EXPECT_EQ(n.cr_max, 5);
  EXPECT_EQ(narrowed(q, facets[1], 0).damage_type, "necrotic");
  EXPECT_EQ(facets[1].label(), "necrotic damage");
  EXPECT_EQ(facets[1].phrase, "drain life");
}

}  // namespace
}  // namespace lorekeeper::search
