#include <gtest/gtest.h>

#include <map>

#include "lorekeeper/core/config.hpp"
#include "lorekeeper/core/status.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/entity.hpp"
#include "test_support.hpp"

namespace lorekeeper {
namespace {

TEST(Text, FoldIgnoresCaseAccentsAndPunctuation) {
  EXPECT_EQ(text::fold("Fireball"), "fireball");
  EXPECT_EQ(text::fold("  FIRE-ball "), "fire ball");
  EXPECT_EQ(text::fold("Tasha’s Hideous Laughter"), "tashas hideous laughter");
  EXPECT_EQ(text::fold("Ångström Élan"), "angstrom elan");
  EXPECT_EQ(text::fold("Bigby's  Hand"), "bigbys hand");
}

TEST(Text, FoldSurvivesInvalidUtf8) {
  const std::string bad = std::string("Fire\xff\xfe") + "ball";
  const std::string f = text::fold(bad);
  EXPECT_NE(f.find("fire"), std::string::npos);
  EXPECT_EQ(text::sanitize_utf8("a\xc3"), "a\xEF\xBF\xBD");
}

TEST(Text, EditDistanceIsCapped) {
  EXPECT_EQ(text::edit_distance("firbal", "fireball", 3), 2);
  EXPECT_EQ(text::edit_distance("kitten", "sitting", 5), 3);
  EXPECT_EQ(text::edit_distance("a", "abcdefgh", 2), 3);
  EXPECT_EQ(text::edit_distance("", "", 1), 0);
  EXPECT_EQ(text::edit_distance("rouge", "rogue", 3), 1) << "a swap of neighbours is one edit";
  EXPECT_EQ(text::edit_distance("ab", "ba", 3), 1);
}

TEST(Text, FormatsChallengeRatings) {
  EXPECT_EQ(text::format_cr(0.125), "1/8");
  EXPECT_EQ(text::format_cr(0.25), "1/4");
  EXPECT_EQ(text::format_cr(0.5), "1/2");
  EXPECT_EQ(text::format_cr(17), "17");
  EXPECT_EQ(text::format_number(150.0), "150");
  EXPECT_EQ(text::format_number(2.5), "2.5");
}

TEST(Model, CastingTimesNormalise) {
  EXPECT_EQ(model::normalize_casting_time("1 Action"), "action");
  EXPECT_EQ(model::normalize_casting_time("action"), "action");
  EXPECT_EQ(model::normalize_casting_time("1 Bonus Action"), "bonus-action");
  EXPECT_EQ(model::normalize_casting_time("bonus_action"), "bonus-action");
  EXPECT_EQ(model::normalize_casting_time("Reaction"), "reaction");
  EXPECT_EQ(model::normalize_casting_time("10 Minutes"), "10minutes");
  EXPECT_EQ(model::normalize_casting_time("1minute"), "1minute");
  EXPECT_EQ(model::normalize_casting_time("1 Hour"), "1hour");
}

TEST(Model, KindsRoundTrip) {
  for (auto k : model::all_kinds()) {
    auto parsed = model::parse_kind(model::kind_name(k));
    ASSERT_TRUE(parsed.has_value()) << model::kind_name(k);
    EXPECT_EQ(*parsed, k);
  }
  EXPECT_EQ(model::parse_kind("Spells"), model::Kind::kSpell);
  EXPECT_EQ(model::parse_kind("magic_items"), model::Kind::kMagicItem);
  EXPECT_EQ(model::parse_kind("race"), model::Kind::kSpecies);
  EXPECT_FALSE(model::parse_kind("spaceship").has_value());
  EXPECT_EQ(model::slug("Very Rare"), "very-rare");
  EXPECT_EQ(model::slug("Two-Handed"), "two-handed");
}

TEST(Status, CarriesCodeAndMessage) {
  Status s = Status::not_found("no such thing");
  EXPECT_FALSE(s.is_ok());
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.to_string(), "not found: no such thing");
  Result<int> r(Status::invalid_argument("bad"));
  EXPECT_FALSE(r.is_ok());
  Result<int> v(3);
  ASSERT_TRUE(v.is_ok());
  EXPECT_EQ(*v, 3);
}

EnvLookup fake_env(std::map<std::string, std::string> vars) {
  return [vars](const std::string& k) -> std::optional<std::string> {
    auto it = vars.find(k);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(Config, DefaultsFollowXdg) {
  auto c = load_config(fake_env({{"XDG_DATA_HOME", "/data"}, {"HOME", "/home/u"}}), "/nonexistent/.env");
  ASSERT_TRUE(c.is_ok());
  EXPECT_EQ(c->db_path, "/data/lorekeeper/lorekeeper.db");
  EXPECT_EQ(c->origin["db_path"], "default");
  auto c2 = load_config(fake_env({{"HOME", "/home/u"}}), "/nonexistent/.env");
  EXPECT_EQ(c2->db_path, "/home/u/.local/share/lorekeeper/lorekeeper.db");
}

TEST(Config, EnvironmentBeatsDotEnvFile) {
  const std::string dir = testing::temp_dir();
  testing::write_file(dir + "/.env",
                      "# settings\nLOREKEEPER_DB_PATH=/from/dotenv.db\nexport LOREKEEPER_LOG_LEVEL='debug'\n"
                      "LOREKEEPER_CACHE_TTL_DAYS=3 # three days\n");
  auto c = load_config(fake_env({{"LOREKEEPER_DB_PATH", "/from/env.db"}, {"HOME", "/h"}}), dir + "/.env");
  ASSERT_TRUE(c.is_ok()) << c.status().to_string();
  EXPECT_EQ(c->db_path, "/from/env.db");
  EXPECT_EQ(c->origin["db_path"], "env");
  EXPECT_EQ(c->log_level, "debug");
  EXPECT_EQ(c->origin["log_level"], ".env");
  EXPECT_EQ(c->cache_ttl_days, 3);
}

TEST(Config, RejectsMalformedValues) {
  const std::string dir = testing::temp_dir();
  testing::write_file(dir + "/.env", "JUST A LINE\n");
  auto c = load_config(fake_env({}), dir + "/.env");
  ASSERT_FALSE(c.is_ok());
  EXPECT_NE(c.status().message().find("line 1"), std::string::npos);
  auto c2 = load_config(fake_env({{"LOREKEEPER_CACHE_TTL_DAYS", "soon"}}), "/nonexistent");
  ASSERT_FALSE(c2.is_ok());
  EXPECT_NE(c2.status().message().find("LOREKEEPER_CACHE_TTL_DAYS"), std::string::npos);
  auto c3 = load_config(fake_env({{"LOREKEEPER_LEGACY_TOOLS", "maybe"}}), "/nonexistent");
  EXPECT_FALSE(c3.is_ok());
}

TEST(Config, TildeExpandsToHome) {
  auto c = load_config(fake_env({{"LOREKEEPER_DB_PATH", "~/lk.db"}, {"HOME", "/home/u"}}), "/nonexistent");
  ASSERT_TRUE(c.is_ok());
  EXPECT_EQ(c->db_path, "/home/u/lk.db");
}

}  // namespace
}  // namespace lorekeeper
