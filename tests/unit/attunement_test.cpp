#include "lorekeeper/model/attunement.hpp"

#include <gtest/gtest.h>

namespace lorekeeper::model {
namespace {

TEST(Attunement, TheByClauseIsReadIntoItsParts) {
  auto staff = attunement_restriction("requires attunement by a sorcerer, warlock, or wizard");
  EXPECT_EQ(staff.by, (std::vector<std::string>{"sorcerer", "warlock", "wizard"}));
  EXPECT_EQ(staff.alignment, "");
  EXPECT_EQ(attunement_restriction("Requires Attunement by a Cleric or Paladin").by,
            (std::vector<std::string>{"cleric", "paladin"}));
  EXPECT_EQ(attunement_restriction("by a monk").by, std::vector<std::string>{"monk"});
  EXPECT_EQ(attunement_restriction("(requires attunement by a spellcaster)").by,
            std::vector<std::string>{"spellcaster"});
  EXPECT_EQ(attunement_restriction("Requires Attunement by a Dwarf or a Creature Attuned to a Belt of Dwarvenkind").by,
            (std::vector<std::string>{"dwarf", "creature attuned to a belt of dwarvenkind"}));
  auto talisman = attunement_restriction("requires attunement by a creature of good alignment");
  EXPECT_TRUE(talisman.by.empty());
  EXPECT_EQ(talisman.alignment, "good");
  auto night = attunement_restriction("requires attunement outdoors at night");
  EXPECT_TRUE(night.by.empty());
  EXPECT_EQ(night.condition, "outdoors at night");
  auto plain = attunement_restriction("requires attunement");
  EXPECT_TRUE(plain.by.empty() && plain.alignment.empty() && plain.condition.empty());
  EXPECT_TRUE(attunement_restriction("").by.empty());
}

}  // namespace
}  // namespace lorekeeper::model
