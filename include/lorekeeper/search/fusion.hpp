// How the lexical and semantic rankings of one query become one: weighted reciprocal rank fusion, plus the
// evidence of a confident full-text winner. Pure functions over ranked ids; rank() (ranker.hpp) supplies them.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace lorekeeper::search {

using EntityId = std::pair<int, std::string>;  // (kind, key)

// What a lexical candidate matched on: its name (or a close spelling of it), words of its search hint, or words
// of its text alone, or fewer of the query's words than a text hit needs (a partial match: some words of a long
// description). A name is the strongest evidence; text alone weak ("reaction ... hit" is in a hundred spells), a
// partial match weaker still; a hint, written to say what the entity is, counts as much as meaning.
enum class Evidence { kName, kHint, kText, kPartial };

struct LexicalCandidate {
  EntityId id;
  Evidence evidence;
  // For a hint match: the share of the words a text hit needs that the hint itself holds, 0..1. The hint's
  // weight rises from a text match's (one word of a long description, "casts", in "... NPC who casts spells") to
  // its own at a hint that alone holds them ("drains life" for "risen dead that drain life force").
  double hint_share = 1;
};

struct FusionInput {
  std::vector<LexicalCandidate> lexical;  // best first (empty for a semantic-only ranking)
  std::vector<EntityId> semantic;         // best first, every one above the meaning floor
  // The full-text ranking's winner (every edition of its name among the leading hits) and the confidence in it,
  // 0..1 (text_lead_confidence). Applies to candidates matched on their text or hint, not their name.
  std::set<EntityId> text_winner;
  double text_confidence = 0;
  // Whether the lexical ranking took part (hybrid): its weight is in the scale even when it found nothing.
  bool hybrid = true;
  // One ranking per facet the query names (understand.hpp): the entries with it, nearest in meaning first. They
  // are fused as one ranking (facet_ranking) of weight kFacetWeight.
  std::vector<std::vector<EntityId>> facets;
};

// Whether two rankings disagree outright: each one's first entry is outside the other's first `depth` (an empty
// ranking disagrees with nothing). Then an answer says which of them its first result follows.
bool rankings_disagree(const std::vector<EntityId>& a, const std::vector<EntityId>& b, size_t depth = 10);

// A result at rank r (from 1) of a ranking contributes weight / (kRrfK + r).
inline constexpr double kRrfK = 10.0;
inline constexpr double kNameMatchWeight = 1.0;
inline constexpr double kTextMatchWeight = 0.5;
// Chosen on the description tuning set over 0.25 and 0.5 (docs/SEARCH.md).
inline constexpr double kPartialMatchWeight = 0.25;
inline constexpr double kHintMatchWeight = 1.5;
inline constexpr double kSemanticWeight = 1.5;
// A confident text winner gains up to one first place's worth of weight: rank fusion alone ignores how far ahead
// a winner is, and a long paraphrase of an entry's own text (a third-party stat block, say) singles it out by its
// words while its meaning is a weak signal.
inline constexpr double kConfidentTextWeight = 1.0;
// The facets a query names ("that flies", "fire damage") re-rank as one more ranking, shared among them: an entry
// with the facet and near the query in meaning rises, one without keeps its place among the others. A confident
// full-text winner (a long paraphrase of one entry's own text) takes the facets' weight away in proportion: the
// facets of a specific description ("tiny drunken fey ...") describe many entries besides the one meant. Chosen
// on the tuning sets (docs/SEARCH.md "Facets read from the query").
inline constexpr double kFacetWeight = 2.0;
// The BM25 lead over the best hit of another name at which the text winner counts fully (30%).
inline constexpr double kConfidentTextMargin = 0.3;

// Confidence in a full-text winner scored `best` (BM25, higher is better) when the best hit of any other name
// scores `next_other` (0: there is none): 0 for a tie, rising linearly to 1 at a lead of kConfidentTextMargin.
double text_lead_confidence(double best, double next_other);

// Fused scores by entity, in 0..1: first place in both rankings, by the strongest kind of lexical match, is 1
// (capped at 0.999 below an exact name's 1). A semantic-only ranking is scaled by its own first place.
std::map<EntityId, double> fuse(const FusionInput& in);

// The entries of the facet rankings as one ranking: those with more of the facets the query names first ("a
// spell that teleports, cast as a bonus action" puts the spells that do both before those that do one), then by
// their places in the rankings they are in (reciprocal ranks summed). One facet: its own ranking.
std::vector<EntityId> facet_ranking(const std::vector<std::vector<EntityId>>& facets);

}  // namespace lorekeeper::search
