// The corrections file's reader and the corrector the sync applies it with (open5e/corrections.hpp).
#include "lorekeeper/open5e/corrections.hpp"

#include <gtest/gtest.h>

namespace lorekeeper::open5e {
namespace {

using json = nlohmann::json;

json entry() {
  return json{
      {"record", "v2/magicitems/srd_horn"},
      {"field", "requires_attunement"},
      {"was", true},
      {"value", false},
      {"evidence", json::array({{{"record", "v1/magicitems/horn"}, {"field", "requires_attunement"}, {"equals", ""}}})},
      {"reason", "v1 records no attunement"}};
}

std::string error_of(const json& file) {
  auto parsed = parse_corrections(file.dump());
  return parsed.is_ok() ? "" : parsed.status().message();
}

TEST(Corrections, AWellFormedEntryIsRead) {
  auto parsed = parse_corrections(json::array({entry()}).dump());
  ASSERT_TRUE(parsed.is_ok()) << parsed.status().to_string();
  ASSERT_EQ(parsed->size(), 1u);
  const Correction& c = (*parsed)[0];
  EXPECT_EQ(c.endpoint, "v2/magicitems");
  EXPECT_EQ(c.key, "srd_horn");
  EXPECT_EQ(c.evidence[0].endpoint, "v1/magicitems");
  EXPECT_EQ(c.evidence[0].describe(), "v1/magicitems horn: requires_attunement is \"\"");
  const json mark = c.mark();
  EXPECT_EQ(mark["record"], "v2/magicitems/srd_horn");
  EXPECT_EQ(mark["was"], true);
  EXPECT_EQ(mark["value"], false);
  EXPECT_EQ(mark["evidence"][0], "v1/magicitems horn: requires_attunement is \"\"");
}

TEST(Corrections, AnEntryThatCannotBeReviewedIsRefusedWithItsPlace) {
  EXPECT_NE(error_of(json::object()).find("JSON array"), std::string::npos);
  EXPECT_NE(parse_corrections("[{").status().message().find("not valid JSON"), std::string::npos);
  for (const char* member : {"record", "field", "was", "value", "evidence", "reason"}) {
    json e = entry();
    e.erase(member);
    EXPECT_NE(error_of(json::array({entry(), e})).find("entry 2"), std::string::npos) << member;
  }
  json e = entry();
  e["evidence"] = json::array();
  EXPECT_NE(error_of(json::array({e})).find("non-empty"), std::string::npos);
  e = entry();
  e["value"] = true;
  EXPECT_NE(error_of(json::array({e})).find("same as `was`"), std::string::npos);
  e = entry();
  e["note"] = "x";
  EXPECT_NE(error_of(json::array({e})).find("unknown member `note`"), std::string::npos);
  e = entry();
  e["record"] = "srd_horn";
  EXPECT_NE(error_of(json::array({e})).find("<version>/<list>/<key>"), std::string::npos);
  e = entry();
  e["evidence"][0]["quotes"] = "x";  // two tests
  EXPECT_NE(error_of(json::array({e})).find("exactly one"), std::string::npos);
  e = entry();
  e["evidence"][0].erase("equals");
  e["evidence"][0]["lacks"] = "";
  EXPECT_NE(error_of(json::array({e})).find("non-empty string"), std::string::npos);
  EXPECT_NE(error_of(json::array({entry(), entry()})).find("overlaps"), std::string::npos);
  json whole = entry(), part = entry();
  whole["field"] = "rarity";
  whole["was"] = {{"key", "rare"}};
  whole["value"] = {{"key", "very-rare"}};
  part["field"] = "rarity.key";
  part["was"] = "rare";
  part["value"] = "very-rare";
  EXPECT_NE(error_of(json::array({whole, part})).find("overlaps"), std::string::npos);
  for (const char* record : {"v2//x", "v3/spells/x", "v2/spells/", "/spells/x", "v2/spells/a/b"}) {
    e = entry();
    e["record"] = record;
    EXPECT_NE(error_of(json::array({e})).find("is not \"<version>/<list>/<key>\""), std::string::npos) << record;
  }
  for (const char* field : {"rarity..key", ".rarity", "rarity.", ""}) {
    e = entry();
    e["field"] = field;
    EXPECT_NE(error_of(json::array({e})).find("`field`"), std::string::npos) << field;
    e = entry();
    e["evidence"][0]["field"] = field;
    EXPECT_NE(error_of(json::array({e})).find("`field`"), std::string::npos) << field;
  }
  e = entry();
  e["value"] = "false";  // a string for a boolean
  EXPECT_NE(error_of(json::array({e})).find("type of `was`"), std::string::npos);
  e = entry();
  e["value"] = nullptr;
  EXPECT_NE(error_of(json::array({e})).find("type of `was`"), std::string::npos);
}

TEST(Corrections, EvidenceHoldsOnlyWhenTheRecordBearsItOut) {
  Evidence quotes{"v1/x", "k", "desc", Evidence::Test::kQuotes, "Agility (Very Rare)"};
  EXPECT_TRUE(holds(quotes, json{{"desc", "**_Agility (Very Rare)_**. Your Dexterity"}}));
  EXPECT_FALSE(holds(quotes, json{{"desc", "Agility (Rare)"}}));
  EXPECT_FALSE(holds(quotes, json::object()));
  Evidence lacks{"v2/x", "k", "material_specified", Evidence::Test::kLacks, "consum"};
  EXPECT_TRUE(holds(lacks, json{{"material_specified", "a pearl"}}));
  EXPECT_FALSE(holds(lacks, json{{"material_specified", "a diamond, which the spell consumes"}}));
  // Only a text lacks a quote: a missing (or misspelled) field, null or a number proves nothing.
  EXPECT_FALSE(holds(lacks, json{{"materal_specified", "a pearl"}}));
  EXPECT_FALSE(holds(lacks, json{{"material_specified", nullptr}}));
  EXPECT_FALSE(holds(lacks, json{{"material_specified", 5}}));
  Evidence nested{"v2/x", "k", "category.key", Evidence::Test::kEquals, "armor"};
  EXPECT_TRUE(holds(nested, json{{"category", {{"key", "armor"}}}}));
  EXPECT_FALSE(holds(nested, json{{"category", "armor"}}));
}

TEST(Corrections, TheCorrectorAppliesAnEntryOnlyWhileTheRecordHasTheValueItCorrects) {
  auto parsed = parse_corrections(json::array({entry()}).dump());
  ASSERT_TRUE(parsed.is_ok());
  Corrector corrector(*parsed);
  json as_sent;
  json other = {{"key", "srd_other"}, {"requires_attunement", true}};
  EXPECT_TRUE(corrector.apply("v2/magicitems", other, as_sent).empty());
  json same_key_other_list = {{"key", "srd_horn"}, {"requires_attunement", true}};
  EXPECT_TRUE(corrector.apply("v2/items", same_key_other_list, as_sent).empty());
  EXPECT_EQ(same_key_other_list["requires_attunement"], true);
  // The API was mended: nothing to apply, and the sync reports the entry for review.
  json mended = {{"key", "srd_horn"}, {"requires_attunement", false}};
  EXPECT_TRUE(corrector.apply("v2/magicitems", mended, as_sent).empty());
  EXPECT_EQ(corrector.unapplied({"v2/magicitems"}),
            std::vector<std::string>{
                "v2/magicitems/srd_horn requires_attunement: the record no longer has the value it corrects"});
  EXPECT_TRUE(corrector.unapplied({"v2/spells"}).empty());  // its list was not read this time
  json wrong = {{"key", "srd_horn"}, {"requires_attunement", true}, {"name", "Horn"}};
  const json marks = corrector.apply("v2/magicitems", wrong, as_sent);
  ASSERT_EQ(marks.size(), 1u);
  EXPECT_EQ(marks[0]["field"], "requires_attunement");
  EXPECT_EQ(wrong["requires_attunement"], false);
  EXPECT_EQ(as_sent["requires_attunement"], true);  // the record as sent, kept as the entity's source
  EXPECT_EQ(as_sent["name"], "Horn");
  EXPECT_TRUE(corrector.unapplied({"v2/magicitems"}).empty());
  EXPECT_EQ(corrector.applied({"v2/magicitems"}), 1);
  // Records without a key, or not objects, pass untouched.
  json keyless = {{"requires_attunement", true}};
  EXPECT_TRUE(corrector.apply("v2/magicitems", keyless, as_sent).empty());
  json not_object = json::array({1});
  EXPECT_TRUE(corrector.apply("v2/magicitems", not_object, as_sent).empty());
}

TEST(Corrections, AnEntryWhoseEvidenceTheRecordsReadDoNotBearOutIsTakenBack) {
  json second = entry();
  second["record"] = "v2/magicitems/srd_horn-2";
  auto parsed = parse_corrections(json::array({entry(), second}).dump());
  ASSERT_TRUE(parsed.is_ok()) << parsed.status().to_string();
  Corrector corrector(*parsed);
  json as_sent;
  json horn = {{"key", "srd_horn"}, {"requires_attunement", true}};
  json horn2 = {{"key", "srd_horn-2"}, {"requires_attunement", true}};
  ASSERT_EQ(corrector.apply("v2/magicitems", horn, as_sent).size(), 1u);
  ASSERT_EQ(corrector.apply("v2/magicitems", horn2, as_sent).size(), 1u);
  // The evidence record is read after the records it corrects, and says otherwise now.
  corrector.note("v1/magicitems", json{{"slug", "horn"}, {"requires_attunement", "requires attunement"}});
  const auto back = corrector.take_back_unproven();
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0], (Corrector::RecordId{"v2/magicitems", "srd_horn"}));
  ASSERT_NE(corrector.as_sent(back[0]), nullptr);
  EXPECT_EQ((*corrector.as_sent(back[0]))["requires_attunement"], true);
  // Mapped again, the record keeps its value.
  json again = *corrector.as_sent(back[0]);
  EXPECT_TRUE(corrector.apply("v2/magicitems", again, as_sent).empty());
  EXPECT_EQ(again["requires_attunement"], true);
  EXPECT_EQ(corrector.applied({"v2/magicitems"}), 0);
  const auto why = corrector.unapplied({"v2/magicitems"});
  ASSERT_EQ(why.size(), 2u);
  EXPECT_NE(why[0].find("its evidence no longer holds: v1/magicitems horn: requires_attunement is \"\""),
            std::string::npos)
      << why[0];

  // An evidence record that was never read proves nothing either.
  Corrector unread(*parsed);
  json h = {{"key", "srd_horn"}, {"requires_attunement", true}};
  ASSERT_EQ(unread.apply("v2/magicitems", h, as_sent).size(), 1u);
  EXPECT_EQ(unread.take_back_unproven().size(), 1u);
  EXPECT_NE(unread.unapplied({"v2/magicitems"})[0].find("v1/magicitems/horn was not read"), std::string::npos);

  // Evidence read and holding keeps it.
  Corrector proven(*parsed);
  h = {{"key", "srd_horn"}, {"requires_attunement", true}};
  ASSERT_EQ(proven.apply("v2/magicitems", h, as_sent).size(), 1u);
  proven.note("v1/magicitems", json{{"slug", "horn"}, {"requires_attunement", ""}});
  EXPECT_TRUE(proven.take_back_unproven().empty());
  EXPECT_EQ(proven.applied({"v2/magicitems"}), 1);
}

TEST(Corrections, TheBundledFileIsWellFormed) {
  EXPECT_EQ(corrections_error(), "");
  EXPECT_FALSE(bundled_corrections().empty());
}

}  // namespace
}  // namespace lorekeeper::open5e
