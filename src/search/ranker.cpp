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

// The names of the entries of `filters`' kinds and documents that are variants of `name`: the name, then a qualifier
// in parentheses ("Vorpal Sword (Longsword)" of "Vorpal Sword"), each once, in name order.
Result<std::vector<std::string>> variant_names(store::Store& st, const Query& filters, const std::string& name) {
  const std::string fold = text::fold(name);
  auto named = st.names_starting(fold, filters.kinds);
  if (!named) return named.status();
  std::set<std::string> names;
  for (const auto& e : *named) {
    if (filters.document_keys && std::find(filters.document_keys->begin(), filters.document_keys->end(),
                                           e.document_key) == filters.document_keys->end()) {
      continue;
    }
    // (The folded name drops the parentheses: the qualifier is read from the name itself.)
    if (e.name.size() <= name.size() + 2 || text::fold(e.name.substr(0, name.size())) != fold) continue;
    const std::string rest = text::trim(e.name.substr(name.size()));
    if (!rest.empty() && rest.front() == '(' && rest.back() == ')') names.insert(e.name);
  }
  return std::vector<std::string>(names.begin(), names.end());
}

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

// Cosine similarity under which a passage is not taken as meaning the same as the query (all-MiniLM-L6-v2
// puts unrelated English texts around 0-0.25); chosen on the eval set (docs/SEARCH.md).
constexpr float kSemanticFloor = 0.34f;
// A match on words of the text alone must also be this close in meaning, so "stock market prices" does not
// return the entries that happen to mention a market and prices.
constexpr float kTextHitMeaningFloor = 0.25f;
// An empty answer names up to this many entries as near misses, those at least this close in meaning.
constexpr size_t kNearMisses = 3;
constexpr float kNearMissFloor = 0.2f;
// Entries holding every word of the query, when there are at most this many, are what those words point at (a
// name of a place or person, a coined term) and are kept whatever the model makes of the words.
constexpr size_t kSpecificTextHits = 3;
// Partial word matches (Recall for descriptions, in rank): for queries of at least this many meaningful words that
// no text hit matches, the best this many hits that hold at least this many of the words; chosen on the description
// tuning set (docs/SEARCH.md).
constexpr int kPartialMinTerms = 4;
constexpr size_t kPartialDepth = 40;
constexpr int kPartialMinWords = 2;
// What an entry's score is multiplied by when its size is two sizes or more from the one the query names.
constexpr double kSizeContradiction = 0.5;
// How deep a facet's ranking goes, and what a facet adds to a lexical score when there is no meaning index.
constexpr size_t kFacetDepth = 100;
constexpr double kLexicalFacetBoost = 0.1;
// What a graded facet's label weighs against the query's words in the order of the facet's entries (see
// facet_direction); chosen on the facets tuning set over 0.25, 0.5, 0.75 and 1 (docs/SEARCH.md).
constexpr float kFacetLabelWeight = 0.5f;
// What the order of a facet's entries by the query's words weighs against their order by meaning (rank_facets);
// chosen on the tuning sets over 0.25, 0.5, 0.75 and 1 (docs/SEARCH.md).
constexpr double kFacetWordsWeight = 0.5;

// The direction a graded facet's entries are ordered by (QueryFacet::graded), as a unit vector (VectorIndex::top_k's
// error bound assumes one): the query's meaning pulled toward the facet's label, so the entries most about both
// come first ("stop enemies from moving" with "inflicts restrained or grappled or paralyzed": Hold Person and
// Entangle before the spells that mention a condition in passing). None when the query alone orders them: a facet
// that is not graded, or a label that cannot be embedded.
std::optional<std::vector<float>> facet_direction(const std::vector<float>& query, const QueryFacet& f,
                                                  const QueryEmbeddings& embeddings) {
  if (!f.graded() || embeddings.semantic() == nullptr) return std::nullopt;
  const std::vector<float> label = embeddings.semantic()->embed_phrase(f.label());
  if (label.size() != query.size()) return std::nullopt;
  std::vector<float> v(query.size());
  double norm = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = query[i] + kFacetLabelWeight * label[i];
    norm += static_cast<double>(v[i]) * v[i];
  }
  if (!(norm > 0)) return std::nullopt;
  const float scale = static_cast<float>(1 / std::sqrt(norm));
  for (float& x : v) x *= scale;
  return v;
}

bool only_kind_and_document_filters(const Query& q) {
  return !store::has_attribute_filters(q) && q.name_exact.empty() && q.name_contains.empty();
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

namespace {

// The entries with value `v` of facet `f` (of the facet's kinds, under no other filter), as a mask over `ix`. The
// facets a query names recur across searches and finding their entries is an SQL query each, so the masks are
// kept while the index and the store's contents (its stamp) stay the same; a call applies its own filters by
// intersecting with its mask.
Result<std::shared_ptr<const std::vector<uint8_t>>> facet_mask(store::Store& st, const VectorIndex& ix,
                                                               const QueryFacet& f, size_t v) {
  static std::mutex mu;
  static uint64_t generation = 0;
  static std::string stamp_seen;
  static std::map<std::string, std::shared_ptr<const std::vector<uint8_t>>> masks;
  constexpr size_t kMaxMasks = 256;  // 256 masks of 10,000 entries: 2.5 MB
  auto stamp = st.content_stamp();
  if (!stamp) return stamp.status();
  std::string key = f.field + '\x1f' + f.values.at(v) + '\x1f';
  for (Kind k : f.kinds) key += std::string(model::kind_name(k)) + ',';
  {
    std::lock_guard<std::mutex> lock(mu);
    if (generation != ix.generation() || stamp_seen != *stamp) {
      masks.clear();
      generation = ix.generation();
      stamp_seen = *stamp;
    }
    if (auto it = masks.find(key); it != masks.end()) return it->second;
  }
  auto made = allowed_mask(st, ix, narrowed(Query{}, f, v));
  if (!made) return made.status();
  auto mask = std::make_shared<const std::vector<uint8_t>>(std::move(*made));
  std::lock_guard<std::mutex> lock(mu);
  if (generation == ix.generation() && stamp_seen == *stamp) {
    if (masks.size() >= kMaxMasks) masks.clear();
    masks[key] = mask;
  }
  return mask;
}

// For a size facet: the entries that have a size (first) and those within one size of a size it names (second), as
// masks over `ix`.
Result<std::pair<std::vector<uint8_t>, std::vector<uint8_t>>> size_masks(store::Store& st, const VectorIndex& ix,
                                                                         const QueryFacet& f) {
  const auto& all = model::sizes();
  std::vector<size_t> named;
  for (size_t i = 0; i < all.size(); ++i) {
    if (std::find(f.values.begin(), f.values.end(), text::lower(all[i])) != f.values.end()) named.push_back(i);
  }
  QueryFacet each = f;
  each.values.clear();
  for (const auto& z : all) each.values.push_back(text::lower(z));
  std::pair<std::vector<uint8_t>, std::vector<uint8_t>> out{std::vector<uint8_t>(ix.size(), 0),
                                                            std::vector<uint8_t>(ix.size(), 0)};
  for (size_t v = 0; v < each.values.size(); ++v) {
    const bool near = std::any_of(named.begin(), named.end(), [&](size_t n) { return v + 1 >= n && v <= n + 1; });
    auto m = facet_mask(st, ix, each, v);
    if (!m) return m.status();
    for (size_t i = 0; i < ix.size(); ++i) {
      out.first[i] |= (**m)[i];
      if (near) out.second[i] |= (**m)[i];
    }
  }
  return out;
}

// A short excerpt of `text` around the first of `terms` it contains (case-insensitive), else its beginning.
std::string snippet(const std::string& text, const std::vector<std::string>& terms) {
  constexpr size_t kBefore = 60, kLength = 180;
  const std::string low = text::lower(text);
  size_t at = std::string::npos;
  for (const auto& t : terms) {
    const size_t p = low.find(t);
    if (p != std::string::npos && p < at) at = p;
  }
  size_t start = at == std::string::npos || at < kBefore ? 0 : at - kBefore;
  while (start > 0 && text[start - 1] != ' ' && text[start - 1] != '\n') --start;
  size_t end = std::min(text.size(), start + kLength);
  while (end < text.size() && end > start && text[end] != ' ' && text[end] != '\n') --end;
  if (end <= start) end = std::min(text.size(), start + kLength);
  std::string out = text.substr(start, end - start);
  for (auto& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return (start > 0 ? "..." : "") + out + (end < text.size() ? "..." : "");
}

}  // namespace

Result<Ranked> rank(store::Store& st, Query q, const std::string& search, int limit, const RankOptions& options) {
  const Match match = options.match;
  const QueryEmbeddings none;
  const QueryEmbeddings& embeddings = options.embeddings ? *options.embeddings : none;
  Ranked out;
  const std::string s = text::trim(search);
  if (s.empty()) {
    q.limit = limit;
    auto r = st.query(q);
    if (!r) return r.status();
    for (auto& e : r->entities) out.hits.push_back({std::move(e), std::nullopt, {}, {}, {}});
    out.total = r->total;
    out.how = "filters";
    return out;
  }
  const bool lexical = options.ranking != Ranking::kSemantic || match == Match::kNamesOnly;
  // Meaning takes part: embed the query meanwhile (about 5 ms of encoder work the lexical matching overlaps).
  const bool semantic =
      options.ranking != Ranking::kLexical && match == Match::kNamesAndText && embeddings.semantic() != nullptr;
  std::shared_ptr<const VectorIndex> ix = semantic ? embeddings.semantic()->index() : nullptr;
  if (ix) embeddings.prefetch(s);
  // Whether the query is some entity's name or key at all, asked of the in-memory name list: most searches are
  // not, and need no exact-name query under their filters.
  auto is_name = lexical ? st.has_name_or_key(s) : Result<bool>(false);
  if (!is_name) return is_name.status();
  // Every edition of the name, in edition order, before any cut: the first `limit` of them are shown.
  auto editions = *is_name ? editions_named(st, q, s, options.preferred_edition)
                           : Result<std::vector<Entity>>(std::vector<Entity>{});
  if (!editions) return editions.status();
  out.exact_total = static_cast<int>(editions->size());
  std::vector<Hit> exact_results;
  for (const auto& e : *editions) {
    if (static_cast<int>(exact_results.size()) >= limit) break;
    exact_results.push_back({e, 1.0, {"exact name"}, {}, {}});
  }
  // An exact name is answered with that entry, every edition of it, and nothing else (02-lookup-tools-early.md:
  // "If name parameter exactly matches, return single result").
  if (!exact_results.empty() && options.on_exact == OnExactName::kOnlyIt) {
    out.hits = std::move(exact_results);
    out.total = out.exact_total;
    out.how = "exact name";
    out.semantic = ix != nullptr;
    // Entries named as variants of it ("Vorpal Sword (Longsword)", the 2014 SRD's form) are other entries, named
    // so the answer does not seem to be all there is.
    // (Under attribute filters, which the name list cannot check, none are named.)
    auto variants = only_kind_and_document_filters(q) ? variant_names(st, q, s)
                                                      : Result<std::vector<std::string>>(std::vector<std::string>{});
    if (!variants) return variants.status();
    if (!variants->empty()) {
      constexpr size_t kShown = 8;
      std::vector<std::string> shown(
          variants->begin(), variants->begin() + static_cast<std::ptrdiff_t>(std::min(kShown, variants->size())));
      if (variants->size() > kShown) shown.push_back("and " + std::to_string(variants->size() - kShown) + " more");
      out.note = "Also named as variants of it: " + text::join(shown, ", ") + " (search a variant's name for it).";
    }
    return out;
  }
  // Candidates from three matchers, each scored in 0..1, merged by entity (best score wins):
  //   names containing every word (0.5-0.99, by how much of the name the query covers),
  //   names within a small edit distance of the query, for typos (0.6-0.85),
  //   full-text BM25 over names and descriptions (0.1-0.6, relative to the best hit; weak hits dropped).
  // Candidates by (kind, key): score and the result object, loaded now or, for text hits, once they are shown.
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
  std::map<std::pair<int, std::string>, Lexical> merged;
  std::set<std::pair<int, std::string>> exact_ids;
  for (const auto& e : *editions) exact_ids.insert({static_cast<int>(e.kind), e.key});
  // Offers a lexical candidate; its result object is loaded only if it is among those shown.
  auto offer = [&](Kind kind, const std::string& key, double score, const char* how) {
    const auto id = std::make_pair(static_cast<int>(kind), key);
    if (exact_ids.count(id)) return;
    Lexical& c = merged[id];
    c.score = std::max(c.score, score);
    c.how.insert(how);
  };
  const std::string qf = text::fold(s);
  const std::vector<std::string> words = text::folded_words(s);
  if (words.empty()) return out;
  // The query is exactly the name of an entry the filters exclude ("Fireball" with level 1): say so, and offer
  // only what the filters allow that contains every word of it ("heal" with level 1 gives the spells that
  // heal), ordered by meaning too. What resembles a name in meaning alone is that entry's kin (Burning Hands for
  // Fireball), not what was asked for.
  bool excluded_name = false;
  if (*is_name && exact_results.empty() && !only_kind_and_document_filters(q)) {
    Query unfiltered;
    unfiltered.kinds = q.kinds;
    unfiltered.document_keys = q.document_keys;
    unfiltered.name_exact = s;
    unfiltered.limit = 1;
    auto named_elsewhere = st.query(unfiltered);
    if (!named_elsewhere) return named_elsewhere.status();
    if (named_elsewhere->total > 0) {
      excluded_name = true;
      out.note = "\"" + named_elsewhere->entities.front().name +
                 "\" is the name of an entry these filters exclude; the results are other matches.";
    }
  }
  Query contains = q;
  contains.name_contains = words;
  contains.limit = 500;
  auto named =
      lexical ? st.match_names(contains) : Result<std::vector<store::NameEntry>>(std::vector<store::NameEntry>{});
  if (!named) return named.status();
  const int contains_total = static_cast<int>(named->size());
  // Entries taken for the one meant and placed first, whatever the other rankings say: a misspelt name (below), or
  // a name the query gives but for a plural's final "s" ("opportunity attack" is Opportunity Attacks, not the
  // Multiattack a hint of it ranks higher).
  std::set<std::pair<int, std::string>> corrected;
  std::set<std::string> plural_names;
  for (const auto& e : *named) {
    const std::string nf = text::fold(e.name);
    if (nf == qf + "s" || qf == nf + "s") {
      plural_names.insert(nf);
      corrected.insert({static_cast<int>(e.kind), e.key});
    }
    const double coverage =
        std::min(1.0, nf.empty() ? 0 : static_cast<double>(qf.size()) / static_cast<double>(nf.size()));
    double score = 0.5 + 0.4 * coverage;
    if (nf.rfind(qf, 0) == 0) score += 0.05;              // the name starts with the query
    if (nf.find(qf) != std::string::npos) score += 0.04;  // the words appear together, in order
    offer(e.kind, e.key, std::min(score, 0.99), "name");
  }
  if (plural_names.size() > 1) corrected.clear();  // both "x" and "xs" named: neither is singled out
  const bool names_matched = !merged.empty();
  // Text search over the words that carry meaning (they also place the snippets); a hit must contain at
  // least half of them, so a query of gibberish plus common words finds nothing rather than whatever mentions
  // "spell".
  const std::vector<std::string> meaningful = meaningful_words(s);
  const std::vector<std::string> terms =
      match == Match::kNamesOnly || !lexical ? std::vector<std::string>{} : meaningful;
  auto text_hits = st.text_search(q, terms, 100);
  if (!text_hits) return text_hits.status();
  const int needed = static_cast<int>(excluded_name ? terms.size() : (terms.size() + 1) / 2);
  // (Not under an excluded name: an entry that mentions it is not the one asked for.)
  std::set<std::pair<int, std::string>> specific;
  if (!terms.empty() && !excluded_name) {
    for (const auto& h : *text_hits) {
      if (h.matched_terms == static_cast<int>(terms.size())) specific.insert({static_cast<int>(h.kind), h.key});
    }
    if (specific.size() > kSpecificTextHits) specific.clear();
  }
  double best = 0;
  for (const auto& h : *text_hits) {
    if (h.matched_terms < needed) continue;
    if (best == 0) best = h.rank;
    const double rel = best > 0 ? h.rank / best : 0;
    if (rel < 0.25) break;  // below the relevance floor: left out rather than padding the answer
    const double score = 0.1 + 0.5 * rel;
    if (h.in_body) offer(h.kind, h.key, score, "text");
    if (h.in_hint()) offer(h.kind, h.key, score, "hint");
    // (An exact name is never a candidate: only the entries offered count their words.)
    if (const auto at = merged.find({static_cast<int>(h.kind), h.key}); at != merged.end()) {
      at->second.words = std::max(at->second.words, h.matched_terms);
      at->second.hint_share =
          std::max(at->second.hint_share, std::min(1.0, static_cast<double>(h.hint_terms) / std::max(1, needed)));
    }
  }
  // Recall for descriptions: a 15-25 word description of a thing shares only some of its words with the record,
  // often fewer than half, and then no entry holds the half a text hit needs. The best of those partial matches
  // (two words or more, by BM25) are then weak candidates, each still to be near the query in meaning (below).
  // (Offered beside text hits too, they displaced answers the meaning ranking had right.)
  const bool no_text_hit = std::none_of(text_hits->begin(), text_hits->end(),
                                        [&](const store::Store::TextHit& h) { return h.matched_terms >= needed; });
  if (static_cast<int>(terms.size()) >= kPartialMinTerms && !excluded_name && no_text_hit) {
    double best_partial = 0;
    size_t taken = 0;
    for (const auto& h : *text_hits) {
      if (taken >= kPartialDepth) break;
      if (h.matched_terms >= needed || h.matched_terms < kPartialMinWords) continue;
      if (best_partial == 0) best_partial = h.rank;
      ++taken;
      const EntityId id{static_cast<int>(h.kind), h.key};
      const bool offered = merged.count(id) > 0;
      const double score = 0.02 + 0.06 * h.rank / best_partial;  // under a half-word hit's 0.1 and up
      if (h.in_body) offer(h.kind, h.key, score, "text");
      if (h.in_hint()) offer(h.kind, h.key, score, "hint");
      if (const auto at = merged.find(id); at != merged.end()) {
        if (!offered) at->second.partial = true;
        at->second.words = std::max(at->second.words, h.matched_terms);
      }
    }
  }
  bool typo = false;
  // Close spellings of a name, when no name matched and the words do not all occur together in some entry's
  // text (then the query describes something rather than misspells a name, and comparing it with every name
  // would cost more than the rest of the search); never for an excluded name, which is spelt right.
  const bool described =
      terms.size() >= 2 && std::any_of(text_hits->begin(), text_hits->end(), [&](const store::Store::TextHit& h) {
        return h.matched_terms == static_cast<int>(terms.size());
      });
  if (lexical && !excluded_name && !names_matched && !described && exact_results.empty() && qf.size() >= 4 &&
      words.size() <= 4) {
    const int budget = std::max(1, static_cast<int>(qf.size()) / 3);
    // Every name of the kinds and documents asked for within the budget, nearest first (then by name); the ten
    // nearest that have entries under the other filters are offered.
    std::map<std::string, std::pair<int, std::string>> within;  // folded name -> edit distance, a stored name
    Status visited = st.for_each_name(q.kinds, [&](const store::NameEntry& n) {
      if (q.document_keys &&
          std::find(q.document_keys->begin(), q.document_keys->end(), n.document_key) == q.document_keys->end()) {
        return true;
      }
      const int d = text::edit_distance(qf, n.name_fold, budget);
      if (d <= budget) within.emplace(n.name_fold, std::make_pair(d, n.name));
      return true;
    });
    if (!visited.is_ok()) return visited;
    // A misspelling seldom changes the first letter: at one edit distance, a name that begins as the query does is
    // nearer ("ocultist" is Occultist before Cultist), by half an edit.
    std::vector<std::tuple<double, std::string, std::string>> nearest;  // distance, folded name, stored name
    for (const auto& [fold, close] : within) {
      const double other_start = !fold.empty() && fold[0] != qf[0] ? 0.5 : 0.0;
      nearest.emplace_back(close.first + other_start, fold, close.second);
    }
    std::sort(nearest.begin(), nearest.end());
    struct Close {
      double distance;
      std::vector<store::NameEntry> entries;
    };
    std::vector<Close> offered;
    constexpr size_t kCloseNames = 10, kCloseTries = 50;
    for (size_t i = 0; i < nearest.size() && i < kCloseTries && offered.size() < kCloseNames; ++i) {
      Query by_name = q;
      by_name.name_exact = std::get<2>(nearest[i]);
      by_name.limit = 20;
      auto hits = st.match_names(by_name);
      if (!hits) return hits.status();
      if (!hits->empty()) offered.push_back({std::get<0>(nearest[i]), std::move(*hits)});
    }
    // A name nearer than every other, within two edits, is the one misspelt ("firbal", "cury wounds", "rouge"). A
    // name further off is a close name among others, not a correction: "red dragn" is not the Red Hag, nor
    // "concentration" Conjuration, nor "eldritch knight" the Eldritch Trickster.
    constexpr double kMaxCorrection = 2;
    const bool unique_nearest = !offered.empty() && offered[0].distance <= kMaxCorrection &&
                                (offered.size() == 1 || offered[1].distance > offered[0].distance);
    for (size_t i = 0; i < offered.size(); ++i) {
      for (const auto& e : offered[i].entries) {
        // 0.6-0.85, the nearest highest (a first letter changed counts half an edit more).
        offer(e.kind, e.key, 0.85 - 0.25 * offered[i].distance / (std::max(1, budget) + 0.5), "close name");
        if (unique_nearest && i == 0) corrected.insert({static_cast<int>(e.kind), e.key});
      }
    }
    typo = !offered.empty();
  }
  // Meaning: the nearest passages to the query among the entities the filters allow.
  std::vector<std::pair<int, std::string>> semantic_order;
  bool gibberish = false;  // meaning was ready but not asked: no word of the query occurs anywhere
  if (ix && merged.empty() && exact_results.empty()) {
    // Nothing matched by name or text: unless some meaningful word of the query occurs somewhere in the
    // corpus, the query is gibberish ("zxcvbnm asdfgh") and any nearest passage would be noise.
    auto known = st.any_text_match(meaningful);
    if (!known) return known.status();
    if (!*known) {
      ix = nullptr;
      gibberish = true;
    }
  }
  // The entities loaded for showing, by (kind, key): the best lexical candidates are read while the encoder
  // still works, as most of them are shown in the end.
  std::map<std::pair<int, std::string>, Entity> loaded;
  auto load = [&](const std::pair<int, std::string>& id) -> Result<const Entity*> {
    auto at = loaded.find(id);
    if (at == loaded.end()) {
      auto got = st.get(id.second, static_cast<Kind>(id.first), false);
      if (!got) return got.status();
      if (got->empty()) return static_cast<const Entity*>(nullptr);
      at = loaded.emplace(id, std::move(got->front())).first;
    }
    return &at->second;
  };
  std::vector<uint8_t> mask;
  if (ix) {
    // The filter mask is made while the encoder works, then the likeliest results are read.
    auto made = allowed_mask(st, *ix, q);
    if (!made) return made.status();
    mask = std::move(*made);
    if (!embeddings.ready(s)) {
      std::vector<std::pair<double, std::pair<int, std::string>>> likeliest;
      for (const auto& [id, c] : merged) likeliest.push_back({c.score, id});
      const size_t n =
          std::min(likeliest.size(), static_cast<size_t>(std::max(0, limit - static_cast<int>(exact_results.size()))));
      std::partial_sort(likeliest.begin(), likeliest.begin() + static_cast<std::ptrdiff_t>(n), likeliest.end(),
                        [](const auto& a, const auto& b) { return a.first > b.first; });
      for (size_t i = 0; i < n && !embeddings.ready(s); ++i) {
        auto e = load(likeliest[i].second);
        if (!e) return e.status();
      }
    }
    const std::vector<float>& qv = embeddings.embed(s);
    // A query the model could not embed (NaN from a damaged model) is answered by names and words alone.
    if (qv.size() != static_cast<size_t>(ix->dims())) ix = nullptr;
  }
  if (ix) {
    const std::vector<float>& qv = embeddings.embed(s);
    // Lexical hits on words of the text or hint alone that are far from the query's meaning are dropped, unless
    // they are the few entries that hold all of the query's words, or the query is one word that names nothing
    // (no name holds it, nor is near it, nor is it the name of an excluded entry) and the texts hold: the model
    // makes little of a bare word ("surprise" is under the floor for the rules of surprise).
    const bool one_word = terms.size() == 1 && !names_matched && !typo && !excluded_name;
    for (auto it = merged.begin(); it != merged.end();) {
      const auto at = it->second.description_only() && !specific.count(it->first) && !one_word
                          ? ix->find(static_cast<Kind>(it->first.first), it->first.second)
                          : std::nullopt;
      if (at && ix->similarity(*at, qv.data()) < kTextHitMeaningFloor) {
        it = merged.erase(it);
      } else {
        ++it;
      }
    }
    std::vector<VectorIndex::Hit> below_floor;
    for (const auto& h : ix->top_k(qv.data(), &mask, 100)) {
      if (h.score < kSemanticFloor) {
        if (h.score >= kNearMissFloor && below_floor.size() < kNearMisses) below_floor.push_back(h);
        if (h.score < kNearMissFloor || below_floor.size() >= kNearMisses) break;
        continue;
      }
      const auto& ref = ix->entity(h.entity);
      const auto id = std::make_pair(static_cast<int>(ref.kind), ref.key);
      if (exact_ids.count(id)) continue;
      // Under an excluded name, meaning orders what the words found and adds nothing.
      if (excluded_name && !merged.count(id)) continue;
      semantic_order.push_back(id);
    }
    // Nothing at all: the nearest that came close are named, so a question in words the model does not tie to
    // the text ("Dex cap", "breastplate") is not met with silence.
    if (semantic_order.empty() && merged.empty() && exact_results.empty() && !excluded_name) {
      for (const auto& h : below_floor) {
        const auto& ref = ix->entity(h.entity);
        auto e = load({static_cast<int>(ref.kind), ref.key});
        if (!e) return e.status();
        if (*e != nullptr) out.near_misses.push_back({**e, h.score});
      }
    }
  }
  // The facets the query names, each as a ranking of the entries that have it (hybrid only: the single rankings
  // stay what they measure).
  const std::vector<QueryFacet> facets =
      options.ranking == Ranking::kHybrid && match == Match::kNamesAndText && !excluded_name
          ? understand(s, q)
          : std::vector<QueryFacet>{};
  std::vector<std::vector<EntityId>> facet_rankings;
  std::set<EntityId> with_facet;
  // Ranks the entries with each facet (skipped when a confident text winner would take their weight away).
  auto rank_facets = [&]() -> Status {
    for (const QueryFacet& f : facets) {
      std::vector<EntityId> ranking;
      if (ix) {
        // The entries with the facet that the filters allow, nearest in meaning first. The call's own filters
        // hold whatever the facet names: another value of a filtered field ("flies" under `movement` swim) ranks
        // the entries with both, never one without the filter's value.
        std::vector<uint8_t> has(ix->size(), 0);
        for (size_t v = 0; v < f.values.size(); ++v) {
          auto m = facet_mask(st, *ix, f, v);
          if (!m) return m.status();
          for (size_t i = 0; i < has.size(); ++i) has[i] |= (**m)[i];
        }
        for (size_t i = 0; i < has.size(); ++i) has[i] &= mask[i];
        const std::vector<float>& qv = embeddings.embed(s);
        const std::optional<std::vector<float>> blended = facet_direction(qv, f, embeddings);
        for (const auto& h : ix->top_k(blended ? blended->data() : qv.data(), &has, kFacetDepth)) {
          // The floor is the query's own: a label orders the entries, it does not admit one far from the words.
          // Ordered by the query alone, the first under the floor ends the ranking.
          const float to_query = blended ? ix->similarity(h.entity, qv.data()) : h.score;
          if (to_query < kTextHitMeaningFloor) {
            if (!blended) break;
            continue;
          }
          const auto& ref = ix->entity(h.entity);
          EntityId id{static_cast<int>(ref.kind), ref.key};
          if (!exact_ids.count(id)) ranking.push_back(std::move(id));
        }
        // The entries with the facet that also matched the query's words are a second order of them, fused with
        // the order by meaning: where the two agree an entry leads the facet ("stealthy hunters that attack by
        // surprise": the Assassin has the Stealth skill and the words, while dozens with the skill are nearer in
        // meaning alone).
        std::vector<std::pair<double, EntityId>> worded;
        for (const auto& [id, c] : merged) {
          const auto at = ix->find(static_cast<Kind>(id.first), id.second);
          const bool most_words = !c.description_only() || 2 * c.words > static_cast<int>(terms.size());
          if (at && has[*at] && most_words && !exact_ids.count(id)) worded.push_back({c.score, id});
        }
        if (!worded.empty()) {
          std::stable_sort(worded.begin(), worded.end(),
                           [](const auto& a, const auto& b) { return a.first > b.first; });
          std::map<EntityId, double> standing;
          for (size_t i = 0; i < ranking.size(); ++i) standing[ranking[i]] += 1 / (kRrfK + static_cast<double>(i) + 1);
          for (size_t i = 0; i < worded.size(); ++i) {
            standing[worded[i].second] += kFacetWordsWeight / (kRrfK + static_cast<double>(i) + 1);
          }
          std::vector<std::pair<double, EntityId>> order;
          order.reserve(standing.size());
          for (auto& [id, score] : standing) order.push_back({score, id});
          std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
          ranking.clear();
          for (auto& [score, id] : order) ranking.push_back(std::move(id));
        }
      } else {
        // Without meaning, the lexical candidates with the facet, in their lexical order.
        std::set<EntityId> members;
        for (size_t v = 0; v < f.values.size(); ++v) {
          LOREKEEPER_RETURN_IF_ERROR(st.for_each_matching_key(narrowed(q, f, v), [&](Kind kind, std::string_view key) {
            const EntityId id{static_cast<int>(kind), std::string(key)};
            if (merged.count(id)) members.insert(id);
          }));
        }
        std::vector<std::pair<double, EntityId>> ordered;
        for (const auto& id : members) ordered.push_back({merged[id].score, id});
        std::stable_sort(ordered.begin(), ordered.end(),
                         [](const auto& a, const auto& b) { return a.first > b.first; });
        for (auto& [score, id] : ordered) ranking.push_back(std::move(id));
      }
      if (ranking.empty()) continue;
      with_facet.insert(ranking.begin(), ranking.end());
      facet_rankings.push_back(std::move(ranking));
      out.understood.push_back(f);
    }
    return Status::ok();
  };
  struct Candidate {
    double score;
    std::pair<int, std::string> id;
    std::vector<std::string> how;
  };
  std::vector<Candidate> scored;
  std::vector<EntityId> lexical_order;  // the lexical candidates, best first (hybrid ranking)
  if (!ix) {
    LOREKEEPER_RETURN_IF_ERROR(rank_facets());
    // Lexical scores are 0.1-0.99: an entry with every facet named gains a tenth.
    for (auto& [id, c] : merged) {
      double boost = 0;
      for (const auto& r : facet_rankings) {
        if (std::find(r.begin(), r.end(), id) != r.end()) boost += kLexicalFacetBoost / facet_rankings.size();
      }
      std::vector<std::string> how(c.how.begin(), c.how.end());
      if (boost > 0) how.push_back("facet");
      scored.push_back({std::min(0.99, c.score + boost), id, std::move(how)});
    }
  } else {
    // Fusion of the lexical ranking (by its score; the lexical score itself breaks ties, so strong name matches
    // keep their order) and the semantic one (by cosine), with the evidence of a confident full-text winner.
    std::vector<std::pair<double, EntityId>> lex;
    for (const auto& [id, c] : merged) lex.push_back({c.score, id});
    std::stable_sort(lex.begin(), lex.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& [score, id] : lex) lexical_order.push_back(id);
    FusionInput in;
    in.hybrid = options.ranking == Ranking::kHybrid;
    for (const auto& [score, id] : lex) {
      const Lexical& m = merged[id];
      in.lexical.push_back({id,
                            !m.description_only() ? Evidence::kName
                            : m.partial           ? Evidence::kPartial
                            : m.by_hint()         ? Evidence::kHint
                                                  : Evidence::kText,
                            m.hint_share});
    }
    in.semantic = semantic_order;
    // The text winner: the best full-text hit, with its other editions and the variants that share its text (the
    // seven Muffled armors of one description), up to the best hit of another name and text. Its lead is the larger
    // of two: in relevance (BM25) over the best other hit, and in the query's words it holds, beyond one, over any
    // other hit (thirteen of a description's nineteen words against the next entry's ten: a lead BM25 can hide when
    // the other's text is shorter).
    if (in.hybrid) {
      std::string winner_name, winner_text;
      double winner_rank = 0, other_rank = 0;
      int winner_words = 0;
      for (const auto& h : *text_hits) {
        if (h.matched_terms < needed) continue;
        auto e = load({static_cast<int>(h.kind), h.key});
        if (!e) return e.status();
        if (*e == nullptr) continue;
        const std::string name = text::fold((*e)->name);
        if (winner_name.empty()) {
          winner_name = name;
          winner_text = (*e)->text;
          winner_rank = h.rank;
        }
        if (name != winner_name && ((*e)->text.empty() || (*e)->text != winner_text)) {
          other_rank = h.rank;
          break;
        }
        in.text_winner.insert({static_cast<int>(h.kind), h.key});
        winner_words = std::max(winner_words, h.matched_terms);
      }
      int other_words = 0;
      for (const auto& h : *text_hits) {
        if (h.matched_terms >= needed && !in.text_winner.count({static_cast<int>(h.kind), h.key})) {
          other_words = std::max(other_words, h.matched_terms);
        }
      }
      in.text_confidence = text_lead_confidence(winner_rank, other_rank);
      // (One word more says little: it may be the most common of them.)
      if (winner_words > other_words + 1) {
        in.text_confidence = std::max(in.text_confidence, text_lead_confidence(winner_words - 1, other_words));
      }
    }
    if (in.text_confidence < 1) {
      LOREKEEPER_RETURN_IF_ERROR(rank_facets());
      in.facets = facet_rankings;
    }
    std::map<EntityId, Candidate> fused;
    for (const auto& [id, score] : fuse(in)) fused[id] = {score, id, {}};
    for (const auto& [score, id] : lex) {
      const Lexical& m = merged[id];
      fused[id].how.assign(m.how.begin(), m.how.end());
    }
    for (const auto& id : semantic_order) fused[id].how.push_back("meaning");
    for (const auto& id : with_facet) fused[id].how.push_back("facet");
    // A size the query names counts against the entries two sizes or more from it, whatever else they share with
    // it ("a tiny dragon that steals coins" is not the Gargantuan Ancient Gold Dragon its words and meaning favour).
    for (const QueryFacet& f : facets) {
      if (f.field != "size") continue;
      auto fits = size_masks(st, *ix, f);
      if (!fits) return fits.status();
      for (auto& [id, c] : fused) {
        const auto at = ix->find(static_cast<Kind>(id.first), id.second);
        if (at && fits->first[*at] && !fits->second[*at]) c.score *= kSizeContradiction;
      }
    }
    for (auto& [id, c] : fused) {
      // The misspelt name outranks what merely resembles the query in meaning.
      if (corrected.count(id)) c.score = 0.999;
      scored.push_back(std::move(c));
    }
  }
  std::stable_sort(scored.begin(), scored.end(), [&](const Candidate& a, const Candidate& b) {
    if (a.score != b.score) return a.score > b.score;
    const bool ca = corrected.count(a.id) > 0, cb = corrected.count(b.id) > 0;
    if (ca != cb) return ca;
    const auto la = merged.find(a.id), lb = merged.find(b.id);
    const double sa = la == merged.end() ? 0 : la->second.score, sb = lb == merged.end() ? 0 : lb->second.score;
    if (sa != sb) return sa > sb;
    return a.id < b.id;
  });
  out.hits = std::move(exact_results);
  // Each place shown: the candidate it shows, the candidate that ranked it and the other editions.
  struct Place {
    size_t shown;
    size_t best;
    std::vector<size_t> others;
  };
  std::vector<Place> places;
  // The grouped candidates' names and documents, by index in `scored`.
  std::vector<std::optional<store::NameEntry>> entries;
  if (options.group_editions) {
    // Grouped from the name list alone (names and documents in memory), so only the entries shown are read.
    std::vector<EntityId> ids;
    ids.reserve(scored.size());
    for (const auto& c : scored) ids.push_back(c.id);
    auto listed = st.name_entries(ids);
    if (!listed) return listed.status();
    entries = std::move(*listed);
    std::map<std::string, model::Document, std::less<>> documents;
    std::vector<RankedEdition> ranked;
    ranked.reserve(scored.size());
    for (size_t i = 0; i < scored.size(); ++i) {
      RankedEdition r;
      r.kind = static_cast<Kind>(scored[i].id.first);
      const std::string document_key = entries[i] ? entries[i]->document_key : std::string();
      auto at = documents.find(document_key);
      if (at == documents.end()) {
        auto doc = st.document(document_key);
        if (!doc) return doc.status();
        model::Document known;
        known.key = document_key;
        at = documents.emplace(document_key, doc->value_or(std::move(known))).first;
      }
      r.document = &at->second;
      // An entry gone since it was ranked has a place of its own, skipped when read.
      r.name_fold = entries[i] ? entries[i]->name_fold : "\x1f" + scored[i].id.second;
      ranked.push_back(std::move(r));
    }
    // (Every place: an entry deleted since it was ranked is skipped when read, and the next place shown.)
    for (auto& p : group_editions(ranked, ranked.size(), options.preferred_edition)) {
      places.push_back({p.shown, p.best, std::move(p.others)});
    }
  } else {
    for (size_t i = 0; i < scored.size(); ++i) places.push_back({i, i, {}});
  }
  for (const auto& place : places) {
    if (static_cast<int>(out.hits.size()) >= limit) break;
    const Candidate& c = scored[place.best];
    // The shown edition, or, when it was deleted since it was ranked, the next of its place that still exists.
    size_t shown = place.shown;
    auto e = load(scored[shown].id);
    if (!e) return e.status();
    for (size_t o : place.others) {
      if (*e != nullptr) break;
      shown = o;
      e = load(scored[shown].id);
      if (!e) return e.status();
    }
    if (*e == nullptr) continue;
    const Entity& entity = **e;
    Hit hit{entity, c.score, c.how, {}, {}};
    for (size_t o : place.others) {
      if (o != shown && entries[o]) hit.other_editions.push_back({entries[o]->key, entries[o]->document_key});
    }
    auto matched = [&](const char* how) { return std::find(c.how.begin(), c.how.end(), how) != c.how.end(); };
    if (matched("hint") && !matched("text")) {
      // The words were found in the search hint, which says so better than the start of the text.
      hit.snippet = std::string(st.hints().find(entity.kind, entity.name));
    } else if ((matched("text") || matched("meaning") || matched("facet")) && !entity.text.empty()) {
      hit.snippet = snippet(entity.text, meaningful);
    }
    out.hits.push_back(std::move(hit));
  }
  // Words and meaning that disagree outright (each ranking's first is outside the other's first ten, and the words
  // matched no name) are said, with which of the two the first result follows: the reader can weigh the other.
  if (options.ranking == Ranking::kHybrid && !out.hits.empty() && !lexical_order.empty() && !semantic_order.empty() &&
      corrected.empty() && merged[lexical_order.front()].description_only()) {
    const EntityId& by_words = lexical_order.front();
    const EntityId& by_meaning = semantic_order.front();
    if (rankings_disagree(lexical_order, semantic_order)) {
      auto words_first = load(by_words);
      if (!words_first) return words_first.status();
      auto meaning_first = load(by_meaning);
      if (!meaning_first) return meaning_first.status();
      const std::string shown = text::fold(out.hits.front().entity.name);
      const auto named = [](const Entity* e) { return e->name + " (`" + e->key + "`)"; };
      std::string said;
      if (*words_first && *meaning_first && shown == text::fold((*words_first)->name)) {
        said = "The query's words and its meaning disagree: the first result is the best match by words; by meaning, " +
               named(*meaning_first) + " comes first.";
      } else if (*words_first && *meaning_first && shown == text::fold((*meaning_first)->name)) {
        said = "The query's words and its meaning disagree: the first result is the nearest in meaning; by words, " +
               named(*words_first) + " comes first.";
      }
      if (!said.empty()) out.note = out.note.empty() ? said : out.note + " " + said;
    }
  }
  out.total = static_cast<int>(exact_ids.size() + scored.size());
  out.how = !exact_ids.empty()        ? "exact name"
            : contains_total > 0      ? "name contains"
            : typo                    ? "close name"
            : !semantic_order.empty() ? "meaning"
                                      : "text";
  out.semantic = ix != nullptr || gibberish;
  return out;
}

}  // namespace lorekeeper::search
