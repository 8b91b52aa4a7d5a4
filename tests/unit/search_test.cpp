// The pieces of meaning-based search that need no model: passages, hashes, the vector index and the store's
// vector table.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "lorekeeper/core/half.hpp"
#include "lorekeeper/search/passages.hpp"
#include "lorekeeper/search/ranker.hpp"
#include "lorekeeper/search/vector_index.hpp"
#include "lorekeeper/store/store.hpp"
#include "test_support.hpp"

namespace lorekeeper::search {
namespace {

using model::Hints;
using model::Kind;

// The descriptor tests use names that have bundled hints; they check the passage without them.
const Hints kNoHints;

model::Entity spell(const std::string& key, const std::string& name, const std::string& text) {
  model::Entity e;
  e.kind = Kind::kSpell;
  e.key = key;
  e.name = name;
  e.document = {"doc", "Document", "", "Pub", "cc-by-40", "5e-2014", "test", "", ""};
  e.source_api = "test";
  e.url = "https://example.invalid/" + key;
  e.text = text;
  e.data = {{"school", "Evocation"}, {"classes", {"Sorcerer", "Wizard"}}};
  e.facets.level = 3;
  e.facets.school = "evocation";
  return e;
}

std::vector<float> unit(std::vector<float> v) {
  double n = 0;
  for (float x : v) n += static_cast<double>(x) * x;
  for (auto& x : v) x = static_cast<float>(x / std::sqrt(n));
  return v;
}

TEST(Passages, StartWithTheNameAndADescriptorFromTheFacets) {
  const auto p = passages(spell("fb", "Fireball", "A bright streak flashes."), 4, kNoHints);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0], "Fireball (3rd-level evocation spell, for Sorcerer, Wizard). A bright streak flashes.");
}

TEST(Passages, SayHowASpellIsCastWhenItIsNotAnAction) {
  auto e = spell("ms", "Misty Step", "You teleport.");
  e.facets.casting_time = "bonus-action";
  e.facets.concentration = false;
  EXPECT_EQ(passages(e, 1, kNoHints)[0],
            "Misty Step (3rd-level evocation spell, bonus action, for Sorcerer, Wizard). You teleport.");
  e.facets.casting_time = "10minutes";
  e.facets.ritual = true;
  e.facets.concentration = true;
  EXPECT_EQ(passages(e, 1, kNoHints)[0],
            "Misty Step (3rd-level evocation spell, 10 minutes, ritual, concentration, for Sorcerer, Wizard). You "
            "teleport.");
  e.facets.casting_time = "action";
  e.facets.ritual = false;
  e.facets.concentration = false;
  EXPECT_EQ(passages(e, 1, kNoHints)[0], "Misty Step (3rd-level evocation spell, for Sorcerer, Wizard). You teleport.");
}

TEST(Passages, ClassesAreDescribedByTheirFeaturesInTheOrderTheyAreGained) {
  model::Entity e = spell("barbarian", "Barbarian", "Ability Score Improvement. ... Rage. ...");
  e.kind = Kind::kClass;
  e.facets = {};
  e.data = {{"features",
             {{{"name", "Ability Score Improvement"}, {"desc", "Raise a score."}, {"levels", {4, 8}}},
              {{"name", "Reckless Attack"}, {"desc", "Attack with advantage."}, {"levels", {2}}},
              {{"name", "Rage Damage"}, {"desc", "[Column data]"}},
              {{"name", "Proficiencies"}, {"desc", "Light armor."}},
              {{"name", "Rage"}, {"desc", "In battle, you fight with primal ferocity."}, {"levels", {1}}}}}};
  EXPECT_EQ(passages(e, 1, kNoHints)[0],
            "Barbarian (character class). Rage. In battle, you fight with primal ferocity. Reckless Attack. Attack "
            "with advantage.");
  e.name = "Path of the Berserker";
  e.data = {{"subclass_of", "Barbarian"}, {"desc", "Rage as violence."}};
  EXPECT_EQ(passages(e, 1, kNoHints)[0], "Path of the Berserker (Barbarian subclass). Rage as violence.");
}

TEST(Passages, CreaturesSayHowTheyMoveBeyondWalking) {
  model::Entity e = spell("pegasus", "Pegasus", "Hooves. Melee Weapon Attack.");
  e.kind = Kind::kCreature;
  e.facets = {};
  e.data = {{"size", "Large"},
            {"type", "Celestial"},
            {"alignment", "chaotic good"},
            {"speed", {{"walk", 60}, {"fly", 90}, {"swim", 0}, {"hover", true}}}};
  EXPECT_EQ(passages(e, 1, kNoHints)[0],
            "Pegasus (large celestial, flies, chaotic good). Hooves. Melee Weapon Attack.");
  e.data["speed"] = {{"walk", 40}, {"burrow", 40}, {"climb", 20}, {"swim", 30}};
  EXPECT_EQ(passages(e, 1, kNoHints)[0],
            "Pegasus (large celestial, swims, burrows, climbs, chaotic good). Hooves. Melee Weapon Attack.");
  e.data["speed"] = "30 ft.";  // not the mapped shape: nothing said
  EXPECT_EQ(passages(e, 1, kNoHints)[0], "Pegasus (large celestial, chaotic good). Hooves. Melee Weapon Attack.");
}

// A species' and a background's own traits come before those every one of them has, which would otherwise fill
// the passage (a background's benefits are typed; a species' traits are known by name).
TEST(Passages, OptionsLeadWithWhatSetsThemApart) {
  model::Entity e = spell("gearforged", "Gearforged", "unused");
  e.kind = Kind::kSpecies;
  e.facets = {};
  e.data = {{"desc", "Bodies of gears."},
            {"traits",
             {{{"name", "Ability Score Increase"}, {"desc", "Two scores increase by 1."}},
              {{"name", "Age"}, {"desc", "Any age."}},
              {{"name", "Living Construct"}, {"desc", "Your soul lives in a gem."}},
              {{"name", "Languages"}, {"desc", "Common."}}}}};
  EXPECT_EQ(passages(e, 1, kNoHints)[0],
            "Gearforged (species). Bodies of gears. Living Construct. Your soul lives in a gem. Ability Score "
            "Increase. Two scores increase by 1. Age. Any age. Languages. Common.");
  e.kind = Kind::kBackground;
  e.name = "Trader";
  e.data = {{"desc", ""},
            {"benefits",
             {{{"name", "Skill Proficiencies"}, {"desc", "Insight."}, {"type", "skill_proficiency"}},
              {{"name", "Equipment"}, {"desc", "A pack."}, {"type", "equipment"}},
              {{"name", "Trade Routes"}, {"desc", "You sell far away."}, {"type", "feature"}}}}};
  EXPECT_EQ(passages(e, 1, kNoHints)[0],
            "Trader (background). Trade Routes. You sell far away. Skill Proficiencies. Insight. Equipment. A pack.");
  // Without the list (a homebrew pack's own shape), the text as stored.
  e.data = model::json::object();
  EXPECT_EQ(passages(e, 1, kNoHints)[0], "Trader (background). unused");
}

TEST(Passages, SplitLongTextIntoWindowsUpToTheLimit) {
  std::string text;
  for (int i = 0; i < 500; ++i) text += "word" + std::to_string(i) + " ";
  const auto three = passages(spell("x", "X", text), 3);
  ASSERT_EQ(three.size(), 3u);
  EXPECT_NE(three[0].find("word0 "), std::string::npos);
  EXPECT_NE(three[1].find("word160 "), std::string::npos);
  EXPECT_EQ(three[1].find("word159 "), std::string::npos);
  EXPECT_EQ(three[2].rfind("X (", 0), 0u) << "every passage carries the header";
  EXPECT_EQ(passages(spell("x", "X", text), 1).size(), 1u);
  EXPECT_EQ(passages(spell("x", "X", ""), 3).size(), 1u) << "an entity without text still has its name embedded";
}

TEST(Hints, AreFoundByKindAndNameIgnoringCaseAndAccents) {
  const auto hints = Hints::parse(
      "kind\tname\thint\n"
      "creature\tPegasus\tA winged horse\n"
      "spell\tInvisibility\tVanish from sight, unseen.\r\n"
      "\n"
      "creature\tGrimlock\tBlind cave dwellers\n");
  ASSERT_TRUE(hints) << hints.status().to_string();
  EXPECT_EQ(hints->size(), 3u);
  EXPECT_EQ(hints->find(Kind::kCreature, "pegasus"), "A winged horse");
  EXPECT_EQ(hints->find(Kind::kSpell, "INVISIBILITY"), "Vanish from sight, unseen.") << "CRLF line ends are read";
  EXPECT_EQ(hints->find(Kind::kCreature, "Grimlock"), "Blind cave dwellers") << "a blank line is skipped";
  EXPECT_EQ(hints->find(Kind::kSpell, "Pegasus"), "") << "the kind is part of the entry";
  EXPECT_EQ(hints->find(Kind::kCreature, "Pegasus (Mount)"), "") << "only magic items fall back to their family";
}

TEST(Hints, MagicItemVariantsShareTheirFamilysHint) {
  const auto hints = Hints::parse(
      "kind\tname\thint\n"
      "magic-item\tVorpal Sword\tBlade that beheads\n"
      "magic-item\tWand of the War Mage\tWand that helps spell attacks\n"
      "magic-item\tVorpal Sword (Scimitar)\tA curved beheading blade\n");
  ASSERT_TRUE(hints) << hints.status().to_string();
  EXPECT_EQ(hints->find(Kind::kMagicItem, "Vorpal Sword (Longsword)"), "Blade that beheads");
  EXPECT_EQ(hints->find(Kind::kMagicItem, "Vorpal Sword (Scimitar)"), "A curved beheading blade")
      << "a variant's own hint wins";
  EXPECT_EQ(hints->find(Kind::kMagicItem, "Wand of the War Mage +2"), "Wand that helps spell attacks");
  EXPECT_EQ(hints->find(Kind::kMagicItem, "Wand of the War Mage +"), "");
  EXPECT_EQ(hints->find(Kind::kMagicItem, "(Longsword)"), "");
}

TEST(Hints, AMalformedLineIsRefusedByNumber) {
  const std::string header = "kind\tname\thint\n";
  const std::pair<const char*, const char*> cases[] = {
      {"creature\tPegasus\n", "line 2: expected three tab-separated fields"},
      {"creature\tPegasus\tA horse\textra\n", "line 2: expected three tab-separated fields"},
      {"monster\tPegasus\tA horse\n", "line 2: unknown kind 'monster'"},
      {"creatures\tPegasus\tA horse\n", "line 2: unknown kind 'creatures'"},
      {"creature\t\tA horse\n", "line 2: empty name or hint"},
      {"creature\tPegasus\t\n", "line 2: empty name or hint"},
      {"creature\tPegasus\tA horse\ncreature\tPEGASUS\tAgain\n", "line 3: a second hint for creature 'PEGASUS'"},
  };
  for (const auto& [body, why] : cases) {
    const auto hints = Hints::parse(header + body);
    ASSERT_FALSE(hints) << body;
    EXPECT_NE(hints.status().message().find(why), std::string::npos) << hints.status().message();
  }
}

TEST(Hints, TheBundledHintsParseAndCoverTheSrd) {
  const Hints& bundled = Hints::bundled();
  EXPECT_GT(bundled.size(), 1400u) << "data/search-hints.tsv is malformed or missing entries";
  for (const auto& [kind, name] : std::vector<std::pair<Kind, const char*>>{{Kind::kCreature, "Pegasus"},
                                                                            {Kind::kSpell, "Invisibility"},
                                                                            {Kind::kMagicItem, "Bag of Holding"},
                                                                            {Kind::kCondition, "Blinded"},
                                                                            {Kind::kClass, "Paladin"},
                                                                            {Kind::kItem, "Ram, Portable"}}) {
    EXPECT_FALSE(bundled.find(kind, name).empty()) << name;
  }
}

TEST(Passages, CarryTheHintAfterTheDescriptor) {
  const auto hints = Hints::parse("kind\tname\thint\nspell\tFireball\tA big explosion of flame\n");
  ASSERT_TRUE(hints);
  EXPECT_EQ(passages(spell("fb", "Fireball", "A bright streak flashes."), 1, *hints)[0],
            "Fireball (3rd-level evocation spell, for Sorcerer, Wizard). A big explosion of flame. A bright streak "
            "flashes.");
  std::string text;
  for (int i = 0; i < 400; ++i) text += "word ";
  const auto windows = passages(spell("fb", "Fireball", text), 3, *hints);
  ASSERT_EQ(windows.size(), 3u);
  for (const auto& p : windows) EXPECT_NE(p.find("A big explosion of flame. word"), std::string::npos) << p;
}

TEST(Passages, HashDependsOnModelAndText) {
  EXPECT_EQ(text_hash("m", "a"), text_hash("m", "a"));
  EXPECT_NE(text_hash("m", "a"), text_hash("m", "b"));
  EXPECT_NE(text_hash("m", "a"), text_hash("n", "a"));
  EXPECT_NE(text_hash("ma", ""), text_hash("m", "a")) << "fields are separated";
  EXPECT_EQ(text_hash("m", "a").size(), 16u);
}

std::vector<store::Store::VectorRow> rows() {
  return {
      {Kind::kSpell, "a", 0, "h", unit({1, 0, 0, 0}), "doc1"},
      {Kind::kSpell, "b", 0, "h", unit({0, 1, 0, 0}), "doc1"},
      {Kind::kSpell, "b", 1, "h", unit({0.9f, 0.1f, 0, 0}), "doc1"},  // b's second passage is close to a
      {Kind::kCreature, "c", 0, "h", unit({0.8f, 0.2f, 0, 0}), "doc2"},
      {Kind::kCreature, "bad", 0, "h", {1, 2, 3}, "doc2"},  // wrong dimension: skipped
  };
}

TEST(VectorIndex, SimilarityOfOneEntityIsItsBestPassage) {
  const VectorIndex ix = VectorIndex::build(rows(), 4);
  const std::vector<float> q = unit({1, 0, 0, 0});
  const auto b = ix.find(Kind::kSpell, "b");
  ASSERT_TRUE(b);
  EXPECT_NEAR(ix.similarity(*b, q.data()), unit({0.9f, 0.1f, 0, 0})[0], 1e-6);
  const auto a = ix.find(Kind::kSpell, "a");
  ASSERT_TRUE(a);
  EXPECT_NEAR(ix.similarity(*a, q.data()), 1.0f, 1e-6);
  const auto c = ix.find(Kind::kCreature, "c");
  ASSERT_TRUE(c);
  EXPECT_NEAR(ix.similarity(*c, q.data()), unit({0.8f, 0.2f, 0, 0})[0], 1e-6);
}

TEST(VectorIndex, ScoresAnEntityByItsBestPassageAndSkipsBadRows) {
  const VectorIndex ix = VectorIndex::build(rows(), 4);
  EXPECT_EQ(ix.size(), 3u);
  EXPECT_EQ(ix.passage_count(), 4u);
  const std::vector<float> q = unit({1, 0, 0, 0});
  const auto hits = ix.top_k(q.data(), nullptr, 10);
  ASSERT_EQ(hits.size(), 3u);
  EXPECT_EQ(ix.entity(hits[0].entity).key, "a");
  EXPECT_NEAR(hits[0].score, 1.0f, 1e-6);
  EXPECT_EQ(ix.entity(hits[1].entity).key, "b");
  EXPECT_EQ(ix.entity(hits[2].entity).key, "c");
  EXPECT_EQ(ix.entity(hits[2].entity).document_key, "doc2");
  EXPECT_FALSE(ix.find(Kind::kCreature, "bad"));
}

TEST(VectorIndex, FindsEveryEntityByKindAndKey) {
  // The same keys in two kinds, with two passages each: every (kind, key) is one entity, others are absent.
  std::vector<store::Store::VectorRow> many;
  for (Kind kind : {Kind::kCreature, Kind::kSpell}) {
    for (int i = 0; i < 3000; ++i) {
      for (int p = 0; p < 2; ++p) many.push_back({kind, "key-" + std::to_string(i), p, "h", unit({1, 0, 0, 0}), "d"});
    }
  }
  const VectorIndex ix = VectorIndex::build(std::move(many), 4);
  ASSERT_EQ(ix.size(), 6000u);
  std::set<uint32_t> seen;
  for (Kind kind : {Kind::kCreature, Kind::kSpell}) {
    for (int i = 0; i < 3000; ++i) {
      const std::string key = "key-" + std::to_string(i);
      const auto at = ix.find(kind, key);
      ASSERT_TRUE(at) << key;
      EXPECT_EQ(ix.entity(*at).kind, kind);
      EXPECT_EQ(ix.entity(*at).key, key);
      seen.insert(*at);
    }
  }
  EXPECT_EQ(seen.size(), 6000u);
  EXPECT_FALSE(ix.find(Kind::kMagicItem, "key-1"));
  EXPECT_FALSE(ix.find(Kind::kSpell, "key-3000"));
  EXPECT_FALSE(ix.find(Kind::kSpell, ""));
  EXPECT_FALSE(VectorIndex::build(std::vector<store::Store::VectorRow>{}, 4).find(Kind::kSpell, "key-1"));
}

// The half-precision scan must not change the answer: the top k equal a float brute force. Most vectors are
// spread out (so the scan prunes them), a tenth are crowded around the query (near-ties within the half rounding
// error); entities have several passages, and some queries run under a filter.
TEST(VectorIndex, TopKEqualsTheFloatAnswer) {
  uint32_t seed = 11;
  auto rnd = [&] {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<float>(seed >> 8) / 16777216.0f - 0.5f;
  };
  constexpr int kDims = 16, kEntities = 2000;
  const std::vector<float> centre = unit({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
  std::vector<store::Store::VectorRow> rows;
  std::vector<std::vector<std::vector<float>>> vectors(kEntities);  // entity -> passages
  for (int e = 0; e < kEntities; ++e) {
    for (int p = 0; p < 1 + e % 3; ++p) {
      std::vector<float> v(kDims);
      for (int i = 0; i < kDims; ++i) v[i] = e % 10 == 0 ? centre[i] + 0.002f * rnd() : rnd();
      v = unit(v);
      vectors[static_cast<size_t>(e)].push_back(v);
      rows.push_back({Kind::kSpell, "e" + std::to_string(10000 + e), p, "h", v, "d"});
    }
  }
  std::reverse(rows.begin(), rows.end());  // build() must not depend on the store's order
  const VectorIndex ix = VectorIndex::build(std::move(rows), kDims);
  ASSERT_EQ(ix.size(), static_cast<size_t>(kEntities));
  std::vector<uint8_t> allowed(ix.size());
  for (size_t i = 0; i < allowed.size(); ++i) allowed[i] = i % 4 != 1;
  const std::vector<uint8_t>* masks[] = {nullptr, &allowed};
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<float> q = centre;
    for (auto& x : q) x += 0.01f * rnd();
    q = unit(q);
    for (const auto* mask : masks) {
      std::vector<std::pair<float, uint32_t>> brute;
      for (uint32_t i = 0; i < ix.size(); ++i) {
        if (mask && !(*mask)[i]) continue;
        const size_t e = static_cast<size_t>(std::stoi(ix.entity(i).key.substr(1)) - 10000);
        float best = -2;
        for (const auto& v : vectors[e]) best = std::max(best, dot(q.data(), v.data(), v.size()));
        brute.push_back({best, i});
      }
      std::sort(brute.begin(), brute.end(), [](const auto& a, const auto& b) {
        return a.first > b.first || (a.first == b.first && a.second < b.second);
      });
      size_t rescored = 0;
      const auto hits = ix.top_k(q.data(), mask, 25, &rescored);
      ASSERT_EQ(hits.size(), 25u);
      for (size_t r = 0; r < hits.size(); ++r) {
        ASSERT_EQ(hits[r].entity, brute[r].second) << "trial " << trial << " rank " << r;
        ASSERT_EQ(hits[r].score, brute[r].first);
      }
      if (half::hardware()) {
        EXPECT_GE(rescored, 25u);
        EXPECT_LT(rescored, ix.size() / 5) << "the half-precision scan pruned little";
      }
    }
  }
}

// Vectors exact in half precision leave only the dot products' own rounding: ties within it keep the float order.
TEST(VectorIndex, TopKOfVectorsExactInHalfPrecision) {
  std::vector<store::Store::VectorRow> rows;
  const std::vector<float> base = {0.5f, 0.25f, 0.125f, 0.0625f, 0.5f, 0.25f, 0.125f, 0.0625f};
  for (int e = 0; e < 300; ++e) {
    std::vector<float> v = base;
    std::rotate(v.begin(), v.begin() + e % 8, v.end());  // equal scores but for summation order
    if (e >= 8) v[static_cast<size_t>(e % 8)] = static_cast<float>(e % 64) / 1024.0f;
    rows.push_back({Kind::kSpell, "k" + std::to_string(e), 0, "h", v, "d"});
  }
  const VectorIndex ix = VectorIndex::build(rows, 8);
  const std::vector<float> q = unit({0.9f, 0.3f, 0.2f, 0.1f, 0.8f, 0.35f, 0.15f, 0.05f});
  std::vector<std::pair<float, uint32_t>> brute;
  for (uint32_t i = 0; i < ix.size(); ++i) {
    const auto& v = rows[static_cast<size_t>(std::stoi(ix.entity(i).key.substr(1)))].vector;
    brute.push_back({dot(q.data(), v.data(), v.size()), i});
  }
  std::sort(brute.begin(), brute.end(), [](const auto& a, const auto& b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  });
  const auto hits = ix.top_k(q.data(), nullptr, 10);
  ASSERT_EQ(hits.size(), 10u);
  for (size_t r = 0; r < hits.size(); ++r) {
    EXPECT_EQ(hits[r].entity, brute[r].second) << r;
    EXPECT_EQ(hits[r].score, brute[r].first) << r;
  }
}

TEST(VectorIndex, FiltersBeforeScoringAndCutsAtK) {
  const VectorIndex ix = VectorIndex::build(rows(), 4);
  std::vector<uint8_t> allowed(ix.size(), 0);
  allowed[*ix.find(Kind::kCreature, "c")] = 1;
  const std::vector<float> q = unit({1, 0, 0, 0});
  const auto hits = ix.top_k(q.data(), &allowed, 10);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(ix.entity(hits[0].entity).key, "c");
  EXPECT_EQ(ix.top_k(q.data(), nullptr, 1).size(), 1u);
}

TEST(VectorIndex, EntityVectorIsTheNormalisedMeanOfItsPassages) {
  const VectorIndex ix = VectorIndex::build(rows(), 4);
  const auto v = ix.entity_vector(*ix.find(Kind::kSpell, "b"));
  double n = 0;
  for (float x : v) n += static_cast<double>(x) * x;
  EXPECT_NEAR(n, 1.0, 1e-6);
  EXPECT_GT(v[0], 0.4f);
  EXPECT_GT(v[1], 0.4f);
}

TEST(VectorIndex, DotMatchesAPlainLoopForOddLengths) {
  std::vector<float> a(37), b(37);
  double expect = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<float>(i) * 0.5f - 3;
    b[i] = 1.0f / static_cast<float>(i + 1);
    expect += static_cast<double>(a[i]) * b[i];
  }
  EXPECT_NEAR(dot(a.data(), b.data(), a.size()), expect, 1e-4);
}

TEST(StoreVectors, WriteReadReplaceAndPrune) {
  const std::string path = testing::temp_dir() + "/v.db";
  auto opened = store::Store::open(path, store::Store::Mode::kReadWrite);
  ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
  store::Store& st = **opened;
  auto a = spell("a", "Alpha", "first");
  auto b = spell("b", "Beta", "second");
  ASSERT_TRUE(st.upsert({a.document}, {a, b}).is_ok());
  ASSERT_TRUE(st.write_vectors("m",
                               {{Kind::kSpell, "a", 0, "h1", {1, 2}, ""},
                                {Kind::kSpell, "a", 1, "h2", {3, 4}, ""},
                                {Kind::kSpell, "b", 0, "h3", {5, 6}, ""}},
                               {})
                  .is_ok());
  auto got = st.vectors("m", true);
  ASSERT_TRUE(got.is_ok());
  ASSERT_EQ(got->size(), 3u);
  EXPECT_EQ((*got)[1].passage, 1);
  EXPECT_EQ((*got)[1].vector, (std::vector<float>{3, 4}));
  EXPECT_EQ((*got)[0].document_key, "doc");
  // As one array: the same rows in the same order; a vector of another size (a damaged row, another model's
  // width) is left out, never read past, and a width of 0 or less reads nothing.
  auto matrix = st.vector_matrix("m", 2);
  ASSERT_TRUE(matrix.is_ok());
  ASSERT_EQ(matrix->rows.size(), 3u);
  EXPECT_EQ(matrix->data, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(matrix->rows[1].key, "a");
  EXPECT_EQ(matrix->rows[1].passage, 1);
  EXPECT_EQ(matrix->rows[2].document_key, "doc");
  ASSERT_TRUE(st.write_vectors("m", {{Kind::kSpell, "b", 0, "h3", {5, 6, 7}, ""}}, {}).is_ok());
  matrix = st.vector_matrix("m", 2);
  ASSERT_TRUE(matrix.is_ok());
  EXPECT_EQ(matrix->rows.size(), 2u);
  EXPECT_EQ(matrix->data, (std::vector<float>{1, 2, 3, 4}));
  EXPECT_TRUE(st.vector_matrix("m", 0)->rows.empty());
  EXPECT_TRUE(st.vector_matrix("m", -1)->rows.empty());
  // Rewriting an entity replaces all its passages.
  ASSERT_TRUE(st.write_vectors("m", {{Kind::kSpell, "a", 0, "h9", {7, 8}, ""}}, {}).is_ok());
  got = st.vectors("m", false);
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ((*got)[0].text_hash, "h9");
  EXPECT_TRUE((*got)[0].vector.empty());
  // Vectors of another model are not read, and are pruned; so are those of removed entities.
  ASSERT_TRUE(st.write_vectors("other", {{Kind::kSpell, "b", 0, "h", {1, 1}, ""}}, {}).is_ok());
  EXPECT_EQ(st.vectors("m", false)->size(), 1u) << "b's vectors were replaced by the other model's";
  auto batch = st.begin_batch();
  ASSERT_TRUE(batch.is_ok());
  ASSERT_TRUE((*batch)->remove({"test", Kind::kSpell, ""}).is_ok());
  ASSERT_TRUE((*batch)->write({a.document}, {a}).is_ok());
  ASSERT_TRUE((*batch)->commit().is_ok());
  auto pruned = st.prune_vectors("m");
  ASSERT_TRUE(pruned.is_ok());
  EXPECT_EQ(*pruned, 1) << "b (gone, other model)";
  EXPECT_EQ(st.vectors("m", false)->size(), 1u) << "a's vector survives a rewrite of the entity (same kind and key)";
}

TEST(StoreVectors, ScanVisitsEveryEntityWithItsText) {
  auto opened = store::Store::open(testing::fixture_store(), store::Store::Mode::kExistingOnly);
  ASSERT_TRUE(opened.is_ok());
  auto stats = (*opened)->stats();
  int seen = 0, with_text = 0;
  ASSERT_TRUE((*opened)
                  ->scan([&](const model::Entity& e) {
                    ++seen;
                    with_text += e.text.empty() ? 0 : 1;
                    return true;
                  })
                  .is_ok());
  EXPECT_EQ(seen, stats->total);
  EXPECT_GT(with_text, seen / 2);
  int stopped = 0;
  ASSERT_TRUE((*opened)->scan([&](const model::Entity&) { return ++stopped < 3; }).is_ok());
  EXPECT_EQ(stopped, 3);
}

}  // namespace
}  // namespace lorekeeper::search

TEST(MeaningfulWords, DropFunctionWordsRequestWordsAndShortWords) {
  using lorekeeper::search::meaningful_words;
  EXPECT_EQ(meaningful_words("monster whose gaze paralyzes, then clamps on with its bite to drain blood"),
            (std::vector<std::string>{"gaze", "paralyzes", "clamps", "bite", "drain", "blood"}));
  EXPECT_EQ(meaningful_words("Find me SPELLS that would stop a creature"), (std::vector<std::string>{"stop"}));
  EXPECT_EQ(meaningful_words("Dragón OWLBEAR"), (std::vector<std::string>{"dragon", "owlbear"}));
  EXPECT_TRUE(meaningful_words("the and of a to it").empty());
  EXPECT_TRUE(meaningful_words("").empty());
}
