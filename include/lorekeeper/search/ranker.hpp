// The ranking pipeline of every search: a query (words plus structured filters) in, ranked entities with the
// reasons they matched out. Exact names first, then names containing the words, close spellings, full-text
// BM25 and meaning (sentence embeddings), fused by evidence (docs/SEARCH.md describes each step in the order
// rank() runs them). The tools turn the hits into answers; nothing here knows about JSON or MCP.
#pragma once

#include <future>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lorekeeper/core/status.hpp"
#include "lorekeeper/model/entity.hpp"
#include "lorekeeper/search/semantic.hpp"
#include "lorekeeper/search/understand.hpp"
#include "lorekeeper/search/vector_index.hpp"
#include "lorekeeper/store/store.hpp"

namespace lorekeeper::search {

// Which rankings take part: names and text (lexical), meaning (semantic), or both fused (hybrid, the default;
// lexical-only while no embedding index is ready). The single modes exist for evaluation and comparison.
enum class Ranking { kHybrid, kLexical, kSemantic };

// How the query text is matched: by names and text (the current tools), or by names only (the older tools'
// `name` parameter).
enum class Match { kNamesAndText, kNamesOnly };

// What an exact name answers: that entry alone (every edition), or the entry first and then the other matches
// (search_all, a search of everything by words).
enum class OnExactName { kOnlyIt, kItFirst };

// Query embeddings for one call: each text is embedded once, and can be started early on another thread so the
// lexical matching overlaps the encoder. Not thread-safe; one per call.
class QueryEmbeddings {
 public:
  explicit QueryEmbeddings(const Semantic* semantic = nullptr) : semantic_(semantic) {}
  const Semantic* semantic() const { return semantic_; }

  // Starts embedding `text` on another thread.
  void prefetch(const std::string& text) const;
  // Whether the embedding of `text` can be had without waiting (true when none was started: embed() then
  // encodes on the calling thread).
  bool ready(const std::string& text) const;
  // The embedding (empty when the model could not embed it); waits for a prefetch.
  const std::vector<float>& embed(const std::string& text) const;

 private:
  const Semantic* semantic_;
  mutable std::map<std::string, std::vector<float>> embedded_;
  mutable std::map<std::string, std::future<std::vector<float>>> pending_;
};

struct RankOptions {
  Match match = Match::kNamesAndText;
  OnExactName on_exact = OnExactName::kOnlyIt;
  Ranking ranking = Ranking::kHybrid;
  // The meaning-based service and this call's query embeddings (null: lexical only).
  const QueryEmbeddings* embeddings = nullptr;
  // The edition listed first among the editions of one name (model::edition_before).
  std::string preferred_edition{model::kDefaultPreferredEdition};
  // The editions of one name (same kind) take one place among the ranked hits (search::group_editions): the
  // preferred edition is shown with the best-ranked edition's score and reasons, the others are named in
  // Hit::other_editions, and `limit` counts places. Exact-name answers (OnExactName::kOnlyIt) are never grouped.
  bool group_editions = false;
};

struct Hit {
  model::Entity entity;
  std::optional<double> score;       // 0..1; none for a list by filters alone
  std::vector<std::string> matched;  // "exact name", "name", "close name", "text", "hint", "meaning", "facet"
  std::string snippet;               // the text (or search hint) around the query's words, for text and meaning
  struct Edition {
    std::string key;
    std::string document_key;
  };
  std::vector<Edition> other_editions;  // grouped answers (RankOptions::group_editions): the place's other editions
};

struct Ranked {
  std::vector<Hit> hits;  // at most `limit`, best first
  int total = 0;          // every candidate that met the floors (exact names counted by edition)
  std::string how;        // "exact name", "name contains", "close name", "text", "meaning", "filters"
  int exact_total = 0;    // entities with exactly the searched name (every edition; hits may show fewer)
  bool semantic = false;  // the meaning-based ranking took part (or was ready, for a query of no known word)
  std::string note;       // something the answer should say about the match
  // The facets the query's words named that re-ranked the answer (hybrid ranking only; understand.hpp).
  std::vector<QueryFacet> understood;
  // When nothing met the floors: the few entries nearest in meaning that came close (cosine >= 0.2), best first,
  // for the answer to name as near misses, never as results. Empty for gibberish and without meaning.
  struct NearMiss {
    model::Entity entity;
    double similarity = 0;
  };
  std::vector<NearMiss> near_misses;
};

// The words of a query that carry meaning for text matching (a text hit must hold at least half of them): its
// folded words of three letters or more that are neither English function words ("whose", "then", "would") nor
// words of requests and of the content's categories ("find", "spells", "creature").
std::vector<std::string> meaningful_words(std::string_view query);

// Ranks the entities `filters` allow against `text` (empty: the filters' own order, `limit` of them). Every hit
// satisfies every filter.
Result<Ranked> rank(store::Store& st, store::Query filters, const std::string& text, int limit,
                    const RankOptions& options);

// Every entity named `name` (after text::fold, or with that key) that `filters` allow, in edition order
// (model::edition_before with the preferred edition): nothing is cut before the order is applied.
Result<std::vector<model::Entity>> editions_named(store::Store& st, store::Query filters, const std::string& name,
                                                  std::string_view preferred);

// One byte per index entity: may it be returned under `q`'s filters?
Result<std::vector<uint8_t>> allowed_mask(store::Store& st, const VectorIndex& ix, const store::Query& q);

}  // namespace lorekeeper::search
