#include "lorekeeper/gm/attack_math.hpp"

#include <gtest/gtest.h>

#include <numeric>

#include "lorekeeper/model/multiattack.hpp"

namespace lorekeeper {
namespace {

using gm::RollMode;

TEST(AttackMath, HandComputedOdds) {
  // +5 against AC 16 needs a natural 11 or more: half the faces, a natural 20 among them.
  const gm::AttackChance normal = gm::attack_chance(5, 16, RollMode::kNormal);
  EXPECT_DOUBLE_EQ(normal.any_hit(), 0.5);
  EXPECT_DOUBLE_EQ(normal.crit, 0.05);
  EXPECT_DOUBLE_EQ(normal.miss, 0.5);
  EXPECT_DOUBLE_EQ(gm::attack_chance(5, 16, RollMode::kAdvantage).any_hit(), 0.75);
  EXPECT_DOUBLE_EQ(gm::attack_chance(5, 16, RollMode::kDisadvantage).any_hit(), 0.25);
  EXPECT_DOUBLE_EQ(gm::attack_chance(5, 16, RollMode::kAdvantage).crit, 1 - 0.95 * 0.95);
  // At least one of three hits: 1 - 0.5^3.
  const std::vector<double> hits = gm::hits_distribution({0.5, 0.5, 0.5});
  ASSERT_EQ(hits.size(), 4u);
  EXPECT_DOUBLE_EQ(1 - hits[0], 0.875);
  EXPECT_DOUBLE_EQ(hits[1], 0.375);
  EXPECT_DOUBLE_EQ(std::accumulate(hits.begin(), hits.end(), 0.0), 1.0);
  EXPECT_EQ(gm::hits_distribution({}), std::vector<double>{1.0});
}

TEST(AttackMath, NaturalOnesMissAndTwentiesHit) {
  // +30 against AC 5: only a natural 1 misses. -10 against AC 30: only a natural 20 hits, and it is critical.
  EXPECT_DOUBLE_EQ(gm::attack_chance(30, 5, RollMode::kNormal).miss, 0.05);
  const gm::AttackChance hopeless = gm::attack_chance(-10, 30, RollMode::kNormal);
  EXPECT_DOUBLE_EQ(hopeless.any_hit(), 0.05);
  EXPECT_DOUBLE_EQ(hopeless.hit, 0.0);
  // A critical range of 19-20 doubles the critical hits; it never turns a natural 1 into a hit.
  EXPECT_DOUBLE_EQ(gm::attack_chance(5, 16, RollMode::kNormal, 19).crit, 0.1);
  EXPECT_DOUBLE_EQ(gm::attack_chance(5, 16, RollMode::kNormal, 19).any_hit(), 0.5);
  EXPECT_DOUBLE_EQ(gm::attack_chance(5, 16, RollMode::kNormal, 1).miss, 0.05) << "a range below 2 is 2";
  for (RollMode m : {RollMode::kNormal, RollMode::kAdvantage, RollMode::kDisadvantage}) {
    const std::vector<double> faces = gm::d20_faces(m);
    EXPECT_DOUBLE_EQ(std::accumulate(faces.begin(), faces.end(), 0.0), 1.0);
  }
}

TEST(AttackMath, TheOgresGreatclubDealsEightAndAQuarterARoundAgainstAc15) {
  // +6 against AC 15: a natural 9-19 hits (55%) for 2d8+4 = 13, a natural 20 (5%) for 4d8+4 = 22.
  auto mean = gm::damage_mean("2d8+4");
  ASSERT_TRUE(mean);
  EXPECT_DOUBLE_EQ(mean->on_hit, 13.0);
  EXPECT_DOUBLE_EQ(mean->on_crit, 22.0);
  EXPECT_NEAR(gm::expected_damage(gm::attack_chance(6, 15, RollMode::kNormal), *mean), 8.25, 1e-12);
  // Damage below 0 is 0: 1d4-2 deals 0 on a 1 or a 2, so its mean is (0+0+1+2)/4.
  EXPECT_NEAR(gm::damage_mean("1d4-2")->on_hit, 0.75, 1e-12);
  EXPECT_DOUBLE_EQ(gm::damage_mean("1d4")->halved, 1.0);  // 0, 1, 1, 2: half rounded down
  EXPECT_FALSE(gm::damage_mean("4-1d6")) << "a critical hit would lower it";
  EXPECT_FALSE(gm::damage_mean("4d6kh3"));
  EXPECT_FALSE(gm::damage_mean("2d"));
  EXPECT_FALSE(gm::damage_mean("600d6")) << "a critical hit would roll 1,200 dice";
}

TEST(AttackMath, SavesHaveNoAutomaticResults) {
  EXPECT_DOUBLE_EQ(gm::save_chance(15, 2, RollMode::kNormal).fail, 0.6);  // succeeds on 13-20
  EXPECT_DOUBLE_EQ(gm::save_chance(30, 2, RollMode::kNormal).fail, 1.0);  // a natural 20 is 22
  EXPECT_DOUBLE_EQ(gm::save_chance(5, 10, RollMode::kNormal).fail, 0.0);  // a natural 1 is 11
  EXPECT_DOUBLE_EQ(gm::save_chance(15, 2, RollMode::kAdvantage).fail, 0.36);
}

TEST(Multiattack, PlainRoutinesAreRead) {
  using model::multiattack_routine;
  auto dragon = multiattack_routine(
      "The dragon can use its Frightful Presence. It then makes three attacks: one with its bite and two with its "
      "claws.",
      {"Bite", "Claw", "Tail"});
  ASSERT_TRUE(dragon);
  ASSERT_EQ(dragon->size(), 2u);
  EXPECT_EQ((*dragon)[0].action, "Bite");
  EXPECT_EQ((*dragon)[0].count, 1);
  EXPECT_EQ((*dragon)[1].action, "Claw");
  EXPECT_EQ((*dragon)[1].count, 2);
  auto rend = multiattack_routine(
      "The dragon makes three Rend attacks. It can replace one attack with a use of "
      "Spellcasting to cast Scorching Ray.",
      {"Rend"});
  ASSERT_TRUE(rend);
  EXPECT_EQ((*rend)[0].count, 3);
  auto captain = multiattack_routine(
      "The captain makes three melee attacks: two with its scimitar and one with its dagger. Or the captain makes "
      "two ranged attacks with its daggers.",
      {"Scimitar", "Dagger"});
  ASSERT_TRUE(captain);
  EXPECT_EQ(captain->size(), 2u);
  auto owlbear = multiattack_routine("The owlbear makes two attacks: one with its beak and one with its claws.",
                                     {"Beak", "Claws"});
  ASSERT_TRUE(owlbear);
  EXPECT_EQ((*owlbear)[1].action, "Claws");
  auto devil = multiattack_routine("The devil makes two Claw attacks and one Infernal Sting attack.",
                                   {"Claw", "Infernal Sting"});
  ASSERT_TRUE(devil);
  EXPECT_EQ((*devil)[0].count, 2);
  EXPECT_EQ((*devil)[1].action, "Infernal Sting");
  auto chimera = multiattack_routine(
      "The chimera makes one Ram attack, one Bite attack, and one Claw attack. It can "
      "replace the Claw attack with a use of Fire Breath if available.",
      {"Ram", "Bite", "Claw"});
  ASSERT_TRUE(chimera);
  EXPECT_EQ(chimera->size(), 3u);
  // What it uses besides attacking is no attack: the routine is its attacks.
  auto glabrezu =
      multiattack_routine("The glabrezu makes two Pincer attacks and uses Pummel or Spellcasting.", {"Pincer"});
  ASSERT_TRUE(glabrezu);
  EXPECT_EQ((*glabrezu)[0].count, 2);
  auto daggers = multiattack_routine("The scout makes two ranged attacks with its daggers.", {"Dagger"});
  ASSERT_TRUE(daggers);
  EXPECT_EQ((*daggers)[0].count, 2);
}

TEST(Multiattack, ChoicesAndUnstatedRoutinesAreNotGuessed) {
  using model::multiattack_routine;
  EXPECT_FALSE(multiattack_routine("The ogre makes two Greatclub or Javelin attacks.", {"Greatclub", "Javelin"}));
  EXPECT_FALSE(
      multiattack_routine("The knight makes two attacks, using Greatsword or Heavy Crossbow in any "
                          "combination.",
                          {"Greatsword", "Heavy Crossbow"}));
  EXPECT_FALSE(multiattack_routine("The zmey makes one bite attack per head and one claws attack.", {"Bite", "Claws"}));
  EXPECT_FALSE(multiattack_routine("The beast makes three attacks: one with its bite and one with its claws.",
                                   {"Bite", "Claws"}))
      << "the parts do not add up";
  EXPECT_FALSE(multiattack_routine("The beast makes two attacks.", {"Bite"}));
  EXPECT_FALSE(multiattack_routine("The beast makes two attacks: one with its bite and one with its horn.", {"Bite"}))
      << "an action it does not have";
  EXPECT_FALSE(multiattack_routine("Uses Mirrored Carapace and then one Bite.", {"Bite"}));
  EXPECT_FALSE(multiattack_routine("The vampire makes two attacks, only one of which can be a bite attack.", {"Bite"}));
  EXPECT_FALSE(multiattack_routine("The fungus makes 1d4 Rotting Touch attacks.", {"Rotting Touch"}));
  EXPECT_FALSE(
      multiattack_routine("The medusa makes two Claw attacks and one Snake Hair attack, or it makes three "
                          "Poison Ray attacks.",
                          {"Claw", "Snake Hair", "Poison Ray"}));
  EXPECT_FALSE(multiattack_routine("", {}));
}

TEST(Multiattack, ATextThatOffersMoreThanItsFirstRoutineSaysSo) {
  EXPECT_TRUE(
      model::multiattack_offers_more("The captain makes three melee attacks: two with its scimitar and one with "
                                     "its dagger. Or the captain makes two ranged attacks with its daggers."));
  EXPECT_TRUE(
      model::multiattack_offers_more("The veteran makes two longsword attacks. If it has a shortsword drawn, it "
                                     "can also make a shortsword attack."));
  EXPECT_TRUE(
      model::multiattack_offers_more("The grick makes one attack with its tentacles. If that attack hits, the "
                                     "grick can make one beak attack against the same target."));
  EXPECT_TRUE(
      model::multiattack_offers_more("The dragon makes three Rend attacks. It can replace one attack with a use "
                                     "of Spellcasting to cast Scorching Ray."));
  EXPECT_FALSE(
      model::multiattack_offers_more("The dragon can use its Frightful Presence. It then makes three attacks: "
                                     "one with its bite and two with its claws."));
  EXPECT_FALSE(
      model::multiattack_offers_more("The marilith can make seven attacks: six with its longswords and one with "
                                     "its tail."));
}

TEST(Multiattack, AChoiceOfAttacksIsReadAsItsOptions) {
  auto knight =
      model::multiattack_choice("The knight makes two attacks, using Greatsword or Heavy Crossbow in any combination.",
                                {"Greatsword", "Heavy Crossbow"});
  ASSERT_TRUE(knight);
  EXPECT_EQ(knight->count, 2);
  EXPECT_EQ(knight->options, (std::vector<std::string>{"Greatsword", "Heavy Crossbow"}));
  auto ogre = model::multiattack_choice("The ogre makes two Greatclub or Javelin attacks.", {"Greatclub", "Javelin"});
  ASSERT_TRUE(ogre);
  EXPECT_EQ(ogre->options[1], "Javelin");
  EXPECT_FALSE(model::multiattack_choice("The owlbear makes two Rend attacks.", {"Rend"}));
  EXPECT_FALSE(model::multiattack_choice("The ogre makes two Greatclub or Spear attacks.", {"Greatclub", "Javelin"}));
  auto marilith = model::multiattack_routine(
      "The marilith can make seven attacks: six with its longswords and one with "
      "its tail.",
      {"Longsword", "Tail"});
  ASSERT_TRUE(marilith);
  EXPECT_EQ((*marilith)[0].count, 6);
}

}  // namespace
}  // namespace lorekeeper
