#include <sys/stat.h>

#include <gtest/gtest.h>
#include <filesystem>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "lorekeeper/core/config.hpp"
#include "lorekeeper/core/half.hpp"
#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/core/sha256.hpp"
#include "lorekeeper/core/status.hpp"
#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/entity.hpp"
#include "lorekeeper/model/vocabulary.hpp"
#include "test_support.hpp"

namespace lorekeeper {
namespace {

float float_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

TEST(Half, RoundsToNearestEvenAtTheEdges) {
  EXPECT_EQ(half::from_float(0.0f), 0x0000);
  EXPECT_EQ(half::from_float(-0.0f), 0x8000);
  EXPECT_EQ(half::from_float(1.0f), 0x3c00);
  EXPECT_EQ(half::from_float(-2.0f), 0xc000);
  EXPECT_EQ(half::from_float(65504.0f), 0x7bff);                      // the largest half
  EXPECT_EQ(half::from_float(65519.0f), 0x7bff);                      // under the halfway point to 65536
  EXPECT_EQ(half::from_float(65520.0f), 0x7c00);                      // halfway, ties to even: infinity
  EXPECT_EQ(half::from_float(std::ldexp(1.0f, -24)), 0x0001);         // the smallest subnormal
  EXPECT_EQ(half::from_float(std::ldexp(1.0f, -25)), 0x0000);         // halfway to it, ties to even: zero
  EXPECT_EQ(half::from_float(std::ldexp(3.0f, -26)), 0x0001);         // past halfway
  EXPECT_EQ(half::from_float(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // halfway between 1 and the next: even
  EXPECT_EQ(half::from_float(1.0f + std::ldexp(3.0f, -11)), 0x3c02);  // halfway, odd below: up
  EXPECT_EQ(half::from_float(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(half::from_float(std::numeric_limits<float>::quiet_NaN()) & 0x7c00, 0x7c00);
  EXPECT_NE(half::from_float(std::numeric_limits<float>::quiet_NaN()) & 0x03ff, 0);
  for (uint32_t h = 0; h < 0x7c00; ++h) {  // every finite half survives the round trip
    ASSERT_EQ(half::from_float(half::to_float(static_cast<uint16_t>(h))), h);
    ASSERT_EQ(half::from_float(-half::to_float(static_cast<uint16_t>(h))), h | 0x8000);
  }
}

TEST(Half, HardwareAndPortableConversionsAgree) {
  if (!half::hardware()) GTEST_SKIP() << "no F16C on this CPU";
  // Blocks of 8 take the F16C path; from_float is the portable one.
  std::vector<float> x;
  uint32_t seed = 7;
  for (int i = 0; i < 1 << 18; ++i) {
    seed = seed * 1664525u + 1013904223u;
    const uint32_t bits = (seed & 0x807fffffu) | (static_cast<uint32_t>(96 + (seed >> 23) % 48) << 23);
    x.push_back(float_bits(bits));  // exponents from subnormal half to past the half range
  }
  std::vector<uint16_t> out(x.size());
  half::from_floats(x.data(), x.size(), out.data());
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(out[i], half::from_float(x[i])) << x[i];
}

TEST(Half, DotProductOfFloatAndHalf) {
  std::vector<float> q, v;
  for (int i = 0; i < 385; ++i) {  // not a multiple of the vector width
    q.push_back(std::sin(0.1f * static_cast<float>(i)));
    v.push_back(std::cos(0.07f * static_cast<float>(i)));
  }
  std::vector<uint16_t> h(v.size());
  half::from_floats(v.data(), v.size(), h.data());
  double expected = 0;
  for (size_t i = 0; i < q.size(); ++i) expected += static_cast<double>(q[i]) * half::to_float(h[i]);
  EXPECT_NEAR(half::dot(q.data(), h.data(), q.size()), expected, 1e-4);
}

TEST(Text, FoldIgnoresCaseAccentsAndPunctuation) {
  EXPECT_EQ(text::fold("Fireball"), "fireball");
  EXPECT_EQ(text::fold("  FIRE-ball "), "fire ball");
  EXPECT_EQ(text::fold("Tasha’s Hideous Laughter"), "tashas hideous laughter");
  EXPECT_EQ(text::fold("Ångström Élan"), "angstrom elan");
  EXPECT_EQ(text::fold("Bigby's  Hand"), "bigbys hand");
}

TEST(Text, FoldedWordsAreTheWordsOfTheFold) {
  EXPECT_EQ(text::folded_words("  Ångström's  Fire-Ball "), (std::vector<std::string>{"angstroms", "fire", "ball"}));
  EXPECT_TRUE(text::folded_words(" ,. ").empty());
}

TEST(Text, JoinFirstCountsWhatItLeavesOut) {
  EXPECT_EQ(text::join_first({"a", "b", "c"}, 2), "a, b and 1 more");
  EXPECT_EQ(text::join_first({"a", "b"}, 2), "a, b");
  EXPECT_EQ(text::join_first({"a", "b"}, 5, "; "), "a; b");
  EXPECT_EQ(text::join_first({}, 3), "");
  EXPECT_EQ(text::join_first({"a"}, 0), " and 1 more");
}

TEST(Text, SplitCommasTrimsAndDropsEmptyParts) {
  using V = std::vector<std::string>;
  EXPECT_EQ(text::split_commas("Bard, Cleric ,Paladin"), (V{"Bard", "Cleric", "Paladin"}));
  EXPECT_EQ(text::split_commas(" a,, b ,"), (V{"a", "b"}));
  EXPECT_EQ(text::split_commas(""), V{});
  EXPECT_EQ(text::split_commas("one"), V{"one"});
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
  // Against the full table, capped, on random strings over a small alphabet (so swaps and matches are common).
  auto full = [](const std::string& x, const std::string& y) {
    const size_t n = x.size(), m = y.size();
    std::vector<std::vector<int>> t(n + 1, std::vector<int>(m + 1));
    for (size_t i = 0; i <= n; ++i) t[i][0] = static_cast<int>(i);
    for (size_t j = 0; j <= m; ++j) t[0][j] = static_cast<int>(j);
    for (size_t i = 1; i <= n; ++i) {
      for (size_t j = 1; j <= m; ++j) {
        t[i][j] = std::min({t[i - 1][j] + 1, t[i][j - 1] + 1, t[i - 1][j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1)});
        if (i > 1 && j > 1 && x[i - 1] == y[j - 2] && x[i - 2] == y[j - 1])
          t[i][j] = std::min(t[i][j], t[i - 2][j - 2] + 1);
      }
    }
    return t[n][m];
  };
  uint32_t seed = 12345;
  auto next = [&] { return seed = seed * 1664525u + 1013904223u; };
  for (int round = 0; round < 3000; ++round) {
    std::string x, y;
    const int lx = static_cast<int>(next() >> 28), ly = static_cast<int>(next() >> 28);
    for (int i = 0; i < lx; ++i) x += static_cast<char>('a' + (next() >> 30));
    for (int i = 0; i < ly; ++i) y += static_cast<char>('a' + (next() >> 30));
    const int cap = static_cast<int>(next() >> 29);
    EXPECT_EQ(text::edit_distance(x, y, cap), std::min(full(x, y), cap + 1)) << x << " / " << y << " cap " << cap;
  }
}

TEST(Text, GroupsThousandsAndCutsOnlyBetweenCharactersOrWords) {
  EXPECT_EQ(text::group_thousands(0), "0");
  EXPECT_EQ(text::group_thousands(999), "999");
  EXPECT_EQ(text::group_thousands(12700), "12,700");
  EXPECT_EQ(text::group_thousands(1234567), "1,234,567");
  EXPECT_EQ(text::group_thousands(-1500), "-1,500");
  const std::string e = "a\xC3\xA9\xE2\x82\xAC";  // 'a', 'é' (2 bytes), '€' (3 bytes)
  EXPECT_EQ(text::utf8_boundary(e, 0), 0u);
  EXPECT_EQ(text::utf8_boundary(e, 2), 1u);  // inside 'é'
  EXPECT_EQ(text::utf8_boundary(e, 3), 3u);
  EXPECT_EQ(text::utf8_boundary(e, 5), 3u);  // inside '€'
  EXPECT_EQ(text::utf8_boundary(e, 99), e.size());
  EXPECT_EQ(text::cut_at_word("short", 10), "short");
  EXPECT_EQ(text::cut_at_word("the quick brown fox", 12), "the quick");         // a word ends in the second half
  EXPECT_EQ(text::cut_at_word("a verylongwordindeed", 12), "a verylongwo");     // none does: at the length
  EXPECT_EQ(text::cut_at_word("ab\xC3\xA9\xC3\xA9\xC3\xA9", 5), "ab\xC3\xA9");  // never inside a character
}

TEST(Text, FormatsNumbers) {
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
  // Every stored form is its own normal form, and reads back from the words people write for it.
  for (const std::string& stored : model::casting_times()) {
    EXPECT_EQ(model::normalize_casting_time(stored), stored);
    EXPECT_EQ(model::normalize_casting_time(model::casting_time_text(stored)), stored) << stored;
  }
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
  EXPECT_EQ(model::parse_kind("Subclasses"), model::Kind::kClass);
  EXPECT_EQ(model::parse_kind("monster"), model::Kind::kCreature);
  EXPECT_EQ(model::parse_kind("weapon properties"), model::Kind::kWeaponProperty);
  // Every kind is parsed back from its name and from its plural.
  for (model::Kind k : model::all_kinds()) {
    EXPECT_EQ(model::parse_kind(model::kind_plural(k)), k) << model::kind_plural(k);
  }
  EXPECT_EQ(model::kind_plural(model::Kind::kSpecies), "species");
  EXPECT_EQ(model::kind_plural(model::Kind::kWeaponProperty), "weapon-properties");
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

// A settings file that is not one is an error at once: a FIFO (never waited on), a device or a file over 1 MiB
// (/dev/zero was read until memory ran out); a directory called .env (a Python virtual environment) is no file.
TEST(Config, ASettingsFileIsBoundedAndRegular) {
  const std::string dir = testing::temp_dir();
  ASSERT_EQ(::mkfifo((dir + "/fifo.env").c_str(), 0600), 0);
  auto c = load_config(fake_env({}), dir + "/fifo.env");
  ASSERT_FALSE(c.is_ok());
  EXPECT_NE(c.status().message().find("not a regular file"), std::string::npos) << c.status().message();
  c = load_config(fake_env({}), "/dev/zero");
  ASSERT_FALSE(c.is_ok());
  EXPECT_NE(c.status().message().find("not a regular file"), std::string::npos) << c.status().message();
  testing::write_file(dir + "/big.env", "LOREKEEPER_LOG_LEVEL=debug\n" + std::string(1 << 20, '#'));
  c = load_config(fake_env({}), dir + "/big.env");
  ASSERT_FALSE(c.is_ok());
  EXPECT_NE(c.status().message().find("allowed"), std::string::npos) << c.status().message();
  std::filesystem::create_directory(dir + "/.env");
  EXPECT_TRUE(load_config(fake_env({}), dir + "/.env").is_ok());
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

TEST(Config, PreferredEdition) {
  auto c = load_config(fake_env({}), "/nonexistent");
  ASSERT_TRUE(c.is_ok());
  EXPECT_EQ(c->preferred_edition, "5e-2014");
  for (const char* given : {"5e-2024", "2024", " 5E-2024 "}) {
    auto p = load_config(fake_env({{"LOREKEEPER_PREFERRED_EDITION", given}}), "/nonexistent");
    ASSERT_TRUE(p.is_ok()) << given;
    EXPECT_EQ(p->preferred_edition, "5e-2024") << given;
    EXPECT_EQ(p->origin.at("preferred_edition"), "env");
  }
  auto bad = load_config(fake_env({{"LOREKEEPER_PREFERRED_EDITION", "a5e"}}), "/nonexistent");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("5e-2014 or 5e-2024"), std::string::npos);
}

TEST(Config, EmbedModes) {
  EXPECT_EQ(load_config(fake_env({}), "/nonexistent")->embed, "auto");
  for (const char* given : {"auto", "off", "stored", " Stored "}) {
    auto c = load_config(fake_env({{"LOREKEEPER_EMBED", given}}), "/nonexistent");
    ASSERT_TRUE(c.is_ok()) << given;
    EXPECT_EQ(c->embed, text::lower(text::trim(given)));
  }
  auto bad = load_config(fake_env({{"LOREKEEPER_EMBED", "replica"}}), "/nonexistent");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("auto, off or stored"), std::string::npos) << bad.status().message();
}

TEST(Config, TildeExpandsToHome) {
  auto c = load_config(fake_env({{"LOREKEEPER_DB_PATH", "~/lk.db"}, {"HOME", "/home/u"}}), "/nonexistent");
  ASSERT_TRUE(c.is_ok());
  EXPECT_EQ(c->db_path, "/home/u/lk.db");
}

// --- sha256 ---

TEST(Sha256, FipsVectors) {
  EXPECT_EQ(sha256::hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256::hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256::hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256::hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, IncrementalEqualsOneShotAtEverySplit) {
  std::string text;
  for (int i = 0; i < 300; ++i) text += static_cast<char>('a' + i % 26);
  const std::string whole = sha256::hex(text);
  for (size_t split : {0, 1, 55, 56, 63, 64, 65, 128, 200, 300}) {
    sha256::Hasher h;
    h.update(std::string_view(text).substr(0, split));
    h.update(std::string_view(text).substr(split));
    EXPECT_EQ(h.hex(), whole) << split;
  }
}

TEST(Sha256, FileDigestAndMissingFile) {
  const std::string path = ::testing::TempDir() + "/sha256_test.bin";
  std::string data(3 * 1024 * 1024 + 17, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 131 % 251);
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(std::fwrite(data.data(), 1, data.size(), f), data.size());
    std::fclose(f);
  }
  auto digest = sha256::file_hex(path);
  ASSERT_TRUE(digest) << digest.status().to_string();
  EXPECT_EQ(*digest, sha256::hex(data));
  std::remove(path.c_str());
  EXPECT_FALSE(sha256::file_hex(path));
}

TEST(JsonUtil, NestingDepthIgnoresBracketsInStrings) {
  EXPECT_EQ(json_util::nesting_depth("1"), 0u);
  EXPECT_EQ(json_util::nesting_depth("[]"), 1u);
  EXPECT_EQ(json_util::nesting_depth(R"({"a":[{"b":[]}],"c":{}})"), 4u);
  EXPECT_EQ(json_util::nesting_depth(R"(["[[[[", "\"[[[", {"k\\":"]]"}])"), 2u);
  EXPECT_EQ(json_util::nesting_depth(std::string(1000, '[') + std::string(1000, ']')), 1000u);
  EXPECT_EQ(json_util::nesting_depth(std::string(1000, '['), 10), 11u) << "stops counting past the limit";
}

// An unpaired surrogate escape is read as U+FFFD, so the message around it keeps its id; pairs, escaped
// backslashes before a 'u' and text outside strings are left alone, and text that is not JSON stays refused.
TEST(JsonUtil, LoneSurrogateEscapesReadAsTheReplacementCharacter) {
  std::string why;
  auto j =
      json_util::parse(R"({"id":7,"params":{"q":"a\ud800b","r":"\udc00","s":"\ud83d\ude00","t":"\\ud800"}})", &why);
  ASSERT_TRUE(j) << why;
  EXPECT_EQ((*j)["id"], 7);
  EXPECT_EQ((*j)["params"]["q"],
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ((*j)["params"]["r"], "\xEF\xBF\xBD");
  EXPECT_EQ((*j)["params"]["s"], "\xF0\x9F\x98\x80");  // a pair is one character
  EXPECT_EQ((*j)["params"]["t"], "\\ud800");           // an escaped backslash, then text
  // A high surrogate at the very end of a string, or of the text.
  j = json_util::parse(R"(["\ud800"])", &why);
  ASSERT_TRUE(j) << why;
  EXPECT_EQ((*j)[0], "\xEF\xBF\xBD");
  EXPECT_FALSE(json_util::parse(R"({"id":7,"q":"\ud800)", &why));
  EXPECT_FALSE(json_util::parse(R"({"id":7, \ud800: 1})", &why));
}

TEST(JsonUtil, ParseRefusesTooDeepTextBeforeParsingIt) {
  json_util::ParseFailure failure = json_util::ParseFailure::kNone;
  std::string why;
  const size_t at_limit = json_util::kMaxDepth;
  const std::string ok = std::string(at_limit, '[') + std::string(at_limit, ']');
  EXPECT_TRUE(json_util::parse(ok, &why, &failure)) << why;
  EXPECT_EQ(failure, json_util::ParseFailure::kNone);
  const std::string deep = "{\"x\":" + std::string(60000, '[') + std::string(60000, ']') + "}";
  EXPECT_FALSE(json_util::parse(deep, &why, &failure));
  EXPECT_EQ(failure, json_util::ParseFailure::kTooDeep);
  EXPECT_NE(why.find("64 levels"), std::string::npos) << why;
  // Unbalanced and truncated deep text is refused the same way, never parsed.
  EXPECT_FALSE(json_util::parse(std::string(1 << 20, '{'), &why, &failure));
  EXPECT_EQ(failure, json_util::ParseFailure::kTooDeep);
  EXPECT_FALSE(json_util::parse("{\"a\":", &why, &failure));
  EXPECT_EQ(failure, json_util::ParseFailure::kSyntax);
  // A string full of brackets is not nesting.
  auto flat = json_util::parse("\"" + std::string(100000, '[') + "\"", &why, &failure);
  ASSERT_TRUE(flat) << why;
  EXPECT_EQ(flat->get<std::string>().size(), 100000u);
}

}  // namespace
}  // namespace lorekeeper
