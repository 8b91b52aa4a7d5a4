// The full-text index held in memory: FTS5's postings for `entities_fts` (every term with the entities that
// contain it and how often, in the name, the text and the search hint) and each entity's token count, ranked exactly as
// FTS5's bm25() ranks them (same formula, same inverse document frequencies and average length, the same floating-point
// operations in the same order), so a search returns the hits and scores an FTS5 query returns, without the
// virtual-table machinery that costs about a millisecond per query over a full corpus.
//
// An index is immutable once loaded. It is identified by the store's content stamp (renewed by every write to the
// entities, see migrations.cpp), and shared by every Store of the process that reads the same content.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lorekeeper/core/status.hpp"
#include "lorekeeper/model/entity.hpp"

namespace lorekeeper::store {

class TextIndex {
 public:
  struct Row {
    int64_t id = 0;  // entities.id, the FTS5 rowid
    model::Kind kind = model::Kind::kSpell;
    uint32_t document = 0;  // index into document_keys()
    uint32_t tokens = 0;    // tokens in the name, the text and the hint (bm25's document length)
    std::string key;
  };
  struct Hit {
    uint32_t row = 0;
    double rank = 0;  // -bm25(), higher is better
    int matched_terms = 0;
    bool in_body = false;  // some term is in the name or text column
    int hint_terms = 0;    // how many of the terms are in the hint column
  };
  // bm25's column weights. A term's frequency in a row is the weighted sum of its occurrences, which FTS5 adds
  // one occurrence at a time: weights that are small multiples of a power of two (the store's 10, 1 and 2) make every
  // such sum exact, so computing it as a product here gives the same double.
  struct Weights {
    double name = 1;
    double text = 1;
    double hint = 1;
  };

  // Reads the postings and sizes through `db` (which must have the store's schema). The caller holds a read
  // transaction, so that `stamp` and what is read describe the same content.
  static Result<std::shared_ptr<const TextIndex>> load(sqlite3* db, std::string stamp);

  // The process's index for `stamp`: the one already loaded by any Store, else `make()`'s (loaded once however
  // many Stores ask at the same time). While another thread is loading it, a caller that does not `wait` gets
  // nullptr at once (it searches with FTS5 meanwhile, which ranks the same). The newest index stays alive while
  // no Store holds it, so a Store opened later finds it.
  static Result<std::shared_ptr<const TextIndex>> shared(
      const std::string& stamp, const std::function<Result<std::shared_ptr<const TextIndex>>()>& make, bool wait);

  // Ranks the entities containing any of `terms` (FTS5 tokens, one phrase each, in the query's order) as
  // -bm25(entities_fts, name, text, hint weights) does, among those of `kinds` (all when empty), of
  // `documents` (any when null) and, when `rows` is given, whose row it marks (see rows_with_ids); best first,
  // ties by id, at most `limit`.
  std::vector<Hit> search(const std::vector<std::string>& terms, const Weights& weights,
                          const std::vector<model::Kind>& kinds, const std::vector<std::string>* documents, int limit,
                          const std::vector<uint8_t>* rows = nullptr) const;
  // One mark per row: 1 when its entity id is in `ids` (sorted ascending), else 0.
  std::vector<uint8_t> rows_with_ids(const std::vector<int64_t>& ids) const;
  // Whether any entity contains any of `terms`.
  bool contains_any(const std::vector<std::string>& terms) const;

  const Row& row(uint32_t i) const { return rows_[i]; }
  const std::string& stamp() const { return stamp_; }

 private:
  struct Posting {
    uint32_t row;
    uint32_t in_name;  // occurrences in the name column
    uint32_t in_text;  // occurrences in the text column
    uint32_t in_hint;  // occurrences in the hint column
  };
  // The postings of a term: postings_[first, end); `rows` also counts FTS5 rows without an entity, as bm25's
  // IDF does.
  struct Span {
    uint32_t first = 0;
    uint32_t end = 0;
    uint32_t rows = 0;
  };
  const Span* find(const std::string& term) const;

  std::string stamp_;
  std::vector<Row> rows_;  // by id
  std::vector<std::string> document_keys_;
  std::unordered_map<std::string, Span> terms_;
  std::vector<Posting> postings_;  // by term, then row
  int64_t fts_rows_ = 0;           // FTS5's row count (bm25's N)
  int64_t fts_tokens_ = 0;         // FTS5's token total over every row and column
};

// FTS5's own tokenizer for the full-text table (porter over unicode61 with diacritics removed), used to turn
// query words into the terms the index holds. Bound to the connection it was made from; delete it first.
class QueryTokenizer {
 public:
  static Result<std::unique_ptr<QueryTokenizer>> create(sqlite3* db);
  ~QueryTokenizer();
  QueryTokenizer(const QueryTokenizer&) = delete;
  QueryTokenizer& operator=(const QueryTokenizer&) = delete;

  // The tokens of `text` as an FTS5 query sees them.
  Result<std::vector<std::string>> tokens(std::string_view text) const;

 private:
  QueryTokenizer() = default;
  fts5_tokenizer api_{};
  Fts5Tokenizer* tokenizer_ = nullptr;
};

}  // namespace lorekeeper::store
