// Rank fusion: weights by evidence, and the confident full-text winner.
#include "lorekeeper/search/fusion.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace lorekeeper::search {
namespace {

EntityId id(const std::string& key) { return {1, key}; }

// Entity keys ordered by fused score, best first (ties by key).
std::vector<std::string> order(const FusionInput& in) {
  std::vector<std::pair<double, std::string>> v;
  for (const auto& [i, s] : fuse(in)) v.push_back({-s, i.second});
  std::sort(v.begin(), v.end());
  std::vector<std::string> out;
  for (const auto& [s, k] : v) out.push_back(k);
  return out;
}

// A long description whose words single out "horde-demon" in the text, while the meaning ranking, misled by one
// vivid word, lists ten bats and never the demon.
FusionInput paraphrase_case(double confidence) {
  FusionInput in;
  in.lexical = {{id("horde-demon"), Evidence::kText}, {id("medusa"), Evidence::kText}};
  for (int i = 0; i < 10; ++i) in.semantic.push_back(id("bat-" + std::to_string(i)));
  in.text_winner = {id("horde-demon")};
  in.text_confidence = confidence;
  return in;
}

TEST(Fusion, TextLeadConfidenceRisesWithTheLead) {
  EXPECT_EQ(text_lead_confidence(10, 10), 0.0);
  EXPECT_NEAR(text_lead_confidence(11.5, 10), 0.5, 1e-9);
  EXPECT_EQ(text_lead_confidence(13, 10), 1.0);
  EXPECT_EQ(text_lead_confidence(32.4, 17.9), 1.0);
  EXPECT_EQ(text_lead_confidence(5, 0), 1.0);  // no hit of another name at all
  EXPECT_EQ(text_lead_confidence(0, 0), 0.0);  // no text hit
  EXPECT_EQ(text_lead_confidence(9, 10), 0.0);
}

TEST(Fusion, AConfidentTextWinnerIsNotBuriedByTheMeaningRanking) {
  // Without the lead's evidence, a text-only match at rank 1 (0.5/11) is below the tenth meaning hit (1.5/20).
  const auto tied = order(paraphrase_case(0.0));
  EXPECT_GT(std::find(tied.begin(), tied.end(), "horde-demon") - tied.begin(), 9);
  // A full lead weighs as much as first place in the meaning ranking (rank() then breaks the tie by the lexical
  // score, which the meaning hits lack).
  const auto led = fuse(paraphrase_case(1.0));
  EXPECT_DOUBLE_EQ(led.at(id("horde-demon")), led.at(id("bat-0")));
  EXPECT_GT(led.at(id("horde-demon")), led.at(id("bat-1")));
  // Half the lead, half the bonus: above the weaker meaning hits, below the first.
  const auto half = order(paraphrase_case(0.5));
  const auto at = std::find(half.begin(), half.end(), "horde-demon") - half.begin();
  EXPECT_GT(at, 0);
  EXPECT_LT(at, 10);
}

TEST(Fusion, TheBonusGoesToTheWinnerOnlyAndNotToNameMatches) {
  FusionInput in = paraphrase_case(1.0);
  const auto scores = fuse(in);
  EXPECT_GT(scores.at(id("horde-demon")), scores.at(id("medusa")) + 0.2);
  // A winner matched by its name already weighs a first place; the text lead adds nothing to it.
  FusionInput named;
  named.lexical = {{id("owlbear"), Evidence::kName}};
  named.text_winner = {id("owlbear")};
  named.text_confidence = 1.0;
  FusionInput unconfident = named;
  unconfident.text_confidence = 0.0;
  EXPECT_EQ(fuse(named).at(id("owlbear")), fuse(unconfident).at(id("owlbear")));
}

TEST(Fusion, AgreementWinsAndScoresStayInRange) {
  FusionInput in;
  in.lexical = {{id("a"), Evidence::kName}, {id("b"), Evidence::kText}};
  in.semantic = {id("c"), id("b")};
  const auto scores = fuse(in);
  EXPECT_GT(scores.at(id("b")), scores.at(id("c")));  // second in both beats first in one
  in.lexical = {{id("a"), Evidence::kHint}};
  in.semantic = {id("a")};
  in.text_winner = {id("a")};
  in.text_confidence = 1.0;
  for (const auto& [i, s] : fuse(in)) {
    EXPECT_GT(s, 0.0);
    EXPECT_LE(s, 0.999);
  }
}

TEST(Fusion, HintEvidenceCountsAsMuchAsMeaningAndMoreThanText) {
  FusionInput in;
  in.lexical = {{id("hinted"), Evidence::kHint}, {id("texted"), Evidence::kText}};
  in.semantic = {id("meant")};
  const auto s = fuse(in);
  EXPECT_DOUBLE_EQ(s.at(id("hinted")), s.at(id("meant")));
  EXPECT_GT(s.at(id("hinted")), s.at(id("texted")));
}

// Some words of a long description, fewer than a text hit needs, are weaker evidence than a text hit, but evidence.
TEST(Fusion, APartialMatchCountsLessThanATextMatch) {
  FusionInput in;
  in.lexical = {{id("partial"), Evidence::kPartial}};
  FusionInput text = in;
  text.lexical = {{id("texted"), Evidence::kText}};
  const double partial = fuse(in).at(id("partial"));
  EXPECT_GT(partial, 0.0);
  EXPECT_LT(partial, fuse(text).at(id("texted")));
  EXPECT_DOUBLE_EQ(partial / fuse(text).at(id("texted")), kPartialMatchWeight / kTextMatchWeight);
}

TEST(Fusion, RankingsDisagreeWhenEachOnesFirstIsOutsideTheOthersFirstTen) {
  std::vector<EntityId> words = {id("a")}, meaning = {id("b")};
  for (int i = 0; i < 9; ++i) {
    words.push_back(id("w" + std::to_string(i)));
    meaning.push_back(id("m" + std::to_string(i)));
  }
  EXPECT_TRUE(rankings_disagree(words, meaning));
  EXPECT_FALSE(rankings_disagree(words, {}));
  std::vector<EntityId> b_tenth = words;
  b_tenth.back() = id("b");  // the meaning's first is tenth by words
  EXPECT_FALSE(rankings_disagree(b_tenth, meaning));
  std::vector<EntityId> b_eleventh = words;
  b_eleventh.push_back(id("b"));  // eleventh: outside the first ten
  EXPECT_TRUE(rankings_disagree(b_eleventh, meaning));
  std::vector<EntityId> a_in_meaning = meaning;
  a_in_meaning[5] = id("a");
  EXPECT_FALSE(rankings_disagree(words, a_in_meaning));
  EXPECT_FALSE(rankings_disagree(words, words));
}

// A hint holding one word of a long description is a text match; one holding the words a hit needs, a hint match.
TEST(Fusion, AHintCountsByTheShareOfTheQueryItHolds) {
  auto score_at_first = [](Evidence evidence, double share) {
    FusionInput in;
    in.lexical = {{id("x"), evidence, share}};
    in.semantic = {id("other")};
    return fuse(in).at(id("x"));
  };
  const double text = score_at_first(Evidence::kText, 1);
  EXPECT_DOUBLE_EQ(score_at_first(Evidence::kHint, 0), text);
  EXPECT_GT(score_at_first(Evidence::kHint, 0.1), text);
  EXPECT_LT(score_at_first(Evidence::kHint, 0.1), score_at_first(Evidence::kHint, 0.5));
  EXPECT_LT(score_at_first(Evidence::kHint, 0.5), score_at_first(Evidence::kHint, 1));
  EXPECT_DOUBLE_EQ(score_at_first(Evidence::kHint, 1), score_at_first(Evidence::kHint, 7));  // capped
  // A hint holding one word of ten, first by its words, no longer outweighs a text match that meaning also found
  // (8th); as a full hint match it would.
  FusionInput in;
  in.lexical = {{id("one-word-hint"), Evidence::kHint, 0.1}, {id("described"), Evidence::kText}};
  for (int i = 0; i < 7; ++i) in.semantic.push_back(id("meant-" + std::to_string(i)));
  in.semantic.push_back(id("described"));
  const auto fused = fuse(in);
  EXPECT_GT(fused.at(id("described")), fused.at(id("one-word-hint")));
  in.lexical[0].hint_share = 1;
  const auto full = fuse(in);
  EXPECT_LT(full.at(id("described")), full.at(id("one-word-hint")));
}

// A facet the query names lifts the entries that have it over those that only resemble the query; with a
// confident text winner it yields to the winner.
TEST(Fusion, FacetRankingLiftsEntriesWithTheFacet) {
  FusionInput in;
  for (int i = 0; i < 6; ++i) in.semantic.push_back(id("walker-" + std::to_string(i)));
  in.semantic.push_back(id("flyer"));
  EXPECT_EQ(order(in).front(), "walker-0");
  in.facets = {{id("flyer"), id("other-flyer")}};
  EXPECT_EQ(order(in).front(), "flyer");
  const auto fused = fuse(in);
  EXPECT_GT(fused.at(id("other-flyer")), 0.0);  // a facet's entry near in meaning is a candidate too
  EXPECT_LT(fused.at(id("other-flyer")), fused.at(id("flyer")));
  // Empty facet rankings take no weight from the scale.
  FusionInput none = in;
  none.facets = {{}};
  none.semantic = {id("a")};
  EXPECT_NEAR(fuse(none).at(id("a")), fuse(FusionInput{{}, {id("a")}, {}, 0, true, {}}).at(id("a")), 1e-12);
  // A confident text winner takes the facets' weight away: the order is what it was without them.
  FusionInput confident = paraphrase_case(1.0);
  confident.facets = {{id("bat-3"), id("bat-4")}};
  EXPECT_EQ(order(confident), order(paraphrase_case(1.0)));
  FusionInput unsure = paraphrase_case(0.0);
  unsure.facets = {{id("bat-3"), id("bat-4")}};
  EXPECT_EQ(order(unsure).front(), "bat-3");
}

// Several facets fuse as one ranking: what has more of them comes first, whatever its place in each; then the
// places decide. One facet is its own ranking.
TEST(Fusion, EntriesWithMoreOfTheNamedFacetsRankFirst) {
  const std::vector<EntityId> teleports = {id("dimension-door"), id("teleport"), id("misty-step")};
  const std::vector<EntityId> bonus_action = {id("healing-word"), id("shillelagh"), id("misty-step")};
  const auto ranked = facet_ranking({teleports, bonus_action});
  ASSERT_EQ(ranked.size(), 5u);
  EXPECT_EQ(ranked.front(), id("misty-step"));
  // Among those with one facet, the better place first; equal places keep the order of the rankings' entries.
  EXPECT_EQ(ranked[1], id("dimension-door"));
  EXPECT_EQ(ranked[2], id("healing-word"));
  EXPECT_EQ(facet_ranking({teleports}), teleports);
  EXPECT_TRUE(facet_ranking({}).empty());
  FusionInput in;
  in.semantic = {id("dimension-door"), id("teleport"), id("misty-step")};
  in.facets = {teleports, bonus_action};
  const auto fused = order(in);
  // The one with both facets passes one nearer in meaning that has only one of them.
  EXPECT_LT(std::find(fused.begin(), fused.end(), "misty-step"), std::find(fused.begin(), fused.end(), "teleport"));
}

}  // namespace
}  // namespace lorekeeper::search
