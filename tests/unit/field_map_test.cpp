// The field map's lookup rules, and docs/entity-model.md's tables as the map renders them.
#include "lorekeeper/open5e/field_map.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace lorekeeper::open5e {
namespace {

TEST(FieldMap, AFieldTakesItsOwnRuleElseItsNearestDeclaredParents) {
  const FieldRule* own = field_rule("open5e_v2", "creature", "actions[].usage_limits.type");
  ASSERT_NE(own, nullptr);
  EXPECT_EQ(own->path, "actions[].usage_limits.type");
  EXPECT_EQ(own->fate, Fate::kShownAs);
  const FieldRule* parent = field_rule("open5e_v2", "creature", "actions[].usage_limits.param");
  ASSERT_NE(parent, nullptr);
  EXPECT_EQ(parent->path, "actions[].usage_limits");
  const FieldRule* top = field_rule("open5e_v2", "creature", "actions[].desc");
  ASSERT_NE(top, nullptr);
  EXPECT_EQ(top->path, "actions");
  EXPECT_EQ(top->fate, Fate::kKept);
}

TEST(FieldMap, EveryRecordSharesTheDocumentRulesAndAnUnknownFieldHasNone) {
  const FieldRule* doc = field_rule("open5e_v2", "spell", "document.gamesystem.name");
  ASSERT_NE(doc, nullptr);
  EXPECT_EQ(doc->path, "document.gamesystem");
  EXPECT_EQ(field_rule("open5e_v2", "spell", "name")->fate, Fate::kHeader);
  EXPECT_EQ(field_rule("open5e_v2", "spell", "a_field_the_api_adds_tomorrow"), nullptr);
  // A new field inside a kept one is kept: its value must be in the answer.
  EXPECT_EQ(field_rule("open5e_v2", "creature", "traits[].brand_new")->path, "traits");
  EXPECT_EQ(field_rule("open5e_v3", "spell", "level"), nullptr);
}

TEST(FieldMap, AReferenceKindKeepsAnyOtherTopLevelScalarUnderItsOwnName) {
  EXPECT_TRUE(is_reference_kind("condition"));
  EXPECT_FALSE(is_reference_kind("creature"));
  const FieldRule* scalar = field_rule("open5e_v2", "weapon-property", "short_name");
  ASSERT_NE(scalar, nullptr);
  EXPECT_EQ(scalar->path, "*");
  EXPECT_EQ(field_rule("open5e_v2", "weapon-property", "nested.short_name"), nullptr);
  EXPECT_EQ(field_rule("open5e_v2", "condition", "descriptions[].desc")->fate, Fate::kPerDocument);
  // A kind that is not a reference kind has no such rule.
  EXPECT_EQ(field_rule("open5e_v2", "feat", "short_name"), nullptr);
}

TEST(FieldMap, EveryRuleThatAccountsForAValueSaysWhy) {
  for (const auto& m : field_maps()) {
    for (const auto& r : m.rules) {
      if (r.fate != Fate::kKept && r.fate != Fate::kHeader) {
        EXPECT_FALSE(r.why.empty()) << m.source << " " << m.kind << " " << r.path;
      }
      if (r.fate == Fate::kDropped) {
        EXPECT_TRUE(r.to.empty()) << m.source << " " << m.kind << " " << r.path;
      }
    }
  }
}

// docs/entity-model.md holds field_map_markdown() between two markers. LOREKEEPER_WRITE_DOCS=1 writes it there.
TEST(FieldMap, TheDocsTablesAreTheMap) {
  const std::string path = std::string(LOREKEEPER_FIXTURES) + "/../../docs/entity-model.md";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::stringstream buf;
  buf << in.rdbuf();
  std::string doc = buf.str();
  const std::string begin = "<!-- field-map: generated from open5e::field_maps(); do not edit -->\n";
  const std::string end = "<!-- field-map: end -->";
  const size_t b = doc.find(begin);
  const size_t e = doc.find(end);
  ASSERT_NE(b, std::string::npos) << path << " lacks " << begin;
  ASSERT_NE(e, std::string::npos) << path << " lacks " << end;
  ASSERT_LT(b, e);
  const std::string held = doc.substr(b + begin.size(), e - b - begin.size());
  const std::string rendered = "\n" + field_map_markdown();
  if (held != rendered && std::getenv("LOREKEEPER_WRITE_DOCS")) {
    doc.replace(b + begin.size(), e - b - begin.size(), rendered);
    std::ofstream(path) << doc;
    return;
  }
  EXPECT_EQ(held, rendered) << "docs/entity-model.md's field tables differ from open5e::field_maps(); run "
                               "LOREKEEPER_WRITE_DOCS=1 build/lorekeeper_unit_tests --gtest_filter='FieldMap.*'";
}

}  // namespace
}  // namespace lorekeeper::open5e
