#include "text_index.hpp"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>

#include "sqlite_handle.hpp"

namespace lorekeeper::store {

using sqlite::Stmt;

namespace {

// An SQLite varint (big-endian groups of 7 bits, the ninth byte whole), as FTS5 writes sizes; false past `end`.
bool read_varint(const unsigned char*& p, const unsigned char* end, uint64_t* out) {
  uint64_t v = 0;
  for (int i = 0; i < 9; ++i) {
    if (p >= end) return false;
    const unsigned char c = *p++;
    if (i == 8) {
      *out = (v << 8) | c;
      return true;
    }
    v = (v << 7) | (c & 0x7f);
    if ((c & 0x80) == 0) {
      *out = v;
      return true;
    }
  }
  return false;
}

// The columns of entities_fts (name, text, hint), in the order of FTS5's size records.
constexpr int kColumns = 3;

Status malformed(const std::string& what) {
  return Status::corruption("the full-text index is not as expected (" + what + ")");
}

}  // namespace

Result<std::shared_ptr<const TextIndex>> TextIndex::load(sqlite3* db, std::string stamp) {
  auto index = std::make_shared<TextIndex>();
  index->stamp_ = std::move(stamp);
  // The entities, by id, with their documents interned.
  {
    auto st = Stmt::prepare(db, "SELECT id, kind, key, document_key FROM entities ORDER BY id");
    if (!st) return st.status();
    std::map<std::string, uint32_t, std::less<>> documents;
    while (true) {
      auto row = st->step();
      if (!row) return row.status();
      if (!*row) break;
      const auto kind = model::parse_kind(st->text_view(1));
      if (!kind) continue;  // a kind this build does not know is never a hit (SQL's kind filter excludes it too)
      Row r;
      r.id = st->int64(0);
      r.kind = *kind;
      r.key = std::string(st->text_view(2));
      const std::string_view doc = st->text_view(3);
      auto at = documents.find(doc);
      if (at == documents.end()) {
        at = documents.emplace(std::string(doc), static_cast<uint32_t>(index->document_keys_.size())).first;
        index->document_keys_.push_back(at->first);
      }
      r.document = at->second;
      index->rows_.push_back(std::move(r));
    }
  }
  auto row_of = [&](int64_t id) -> std::optional<uint32_t> {
    const auto& rows = index->rows_;
    const auto at = std::lower_bound(rows.begin(), rows.end(), id, [](const Row& r, int64_t v) { return r.id < v; });
    if (at == rows.end() || at->id != id) return std::nullopt;
    return static_cast<uint32_t>(at - rows.begin());
  };
  // bm25's N and token total: FTS5's averages record (rowid 1 of the data table: the row count, then each
  // column's token total, as varints).
  {
    auto st = Stmt::prepare(db, "SELECT block FROM entities_fts_data WHERE id = 1");
    if (!st) return st.status();
    auto row = st->step();
    if (!row) return row.status();
    // A table that never held a row has an empty record: no rows, no tokens (as FTS5 reads it).
    if (*row && !st->blob(0).empty()) {
      const std::string_view block = st->blob(0);
      const auto* p = reinterpret_cast<const unsigned char*>(block.data());
      const auto* end = p + block.size();
      uint64_t n = 0;
      if (!read_varint(p, end, &n)) return malformed("averages record");
      index->fts_rows_ = static_cast<int64_t>(n);
      for (int column = 0; column < kColumns; ++column) {
        if (!read_varint(p, end, &n)) return malformed("averages record");
        index->fts_tokens_ += static_cast<int64_t>(n);
      }
    }
  }
  // Each row's length: its docsize record, a varint per column.
  {
    auto st = Stmt::prepare(db, "SELECT id, sz FROM entities_fts_docsize");
    if (!st) return st.status();
    while (true) {
      auto row = st->step();
      if (!row) return row.status();
      if (!*row) break;
      const auto r = row_of(st->int64(0));
      if (!r) continue;  // a row without its entity is never a hit; it counts only in N and the total above
      const std::string_view sz = st->blob(1);
      const auto* p = reinterpret_cast<const unsigned char*>(sz.data());
      const auto* end = p + sz.size();
      uint64_t tokens = 0;
      for (int column = 0; column < kColumns; ++column) {
        uint64_t n = 0;
        if (!read_varint(p, end, &n)) return malformed("docsize record");
        tokens += n;
      }
      index->rows_[*r].tokens = static_cast<uint32_t>(tokens);
    }
  }
  // The postings, from every token instance (term, row, column), which fts5vocab lists by term and then row.
  LOREKEEPER_RETURN_IF_ERROR(sqlite::exec(
      db, "CREATE VIRTUAL TABLE IF NOT EXISTS temp.lk_fts_instances USING fts5vocab(main, entities_fts, instance)"));
  auto st = Stmt::prepare(db, "SELECT term, doc, col FROM temp.lk_fts_instances");
  if (!st) return st.status();
  std::string term;
  Span* span = nullptr;
  int64_t doc = -1;
  bool known_doc = false;
  while (true) {
    auto row = st->step();
    if (!row) return row.status();
    if (!*row) break;
    const std::string_view t = st->text_view(0);
    const int64_t d = st->int64(1);
    if (span == nullptr || t != term) {
      if (span != nullptr) span->end = static_cast<uint32_t>(index->postings_.size());
      term = std::string(t);
      auto [at, fresh] = index->terms_.emplace(term, Span{});
      if (!fresh) return malformed("terms out of order");
      span = &at->second;
      span->first = static_cast<uint32_t>(index->postings_.size());
      doc = -1;
    }
    if (d != doc) {
      if (d < doc) return malformed("rows out of order");
      doc = d;
      ++span->rows;
      const auto r = row_of(d);
      known_doc = r.has_value();
      if (known_doc) index->postings_.push_back({*r, 0, 0, 0});
    }
    if (!known_doc) continue;
    // The column is "name", "text" or "hint" (the table's three columns).
    const std::string_view column = st->text_view(2);
    if (column == "name") {
      ++index->postings_.back().in_name;
    } else if (column == "hint") {
      ++index->postings_.back().in_hint;
    } else {
      ++index->postings_.back().in_text;
    }
  }
  if (span != nullptr) span->end = static_cast<uint32_t>(index->postings_.size());
  index->postings_.shrink_to_fit();
  return std::shared_ptr<const TextIndex>(std::move(index));
}

Result<std::shared_ptr<const TextIndex>> TextIndex::shared(
    const std::string& stamp, const std::function<Result<std::shared_ptr<const TextIndex>>()>& make, bool wait) {
  static std::mutex mu;
  static std::condition_variable loaded_one;
  static std::set<std::string> loading;
  static std::map<std::string, std::weak_ptr<const TextIndex>> by_stamp;
  static std::shared_ptr<const TextIndex> newest;
  std::unique_lock<std::mutex> lock(mu);
  while (true) {
    if (auto at = by_stamp.find(stamp); at != by_stamp.end()) {
      if (auto index = at->second.lock()) return index;
    }
    if (loading.count(stamp) == 0) break;
    if (!wait) return std::shared_ptr<const TextIndex>();
    loaded_one.wait(lock);
  }
  loading.insert(stamp);
  lock.unlock();
  auto loaded = make();  // seconds at most; other stamps and other callers are not held up meanwhile
  lock.lock();
  loading.erase(stamp);
  loaded_one.notify_all();
  if (!loaded) return loaded.status();
  for (auto it = by_stamp.begin(); it != by_stamp.end();) {
    it = it->second.expired() ? by_stamp.erase(it) : std::next(it);
  }
  by_stamp[stamp] = *loaded;
  newest = *loaded;
  return *loaded;
}

const TextIndex::Span* TextIndex::find(const std::string& term) const {
  const auto at = terms_.find(term);
  return at == terms_.end() ? nullptr : &at->second;
}

bool TextIndex::contains_any(const std::vector<std::string>& terms) const {
  return std::any_of(terms.begin(), terms.end(), [&](const std::string& t) { return find(t) != nullptr; });
}

std::vector<TextIndex::Hit> TextIndex::search(const std::vector<std::string>& terms, const Weights& weights,
                                              const std::vector<model::Kind>& kinds,
                                              const std::vector<std::string>* documents, int limit,
                                              const std::vector<uint8_t>* rows) const {
  std::vector<Hit> out;
  if (limit <= 0 || rows_.empty()) return out;
  // Which rows the filters allow.
  std::vector<uint8_t> allowed_document(document_keys_.size(), documents == nullptr ? 1 : 0);
  if (documents != nullptr) {
    for (size_t i = 0; i < document_keys_.size(); ++i) {
      allowed_document[i] = std::find(documents->begin(), documents->end(), document_keys_[i]) != documents->end();
    }
  }
  auto allowed = [&](uint32_t i) {
    const Row& r = rows_[i];
    return allowed_document[r.document] != 0 &&
           (kinds.empty() || std::find(kinds.begin(), kinds.end(), r.kind) != kinds.end()) &&
           (rows == nullptr || (i < rows->size() && (*rows)[i] != 0));
  };
  // fts5_aux.c's bm25: k1 1.2, b 0.75; IDF log((N - n + 0.5) / (n + 0.5)), at least 1e-6; a phrase's frequency
  // in a row is the weighted count of its instances; the score sums the phrases in query order.
  constexpr double k1 = 1.2;
  constexpr double b = 0.75;
  const double avgdl = static_cast<double>(fts_tokens_) / static_cast<double>(fts_rows_);
  std::vector<double> score(rows_.size(), 0.0);
  std::vector<int> matched(rows_.size(), 0);
  std::vector<uint8_t> in_body(rows_.size(), 0);  // some term in the name or text
  std::vector<int> hint_terms(rows_.size(), 0);   // how many terms are in the hint
  std::vector<uint32_t> touched;
  for (const auto& t : terms) {
    const Span* span = find(t);
    if (span == nullptr) continue;  // adds nothing to any row (0 times its IDF)
    const int64_t hits = span->rows;
    double idf = std::log((static_cast<double>(fts_rows_ - hits) + 0.5) / (static_cast<double>(hits) + 0.5));
    if (idf <= 0.0) idf = 1e-6;
    for (uint32_t i = span->first; i < span->end; ++i) {
      const Posting& p = postings_[i];
      if (!allowed(p.row)) continue;
      const double freq = weights.name * p.in_name + weights.text * p.in_text + weights.hint * p.in_hint;
      const double d = static_cast<double>(rows_[p.row].tokens);
      score[p.row] += idf * ((freq * (k1 + 1.0)) / (freq + k1 * (1 - b + b * d / avgdl)));
      if (matched[p.row]++ == 0) touched.push_back(p.row);
      in_body[p.row] |= p.in_name + p.in_text > 0 ? 1 : 0;
      hint_terms[p.row] += p.in_hint > 0 ? 1 : 0;
    }
  }
  out.reserve(touched.size());
  for (uint32_t r : touched) out.push_back({r, score[r], matched[r], in_body[r] != 0, hint_terms[r]});
  const size_t n = std::min(out.size(), static_cast<size_t>(limit));
  auto better = [&](const Hit& a, const Hit& c) {
    return a.rank != c.rank ? a.rank > c.rank : rows_[a.row].id < rows_[c.row].id;
  };
  std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n), out.end(), better);
  out.resize(n);
  return out;
}

std::vector<uint8_t> TextIndex::rows_with_ids(const std::vector<int64_t>& ids) const {
  std::vector<uint8_t> marks(rows_.size(), 0);
  size_t j = 0;
  for (size_t i = 0; i < rows_.size() && j < ids.size(); ++i) {
    while (j < ids.size() && ids[j] < rows_[i].id) ++j;
    if (j < ids.size() && ids[j] == rows_[i].id) marks[i] = 1;
  }
  return marks;
}

Result<std::unique_ptr<QueryTokenizer>> QueryTokenizer::create(sqlite3* db) {
  fts5_api* api = nullptr;
  {
    sqlite3_stmt* raw = nullptr;
    int rc = sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &raw, nullptr);
    std::unique_ptr<sqlite3_stmt, sqlite::StmtFinalizer> st(raw);
    if (rc != SQLITE_OK) return sqlite::status_from(db, rc, "fts5 api");
    sqlite3_bind_pointer(raw, 1, static_cast<void*>(&api), "fts5_api_ptr", nullptr);
    rc = sqlite3_step(raw);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return sqlite::status_from(db, rc, "fts5 api");
  }
  if (api == nullptr) return Status::internal("SQLite has no FTS5");
  std::unique_ptr<QueryTokenizer> out(new QueryTokenizer());
  void* user_data = nullptr;
  if (api->xFindTokenizer(api, "porter", &user_data, &out->api_) != SQLITE_OK) {
    return Status::internal("FTS5 has no porter tokenizer");
  }
  // The table's tokenize option: porter over unicode61, diacritics removed (migration 3).
  const char* args[] = {"unicode61", "remove_diacritics", "2"};
  if (out->api_.xCreate(user_data, args, 3, &out->tokenizer_) != SQLITE_OK) {
    out->tokenizer_ = nullptr;
    return Status::internal("cannot create FTS5's porter tokenizer");
  }
  return out;
}

QueryTokenizer::~QueryTokenizer() {
  if (tokenizer_ != nullptr) api_.xDelete(tokenizer_);
}

Result<std::vector<std::string>> QueryTokenizer::tokens(std::string_view text) const {
  std::vector<std::string> out;
  auto on_token = [](void* ctx, int flags, const char* token, int size, int, int) -> int {
    if ((flags & FTS5_TOKEN_COLOCATED) == 0) static_cast<std::vector<std::string>*>(ctx)->emplace_back(token, size);
    return SQLITE_OK;
  };
  const int rc =
      api_.xTokenize(tokenizer_, &out, FTS5_TOKENIZE_QUERY, text.data(), static_cast<int>(text.size()), on_token);
  if (rc != SQLITE_OK) return Status::internal("FTS5's tokenizer failed (" + std::to_string(rc) + ")");
  return out;
}

}  // namespace lorekeeper::store
