// The versions of one entity across documents (search/editions.hpp) and the word-level text difference
// compare_editions shows (tools/compare_tool.hpp), on small stores written here.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "../../src/tools/compare_tool.hpp"
#include "lorekeeper/search/editions.hpp"
#include "lorekeeper/store/store.hpp"
#include "test_support.hpp"

namespace lorekeeper::search {
namespace {

using model::Kind;
using nlohmann::json;

model::Document doc(const std::string& key, const std::string& system) {
  return {key, "Document " + key, "", "Pub", "cc-by-40", system, "test", "", ""};
}

model::Entity spell(const model::Document& d, const std::string& name, const std::string& text, int level = 3) {
  model::Entity e;
  e.kind = Kind::kSpell;
  e.key = d.key + "_" + model::slug(name);
  e.name = name;
  e.document = d;
  e.source_api = "test";
  e.text = text;
  e.data = {{"desc", text}, {"level", level}};
  e.facets.level = level;
  e.facets.school = "evocation";
  return e;
}

TEST(NameSimilarity, SameWordsOrLettersAreOneNameAndNumbersAreNoEvidence) {
  EXPECT_EQ(name_similarity("Crossbow, hand", "Hand Crossbow"), 1.0);
  EXPECT_EQ(name_similarity("Sea Horse", "Seahorse"), 1.0);
  EXPECT_EQ(name_similarity("Swarm of Poisonous Snakes", "Swarm of Poisonous Snake"), 1.0);
  EXPECT_GT(name_similarity("Hide", "Hide Armor"), 0.7);
  EXPECT_GT(name_similarity("Androsphinx", "Sphinx of Valor"), 0.0);
  EXPECT_LT(name_similarity("Androsphinx", "Sphinx of Valor"), name_similarity("Goblin", "Goblin Warrior"));
  EXPECT_EQ(name_similarity("Net (+1)", "Musket (+1)"), 0.0);
  EXPECT_EQ(name_similarity("Feeblemind", "Befuddlement"), 0.0);
  EXPECT_EQ(name_similarity("", "Fireball"), 0.0);
}

class EditionVersions : public ::testing::Test {
 protected:
  void SetUp() override {
    auto st = store::Store::open(testing::temp_dir() + "/editions.db", store::Store::Mode::kReadWrite);
    ASSERT_TRUE(st.is_ok()) << st.status().to_string();
    st_ = std::move(*st);
    old_ = doc("old", "5e-2014");
    new_ = doc("new", "5e-2024");
    other_ = doc("other", "5e-2014");
    std::vector<model::Entity> all;
    // Four names both editions share: they make "old" and "new" editions of each other.
    for (const char* n : {"Light", "Shield", "Sleep", "Wish"}) {
      all.push_back(spell(old_, n, std::string("The old ") + n + " text about magic."));
      all.push_back(spell(new_, n, std::string("The new ") + n + " text about magic."));
    }
    all.push_back(spell(old_, "Feeblemind",
                        "You blast the mind of a creature that you can see within range, attempting to shatter its "
                        "intellect and personality. The target takes psychic damage and must make an intelligence "
                        "saving throw.",
                        8));
    all.push_back(spell(new_, "Befuddlement",
                        "You blast the mind of a creature that you can see within range. The target makes an "
                        "intelligence saving throw, taking psychic damage on a failed save.",
                        8));
    // The same boilerplate under names that share no word: not each other's renames.
    const std::string boilerplate = "You have a bonus to attack and damage rolls made with this magic weapon.";
    all.push_back(spell(old_, "Net", boilerplate, 1));
    all.push_back(spell(new_, "Musket", boilerplate, 1));
    all.push_back(spell(new_, "Pistol", boilerplate, 1));
    // A book that shares one name with "old": not an edition of it, though its text is Feeblemind's.
    all.push_back(spell(other_, "Light", "Another light."));
    all.push_back(spell(other_, "Mind Blast",
                        "You blast the mind of a creature that you can see within range, attempting to shatter its "
                        "intellect and personality. The target takes psychic damage and must make an intelligence "
                        "saving throw.",
                        8));
    ASSERT_TRUE(st_->upsert({old_, new_, other_}, all).is_ok());
  }

  model::Entity get(const std::string& key) {
    auto r = st_->get(key, Kind::kSpell, false);
    EXPECT_TRUE(r.is_ok() && r->size() == 1) << key;
    return r->front();
  }

  std::unique_ptr<store::Store> st_;
  model::Document old_, new_, other_;
};

TEST_F(EditionVersions, SameNamesFirstThenTheRenamedCounterpartInAnotherEdition) {
  auto v = versions_of(*st_, get("old_light"));
  ASSERT_TRUE(v.is_ok()) << v.status().to_string();
  ASSERT_EQ(v->size(), 3u);
  EXPECT_EQ((*v)[0].basis, Version::Basis::kReference);
  for (size_t i = 1; i < v->size(); ++i) EXPECT_EQ((*v)[i].basis, Version::Basis::kSameName);

  auto f = versions_of(*st_, get("old_feeblemind"));
  ASSERT_TRUE(f.is_ok());
  ASSERT_EQ(f->size(), 2u) << "the book that is not an edition of 'old' is not searched";
  EXPECT_EQ((*f)[1].entity.key, "new_befuddlement");
  EXPECT_EQ((*f)[1].basis, Version::Basis::kRenamed);
  EXPECT_EQ((*f)[1].counterpart_of, "old_feeblemind");
  EXPECT_GE((*f)[1].score, kCounterpartMinScore);

  // And back: Befuddlement's counterpart in the older edition.
  auto b = versions_of(*st_, get("new_befuddlement"));
  ASSERT_TRUE(b.is_ok());
  ASSERT_EQ(b->size(), 2u);
  EXPECT_EQ((*b)[1].entity.key, "old_feeblemind");
}

TEST_F(EditionVersions, AmbiguousTextAloneMatchesNothing) {
  auto v = versions_of(*st_, get("old_net"));
  ASSERT_TRUE(v.is_ok());
  EXPECT_EQ(v->size(), 1u) << (v->size() > 1 ? (*v)[1].entity.name : "");
}

TEST_F(EditionVersions, DocumentsAndTheRenamedSwitchNarrowTheVersions) {
  EditionOptions only_old;
  only_old.documents = std::vector<std::string>{"old"};
  auto v = versions_of(*st_, get("old_feeblemind"), only_old);
  ASSERT_TRUE(v.is_ok());
  EXPECT_EQ(v->size(), 1u);
  EditionOptions no_renamed;
  no_renamed.match_renamed = false;
  v = versions_of(*st_, get("old_feeblemind"), no_renamed);
  ASSERT_TRUE(v.is_ok());
  EXPECT_EQ(v->size(), 1u);
}

TEST(GroupEditions, OneNameOnePlaceAtItsBestRankShowingThePreferredEdition) {
  model::Document srd14 = doc("srd-2014", "5e-2014"), srd24 = doc("srd-2024", "5e-2024"), a5e = doc("a5e-mm", "a5e"),
                  tob = doc("tob", "5e-2014"), ccdx = doc("ccdx", "5e-2014");
  srd14.publisher = srd24.publisher = "Wizards of the Coast";
  const std::vector<RankedEdition> ranked = {
      {Kind::kCreature, "wraith", &a5e},     // 0: ranks the Wraith's place
      {Kind::kCreature, "wight", &srd24},    // 1
      {Kind::kCreature, "wraith", &srd14},   // 2: the preferred edition, shown in place 0
      {Kind::kSpell, "wraith", &srd14},      // 3: another kind, another place
      {Kind::kCreature, "wight", &srd14},    // 4: preferred over 1
      {Kind::kCreature, "riptide", &tob},    // 5: two third-party books of one system: neither is preferred
      {Kind::kCreature, "riptide", &ccdx},   // 6
      {Kind::kCreature, "specter", &srd14},  // 7: past the limit of 4 places
      {Kind::kCreature, "wraith", &srd24},   // 8: ranked below the cut, still joins its place
  };
  const auto places = group_editions(ranked, 4, "5e-2014");
  ASSERT_EQ(places.size(), 4u);
  EXPECT_EQ(places[0].best, 0u);
  EXPECT_EQ(places[0].shown, 2u);
  EXPECT_EQ(places[0].others, (std::vector<size_t>{0, 8}));
  EXPECT_EQ(places[1].best, 1u);
  EXPECT_EQ(places[1].shown, 4u);
  EXPECT_EQ(places[1].others, (std::vector<size_t>{1}));
  EXPECT_EQ(places[2].shown, 3u);
  EXPECT_TRUE(places[2].others.empty());
  EXPECT_EQ(places[3].shown, 5u);  // the best-ranked of equal standing
  EXPECT_EQ(places[3].others, (std::vector<size_t>{6}));
  // Under another preferred edition the 2024 Wraith is shown.
  EXPECT_EQ(group_editions(ranked, 4, "5e-2024")[0].shown, 8u);
  EXPECT_TRUE(group_editions(ranked, 0, "5e-2014").empty());
  EXPECT_TRUE(group_editions({}, 4, "5e-2014").empty());
}

TEST(GroupEditions, EntriesOfOneNameInOneDocumentAreDifferentThings) {
  // The 2014 SRD has three rules named "Speed" (movement, races, monsters) and the 2024 SRD one.
  model::Document srd14 = doc("srd-2014", "5e-2014"), srd24 = doc("srd-2024", "5e-2024");
  model::Document srd14_again = srd14;  // one document, held twice by the caller
  const std::vector<RankedEdition> ranked = {
      {Kind::kRule, "speed", &srd14},        // 0: its own place
      {Kind::kRule, "speed", &srd14_again},  // 1: the same document: another place
      {Kind::kRule, "speed", &srd24},        // 2: another document: joins the first place
      {Kind::kRule, "speed", &srd14},        // 3: a third place
  };
  const auto places = group_editions(ranked, 10, "5e-2014");
  ASSERT_EQ(places.size(), 3u);
  EXPECT_EQ(places[0].shown, 0u);
  EXPECT_EQ(places[0].others, (std::vector<size_t>{2}));
  EXPECT_EQ(places[1].shown, 1u);
  EXPECT_TRUE(places[1].others.empty());
  EXPECT_EQ(places[2].shown, 3u);
  EXPECT_TRUE(places[2].others.empty());
  // Past the limit, a same-document entry opens no place.
  EXPECT_EQ(group_editions(ranked, 1, "5e-2014").size(), 1u);
}

TEST(GroupEditions, ANameWithItsWordsInAnotherOrderIsTheSameName) {
  // Black Flag lists "Snake, Flying" and "Wolf, Dire"; the SRDs "Flying Snake" and "Dire Wolf".
  model::Document srd14 = doc("srd-2014", "5e-2014"), bfrd = doc("bfrd", "5e-2014");
  const std::vector<RankedEdition> ranked = {
      {Kind::kCreature, "snake flying", &bfrd},   // 0
      {Kind::kCreature, "flying snake", &srd14},  // 1: joins 0, and is shown (SRD before Black Flag)
      {Kind::kCreature, "wolf, dire", &bfrd},     // 2
      {Kind::kCreature, "dire wolf", &srd14},     // 3: joins 2
      {Kind::kCreature, "snake", &srd14},         // 4: fewer words: another name
      {Kind::kCreature, "flying snake", &bfrd},   // 5: the same document as 0: another place
      {Kind::kSpell, "flying snake", &srd14},     // 6: another kind
  };
  const auto places = group_editions(ranked, 10, "5e-2014");
  ASSERT_EQ(places.size(), 5u);
  EXPECT_EQ(places[0].best, 0u);
  EXPECT_EQ(places[0].shown, 0u);
  EXPECT_EQ(places[0].others, (std::vector<size_t>{1}));
  EXPECT_EQ(places[1].best, 2u);
  EXPECT_EQ(places[1].shown, 2u);
  EXPECT_EQ(places[1].others, (std::vector<size_t>{3}));
  EXPECT_EQ(places[2].shown, 4u);
  EXPECT_EQ(places[3].shown, 5u);
  EXPECT_EQ(places[4].shown, 6u);
}

TEST(CompareEditions, AnswerStaysSmallWhateverTheRecordsHold) {
  auto st = store::Store::open(testing::temp_dir() + "/hostile.db", store::Store::Mode::kReadWrite);
  ASSERT_TRUE(st.is_ok());
  const auto a = doc("hb1", "5e-2014");
  const auto b = doc("hb2", "5e-2014");
  std::string huge;
  for (int i = 0; i < 200000; ++i) huge += "word" + std::to_string(i) + " ";
  std::vector<model::Entity> all;
  for (const auto& d : {a, b}) {
    auto e = spell(d, "Everything", huge);
    e.kind = Kind::kCreature;
    e.data = {{"desc", huge + d.key}};
    json actions = json::array();
    for (int i = 0; i < 3000; ++i) {
      e.data["field" + std::to_string(i)] = d.key + std::to_string(i);
      e.data["same" + std::to_string(i)] = "x";
      e.data["text" + std::to_string(i)] = huge.substr(0, 400) + d.key;
      actions.push_back({{"name", d.key + "action" + std::to_string(i)}, {"desc", "hits"}});
    }
    e.data["actions"] = actions;
    all.push_back(std::move(e));
  }
  ASSERT_TRUE((*st)->upsert({a, b}, all).is_ok());
  const tools::compare_tool::Suggest none = [](const auto&, const auto&) { return std::vector<std::string>{}; };
  auto r = tools::compare_tool::compare_editions(**st, {{"name", "Everything"}}, std::nullopt, "5e-2014", none);
  ASSERT_FALSE(r.is_error) << r.text.substr(0, 500);
  EXPECT_EQ(r.structured["result"]["versions"].size(), 2u);
  EXPECT_LT(r.text.size(), 16000u);
  EXPECT_LT(r.structured.dump().size(), 40000u);
  EXPECT_NE(r.text.find("more fields"), std::string::npos);
  EXPECT_NE(r.text.find("and 2980 more"), std::string::npos);
  auto long_name =
      tools::compare_tool::compare_editions(**st, {{"name", std::string(5000, 'x')}}, std::nullopt, "5e-2014", none);
  EXPECT_TRUE(long_name.is_error);
  EXPECT_LT(long_name.text.size(), 200u);
}

TEST(TextChange, NamesTheChangedWordsAndHowMuchIsKept) {
  using tools::compare_tool::text_change;
  auto same = text_change("A tiny ball of bat guano.", "a tiny ball of bat guano");
  EXPECT_EQ(same.similarity, 1.0);
  EXPECT_TRUE(same.hunks.empty());
  auto c = text_change("A tiny ball of bat guano and sulfur.", "a ball of bat guano and sulfur");
  ASSERT_EQ(c.hunks.size(), 1u);
  EXPECT_EQ(c.hunks[0].first, "tiny");
  EXPECT_EQ(c.hunks[0].second, "");
  EXPECT_NEAR(c.similarity, 2.0 * 7 / 15, 1e-9);
  auto swap = text_change("from your pointing finger to a point", "from you to a point");
  ASSERT_EQ(swap.hunks.size(), 1u);
  EXPECT_EQ(swap.hunks[0].first, "your pointing finger");
  EXPECT_EQ(swap.hunks[0].second, "you");
  EXPECT_FALSE(swap.truncated);
}

// The sentences that changed, as a game master reads them: a reworded sentence before and after with the numbers
// that changed, one removed, one added; the same sentences in another case or spacing are no change.
TEST(SentenceChanges, PairsRewordedSentencesAndNamesChangedNumbers) {
  using tools::compare_tool::sentence_changes;
  const std::string before =
      "You attempt to interrupt a creature. If it is casting a spell of 3rd level or lower, its spell fails. "
      "Otherwise make an ability check.";
  const std::string after =
      "you attempt to interrupt a creature.  If it is casting a spell of 2nd level or lower, its spell fails. "
      "If that creature is casting the spell with a spell slot, the slot isn't expended.";
  const auto c = sentence_changes(before, after);
  ASSERT_EQ(c.changes.size(), 3u);
  EXPECT_EQ(c.changes[0].before, "If it is casting a spell of 3rd level or lower, its spell fails.");
  EXPECT_EQ(c.changes[0].after, "If it is casting a spell of 2nd level or lower, its spell fails.");
  EXPECT_EQ(c.changes[0].numbers_before, std::vector<std::string>{"3rd"});
  EXPECT_EQ(c.changes[0].numbers_after, std::vector<std::string>{"2nd"});
  EXPECT_EQ(c.changes[1].before, "Otherwise make an ability check.");
  EXPECT_TRUE(c.changes[1].after.empty());
  EXPECT_TRUE(c.changes[2].before.empty());
  EXPECT_EQ(c.changes[2].after, "If that creature is casting the spell with a spell slot, the slot isn't expended.");
  EXPECT_EQ(c.more, 0u);
  EXPECT_TRUE(sentence_changes(before, before).changes.empty());
  // Many changes: the first few, and how many more.
  std::string many_a, many_b;
  for (int i = 0; i < 40; ++i) many_a += "Rule number " + std::to_string(i) + " holds. ";
  for (int i = 0; i < 40; ++i) many_b += "Another rule " + std::to_string(i * 7) + " now. ";
  const auto m = sentence_changes(many_a, many_b, 4);
  EXPECT_EQ(m.changes.size(), 4u);
  EXPECT_GT(m.more, 0u);
}

TEST(TextChange, AHugeTextIsComparedOnItsBeginningAndTheChangesAreCut) {
  using tools::compare_tool::text_change;
  std::string a, b;
  for (int i = 0; i < 200000; ++i) a += "word" + std::to_string(i % 97) + " ";
  for (int i = 0; i < 200000; ++i) b += "other" + std::to_string(i % 89) + " ";
  auto c = text_change(a, b, 3);
  const auto sentences = tools::compare_tool::sentence_changes(a, b);  // one sentence each, cut
  ASSERT_FALSE(sentences.changes.empty());
  EXPECT_LT(sentences.changes[0].before.size(), 400u);
  EXPECT_TRUE(c.truncated);
  ASSERT_LE(c.hunks.size(), 3u);
  ASSERT_FALSE(c.hunks.empty());
  EXPECT_LT(c.hunks[0].first.size(), 200u);
  EXPECT_EQ(c.similarity, 0.0);
}

}  // namespace
}  // namespace lorekeeper::search
