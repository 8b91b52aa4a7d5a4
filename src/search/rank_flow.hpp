// search::rank (include/lorekeeper/search/ranker.hpp states its contract) as a flow of named steps over one query's
// state: the exact name, the lexical candidates (names, text, partial matches, close spellings), the meaning ranking,
// the facets the query names, fusion, the size the query names, and placing the hits. Private to lk_search.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "lorekeeper/search/fusion.hpp"
#include "lorekeeper/search/ranker.hpp"
#include "lorekeeper/search/understand.hpp"
#include "lorekeeper/search/vector_index.hpp"
#include "lorekeeper/store/store.hpp"

namespace lorekeeper::search {

// Whether `q` filters by nothing but kinds and documents (what the in-memory name list and vector index can check).
bool only_kind_and_document_filters(const store::Query& q);

class RankFlow {
 public:
  RankFlow(store::Store& st, store::Query q, const std::string& search, int limit, const RankOptions& options);
  RankFlow(const RankFlow&) = delete;
  RankFlow& operator=(const RankFlow&) = delete;

  // Runs the steps once.
  Result<Ranked> run();

 private:
  // A lexical candidate: its score in 0..1 (names 0.5-0.99, close spellings 0.6-0.85, text hits 0.1-0.6, partial
  // matches 0.02-0.08) and what it matched on.
  struct Lexical {
    double score = 0;
    std::set<std::string> how;  // "name", "close name", "text", "hint"
    int words = 0;              // how many of the query's meaningful words its text and hint hold
    double hint_share = 0;      // the share of the words a text hit needs that its search hint holds, 0..1
    bool partial = false;       // a text or hint hit holding fewer of the words than a hit needs
    // Matched on words of the text or the search hint alone, not the name: weaker evidence, and only kept when
    // near in meaning.
    bool description_only() const { return how.count("name") == 0 && how.count("close name") == 0; }
    bool by_hint() const { return how.count("hint") > 0; }
  };
  struct Candidate {
    double score;
    EntityId id;
    std::vector<std::string> how;
  };

  // The steps, in order.
  Result<Ranked> list_by_filters();  // an empty query: the filters' own order
  Status find_exact_name();          // every edition of a name the query is; with kOnlyIt they are the answer
  Status say_variants();             // the entries named as variants of that name
  Status check_excluded_name();      // the query names an entry the filters exclude
  Status match_names();              // names holding every word of the query
  Status match_text();               // BM25 hits holding half the meaningful words
  void offer_partial_matches();      // when none does: the best hits holding some of them
  Status match_close_names();        // close spellings, for typos
  Status check_gibberish();          // no word of the query anywhere: nothing by meaning either
  Status rank_by_meaning();          // the filter mask, the meaning floor for text hits, the semantic order
  Status rank_facets();              // one ranking per facet the query names
  Status score_lexically();          // without meaning: lexical scores, plus what the facets add
  Status fuse();                     // with meaning: rank fusion of words, meaning and facets
  // A size the query names counts against the fused entries far from it.
  Status weigh_sizes(std::map<EntityId, Candidate>& fused);
  void sort_scored();
  Status place();             // group editions, load and shape the hits
  Status say_disagreement();  // words and meaning that disagree outright are said

  void offer(model::Kind kind, const std::string& key, double score, const char* how);
  // Offers a text hit as a "text" and/or "hint" candidate and counts its words; the candidate, or null for an exact
  // name (never a candidate).
  Lexical* offer_text_hit(const store::Store::TextHit& h, double score);
  Result<const model::Entity*> load(const EntityId& id);

  store::Store& st_;
  store::Query q_;
  const int limit_;
  const RankOptions& options_;
  const QueryEmbeddings none_;
  const QueryEmbeddings& embeddings_;
  const std::string s_;                    // the query, trimmed
  const bool lexical_;                     // the lexical ranking takes part
  std::shared_ptr<const VectorIndex> ix_;  // the meaning index, while meaning takes part
  bool is_name_ = false;                   // the query is some entity's name or key

  Ranked out_;
  std::vector<model::Entity> editions_;  // of the exact name, in edition order
  std::vector<Hit> exact_results_;
  std::set<EntityId> exact_ids_;
  std::string qf_;                  // the query, folded
  std::vector<std::string> words_;  // its folded words
  std::vector<std::string> meaningful_;
  std::vector<std::string> terms_;  // the meaningful words the text is searched for
  bool excluded_name_ = false;
  int contains_total_ = 0;
  bool names_matched_ = false;
  std::map<EntityId, Lexical> merged_;
  // Entries taken for the one meant and placed first, whatever the other rankings say: a misspelt name, or a name
  // the query gives but for a plural's final "s".
  std::set<EntityId> corrected_;
  std::vector<store::Store::TextHit> text_hits_;
  int needed_ = 0;               // the words a text hit must hold
  std::set<EntityId> specific_;  // the few entries holding every word
  bool typo_ = false;
  bool gibberish_ = false;
  std::vector<uint8_t> mask_;  // the entries the filters allow, over ix_
  std::vector<EntityId> semantic_order_;
  std::vector<QueryFacet> facets_;
  std::vector<std::vector<EntityId>> facet_rankings_;
  std::set<EntityId> with_facet_;
  std::vector<EntityId> lexical_order_;  // the lexical candidates, best first (with meaning)
  std::vector<Candidate> scored_;
  std::map<EntityId, model::Entity> loaded_;
};

}  // namespace lorekeeper::search
