#include <gtest/gtest.h>

#include <filesystem>

#include "lorekeeper/core/json_util.hpp"
#include "lorekeeper/open5e/directory_source.hpp"
#include "lorekeeper/open5e/mapper.hpp"
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

TEST(PageFileName, SortsAndDecodesTheQuery) {
  EXPECT_EQ(page_file_name("https://api.open5e.com/v2/spells/?limit=100&page=3"), "limit=100&page=3.json");
  EXPECT_EQ(page_file_name("https://api.open5e.com/v2/spells/?page=3&limit=100"), "limit=100&page=3.json");
  EXPECT_EQ(page_file_name("https://api.open5e.com/v2/spells/"), "_.json");
  EXPECT_EQ(page_file_name("/v2/spells/?document__key__in=srd-2014%2Csrd-2024"),
            "document__key__in=srd-2014,srd-2024.json");
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

TEST(Mapper, ArmorKeepsAcRules) {
  const json rec = record("armor", "srd_plate");
  auto e = map_v2_record(endpoint("armor"), rec, context());
  ASSERT_TRUE(e.is_ok());
  EXPECT_EQ(e->data["armor_class"], rec["ac_display"]);
  EXPECT_EQ(e->data["ac_base"], rec["ac_base"]);
  EXPECT_EQ(e->data["stealth_disadvantage"], rec["grants_stealth_disadvantage"]);
  EXPECT_EQ(e->data["strength_required"], rec["strength_score_required"]);
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

TEST(Mapper, RulesResolveTheirDocumentAndSection) {
  MappingContext ctx = context();
  ctx.rule_section_names["srd_attacking"] = "Attacking";
  auto e = map_v2_record(endpoint("rules"), record("rules", "srd_attacking_opportunity-attacks"), ctx);
  ASSERT_TRUE(e.is_ok()) << e.status().to_string();
  EXPECT_EQ(e->document.key, "srd-2014");
  EXPECT_EQ(e->document.name, "System Reference Document 5.1");
  EXPECT_EQ(e->facets.section, "attacking");
  EXPECT_EQ(e->facets.parent_key, "srd_attacking");
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

TEST(DirectorySource, LoadsEveryFixtureRecord) {
  auto st = store::Store::open(testing::temp_dir() + "/s.db", store::Store::Mode::kReadWrite);
  ASSERT_TRUE(st.is_ok());
  int progress_calls = 0;
  auto report =
      load_directory(testing::fixture_mirror(), **st, [&](const std::string&, int, int) { ++progress_calls; });
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  EXPECT_TRUE(report->skipped.empty());
  EXPECT_TRUE(report->missing_endpoints.empty());
  EXPECT_EQ(report->records.at("spells"), 16);  // two pages, followed through `next`
  EXPECT_EQ(report->entities.at("spell"), 16);
  EXPECT_GT(progress_calls, 20);
  auto stats = (*st)->stats();
  ASSERT_TRUE(stats.is_ok());
  int sum = 0;
  for (const auto& [k, n] : report->entities) sum += n;
  EXPECT_EQ(stats->total, sum);
  EXPECT_TRUE(stats->meta.count("synced_at:open5e_v2"));
}

TEST(DirectorySource, AMalformedPageLeavesTheStoreAsItWas) {
  const std::string dir = testing::temp_dir();
  fs::copy(testing::fixture_mirror(), dir, fs::copy_options::recursive);
  auto st = store::Store::open(dir + "/s.db", store::Store::Mode::kReadWrite);
  ASSERT_TRUE(st.is_ok());
  ASSERT_TRUE(load_directory(dir, **st, nullptr).is_ok());
  auto before = (*st)->stats();
  // Truncate the second spells page mid-record.
  const std::string page = dir + "/v2/spells/limit=100&page=2.json";
  const std::string text = testing::read_file(page);
  testing::write_file(page, text.substr(0, text.size() / 2));
  auto report = load_directory(dir, **st, nullptr);
  ASSERT_FALSE(report.is_ok());
  EXPECT_NE(report.status().message().find("page=2"), std::string::npos);
  auto after = (*st)->stats();
  EXPECT_EQ(before->total, after->total);
  EXPECT_EQ(before->per_kind, after->per_kind);
}

TEST(DirectorySource, RejectsADirectoryThatIsNotAMirror) {
  auto st = store::Store::open(testing::temp_dir() + "/s.db", store::Store::Mode::kReadWrite);
  auto report = load_directory(testing::temp_dir(), **st, nullptr);
  ASSERT_FALSE(report.is_ok());
  EXPECT_EQ(report.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace lorekeeper::open5e
