#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "lorekeeper/core/status.hpp"
#include "lorekeeper/gm/encounter_math.hpp"
#include "lorekeeper/model/challenge.hpp"

namespace lorekeeper::gm {
namespace {

// The challenge-rating table the arithmetic reads (model/challenge.hpp) is tested here beside it.
using model::cr_text;
using model::neighbouring_crs;
using model::parse_cr;
using model::proficiency_for_cr;
using model::xp_for_cr;

// The published tables, typed here from the books independently of src/gm/encounter_math.cpp and
// src/model/challenge.cpp.

struct PublishedCr {
  const char* text;
  double cr;
  long long xp;
  int proficiency;
};

// SRD 5.1, "Experience Points by Challenge Rating" (CR 0: "0 or 10"; 10 for a creature with attacks) and
// "Proficiency Bonus by Challenge Rating".
const std::vector<PublishedCr>& published_crs() {
  static const std::vector<PublishedCr> rows = {
      {"0", 0, 10, 2},        {"1/8", 0.125, 25, 2},  {"1/4", 0.25, 50, 2},   {"1/2", 0.5, 100, 2},
      {"1", 1, 200, 2},       {"2", 2, 450, 2},       {"3", 3, 700, 2},       {"4", 4, 1'100, 2},
      {"5", 5, 1'800, 3},     {"6", 6, 2'300, 3},     {"7", 7, 2'900, 3},     {"8", 8, 3'900, 3},
      {"9", 9, 5'000, 4},     {"10", 10, 5'900, 4},   {"11", 11, 7'200, 4},   {"12", 12, 8'400, 4},
      {"13", 13, 10'000, 5},  {"14", 14, 11'500, 5},  {"15", 15, 13'000, 5},  {"16", 16, 15'000, 5},
      {"17", 17, 18'000, 6},  {"18", 18, 20'000, 6},  {"19", 19, 22'000, 6},  {"20", 20, 25'000, 6},
      {"21", 21, 33'000, 7},  {"22", 22, 41'000, 7},  {"23", 23, 50'000, 7},  {"24", 24, 62'000, 7},
      {"25", 25, 75'000, 8},  {"26", 26, 90'000, 8},  {"27", 27, 105'000, 8}, {"28", 28, 120'000, 8},
      {"29", 29, 135'000, 9}, {"30", 30, 155'000, 9},
  };
  return rows;
}

// Dungeon Master's Guide (2014), "XP Thresholds by Character Level": level, easy, medium, hard, deadly.
const std::vector<std::vector<long long>>& published_2014() {
  static const std::vector<std::vector<long long>> rows = {
      {1, 25, 50, 75, 100},
      {2, 50, 100, 150, 200},
      {3, 75, 150, 225, 400},
      {4, 125, 250, 375, 500},
      {5, 250, 500, 750, 1'100},
      {6, 300, 600, 900, 1'400},
      {7, 350, 750, 1'100, 1'700},
      {8, 450, 900, 1'400, 2'100},
      {9, 550, 1'100, 1'600, 2'400},
      {10, 600, 1'200, 1'900, 2'800},
      {11, 800, 1'600, 2'400, 3'600},
      {12, 1'000, 2'000, 3'000, 4'500},
      {13, 1'100, 2'200, 3'400, 5'100},
      {14, 1'250, 2'500, 3'800, 5'700},
      {15, 1'400, 2'800, 4'300, 6'400},
      {16, 1'600, 3'200, 4'800, 7'200},
      {17, 2'000, 3'900, 5'900, 8'800},
      {18, 2'100, 4'200, 6'300, 9'500},
      {19, 2'400, 4'900, 7'300, 10'900},
      {20, 2'800, 5'700, 8'500, 12'700},
  };
  return rows;
}

// Dungeon Master's Guide (2024), "XP Budget per Character": level, low, moderate, high.
const std::vector<std::vector<long long>>& published_2024() {
  static const std::vector<std::vector<long long>> rows = {
      {1, 50, 75, 100},           {2, 100, 150, 200},         {3, 150, 225, 400},          {4, 250, 375, 500},
      {5, 500, 750, 1'100},       {6, 600, 1'000, 1'400},     {7, 750, 1'300, 1'700},      {8, 1'000, 1'700, 2'100},
      {9, 1'300, 2'000, 2'600},   {10, 1'600, 2'300, 3'100},  {11, 1'900, 2'900, 4'100},   {12, 2'200, 3'700, 4'700},
      {13, 2'600, 4'200, 5'400},  {14, 2'900, 4'900, 6'200},  {15, 3'300, 5'400, 7'800},   {16, 3'800, 6'100, 9'800},
      {17, 4'500, 7'200, 11'700}, {18, 5'000, 8'700, 14'200}, {19, 5'500, 10'700, 17'200}, {20, 6'400, 13'200, 22'000},
  };
  return rows;
}

std::vector<long long> xps(const PartyBudget& b) {
  std::vector<long long> out;
  for (const Threshold& t : b.thresholds) out.push_back(t.xp);
  return out;
}

void expect_invalid(const Status& s, const std::string& fragment) {
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
  EXPECT_NE(s.message().find(fragment), std::string::npos) << "message: " << s.message() << "\nwanted: " << fragment;
}

TEST(EncounterMathCr, XpAndProficiencyForEveryPublishedRow) {
  ASSERT_EQ(published_crs().size(), 34u);
  for (const PublishedCr& row : published_crs()) {
    SCOPED_TRACE(row.text);
    ASSERT_TRUE(xp_for_cr(row.cr).has_value());
    EXPECT_EQ(*xp_for_cr(row.cr), row.xp);
    ASSERT_TRUE(proficiency_for_cr(row.cr).has_value());
    EXPECT_EQ(*proficiency_for_cr(row.cr), row.proficiency);
    EXPECT_EQ(cr_text(row.cr), row.text);
    const Result<double> parsed = parse_cr(row.text);
    ASSERT_TRUE(parsed.is_ok()) << parsed.status().to_string();
    EXPECT_EQ(*parsed, row.cr);
  }
}

TEST(EncounterMathCr, UntabledRatingsHaveNoXpOrProficiency) {
  for (double cr : {-1.0, 0.1, 1.0 / 3.0, 0.3, 0.75, 1.5, 30.5, 31.0, 1e9, std::numeric_limits<double>::quiet_NaN(),
                    std::numeric_limits<double>::infinity()}) {
    SCOPED_TRACE(cr);
    EXPECT_FALSE(xp_for_cr(cr).has_value());
    EXPECT_FALSE(proficiency_for_cr(cr).has_value());
  }
}

TEST(EncounterMathCr, NeighboursAreOneTabledStepEitherSide) {
  using P = std::pair<double, double>;
  EXPECT_EQ(neighbouring_crs(5), P(4, 6));
  EXPECT_EQ(neighbouring_crs(1), P(0.5, 2));
  EXPECT_EQ(neighbouring_crs(0.125), P(0, 0.25));
  EXPECT_EQ(neighbouring_crs(0), P(0, 0.125));
  EXPECT_EQ(neighbouring_crs(30), P(29, 30));
  EXPECT_EQ(neighbouring_crs(0.3), P(0.25, 1));  // an untabled rating: around the next tabled one
  EXPECT_EQ(neighbouring_crs(40), P(29, 30));
}

TEST(EncounterMathCr, TextOfUntabledValuesIsAPlainNumber) {
  EXPECT_EQ(cr_text(0.3), "0.3");
  EXPECT_EQ(cr_text(31), "31");
  EXPECT_EQ(cr_text(-1), "-1");
  EXPECT_EQ(cr_text(2.5), "2.5");
}

TEST(EncounterMathParseCr, AcceptsTheUsualSpellings) {
  const std::vector<std::pair<std::string, double>> cases = {
      {"1/4", 0.25}, {"0.25", 0.25},  {" 1/2 ", 0.5},   {"\t5\n", 5},      {"5.0", 5},
      {"05", 5},     {".5", 0.5},     {"2/4", 0.5},     {"0", 0},          {"30", 30},
      {"+1", 1},     {"\u00BD", 0.5}, {"\u00BC", 0.25}, {"\u215B", 0.125}, {"0.125", 0.125},
  };
  for (const auto& [text, want] : cases) {
    SCOPED_TRACE(text);
    const Result<double> r = parse_cr(text);
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    EXPECT_EQ(*r, want);
  }
}

TEST(EncounterMathParseCr, ErrorsSayWhatIsAccepted) {
  expect_invalid(parse_cr("1/3").status(), "'1/3' is not a challenge rating: below 1 the ratings are 0, 1/8, 1/4");
  expect_invalid(parse_cr("abc").status(), "'abc' is not a challenge rating; expected 0, 1/8, 1/4, 1/2");
  expect_invalid(parse_cr("-1").status(), "'-1' is out of range: challenge ratings run from 0 to 30");
  expect_invalid(parse_cr("31").status(), "'31' is out of range");
  expect_invalid(parse_cr("1/0").status(), "'1/0' divides by zero");
  expect_invalid(parse_cr("").status(), "empty challenge rating");
  expect_invalid(parse_cr("   ").status(), "empty challenge rating");
  expect_invalid(parse_cr("0.3").status(), "'0.3' is not a challenge rating");
  expect_invalid(parse_cr("2.5").status(), "from 1 to 30 they are whole numbers");
  expect_invalid(parse_cr("-1/4").status(), "out of range");
  for (const char* bad : {"1e1", "nan", "inf", "1//4", "1/", "/4", "5 5", "1.2.3", ".", "CR 5", "1/4.0", "5 XP",
                          "99999999999999999999999999", "1/99999999999"}) {
    SCOPED_TRACE(bad);
    const Result<double> r = parse_cr(bad);
    EXPECT_FALSE(r.is_ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  }
}

TEST(EncounterMathParseCr, LongInputIsShortenedInTheMessage) {
  const std::string text(200, 'x');
  const Result<double> r = parse_cr(text);
  ASSERT_FALSE(r.is_ok());
  EXPECT_LT(r.status().message().size(), 150u);
}

TEST(EncounterMathThresholds, Every2014RowMatchesTheDmg) {
  ASSERT_EQ(published_2014().size(), 20u);
  for (const auto& row : published_2014()) {
    const int level = static_cast<int>(row[0]);
    SCOPED_TRACE(level);
    const Result<PartyBudget> b = party_budget(RuleSet::k2014, {level});
    ASSERT_TRUE(b.is_ok()) << b.status().to_string();
    EXPECT_EQ(xps(*b), (std::vector<long long>{row[1], row[2], row[3], row[4]}));
    EXPECT_EQ(b->xp_for(Difficulty::kEasy), row[1]);
    EXPECT_EQ(b->xp_for(Difficulty::kMedium), row[2]);
    EXPECT_EQ(b->xp_for(Difficulty::kHard), row[3]);
    EXPECT_EQ(b->xp_for(Difficulty::kDeadly), row[4]);
    EXPECT_FALSE(b->xp_for(Difficulty::kLow).has_value());
    EXPECT_FALSE(b->xp_for(Difficulty::kTrivial).has_value());
  }
}

TEST(EncounterMathThresholds, Every2024RowMatchesTheDmg) {
  ASSERT_EQ(published_2024().size(), 20u);
  for (const auto& row : published_2024()) {
    const int level = static_cast<int>(row[0]);
    SCOPED_TRACE(level);
    const Result<PartyBudget> b = party_budget(RuleSet::k2024, {level});
    ASSERT_TRUE(b.is_ok()) << b.status().to_string();
    EXPECT_EQ(xps(*b), (std::vector<long long>{row[1], row[2], row[3]}));
    EXPECT_EQ(b->xp_for(Difficulty::kLow), row[1]);
    EXPECT_EQ(b->xp_for(Difficulty::kModerate), row[2]);
    EXPECT_EQ(b->xp_for(Difficulty::kHigh), row[3]);
    EXPECT_FALSE(b->xp_for(Difficulty::kDeadly).has_value());
  }
}

TEST(EncounterMathThresholds, PartyValuesAreSumsOverTheCharacters) {
  const Result<PartyBudget> four_l3 = party_budget(RuleSet::k2014, {3, 3, 3, 3});
  ASSERT_TRUE(four_l3.is_ok());
  EXPECT_EQ(xps(*four_l3), (std::vector<long long>{300, 600, 900, 1'600}));
  EXPECT_EQ(four_l3->levels, (std::vector<int>{3, 3, 3, 3}));

  const Result<PartyBudget> mixed = party_budget(RuleSet::k2014, {1, 20});
  ASSERT_TRUE(mixed.is_ok());
  EXPECT_EQ(xps(*mixed), (std::vector<long long>{2'825, 5'750, 8'575, 12'800}));

  const Result<PartyBudget> mixed24 = party_budget(RuleSet::k2024, {1, 20, 5});
  ASSERT_TRUE(mixed24.is_ok());
  EXPECT_EQ(xps(*mixed24), (std::vector<long long>{6'950, 14'025, 23'200}));

  const Result<PartyBudget> twelve = party_budget(RuleSet::k2024, std::vector<int>(12, 20));
  ASSERT_TRUE(twelve.is_ok());
  EXPECT_EQ(xps(*twelve), (std::vector<long long>{76'800, 158'400, 264'000}));
}

TEST(EncounterMathThresholds, PartyErrors) {
  expect_invalid(party_budget(RuleSet::k2014, {}).status(), "at least one character");
  expect_invalid(party_budget(RuleSet::k2024, std::vector<int>(13, 1)).status(),
                 "a party of 13 characters is too large");
  expect_invalid(party_budget(RuleSet::k2014, {3, 0}).status(), "character 2 has level 0; levels run from 1 to 20");
  expect_invalid(party_budget(RuleSet::k2024, {21}).status(), "character 1 has level 21");
  expect_invalid(party_budget(RuleSet::k2014, {-5}).status(), "level -5");
}

TEST(EncounterMathMultiplier, TableForAPartyOfThreeToFive) {
  const std::vector<std::pair<int, double>> table = {
      {1, 1.0},  {2, 1.5},  {3, 2.0},  {4, 2.0},  {5, 2.0},  {6, 2.0},  {7, 2.5},    {8, 2.5},
      {10, 2.5}, {11, 3.0}, {14, 3.0}, {15, 4.0}, {16, 4.0}, {40, 4.0}, {1000, 4.0},
  };
  for (int party : {3, 4, 5}) {
    for (const auto& [count, want] : table) {
      SCOPED_TRACE(std::to_string(count) + " monsters, party " + std::to_string(party));
      EXPECT_EQ(multiplier_2014(count, party), want);
    }
  }
}

TEST(EncounterMathMultiplier, PartySizeShiftsOneStep) {
  EXPECT_EQ(multiplier_2014(1, 2), 1.5);
  EXPECT_EQ(multiplier_2014(1, 1), 1.5);
  EXPECT_EQ(multiplier_2014(2, 2), 2.0);
  EXPECT_EQ(multiplier_2014(6, 2), 2.5);
  EXPECT_EQ(multiplier_2014(10, 1), 3.0);
  EXPECT_EQ(multiplier_2014(14, 2), 4.0);
  EXPECT_EQ(multiplier_2014(15, 2), 5.0);
  EXPECT_EQ(multiplier_2014(100, 1), 5.0);

  EXPECT_EQ(multiplier_2014(1, 6), 0.5);
  EXPECT_EQ(multiplier_2014(1, 12), 0.5);
  EXPECT_EQ(multiplier_2014(2, 6), 1.0);
  EXPECT_EQ(multiplier_2014(3, 6), 1.5);
  EXPECT_EQ(multiplier_2014(7, 8), 2.0);
  EXPECT_EQ(multiplier_2014(11, 6), 2.5);
  EXPECT_EQ(multiplier_2014(15, 6), 3.0);
}

TEST(EncounterMathMultiplier, NoMonstersOrNoPartyIsZero) {
  EXPECT_EQ(multiplier_2014(0, 4), 0.0);
  EXPECT_EQ(multiplier_2014(-3, 4), 0.0);
  EXPECT_EQ(multiplier_2014(4, 0), 0.0);
}

TEST(EncounterMathAssess, FourGoblinsAgainstFourThirdLevelCharacters2014) {
  // 4 x 50 XP = 200; 4 monsters: x2 -> 400; party thresholds 4 x (75, 150, 225, 400) = 300, 600, 900, 1,600.
  const Result<EncounterAssessment> a = assess(RuleSet::k2014, {3, 3, 3, 3}, {{0.25, 4}});
  ASSERT_TRUE(a.is_ok()) << a.status().to_string();
  EXPECT_EQ(a->monster_count, 4);
  EXPECT_EQ(a->base_xp, 200);
  EXPECT_EQ(a->multiplier, 2.0);
  EXPECT_EQ(a->adjusted_xp, 400);
  EXPECT_EQ(a->difficulty, Difficulty::kEasy);
  EXPECT_EQ(xps(a->budget), (std::vector<long long>{300, 600, 900, 1'600}));
  EXPECT_EQ(a->explanation,
            "Monsters: 4 \u00D7 CR 1/4 (50 XP) = 200 XP. 4 monsters vs 4 characters: \u00D72 (3-6 monsters) \u2192 400 "
            "adjusted XP.\n"
            "Party thresholds (4 characters, levels 3, 3, 3, 3): easy 300, medium 600, hard 900, deadly 1,600; 400 "
            "reaches easy.");
}

TEST(EncounterMathAssess, FourGoblinsAgainstFourThirdLevelCharacters2024) {
  // No multiplier; budgets 4 x (150, 225, 400) = 600, 900, 1,600; 200 is within the low budget.
  const Result<EncounterAssessment> a = assess(RuleSet::k2024, {3, 3, 3, 3}, {{0.25, 4}});
  ASSERT_TRUE(a.is_ok()) << a.status().to_string();
  EXPECT_EQ(a->base_xp, 200);
  EXPECT_EQ(a->multiplier, 1.0);
  EXPECT_EQ(a->adjusted_xp, 200);
  EXPECT_EQ(a->difficulty, Difficulty::kLow);
  EXPECT_EQ(a->explanation,
            "Monsters: 4 \u00D7 CR 1/4 (50 XP) = 200 XP (the 2024 rules use no multiplier).\n"
            "Party budgets (4 characters, levels 3, 3, 3, 3): low 600, moderate 900, high 1,600; 200 is within the "
            "low budget.");
}

TEST(EncounterMathAssess, MeetingAThresholdReachesIt) {
  // Party of four level 1: 100, 200, 300, 400. One CR 1 monster: 200 x1.
  Result<EncounterAssessment> a = assess(RuleSet::k2014, {1, 1, 1, 1}, {{1, 1}});
  ASSERT_TRUE(a.is_ok());
  EXPECT_EQ(a->adjusted_xp, 200);
  EXPECT_EQ(a->difficulty, Difficulty::kMedium);
  // Three CR 1/8 (75 XP) x2 = 150: easy; one CR 1/2 alone = 100: easy exactly; one CR 1/4 = 50: trivial.
  a = assess(RuleSet::k2014, {1, 1, 1, 1}, {{0.125, 3}});
  ASSERT_TRUE(a.is_ok());
  EXPECT_EQ(a->adjusted_xp, 150);
  EXPECT_EQ(a->difficulty, Difficulty::kEasy);
  a = assess(RuleSet::k2014, {1, 1, 1, 1}, {{0.5, 1}});
  ASSERT_TRUE(a.is_ok());
  EXPECT_EQ(a->difficulty, Difficulty::kEasy);
  a = assess(RuleSet::k2014, {1, 1, 1, 1}, {{0.25, 1}});
  ASSERT_TRUE(a.is_ok());
  EXPECT_EQ(a->difficulty, Difficulty::kTrivial);
  EXPECT_NE(a->explanation.find("50 is below easy (trivial)."), std::string::npos) << a->explanation;
  // 2024, party of four level 5: 2,000, 3,000, 4,400.
  const std::vector<std::pair<std::vector<MonsterGroup>, Difficulty>> cases = {
      {{{5, 1}}, Difficulty::kLow},                          // 1,800
      {{{5, 1}, {1, 1}}, Difficulty::kLow},                  // 2,000
      {{{5, 1}, {1, 1}, {0, 1}}, Difficulty::kModerate},     // 2,010
      {{{7, 1}}, Difficulty::kModerate},                     // 2,900
      {{{6, 1}, {3, 1}}, Difficulty::kModerate},             // 3,000
      {{{8, 1}, {2, 1}}, Difficulty::kHigh},                 // 4,350
      {{{8, 1}, {2, 1}, {0.125, 2}}, Difficulty::kHigh},     // 4,400
      {{{8, 1}, {2, 1}, {0.5, 1}}, Difficulty::kAboveHigh},  // 4,450
      {{{0.25, 20}, {1, 10}, {2, 3}}, Difficulty::kHigh},    // 1,000 + 2,000 + 1,350 = 4,350: no multiplier
  };
  for (const auto& [groups, want] : cases) {
    a = assess(RuleSet::k2024, {5, 5, 5, 5}, groups);
    ASSERT_TRUE(a.is_ok());
    SCOPED_TRACE(a->explanation);
    EXPECT_EQ(a->adjusted_xp, a->base_xp);
    EXPECT_EQ(a->difficulty, want);
  }
  // One level 4 character (250, 375, 500): five CR 1/2 = 500 is exactly high; adding a CR 4 goes past it.
  a = assess(RuleSet::k2024, {4}, {{0.5, 5}});
  ASSERT_TRUE(a.is_ok());
  EXPECT_EQ(a->difficulty, Difficulty::kHigh);
  EXPECT_NE(a->explanation.find("500 is within the high budget."), std::string::npos) << a->explanation;
  a = assess(RuleSet::k2024, {4}, {{0.5, 2}, {4, 1}});
  ASSERT_TRUE(a.is_ok());
  EXPECT_EQ(a->base_xp, 1'300);
  EXPECT_EQ(a->difficulty, Difficulty::kAboveHigh);
  EXPECT_NE(a->explanation.find("1,300 is above the high budget by 800."), std::string::npos) << a->explanation;
}

TEST(EncounterMathAssess, MixedGroupsCountEveryCreature) {
  // 1 x CR 5 (1,800) + 4 x CR 1/4 (200) = 2,000; 5 creatures: x2 -> 4,000. Four level 5: 1,000, 2,000, 3,000,
  // 4,400 -> hard. The low-CR goblins are not left out of the count.
  const Result<EncounterAssessment> a = assess(RuleSet::k2014, {5, 5, 5, 5}, {{5, 1}, {0.25, 4}});
  ASSERT_TRUE(a.is_ok()) << a.status().to_string();
  EXPECT_EQ(a->monster_count, 5);
  EXPECT_EQ(a->base_xp, 2'000);
  EXPECT_EQ(a->adjusted_xp, 4'000);
  EXPECT_EQ(a->difficulty, Difficulty::kHard);
  EXPECT_NE(a->explanation.find("1 \u00D7 CR 5 (1,800 XP) + 4 \u00D7 CR 1/4 (50 XP) = 2,000 XP"), std::string::npos)
      << a->explanation;
}

TEST(EncounterMathAssess, SmallAndLargePartiesShiftTheMultiplier) {
  // Two level 1 characters (50, 100, 150, 200) against one CR 1/2: 100 x1.5 = 150 -> hard.
  Result<EncounterAssessment> a = assess(RuleSet::k2014, {1, 1}, {{0.5, 1}});
  ASSERT_TRUE(a.is_ok());
  EXPECT_EQ(a->multiplier, 1.5);
  EXPECT_EQ(a->adjusted_xp, 150);
  EXPECT_EQ(a->difficulty, Difficulty::kHard);
  EXPECT_NE(a->explanation.find("1 monster vs 2 characters: \u00D71 for 1 monster, one step higher for fewer than 3 "
                                "characters: \u00D71.5 \u2192 150 adjusted XP."),
            std::string::npos)
      << a->explanation;
  // Six level 1 characters against one CR 2: 450 x0.5 = 225; thresholds 150, 300, 450, 600 -> easy.
  a = assess(RuleSet::k2014, std::vector<int>(6, 1), {{2, 1}});
  ASSERT_TRUE(a.is_ok());
  EXPECT_EQ(a->multiplier, 0.5);
  EXPECT_EQ(a->adjusted_xp, 225);
  EXPECT_EQ(a->difficulty, Difficulty::kEasy);
  EXPECT_NE(a->explanation.find("one step lower for 6 or more characters: \u00D70.5"), std::string::npos)
      << a->explanation;
  // A lone character against 20 rats (CR 0, 10 XP each): 200 x5 = 1,000 -> deadly (100), 900 over it.
  a = assess(RuleSet::k2014, {1}, {{0, 20}});
  ASSERT_TRUE(a.is_ok());
  EXPECT_EQ(a->base_xp, 200);
  EXPECT_EQ(a->multiplier, 5.0);
  EXPECT_EQ(a->adjusted_xp, 1'000);
  EXPECT_EQ(a->difficulty, Difficulty::kDeadly);
  EXPECT_NE(a->explanation.find("(1 character, level 1)"), std::string::npos) << a->explanation;
  EXPECT_NE(a->explanation.find("1,000 reaches deadly and exceeds it by 900."), std::string::npos) << a->explanation;
}

TEST(EncounterMathAssess, HalfXpIsRoundedDown) {
  // One CR 1/8 (25 XP) against two characters: x1.5 = 37.5 -> 37.
  const Result<EncounterAssessment> a = assess(RuleSet::k2014, {1, 1}, {{0.125, 1}});
  ASSERT_TRUE(a.is_ok());
  EXPECT_EQ(a->adjusted_xp, 37);
  EXPECT_EQ(a->difficulty, Difficulty::kTrivial);
}

TEST(EncounterMathAssess, Errors) {
  expect_invalid(assess(RuleSet::k2014, {}, {{1, 1}}).status(), "at least one character");
  expect_invalid(assess(RuleSet::k2024, {3, 25}, {{1, 1}}).status(), "character 2 has level 25");
  expect_invalid(assess(RuleSet::k2014, {3}, {}).status(), "at least one monster");
  expect_invalid(assess(RuleSet::k2014, {3}, {{1, 1}, {0.3, 2}}).status(),
                 "monster group 2 has challenge rating 0.3, which is not in the table");
  expect_invalid(assess(RuleSet::k2014, {3}, {{31, 1}}).status(), "challenge rating 31");
  expect_invalid(assess(RuleSet::k2014, {3}, {{1, 0}}).status(), "monster group 1 has count 0");
  expect_invalid(assess(RuleSet::k2024, {3}, {{1, -2}}).status(), "has count -2");
  expect_invalid(assess(RuleSet::k2014, {3}, {{1, 1001}}).status(), "too many creatures (at most 1000)");
  expect_invalid(assess(RuleSet::k2014, {3}, {{1, 600}, {2, 401}}).status(), "too many creatures");
  expect_invalid(assess(RuleSet::k2014, {3}, {{1, std::numeric_limits<int>::max()}, {1, 1}}).status(),
                 "too many creatures");
  expect_invalid(assess(RuleSet::k2014, {3}, std::vector<MonsterGroup>(65, {1, 1})).status(),
                 "65 monster groups are too many (at most 64)");
  const Result<EncounterAssessment> most = assess(RuleSet::k2014, {3}, {{30, 1000}});
  ASSERT_TRUE(most.is_ok());
  EXPECT_EQ(most->adjusted_xp, 155'000LL * 1000 * 5);  // a lone character: x5
}

TEST(EncounterMathDifficulty, NamesAndParsing) {
  EXPECT_EQ(difficulty_names(RuleSet::k2014), "easy, medium, hard, deadly");
  EXPECT_EQ(difficulty_names(RuleSet::k2024), "low, moderate, high");
  EXPECT_EQ(difficulty_name(Difficulty::kAboveHigh), "above high");
  EXPECT_EQ(difficulty_name(Difficulty::kTrivial), "trivial");
  EXPECT_EQ(rule_set_name(RuleSet::k2014), "2014");
  EXPECT_EQ(rule_set_name(RuleSet::k2024), "2024");

  const std::vector<std::pair<std::string, Difficulty>> ok_2014 = {{"easy", Difficulty::kEasy},
                                                                   {"Medium", Difficulty::kMedium},
                                                                   {" HARD ", Difficulty::kHard},
                                                                   {"deadly", Difficulty::kDeadly}};
  for (const auto& [text, want] : ok_2014) {
    const Result<Difficulty> d = parse_difficulty(RuleSet::k2014, text);
    ASSERT_TRUE(d.is_ok()) << d.status().to_string();
    EXPECT_EQ(*d, want);
  }
  const std::vector<std::pair<std::string, Difficulty>> ok_2024 = {
      {"low", Difficulty::kLow}, {"Moderate", Difficulty::kModerate}, {"high\n", Difficulty::kHigh}};
  for (const auto& [text, want] : ok_2024) {
    const Result<Difficulty> d = parse_difficulty(RuleSet::k2024, text);
    ASSERT_TRUE(d.is_ok()) << d.status().to_string();
    EXPECT_EQ(*d, want);
  }

  expect_invalid(parse_difficulty(RuleSet::k2024, "Deadly").status(),
                 "'deadly' is a 2014 difficulty; the 2024 rules use low, moderate, high");
  expect_invalid(parse_difficulty(RuleSet::k2024, "hard").status(), "the 2024 rules use low, moderate, high");
  expect_invalid(parse_difficulty(RuleSet::k2014, "moderate").status(),
                 "'moderate' is a 2024 difficulty; the 2014 rules use easy, medium, hard, deadly");
  expect_invalid(parse_difficulty(RuleSet::k2014, "trivial").status(), "unknown difficulty 'trivial'");
  expect_invalid(parse_difficulty(RuleSet::k2024, "above high").status(), "unknown difficulty 'above high'");
  expect_invalid(parse_difficulty(RuleSet::k2014, "").status(), "empty difficulty");
  expect_invalid(parse_difficulty(RuleSet::k2014, "brutal").status(), "unknown difficulty 'brutal'; the 2014 rules");
}

}  // namespace
}  // namespace lorekeeper::gm
