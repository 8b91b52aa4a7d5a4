// The game master's tools through the engine, as a client calls them: roll_dice, evaluate_encounter and
// build_encounter over the fixture store.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "lorekeeper/core/text.hpp"
#include "lorekeeper/tools/engine.hpp"
#include "test_support.hpp"

namespace lorekeeper::tools {
namespace {

class GmToolsTest : public ::testing::Test {
 protected:
  GmToolsTest() : engine_(testing::fixture_store()) {}
  ToolResult call(const std::string& tool, const json& args) { return engine_.call(tool, args); }
  Engine engine_;
};

// P(sum of n d6 >= target), counted exactly with integers.
double brute_at_least(int n, int target) {
  std::vector<long long> ways = {1};
  for (int d = 0; d < n; ++d) {
    std::vector<long long> next(ways.size() + 6, 0);
    for (size_t s = 0; s < ways.size(); ++s) {
      for (int f = 1; f <= 6; ++f) next[s + f] += ways[s];
    }
    ways = std::move(next);
  }
  long long hit = 0, all = 0;
  for (size_t s = 0; s < ways.size(); ++s) {
    all += ways[s];
    if (static_cast<int>(s) >= target) hit += ways[s];
  }
  return static_cast<double>(hit) / static_cast<double>(all);
}

TEST_F(GmToolsTest, RollDiceGivesExactOddsAndSeededRolls) {
  auto r = call("roll_dice", {{"notation", "8d6"}, {"target", 30}, {"seed", 7}});
  ASSERT_FALSE(r.is_error) << r.text;
  const json& res = r.structured["result"];
  EXPECT_NEAR(res["odds"]["at_least"]["probability"].get<double>(), brute_at_least(8, 30), 1e-12);
  EXPECT_EQ(res["odds"]["min"], 8);
  EXPECT_EQ(res["odds"]["max"], 48);
  EXPECT_NEAR(res["odds"]["mean"].get<double>(), 28.0, 1e-9);
  ASSERT_EQ(res["rolls"].size(), 1u);
  const json& roll = res["rolls"][0];
  EXPECT_EQ(roll["terms"][0]["faces"].size(), 8u);
  int sum = 0;
  for (const auto& f : roll["terms"][0]["faces"]) {
    EXPECT_GE(f.get<int>(), 1);
    EXPECT_LE(f.get<int>(), 6);
    sum += f.get<int>();
  }
  EXPECT_EQ(roll["total"], sum);
  EXPECT_NE(r.text.find("Chance of 30 or more"), std::string::npos) << r.text;
  // The same seed gives the same dice.
  auto again = call("roll_dice", {{"notation", "8d6"}, {"seed", 7}});
  EXPECT_EQ(again.structured["result"]["rolls"], res["rolls"]);
  // Without a seed, the answer names the one it used, and that seed reproduces it.
  auto fresh = call("roll_dice", {{"notation", "3d8+2"}, {"times", 3}});
  ASSERT_FALSE(fresh.is_error) << fresh.text;
  auto replay = call("roll_dice", {{"notation", "3d8+2"}, {"times", 3}, {"seed", fresh.structured["result"]["seed"]}});
  EXPECT_EQ(replay.structured["result"]["rolls"], fresh.structured["result"]["rolls"]);
  EXPECT_EQ(fresh.structured["result"]["rolls"].size(), 3u);
}

TEST_F(GmToolsTest, RollDiceAdvantageKeepAndTable) {
  auto r = call("roll_dice", {{"notation", "1d20"}, {"mode", "advantage"}, {"target", 15}, {"seed", 1}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["result"]["notation"], "2d20kh1");
  EXPECT_NEAR(r.structured["result"]["odds"]["at_least"]["probability"].get<double>(), 1 - 0.7 * 0.7, 1e-12);
  EXPECT_EQ(r.structured["result"]["odds"]["table"].size(), 20u);
  EXPECT_EQ(r.structured["result"]["rolls"][0]["terms"][0]["dropped"].size(), 1u);
  r = call("roll_dice", {{"notation", "4d6kh3"}, {"seed", 3}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_NEAR(r.structured["result"]["odds"]["mean"].get<double>(), 15869.0 / 1296.0, 1e-9);
  // Advantage with no plain d20 changes nothing, and says so.
  r = call("roll_dice", {{"notation", "2d6"}, {"mode", "advantage"}});
  ASSERT_FALSE(r.is_error);
  EXPECT_NE(r.structured.value("message", "").find("changed nothing"), std::string::npos);
}

TEST_F(GmToolsTest, RollDiceRefusesWhatItCannotDo) {
  for (const json& args : {json{{"notation", "10000d10000"}}, json{{"notation", "1d6 + banana"}},
                           json{{"notation", ""}}, json{{"notation", "1d6"}, {"times", 21}},
                           json{{"notation", "1d6"}, {"seed", -1}}, json{{"notation", 6}}, json::object()}) {
    auto r = call("roll_dice", args);
    EXPECT_TRUE(r.is_error) << args.dump();
    EXPECT_FALSE(r.text.empty());
  }
  auto r = call("roll_dice", {{"notation", "10000d10000"}});
  EXPECT_NE(r.text.find("too many dice"), std::string::npos) << r.text;
  // Words for what the notation writes as kh/dl or the mode: the error says how to write them.
  r = call("roll_dice", {{"notation", "4d6 drop lowest"}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("\"4d6dl1\""), std::string::npos) << r.text;
  r = call("roll_dice", {{"notation", "1d20+5 advantage"}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("mode \"advantage\""), std::string::npos) << r.text;
  r = call("roll_dice", {{"notation", "1d6 + banana"}});
  EXPECT_EQ(r.text.find("mode"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("4d6dl1"), std::string::npos) << r.text;
}

TEST(GmTools, RollDiceNeedsNoStore) {
  Engine engine(testing::temp_dir() + "/none.db");
  auto r = engine.call("roll_dice", {{"notation", "2d6"}, {"seed", 2}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["result"]["odds"]["table"].size(), 11u);
}

TEST_F(GmToolsTest, EvaluateEncounterShowsTheArithmetic) {
  auto r =
      call("evaluate_encounter",
           {{"party_levels", {3, 3, 3, 3}}, {"creatures", {{{"name", "Goblin"}, {"count", 4}}}}, {"rules", "2014"}});
  ASSERT_FALSE(r.is_error) << r.text;
  const json& res = r.structured["result"];
  EXPECT_EQ(res["creatures"][0]["key"], "srd_goblin");  // the preferred (2014) edition of the name
  EXPECT_EQ(res["base_xp"], 200);
  EXPECT_EQ(res["multiplier"], 2.0);
  EXPECT_EQ(res["adjusted_xp"], 400);
  EXPECT_EQ(res["difficulty"], "easy");
  EXPECT_EQ(res["thresholds"]["deadly"], 1600);
  EXPECT_EQ(res["under_other_rules"]["difficulty"], "low");
  EXPECT_NE(r.text.find("\u00D72"), std::string::npos) << r.text;
  // Keys, names and bare challenge ratings mix; 2024 has no multiplier.
  r = call("evaluate_encounter", {{"party_size", 4},
                                  {"party_level", 5},
                                  {"rules", "2024"},
                                  {"creatures", {{{"key", "srd_owlbear"}}, {{"cr", "1/2"}, {"count", 2}}}}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["result"]["base_xp"], 900);
  EXPECT_EQ(r.structured["result"]["adjusted_xp"], 900);
  EXPECT_EQ(r.structured["result"]["difficulty"], "low");
  // An edition by filter.
  r = call("evaluate_encounter",
           {{"party_levels", {1}}, {"creatures", {{{"name", "Goblin"}}}}, {"documents", {"a5e-mm"}}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["result"]["creatures"][0]["key"], "a5e-mm_goblin");
}

TEST_F(GmToolsTest, ALow2024FightSaysHowMuchOfTheLowBudgetItSpends) {
  // One CR 1/8 creature (25 XP) against four 5th-level characters: trivial under 2014, within the 2,000 XP low
  // budget under 2024, which the answer says rather than a bare "low".
  auto r = call("evaluate_encounter", {{"party_size", 4}, {"party_level", 5}, {"creatures", {{{"cr", "1/8"}}}}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_NE(r.text.find("**trivial** under the 2014 rules."), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("Under the 2024 rules: low (25 XP of the 2,000 XP low budget)."), std::string::npos) << r.text;
  auto modern = call("evaluate_encounter",
                     {{"party_size", 4}, {"party_level", 5}, {"rules", "2024"}, {"creatures", {{{"cr", "1/8"}}}}});
  ASSERT_FALSE(modern.is_error) << modern.text;
  EXPECT_NE(modern.text.find("**low** under the 2024 rules (25 XP of the 2,000 XP low budget)."), std::string::npos)
      << modern.text;
}

TEST_F(GmToolsTest, EvaluateEncounterErrorsSayWhatToFix) {
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"party_levels", {3}}, {"creatures", {{{"name", "Goblinn"}}}}}, "Closest"},
      {{{"party_levels", {3}}, {"creatures", {{{"name", "Goblin"}, {"key", "srd_goblin"}}}}}, "exactly one"},
      {{{"creatures", {{{"name", "Goblin"}}}}}, "party_levels"},
      {{{"party_levels", {3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}}, {"creatures", {{{"cr", 1}}}}}, "at most 12"},
      {{{"party_levels", {21}}, {"creatures", {{{"cr", 1}}}}}, "out of range"},
      {{{"party_levels", {3}}, {"creatures", {{{"cr", 1}, {"count", 0}}}}}, "count"},
      {{{"party_levels", {3}}, {"creatures", {{{"cr", "1/3"}}}}}, "XP table"},
      {{{"party_levels", {3}}, {"creatures", json::array()}}, "empty"},
      {{{"party_levels", {3}}, {"creatures", {{{"name", "Goblin"}, {"speed", 30}}}}}, "speed"},
      {{{"party_levels", {3}}, {"party_size", 2}, {"party_level", 3}, {"creatures", {{{"cr", 1}}}}}, "either"},
      {{{"party_levels", {3}}, {"creatures", {{{"name", "Goblin"}}}}, {"documents", {"no-such-book"}}}, "no-such-book"},
  };
  for (const auto& [args, says] : cases) {
    auto r = call("evaluate_encounter", args);
    EXPECT_TRUE(r.is_error) << args.dump();
    EXPECT_NE(r.text.find(says), std::string::npos) << args.dump() << ": " << r.text;
  }
}

TEST_F(GmToolsTest, BuildEncounterLandsEveryGroupOnTheDifficulty) {
  const json args = {{"party_size", 4}, {"party_level", 3}, {"difficulty", "hard"}, {"rules", "2014"}, {"seed", 11}};
  auto r = call("build_encounter", args);
  ASSERT_FALSE(r.is_error) << r.text;
  const json& res = r.structured["result"];
  EXPECT_EQ(res["target"]["min"], 900);
  EXPECT_EQ(res["target"]["max"], 1599);
  ASSERT_FALSE(res["groups"].empty()) << r.text;
  for (const auto& g : res["groups"]) {
    EXPECT_EQ(g["difficulty"], "hard") << g.dump();
    EXPECT_GE(g["adjusted_xp"].get<long long>(), 900);
    EXPECT_LE(g["adjusted_xp"].get<long long>(), 1599);
    // The arithmetic agrees with evaluate_encounter on the same creatures.
    json creatures = json::array();
    int count = 0;
    for (const auto& c : g["creatures"]) {
      creatures.push_back({{"key", c["key"]}, {"count", c["count"]}});
      count += c["count"].get<int>();
    }
    EXPECT_LE(count, 8);
    auto check = call("evaluate_encounter",
                      {{"party_size", 4}, {"party_level", 3}, {"rules", "2014"}, {"creatures", creatures}});
    ASSERT_FALSE(check.is_error) << check.text;
    EXPECT_EQ(check.structured["result"]["adjusted_xp"], g["adjusted_xp"]);
    EXPECT_EQ(check.structured["result"]["difficulty"], "hard");
  }
  // The seed reproduces the answer.
  auto again = call("build_encounter", args);
  EXPECT_EQ(again.structured["result"]["groups"], res["groups"]);
}

TEST_F(GmToolsTest, BuiltGroupsAreNotPaddedWithFarWeakerCreatures) {
  // A leader's followers are worth at least a tenth of its XP, whatever the seed: no CR 1 dragon with seven frogs.
  for (int seed = 1; seed <= 40; ++seed) {
    auto r = call("build_encounter", {{"party_size", 4},
                                      {"party_level", 3},
                                      {"difficulty", "hard"},
                                      {"rules", "2014"},
                                      {"max_creatures", 12},
                                      {"seed", seed}});
    ASSERT_FALSE(r.is_error) << r.text;
    for (const auto& g : r.structured["result"]["groups"]) {
      long long top = 0, least = -1;
      for (const auto& c : g["creatures"]) {
        const long long xp = c.value("xp", 0LL);
        top = std::max(top, xp);
        least = least < 0 ? xp : std::min(least, xp);
      }
      EXPECT_GE(least * 10, top) << g.dump();
    }
  }
}

TEST_F(GmToolsTest, BuildEncounterKeepsToFiltersAndTheme) {
  auto r = call("build_encounter", {{"party_levels", {5, 5, 5, 5}},
                                    {"difficulty", "high"},
                                    {"rules", "2024"},
                                    {"theme", "undead"},
                                    {"type", "undead"},
                                    {"seed", 5}});
  ASSERT_FALSE(r.is_error) << r.text;
  const json& groups = r.structured["result"]["groups"];
  ASSERT_FALSE(groups.empty()) << r.text;
  for (const auto& g : groups) {
    EXPECT_LE(g["base_xp"].get<long long>(), 4400);
    EXPECT_GT(g["base_xp"].get<long long>(), 3000);
    for (const auto& c : g["creatures"]) {
      auto e = call("get_entity", {{"key", c["key"]}});
      ASSERT_FALSE(e.is_error) << e.text;
      EXPECT_EQ(text::lower(e.structured["result"]["type"].get<std::string>()), "undead") << c["key"];
    }
  }
}

TEST_F(GmToolsTest, BuildEncounterKeepsToTheEnvironment) {
  auto r = call("build_encounter", {{"party_size", 4},
                                    {"party_level", 3},
                                    {"difficulty", "hard"},
                                    {"rules", "2014"},
                                    {"environment", "mountain"},
                                    {"alternatives", 6},
                                    {"seed", 2}});
  ASSERT_FALSE(r.is_error) << r.text;
  const json& groups = r.structured["result"]["groups"];
  ASSERT_FALSE(groups.empty()) << r.text;
  for (const auto& g : groups) {
    for (const auto& c : g["creatures"]) {
      auto e = call("get_entity", {{"key", c["key"]}});
      ASSERT_FALSE(e.is_error) << e.text;
      const json& envs = e.structured["result"]["environments"];
      EXPECT_NE(std::find(envs.begin(), envs.end(), "Mountain"), envs.end()) << c["key"];
    }
  }
  r = call("build_encounter", {{"party_levels", {3}}, {"environment", "astral sea"}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_NE(r.structured.value("message", "").find("lists the environment"), std::string::npos) << r.text;
}

TEST_F(GmToolsTest, BuildEncounterTakesThePreferredEditionOfEachName) {
  // Goblin is in SRD 5.1 and in Level Up's Monstrous Menagerie (which sorts first by document key).
  auto r = call("build_encounter", {{"party_levels", {1, 1}},
                                    {"difficulty", "easy"},
                                    {"rules", "2014"},
                                    {"type", "humanoid"},
                                    {"cr_max", "1/4"},
                                    {"documents", {"a5e-mm", "srd-2014"}},
                                    {"seed", 4}});
  ASSERT_FALSE(r.is_error) << r.text;
  const json& groups = r.structured["result"]["groups"];
  ASSERT_FALSE(groups.empty()) << r.text;
  for (const auto& g : groups) {
    for (const auto& c : g["creatures"]) EXPECT_EQ(c["key"], "srd_goblin") << r.text;
  }
  // A blank theme is no theme: every creature the filters allow is a candidate.
  auto blank = call("build_encounter", {{"party_levels", {3}}, {"theme", "   "}, {"seed", 1}});
  auto none = call("build_encounter", {{"party_levels", {3}}, {"seed", 1}});
  ASSERT_FALSE(blank.is_error) << blank.text;
  EXPECT_EQ(blank.structured["result"]["candidates"], none.structured["result"]["candidates"]);
  EXPECT_EQ(blank.structured["result"]["groups"], none.structured["result"]["groups"]);
}

TEST_F(GmToolsTest, RollDiceKeepsLargeRollsShortAndSeedsApart) {
  auto r = call("roll_dice", {{"notation", "1000d1000"}, {"times", 2}, {"seed", 9}});
  ASSERT_FALSE(r.is_error) << r.text;
  const json& term = r.structured["result"]["rolls"][0]["terms"][0];
  EXPECT_EQ(term["dice"], 1000);
  EXPECT_FALSE(term.contains("faces"));
  EXPECT_NE(r.text.find("[1000 dice: "), std::string::npos) << r.text.substr(0, 300);
  EXPECT_LT(r.text.size(), 2000u);
  // The second roll of seed 9 is not the first roll of seed 10.
  auto a = call("roll_dice", {{"notation", "20d6"}, {"times", 2}, {"seed", 9}});
  auto b = call("roll_dice", {{"notation", "20d6"}, {"seed", 10}});
  EXPECT_NE(a.structured["result"]["rolls"][1], b.structured["result"]["rolls"][0]);
  // Advantage on a notation that already keeps one of two d20s changes nothing, and says so.
  r = call("roll_dice", {{"notation", "2d20kl1"}, {"mode", "advantage"}});
  EXPECT_NE(r.structured.value("message", "").find("changed nothing"), std::string::npos) << r.text;
  // The stated share of rolls between the 5th and 95th percentiles is the true one.
  r = call("roll_dice", {{"notation", "1d6"}, {"seed", 1}});
  EXPECT_NE(r.text.find("100.00% of rolls fall between 1 and 6"), std::string::npos) << r.text;
}

TEST_F(GmToolsTest, BuildEncounterSaysWhichConstraintToRelax) {
  auto r = call("build_encounter", {{"party_levels", {1}}, {"difficulty", "easy"}, {"rules", "2014"}, {"cr_min", 13}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_TRUE(r.structured["result"]["groups"].empty());
  EXPECT_NE(r.structured.value("message", "").find("lower cr_min"), std::string::npos) << r.text;
  r = call("build_encounter", {{"party_levels", {20, 20, 20, 20, 20, 20}},
                               {"difficulty", "deadly"},
                               {"rules", "2014"},
                               {"cr_max", "1/4"},
                               {"max_creatures", 4}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_TRUE(r.structured["result"]["groups"].empty());
  EXPECT_NE(r.structured.value("message", "").find("raise cr_max or max_creatures"), std::string::npos) << r.text;
  r = call("build_encounter", {{"party_levels", {3}}, {"difficulty", "deadly"}, {"rules", "2024"}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("low, moderate, high"), std::string::npos) << r.text;
  r = call("build_encounter", {{"party_levels", {3}}, {"type", "dragon"}, {"documents", {"tob"}}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_NE(r.structured.value("message", "").find("No creature matches"), std::string::npos) << r.text;
}

}  // namespace
}  // namespace lorekeeper::tools
