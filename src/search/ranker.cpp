#include "lorekeeper/search/ranker.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <tuple>

#include "lorekeeper/core/text.hpp"
#include "lorekeeper/model/hints.hpp"
#include "lorekeeper/model/vocabulary.hpp"
#include "lorekeeper/search/editions.hpp"
#include "lorekeeper/search/fusion.hpp"
#include "rank_flow.hpp"

namespace lorekeeper::search {

using model::Entity;
using model::Kind;
using store::Query;

void QueryEmbeddings::prefetch(const std::string& text) const {
  if (semantic_ == nullptr || embedded_.count(text) || pending_.count(text)) return;
  const Semantic* s = semantic_;
  pending_.emplace(text, std::async(std::launch::async, [s, text] { return s->embed(text); }));
}

bool QueryEmbeddings::ready(const std::string& text) const {
  if (embedded_.count(text)) return true;
  const auto p = pending_.find(text);
  return p == pending_.end() || p->second.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

const std::vector<float>& QueryEmbeddings::embed(const std::string& text) const {
  static const std::vector<float> kNone;
  auto it = embedded_.find(text);
  if (it != embedded_.end()) return it->second;
  auto p = pending_.find(text);
  if (p != pending_.end()) {
    // The encoder usually has a millisecond or two left. An encoder working alone is waited for awake (yielding to
    // any other runnable thread), then asleep: sleeping at once would let the idle virtual CPU halt, and waking it
    // again costs more than the wait (seen as a bimodal latency). One that splits its work with a helper thread
    // has both cores computing: a spinning waiter would take one from it, so this thread blocks.
    const bool spin =
        semantic_ == nullptr || semantic_->encoder() == nullptr || !semantic_->encoder()->splits_queries();
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(spin ? 5 : 0);
    while (p->second.wait_for(std::chrono::seconds(0)) != std::future_status::ready &&
           std::chrono::steady_clock::now() < give_up) {
      std::this_thread::yield();
    }
    it = embedded_.emplace(text, p->second.get()).first;
    pending_.erase(p);
  } else {
    if (semantic_ == nullptr) return kNone;
    it = embedded_.emplace(text, semantic_->embed(text)).first;
  }
  return it->second;
}

Result<std::vector<Entity>> editions_named(store::Store& st, Query filters, const std::string& name,
                                           std::string_view preferred) {
  if (text::trim(name).empty()) return std::vector<Entity>{};  // no name: no editions (not every entry)
  filters.name_exact = name;
  filters.offset = 0;
  filters.limit = 10000;  // every edition: a name has a handful, never thousands
  auto r = st.query(filters);
  if (!r) return r.status();
  std::stable_sort(r->entities.begin(), r->entities.end(), [&](const Entity& a, const Entity& b) {
    return model::edition_before(a.document, b.document, preferred);
  });
  return std::move(r->entities);
}

namespace {

// Words too common in this content, or in questions, to say anything about what is wanted.
bool is_stopword(const std::string& w) {
  // English function words (a text holding "whose" and "then" says nothing about a gaze that paralyzes), then the
  // words of requests and of this content's own categories.
  static const std::set<std::string> kStop = {
      "the",    "and",      "for",       "with",    "that",     "this",  "from",  "into",   "onto",   "upon",
      "what",   "which",    "who",       "whom",    "whose",    "how",   "does",  "are",    "was",    "were",
      "been",   "has",      "have",      "can",     "could",    "will",  "would", "should", "may",    "might",
      "must",   "you",      "your",      "our",     "him",      "her",   "his",   "she",    "its",    "their",
      "them",   "they",     "these",     "those",   "not",      "but",   "out",   "own",    "too",    "such",
      "any",    "all",      "some",      "one",     "each",     "other", "very",  "more",   "most",   "only",
      "just",   "even",     "also",      "then",    "than",     "while", "about", "there",  "when",   "where",
      "like",   "way",      "get",       "gets",    "got",      "find",  "show",  "give",   "list",   "spell",
      "spells", "creature", "creatures", "monster", "monsters", "item",  "items", "thing",  "things", "something",
      "dnd",    "d&d"};
  return kStop.count(w) > 0;
}

}  // namespace

std::vector<std::string> meaningful_words(std::string_view query) {
  std::vector<std::string> out;
  for (auto& w : text::folded_words(query)) {
    if (w.size() >= 3 && !is_stopword(w)) out.push_back(std::move(w));
  }
  return out;
}

// Kinds and documents are checked in memory; any other filter asks the store for the matching keys.
Result<std::vector<uint8_t>> allowed_mask(store::Store& st, const VectorIndex& ix, const Query& q) {
  std::vector<uint8_t> mask(ix.size(), 0);
  if (only_kind_and_document_filters(q)) {
    std::set<std::string> docs;
    if (q.document_keys) docs.insert(q.document_keys->begin(), q.document_keys->end());
    for (uint32_t i = 0; i < ix.size(); ++i) {
      const auto& e = ix.entity(i);
      const bool kind_ok = q.kinds.empty() || std::find(q.kinds.begin(), q.kinds.end(), e.kind) != q.kinds.end();
      mask[i] = kind_ok && (!q.document_keys || docs.count(e.document_key)) ? 1 : 0;
    }
    return mask;
  }
  LOREKEEPER_RETURN_IF_ERROR(st.for_each_matching_key(q, [&](Kind kind, std::string_view key) {
    if (auto i = ix.find(kind, key)) mask[*i] = 1;
  }));
  return mask;
}

Result<Ranked> rank(store::Store& st, Query q, const std::string& search, int limit, const RankOptions& options) {
  return RankFlow(st, std::move(q), search, limit, options).run();
}

}  // namespace lorekeeper::search
